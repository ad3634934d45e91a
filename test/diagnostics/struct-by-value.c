// The shadow of a struct passed by value, passed by value too, is a copy:
// the gradient went there and the caller's shadow stayed zero, with no
// diagnostic. It is an error that shows the form that works
// (integration/struct_by_value.c). A struct of an int and a pointer is
// passed in registers, one parameter per field, which the marker's
// arguments do not line up with: the error says how parameters are counted.
// RUN: not %adcc -O0 -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %adcc -O2 -c %s -o /dev/null 2>&1 | FileCheck %s
#include <ad.h>

typedef struct { double x, y, z; } big3;
double product(big3 b) { return b.x * b.y * b.z; }

void use(big3 b, big3 *out) {
  big3 db = {0, 0, 0};
  // CHECK: struct-by-value.c:[[@LINE+1]]:3: error: __ad_gradient: parameter 1 of 'product' is a struct passed by value, and so is its shadow: the gradient would go to a copy of the shadow; pass the addresses of both instead (__ad_gradient(f, &s, &ds))
  __ad_gradient(product, b, db);
  *out = db;
}

typedef struct {
  int n;
  double *data;
} vec;
double norm2(vec a) {
  double s = 0;
  for (int i = 0; i < a.n; i++)
    s += a.data[i] * a.data[i];
  return s;
}
double use_vec(vec a, vec da) {
  // CHECK: struct-by-value.c:[[@LINE+1]]:10: error: __ad_gradient: the shadow for parameter 2 of 'norm2' must be a pointer, but int was passed (parameters are counted as clang passes them: a struct passed by value whose fields are integers and pointers becomes one parameter per field; take such a struct by pointer, in the function or a wrapper, and pass its address followed by its shadow's)
  return __ad_gradient(norm2, a, da);
}

// Forward mode: a struct of two doubles is passed in two registers, so f
// has two double parameters, and the marker gets the struct and its tangent
// as four doubles. Paired one by one they gave (x, dx) = (s.x, s.y): a
// wrong derivative with no diagnostic. Clang marks scalar arguments
// noundef but not the pieces of a struct, which tells them apart.
typedef struct { double x, y; } pair2;
double pprod(pair2 p) { return p.x * p.y * p.y; }
double use_pair(pair2 p, pair2 tp) {
  // CHECK: struct-by-value.c:[[@LINE+1]]:10: error: __ad_derivative: parameter 1 of 'pprod' is (part of) a struct passed by value in registers; in forward mode the marker cannot tell its tangent from its other fields: take the struct by pointer and pass its address followed by its tangent's (__ad_derivative(f, &s, &ts)), or pass its fields one by one, each followed by its tangent (__ad_derivative(f, s.x, ts.x, s.y, ts.y))
  return __ad_derivative(pprod, p, tp);
}

// Three floats travel as <2 x float> and float: the fields cannot be passed
// one by one either. In reverse mode such a struct is passed by value; its
// address was rejected without saying so.
typedef struct { float x, y, z; } v3f;
float len2(v3f v) { return v.x * v.x + v.y * v.y + v.z * v.z; }
float __ad_derivative_f(void *, ...) AD_MARKER;
float use_v3f(v3f v, v3f t, v3f *dv) {
  // CHECK: struct-by-value.c:[[@LINE+1]]:13: error: __ad_derivative_f: parameter 1 of 'len2' is (part of) a struct passed by value in registers; in forward mode the marker cannot tell its tangent from its other fields: take the struct by pointer and pass its address followed by its tangent's (__ad_derivative(f, &s, &ts)){{$}}
  float r = __ad_derivative_f(len2, v, t);
  // CHECK: struct-by-value.c:[[@LINE+1]]:10: error: __ad_gradient_f: the value for parameter 1 of 'len2' must be 2 float values in one vector (a struct of 2 float fields, a complex, or a vector type, passed by value), but a pointer was passed (a struct of up to 16 bytes passed by value travels in registers, one parameter per register: pass the struct itself, __ad_gradient(f, s), and declare the marker to return a struct with one field per register)
  return __ad_gradient_f(len2, &v, dv) + r;
}

// Four floats travel as two <2 x float>. Passed field by field, as one
// would a struct of doubles, the error asked for "2 float values in one
// vector", and passing such pairs gave the error above: a circle (found by
// a probe). Now the first error is the one above.
typedef struct { float a, b, c, d; } f4;
float f4sum(f4 v) { return v.a * v.b + v.c * v.d * v.d; }
float use_f4(f4 v, f4 t) {
  // CHECK: struct-by-value.c:[[@LINE+1]]:10: error: __ad_derivative_f: parameter 1 of 'f4sum' is (part of) a struct passed by value in registers; in forward mode the marker cannot tell its tangent from its other fields: take the struct by pointer and pass its address followed by its tangent's (__ad_derivative(f, &s, &ts)){{$}}
  return __ad_derivative_f(f4sum, v.a, t.a, v.b, t.b, v.c, t.c, v.d, t.d);
}
