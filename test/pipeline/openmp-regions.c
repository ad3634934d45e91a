// The derived functions of a '#pragma omp parallel for': forward mode forks
// the region's JVP with the shadows after the primal arguments; f.fwd forks
// a wrapper that gives each thread its tapes from a region object kept in
// f's tape, and f.rev forks the reverse wrapper on a team of f.fwd's size,
// then ends the region. The reduction combines atomically in the derived
// code (the tangent too), while the user's function keeps the runtime's
// choice; the reverse region reads the reduction's shadow and adds into
// the shadow of x[i], which iteration i alone touches, without an atomic.
// REQUIRES: openmp
// RUN: %adcc -O0 -fopenmp -S -emit-llvm %s -o - | FileCheck %s
// clang-format off
// CHECK-LABEL: define internal void @sumsq.omp_outlined(
// CHECK: call i32 @__kmpc_reduce_nowait(
// CHECK-LABEL: define internal { double, double } @sumsq.jvp(
// CHECK: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 5, ptr @sumsq.omp_outlined.jvp.cccdd, ptr %{{[0-9]+}}, ptr %{{[0-9]+}}, ptr %{{[0-9]+}}, ptr %[[SHADOW_S:[0-9]+]], ptr %[[SHADOW_X:[0-9]+]])
// CHECK-LABEL: define internal void @sumsq.omp_outlined.jvp.cccdd(ptr noalias noundef %0, ptr noalias noundef %1, ptr {{.*}}%2, ptr {{.*}}%3, ptr {{.*}}%4, ptr %5, ptr %6)
// CHECK-NOT: __kmpc_reduce_nowait
// CHECK: atomicrmw fadd ptr %3, double
// CHECK-NEXT: atomicrmw fadd ptr %5, double {{.*}}, !ad.linear
// CHECK-LABEL: define internal double @sumsq.fwd(
// CHECK: %[[REGION:[0-9]+]] = call ptr @__ad_omp_region_begin(i64 {{[0-9]+}})
// CHECK-NEXT: store ptr %[[REGION]], ptr %[[SLOT:[0-9]+]]
// CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 6, ptr @sumsq.omp_outlined.fwd.cccdd.team, {{.*}}, ptr %[[SLOT]])
// CHECK-LABEL: define internal void @sumsq.rev(
// CHECK: %[[TEAM:[0-9]+]] = call i32 @__ad_omp_region_threads(ptr %[[R:[0-9]+]])
// CHECK-NEXT: %[[GTID:[0-9]+]] = call i32 @__kmpc_global_thread_num(
// CHECK-NEXT: call void @__kmpc_push_num_threads(ptr @{{[0-9]+}}, i32 %[[GTID]], i32 %[[TEAM]])
// CHECK-NEXT: call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @{{[0-9]+}}, i32 1, ptr @sumsq.omp_outlined.rev.cccdd.team, ptr %{{[0-9]+}})
// CHECK-NEXT: call void @__ad_omp_region_end(ptr %[[R]])
// CHECK-LABEL: define internal void @sumsq.omp_outlined.rev.cccdd(ptr %0)
// CHECK: %[[DS:[0-9]+]] = load double, ptr
// CHECK-NOT: atomicrmw
// CHECK: store double
// CHECK-NOT: atomicrmw
// CHECK-LABEL: define internal void @sumsq.omp_outlined.fwd.cccdd.team(ptr %0, ptr %1, ptr %2, ptr %3, ptr %4, ptr %5, ptr %6, ptr %7)
// CHECK-NEXT: %[[FR:[0-9]+]] = load ptr, ptr %7
// CHECK-NEXT: %[[TID:[0-9]+]] = call i32 @omp_get_thread_num()
// CHECK-NEXT: %[[N:[0-9]+]] = call i32 @omp_get_num_threads()
// CHECK-NEXT: %[[T:[0-9]+]] = call ptr @__ad_omp_region_enter(ptr %[[FR]], i32 0, i32 %[[TID]], i32 %[[N]], i32 0)
// CHECK-NEXT: call void @sumsq.omp_outlined.fwd.cccdd(ptr %0, ptr %1, ptr %2, ptr %3, ptr %4, ptr %5, ptr %6, ptr %[[T]])
// CHECK-NEXT: call void @__ad_omp_region_leave(ptr %[[FR]], i32 0, i32 %[[TID]])
// CHECK-LABEL: define internal void @sumsq.omp_outlined.rev.cccdd.team(ptr %0, ptr %1, ptr %2)
// CHECK: call ptr @__ad_omp_region_enter({{.*}}, i32 1)
// CHECK-NEXT: call void @sumsq.omp_outlined.rev.cccdd(ptr
// CHECK-NEXT: call void @__ad_omp_region_leave(
// clang-format on
#include "ad.h"

double sumsq(const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

void grad(const double *x, double *g, int n) { __ad_gradient(sumsq, x, g, n); }

double tangent(const double *x, const double *dx, int n) {
  return __ad_derivative(sumsq, x, dx, n);
}
