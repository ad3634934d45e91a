//===- Report.cpp - What the runtime tells the program --------------------===//
//
// Statistics (bytes held now and at the peak, per thread) for tests and
// benchmarks, and the fatal error path shared by the tape and the arrays.
//
// Errors are fatal because the code that calls the runtime is generated:
// there is no caller that could handle an error code, and carrying on after
// running out of memory or popping a tape past its bottom would only turn a
// clear message into a segfault or a wrong derivative.
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"
#include "ad_runtime.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

extern "C" size_t __ad_tape_current_bytes(void) {
  const ThreadState &S = __adrt_state;
  return tapeBytes(S) + S.AllocBytes;
}

extern "C" size_t __ad_tape_peak_bytes(void) {
  return unfoldedPeak(__adrt_state);
}

extern "C" void __ad_tape_reset_peak(void) {
  ThreadState &S = __adrt_state;
  S.FoldedPeak = tapeBytes(S) + S.AllocBytes;
  S.HighWater = S.Top;
}

//===----------------------------------------------------------------------===//
// Fatal errors
//===----------------------------------------------------------------------===//

static void writeAll(int FD, const char *Buf, size_t Len) {
  while (Len > 0) {
    ssize_t N = write(FD, Buf, Len);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return;
    Buf += N;
    Len -= size_t(N);
  }
}

extern "C" void __adrt_fatal(const char *Fmt, ...) {
  // Format into a stack buffer and write(2) it: this runs when malloc has
  // just failed, so nothing here may allocate (stdio buffering could).
  static const char Prefix[] = "ADPass runtime: ";
  char Buf[512];
  size_t Len = sizeof(Prefix) - 1;
  memcpy(Buf, Prefix, Len);
  size_t Room = sizeof(Buf) - Len - 1; // Keeps a byte for the newline.
  va_list Args;
  va_start(Args, Fmt);
  int N = vsnprintf(Buf + Len, Room, Fmt, Args);
  va_end(Args);
  if (N > 0)
    Len += size_t(N) < Room ? size_t(N) : Room - 1; // Truncated if too long.
  Buf[Len++] = '\n';
  writeAll(STDERR_FILENO, Buf, Len);
  abort();
}
