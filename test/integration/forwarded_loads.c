// The copy of f that is differentiated has its loads of values the same
// block already stored or loaded forwarded, at every level
// (pass/prepare/ForwardLoads.h). Cells are told apart only by constant offsets
// from one base, or by being distinct locals and globals. Each case below
// writes a cell through a pointer that may be another name for it, then reads
// the cell back, so a forwarding that trusted the wrong thing would read a
// stale value and give a wrong derivative:
//   - local_alias: a local array written through buf + i, with i = 0, 1
//     and 2 chosen at run time, between writes and reads of its cells;
//   - two_locals: stores to one local array keep the known cells of
//     another (distinct objects), until a pointer chosen at run time,
//     into either, is written through;
//   - scratch: a global scratch array (written and read back, so it gets a
//     shadow) and the parameter's memory, interleaved; the parameter may
//     point anywhere but into the global (the request checks that);
//   - across_calls: cells read again after calls of exp and sin, which
//     write only errno (forwarded), and after a call of a function of the
//     same shape, double(double), that writes the cell (not forwarded);
//   - branch_reload: the then-branch of an if starts from what the block
//     before it knew (its only predecessor): x[1] read again after an exp
//     is forwarded, x[0] read again after a store through x + i, with i =
//     0 and 1 chosen at run time, is not.
// Every component of every gradient is compared with central differences.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2

#include "ad.h"
#include "adcheck.h"
#include <string.h>

double local_alias(double *x, int i) {
  double buf[3];
  double *q = buf + i;
  buf[0] = x[0] * x[1];
  buf[1] = x[1] + x[2];
  buf[2] = x[2] * x[2];
  *q = buf[0] * 3.0 + x[2];
  double t = buf[0] * buf[1] + buf[2];
  *q += t * x[1];
  return buf[0] * x[0] + buf[1] * buf[2] + t;
}

double two_locals(double *x, int pick) {
  double a[2], b[2];
  a[0] = x[0] * x[1];
  a[1] = x[1] - x[2];
  b[0] = a[0] * a[1];
  b[1] = a[1] + x[0];
  double s = a[0] * b[1] + a[1] * b[0];
  double *p = pick ? &b[1] : &a[0];
  *p = s * x[2];
  return a[0] * b[0] + a[1] * b[1] + s;
}

double scratch_cells[4];

double scratch(double *x) {
  scratch_cells[0] = x[0] * x[1];
  x[2] = scratch_cells[0] + x[2];
  scratch_cells[1] = x[2] * scratch_cells[0];
  x[0] = scratch_cells[1] - x[1];
  scratch_cells[0] = x[0] * scratch_cells[1];
  return scratch_cells[0] + scratch_cells[1] * x[2] + x[0];
}

double drift_cell[1];

/* A double(double) like exp, but it writes memory the caller reads. */
__attribute__((noinline)) double drift(double v) {
  drift_cell[0] += 0.5 * v;
  return v * v;
}

double across_calls(double *x) {
  drift_cell[0] = x[2];
  double a = x[0] * exp(x[1]);
  double b = x[0] * sin(x[1]) + drift_cell[0];
  double c = drift(x[1]);
  return a * b + c * drift_cell[0] + x[0] * x[1];
}

double branch_reload(double *x, int i) {
  double a = x[0] * x[1];
  if (a > -100.0) {
    a += x[1] * exp(x[2]);
    x[i] = a * x[2];
    a += x[0] * x[0] + x[1];
  }
  return a * x[2];
}

int main(void) {
  double x0[3] = {0.7, -1.3, 0.45};
  for (int i = 0; i < 3; i++)
    AD_CHECK_GRADIENT(ad_fmt("local_alias i=%d", i), 3, x0,
                      __ad_gradient(local_alias, x, dx, i), local_alias(w, i));
  for (int pick = 0; pick < 2; pick++)
    AD_CHECK_GRADIENT(ad_fmt("two_locals pick=%d", pick), 3, x0,
                      __ad_gradient(two_locals, x, dx, pick),
                      two_locals(w, pick));
  AD_CHECK_GRADIENT("scratch", 3, x0, __ad_gradient(scratch, x, dx),
                    scratch(w));
  AD_CHECK_GRADIENT("across_calls", 3, x0, __ad_gradient(across_calls, x, dx),
                    across_calls(w));
  for (int i = 0; i < 2; i++)
    AD_CHECK_GRADIENT(ad_fmt("branch_reload i=%d", i), 3, x0,
                      __ad_gradient(branch_reload, x, dx, i),
                      branch_reload(w, i));
  return ad_finish();
}
