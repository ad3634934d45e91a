; A scratch buffer chosen in place of memory with derivatives (Eigen's
; products: `p = data ? data : alloca(n)`, then the kernel reads p): the
; buffer gets a zeroed shadow of its size (on the heap, as for any
; alloca of a size known only at run time), and the choice chooses between
; the shadows. Before, the choice had no shadow for the buffer and the
; request failed with "this pointer may point to memory that carries
; derivatives or to memory that does not". A buffer chosen in place of
; AD_CONST memory gets no shadow (it holds no derivatives either).
; RUN: %opt -passes=ad-linearize %s -S | FileCheck %s

; CHECK-LABEL: define internal { double, double } @f.jvp(
; CHECK: %buf = alloca i8, i64 %bytes, align 16
; CHECK: %buf.shadow = call ptr @calloc(i64 1, i64
; CHECK: %p.shadow = select i1 %given, ptr %dx, ptr %buf.shadow
; CHECK: load double, ptr %p.shadow

; CHECK-LABEL: define internal { double, double } @g.jvp.cca(
; CHECK: %buf = alloca i8, i64 %bytes, align 16
; CHECK-NOT: calloc
; CHECK: ret

@__ad_const_tag = external constant i8
declare double @__ad_gradient(ptr, ...)

define double @f(ptr %x, i64 %n, double %s) {
  %given = icmp ne ptr %x, null
  %bytes = shl i64 %n, 3
  %buf = alloca i8, i64 %bytes, align 16
  %p = select i1 %given, ptr %x, ptr %buf
  br i1 %given, label %read, label %fill

fill:
  store double %s, ptr %buf
  br label %read

read:
  %v = load double, ptr %p
  %r = fmul double %v, %s
  ret double %r
}

define double @g(ptr %k, i64 %n, double %s) {
  %given = icmp ne ptr %k, null
  %bytes = shl i64 %n, 3
  %buf = alloca i8, i64 %bytes, align 16
  %p = select i1 %given, ptr %k, ptr %buf
  %v = load double, ptr %p
  %r = fmul double %v, %s
  ret double %r
}

define void @use(ptr %x, ptr %dx, i64 %n, double %s) {
  %a = call double (ptr, ...) @__ad_gradient(ptr @f, ptr %x, ptr %dx, i64 %n, double %s)
  %b = call double (ptr, ...) @__ad_gradient(ptr @g, ptr @__ad_const_tag, ptr %x, i64 %n, double %s)
  ret void
}
