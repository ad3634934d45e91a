; f.lin and f.rev are built from scratch, not cloned from f, yet must be
; compiled the way f is: for f's target CPU and features (with
; -march=haswell, FMA and AVX), with its frame, floating-point, unwind and
; stack-protection options. What f's attributes say about f's own
; behaviour (memory(none), nofree, willreturn) does not hold for f.rev,
; which reads a tape, and is not copied; neither is optnone or noinline.
; RUN: %opt -passes=ad %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)

define double @f(double %x) #0 {
  %y = fmul double %x, %x
  ret double %y
}

define double @g(double %x) #1 {
  %d = call double (ptr, ...) @__ad_gradient(ptr @f, double %x)
  ret double %d
}

attributes #0 = { nofree noinline nounwind optnone sspstrong willreturn memory(none) uwtable "frame-pointer"="all" "no-trapping-math"="true" "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma" "tune-cpu"="generic" }
attributes #1 = { noinline nounwind optnone uwtable "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma" }

; CHECK-LABEL: define internal double @f.rev(ptr %tape, double %ct)
; CHECK-SAME:    #[[REV:[0-9]+]]
; CHECK:       attributes #[[REV]] = {
; CHECK-NOT:     nofree
; CHECK-NOT:     noinline
; CHECK-NOT:     optnone
; CHECK-SAME:    sspstrong
; CHECK-NOT:     willreturn
; CHECK-NOT:     memory
; CHECK-SAME:    uwtable
; CHECK-SAME:    "ad-kind"="rev"
; CHECK-SAME:    "frame-pointer"="all" "no-trapping-math"="true" "target-cpu"="haswell" "target-features"="+avx,+avx2,+fma" "tune-cpu"="generic" }
