; Doubles loaded as <4 x i32> and shuffled in 32-bit halves that move
; together (Eigen's SSE2 broadcast in its matrix-product kernel, at -O1
; and above): the prepared copy makes them a load of doubles and a shuffle
; of doubles (VectorCombine, then EarlyCSE and InstCombine), which have
; derivatives. At -O0 the shuffle becomes one of doubles too, but without
; InstCombine the doubles are still loaded as integers: an error
; (test/linearize/float-bit-lanes.ll), never a lost tangent.
; RUN: %opt -passes='ad<O2>' %s -S | FileCheck %s
; RUN: not %opt -passes='ad<O0>' %s -S -o /dev/null 2>&1 | FileCheck %s --check-prefix=O0

; The reverse pass adds the cotangent of the broadcast high half into the
; shadow, read and written as doubles.
; CHECK-LABEL: define internal void @f.rev(
; CHECK: [[OLD:%.*]] = load <2 x double>, ptr %dp
; CHECK: [[NEW:%.*]] = fadd <2 x double> [[OLD]],
; CHECK: store <2 x double> [[NEW]], ptr %dp
; O0: error: {{.*}}cannot differentiate a floating-point value made from bytes of memory that carries derivatives, read as an integer and changed

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare void @__ad_gradient_void(ptr, ...)

define double @f(ptr %p) {
  %v = load <4 x i32>, ptr %p, align 16
  %s = shufflevector <4 x i32> %v, <4 x i32> poison, <4 x i32> <i32 2, i32 3, i32 2, i32 3>
  %hi = bitcast <4 x i32> %s to <2 x double>
  %m = fmul <2 x double> %hi, %hi
  %r = extractelement <2 x double> %m, i64 1
  ret double %r
}

define void @use(ptr %p, ptr %dp) {
  call void (ptr, ...) @__ad_gradient_void(ptr @f, ptr %p, ptr %dp)
  ret void
}
