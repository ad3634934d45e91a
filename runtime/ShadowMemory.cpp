//===- ShadowMemory.cpp - run-time support for shadow memory --------------===//
//
// Helpers that derivative code calls for what it cannot do with plain
// loads and stores:
//  * the transposes of memcpy/memmove between shadows, which must add
//    cotangents element by element (so they know float from double);
//  * __ad_shadow_live, the marker where a heap shadow becomes live. It does
//    nothing when it runs (in forward mode); in reverse mode the pass turns
//    it into __ad_shadow_release;
//  * __ad_snapshot_live, the same for a copy of memory f.fwd made for f.rev
//    to read (the pass turns it into __ad_free);
//  * the bookkeeping that frees, in reverse mode, the shadows of heap memory
//    the primal code freed, and only those (below).
//
//===----------------------------------------------------------------------===//
#include "RuntimeState.h"
#include "ad_runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern "C" void __ad_shadow_live(void *) {}
extern "C" void __ad_snapshot_live(void *) {}

//===----------------------------------------------------------------------===//
// Freed shadows
//===----------------------------------------------------------------------===//
// The shadow of a heap block mirrors it: it is freed where the block is. In
// reverse mode the reverse pass still needs it after the primal free, down
// to the block's allocation. So f.rev notes the shadow where it walks back
// past the free (__ad_shadow_freed) and frees it where it walks back past
// the allocation (__ad_shadow_release). A shadow whose block was never freed
// stays: the block outlives the request (stored where the caller finds it,
// as a std::vector passed by reference keeps the buffer it grew into), and
// so must its shadow, which the caller's shadow object now points to. A
// shadow noted but never released belongs to memory the caller passed in:
// the request checks for those when it ends (__ad_shadow_frees_end).

static size_t slotOf(const void *P, size_t Capacity) {
  uintptr_t H = reinterpret_cast<uintptr_t>(P);
  H ^= H >> 17;
  H *= 0x9E3779B97F4A7C15u;
  return size_t(H >> 7) & (Capacity - 1);
}

/// The slot holding \p P, or the empty slot where the probe for it ends.
static size_t findFreed(const ThreadState &S, const void *P) {
  size_t I = slotOf(P, S.FreedCapacity);
  while (S.FreedShadows[I] && S.FreedShadows[I] != P)
    I = (I + 1) & (S.FreedCapacity - 1);
  return I;
}

static void insertFreed(ThreadState &S, void *P) {
  size_t I = findFreed(S, P);
  if (!S.FreedShadows[I]) {
    S.FreedShadows[I] = P;
    ++S.FreedCount;
  }
}

static void growFreed(ThreadState &S) {
  size_t OldCapacity = S.FreedCapacity;
  void **Old = S.FreedShadows;
  S.FreedCapacity = OldCapacity ? 2 * OldCapacity : 64;
  S.FreedShadows =
      static_cast<void **>(calloc(S.FreedCapacity, sizeof(void *)));
  if (!S.FreedShadows)
    __adrt_fatal("out of memory noting freed derivative storage");
  S.FreedCount = 0;
  for (size_t I = 0; I < OldCapacity; ++I)
    if (Old[I])
      insertFreed(S, Old[I]);
  free(Old);
}

extern "C" void __ad_shadow_freed(void *Shadow) {
  if (!Shadow)
    return; // free(NULL)
  ThreadState &S = __adrt_state;
  if (2 * (S.FreedCount + 1) > S.FreedCapacity)
    growFreed(S);
  insertFreed(S, Shadow);
}

extern "C" void __ad_shadow_release(void *Shadow) {
  ThreadState &S = __adrt_state;
  if (!S.FreedCount)
    return;
  size_t Mask = S.FreedCapacity - 1, I = findFreed(S, Shadow);
  if (!S.FreedShadows[I])
    return; // not freed: the block outlives the request
  free(Shadow);
  --S.FreedCount;
  // Backward-shift deletion: later members of the probe run move up, so
  // that no lookup stops early at the hole.
  for (size_t J = (I + 1) & Mask; S.FreedShadows[J]; J = (J + 1) & Mask) {
    size_t Home = slotOf(S.FreedShadows[J], S.FreedCapacity);
    if (((J - Home) & Mask) >= ((J - I) & Mask)) {
      S.FreedShadows[I] = S.FreedShadows[J];
      I = J;
    }
  }
  S.FreedShadows[I] = nullptr;
}

extern "C" size_t __ad_shadow_frees_begin(void) {
  return __adrt_state.FreedCount;
}

extern "C" void __ad_shadow_frees_end(size_t Mark) {
  ThreadState &S = __adrt_state;
  if (S.FreedCount > Mark)
    __adrt_fatal(
        "the function differentiated in reverse mode freed heap memory that "
        "its caller passed in with a shadow (a std::vector passed by "
        "reference that grew, a buffer replaced by a bigger one): the "
        "derivative with respect to what that memory held would be freed "
        "with it. Not supported: keep the reallocation out of the function "
        "(reserve the capacity of the vector and of its shadow before the "
        "call, the shadow's spare capacity zeroed), or pass memory that "
        "carries no derivative AD_CONST");
  if (!S.FreedCount && S.FreedShadows) {
    free(S.FreedShadows);
    S.FreedShadows = nullptr;
    S.FreedCapacity = 0;
  }
}

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
// x86's long double: 10 bytes of value in 16-byte elements.
extern "C" void __ad_memcpy_adjoint_f80(long double *Dst, long double *Src,
                                        size_t Bytes) {
  copyAdjoint(Dst, Src, Bytes);
}
extern "C" void __ad_memmove_adjoint_f80(long double *Dst, long double *Src,
                                         size_t Bytes) {
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

/// The globals a request's derived code uses by name, as the request
/// passes them: null-terminated (NamedGlobalChecks.cpp in the pass).
struct NamedGlobal {
  const char *Base; ///< the global
  size_t Bytes;     ///< its size
  const char *Own;  ///< its shadow in the derived code, or null (constant)
  const char *Name; ///< for the message
};

/// The table of the request running at each nesting level, on this thread,
/// and the last one any thread set: what the threads of a parallel region
/// in the derived code, which set none, go by.
static constexpr unsigned NamedLevels = 8;
static thread_local const NamedGlobal *ThreadNamed[NamedLevels];
static const NamedGlobal *LastNamed[NamedLevels];

extern "C" void __ad_named_globals_set(unsigned Level,
                                       const NamedGlobal *Table) {
  Level = Level < NamedLevels ? Level : NamedLevels - 1;
  ThreadNamed[Level] = Table;
  __atomic_store_n(&LastNamed[Level], Table, __ATOMIC_RELEASE);
}

/// A pointer derived code of nesting \p Level loaded from memory with a
/// shadow, \p Shadow next to it, must lead into a global of the request's
/// table only with the global's own shadow at the same place, and into one
/// the derived code reads as constant data not at all.
extern "C" void __ad_check_pointer_into_global(unsigned Level, const void *P,
                                               const void *Shadow) {
  Level = Level < NamedLevels ? Level : NamedLevels - 1;
  const NamedGlobal *T = ThreadNamed[Level];
  if (!T)
    T = __atomic_load_n(&LastNamed[Level], __ATOMIC_ACQUIRE);
  auto A = reinterpret_cast<uintptr_t>(P);
  for (; T && T->Base; ++T) {
    auto G = reinterpret_cast<uintptr_t>(T->Base);
    if (A < G || A - G >= T->Bytes)
      continue;
    if (T->Own && reinterpret_cast<uintptr_t>(Shadow) ==
                      reinterpret_cast<uintptr_t>(T->Own) + (A - G))
      return;
    __adrt_fatal("a pointer the differentiated code reads from memory points "
                 "into the global variable '%s', which the differentiated "
                 "code also uses by name: that memory would have two "
                 "derivatives, and the derivative would be wrong (not "
                 "supported; pass a copy of the global, or use it only "
                 "through pointers)",
                 T->Name);
  }
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
