// Exact byte statistics: a tape record counts its size rounded up to 16, an
// __ad_alloc block its requested size; chunk tails and cached chunks do not
// count; the peak is the maximum of the current count since the last reset.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -o %t && %t

#include "ad_runtime.h"
#include "rt_check.h"

#define EXPECT_BYTES(Current, Peak)                                            \
  do {                                                                         \
    EXPECT_EQ(__ad_tape_current_bytes(), (Current));                           \
    EXPECT_EQ(__ad_tape_peak_bytes(), (Peak));                                 \
  } while (0)

static void smallRecords(void) {
  EXPECT_BYTES(0, 0); // A fresh thread.
  __ad_tape_push(1);
  EXPECT_BYTES(16, 16);
  __ad_tape_push(17);
  EXPECT_BYTES(48, 48);
  __ad_tape_push(0);
  EXPECT_BYTES(48, 48);
  __ad_tape_push(32);
  EXPECT_BYTES(80, 80);
  __ad_tape_pop(32);
  __ad_tape_pop(0);
  EXPECT_BYTES(48, 80);
  __ad_tape_pop(17);
  EXPECT_BYTES(16, 80);
  __ad_tape_reset_peak();
  EXPECT_BYTES(16, 16);

  // __ad_alloc counts exactly what was asked for, together with the tape.
  void *A = __ad_alloc(100);
  EXPECT_BYTES(116, 116);
  __ad_tape_push(8);
  EXPECT_BYTES(132, 132);
  __ad_tape_pop(8);
  EXPECT_BYTES(116, 132);
  void *B = __ad_alloc(1000);
  EXPECT_BYTES(1116, 1116);
  __ad_free(A);
  EXPECT_BYTES(1016, 1116);
  __ad_free(B);
  __ad_free(NULL);
  EXPECT_BYTES(16, 1116);
  __ad_tape_pop(1);
  EXPECT_BYTES(0, 1116);
  __ad_tape_reset_peak();
  EXPECT_BYTES(0, 0);
}

static void manyChunks(void) {
  // 100000 records of 24 bytes occupy 32 each, over several chunks.
  for (int I = 0; I < 100000; ++I)
    __ad_tape_push(24);
  EXPECT_BYTES(3200000, 3200000);
  // Down and up again, staying below the peak, across chunk boundaries.
  for (int I = 0; I < 60000; ++I)
    __ad_tape_pop(24);
  EXPECT_BYTES(1280000, 3200000);
  for (int I = 0; I < 50000; ++I)
    __ad_tape_push(24);
  EXPECT_BYTES(2880000, 3200000);
  // A peak reached while an array is live, then the array goes away.
  void *A = __ad_alloc(500000);
  EXPECT_BYTES(3380000, 3380000);
  for (int I = 0; I < 10000; ++I)
    __ad_tape_push(24);
  EXPECT_BYTES(3700000, 3700000);
  __ad_free(A);
  EXPECT_BYTES(3200000, 3700000);
  for (int I = 0; I < 100000; ++I)
    __ad_tape_pop(24);
  EXPECT_BYTES(0, 3700000);

  // A peak reached in a later chunk and left by popping back below it.
  __ad_tape_reset_peak();
  for (int I = 0; I < 10000; ++I)
    __ad_tape_push(100); // 112 each
  for (int I = 0; I < 10000; ++I)
    __ad_tape_pop(100);
  for (int I = 0; I < 5000; ++I)
    __ad_tape_push(100);
  EXPECT_BYTES(560000, 1120000);
  for (int I = 0; I < 5000; ++I)
    __ad_tape_pop(100);
  EXPECT_BYTES(0, 1120000);
}

static void release(void) {
  // Releasing keeps the statistics and an empty tape works as before.
  __ad_tape_reset_peak();
  __ad_tape_push(64);
  __ad_tape_release(); // Not empty: only cached chunks go.
  EXPECT_BYTES(64, 64);
  __ad_tape_pop(64);
  __ad_tape_release();
  EXPECT_BYTES(0, 64);
  __ad_tape_release(); // Twice is fine.
  unsigned char *P = (unsigned char *)__ad_tape_push(5);
  P[4] = 7;
  EXPECT_BYTES(16, 64);
  EXPECT_EQ(((unsigned char *)__ad_tape_pop(5))[4], 7);
  EXPECT_BYTES(0, 64);
}

int main(void) {
  smallRecords();
  manyChunks();
  release();
  puts("tape-stats: ok");
  return 0;
}
