// Each nesting level has a tape of its own: records of one level never
// move the top of another, and pops see their own level's records. The
// shadow of a record is found by its address (push, pop and forward read
// of one record give the same shadow), is zero when first used, differs
// per region and per record, keeps its contents across pops and pushes of
// other records, and works across chunk boundaries. Trimming keeps chunks
// that have shadows (an outer reverse pass may still use them).
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -o %t && %t

#include "ad_runtime.h"
#include "rt_check.h"

#include <string.h>

static void levelsAreIndependent(void) {
  double *A = (double *)__ad_tape_push(sizeof(double));
  *A = 1;
  double *B = (double *)__ad_tape_push_at(1, sizeof(double));
  *B = 2;
  double *C = (double *)__ad_tape_push(sizeof(double));
  *C = 3;
  // Level 1's record is on top of its own tape, under level 0's pushes.
  EXPECT(__ad_tape_pop_at(1, sizeof(double)) == B, "level 1 pops its record");
  EXPECT(*B == 2, "level 1's record intact");
  EXPECT(__ad_tape_pop(sizeof(double)) == C, "level 0 pops its top");
  EXPECT(__ad_tape_pop(sizeof(double)) == A, "level 0 pops its first");
  EXPECT_EQ(__ad_tape_current_bytes(), 0);
}

static void shadowsFollowRecords(void) {
  enum { N = 20000 }; // 640 KB of records: several chunks
  static double *Shadow[N];
  void *Mark = __ad_tape_mark_at(2);
  for (int K = 0; K < N; K++) {
    double *R = (double *)__ad_tape_push_at(2, 2 * sizeof(double));
    R[0] = K;
    Shadow[K] = (double *)__ad_tape_shadow(2, R, 1);
    EXPECT(Shadow[K] != (double *)R, "a shadow is not its record");
    EXPECT(Shadow[K][0] == 0 && Shadow[K][1] == 0, "a new shadow is zero");
    EXPECT(__ad_tape_shadow(2, &R[1], 1) == &Shadow[K][1],
           "an address inside a record has the shadow at that offset");
    EXPECT(__ad_tape_shadow(2, R, 2) != Shadow[K], "regions differ");
    Shadow[K][0] = K + 0.5;
  }
  __ad_tape_seek_at(2, Mark);
  for (int K = 0; K < N; K++) {
    double *R = (double *)__ad_tape_read_at(2, 2 * sizeof(double));
    EXPECT(R[0] == K, "forward reads see the records");
    EXPECT(__ad_tape_shadow(2, R, 1) == Shadow[K], "a read finds the shadow");
  }
  for (int K = N - 1; K >= 0; K--) {
    double *R = (double *)__ad_tape_pop_at(2, 2 * sizeof(double));
    EXPECT(R[0] == K, "pops see the records");
    double *S = (double *)__ad_tape_shadow(2, R, 1);
    EXPECT(S == Shadow[K], "a pop finds the push's shadow");
    EXPECT(S[0] == K + 0.5, "the shadow keeps what was written");
    S[0] = 0;
  }
  EXPECT(__ad_tape_shadow(0, NULL, 1) == NULL, "no shadow of null");
  // The chunks of level 2 have shadows: trimming keeps them.
  __ad_tape_trim();
  double *R = (double *)__ad_tape_push_at(2, 2 * sizeof(double));
  EXPECT(__ad_tape_shadow(2, R, 1) == Shadow[0], "trim kept the shadows");
  __ad_tape_pop_at(2, 2 * sizeof(double));
  __ad_tape_release();
}

int main(void) {
  levelsAreIndependent();
  shadowsFollowRecords();
  return 0;
}
