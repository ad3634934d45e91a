// Pointer-linked data built inside the differentiated function: a struct
// holding a pointer to its data (the caller's shadow struct holds the
// shadow pointer), a linked list on the heap ending in NULL, a tree of
// locals whose missing children are NULL (before, a null pointer had no
// shadow: "this pointer may point to memory that carries derivatives or
// to memory that does not"), and a constant table of function pointers
// (also kept in structs next to active data: neurons).
// pushsum builds the list with a helper that allocates each node and
// returns the new head: at -O0 the list was "memory whose derivatives are
// unknown" until a call returning memory its callee allocates got a
// shadow.
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O3 %s -o %t.O3 %adlibs && %t.O3
#include "ad.h"
#include "adcheck.h"
#include <stdlib.h>
typedef struct {
  int n;
  double *data;
} vec;
double vnorm2(const vec *v) {
  double s = 0;
  for (int i = 0; i < v->n; i++)
    s += v->data[i] * v->data[i];
  return s;
}
struct node {
  double v;
  struct node *next;
};
double listsum(const double *x, int n) {
  struct node *head = 0;
  for (int i = 0; i < n; i++) {
    struct node *p = malloc(sizeof *p);
    p->v = x[i] * x[i];
    p->next = head;
    head = p;
  }
  double s = 0;
  double w = 1;
  for (struct node *p = head; p; p = p->next) {
    s += p->v * w;
    w += 1;
  }
  while (head) {
    struct node *q = head->next;
    free(head);
    head = q;
  }
  return s;
}
static struct node *push(struct node *head, double v) {
  struct node *p = malloc(sizeof *p);
  p->v = v;
  p->next = head;
  return p;
}
// sum_k (k + 1) x_{n-1-k}^3: the list holds the cubes, last pushed first.
double pushsum(const double *x, int n) {
  struct node *head = 0;
  for (int i = 0; i < n; i++)
    head = push(head, x[i] * x[i] * x[i]);
  double s = 0;
  int k = 1;
  for (struct node *p = head; p; p = p->next)
    s += p->v * k++;
  while (head) {
    struct node *q = head->next;
    free(head);
    head = q;
  }
  return s;
}
struct tree {
  double v;
  struct tree *l, *r;
};
static double tsum(const struct tree *t) {
  return t ? t->v * t->v + tsum(t->l) + 0.5 * tsum(t->r) : 0;
}
double treef(const double *x) {
  struct tree n[5];
  for (int i = 0; i < 5; i++) {
    n[i].v = sin(x[i]);
    n[i].l = 2 * i + 1 < 5 ? &n[2 * i + 1] : 0;
    n[i].r = 2 * i + 2 < 5 ? &n[2 * i + 2] : 0;
  }
  return tsum(&n[0]);
}
static double sq(double a) { return a * a; }
static double cube(double a) { return a * a * a; }
static double (*const table[2])(double) = {sq, cube};
double tablef(double x, int k) { return table[k](x) + table[1 - k](x * 2); }
// Function pointers kept next to active data in a local array of structs,
// taken from the constant table or chosen by a condition: "a pointer to
// memory without derivatives is stored where pointers to memory with
// derivatives are kept" before (found by a probe), as neither a load from
// a constant table of functions nor a choice between functions counted as
// pointing to data without derivatives.
// A node's int field copied on its own (at -O0 an untagged i32 load of a
// struct that also holds a double and a pointer: "whether it is
// floating-point data, a pointer or an integer cannot be told", found by
// a probe; the field's own type tells).
typedef struct tagged {
  double v;
  struct tagged *next;
  int id;
} tagged;
// sum over the chain nd[0] -> nd[1] -> extra of v^2 (id + 1): v = x, 2x, 2x
double tagsum(double x) {
  tagged nd[2], extra;
  for (int i = 0; i < 2; i++) {
    nd[i].v = x * (i + 1);
    nd[i].next = i ? 0 : &nd[1];
    nd[i].id = i;
  }
  extra.v = nd[1].v;
  extra.next = 0;
  extra.id = nd[1].id;
  nd[1].next = &extra;
  double acc = 0;
  for (tagged *p = &nd[0]; p; p = p->next)
    acc += p->v * p->v * (p->id + 1);
  return acc;
}
typedef struct {
  double (*f)(double);
  double w;
} neuron;
// k = 1: sq(w) ... i = 0 takes table[1] = cube, i = 1 table[0] = sq
double neurons(double w, int k) {
  neuron ns[2];
  for (int i = 0; i < 2; i++) {
    ns[i].f = table[(k + i) & 1];
    ns[i].w = w * (i + 1);
  }
  neuron ms[2];
  for (int i = 0; i < 2; i++) {
    ms[i].f = (k + i) & 1 ? sq : cube;
    ms[i].w = w;
  }
  double v = 0;
  for (int i = 0; i < 2; i++)
    v += ns[i].f(ns[i].w) + ms[i].f(ms[i].w);
  return v;
}
int main(void) {
  double d[3] = {0.5, -1.5, 2.0}, dd[3] = {0};
  vec v = {3, d}, dv = {3, dd};
  __ad_gradient(vnorm2, &v, &dv);
  for (int i = 0; i < 3; i++)
    ad_check(ad_fmt("vnorm2 %d", i), dd[i], 2 * d[i], 1e-12, 0);
  double x[5] = {0.3, -0.4, 0.9, 1.2, -0.7}, dx[5] = {0}, dt[5] = {0};
  volatile int vn = 5;
  int n = vn;
  __ad_gradient(listsum, x, dx, n);
  for (int i = 0; i < 5; i++)
    ad_check(ad_fmt("list %d", i), dx[i], AD_FD(x[i], listsum(x, n)), 1e-6,
             1e-8);
  double dp[5] = {0};
  __ad_gradient(pushsum, x, dp, n);
  for (int i = 0; i < 5; i++)
    ad_check(ad_fmt("pushsum %d", i), dp[i], 3 * (n - i) * x[i] * x[i], 1e-12,
             0);
  __ad_gradient(treef, x, dt);
  for (int i = 0; i < 5; i++)
    ad_check(ad_fmt("tree %d", i), dt[i], AD_FD(x[i], treef(x)), 1e-6, 1e-8);
  double y = 0.7;
  for (int k = 0; k < 2; k++)
    ad_check(ad_fmt("table %d", k), __ad_gradient(tablef, y, k),
             AD_FD(y, tablef(y, k)), 1e-6, 1e-8);
  // tagsum = x^2 + 8 x^2 + 8 x^2
  ad_check("tagsum", __ad_gradient(tagsum, y), 34 * y, 1e-12, 0);
  // neurons(w, 1) = cube(w) + sq(2w) + sq(w) + cube(w)
  ad_check("neurons", __ad_gradient(neurons, y, 1),
           6 * y * y + 8 * y + 2 * y, 1e-12, 0);
  return ad_finish();
}
