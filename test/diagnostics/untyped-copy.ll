; A memory copy between memory with derivatives and a local declared as
; bytes is an error, not a skipped copy: this is what SROA makes of
; 'item local = *in; arr[0] = local;' for struct item {int n; double w[3];
; char tag;} (the slice after n holds pad, doubles and a char, typed
; [36 x i8]). Inferring "no floating-point data" skipped the copy in, and
; the copy out counted as constant data: the gradient was silently zero.
; RUN: not %opt -passes=ad %s -S -o /dev/null 2>&1 | FileCheck %s
; CHECK: error: {{.*}}cannot differentiate this memory copy: it moves data with derivatives through untyped local storage (a char buffer, or a struct copy the optimiser cut into bytes)

%struct.item = type { i32, [3 x double], i8 }

declare void @__ad_gradient_void(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define dso_local double @B(ptr noundef %0, i32 noundef %1) {
  %.sroa.4 = alloca [36 x i8], align 4
  %3 = alloca [2 x %struct.item], align 16
  %.sroa.0.0.copyload = load i32, ptr %0, align 8
  %.sroa.4.0..sroa_idx = getelementptr inbounds i8, ptr %0, i64 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %.sroa.4, ptr align 4 %.sroa.4.0..sroa_idx, i64 36, i1 false)
  store i32 %.sroa.0.0.copyload, ptr %3, align 16
  %.sroa.4.0..sroa_idx3 = getelementptr inbounds i8, ptr %3, i64 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %.sroa.4.0..sroa_idx3, ptr align 4 %.sroa.4, i64 36, i1 false)
  %4 = getelementptr inbounds [2 x %struct.item], ptr %3, i64 0, i64 1
  store i32 %.sroa.0.0.copyload, ptr %4, align 8
  %.sroa.4.0..sroa_idx4 = getelementptr inbounds i8, ptr %4, i64 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %.sroa.4.0..sroa_idx4, ptr align 4 %.sroa.4, i64 36, i1 false)
  %5 = getelementptr inbounds %struct.item, ptr %3, i32 0, i32 1
  %6 = load double, ptr %5, align 8
  %7 = getelementptr inbounds %struct.item, ptr %4, i32 0, i32 1
  %8 = sext i32 %1 to i64
  %9 = getelementptr inbounds [3 x double], ptr %7, i64 0, i64 %8
  %10 = load double, ptr %9, align 8
  %11 = getelementptr inbounds [3 x double], ptr %7, i64 0, i64 2
  %12 = load double, ptr %11, align 8
  %13 = sitofp i32 %.sroa.0.0.copyload to double
  %14 = fmul double %12, %13
  %15 = call double @llvm.fmuladd.f64(double %6, double %10, double %14)
  ret double %15
}

define void @g(ptr %p, ptr %dp) {
  call void (ptr, ...) @__ad_gradient_void(ptr @B, ptr %p, ptr %dp, i32 1)
  ret void
}
