// realloc and reallocarray of memory with derivatives: the shadow moves
// with the block (a new shadow, the old contents' tangents copied, the old
// shadow released once the reverse pass is back past the call). Each
// kernel's gradient against central differences, its forward derivative
// against a directional difference, and the heap over 200 more calls.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 -g %s -o %t.O3 %adlibs && %t.O3

#include "adkernel.h"
#include <stdlib.h>

// A buffer grown by doubling, then read with a wrap-around neighbour.
double grow_by_doubling(const double *x, int n) {
  int cap = 2, len = 0;
  double *buf = malloc(cap * sizeof(double));
  for (int i = 0; i < n; i++) {
    if (len == cap) {
      cap *= 2;
      buf = realloc(buf, cap * sizeof(double));
    }
    buf[len++] = sin(x[i]) * x[i];
  }
  double s = 0;
  for (int i = 0; i < len; i++)
    s += buf[i] * buf[(i + 1) % len];
  free(buf);
  return s;
}

// Growth from NULL one element at a time (realloc(NULL, n) is malloc).
double grow_from_null(const double *x, int n) {
  double *buf = NULL;
  for (int i = 0; i < n; i++) {
    buf = realloc(buf, (i + 1) * sizeof(double));
    buf[i] = x[i] * x[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += buf[i] * cos(buf[n - 1 - i]);
  free(buf);
  return s;
}

// Shrinking keeps the first elements; the values written before and read
// after the call travel through it.
double shrink(const double *x, int n) {
  double *a = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = exp(0.3 * x[i]);
  a = realloc(a, 3 * sizeof(double));
  double s = a[0] * a[1] + a[2] * a[2];
  free(a);
  return s;
}

// reallocarray, and a dynamic array kept in a local struct.
typedef struct {
  double *data;
  size_t len, cap;
} vec;
static void vec_push(vec *v, double value) {
  if (v->len == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 1;
    v->data = reallocarray(v->data, v->cap, sizeof(double));
  }
  v->data[v->len++] = value;
}
double vec_products(const double *x, int n) {
  vec v = {NULL, 0, 0};
  for (int i = 0; i < n; i++)
    vec_push(&v, x[i] * x[(i + 1) % n]);
  double s = 0;
  for (size_t i = 0; i < v.len; i++)
    s += v.data[i] * (1 + 0.1 * i);
  free(v.data);
  return s;
}

AD_KERNEL_REQUESTS(grow_by_doubling)
AD_KERNEL_REQUESTS(grow_from_null)
AD_KERNEL_REQUESTS(shrink)
AD_KERNEL_REQUESTS(vec_products)

int main(void) {
  double x0[11];
  for (int i = 0; i < 11; i++)
    x0[i] = 0.3 + 0.1 * i - 0.02 * i * i;
  ad_check_kernel("grow_by_doubling", 11, x0, grow_by_doubling,
                  grad_grow_by_doubling, deriv_grow_by_doubling);
  ad_check_kernel("grow_from_null", 9, x0, grow_from_null,
                  grad_grow_from_null, deriv_grow_from_null);
  ad_check_kernel("shrink", 7, x0, shrink, grad_shrink, deriv_shrink);
  ad_check_kernel("vec_products", 10, x0, vec_products, grad_vec_products,
                  deriv_vec_products);
  return ad_finish();
}
