// Misuse of ad.hpp is one static_assert that says what was expected, with
// the user's call in its instantiation notes, and no cascade of template
// errors after it.
// RUN: not %adcxx -std=c++17 -fsyntax-only -DINT_ARGUMENT %s 2>&1 | FileCheck %s --check-prefix=INT --implicit-check-not=error:
// RUN: not %adcxx -std=c++17 -fsyntax-only -DARITY %s 2>&1 | FileCheck %s --check-prefix=ARITY --implicit-check-not=error:
// RUN: not %adcxx -std=c++17 -fsyntax-only -DNO_POINT %s 2>&1 | FileCheck %s --check-prefix=NO-POINT --implicit-check-not=error:
// RUN: not %adcxx -std=c++17 -fsyntax-only -DFLOAT_VECTOR %s 2>&1 | FileCheck %s --check-prefix=FLOAT-VECTOR --implicit-check-not=error:
// RUN: not %adcxx -std=c++17 -fsyntax-only -DMUTABLE %s 2>&1 | FileCheck %s --check-prefix=MUTABLE --implicit-check-not=error:
// RUN: not %adcxx -std=c++17 -fsyntax-only -DHVP_SCALAR %s 2>&1 | FileCheck %s --check-prefix=HVP --implicit-check-not=error:
// RUN: not %adcxx -std=c++17 -fsyntax-only -DJACOBIAN_OF_SCALAR %s 2>&1 | FileCheck %s --check-prefix=JACOBIAN --implicit-check-not=error:
#include <ad.hpp>

double f(double x, double y) { return x * y; }
double h(const std::vector<double> &x) { return x[0] * x[1]; }

void use() {
  std::vector<double> x(2, 1.0);
#ifdef INT_ARGUMENT
  // INT: error: static assertion failed{{.*}}: ad::gradient(f, x, y, ...): every argument after f must be a double (each one is active; write 2.0, not 2), or pass one std::vector<double>
  // INT: adhpp-misuse.cpp:[[@LINE+1]]:{{[0-9]+}}: note: in instantiation of function template specialization 'ad::gradient<double (double, double), int, double>'
  ad::gradient(f, 1, 2.0);
#endif
#ifdef ARITY
  // ARITY: error: static assertion failed{{.*}}: ad::gradient(f, x, y, ...): f must be callable as f(double, ..., double), one double per argument, through a const reference (no mutable lambda), and return a double or a float
  // ARITY: adhpp-misuse.cpp:[[@LINE+1]]:{{[0-9]+}}: note: in instantiation
  ad::gradient(f, 1.0);
#endif
#ifdef NO_POINT
  // NO-POINT: error: static assertion failed{{.*}}: ad::gradient(f, ...): give the point at which to differentiate f
  // NO-POINT: adhpp-misuse.cpp:[[@LINE+1]]:{{[0-9]+}}: note: in instantiation
  ad::gradient(f);
#endif
#ifdef FLOAT_VECTOR
  // FLOAT-VECTOR: error: static assertion failed{{.*}}: ad::gradient(h, x): x must be a std::vector<double>
  // FLOAT-VECTOR: adhpp-misuse.cpp:[[@LINE+1]]:{{[0-9]+}}: note: in instantiation
  ad::gradient(h, std::vector<float>(2));
#endif
#ifdef MUTABLE
  int calls = 0;
  // MUTABLE: error: static assertion failed{{.*}}: ad::gradient(f, x, y, ...): f must be callable as f(double, ..., double), one double per argument, through a const reference (no mutable lambda)
  // MUTABLE: adhpp-misuse.cpp:[[@LINE+1]]:{{[0-9]+}}: note: in instantiation
  ad::gradient([calls](double a) mutable { return a * ++calls; }, 1.0);
#endif
#ifdef HVP_SCALAR
  // HVP: error: static assertion failed{{.*}}: ad::hvp(h, x, v): h must be callable as h(const std::vector<double> &) through a const reference (no mutable lambda) and return a double or a float
  // HVP: adhpp-misuse.cpp:[[@LINE+1]]:{{[0-9]+}}: note: in instantiation
  ad::hvp(f, x, x);
#endif
#ifdef JACOBIAN_OF_SCALAR
  // JACOBIAN: error: static assertion failed{{.*}}: ad::jacobian(F, x, m): F must be callable as F(const std::vector<double> &x, std::vector<double> &y) through a const reference (no mutable lambda)
  // JACOBIAN: adhpp-misuse.cpp:[[@LINE+1]]:{{[0-9]+}}: note: in instantiation
  ad::jacobian(h, x, 2);
#endif
}
