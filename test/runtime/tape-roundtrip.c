// Records of very different sizes, pushed across many chunk boundaries, come
// back in LIFO order at the address they were pushed to, with their contents
// intact; also under random interleavings of pushes and pops.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -o %t && %t

#include "ad_runtime.h"
#include "rt_check.h"

typedef struct {
  size_t Size;
  unsigned char *Ptr;
} Record;

// Mostly small residuals (as a loop body produces), some medium, a few larger
// than the first chunks and one larger than the biggest chunk.
static size_t pickSize(uint64_t *Rng, size_t I) {
  if (I == 5000)
    return (size_t)70 << 20;
  uint64_t R = rtRandom(Rng);
  switch (R % 100) {
  case 0:
    return (size_t)(100 << 10) + (size_t)(R >> 40) % (3 << 20);
  case 1:
  case 2:
  case 3:
    return 1 + (size_t)(R >> 32) % 4096;
  default:
    return (size_t)(R >> 32) % 65;
  }
}

static void push(Record *R, size_t Id, size_t Size) {
  R->Size = Size;
  R->Ptr = (unsigned char *)__ad_tape_push(Size);
  EXPECT(Size == 0 || R->Ptr, "push returned NULL");
  rtFill(R->Ptr, Id, Size);
}

static void pop(const Record *R, size_t Id) {
  unsigned char *P = (unsigned char *)__ad_tape_pop(R->Size);
  if (R->Size == 0)
    return;
  if (P != R->Ptr) {
    fprintf(stderr, "record %zu (%zu bytes) pushed at %p popped at %p\n", Id,
            R->Size, (void *)R->Ptr, (void *)P);
    exit(1);
  }
  if (!rtVerify(P, Id, R->Size)) {
    fprintf(stderr, "record %zu (%zu bytes) corrupted\n", Id, R->Size);
    exit(1);
  }
}

// Push everything, then pop everything.
static void fillAndDrain(void) {
  enum { N = 60000 };
  static Record Records[N];
  uint64_t Rng = 42;
  size_t Total = 0;
  for (size_t I = 0; I < N; ++I) {
    push(&Records[I], I, pickSize(&Rng, I));
    Total += Records[I].Size;
  }
  EXPECT(Total > ((size_t)200 << 20), "test pushes too little to cross chunks");
  for (size_t I = N; I-- > 0;)
    pop(&Records[I], I);
  EXPECT_EQ(__ad_tape_current_bytes(), 0);
}

// A random walk: the depth goes up and down across chunk boundaries many
// times, as nested loops and recursion do. Twice, so that the second run
// reuses the chunks the first one left.
static void randomWalk(uint64_t Seed) {
  enum { Max = 200000 };
  static Record Stack[Max];
  static size_t Ids[Max];
  uint64_t Rng = Seed;
  size_t Depth = 0, NextId = 0;
  for (size_t Step = 0; Step < 1000000; ++Step) {
    uint64_t R = rtRandom(&Rng);
    // Biased upwards in phases, so the depth sweeps a wide range.
    int Up = (Step / 50000) % 2 == 0 ? R % 8 < 5 : R % 8 < 3;
    if (Depth == 0 || (Up && Depth < Max)) {
      size_t Size = (size_t)(R >> 32) % 200;
      Ids[Depth] = NextId;
      push(&Stack[Depth++], NextId++, Size);
    } else {
      --Depth;
      pop(&Stack[Depth], Ids[Depth]);
    }
  }
  while (Depth > 0) {
    --Depth;
    pop(&Stack[Depth], Ids[Depth]);
  }
  EXPECT_EQ(__ad_tape_current_bytes(), 0);
}

int main(void) {
  fillAndDrain();
  randomWalk(1);
  randomWalk(2);
  // After release the tape starts from scratch and still works.
  __ad_tape_release();
  fillAndDrain();
  puts("tape-roundtrip: ok");
  return 0;
}
