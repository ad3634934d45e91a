; At -O0 FastISel cannot select llvm.fmuladd and hands each one to
; SelectionDAG, at a cost that grows with the function. Where the backend
; would split it into a multiply and an add anyway (x86 without FMA or
; FMA4), the copy of f that is differentiated is split the same way
; (flags kept), so f.fwd computes the same values and compiles at FastISel
; speed. With FMA the backend fuses, and at -O1 and above SelectionDAG
; selects everything: fmuladd stays.
; RUN: sed 's/FEATURES/+sse2/' %s | %opt -passes=ad -S | FileCheck %s --check-prefix=SPLIT
; RUN: sed 's/FEATURES/+sse2,+fma/' %s | %opt -passes=ad -S | FileCheck %s --check-prefix=KEEP
; RUN: sed 's/FEATURES/+sse2,+fma4/' %s | %opt -passes=ad -S | FileCheck %s --check-prefix=KEEP
; RUN: sed 's/FEATURES/+sse2/' %s | %opt -passes='ad<O2>' -S | FileCheck %s --check-prefix=KEEP
; RUN: sed 's/FEATURES/+sse2/; s/x86_64-pc-linux-gnu/aarch64-unknown-linux-gnu/' %s | %opt -passes=ad -S | FileCheck %s --check-prefix=KEEP

target triple = "x86_64-pc-linux-gnu"

declare double @__ad_gradient(ptr, ...)
declare double @llvm.fmuladd.f64(double, double, double)

define double @f(double %a) #0 {
  %b = fadd double %a, 1.0
  %r = call nnan double @llvm.fmuladd.f64(double %a, double %b, double %a)
  ret double %r
}

define double @g(double %a) #0 {
  %d = call double (ptr, ...) @__ad_gradient(ptr @f, double %a)
  ret double %d
}

attributes #0 = { "target-features"="FEATURES" }

; SPLIT-LABEL: define internal double @f.fwd(
; SPLIT-NOT:     fmuladd
; SPLIT:         [[P:%.*]] = fmul nnan double %a, %b
; SPLIT-NEXT:    %r = fadd nnan double [[P]], %a
; SPLIT-NOT:     fmuladd
; SPLIT:         ret double %r

; KEEP-LABEL: define internal double @f.fwd(
; KEEP:         %r = call nnan double @llvm.fmuladd.f64(double %a, double %b, double %a)
