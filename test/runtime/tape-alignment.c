// Every tape record is 16-byte aligned, whatever the sizes before it, at chunk
// starts too, on push and on pop; __ad_alloc blocks are 64-byte aligned.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -o %t && %t

#include "ad_runtime.h"
#include "rt_check.h"

int main(void) {
  EXPECT_EQ(AD_TAPE_ALIGN, 16);
  EXPECT_EQ(AD_ALLOC_ALIGN, 64);

  // Odd sizes 1..N, enough of them to cross several chunks.
  enum { N = 3000 };
  static void *Ptrs[N + 1];
  for (size_t Size = 1; Size <= N; ++Size) {
    Ptrs[Size] = __ad_tape_push(Size);
    EXPECT_ALIGNED(Ptrs[Size], AD_TAPE_ALIGN);
    // The last byte is usable: the record really is Size bytes long.
    ((unsigned char *)Ptrs[Size])[Size - 1] = (unsigned char)Size;
  }
  for (size_t Size = N; Size >= 1; --Size) {
    void *P = __ad_tape_pop(Size);
    EXPECT(P == Ptrs[Size], "pop returned another address than push");
    EXPECT_ALIGNED(P, AD_TAPE_ALIGN);
    EXPECT_EQ(((unsigned char *)P)[Size - 1], (unsigned char)Size);
  }

  // A long run of 1-byte records: each takes the next 16-byte slot, except
  // where a new chunk starts (1.6 MB of records span only a few chunks).
  unsigned char *Prev = (unsigned char *)__ad_tape_push(1);
  int Jumps = 0;
  for (int I = 0; I < 100000; ++I) {
    unsigned char *P = (unsigned char *)__ad_tape_push(1);
    EXPECT_ALIGNED(P, AD_TAPE_ALIGN);
    EXPECT(P <= Prev || P >= Prev + 16, "records overlap");
    Jumps += P != Prev + 16;
    Prev = P;
  }
  EXPECT(Jumps >= 1 && Jumps <= 10, "records are not packed in large chunks");
  for (int I = 0; I <= 100000; ++I)
    EXPECT_ALIGNED(__ad_tape_pop(1), AD_TAPE_ALIGN);

  for (size_t Size = 0; Size < 300; ++Size) {
    void *P = __ad_alloc(Size * 7);
    EXPECT_ALIGNED(P, AD_ALLOC_ALIGN);
    __ad_free(P);
  }
  puts("tape-alignment: ok");
  return 0;
}
