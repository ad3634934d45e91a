; An address computed from null (an empty std::vector's end, null + size,
; as clang 22 builds it at -O2) joined with an address into active memory:
; null's shadow is null, so the shadow of 'gep null, n' is that same
; address. Before, the join had no shadow for it and the request failed
; with "this pointer may point to memory that carries derivatives or to
; memory that does not".
; RUN: %opt -passes=ad-linearize %s -S | FileCheck %s
; RUN: %opt -passes=ad %s -S -o /dev/null

; CHECK-LABEL: define internal { double, double } @f.jvp(
; CHECK: %end.none = getelementptr inbounds i8, ptr null, i64 %n
; CHECK: %end.some.shadow = getelementptr inbounds double, ptr %da, i64 %n
; CHECK: %end.shadow = select i1 %empty, ptr %end.none, ptr %end.some.shadow
; CHECK: %v.d = load double, ptr %last.shadow, align 8, !ad.linear

declare void @__ad_gradient_void(ptr, ...)

define double @f(ptr %a, i64 %n, i1 %empty) {
entry:
  br i1 %empty, label %none, label %some

none:
  %end.none = getelementptr inbounds i8, ptr null, i64 %n
  br label %join

some:
  %end.some = getelementptr inbounds double, ptr %a, i64 %n
  br label %join

join:
  %end = phi ptr [ %end.none, %none ], [ %end.some, %some ]
  br i1 %empty, label %out, label %read

read:
  %last = getelementptr inbounds double, ptr %end, i64 -1
  %v = load double, ptr %last
  %sq = fmul double %v, %v
  br label %out

out:
  %r = phi double [ 0.0, %join ], [ %sq, %read ]
  ret double %r
}

define void @g(ptr %a, ptr %da, i64 %n, i1 %e) {
  call void (ptr, ...) @__ad_gradient_void(ptr @f, ptr %a, ptr %da, i64 %n, i1 %e)
  ret void
}
