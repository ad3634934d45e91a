; Memory transposes and activity.
;  * scale: y[i] = c * x[i], a vector-Jacobian product through the output
;    shadow. A linear store transposes to reading the shadow and clearing it
;    (ct = dy[i]; dy[i] = 0), then dx[i] += c * ct. The clearing store is
;    deferred until an access through another base (dx, which may alias dy)
;    needs memory to be up to date.
;  * weighted: the loop over the AD_CONST weights w touches no active data:
;    it gets no tangent code, no shadow and no tape traffic, and f.rev does
;    not walk it back; only the final product s * acc is differentiated
;    (acc is kept in the static tape).
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s --check-prefix=SCALE
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s --check-prefix=INACTIVE

declare void @__ad_gradient_void(ptr, ...)
declare double @__ad_gradient(ptr, ...)
@__ad_const_tag = external constant i8

define void @scale(ptr %x, ptr %y, double %c, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %v = load double, ptr %px
  %w = fmul double %c, %v
  store double %w, ptr %py
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define double @weighted(double %s, ptr %w, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds double, ptr %w, i64 %i
  %v = load double, ptr %p
  %acc.next = fadd double %acc, %v
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %r = fmul double %s, %acc.next
  ret double %r
}

define void @grads(ptr %x, ptr %dx, ptr %y, ptr %dy, double %c, double %s, ptr %w, i64 %n) {
  call void (ptr, ...) @__ad_gradient_void(ptr @scale, ptr %x, ptr %dx, ptr %y, ptr %dy, ptr @__ad_const_tag, double %c, i64 %n)
  %g = call double (ptr, ...) @__ad_gradient(ptr @weighted, double %s, ptr @__ad_const_tag, ptr %w, i64 %n)
  ret void
}

; SCALE-LABEL: define internal void @scale.rev.ddcc(ptr %tape)
; SCALE:       loop:
; SCALE:         [[DY:%.*]] = getelementptr i8, ptr %dy, i64 {{%.*}}
; SCALE-NEXT:    [[CT:%.*]] = load double, ptr [[DY]]
; SCALE:         [[T:%.*]] = fmul double [[CT]], %c
; SCALE:         [[DX:%.*]] = getelementptr i8, ptr %dx, i64 {{%.*}}
; SCALE-NEXT:    store double 0.000000e+00, ptr [[DY]]
; SCALE-NEXT:    [[OLD:%.*]] = load double, ptr [[DX]]
; SCALE-NEXT:    [[NEW:%.*]] = fadd double [[OLD]], [[T]]
; SCALE-NEXT:    store double [[NEW]], ptr [[DX]]

; No tangent, shadow or tape code in the inactive loop:
; INACTIVE-LABEL: define internal { double, double } @weighted.jvp.acc(double %s, ptr %w, i64 %n, double %ds)
; INACTIVE:       loop:
; INACTIVE-NOT:     !ad.linear
; INACTIVE-NOT:     shadow
; INACTIVE:       exit:
; INACTIVE-NEXT:    %r = fmul double %s, %acc.next
; INACTIVE-NEXT:    {{%.*}} = fmul double %acc.next, %ds, !ad.linear
; INACTIVE-LABEL: define internal double @weighted.fwd.acc(double %s, ptr %w, i64 %n, ptr noalias %tape)
; INACTIVE-NOT:     __ad_tape_push
; INACTIVE:         ret double %r
; f.rev does not walk the inactive loop back at all:
; INACTIVE-LABEL: define internal double @weighted.rev.acc(ptr %tape, double %ct)
; INACTIVE-NOT:     __ad_tape_pop
; INACTIVE-NOT:     phi
; INACTIVE:         ret double
