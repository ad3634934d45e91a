; What a counted time-stepping loop keeps per iteration when the rest of the
; step is cheap arithmetic on its state:
;   @heun: an explicit trapezoidal step of x' = -c x y, y' = c x - y with
;     the products fused into fmuladd (as -O2 leaves them): the record
;     keeps the state (x, y) and the stage point is recomputed from it;
;   @sums: no non-linear operation reads the state x, y directly, only
;     x + 1, x - c and y + c (three residuals, 24 bytes): keeping the state
;     (16 bytes) is chosen instead;
;   @one_sum: the only residual is x + 1 (8 bytes); keeping x instead would
;     save nothing, so x + 1 is kept.
; RUN: %opt -passes=ad-linearize,ad-unzip,ad-transpose,ad-verify %s -S | FileCheck %s

declare double @__ad_gradient(ptr, ...)
declare double @llvm.fmuladd.f64(double, double, double)

define double @heun(double %x0, double %y0, double %c, i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %x = phi double [ %x0, %entry ], [ %x.next, %loop ]
  %y = phi double [ %y0, %entry ], [ %y.next, %loop ]
  ; k1 = f(x, y)
  %ncx = fmul double %c, %x
  %nx = fneg double %ncx
  %k1x = fmul double %nx, %y
  %y.neg = fneg double %y
  %k1y = call double @llvm.fmuladd.f64(double %c, double %x, double %y.neg)
  ; the stage point (x, y) + 0.01 k1
  %sx = call double @llvm.fmuladd.f64(double 0.01, double %k1x, double %x)
  %sy = call double @llvm.fmuladd.f64(double 0.01, double %k1y, double %y)
  ; k2 = f(sx, sy)
  %ncs = fmul double %c, %sx
  %ns = fneg double %ncs
  %k2x = fmul double %ns, %sy
  %sy.neg = fneg double %sy
  %k2y = call double @llvm.fmuladd.f64(double %c, double %sx, double %sy.neg)
  %dx = fadd double %k1x, %k2x
  %dy = fadd double %k1y, %k2y
  %x.next = call double @llvm.fmuladd.f64(double 0.005, double %dx, double %x)
  %y.next = call double @llvm.fmuladd.f64(double 0.005, double %dy, double %y)
  %i.next = add nuw nsw i32 %i, 1
  %end = icmp eq i32 %i.next, %n
  br i1 %end, label %done, label %loop

done:
  %xf = phi double [ %x0, %entry ], [ %x.next, %loop ]
  %yf = phi double [ %y0, %entry ], [ %y.next, %loop ]
  %r = fadd double %xf, %yf
  ret double %r
}

define double @sums(double %x0, double %y0, double %c, i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %x = phi double [ %x0, %entry ], [ %x.next, %loop ]
  %y = phi double [ %y0, %entry ], [ %y.next, %loop ]
  %a = fadd double %x, 1.0
  %b = fsub double %x, %c
  %d = fadd double %y, %c
  %ab = fmul double %a, %b
  %ad = fmul double %a, %d
  %bd = fmul double %b, %d
  %hx = fmul double %x, 0.5
  %x.1 = fadd double %hx, %ab
  %x.next = fadd double %x.1, %ad
  %hy = fmul double %y, 0.5
  %y.next = fadd double %hy, %bd
  %i.next = add nuw nsw i32 %i, 1
  %end = icmp eq i32 %i.next, %n
  br i1 %end, label %done, label %loop

done:
  %xf = phi double [ %x0, %entry ], [ %x.next, %loop ]
  %yf = phi double [ %y0, %entry ], [ %y.next, %loop ]
  %r = fadd double %xf, %yf
  ret double %r
}

define double @one_sum(double %x0, i32 %n) {
entry:
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %x = phi double [ %x0, %entry ], [ %x.next, %loop ]
  %a = fadd double %x, 1.0
  %aa = fmul double %a, %a
  %hx = fmul double %x, 0.5
  %x.next = fadd double %hx, %aa
  %i.next = add nuw nsw i32 %i, 1
  %end = icmp eq i32 %i.next, %n
  br i1 %end, label %done, label %loop

done:
  %xf = phi double [ %x0, %entry ], [ %x.next, %loop ]
  ret double %xf
}

define void @g(double %x, double %y, double %c, i32 %n) {
  %g1 = call double (ptr, ...) @__ad_gradient(ptr @heun, double %x, double %y, double %c, i32 %n)
  %g2 = call double (ptr, ...) @__ad_gradient(ptr @sums, double %x, double %y, double %c, i32 %n)
  %g3 = call double (ptr, ...) @__ad_gradient(ptr @one_sum, double %x, i32 %n)
  ret void
}

; CHECK-LABEL: define internal double @heun.fwd
; CHECK:       loop:
; CHECK:         getelementptr { double, double }, ptr %array
; CHECK:         store double %x, ptr
; CHECK:         store double %y, ptr
; CHECK-NOT:     store
; CHECK:         br i1 %end

; CHECK-LABEL: define internal double @sums.fwd
; CHECK:       loop:
; CHECK:         getelementptr { double, double }, ptr %array
; CHECK-DAG:     store double %x, ptr
; CHECK-DAG:     store double %y, ptr
; CHECK-NOT:     store
; CHECK:         br i1 %end

; CHECK-LABEL: define internal double @one_sum.fwd
; CHECK:       loop:
; CHECK:         getelementptr { double }, ptr %array
; CHECK-NEXT:    getelementptr
; CHECK-NEXT:    store double %a, ptr
; CHECK-NOT:     store
; CHECK:         br i1 %end
