// A popped record stays readable until the next push on the thread, even when
// the pops in between step down across several chunks: the reverse sweep may
// pop a group of records before it reads them. Big records make the chunks
// big enough to be mapped directly, so a chunk freed too early would make the
// reads below fault.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -o %t && %t

#include "ad_runtime.h"
#include "rt_check.h"

enum { N = 400, Size = 1 << 20 }; // 400 MiB over ~10 chunks.

int main(void) {
  static unsigned char *Pushed[N], *Popped[N];
  for (int Round = 0; Round < 2; ++Round) {
    for (size_t I = 0; I < N; ++I) {
      Pushed[I] = (unsigned char *)__ad_tape_push(Size);
      rtFill(Pushed[I], I, Size);
    }
    for (size_t I = N; I-- > 0;)
      Popped[I] = (unsigned char *)__ad_tape_pop(Size);
    for (size_t I = 0; I < N; ++I) {
      EXPECT(Popped[I] == Pushed[I], "record moved");
      EXPECT(rtVerify(Popped[I], I, Size), "popped record overwritten");
    }
  }
  puts("tape-pop-validity: ok");
  return 0;
}
