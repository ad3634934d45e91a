//===- Tape.cpp - Per-thread LIFO tape for residuals ----------------------===//
//
// The forward sweep of a derivative (f.fwd) saves the values its reverse sweep
// (f.rev) will need. Inside loops and recursion their number is only known at
// run time, and f.rev consumes them in exactly the reverse order, so they go
// on a stack of byte records: __ad_tape_push / __ad_tape_pop (see
// include/ad_runtime.h and docs/design.md, "The runtime").
//
// The pass calls these once per residual record in hot loops, so the design
// is driven by the cost of that call:
//  * The fast path is a bounds compare and a pointer bump on thread-local
//    state (plus raising the high-water mark on push, which is what keeps
//    peak statistics cheap). Everything else lives in noinline cold
//    functions so that the fast path stays small.
//  * Storage is a linked list of large chunks (64 KiB, doubling up to 64 MiB,
//    then 64 MiB each). Growing never copies: records already pushed stay
//    where they are, so pointers into the tape stay valid, and a deep tape
//    costs a handful of mallocs. A record never straddles two chunks; the
//    unused tail of a chunk is skipped. Chunks above 32 MiB ask for
//    transparent huge pages (HugePages.h).
//  * Popping never frees. Chunks emptied by pops stay linked above the
//    current one and are reused by the next pushes. Three reasons: push/pop
//    oscillating around a chunk boundary must not malloc and free on every
//    iteration; a record popped from a chunk must stay readable until the
//    next push even if later pops step further down; and an optimisation
//    loop that takes the same gradient many times should pay for the tape's
//    mallocs and page faults once, not on every call. The cache is bounded:
//    when a gradient returns and the tape is empty again (__ad_tape_trim,
//    which the pass calls after f.rev), storage beyond the cache limit
//    (4 MiB unless __ad_tape_set_cache_limit or ADPASS_TAPE_CACHE says
//    otherwise) goes back to malloc, so one large gradient does not leave
//    its peak tape held by a long-running program.
//  * The state is per thread, so parallel derivatives need no locking, and a
//    thread's chunks are freed when it exits.
//
//===----------------------------------------------------------------------===//

#include "HugePages.h"
#include "RuntimeState.h"
#include "ad_runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

static_assert(TapeAlign == AD_TAPE_ALIGN, "header and runtime disagree");
static_assert(TapeLevels == AD_TAPE_LEVELS, "header and runtime disagree");
static_assert(TapeShadowRegions == AD_TAPE_SHADOW_REGIONS,
              "header and runtime disagree");

__thread ThreadState __adrt_state __attribute__((tls_model("initial-exec")));
/// The tapes of nesting levels 1 and up. Only nested derivatives use them,
/// so they take no space from the static TLS reserve.
static __thread ThreadState NestedStates[TapeLevels - 1];

static ThreadState &levelState(unsigned Level) {
  if (ADRT_LIKELY(Level == 0))
    return __adrt_state;
  if (Level >= TapeLevels)
    __adrt_fatal("tape level %u out of range: derivatives nest at most %u "
                 "levels deep through loops",
                 Level, TapeLevels);
  return NestedStates[Level - 1];
}

namespace {
constexpr size_t FirstChunkSize = size_t(64) << 10;
constexpr size_t MaxChunkSize = size_t(64) << 20;
/// Larger records cannot be real (no machine has that much memory) and would
/// overflow the size arithmetic below; they are reported as out of memory.
constexpr size_t MaxRecordSize = SIZE_MAX / 4;
} // namespace

static inline size_t alignToTape(size_t Bytes) {
  return (Bytes + TapeAlign - 1) & ~(TapeAlign - 1);
}

//===----------------------------------------------------------------------===//
// Chunks
//===----------------------------------------------------------------------===//

[[noreturn]] static void reportGrowthFailure(const ThreadState &S,
                                             size_t Record, size_t Chunk) {
  // Saturate: an absurd record size must still produce a readable message.
  size_t Held = tapeBytes(S);
  size_t Wanted = Record > SIZE_MAX - Held ? SIZE_MAX : Held + Record;
  __adrt_fatal("out of memory growing the tape to %zu bytes (could not "
               "allocate a chunk of %zu bytes)",
               Wanted, Chunk);
}

static TapeChunk *allocateChunk(const ThreadState &S, size_t Size,
                                size_t Record) {
  // Align Data explicitly instead of trusting malloc's alignment.
  size_t Bytes = sizeof(TapeChunk) + TapeAlign - 1 + Size;
  void *Raw = malloc(Bytes);
  if (!Raw)
    reportGrowthFailure(S, Record, Size);
  adviseHugePages(Raw, Bytes);
  TapeChunk *C = static_cast<TapeChunk *>(Raw);
  uintptr_t Data = reinterpret_cast<uintptr_t>(C + 1);
  Data = (Data + TapeAlign - 1) & ~uintptr_t(TapeAlign - 1);
  C->Prev = C->Next = nullptr;
  C->Data = reinterpret_cast<char *>(Data);
  C->Size = Size;
  C->SavedTop = C->Data;
  for (char *&Shadow : C->Shadows)
    Shadow = nullptr;
  return C;
}

/// The first chunk of the list \p C is in (null for an empty list).
static TapeChunk *bottomChunk(TapeChunk *C) {
  while (C && C->Prev)
    C = C->Prev;
  return C;
}

static void freeChunk(TapeChunk *C) {
  for (char *Shadow : C->Shadows)
    free(Shadow);
  free(C);
}

/// Frees the cached chunks above the current one.
static void freeChunksAbove(TapeChunk *C) {
  TapeChunk *Above = C->Next;
  C->Next = nullptr;
  while (Above) {
    TapeChunk *Next = Above->Next;
    freeChunk(Above);
    Above = Next;
  }
}

/// Frees all chunks and leaves an empty tape with no storage. Statistics
/// other than the tape bytes are kept.
static void freeAllChunks(ThreadState &S) {
  foldPeak(S);
  if (TapeChunk *C = S.Current) {
    freeChunksAbove(C);
    while (C) {
      TapeChunk *Prev = C->Prev;
      freeChunk(C);
      C = Prev;
    }
  }
  S.Current = nullptr;
  S.Top = S.Limit = S.Base = S.HighWater = nullptr;
  S.BytesBelow = 0;
}

//===----------------------------------------------------------------------===//
// Thread exit
//===----------------------------------------------------------------------===//
// `__thread` data has no destructors, so without help every thread that ever
// differentiated would leak its chunks when it exits (a thread per task adds
// up quickly). A pthread key destructor runs at thread exit, before the
// thread's TLS goes away, and frees them. It does not run for the main
// thread, whose memory goes back to the system with the process anyway.

static pthread_once_t ExitKeyOnce = PTHREAD_ONCE_INIT;
static pthread_key_t ExitKey;
static bool ExitKeyValid;

static void freeTapeAtThreadExit(void *State) {
  freeAllChunks(*static_cast<ThreadState *>(State));
  for (ThreadState &Nested : NestedStates)
    freeAllChunks(Nested);
  // The key's value is now null; a later push (from another key's destructor)
  // registers again and glibc calls us once more.
  static_cast<ThreadState *>(State)->ExitHookSet = false;
}

static void createExitKey() {
  ExitKeyValid = pthread_key_create(&ExitKey, freeTapeAtThreadExit) == 0;
}

static void registerThreadExit(ThreadState &S) {
  S.ExitHookSet = true;
  // Running out of keys only costs the cleanup, never correctness.
  pthread_once(&ExitKeyOnce, createExitKey);
  if (ExitKeyValid)
    pthread_setspecific(ExitKey, &S);
}

//===----------------------------------------------------------------------===//
// Push and pop
//===----------------------------------------------------------------------===//

/// Returns an empty chunk of at least Needed bytes to go above the current
/// one: the cached chunk there if it is big enough, else a new one.
static TapeChunk *chunkAbove(ThreadState &S, size_t Needed) {
  TapeChunk *Cached = S.Current ? S.Current->Next : nullptr;
  if (Cached && Cached->Size >= Needed)
    return Cached;

  // Doubling amortises malloc over ever more records, so a deep tape needs
  // few chunks while a shallow one stays small; the cap bounds the memory a
  // nearly empty last chunk wastes. A record larger than the cap gets a chunk
  // of its own size.
  size_t Size = S.Current ? S.Current->Size * 2 : FirstChunkSize;
  if (Size > MaxChunkSize)
    Size = MaxChunkSize;
  if (Size < Needed)
    Size = Needed;
  TapeChunk *C = allocateChunk(S, Size, Needed);
  // Level 0's state registers the cleanup of every level.
  if (!__adrt_state.ExitHookSet)
    registerThreadExit(__adrt_state);

  // A cached chunk too small for this record stays cached above the new one.
  C->Prev = S.Current;
  C->Next = Cached;
  if (Cached)
    Cached->Prev = C;
  if (S.Current)
    S.Current->Next = C;
  return C;
}

/// Puts a record that does not fit in the current chunk at the start of a
/// chunk above it.
__attribute__((noinline, cold)) static void *pushSlow(ThreadState &S,
                                                      size_t Bytes) {
  if (Bytes > MaxRecordSize)
    reportGrowthFailure(S, Bytes, Bytes);
  size_t Needed = alignToTape(Bytes);
  TapeChunk *C = chunkAbove(S, Needed);

  foldPeak(S);
  if (S.Current) {
    S.Current->SavedTop = S.Top;
    S.BytesBelow += size_t(S.Top - S.Base);
  }
  S.Current = C;
  S.Base = C->Data;
  S.Limit = C->Data + C->Size;
  S.Top = S.HighWater = S.Base + Needed;
  return S.Base;
}

/// Pops a record that is not in the current chunk: it must be on top of a
/// chunk below, because records never straddle chunks.
__attribute__((noinline, cold)) static void *popSlow(ThreadState &S,
                                                     size_t Bytes) {
  size_t Held = tapeBytes(S);
  if (Bytes > Held)
    __adrt_fatal("tape underflow: popping %zu bytes but this thread's tape "
                 "holds only %zu (more pops than pushes)",
                 Bytes, Held);
  // Bytes <= Held, and the current chunk holds fewer, so chunks with data
  // exist below. Chunks left empty (by a big record that did not fit) are
  // stepped over. The chunks left behind stay cached, and the records just
  // popped from them stay readable.
  while (S.Top == S.Base) {
    foldPeak(S);
    TapeChunk *Below = S.Current->Prev;
    S.Current = Below;
    S.Base = Below->Data;
    S.Limit = Below->Data + Below->Size;
    S.Top = S.HighWater = Below->SavedTop;
    S.BytesBelow -= size_t(S.Top - S.Base);
  }
  if (Bytes > size_t(S.Top - S.Base))
    __adrt_fatal("tape corrupted: popping %zu bytes but the record on top "
                 "of this thread's tape is smaller (pops must mirror pushes "
                 "in reverse order, with the same sizes)",
                 Bytes);
  S.Top -= alignToTape(Bytes);
  return S.Top;
}

static inline void *push(ThreadState &S, size_t Bytes) {
  char *P = S.Top;
  // Top and Limit are aligned, so comparing the unrounded size is exact, and
  // rounding cannot overflow once the size is known to fit.
  if (ADRT_LIKELY(Bytes <= size_t(S.Limit - P))) {
    char *NewTop = P + alignToTape(Bytes);
    S.Top = NewTop;
    if (NewTop > S.HighWater)
      S.HighWater = NewTop;
    return P;
  }
  return pushSlow(S, Bytes);
}

extern "C" void *__ad_tape_push(size_t Bytes) {
  return push(__adrt_state, Bytes);
}

extern "C" void *__ad_tape_push_at(unsigned Level, size_t Bytes) {
  return push(levelState(Level), Bytes);
}

static inline void *pop(ThreadState &S, size_t Bytes) {
  char *P = S.Top;
  if (ADRT_LIKELY(Bytes <= size_t(P - S.Base))) {
    P -= alignToTape(Bytes);
    S.Top = P;
    return P;
  }
  return popSlow(S, Bytes);
}

extern "C" void *__ad_tape_pop(size_t Bytes) {
  return pop(__adrt_state, Bytes);
}

extern "C" void *__ad_tape_pop_at(unsigned Level, size_t Bytes) {
  return pop(levelState(Level), Bytes);
}

/// Drops every record pushed since __ad_tape_mark returned \p Mark. A
/// checkpointed call in f.lin runs g.fwd and g.lin, which reads forwards;
/// nothing pops what g.fwd pushed, so this does.
static void popTo(ThreadState &S, void *Mark) {
  char *M = (char *)Mark;
  while (S.Current && !(M >= S.Base && M <= S.Top)) {
    TapeChunk *Below = S.Current->Prev;
    if (!Below)
      break;
    foldPeak(S);
    S.Current = Below;
    S.Base = Below->Data;
    S.Limit = Below->Data + Below->Size;
    S.Top = S.HighWater = Below->SavedTop;
    S.BytesBelow -= size_t(S.Top - S.Base);
  }
  if (S.Current && M >= S.Base && M <= S.Top)
    S.Top = M;
  else if (!M && S.Current)
    S.Top = S.Base; // the tape was empty at the mark
  else if (M)
    __adrt_fatal("tape mark not found: popping back to a position that is "
                 "not on this thread's tape");
}

extern "C" void __ad_tape_pop_to(void *Mark) { popTo(__adrt_state, Mark); }

extern "C" void __ad_tape_pop_to_at(unsigned Level, void *Mark) {
  popTo(levelState(Level), Mark);
}

//===--- Reading forwards
//--------------------------------------------------===//
//
// f.lin, the linear map in its taped form, reads loop records in the order
// f.fwd pushed them. A record never straddles chunks, so the reader moves to
// the next chunk when the next record does not fit below the end of the
// records in the current one (the top of the tape in the chunk that holds
// it, the saved top in the chunks below).

static char *recordsEnd(const ThreadState &S, const TapeChunk *C) {
  return C == S.Current ? S.Top : C->SavedTop;
}

extern "C" void *__ad_tape_mark(void) { return __adrt_state.Top; }

extern "C" void *__ad_tape_mark_at(unsigned Level) {
  return levelState(Level).Top;
}

static void seek(ThreadState &S, void *Mark) {
  TapeChunk *C = S.Current;
  // The mark's chunk is at or below the current one; an empty tape (no
  // chunk yet when the mark was taken) reads from the bottom.
  while (C && !(Mark && (char *)Mark >= C->Data &&
                (char *)Mark <= C->Data + C->Size))
    C = C->Prev;
  if (!C) {
    C = bottomChunk(S.Current);
    Mark = C ? C->Data : nullptr;
  }
  S.ReadChunk = C;
  S.ReadPos = (char *)Mark;
}

extern "C" void __ad_tape_seek(void *Mark) { seek(__adrt_state, Mark); }

extern "C" void __ad_tape_seek_at(unsigned Level, void *Mark) {
  seek(levelState(Level), Mark);
}

extern "C" void *__ad_tape_read_position(void) { return __adrt_state.ReadPos; }

extern "C" void *__ad_tape_read_position_at(unsigned Level) {
  return levelState(Level).ReadPos;
}

static void *read(ThreadState &S, size_t Bytes) {
  size_t Size = alignToTape(Bytes);
  while (S.ReadChunk && Size > size_t(recordsEnd(S, S.ReadChunk) - S.ReadPos)) {
    if (S.ReadChunk == S.Current)
      break;
    S.ReadChunk = S.ReadChunk->Next;
    S.ReadPos = S.ReadChunk->Data;
  }
  if (!S.ReadChunk || Size > size_t(recordsEnd(S, S.ReadChunk) - S.ReadPos))
    __adrt_fatal("tape read past the top: reading %zu bytes forwards, but no "
                 "record was pushed there (reads must follow the pushes "
                 "from the position __ad_tape_seek was given)",
                 Bytes);
  char *P = S.ReadPos;
  S.ReadPos += Size;
  return P;
}

extern "C" void *__ad_tape_read(size_t Bytes) {
  ThreadState &S = __adrt_state;
  if (S.Applying)
    return __adrt_handle_read(Bytes);
  return read(S, Bytes);
}

extern "C" void *__ad_tape_read_at(unsigned Level, size_t Bytes) {
  return read(levelState(Level), Bytes);
}

//===----------------------------------------------------------------------===//
// The bounded cache
//===----------------------------------------------------------------------===//

namespace {
constexpr size_t DefaultCacheLimit = size_t(4) << 20;
/// SIZE_MAX until first read: then the environment's value or the default.
size_t CacheLimit = SIZE_MAX;
pthread_once_t CacheLimitOnce = PTHREAD_ONCE_INIT;
} // namespace

static void readCacheLimitFromEnvironment() {
  // A setter called before the first trim wins over the environment.
  if (__atomic_load_n(&CacheLimit, __ATOMIC_RELAXED) != SIZE_MAX)
    return;
  size_t Limit = DefaultCacheLimit;
  if (const char *Env = getenv("ADPASS_TAPE_CACHE")) {
    char *End;
    unsigned long long V = strtoull(Env, &End, 10);
    if (End != Env && *End == '\0')
      Limit = size_t(V);
  }
  __atomic_store_n(&CacheLimit, Limit, __ATOMIC_RELAXED);
}

static size_t cacheLimit() {
  pthread_once(&CacheLimitOnce, readCacheLimitFromEnvironment);
  return __atomic_load_n(&CacheLimit, __ATOMIC_RELAXED);
}

extern "C" void __ad_tape_set_cache_limit(size_t Bytes) {
  // SIZE_MAX is the "not read yet" mark; a limit that large is no limit.
  __atomic_store_n(&CacheLimit, Bytes == SIZE_MAX ? SIZE_MAX - 1 : Bytes,
                   __ATOMIC_RELAXED);
  pthread_once(&CacheLimitOnce, readCacheLimitFromEnvironment);
}

extern "C" size_t __ad_tape_cached_bytes(void) {
  size_t Bytes = 0;
  for (const TapeChunk *C = bottomChunk(__adrt_state.Current); C; C = C->Next)
    Bytes += C->Size;
  return Bytes;
}

static bool hasShadows(const TapeChunk *C) {
  for (const char *Shadow : C->Shadows)
    if (Shadow)
      return true;
  return false;
}

static void trim(ThreadState &S) {
  // Records on the tape belong to a request still running (an outer
  // derivative of the code that made this request): its storage stays.
  if (!S.Current || tapeBytes(S) != 0)
    return;
  // Shadows of records belong to an outer derivative of the code that
  // used this tape, whose reverse pass may still read them after the inner
  // request has returned: chunks that have them stay.
  TapeChunk *Bottom = bottomChunk(S.Current);
  for (const TapeChunk *C = Bottom; C; C = C->Next)
    if (hasShadows(C))
      return;
  size_t Limit = cacheLimit();
  if (Bottom->Size > Limit) {
    freeAllChunks(S);
    return;
  }
  // Keep the chunks from the bottom up while they fit in the limit: the
  // small first chunks are the ones a small request reuses.
  foldPeak(S);
  size_t Kept = Bottom->Size;
  TapeChunk *Last = Bottom;
  while (Last->Next && Kept + Last->Next->Size <= Limit) {
    Last = Last->Next;
    Kept += Last->Size;
  }
  freeChunksAbove(Last);
  S.Current = Bottom;
  S.Base = S.Top = S.HighWater = Bottom->Data;
  S.Limit = Bottom->Data + Bottom->Size;
  S.BytesBelow = 0;
  S.ReadChunk = nullptr;
  S.ReadPos = nullptr;
}

extern "C" void __ad_tape_trim(void) {
  trim(__adrt_state);
  for (ThreadState &Nested : NestedStates)
    if (Nested.Current)
      trim(Nested);
}

//===----------------------------------------------------------------------===//
// Shadows of records
//===----------------------------------------------------------------------===//
// When derived code that uses the tape is itself differentiated, a record's
// tangent or cotangent lives at the same offset in a zero-initialised
// region of the same size as the record's chunk. Looked up by address, the
// shadow needs no bookkeeping of its own: pushes, pops and forward reads of
// one record all find the same shadow, whichever of them the outer
// derivative differentiated.

/// The chunk of \p S that holds \p P: at or below the current one, or
/// above it (a record popped from a chunk left behind stays readable).
static TapeChunk *chunkHolding(const ThreadState &S, const char *P) {
  auto Holds = [&](const TapeChunk *C) {
    return P >= C->Data && P <= C->Data + C->Size;
  };
  for (TapeChunk *C = S.Current; C; C = C->Prev)
    if (Holds(C))
      return C;
  for (TapeChunk *C = S.Current ? S.Current->Next : nullptr; C; C = C->Next)
    if (Holds(C))
      return C;
  return nullptr;
}

extern "C" void *__ad_tape_shadow(unsigned Level, void *Record,
                                  unsigned Region) {
  if (!Record)
    return nullptr; // a zero-byte record on an empty tape
  if (Region >= TapeShadowRegions)
    __adrt_fatal("tape shadow region %u out of range (at most %u)", Region,
                 TapeShadowRegions);
  ThreadState &S = levelState(Level);
  TapeChunk *C = chunkHolding(S, static_cast<char *>(Record));
  if (!C)
    __adrt_fatal("shadow of a record that is not on the tape of level %u",
                 Level);
  char *&Shadow = C->Shadows[Region];
  if (!Shadow) {
    Shadow = static_cast<char *>(calloc(C->Size ? C->Size : 1, 1));
    if (!Shadow)
      __adrt_fatal("out of memory allocating %zu bytes of tape shadow",
                   C->Size);
  }
  return Shadow + (static_cast<char *>(Record) - C->Data);
}

static void release(ThreadState &S) {
  if (tapeBytes(S) == 0)
    freeAllChunks(S);
  else
    freeChunksAbove(S.Current);
}

extern "C" void __ad_tape_release(void) {
  release(__adrt_state);
  for (ThreadState &Nested : NestedStates)
    if (Nested.Current)
      release(Nested);
}

//===----------------------------------------------------------------------===//
// Tapes of handles
//===----------------------------------------------------------------------===//
// A handle (Handle.cpp) keeps a tape of its own, which outlives the calls
// that fill and read it and may move between threads: it is exchanged with
// the thread's tape while the handle's derived code runs.

extern "C" void __adrt_tape_exchange(TapeStorage *Other) {
  __adrt_tape_exchange_at(0, Other);
}

extern "C" void __adrt_tape_exchange_at(unsigned Level, TapeStorage *Other) {
  ThreadState &S = levelState(Level);
  foldPeak(S);
  TapeStorage Mine{S.Top, S.Limit, S.Base, S.Current, S.BytesBelow};
  S.Top = S.HighWater = Other->Top;
  S.Limit = Other->Limit;
  S.Base = Other->Base;
  S.Current = Other->Current;
  S.BytesBelow = Other->BytesBelow;
  S.ReadChunk = nullptr;
  S.ReadPos = nullptr;
  *Other = Mine;
}

extern "C" void __adrt_tape_free_storage(TapeStorage *T) {
  if (TapeChunk *C = T->Current) {
    freeChunksAbove(C);
    while (C) {
      TapeChunk *Prev = C->Prev;
      freeChunk(C);
      C = Prev;
    }
  }
  *T = TapeStorage{};
}

extern "C" void __adrt_tape_read_from_bottom(void) { __ad_tape_seek(nullptr); }
