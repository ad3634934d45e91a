//===- ShadowMemory.cpp - run-time support for shadow memory --------------===//
//
// Helpers that derivative code calls for what it cannot do with plain
// loads and stores:
//  * the transposes of memcpy/memmove between shadows, which must add
//    cotangents element by element (so they know float from double);
//  * __ad_shadow_live, the marker where a heap shadow becomes live. It does
//    nothing when it runs (in forward mode); in reverse mode the pass turns
//    it into the free of the shadow.
//
//===----------------------------------------------------------------------===//
#include "RuntimeState.h"
#include "ad_runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" void __ad_shadow_live(void *) {}

/// ct(src) += ct(dst); ct(dst) = 0, for disjoint ranges (memcpy).
template <typename T> static void copyAdjoint(T *Dst, T *Src, size_t Bytes) {
  size_t N = Bytes / sizeof(T);
  for (size_t I = 0; I < N; ++I) {
    Src[I] += Dst[I];
    Dst[I] = 0;
  }
}

/// The same for ranges that may overlap (memmove): all of dst's cotangent
/// is taken before any of src's is updated.
template <typename T> static void moveAdjoint(T *Dst, T *Src, size_t Bytes) {
  if (Dst + Bytes / sizeof(T) <= Src || Src + Bytes / sizeof(T) <= Dst)
    return copyAdjoint(Dst, Src, Bytes);
  T *Taken = static_cast<T *>(__ad_alloc(Bytes));
  memcpy(Taken, Dst, Bytes);
  memset(Dst, 0, Bytes);
  size_t N = Bytes / sizeof(T);
  for (size_t I = 0; I < N; ++I)
    Src[I] += Taken[I];
  __ad_free(Taken);
}

extern "C" void __ad_memcpy_adjoint_f64(double *Dst, double *Src,
                                        size_t Bytes) {
  copyAdjoint(Dst, Src, Bytes);
}
extern "C" void __ad_memcpy_adjoint_f32(float *Dst, float *Src, size_t Bytes) {
  copyAdjoint(Dst, Src, Bytes);
}
extern "C" void __ad_memmove_adjoint_f64(double *Dst, double *Src,
                                         size_t Bytes) {
  moveAdjoint(Dst, Src, Bytes);
}
extern "C" void __ad_memmove_adjoint_f32(float *Dst, float *Src, size_t Bytes) {
  moveAdjoint(Dst, Src, Bytes);
}

/// A call through a function pointer whose target the derivative code does
/// not know (IndirectCalls.cpp in the pass).
extern "C" void __ad_unknown_target(void *Target) {
  __adrt_fatal("a derivative called a function through a pointer (%p) that "
               "is not one of the functions of its translation unit whose "
               "address is taken; it has no derivative",
               Target);
}

/// A function reached through a function pointer that could not be
/// differentiated (the compile warned), called by derived code.
extern "C" void __ad_undifferentiable_target(const char *Name) {
  __adrt_fatal("a derivative called '%s', which ADPass could not "
               "differentiate (see the warning when this file was compiled)",
               Name);
}

/// A pointer argument with a shadow that points into a global the
/// derivative shadows itself (MarkerLowering.cpp in the pass).
extern "C" void __ad_check_not_in_global(const void *Arg, const void *Global,
                                         size_t Bytes, const char *Name) {
  auto A = reinterpret_cast<uintptr_t>(Arg);
  auto G = reinterpret_cast<uintptr_t>(Global);
  if (A >= G && A - G < Bytes)
    __adrt_fatal("a pointer argument of a derivative request (or a pointer "
                 "the function reads from the memory it points to) points "
                 "into the global variable '%s', which the differentiated "
                 "code also uses by name: the derivative would be wrong (not "
                 "supported; pass a copy of the global, or use it only "
                 "through the pointer)",
                 Name);
}
