// Constructs outside what ADPass differentiates today are clear errors at
// their line (with -g), never a crash or a wrong derivative. (Globals the
// code writes are differentiated through: integration/globals.c; these are
// the ones that cannot get a shadow.) (Errors come
// out in the order of the requests, hence CHECK-DAG.)
// RUN: not %adcc -O0 -g -ferror-limit=0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK,O0
// RUN: not %adcc -O2 -g -ferror-limit=0 -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefixes=CHECK
#include <ad.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double (*volatile fp)(double);
double indirect(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a call through a function pointer: no function with this signature whose body is visible has its address taken in this translation unit
  return fp(x);
}

double scale = 2.0;   // mutable global: reading it is fine (inactive)
extern double sink[]; // written, but its size is unknown here: no shadow
double writes_unsized_global(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (an AD_CONST pointer, or a global variable that holds pointers or whose size this file does not know): not supported
  sink[0] = x * scale;
  return x;
}

double *saved; // a global that holds pointers gets no shadow
double keeps_pointer(double *p) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: a pointer to memory that carries derivatives is stored into memory without a shadow (an AD_CONST pointer, or a global variable)
  saved = p;
  return p[0] * 2;
}

void writes_const(const double *x, double *out) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (an AD_CONST pointer
  out[0] = x[0] * x[0];
}

// alloca() in a loop: each iteration's block lives until the function
// returns, so its shadow would have to be freed once per iteration there.
double alloca_rows(double x, int n) {
  double s = 0;
  for (int r = 0; r < n; ++r) {
    // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate through this variable-length array or alloca(): its storage is not given back once per allocation (an alloca() in a loop, or a scope left both with and without restoring the stack); not supported, use malloc and free
    double *t = __builtin_alloca(n * sizeof(double));
    for (int i = 0; i < n; ++i)
      t[i] = x * i;
    s += t[n - 1] * r;
  }
  return s;
}

double extended(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate __float128 arithmetic: not supported; compute in double or long double
  __float128 y = x;
  return (double)(y * y / 3);
}

// Clearing or flipping the sign bit alone is fabs or fneg, and is
// differentiated (pipeline/sign-bit-logic.ll); other bits are not.
double bit_twiddle(double x) {
  unsigned long long u;
  __builtin_memcpy(&u, &x, sizeof u);
  u ^= 1ULL << 62;
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate floating-point bit manipulation (an active value reinterpreted as an integer, changed, and turned back): use fabs, copysign or a sign test instead
  __builtin_memcpy(&x, &u, sizeof u);
  return x;
}

// A struct mixing double and int fields is differentiated
// (integration/mixed_structs.c); one whose float travels in the bits of an
// integer (x86-64 returns {float, int} in one integer register) is not.
typedef struct {
  float value;
  int steps;
} packed;
__attribute__((noinline)) static packed solve_packed(double x) {
  packed r = {(float)(x * x), (int)(x * 2)};
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate floating-point data passed in the bits of an integer (a struct such as {float value; int n;} passed or returned by value, which x86-64 packs into one integer register): pass it through a pointer, or use double fields
  return r;
}
double float_in_int(double x) {
  packed r = solve_packed(x);
  return r.value * r.steps;
}
__attribute__((noinline)) static double use_packed(packed p) {
  return p.value * p.steps;
}
double pass_packed(double x) {
  packed p = {(float)x, 3};
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate floating-point data passed in the bits of an integer (a struct such as {float value; int n;} passed or returned by value, which x86-64 packs into one integer register): pass it through a pointer, or use double fields
  return use_packed(p);
}
// x86-64 returns this as {double, i64}: f and k share the integer.
typedef struct {
  double d;
  float f;
  int k;
} dfi;
__attribute__((noinline)) static dfi make_dfi(double x) {
  dfi r = {x * 3, (float)(x * 0.5), 7};
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate floating-point data passed in the bits of an integer (a struct such as {float value; int n;} passed or returned by value, which x86-64 packs into one integer register): pass it through a pointer, or use double fields
  return r;
}
double return_dfi(double x) {
  dfi r = make_dfi(x);
  return r.d * r.f * r.k;
}
typedef struct {
  double value;
  double *next;
} linked;
__attribute__((noinline)) static linked make_linked(double x, double *p) {
  linked l = {x * x, p};
  return l;
}
double mixed_pointer_struct(double x) {
  double cell = 0;
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a struct value that holds pointers or __float128 next to floating-point fields (such as a struct {double value; double *next;} returned by value): not supported yet; return the floating-point part separately or through a pointer
  linked l = make_linked(x, &cell);
  return l.value + *l.next;
}

// A struct of pointers returned by value is differentiated
// (integration/cxx_pointer_structs.cpp), but not when one of them points to
// constant floating-point data next to one into active memory: derivative
// code would read the constants' tangents through a shadow they lack. (It
// crashed at run time when structs of pointers were first supported.) From
// -O1 the optimiser passes the constant itself, whose shadow is a zeroed
// twin, and the gradient is right (integration/constant_ghosts.c).
typedef struct {
  double *a;
  const double *c;
} pair_ac;
static const double coeffs[2] = {2.0, 3.0};
__attribute__((noinline)) static pair_ac make_pair_ac(double *a,
                                                     const double *c) {
  pair_ac p = {a, c};
  // O0-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this pointer may point to memory that carries derivatives or to memory that does not (pass every pointer to active data with a shadow)
  return p;
}
double pointer_to_constants(double *x) {
  pair_ac p = make_pair_ac(x, coeffs);
  return p.a[0] * p.c[0] + p.a[1] * p.c[1];
}

_Atomic double total; // atomics on floating-point data (on integers: fine)
double atomic_add(double x) {
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate atomic operations on floating-point data
  total += x * x;
  return x;
}

// Bits of a double changed through memcpy: at every level an integer
// load, an xor and a bitcast (a sign flip's derivative came out 0 at -O0
// too; at -O1 and above the sign flip alone is now fneg:
// integration/sign_bits_memcpy.c).
double flipped_cube(double *x) {
  uint64_t u;
  memcpy(&u, x, 8);
  u ^= 1ULL << 62;
  double d;
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate a floating-point value made from bytes of memory that carries derivatives, read as an integer and changed (type punning
  memcpy(&d, &u, 8);
  return d * d * d;
}

// The same through arrays copied whole (memcpy stays a call).
double flipped_rows(double *x, int n) {
  uint64_t u[4];
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate this memory copy: it moves floating-point data to or from an integer variable (type punning), which would lose its derivative: not supported
  memcpy(u, x, n * 8);
  u[0] ^= 1ULL << 63;
  double d[4];
  memcpy(d, u, n * 8);
  return d[0] * d[0] * d[0] + d[1];
}

// An active value stored into a local integer buffer (the error named only
// AD_CONST pointers and globals).
extern void keep_slots(int64_t *slots);
double buffered(double x) {
  int64_t slots[4];
  double y = x * x;
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (a local variable that holds no floating-point data, such as an integer or char buffer): not supported
  memcpy(&slots[1], &y, 8);
  keep_slots(slots);
  double z;
  memcpy(&z, &slots[1], 8);
  return z;
}

// A struct of a double and a pointer copied whole (at -O0; from -O1 the
// copy becomes two typed ones): its shadow holds a cotangent and a shadow
// pointer, and the copy has no single element type to transpose with.
typedef struct { double v; double *next; } node;
double node_copy(const node *m) {
  node t;
  // O0-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate this memory copy: it moves data of more than one kind (two of float, double and long double, or pointers and floating-point data); copy element by element instead
  memcpy(&t, m, sizeof t);
  return t.v * t.v;
}

// Duff's device: a switch into the middle of a loop (irreducible control
// flow). Forward mode differentiates it; f.rev never left the loop (the
// program hung).
// CHECK-DAG: unsupported-constructs.c:{{[0-9]+}}:{{[0-9]+}}: error: cannot differentiate in reverse mode a loop that is entered in the middle (a goto into a loop body, or a switch into one, as in Duff's device): not supported yet; restructure the loop, or use forward mode (__ad_derivative)
double duff_sum_squares(const double *x, int n) {
  double s = 0;
  int i = 0, k = (n + 3) / 4;
  switch (n % 4) {
  case 0:
    do {
      s += x[i] * x[i], i++;
    case 3:
      s += x[i] * x[i], i++;
    case 2:
      s += x[i] * x[i], i++;
    case 1:
      s += x[i] * x[i], i++;
    } while (--k > 0);
  }
  return s;
}

// Memory that a call returned gets a shadow when the callee is
// differentiated from its body (memory_calls.c, workspace). An AD_INACTIVE
// allocator's memory carries no derivatives, and an external one's is
// unknown: writing active values there is an error (at -O0 the first was a
// crash: its result had a null shadow).
double *ext_alloc(int n);
double *quiet_alloc(int n) { return malloc(n * sizeof(double)); }
AD_INACTIVE(quiet_alloc);
double fills_inactive_alloc(double x) {
  double *p = quiet_alloc(2);
  // O0-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (memory that 'quiet_alloc' returned, which is declared AD_INACTIVE): not supported
  p[0] = x * x;
  double r = p[0] * x;
  free(p);
  return r;
}
double fills_external_alloc(double x) {
  double *p = ext_alloc(2);
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (memory that 'ext_alloc' returned, whose body is not visible in this translation unit): not supported
  p[0] = x * x;
  return p[0] * x;
}

// An AD_INACTIVE function given memory with derivatives returns a pointer
// that may point into it, with no shadow: a read or write through it was a
// segfault in the derived code (a null shadow).
__attribute__((noinline)) double *largest(double *a, int n) {
  double *m = a;
  for (int i = 1; i < n; ++i)
    if (a[i] > *m)
      m = &a[i];
  return m;
}
AD_INACTIVE(largest);
double squares_largest(double *a) {
  double *m = largest(a, 3);
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: this pointer comes from 'largest', declared AD_INACTIVE, and may point to memory that carries derivatives (an AD_INACTIVE function's pointer result has no shadow): define the function in this file and do not declare it inactive, so that its body is differentiated
  *m = *m * *m;
  return a[0] + a[1] + a[2];
}

// An address computed as an integer: the error named AD_CONST pointers
// and globals, neither of which is here (found by a probe).
double through_uintptr(double x) {
  double buf[4] = {0};
  double *q = (double *)((uintptr_t)buf + sizeof(double));
  // CHECK-DAG: unsupported-constructs.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate: an active value is stored into memory without a shadow (a pointer made from an integer (uintptr_t arithmetic), which does not say what memory it points to; compute the address with pointer arithmetic instead): not supported
  *q = x * x;
  return buf[1] + buf[0];
}

double use(double x, double *p, double *dp, double *out, double **rows,
           double **drows) {
  double r = __ad_gradient(indirect, x) +
             __ad_gradient(writes_unsized_global, x) +
             __ad_gradient(alloca_rows, x, 4) + __ad_gradient(keeps_pointer, p, dp) +
             __ad_gradient(extended, x) + __ad_gradient(bit_twiddle, x) +
             __ad_gradient(float_in_int, x) + __ad_gradient(pass_packed, x) +
             __ad_gradient(return_dfi, x) +
             __ad_gradient(mixed_pointer_struct, x) + __ad_gradient(atomic_add, x);
  __ad_gradient_void(writes_const, p, dp, AD_CONST, out);
  r += __ad_gradient(pointer_to_constants, p, dp);
  r += __ad_gradient(flipped_cube, p, dp);
  r += __ad_gradient(flipped_rows, p, dp, 2);
  r += __ad_gradient(buffered, x);
  node m = {1.5, 0}, dm = {0, 0};
  r += __ad_gradient(node_copy, &m, &dm);
  r += __ad_gradient(duff_sum_squares, p, dp, 7);
  r += __ad_gradient(fills_inactive_alloc, x);
  r += __ad_gradient(fills_external_alloc, x);
  r += __ad_gradient(squares_largest, p, dp);
  r += __ad_gradient(through_uintptr, x);
  return r;
}
