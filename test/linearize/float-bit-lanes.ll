; Float bits moved as integer lanes. A shuffle of 32-bit halves of doubles
; (Eigen's SSE2 swizzle, _mm_shuffle_epi32 on a cast packet) can only be
; read as moves of whole doubles by looking at its mask; the linearizer
; does not, so the tangent would be lost: an error, whether the bits come
; from an active value through a chain of integer bitcasts (as -O0 leaves
; _mm_castpd_si128 then _mm_shuffle_epi32) or from memory with derivatives
; loaded as <4 x i32>. Before, both compiled with a zero tangent. (The
; prepared copy turns shuffles that move whole doubles into shuffles of
; doubles first, at every level: test/pipeline/float-bit-lanes-prepare.ll.
; These swap the two halves of each double, which no shuffle of doubles
; does.)
; RUN: split-file %s %t
; RUN: not %opt -passes=ad-linearize %t/chain.ll -disable-output 2>&1 | FileCheck %s --check-prefix=CHAIN
; RUN: not %opt -passes=ad-linearize %t/loaded.ll -disable-output 2>&1 | FileCheck %s --check-prefix=LOADED
; RUN: %opt -passes=ad-linearize %t/whole.ll -S | FileCheck %s --check-prefix=WHOLE

; CHAIN: error: {{.*}}cannot differentiate floating-point bit manipulation (an active value reinterpreted as an integer, changed, and turned back)
; LOADED: error: {{.*}}cannot differentiate a floating-point value made from bytes of memory that carries derivatives, read as an integer and changed
; The same data shuffled as doubles has a tangent shuffled alike.
; WHOLE-LABEL: define internal { double, double } @f.jvp(
; WHOLE: %v.d = load <2 x double>, ptr %dp, align 16, !ad.linear
; WHOLE: %hi.d = shufflevector <2 x double> %v.d, <2 x double> zeroinitializer, <2 x i32> <i32 1, i32 1>, !ad.linear

;--- chain.ll
declare double @__ad_gradient(ptr, ...)

define double @f(ptr %p) {
  %v = load <2 x double>, ptr %p, align 16
  %b64 = bitcast <2 x double> %v to <2 x i64>
  %b32 = bitcast <2 x i64> %b64 to <4 x i32>
  %s = shufflevector <4 x i32> %b32, <4 x i32> poison, <4 x i32> <i32 1, i32 0, i32 3, i32 2>
  %s64 = bitcast <4 x i32> %s to <2 x i64>
  %hi = bitcast <2 x i64> %s64 to <2 x double>
  %m = fmul <2 x double> %hi, %v
  %r = extractelement <2 x double> %m, i64 0
  ret double %r
}

define void @use(ptr %p, ptr %dp) {
  %d = call double (ptr, ...) @__ad_gradient(ptr @f, ptr %p, ptr %dp)
  ret void
}

;--- loaded.ll
declare double @__ad_gradient(ptr, ...)

define double @f(ptr %p) {
  %v = load <4 x i32>, ptr %p, align 16
  %s = shufflevector <4 x i32> %v, <4 x i32> poison, <4 x i32> <i32 1, i32 0, i32 3, i32 2>
  %hi = bitcast <4 x i32> %s to <2 x double>
  %r = extractelement <2 x double> %hi, i64 0
  ret double %r
}

define void @use(ptr %p, ptr %dp) {
  %d = call double (ptr, ...) @__ad_gradient(ptr @f, ptr %p, ptr %dp)
  ret void
}

;--- whole.ll
declare double @__ad_gradient(ptr, ...)

define double @f(ptr %p) {
  %v = load <2 x double>, ptr %p, align 16
  %hi = shufflevector <2 x double> %v, <2 x double> poison, <2 x i32> <i32 1, i32 1>
  %m = fmul <2 x double> %hi, %v
  %r = extractelement <2 x double> %m, i64 0
  ret double %r
}

define void @use(ptr %p, ptr %dp) {
  %d = call double (ptr, ...) @__ad_gradient(ptr @f, ptr %p, ptr %dp)
  ret void
}
