/*===- rt_check.h - Assertions for the runtime unit tests -------*- C -*-===*
 *
 * The runtime tests are plain C programs run by lit: a failed expectation
 * prints where and why on stderr and exits with status 1, which fails the
 * RUN line. Kept tiny so the tests need nothing but libc.
 *===----------------------------------------------------------------------===*/
#ifndef ADPASS_TEST_RT_CHECK_H
#define ADPASS_TEST_RT_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPECT(Cond, Msg)                                                      \
  do {                                                                         \
    if (!(Cond)) {                                                             \
      fprintf(stderr, "%s:%d: expected %s: %s\n", __FILE__, __LINE__, #Cond,   \
              (Msg));                                                          \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define EXPECT_EQ(Got, Want)                                                   \
  rtExpectEq((size_t)(Got), (size_t)(Want), #Got, #Want, __FILE__, __LINE__)

static inline void rtExpectEq(size_t Got, size_t Want, const char *GotExpr,
                              const char *WantExpr, const char *File,
                              int Line) {
  if (Got == Want)
    return;
  fprintf(stderr, "%s:%d: expected %s == %s, got %zu, want %zu\n", File, Line,
          GotExpr, WantExpr, Got, Want);
  exit(1);
}

#define EXPECT_ALIGNED(Ptr, Align)                                             \
  EXPECT(((uintptr_t)(Ptr) & ((Align)-1)) == 0, "pointer is misaligned")

/* A small deterministic PRNG (xorshift64*), so every run tests the same
 * sequence and a failure reproduces. */
static inline uint64_t rtRandom(uint64_t *State) {
  uint64_t X = *State;
  X ^= X >> 12;
  X ^= X << 25;
  X ^= X >> 27;
  *State = X;
  return X * 0x2545F4914F6CDD1DULL;
}

/* The byte expected at Offset of record Id: differs between records and
 * along a record, so a record that moved, was overwritten or was returned in
 * the wrong order is caught. */
static inline unsigned char rtPattern(size_t Id, size_t Offset) {
  return (unsigned char)((Id * 2654435761u) ^ (Offset * 40503u) ^
                         (Offset >> 8));
}

/* Big records are checked on a sample of offsets to keep the tests fast. */
static inline size_t rtNextOffset(size_t Offset, size_t Size) {
  return Size <= 8192 || Offset < 4096 || Offset + 4096 >= Size ? Offset + 1
                                                                : Offset + 4093;
}

static inline void rtFill(unsigned char *P, size_t Id, size_t Size) {
  for (size_t I = 0; I < Size; I = rtNextOffset(I, Size))
    P[I] = rtPattern(Id, I);
}

static inline int rtVerify(const unsigned char *P, size_t Id, size_t Size) {
  for (size_t I = 0; I < Size; I = rtNextOffset(I, Size))
    if (P[I] != rtPattern(Id, I))
      return 0;
  return 1;
}

#endif /* ADPASS_TEST_RT_CHECK_H */
