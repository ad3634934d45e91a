//===- ad.hpp - ADPass C++ interface ---------------------------*- C++ -*-===//
//
// C++17 entry points over the markers of ad.h:
//
//   double f(double x, double y);
//   std::array<double, 2> g = ad::gradient(f, x, y);  // all arguments active
//   double h(const std::vector<double> &x);
//   std::vector<double> gx = ad::gradient(h, x);      // same size as x
//   std::vector<double> hv = ad::hvp(h, x, v);        // Hessian times v
//   void F(const std::vector<double> &x, std::vector<double> &y);
//   std::vector<double> J = ad::jacobian(F, x, m);    // m x n, row-major
//
// f, h and F may be functions, function pointers or lambdas. A lambda's
// captures are constants: derivatives are taken with respect to the
// arguments only. Compile with the plugin as for ad.h; the code that calls
// these functions needs no -fno-exceptions, but f, h and F are
// differentiated, so the rules of docs/supported.md apply to them.
//
// How it works. The plugin differentiates the function named by a marker's
// first argument, and must see that function's body. Inside a template the
// user's function is only a parameter (at -O0 nothing is inlined), so each
// entry point hands the marker a trampoline instead: a static member
// function of a class template instantiated for the callable's type, whose
// address is a constant. The trampoline receives the callable object as an
// AD_CONST pointer (so a closure's captures carry no derivative, and a
// plain function arrives as a function pointer, whose call the plugin
// differentiates through its dispatch over the module's functions of that
// signature) and calls it:
//
//   * scalar gradient: the arguments are copied into an array x and the
//     trampoline calls f(x[0], ..., x[N-1]); the gradient is the array's
//     shadow, so no struct-returning marker per N is needed;
//   * vector forms: the trampoline takes the user's std::vector by pointer
//     and its shadow is a std::vector of the same size, as in a direct
//     request on a std::vector argument (nothing is copied);
//   * hvp: reverse over forward. A second trampoline returns the
//     directional derivative <grad h(x), v> by __ad_derivative; its
//     gradient in x, by __ad_gradient, is H v (H is symmetric). The inner
//     forward mode keeps no tape, so this order is the cheaper one; the
//     other (__ad_derivative of a function that calls __ad_gradient)
//     gives the same product (test/integration/cxx_adhpp_hvp_loops.cpp);
//   * jacobian: n forward passes (one column each, tangent e_j) when
//     n <= m, else m reverse passes (one row each, output cotangent e_i).
//
// Misuse (a callable that cannot be called as required, arguments that are
// not doubles) is a static_assert at the call with a message saying what
// was expected. What only run time knows stops the program with a message:
// a v whose size is not x's, an F that changes y's size.
//===----------------------------------------------------------------------===//
#ifndef ADPASS_AD_HPP
#define ADPASS_AD_HPP

#include "ad.h"

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

namespace ad {
namespace detail {

using Vector = std::vector<double>;

// A callable as an object whose address the trampolines can take: a
// function becomes a pointer to it, anything else is used as it is.
template <typename F> struct Stored {
  using type = std::conditional_t<std::is_function_v<F>, F *, F>;
};
template <typename F> using StoredT = typename Stored<F>::type;

template <std::size_t> using DoubleFor = double;

template <typename T> constexpr bool IsDouble = std::is_same_v<T, double>;

// The plugin differentiates float and double arithmetic.
template <typename R>
constexpr bool IsScalarResult =
    std::is_same_v<R, double> || std::is_same_v<R, float>;

// f(double, ..., double) with one double per entry of Seq, returning a
// float or a double.
template <typename F, typename Seq, typename = void>
struct ScalarCallable : std::false_type {};
template <typename F, std::size_t... I>
struct ScalarCallable<F, std::index_sequence<I...>,
                      std::enable_if_t<IsScalarResult<
                          std::invoke_result_t<const F &, DoubleFor<I>...>>>>
    : std::true_type {};

template <typename F, typename = void>
struct VectorCallable : std::false_type {};
template <typename F>
struct VectorCallable<F, std::enable_if_t<IsScalarResult<
                             std::invoke_result_t<const F &, const Vector &>>>>
    : std::true_type {};

template <typename F>
constexpr bool JacobianCallable =
    std::is_invocable_v<const F &, const Vector &, Vector &>;

template <typename T> struct IsVectorT : std::false_type {};
template <typename T, typename A>
struct IsVectorT<std::vector<T, A>> : std::true_type {};

[[noreturn]] __attribute__((noinline)) inline void
stop(const char *what, std::size_t got, std::size_t want) {
  std::fprintf(stderr, "ad.hpp: %s: got %zu, expected %zu\n", what, got, want);
  std::abort();
}

// Trampolines. Their parameters are what the markers pass: the callable
// (AD_CONST), then the differentiated data with its shadow.
template <typename F, typename Seq> struct ScalarTrampoline;
template <typename F, std::size_t... I>
struct ScalarTrampoline<F, std::index_sequence<I...>> {
  static double call(const F *f, const double *x) {
    return static_cast<double>((*f)(x[I]...));
  }
};

template <typename F> struct VectorTrampoline {
  static double call(const F *h, const Vector *x) {
    return static_cast<double>((*h)(*x));
  }
  // The derivative of h at x along v: <gradient of h(x), v>. Its gradient
  // with respect to x is H v (and with respect to v, the gradient of h).
  static double along(const F *h, const Vector *x, const Vector *v) {
    return __ad_derivative(&call, AD_CONST, h, x, v);
  }
};

template <typename F> struct JacobianTrampoline {
  static void call(const F *fn, const Vector *x, Vector *y) { (*fn)(*x, *y); }
};

// What ad::gradient(f, args...) was given: the vector form (one
// std::vector argument) or the scalar form, and whether each requirement
// of that form holds.
template <typename F, typename... Args> struct GradientRequest {
  static constexpr std::size_t N = sizeof...(Args);
  static constexpr bool VectorForm = N == 1 && (IsVectorT<Args>::value && ...);
  static constexpr bool VectorOfDoubles =
      VectorForm && (std::is_same_v<Args, Vector> && ...);
  static constexpr bool VectorCallableOk =
      VectorOfDoubles && VectorCallable<StoredT<F>>::value;
  static constexpr bool Doubles = !VectorForm && (IsDouble<Args> && ...);
  static constexpr bool HasPoint = N > 0;
  static constexpr bool ScalarCallableOk =
      Doubles && HasPoint &&
      ScalarCallable<StoredT<F>, std::make_index_sequence<N>>::value;
};

template <typename F, typename... Args>
std::array<double, sizeof...(Args)> scalar_gradient(const F &f,
                                                    const Args &...args) {
  constexpr std::size_t N = sizeof...(Args);
  std::array<double, N> grad{};
  const StoredT<F> &fn = f;
  double x[N] = {args...};
  __ad_gradient_void(
      &ScalarTrampoline<StoredT<F>, std::make_index_sequence<N>>::call,
      AD_CONST, &fn, x, grad.data());
  return grad;
}

template <typename F> Vector vector_gradient(const F &h, const Vector &x) {
  Vector grad(x.size(), 0.0);
  const StoredT<F> &fn = h;
  __ad_gradient_void(&VectorTrampoline<StoredT<F>>::call, AD_CONST, &fn, &x,
                     &grad);
  return grad;
}

} // namespace detail

/// The gradient of f at (args...), every argument active: f(double, ...)
/// returns a double or a float, the result has one partial per argument.
/// With one std::vector<double> argument x, the gradient of h(x) w.r.t. x.
template <typename F, typename... Args>
auto gradient(const F &f, const Args &...args) {
  // The checks are here, not in the helpers, so that the compiler's
  // instantiation notes lead straight to the user's call.
  using R = detail::GradientRequest<F, Args...>;
  constexpr bool x_is_vector_of_double = !R::VectorForm || R::VectorOfDoubles;
  static_assert(x_is_vector_of_double,
                "ad::gradient(h, x): x must be a std::vector<double>");
  constexpr bool h_takes_vector_returns_real =
      !R::VectorOfDoubles || R::VectorCallableOk;
  static_assert(h_takes_vector_returns_real,
                "ad::gradient(h, x): h must be callable as h(const "
                "std::vector<double> &) through a const reference (no "
                "mutable lambda) and return a double or a float");
  constexpr bool point_given = R::VectorForm || R::HasPoint;
  static_assert(point_given, "ad::gradient(f, ...): give the point at which to "
                             "differentiate f");
  constexpr bool arguments_are_doubles =
      R::VectorForm || !R::HasPoint || R::Doubles;
  static_assert(arguments_are_doubles,
                "ad::gradient(f, x, y, ...): every argument after f must be "
                "a double (each one is active; write 2.0, not 2), or pass "
                "one std::vector<double>");
  constexpr bool f_takes_doubles_returns_real =
      !R::Doubles || !R::HasPoint || R::ScalarCallableOk;
  static_assert(f_takes_doubles_returns_real,
                "ad::gradient(f, x, y, ...): f must be callable as f(double, "
                "..., double), one double per argument, through a const "
                "reference (no mutable lambda), and return a double or "
                "a float");
  if constexpr (R::VectorForm) {
    if constexpr (R::VectorCallableOk)
      return detail::vector_gradient(f, args...);
    else
      return std::vector<double>();
  } else {
    if constexpr (R::ScalarCallableOk)
      return detail::scalar_gradient(f, args...);
    else
      return std::array<double, sizeof...(Args)>();
  }
}

/// The Hessian of h at x times v, by reverse mode over forward mode.
template <typename F>
std::vector<double> hvp(const F &h, const std::vector<double> &x,
                        const std::vector<double> &v) {
  using detail::StoredT;
  constexpr bool h_takes_vector_returns_real =
      detail::VectorCallable<StoredT<F>>::value;
  static_assert(h_takes_vector_returns_real,
                "ad::hvp(h, x, v): h must be callable as h(const "
                "std::vector<double> &) through a const reference (no "
                "mutable lambda) and return a double or a float");
  if (v.size() != x.size())
    detail::stop("ad::hvp(h, x, v): v.size() differs from x.size()", v.size(),
                 x.size());
  // v is passed with a shadow, not AD_CONST: at -O0 x and v reach the same
  // accessors (operator[]), which must not see active and inactive
  // vectors at once. v's shadow receives the gradient of h, unused.
  std::vector<double> hv(x.size(), 0.0), grad(x.size(), 0.0);
  if constexpr (h_takes_vector_returns_real) {
    const StoredT<F> &fn = h;
    __ad_gradient_void(&detail::VectorTrampoline<StoredT<F>>::along, AD_CONST,
                       &fn, &x, &hv, &v, &grad);
  }
  return hv;
}

/// The m x n Jacobian of F at x, row-major: J[i * n + j] = d y_i / d x_j,
/// where F(x, y) writes the m outputs y (given with m elements, zero).
/// Forward mode (n passes) when n <= m, otherwise reverse mode (m passes).
template <typename F>
std::vector<double> jacobian(const F &F_, const std::vector<double> &x,
                             std::size_t m) {
  using detail::StoredT;
  constexpr bool F_takes_x_and_y = detail::JacobianCallable<StoredT<F>>;
  static_assert(F_takes_x_and_y, "ad::jacobian(F, x, m): F must be callable as "
                                 "F(const std::vector<double> &x, "
                                 "std::vector<double> &y) through a const "
                                 "reference (no mutable lambda)");
  const std::size_t n = x.size();
  std::vector<double> jac(m * n, 0.0);
  if constexpr (F_takes_x_and_y) {
    const StoredT<F> &fn = F_;
    using Trampoline = detail::JacobianTrampoline<StoredT<F>>;
    std::vector<double> y(m), dy(m), dx(n);
    for (std::size_t pass = 0, passes = n <= m ? n : m; pass < passes; ++pass) {
      y.assign(m, 0.0);
      dx.assign(n, 0.0);
      dy.assign(m, 0.0);
      if (n <= m) { // column `pass`: the tangent of y along e_pass
        dx[pass] = 1;
        __ad_derivative_void(&Trampoline::call, AD_CONST, &fn, &x, &dx, &y,
                             &dy);
        for (std::size_t i = 0; i < m; ++i)
          jac[i * n + pass] = dy[i];
      } else { // row `pass`: the cotangent of x for e_pass on y
        dy[pass] = 1;
        __ad_gradient_void(&Trampoline::call, AD_CONST, &fn, &x, &dx, &y, &dy);
        for (std::size_t j = 0; j < n; ++j)
          jac[pass * n + j] = dx[j];
      }
      if (y.size() != m)
        detail::stop("ad::jacobian(F, x, m): F changed y's size", y.size(), m);
    }
  }
  return jac;
}

} // namespace ad

#endif // ADPASS_AD_HPP
