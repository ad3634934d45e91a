/*===- ad.h - ADPass user API -----------------------------------*- C -*-===*
 *
 * Compile-time automatic differentiation for C and C++. Compile with
 *
 *   clang -O2 -fpass-plugin=<build>/pass/libADPass.so -I<repo>/include prog.c \
 *         <build>/runtime/libADRuntime.a -lm
 *
 * The plugin replaces every call of a function whose name begins with
 * __ad_gradient (reverse mode) or __ad_derivative (forward mode) by a call of
 * a derivative it generates. The contract is docs/api.md; in short:
 *
 *   double dfdx = __ad_gradient(f, x);                 one active argument
 *   grad_xy g   = __ad_gradient_xy(f, x, y);           several: a struct
 *   double dfdx = __ad_gradient(f, x, AD_CONST, y);    y held constant
 *   double dy   = __ad_derivative(f, x, dx, y, dy_);   forward mode (JVP)
 *
 * float/double arguments are active unless preceded by AD_CONST; integers are
 * never active. Arguments pass through "...", so float values arrive as
 * double; the pass converts them back and differentiates float code in float.
 *
 * Declare your own variants (other return types) with AD_MARKER so that
 * errors point at the exact source line even without -g:
 *
 *   typedef struct { double dx, dy; } grad_xy;
 *   grad_xy __ad_gradient_xy(void *fn, ...) AD_MARKER;
 *===----------------------------------------------------------------------===*/
#ifndef ADPASS_AD_H
#define ADPASS_AD_H

#ifdef __cplusplus
extern "C" {
#endif

/* Calls of functions with this attribute carry their source location into
 * LLVM IR (!srcloc), which the plugin uses for its diagnostics. If the
 * plugin is not loaded, the call survives to code generation and clang
 * reports this message at the call. nomerge keeps the optimiser from
 * merging the requests of an if/else into one call (the plugin also marks
 * every __ad_gradient* / __ad_derivative* declaration so). */
#if defined(__has_attribute)
#if __has_attribute(nomerge)
#define AD_NOMERGE_ __attribute__((nomerge))
#endif
#endif
#ifndef AD_NOMERGE_
#define AD_NOMERGE_
#endif
#define AD_MARKER                                                              \
  __attribute__((error("ADPass marker: compile with "                          \
                       "-fpass-plugin=<build>/pass/libADPass.so")))            \
  AD_NOMERGE_

/* Activity annotations, passed in the argument list before the argument
 * they describe. The plugin recognises these symbols by name; they are never
 * dereferenced and need no definition at link time. */
extern const char __ad_const_tag;
extern const char __ad_dup_tag;
#define AD_CONST ((const void *)&__ad_const_tag)
#define AD_DUP ((const void *)&__ad_dup_tag)

#ifdef __cplusplus
/* C++ has no implicit function-to-void* conversion; "..." accepts both a
 * plain function name and (void *)f. */
double __ad_gradient(...) AD_MARKER;
float __ad_gradient_f(...) AD_MARKER;
long double __ad_gradient_ld(...) AD_MARKER;
void __ad_gradient_void(...) AD_MARKER;
double __ad_derivative(...) AD_MARKER;
float __ad_derivative_f(...) AD_MARKER;
long double __ad_derivative_ld(...) AD_MARKER;
void __ad_derivative_void(...) AD_MARKER;
#else
double __ad_gradient(void *fn, ...) AD_MARKER;
float __ad_gradient_f(void *fn, ...) AD_MARKER;
long double __ad_gradient_ld(void *fn, ...) AD_MARKER;
void __ad_gradient_void(void *fn, ...) AD_MARKER;
double __ad_derivative(void *fn, ...) AD_MARKER;
float __ad_derivative_f(void *fn, ...) AD_MARKER;
long double __ad_derivative_ld(void *fn, ...) AD_MARKER;
void __ad_derivative_void(void *fn, ...) AD_MARKER;
#endif

/* Linearize once, apply many times (docs/api.md):
 *
 *   double y;
 *   ad_linear *L = __ad_linearize(f, &y, x, n);   runs f once, keeps its
 *                                                 linear map at x
 *   double dy = __ad_jvp(f, L, x, dx, n);          J dx, as __ad_derivative
 *   __ad_vjp_void(f, L, 1.0, x, gx, n);            gx += J^T 1, as
 *                                                 __ad_gradient
 *   ad_linear_free(L);
 *
 * The primal values given to __ad_jvp / __ad_vjp are ignored; the point is
 * the one given to __ad_linearize. Names beginning with __ad_linearize,
 * __ad_jvp and __ad_vjp are markers, with variants as for __ad_gradient. */
#ifndef AD_LINEAR_TYPEDEF_
#define AD_LINEAR_TYPEDEF_
typedef struct ad_linear ad_linear;
#endif
#ifdef __cplusplus
ad_linear *__ad_linearize(...) AD_MARKER;
double __ad_jvp(...) AD_MARKER;
float __ad_jvp_f(...) AD_MARKER;
void __ad_jvp_void(...) AD_MARKER;
double __ad_vjp(...) AD_MARKER;
float __ad_vjp_f(...) AD_MARKER;
void __ad_vjp_void(...) AD_MARKER;
#else
ad_linear *__ad_linearize(void *fn, ...) AD_MARKER;
double __ad_jvp(void *fn, ad_linear *L, ...) AD_MARKER;
float __ad_jvp_f(void *fn, ad_linear *L, ...) AD_MARKER;
void __ad_jvp_void(void *fn, ad_linear *L, ...) AD_MARKER;
double __ad_vjp(void *fn, ad_linear *L, ...) AD_MARKER;
float __ad_vjp_f(void *fn, ad_linear *L, ...) AD_MARKER;
void __ad_vjp_void(void *fn, ad_linear *L, ...) AD_MARKER;
#endif
/* A runtime function: releases everything L holds; NULL is ignored. */
void ad_linear_free(ad_linear *L);

/* Custom derivatives from a forward rule alone.
 *
 *   double f(double x, double y);                       // may be external
 *   double f_jvp(double x, double y, double dx, double dy) {
 *     return cos(x) * y * dx + sin(x) * dy;             // the output tangent
 *   }
 *   AD_CUSTOM_JVP(f, f_jvp)
 *
 * f_jvp takes f's arguments, then one tangent per float/double or pointer
 * parameter of f (same types, same order), and returns the tangent of f's
 * result. A pointer parameter's tangent points to the tangents of what it
 * points to: f_jvp may read through it, nothing else (f's pointer
 * parameters are inputs). It must be linear in the tangents (it may branch
 * on and compute anything from the primal arguments); ADPass checks that
 * and reports the offending line. Both
 * forward and reverse mode use it: the reverse rule is derived by
 * transposing f_jvp. Write the macro at file scope, after both functions are
 * declared, in every file whose derivatives call f.
 *
 *   AD_CHECKPOINT(step)
 *
 * makes reverse mode keep only the arguments of each call of step inside
 * differentiated code, and run step again (keeping its intermediate values
 * for that one call) right before the reverse pass goes through it: the
 * tape holds one call's values at a time instead of every call's. The
 * derivative is the same. step may read memory through its pointer
 * parameters only if nothing writes that memory later in the forward pass,
 * and may write only its own local and heap memory (results come back by
 * value); otherwise the call is a compile error. Write the macro at file
 * scope in every file whose derivatives call step.
 *
 *   AD_INACTIVE(log_message)
 *
 * declares an external function to carry no derivative: its result is
 * constant, and a pointer it returns has no shadow (reading or writing
 * memory with derivatives through it is a compile error). ADPass cannot see
 * what it writes: memory with derivatives that it overwrites keeps them
 * (give such a function an AD_CUSTOM_JVP).
 * Functions with a rule or declared inactive are never inlined. */
/* Registrations are named by a counter, not by f, so that f may be a
 * qualified C++ name (AD_CUSTOM_JVP(ns::f, ns::f_jvp)). */
#define AD_PASTE2_(a, b) a##b
#define AD_PASTE_(a, b) AD_PASTE2_(a, b)
#define AD_CUSTOM_JVP(f, f_jvp)                                                \
  __attribute__((used)) static const void                                      \
      *const AD_PASTE_(__ad_custom_jvp_, __COUNTER__)[2] = {                   \
          (const void *)(f), (const void *)(f_jvp)};
#define AD_CHECKPOINT(f)                                                       \
  __attribute__((used)) static const void *const AD_PASTE_(__ad_checkpoint_,   \
                                                           __COUNTER__) =      \
      (const void *)(f);
#define AD_INACTIVE(f)                                                         \
  __attribute__((used)) static const void *const AD_PASTE_(__ad_inactive_,     \
                                                           __COUNTER__) =      \
      (const void *)(f);

/* The shadow of a global variable that holds pointers.
 *
 *   struct Ctx { double *work; double scale; } ctx, dctx;
 *   AD_SHADOW(ctx, dctx)
 *
 * makes dctx the shadow of ctx in every derivative of this file, the way
 * dx is the shadow of a pointer argument x: the derivatives of memory
 * reached through a pointer in ctx are where the same pointer in dctx
 * leads, and the floating-point fields of dctx hold those of ctx's fields.
 * The caller sets dctx up before each request: dctx.work is the argument's
 * shadow where ctx.work points into an argument, else shadow memory of
 * the same size, zeroed (the derivative code does not clear it; it follows
 * the rules of an argument's shadow memory: tangents in forward mode,
 * cotangents added in reverse mode, and for memory the function writes the
 * cotangent of its final contents on entry). Both must have the same type.
 * Write the macro at file scope, after both variables are declared, in
 * every file whose derivatives use the global.
 *
 * Without a declaration, differentiated code that reads or writes
 * floating-point data through a pointer kept in a global variable (or
 * passes such a pointer to a function that does) is a compile error, unless
 * the global is static and every address stored in it is that of constant
 * data (a static pointer set to a static const table). */
#ifdef __cplusplus
#define AD_SHADOW_SAME_TYPE_(g, dg)                                            \
  static_assert(__is_same(decltype(g), decltype(dg)),                          \
                "AD_SHADOW: a global and its shadow must have the same type");
#else
#define AD_SHADOW_SAME_TYPE_(g, dg)                                            \
  _Static_assert(                                                              \
      __builtin_types_compatible_p(__typeof__(g), __typeof__(dg)),             \
      "AD_SHADOW: a global and its shadow must have the same type");
#endif
#define AD_SHADOW(g, dg)                                                       \
  AD_SHADOW_SAME_TYPE_(g, dg)                                                  \
  __attribute__((used)) static void *const AD_PASTE_(                          \
      __ad_declared_shadow_, __COUNTER__)[2] = {(void *)&(g), (void *)&(dg)};

#ifdef __cplusplus
}
#endif

#endif /* ADPASS_AD_H */
