; Globals the differentiated code writes get a shadow global (GlobalShadows.h):
; @buf is written by f and read back by a helper with no arguments, so it
; gets @buf.shadow, the helper is differentiated (read_buf.jvp / .rev), and
; each request zeroes the shadow right before f.rev (reverse) or f.jvp
; (forward). @table is only read (inactive data, no shadow); @count holds
; no floating-point data (no shadow).
; RUN: %opt -passes=ad %s -S | FileCheck %s

; CHECK: @buf.shadow = internal global [4 x double] zeroinitializer, align 16
; CHECK-NOT: @table.shadow
; CHECK-NOT: @count.shadow

@buf = internal global [4 x double] zeroinitializer, align 16
@table = global [4 x double] [double 1.0, double 2.0, double 3.0, double 4.0]
@count = global i32 0

declare double @__ad_gradient(ptr, ...)
declare double @__ad_derivative(ptr, ...)

define internal double @read_buf() noinline {
  %b = load double, ptr getelementptr inbounds (i8, ptr @buf, i64 8)
  ret double %b
}

define double @f(double %x) {
  %t = load double, ptr getelementptr inbounds (i8, ptr @table, i64 8)
  %m = fmul double %x, %t
  store double %m, ptr getelementptr inbounds (i8, ptr @buf, i64 8)
  %n = load i32, ptr @count
  %n1 = add i32 %n, 1
  store i32 %n1, ptr @count
  %r = call double @read_buf()
  %s = fmul double %r, %x
  ret double %s
}

define double @grad(double %x) {
  %g = call double (ptr, ...) @__ad_gradient(ptr @f, double %x)
  ret double %g
}

define double @tangent(double %x) {
  %d = call double (ptr, ...) @__ad_derivative(ptr @f, double %x, double 1.0)
  ret double %d
}

; CHECK-LABEL: define double @grad(
; CHECK: call double @f.fwd(
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr align 16 @buf.shadow, i8 0, i64 32, i1 false)
; CHECK-NEXT: call double @f.rev(

; CHECK-LABEL: define double @tangent(
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr align 16 @buf.shadow, i8 0, i64 32, i1 false)
; CHECK-NEXT: call { double, double } @f.jvp(

; CHECK-LABEL: define internal { double, double } @f.jvp(
; CHECK: %[[DM:[0-9]+]] = fmul double %t, %dx, !ad.linear
; CHECK: store double %[[DM]], ptr getelementptr inbounds (i8, ptr @buf.shadow, i64 8), align 8, !ad.linear
; CHECK-NOT: @table.shadow
; CHECK: call { double, double } @read_buf.jvp()

; CHECK-LABEL: define internal { double, double } @read_buf.jvp()
; CHECK: load double, ptr getelementptr inbounds (i8, ptr @buf.shadow, i64 8), align 8, !ad.linear

; CHECK-LABEL: define internal double @f.rev(
; CHECK: call void @read_buf.rev(
; CHECK: load double, ptr getelementptr inbounds (i8, ptr @buf.shadow, i64 8)
; CHECK: store double 0.000000e+00, ptr getelementptr inbounds (i8, ptr @buf.shadow, i64 8)

; CHECK-LABEL: define internal void @read_buf.rev(
; CHECK: %[[OLD:[0-9]+]] = load double, ptr getelementptr inbounds (i8, ptr @buf.shadow, i64 8)
; CHECK-NEXT: %[[NEW:[0-9]+]] = fadd double %[[OLD]], %ct
; CHECK-NEXT: store double %[[NEW]], ptr getelementptr inbounds (i8, ptr @buf.shadow, i64 8)
