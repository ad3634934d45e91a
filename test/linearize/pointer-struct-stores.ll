; A struct of pointers stored into memory with a shadow (here whole; the
; prepared copy stores it field by field) keeps its shadows there: null for
; a null pointer, which leads to no tangent. A pointer to a global table of
; doubles next to an active pointer is an error: its tangents would be read
; through a null shadow (pointsToNonDifferentiableData). The pair escapes
; to 'read', so that it stays in memory.
; RUN: split-file %s %t
; RUN: %opt -passes=ad-linearize %t/nulls.ll -S | FileCheck %s
; RUN: not %opt -passes=ad-linearize %t/table.ll -disable-output 2>&1 | FileCheck %s --check-prefix=ERR

; CHECK-LABEL: define internal { double, double } @f.jvp(
; CHECK: store ptr null, ptr %pair.shadow
; CHECK: store ptr null, ptr %.fca.1.gep.shadow
; CHECK: store ptr %dx, ptr %pair.shadow
; CHECK: call { double, double } @read.jvp(ptr %pair, ptr %pair.shadow)
; ERR: error: {{.*}}cannot differentiate: a pointer to memory without derivatives is stored where pointers to memory with derivatives are kept

;--- nulls.ll
declare double @__ad_gradient(ptr, ...)

define internal double @read(ptr %pair) noinline {
  %a = load ptr, ptr %pair
  %v = load double, ptr %a
  ret double %v
}

define double @f(ptr %x) {
  %pair = alloca { ptr, ptr }
  store { ptr, ptr } zeroinitializer, ptr %pair
  store ptr %x, ptr %pair
  %v = call double @read(ptr %pair)
  ret double %v
}

define void @request(ptr %x, ptr %dx) {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %x, ptr %dx)
  ret void
}

;--- table.ll
declare double @__ad_gradient(ptr, ...)

@table = internal constant [2 x double] [double 2.0, double 3.0]

define internal double @read(ptr %pair) noinline {
  %a = load ptr, ptr %pair
  %c.addr = getelementptr inbounds { ptr, ptr }, ptr %pair, i32 0, i32 1
  %c = load ptr, ptr %c.addr
  %va = load double, ptr %a
  %vc = load double, ptr %c
  %r = fmul double %va, %vc
  ret double %r
}

define double @f(ptr %x) {
  %pair = alloca { ptr, ptr }
  store { ptr, ptr } { ptr null, ptr @table }, ptr %pair
  store ptr %x, ptr %pair
  %v = call double @read(ptr %pair)
  ret double %v
}

define void @request(ptr %x, ptr %dx) {
  call double (ptr, ...) @__ad_gradient(ptr @f, ptr %x, ptr %dx)
  ret void
}
