//===- OpenMP.cpp - per-thread tapes of OpenMP parallel regions -----------===//
//
// The derivative of a `#pragma omp parallel for` runs on a team: each thread
// of f.fwd's team keeps its records on a tape of its own, and the thread
// with the same OpenMP thread number in f.rev's team pops them. OpenMP does
// not promise that thread number t is the same OS thread in both teams, so
// the tapes are kept by (region instance, thread number) in a region object,
// and exchanged with the running thread's tape while it runs its part of
// the region. The region object lives from f.fwd's fork to f.rev's; the
// caller's tape holds its address.
//
//===----------------------------------------------------------------------===//
#include "RuntimeState.h"
#include "ad_runtime.h"

#include <stdlib.h>
#include <string.h>

namespace {
/// What thread number Tid of the team keeps between the two forks.
struct RegionThread {
  TapeStorage Tape; ///< its records, while another tape is installed
  char *Static;     ///< its static tape
  bool Ran;         ///< it ran its part of f.fwd's region
};

struct Region {
  size_t StaticBytes;
  int Threads;             ///< size of f.fwd's team; 0 until a thread enters
  RegionThread *PerThread; ///< one per thread of the team
};
} // namespace

/// The per-thread entries of \p R for a team of \p Threads threads; the
/// first thread to enter allocates them.
static RegionThread *teamEntries(Region *R, int Threads) {
  RegionThread *Entries = __atomic_load_n(&R->PerThread, __ATOMIC_ACQUIRE);
  if (!Entries) {
    auto *Mine = static_cast<RegionThread *>(
        calloc(size_t(Threads), sizeof(RegionThread)));
    if (!Mine)
      __adrt_fatal("out of memory for the tapes of a parallel region");
    RegionThread *Expected = nullptr;
    if (__atomic_compare_exchange_n(&R->PerThread, &Expected, Mine, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      __atomic_store_n(&R->Threads, Threads, __ATOMIC_RELEASE);
      return Mine;
    }
    free(Mine);
    Entries = Expected;
  }
  // Entries are published before Threads: wait for the count.
  while (__atomic_load_n(&R->Threads, __ATOMIC_ACQUIRE) == 0)
    ;
  return Entries;
}

extern "C" void *__ad_omp_region_begin(size_t StaticBytes) {
  auto *R = static_cast<Region *>(calloc(1, sizeof(Region)));
  if (!R)
    __adrt_fatal("out of memory for a parallel region");
  R->StaticBytes = StaticBytes;
  return R;
}

extern "C" void *__ad_omp_region_enter(void *Handle, unsigned Level, int Tid,
                                       int Threads, int Reverse) {
  auto *R = static_cast<Region *>(Handle);
  if (!Reverse) {
    RegionThread *Entries = teamEntries(R, Threads);
    if (Threads != R->Threads || Tid < 0 || Tid >= Threads || Entries[Tid].Ran)
      __adrt_fatal("a parallel region's threads disagree on the team size "
                   "(%d and %d)",
                   Threads, R->Threads);
    RegionThread &T = Entries[Tid];
    T.Ran = true;
    size_t Bytes = (R->StaticBytes + TapeAlign - 1) & ~(TapeAlign - 1);
    T.Static = static_cast<char *>(
        aligned_alloc(TapeAlign, Bytes ? Bytes : TapeAlign));
    if (!T.Static)
      __adrt_fatal("out of memory for the tape of a parallel region");
    __adrt_tape_exchange_at(Level, &T.Tape);
    return T.Static;
  }
  if (Threads != R->Threads || Tid < 0 || Tid >= Threads)
    __adrt_fatal("the reverse pass of a parallel region runs on %d threads, "
                 "its forward pass ran on %d: they must be equal (nested "
                 "parallelism or a thread limit changed between them)",
                 Threads, R->Threads);
  RegionThread &T = R->PerThread[Tid];
  if (!T.Ran)
    __adrt_fatal("thread %d of a parallel region's reverse pass has no tape",
                 Tid);
  T.Ran = false;
  __adrt_tape_exchange_at(Level, &T.Tape);
  return T.Static;
}

extern "C" void __ad_omp_region_leave(void *Handle, unsigned Level, int Tid) {
  auto *R = static_cast<Region *>(Handle);
  __adrt_tape_exchange_at(Level, &R->PerThread[Tid].Tape);
}

extern "C" int __ad_omp_region_threads(void *Handle) {
  auto *R = static_cast<Region *>(Handle);
  if (R->Threads == 0)
    __adrt_fatal("a parallel region's reverse pass found no forward pass");
  return R->Threads;
}

extern "C" void __ad_omp_region_end(void *Handle) {
  auto *R = static_cast<Region *>(Handle);
  for (int Tid = 0; Tid < R->Threads; ++Tid) {
    RegionThread &T = R->PerThread[Tid];
    if (T.Ran)
      __adrt_fatal("thread %d of a parallel region's forward pass was not "
                   "reversed",
                   Tid);
    __adrt_tape_free_storage(&T.Tape);
    free(T.Static);
  }
  free(R->PerThread);
  free(R);
}
