//===- Alloc.cpp - Checked arrays for per-loop residuals ------------------===//
//
// When ScalarEvolution knows a loop's trip count before the loop runs, the
// pass stores that loop's residuals in arrays of trip-count elements instead
// of on the tape: the reverse loop then indexes them directly and can be
// vectorised. __ad_alloc / __ad_free provide those arrays.
//
// They differ from malloc/free in three ways, each for a reason:
//  * Failure is fatal with a clear message, like tape growth, because
//    generated code has no way to report an error to the user.
//  * Blocks are aligned to a cache line (AD_ALLOC_ALIGN) so that vectorised
//    reverse loops can use aligned accesses.
//  * The bytes count in the calling thread's statistics together with the
//    tape, so that "peak derivative memory" means the same whichever storage
//    the pass chose.
//  * Large blocks ask for transparent huge pages (HugePages.h).
//
//===----------------------------------------------------------------------===//

#include "HugePages.h"
#include "RuntimeState.h"
#include "ad_runtime.h"

#include <stdint.h>
#include <stdlib.h>

namespace {
constexpr size_t AllocAlign = AD_ALLOC_ALIGN;

/// Stored just below each block: what free() needs and what statistics
/// subtract.
struct BlockHeader {
  void *Raw;   ///< The pointer malloc returned.
  size_t Size; ///< The bytes requested.
};

constexpr size_t Overhead = sizeof(BlockHeader) + AllocAlign - 1;
} // namespace

extern "C" void *__ad_alloc(size_t Bytes) {
  void *Raw = Bytes <= SIZE_MAX - Overhead ? malloc(Bytes + Overhead) : nullptr;
  if (!Raw)
    __adrt_fatal("out of memory allocating %zu bytes of derivative storage "
                 "(__ad_alloc)",
                 Bytes);
  adviseHugePages(Raw, Bytes + Overhead);
  uintptr_t Block = reinterpret_cast<uintptr_t>(Raw) + sizeof(BlockHeader);
  Block = (Block + AllocAlign - 1) & ~uintptr_t(AllocAlign - 1);
  BlockHeader *H = reinterpret_cast<BlockHeader *>(Block) - 1;
  H->Raw = Raw;
  H->Size = Bytes;

  ThreadState &S = __adrt_state;
  foldPeak(S);
  S.AllocBytes += Bytes;
  return reinterpret_cast<void *>(Block);
}

extern "C" void __ad_free(void *Ptr) {
  if (!Ptr)
    return;
  BlockHeader *H = static_cast<BlockHeader *>(Ptr) - 1;
  ThreadState &S = __adrt_state;
  foldPeak(S);
  // A block freed by another thread than the one that allocated it would
  // drive this thread's count below zero; statistics are per thread, so
  // clamp rather than wrap around.
  S.AllocBytes -= H->Size < S.AllocBytes ? H->Size : S.AllocBytes;
  free(H->Raw);
}
