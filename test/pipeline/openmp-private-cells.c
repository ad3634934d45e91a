// In the reverse pass of a parallel loop, an addition into a shadow cell
// one iteration owns (x[i] with i the worksharing loop's counter, under a
// static or a dynamic schedule) is a plain load, add and store; cells that
// iterations may share stay atomic: a stencil's neighbours, x[i] and
// x[i+1], a scalar every iteration reads (and, as it may be the same
// memory, x[i] beside it), x[2*i] beside x[i], x[idx[i]], a callee given
// &x[i], and a collapsed loop's a[j]. A collapsed loop's a[i*m+j] is one
// iteration's too, but its address divides the collapsed counter, which
// ScalarEvolution does not see through: it stays atomic.
// REQUIRES: openmp
// RUN: %adcc -O2 -fopenmp -S -emit-llvm %s -o %t.ll
// RUN: FileCheck %s --check-prefix=PRIVATE < %t.ll
// RUN: FileCheck %s --check-prefix=DYNAMIC < %t.ll
// RUN: FileCheck %s --check-prefix=SHARED < %t.ll
// RUN: FileCheck %s --check-prefix=CALLEE < %t.ll
// clang-format off
// PRIVATE-LABEL: define internal void @private_loss.omp_outlined.rev.cccdd.team(
// PRIVATE-NOT: atomicrmw
// PRIVATE: store double
// PRIVATE-NOT: atomicrmw
// PRIVATE: {{^}}}
// DYNAMIC-LABEL: define internal void @private_loss_dynamic.omp_outlined.rev.cccdd.team(
// DYNAMIC-NOT: atomicrmw
// DYNAMIC: store double
// DYNAMIC-NOT: atomicrmw
// DYNAMIC: {{^}}}
// SHARED-LABEL: define internal void @stencil3.omp_outlined.rev.cccdd.team(
// SHARED: atomicrmw fadd
// SHARED-LABEL: define internal void @next_pair.omp_outlined.rev.cccdd.team(
// SHARED: atomicrmw fadd
// SHARED-LABEL: define internal void @shared_scalar.omp_outlined.rev.cccddd.team(
// SHARED: atomicrmw fadd
// SHARED-LABEL: define internal void @twice_index.omp_outlined.rev.cccdd.team(
// SHARED: atomicrmw fadd
// SHARED-LABEL: define internal void @indirect.omp_outlined.rev.cccddd.team(
// SHARED: atomicrmw fadd
// SHARED-LABEL: define internal void @collapsed_private.omp_outlined.rev.ccccdd.team(
// SHARED: atomicrmw fadd
// SHARED-LABEL: define internal void @collapsed_column.omp_outlined.rev.ccccdd.team(
// SHARED: atomicrmw fadd
// CALLEE-LABEL: define internal void @callee_pair.omp_outlined.rev.cccdd(
// CALLEE: atomicrmw fadd
// clang-format on

#include "omp_private_cells.h"

void private_loss_gradient(const double *x, double *g, int n) {
  __ad_gradient(private_loss, x, g, n);
}
void private_loss_dynamic_gradient(const double *x, double *g, int n) {
  __ad_gradient(private_loss_dynamic, x, g, n);
}
void stencil3_gradient(const double *x, double *g, int n) {
  __ad_gradient(stencil3, x, g, n);
}
void next_pair_gradient(const double *x, double *g, int n) {
  __ad_gradient(next_pair, x, g, n);
}
void shared_scalar_gradient(const double *x, double *g, const double *p,
                            double *dp, int n) {
  __ad_gradient(shared_scalar, x, g, p, dp, n);
}
void twice_index_gradient(const double *x, double *g, int n) {
  __ad_gradient(twice_index, x, g, n);
}
void indirect_gradient(const double *x, double *g, const int *idx, int *didx,
                       int n) {
  __ad_gradient(indirect, x, g, idx, didx, n);
}
void callee_pair_gradient(const double *x, double *g, int n) {
  __ad_gradient(callee_pair, x, g, n);
}
void collapsed_private_gradient(const double *a, double *g, int n, int m) {
  __ad_gradient(collapsed_private, a, g, n, m);
}
void collapsed_column_gradient(const double *a, double *g, int n, int m) {
  __ad_gradient(collapsed_column, a, g, n, m);
}
