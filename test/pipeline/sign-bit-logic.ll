; Sign flips and absolute values written as integer logic on the bits of
; doubles (Eigen's SSE pnegate and pabs): the prepared copy computes them
; as fneg and fabs, bit for bit the same, which have derivatives. At -O2
; the packet is loaded as <2 x i64> (InstCombine then loads it as
; doubles); at -O0 it is a double packet reinterpreted. Masks that are not
; exactly the sign bit in every lane stay integer logic and an error: they
; change more than the sign (a silently lost tangent before, for a store).
; RUN: split-file %s %t
; RUN: %opt -passes='ad<O2>' %t/negate.ll -S | FileCheck %s --check-prefix=NEG
; RUN: %opt -passes='ad<O0>' %t/abs.ll -S | FileCheck %s --check-prefix=ABS
; RUN: not %opt -passes='ad<O0>' %t/other-mask.ll -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=OTHER
; RUN: not %opt -passes='ad<O0>' %t/lanes-differ.ll -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=OTHER

; The forward pass negates doubles; the cotangent of -x is minus that of
; the result.
; NEG-LABEL: define internal void @negate.fwd(
; NEG: = fneg <2 x double>
; NEG-LABEL: define internal void @negate.rev(
; NEG: [[CT:%.*]] = load <2 x double>, ptr %dto
; NEG: [[MINUS:%.*]] = fsub <2 x double> {{<double -0.000000e\+00, double -0.000000e\+00>|splat \(double -0.000000e\+00\)}}, [[CT]]
; NEG: fadd <2 x double> {{.*}}[[MINUS]]
; |x|' = sign(x), taped by the forward pass and multiplied in reverse.
; ABS-LABEL: define internal void @absolute.fwd(
; ABS: call <2 x double> @llvm.fabs.v2f64(<2 x double> %v)
; ABS: fcmp olt <2 x double> %v, zeroinitializer
; ABS-LABEL: define internal void @absolute.rev(
; ABS: fmul <2 x double>
; OTHER: error: {{.*}}cannot differentiate floating-point data read from memory that carries derivatives as an integer, changed and stored

;--- negate.ll
declare void @__ad_gradient_void(ptr, ...)

define void @negate(ptr %to, ptr %from) {
  %bits = load <2 x i64>, ptr %from, align 16
  %neg = xor <2 x i64> %bits, <i64 -9223372036854775808, i64 -9223372036854775808>
  store <2 x i64> %neg, ptr %to, align 16
  ret void
}

define void @use(ptr %a, ptr %da, ptr %b, ptr %db) {
  call void (ptr, ...) @__ad_gradient_void(ptr @negate, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}

;--- abs.ll
declare void @__ad_gradient_void(ptr, ...)

define void @absolute(ptr %to, ptr %from) {
  %v = load <2 x double>, ptr %from, align 16
  %bits = bitcast <2 x double> %v to <2 x i64>
  %abs = and <2 x i64> %bits, <i64 9223372036854775807, i64 9223372036854775807>
  %r = bitcast <2 x i64> %abs to <2 x double>
  store <2 x double> %r, ptr %to, align 16
  ret void
}

define void @use(ptr %a, ptr %da, ptr %b, ptr %db) {
  call void (ptr, ...) @__ad_gradient_void(ptr @absolute, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}

;--- other-mask.ll
declare void @__ad_gradient_void(ptr, ...)

define double @negate(ptr %to, ptr %from) {
  %bits = load <2 x i64>, ptr %from, align 16
  %neg = xor <2 x i64> %bits, <i64 1, i64 1>
  store <2 x i64> %neg, ptr %to, align 16
  %v = load double, ptr %to, align 8
  ret double %v
}

define void @use(ptr %a, ptr %da, ptr %b, ptr %db) {
  call void (ptr, ...) @__ad_gradient_void(ptr @negate, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}

;--- lanes-differ.ll
declare void @__ad_gradient_void(ptr, ...)

define double @negate(ptr %to, ptr %from) {
  %bits = load <2 x i64>, ptr %from, align 16
  %neg = xor <2 x i64> %bits, <i64 -9223372036854775808, i64 0>
  store <2 x i64> %neg, ptr %to, align 16
  %v = load double, ptr %to, align 8
  ret double %v
}

define void @use(ptr %a, ptr %da, ptr %b, ptr %db) {
  call void (ptr, ...) @__ad_gradient_void(ptr @negate, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}
