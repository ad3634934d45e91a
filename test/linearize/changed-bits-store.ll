; Bytes of memory with derivatives loaded as integers, changed and stored
; where doubles live (the destination is read as a double): the tangent
; cannot follow integer logic, so this is an error. Before, the store was
; taken for integer data and the shadow kept its old (zero) tangent: a
; silently wrong derivative (Eigen's packet negation at -O2 wrote -v this
; way). Changed integer data stays fine (an int counter in the same
; memory, typed by its field).
; RUN: split-file %s %t
; RUN: not %opt -passes=ad-linearize %t/double.ll -disable-output 2>&1 | FileCheck %s
; RUN: %opt -passes=ad-linearize %t/counter.ll -disable-output
; CHECK: error: {{.*}}cannot differentiate floating-point data read from memory that carries derivatives as an integer, changed and stored

;--- double.ll
declare void @__ad_gradient_void(ptr, ...)

define double @flip(ptr %to, ptr %from) {
  %bits = load <2 x i64>, ptr %from, align 16
  %flipped = xor <2 x i64> %bits, <i64 1, i64 1>
  store <2 x i64> %flipped, ptr %to, align 16
  %v = load double, ptr %to, align 8
  ret double %v
}

define void @use(ptr %a, ptr %da, ptr %b, ptr %db) {
  call void (ptr, ...) @__ad_gradient_void(ptr @flip, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}

;--- counter.ll
%struct.cell = type { double, i64 }

declare void @__ad_gradient_void(ptr, ...)

define double @count(ptr %c) {
  %n.addr = getelementptr inbounds %struct.cell, ptr %c, i32 0, i32 1
  %n = load i64, ptr %n.addr, align 8
  %next = xor i64 %n, 1
  store i64 %next, ptr %n.addr, align 8
  %v = load double, ptr %c, align 8
  ret double %v
}

define void @use(ptr %a, ptr %da) {
  call void (ptr, ...) @__ad_gradient_void(ptr @count, ptr %a, ptr %da)
  ret void
}
