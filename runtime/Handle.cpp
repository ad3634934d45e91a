//===- Handle.cpp - linear maps kept by __ad_linearize
//---------------------===//
//
// __ad_linearize runs f.fwd once and keeps what f.lin and f.rev read in a
// handle (ad_linear): the static tape, a runtime tape of its own, the
// shadows of heap memory f allocated and the local shadows to clear before
// each application. __ad_jvp and __ad_vjp install the handle's tape as the
// thread's, run f.lin or f.rev, and put the handle's tape back as
// __ad_linearize left it, so a handle is applied any number of times, on
// any thread (one at a time), interleaved with other handles.
//
// The caller's shadows are not known when f.fwd runs. f.fwd gets
// placeholders instead: shadow K is the address PlaceholderBase + K <<
// PlaceholderShift, which no heap, stack or code address reaches on any
// platform ADPass targets (user space ends below 2^57). Every address
// f.fwd derives from one keeps its offset; f.lin and f.rev turn a
// placeholder address read from the tape into the same offset from the
// caller's shadow (__ad_linear_rebase). The pass refuses functions whose
// f.fwd would read or write memory through such an address.
//
//===----------------------------------------------------------------------===//
#include "RuntimeState.h"
#include "ad_runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

namespace {
constexpr uintptr_t PlaceholderBase = uintptr_t(1) << 63;
constexpr unsigned PlaceholderShift = 40;
constexpr uintptr_t PlaceholderHalf = uintptr_t(1) << (PlaceholderShift - 1);

/// Memory the handle clears before each application; Owned: a heap shadow
/// it frees with itself.
struct ClearedRange {
  void *Ptr;
  size_t Bytes;
  bool Owned;
};
} // namespace

struct ADHandle {
  const char *Tag; ///< the function and its activity (the pass's string)
  void *StaticTape;
  TapeStorage Snapshot; ///< the tape as __ad_linearize left it
  TapeStorage Saved;    ///< the thread's tape while the handle's is in use
  ClearedRange *Ranges;
  size_t NumRanges, RangeCapacity;
  // Placeholders K >= NumShadows stand for shadow pointers f.fwd would
  // have read from the caller's shadow memory: at address Derived[K -
  // NumShadows] (itself a placeholder address). Each application reads
  // them into Table, after the caller's own shadows.
  size_t NumShadows;
  void **Derived;
  size_t NumDerived, DerivedCapacity;
  void **Table;
  // The loop records f.fwd pushed, in the order their blocks started: the
  // order f.lin reads them in (UnzipFwd.cpp, noteRecordOrder).
  void **Records;
  size_t NumRecords, RecordCapacity, NextRead;
  ADHandle *NextLive, *PrevLive;
};

//===--- Live handles
//------------------------------------------------------===//
// A list of the handles not yet freed, so that a freed (or never made)
// handle is reported instead of read.

static pthread_mutex_t LiveLock = PTHREAD_MUTEX_INITIALIZER;
static ADHandle *LiveHandles;

static void addLive(ADHandle *H) {
  pthread_mutex_lock(&LiveLock);
  H->PrevLive = nullptr;
  H->NextLive = LiveHandles;
  if (LiveHandles)
    LiveHandles->PrevLive = H;
  LiveHandles = H;
  pthread_mutex_unlock(&LiveLock);
}

static bool isLive(const ADHandle *H) {
  pthread_mutex_lock(&LiveLock);
  const ADHandle *P = LiveHandles;
  while (P && P != H)
    P = P->NextLive;
  pthread_mutex_unlock(&LiveLock);
  return P != nullptr;
}

/// Removes \p H from the list; false if it was not in it.
static bool removeLive(ADHandle *H) {
  pthread_mutex_lock(&LiveLock);
  ADHandle *P = LiveHandles;
  while (P && P != H)
    P = P->NextLive;
  if (P) {
    if (H->PrevLive)
      H->PrevLive->NextLive = H->NextLive;
    else
      LiveHandles = H->NextLive;
    if (H->NextLive)
      H->NextLive->PrevLive = H->PrevLive;
  }
  pthread_mutex_unlock(&LiveLock);
  return P != nullptr;
}

/// The most recently freed handles keep their (small) headers, so that
/// malloc does not give a new handle the address of one just freed: a
/// stale pointer would then pass for the new handle.
static constexpr size_t Quarantine = 64;
static ADHandle *Retired[Quarantine];
static size_t NextRetired;

static void retire(ADHandle *H) {
  pthread_mutex_lock(&LiveLock);
  ADHandle *Oldest = Retired[NextRetired];
  Retired[NextRetired] = H;
  NextRetired = (NextRetired + 1) % Quarantine;
  pthread_mutex_unlock(&LiveLock);
  free(Oldest);
}

//===--- Making a handle
//---------------------------------------------------===//

extern "C" ad_linear *__ad_linear_begin(const char *Tag, size_t TapeBytes,
                                        size_t NumShadows) {
  ADHandle *H = static_cast<ADHandle *>(calloc(1, sizeof(ADHandle)));
  size_t Rounded =
      (TapeBytes + AD_ALLOC_ALIGN - 1) & ~size_t(AD_ALLOC_ALIGN - 1);
  void *Tape =
      aligned_alloc(AD_ALLOC_ALIGN, Rounded ? Rounded : AD_ALLOC_ALIGN);
  if (!H || !Tape)
    __adrt_fatal("out of memory making a handle for %s", Tag);
  H->Tag = Tag;
  H->StaticTape = Tape;
  H->NumShadows = NumShadows;
  ThreadState &S = __adrt_state;
  if (S.Recording)
    __adrt_fatal("__ad_linearize of %s while the linearization of %s is "
                 "running: not supported",
                 Tag, S.Recording->Tag);
  S.Recording = H;
  // f.fwd pushes on the handle's (empty) tape.
  H->Saved = TapeStorage{};
  __adrt_tape_exchange(&H->Saved);
  addLive(H);
  return reinterpret_cast<ad_linear *>(H);
}

extern "C" void __ad_linear_end(ad_linear *L) {
  ADHandle *H = reinterpret_cast<ADHandle *>(L);
  __adrt_tape_exchange(&H->Saved);
  H->Snapshot = H->Saved;
  H->Saved = TapeStorage{};
  __adrt_state.Recording = nullptr;
}

extern "C" void *__ad_linear_tape(ad_linear *L) {
  return reinterpret_cast<ADHandle *>(L)->StaticTape;
}

/// Makes room for one more element in \p Array (of \p Count, room for
/// \p Capacity), for the handle made for \p Tag.
static void *grow(void *Array, size_t Count, size_t &Capacity, size_t Elem,
                  const char *Tag) {
  if (Count < Capacity)
    return Array;
  size_t Cap = Capacity ? 2 * Capacity : 16;
  void *Grown = realloc(Array, Cap * Elem);
  if (!Grown)
    __adrt_fatal("out of memory in the handle for %s", Tag);
  Capacity = Cap;
  return Grown;
}

static void noteRange(void *Ptr, size_t Bytes, bool Owned) {
  ADHandle *H = __adrt_state.Recording;
  if (!H)
    __adrt_fatal("derivative code of a handle ran outside __ad_linearize");
  H->Ranges = static_cast<ClearedRange *>(grow(
      H->Ranges, H->NumRanges, H->RangeCapacity, sizeof(ClearedRange), H->Tag));
  H->Ranges[H->NumRanges++] = ClearedRange{Ptr, Bytes, Owned};
}

extern "C" void *__ad_linear_shadow_alloc(size_t Bytes, size_t Align) {
  void *P;
  if (Align <= 16) {
    P = calloc(1, Bytes ? Bytes : 1);
  } else {
    size_t Rounded = (Bytes + Align - 1) & ~(Align - 1);
    P = aligned_alloc(Align, Rounded ? Rounded : Align);
    if (P)
      memset(P, 0, Rounded);
    Bytes = Rounded;
  }
  if (!P)
    __adrt_fatal("out of memory allocating derivative storage (%zu bytes)",
                 Bytes);
  noteRange(P, Bytes, /*Owned=*/true);
  return P;
}

extern "C" void __ad_linear_clear_on_apply(void *Ptr, size_t Bytes) {
  noteRange(Ptr, Bytes, /*Owned=*/false);
}

extern "C" unsigned long long __ad_linear_record_slot(void) {
  ADHandle *H = __adrt_state.Recording;
  if (!H)
    __adrt_fatal("derivative code of a handle ran outside __ad_linearize");
  H->Records = static_cast<void **>(grow(
      H->Records, H->NumRecords, H->RecordCapacity, sizeof(void *), H->Tag));
  H->Records[H->NumRecords] = nullptr;
  return H->NumRecords++;
}

extern "C" void __ad_linear_record_fill(unsigned long long Slot, void *Record) {
  __adrt_state.Recording->Records[Slot] = Record;
}

static void *placeholder(size_t K) {
  if (K >= (uintptr_t(1) << (63 - PlaceholderShift)))
    __adrt_fatal("too many shadow pointers in one handle");
  return reinterpret_cast<void *>(PlaceholderBase + (K << PlaceholderShift));
}

extern "C" void *__ad_linear_shadow_load(void *Addr) {
  ADHandle *H = __adrt_state.Recording;
  if (!H)
    __adrt_fatal("derivative code of a handle ran outside __ad_linearize");
  H->Derived = static_cast<void **>(grow(
      H->Derived, H->NumDerived, H->DerivedCapacity, sizeof(void *), H->Tag));
  H->Derived[H->NumDerived] = Addr;
  return placeholder(H->NumShadows + H->NumDerived++);
}

extern "C" void *__adrt_handle_read(size_t Bytes) {
  ADHandle *H = __adrt_state.Applying;
  if (H->NextRead >= H->NumRecords)
    __adrt_fatal("tape read past the last record of the handle for %s "
                 "(reading %zu bytes)",
                 H->Tag, Bytes);
  return H->Records[H->NextRead++];
}

//===--- Applying a handle
//-------------------------------------------------===//

/// The caller's \p Shadows followed by the shadow pointers f.fwd stood in
/// for with placeholders, read now from the caller's shadow memory.
static void *const *resolveShadows(ADHandle *H, void *const *Shadows) {
  if (!H->NumDerived)
    return Shadows;
  if (!H->Table) {
    H->Table = static_cast<void **>(
        malloc((H->NumShadows + H->NumDerived) * sizeof(void *)));
    if (!H->Table)
      __adrt_fatal("out of memory in the handle for %s", H->Tag);
  }
  for (size_t K = 0; K < H->NumShadows; ++K)
    H->Table[K] = Shadows[K];
  // In creation order: an address may be computed from an earlier one.
  __adrt_state.HandleShadows = H->Table;
  for (size_t K = 0; K < H->NumDerived; ++K)
    H->Table[H->NumShadows + K] =
        *static_cast<void **>(__ad_linear_rebase(H->Derived[K]));
  return H->Table;
}

static ADHandle *checkedHandle(ad_linear *L, const char *Tag,
                               const char *Marker) {
  ADHandle *H = reinterpret_cast<ADHandle *>(L);
  if (!H || !isLive(H))
    __adrt_fatal("%s of %s: the handle is not one __ad_linearize made, or "
                 "it was freed with ad_linear_free",
                 Marker, Tag);
  if (strcmp(H->Tag, Tag) != 0)
    __adrt_fatal("%s of %s: the handle was made by __ad_linearize of %s",
                 Marker, Tag, H->Tag);
  return H;
}

extern "C" void *__ad_linear_enter(ad_linear *L, const char *Tag,
                                   const char *Marker, void *const *Shadows) {
  ADHandle *H = checkedHandle(L, Tag, Marker);
  ThreadState &S = __adrt_state;
  if (S.HandleShadows)
    __adrt_fatal("%s of %s inside another application of a handle: not "
                 "supported",
                 Marker, Tag);
  H->Saved = H->Snapshot;
  __adrt_tape_exchange(&H->Saved);
  __adrt_tape_read_from_bottom();
  // Shadows of f's own memory start each application as f.fwd gave them
  // to the gradient: zero.
  for (size_t K = 0; K < H->NumRanges; ++K)
    memset(H->Ranges[K].Ptr, 0, H->Ranges[K].Bytes);
  S.HandleShadows = resolveShadows(H, Shadows);
  S.Applying = H;
  H->NextRead = 0;
  return H->StaticTape;
}

extern "C" void __ad_linear_leave(ad_linear *L) {
  ADHandle *H = reinterpret_cast<ADHandle *>(L);
  __adrt_tape_exchange(&H->Saved);
  // What f.rev popped is still there: the handle's tape stays the snapshot.
  H->Saved = TapeStorage{};
  __adrt_state.HandleShadows = nullptr;
  __adrt_state.Applying = nullptr;
}

extern "C" void *__ad_linear_rebase(void *P) {
  uintptr_t V = reinterpret_cast<uintptr_t>(P);
  if (V < PlaceholderBase - PlaceholderHalf)
    return P;
  uintptr_t K = (V - PlaceholderBase + PlaceholderHalf) >> PlaceholderShift;
  uintptr_t Offset = V - (PlaceholderBase + (K << PlaceholderShift));
  char *Shadow = static_cast<char *>(__adrt_state.HandleShadows[K]);
  return Shadow + Offset;
}

extern "C" void ad_linear_free(ad_linear *L) {
  if (!L)
    return;
  ADHandle *H = reinterpret_cast<ADHandle *>(L);
  if (!removeLive(H))
    __adrt_fatal("ad_linear_free: the handle is not one __ad_linearize "
                 "made, or it was freed already");
  __adrt_tape_free_storage(&H->Snapshot);
  for (size_t K = 0; K < H->NumRanges; ++K)
    if (H->Ranges[K].Owned)
      free(H->Ranges[K].Ptr);
  free(H->Ranges);
  free(H->Records);
  free(H->Derived);
  free(H->Table);
  free(H->StaticTape);
  retire(H);
}
