; The SLP vectorizer is skipped on functions holding derived code with a
; block longer than -ad-slp-block-limit instructions (pass/codegen/OutlineLongBlocks.h):
; on long derivative blocks it costs 4 to 6 times more per instruction than
; on the primal, and the gradient is no faster for it. Derived functions and
; the callers whose markers were lowered (the inliner may put derived code
; there) are guarded; primal code is not, however long its blocks. Reverse
; passes are never given to SLP: it packs their cotangent sums into pairs at
; a cost of an insert or extract per scalar, which made them slower.
; RUN: %opt -passes='ad<O2>,function(slp-vectorizer)' -ad-slp-block-limit=20 -ad-outline-block-threshold=0 -debug-pass-manager %s -disable-output 2>&1 | FileCheck %s
; RUN: %opt -passes='ad<O2>,function(slp-vectorizer)' -ad-slp-block-limit=0 -debug-pass-manager %s -disable-output 2>&1 | FileCheck %s --check-prefix=REV --implicit-check-not='Skipping pass: SLPVectorizerPass'
; RUN: %opt -passes='ad<O2>,function(slp-vectorizer)' -debug-pass-manager %s -disable-output 2>&1 | FileCheck %s --check-prefix=REV --implicit-check-not='Skipping pass: SLPVectorizerPass'
; Reverse passes are skipped whatever their length, unless asked for.
; RUN: %opt -passes='ad<O2>,function(slp-vectorizer)' -ad-slp-block-limit=0 -ad-slp-on-reverse -debug-pass-manager %s -disable-output 2>&1 | FileCheck %s --check-prefix=OFF
; At -O0 nothing is marked (no SLP runs there).
; RUN: %opt -passes=ad %s -S | FileCheck %s --check-prefix=O0

declare double @__ad_gradient(ptr, ...)

; f: 26 instructions in one block, but it is the user's code.
define double @f(ptr %v) {
  %p1 = getelementptr inbounds i8, ptr %v, i64 8
  %v1 = load double, ptr %p1
  %p2 = getelementptr inbounds i8, ptr %v, i64 16
  %v2 = load double, ptr %p2
  %p5 = getelementptr inbounds i8, ptr %v, i64 40
  %v5 = load double, ptr %p5
  %m1 = fmul double %v2, %v5
  %a1 = fadd double %v1, %m1
  %p3 = getelementptr inbounds i8, ptr %v, i64 24
  store double %a1, ptr %p3
  %p4 = getelementptr inbounds i8, ptr %v, i64 32
  %v4 = load double, ptr %p4
  %p7 = getelementptr inbounds i8, ptr %v, i64 56
  %v7 = load double, ptr %p7
  %m2 = fmul double %v4, %v7
  %a2 = fadd double %a1, %m2
  store double %a2, ptr %v
  %m3 = fmul double %a1, %a1
  %a3 = fadd double %m3, %a2
  %p6 = getelementptr inbounds i8, ptr %v, i64 48
  store double %a3, ptr %p6
  %m4 = fmul double %v1, %a2
  %a4 = fadd double %a3, %m4
  store double %a4, ptr %p2
  %r = fmul double %a2, %a4
  ret double %r
}

; A caller with a short block keeps SLP.
define void @g(ptr %v, ptr %dv) {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %v, ptr %dv)
  ret void
}

; A caller whose block is longer than the limit (21 instructions).
define double @g_long(double %x, ptr %v, ptr %dv) {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %v, ptr %dv)
  %a1 = fmul double %x, %x
  %a2 = fmul double %a1, %x
  %a3 = fmul double %a2, %x
  %a4 = fmul double %a3, %x
  %a5 = fmul double %a4, %x
  %a6 = fmul double %a5, %x
  %a7 = fmul double %a6, %x
  %a8 = fmul double %a7, %x
  %a9 = fmul double %a8, %x
  %a10 = fmul double %a9, %x
  %a11 = fmul double %a10, %x
  %a12 = fmul double %a11, %x
  %a13 = fmul double %a12, %x
  %a14 = fmul double %a13, %x
  %a15 = fmul double %a14, %x
  %a16 = fmul double %a15, %x
  %a17 = fmul double %a16, %x
  %a18 = fmul double %a17, %x
  %a19 = fmul double %a18, %x
  ret double %a19
}

; CHECK-DAG: Running pass: SLPVectorizerPass on f (
; CHECK-DAG: Running pass: SLPVectorizerPass on g (
; CHECK-DAG: Skipping pass: SLPVectorizerPass on g_long
; CHECK-DAG: Skipping pass: SLPVectorizerPass on f.fwd
; CHECK-DAG: Skipping pass: SLPVectorizerPass on f.rev

; REV: Running pass: SLPVectorizerPass on f.fwd
; REV: Skipping pass: SLPVectorizerPass on f.rev

; OFF-NOT: Skipping pass: SLPVectorizerPass
; OFF:     Running pass: SLPVectorizerPass on f.rev
; OFF-NOT: Skipping pass: SLPVectorizerPass

; O0-NOT: ad-holds-derived-code
