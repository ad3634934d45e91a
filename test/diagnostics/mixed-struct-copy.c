// A struct holding an int, a double and a pointer (a list node) copied
// whole by a helper that reads only the int: from -O2 the gradient was
// zero, silently (the int read typed the copy as moving no floating-point
// data). Copies of data mixing floating-point values and pointers are not
// supported (README); now the error says so at the copy.
// RUN: not %adcc -O0 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
#include "ad.h"
#include <stdlib.h>

struct Item {
  int key;
  double w;
  struct Item *next;
};

__attribute__((noinline)) static struct Item *push(struct Item *head, int key,
                                                   double w) {
  struct Item *it = malloc(sizeof *it);
  it->key = key;
  it->w = w;
  it->next = head;
  return it;
}

__attribute__((noinline)) static void copy_item(struct Item *dst,
                                                const struct Item *src) {
  if (src->key >= 0)
    // CHECK: mixed-struct-copy.c:[[@LINE+1]]:{{[0-9]+}}: error: cannot differentiate this memory copy: it moves data of more than one kind
    *dst = *src;
}

double f(const double *x, int n) {
  struct Item *head = NULL;
  for (int i = 0; i < n; i++)
    head = push(head, i, x[i] * x[i]);
  struct Item arr[8];
  int m = 0;
  for (struct Item *p = head; p; p = p->next)
    copy_item(&arr[m++], p);
  double s = 0;
  for (int i = 0; i < m; i++)
    s += arr[i].w * (arr[i].key + 1);
  while (head) {
    struct Item *next = head->next;
    free(head);
    head = next;
  }
  return s;
}

void grad(const double *x, double *dx, int n) { __ad_gradient_void(f, x, dx, n); }
