; A memory copy between objects passed by reference is typed by the struct
; type the function addresses their fields with (`gep %T, ptr p, 0, k`),
; as a local is by its declaration: the copied bytes move what %T has
; there. Clang's copy constructor of Eigen's Block of a Map copies its
; first fields (a pointer, a size) with one memcpy and then addresses the
; later ones; before, the copy was "what it moves cannot be told" at -O0.
; Only within the struct's fields: bytes past its last field (its tail
; padding, where a derived class may keep a float) stay untyped.
; RUN: split-file %s %t
; RUN: %opt -passes=ad-linearize %t/typed.ll -S | FileCheck %s
; RUN: not %opt -passes=ad-linearize %t/tail.ll -disable-output 2>&1 | FileCheck %s --check-prefix=TAIL

; A pointer and a size: the shadows are copied as addresses (not linear).
; CHECK-LABEL: define internal void @copyView.jvp(
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr align 8 %dto, ptr align 8 %dfrom, i64 24, i1 false){{$}}
; The double field alone: a linear copy of its tangent.
; CHECK-LABEL: define internal void @copyWeight.jvp(
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr align 8 %w.dto.shadow, ptr align 8 %w.dfrom.shadow, i64 8, i1 false), !ad.linear
; TAIL: error: {{.*}}cannot differentiate this memory copy: what it moves (float, double or pointer data) cannot be told

;--- typed.ll
%struct.view = type <{ ptr, i64, i8 }>
%struct.block = type { %struct.view, [7 x i8], double, i64 }

declare void @__ad_gradient_void(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @copyView(ptr %to, ptr %from) {
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %to, ptr align 8 %from, i64 24, i1 false)
  %w.to = getelementptr inbounds %struct.block, ptr %to, i32 0, i32 2
  %w.from = getelementptr inbounds %struct.block, ptr %from, i32 0, i32 2
  %w = load double, ptr %w.from, align 8
  store double %w, ptr %w.to, align 8
  ret void
}

define void @copyWeight(ptr %to, ptr %from) {
  %w.dto = getelementptr inbounds i8, ptr %to, i64 24
  %w.dfrom = getelementptr inbounds i8, ptr %from, i64 24
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %w.dto, ptr align 8 %w.dfrom, i64 8, i1 false)
  %n.to = getelementptr inbounds %struct.block, ptr %to, i32 0, i32 3
  store i64 0, ptr %n.to, align 8
  ret void
}

define void @use(ptr %a, ptr %da, ptr %b, ptr %db) {
  call void (ptr, ...) @__ad_gradient_void(ptr @copyView, ptr %a, ptr %da, ptr %b, ptr %db)
  call void (ptr, ...) @__ad_gradient_void(ptr @copyWeight, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}

;--- tail.ll
; The copy reaches past the fields of the only struct the function names.
%struct.view = type { ptr, i64, i8 }

declare void @__ad_gradient_void(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @copyView(ptr %to, ptr %from) {
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %to, ptr align 8 %from, i64 24, i1 false)
  %n.to = getelementptr inbounds %struct.view, ptr %to, i32 0, i32 1
  store i64 0, ptr %n.to, align 8
  ret void
}

define void @use(ptr %a, ptr %da, ptr %b, ptr %db) {
  call void (ptr, ...) @__ad_gradient_void(ptr @copyView, ptr %a, ptr %da, ptr %b, ptr %db)
  ret void
}
