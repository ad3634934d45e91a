//===- RuntimeState.h - Per-thread state of libADRuntime --------*- C++ -*-===//
//
// The one piece of state the runtime has: a plain struct per thread, shared by
// the tape (Tape.cpp), the loop arrays (Alloc.cpp) and the statistics
// (Report.cpp). Internal; the public API is include/ad_runtime.h.
//
// Constraints that shape this file:
//  * The library must link into C programs without libstdc++, so the state is
//    POD in `__thread` storage: zero-initialised by the loader, no
//    constructor, no destructor, no TLS wrapper functions (which C++
//    `thread_local` would emit for an extern variable). Thread exit is
//    handled with a pthread key instead (Tape.cpp).
//  * Symbols shared between the files have C linkage and a reserved prefix,
//    so that `nm -u` on the archive shows no mangled (C++) names at all, and
//    hidden visibility, so they do not leak out of a shared object that
//    happens to link the archive.
//
//===----------------------------------------------------------------------===//

#ifndef ADPASS_RUNTIME_RUNTIMESTATE_H
#define ADPASS_RUNTIME_RUNTIMESTATE_H

#include <stddef.h>

#define ADRT_HIDDEN __attribute__((visibility("hidden")))
#define ADRT_LIKELY(X) __builtin_expect(!!(X), 1)

/// Alignment of tape records (AD_TAPE_ALIGN in the public header).
static constexpr size_t TapeAlign = 16;

/// Nesting levels with a tape of their own: derived code built for requests
/// of nesting level L uses tape L, so that an outer derivative's records
/// never land between the pushes and pops of the inner derived code it
/// differentiates (AD_TAPE_LEVELS in the public header).
static constexpr unsigned TapeLevels = 8;

/// Shadow regions of a chunk: the tangent or cotangent storage of its
/// records when derived code that uses the tape is differentiated again
/// (AD_TAPE_SHADOW_REGIONS in the public header).
static constexpr unsigned TapeShadowRegions = 27;

/// Header of one block of tape storage. Chunks form a doubly linked list: the
/// ones below the current chunk hold records, the ones above it are empty and
/// cached for the next growth.
struct TapeChunk {
  TapeChunk *Prev; ///< The chunk below, or null for the first.
  TapeChunk *Next; ///< The (empty) chunk above, or null.
  char *Data;      ///< First usable byte, aligned to TapeAlign.
  size_t Size;     ///< Usable bytes from Data on (a multiple of TapeAlign).
  char *SavedTop;  ///< Top of this chunk while a chunk above it is in use.
  /// Zero-initialised storage of Size bytes per shadow region, allocated on
  /// first use: the shadow of the record at Data + K is Shadows[R] + K.
  char *Shadows[TapeShadowRegions];
};

/// Everything the runtime knows about one thread. All zero at thread start,
/// which is a valid empty tape (no chunk: the first push allocates one).
struct ThreadState {
  // Hot: read by every push and pop. Invariant: Base <= Top <= Limit and,
  // since records are whole multiples of TapeAlign, all three are aligned.
  char *Top;       ///< Next free byte in the current chunk.
  char *Limit;     ///< End of the current chunk's usable bytes.
  char *Base;      ///< Data of the current chunk.
  char *HighWater; ///< Highest Top in the current chunk since the last fold.

  // Cold: touched only on the slow paths.
  TapeChunk *Current; ///< Chunk holding Top, or null before the first push.
  size_t BytesBelow;  ///< Tape bytes in the chunks below Current.
  size_t AllocBytes;  ///< Bytes in live __ad_alloc blocks.
  size_t FoldedPeak;  ///< Peak of the byte count up to the last fold.
  bool ExitHookSet;   ///< The thread-exit cleanup is registered.
  // Forward reading (__ad_tape_seek / __ad_tape_read): where the next read
  // starts.
  TapeChunk *ReadChunk;
  char *ReadPos;
  // Shadows of heap memory the primal code freed, which the reverse pass
  // frees when it walks back past their allocation (ShadowMemory.cpp): an
  // open-addressing set of pointers, null for an empty slot.
  void **FreedShadows;
  size_t FreedCapacity; ///< Slots; 0 or a power of two.
  size_t FreedCount;    ///< Pointers in the set.
  // Handles (Handle.cpp): the handle whose f.fwd is running (its heap
  // shadows and local shadows are noted on it), and the shadows the
  // caller of __ad_jvp / __ad_vjp passed, which stand in for the
  // placeholder shadow addresses f.fwd put on the handle's tape.
  struct ADHandle *Recording;
  void *const *HandleShadows;
  struct ADHandle *Applying; ///< its f.lin reads records in its order
};

/// The storage of one tape, as ThreadState holds it: what a handle keeps of
/// its own tape while it is not installed (Handle.cpp).
struct TapeStorage {
  char *Top, *Limit, *Base;
  TapeChunk *Current;
  size_t BytesBelow;
};

extern "C" {
/// Exchanges this thread's tape with \p Other: pushes, pops and reads then
/// work on the tape \p Other held, until the next exchange (Tape.cpp).
ADRT_HIDDEN void __adrt_tape_exchange(TapeStorage *Other);
/// The same for the tape of nesting level \p Level.
ADRT_HIDDEN void __adrt_tape_exchange_at(unsigned Level, TapeStorage *Other);
/// Frees every chunk of a tape that is not installed.
ADRT_HIDDEN void __adrt_tape_free_storage(TapeStorage *T);
/// __ad_tape_read while a handle is applied: the handle's next record.
ADRT_HIDDEN void *__adrt_handle_read(size_t Bytes);
/// Puts this thread's read cursor at the first record of its tape.
ADRT_HIDDEN void __adrt_tape_read_from_bottom(void);

/// This thread's state. The initial-exec TLS model makes every access one
/// %fs-relative load with no call to __tls_get_addr, which matters on the
/// push/pop fast path. Its cost: a shared object that links this archive and
/// is loaded with dlopen takes the state (a few dozen bytes) from the C
/// library's static TLS reserve.
ADRT_HIDDEN extern __thread ThreadState __adrt_state
    __attribute__((tls_model("initial-exec")));

/// Prints "ADPass runtime: " and the formatted message on stderr, then aborts.
[[noreturn]] ADRT_HIDDEN void __adrt_fatal(const char *Fmt, ...)
    __attribute__((cold, noinline, format(printf, 1, 2)));
}

/// Bytes of tape records on this thread.
static inline size_t tapeBytes(const ThreadState &S) {
  return S.BytesBelow + size_t(S.Top - S.Base);
}

/// Peak tracking is lazy so that a push only has to raise HighWater: the peak
/// is FoldedPeak or what HighWater stands for, whichever is larger. Anything
/// that changes the byte count other than a push or pop inside the current
/// chunk (changing chunk, __ad_alloc, __ad_free) folds first, so that the
/// high water is measured against the state it was reached in.
static inline size_t unfoldedPeak(const ThreadState &S) {
  size_t HighWaterBytes = S.BytesBelow + size_t(S.HighWater - S.Base);
  size_t Peak = HighWaterBytes + S.AllocBytes;
  return Peak > S.FoldedPeak ? Peak : S.FoldedPeak;
}

static inline void foldPeak(ThreadState &S) {
  S.FoldedPeak = unfoldedPeak(S);
  S.HighWater = S.Top;
}

#endif // ADPASS_RUNTIME_RUNTIMESTATE_H
