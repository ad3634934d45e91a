// How the tape uses the heap, observed by wrapping malloc/free/realloc at link
// time (the runtime's own calls go through the wrappers):
//  * storage grows in large chunks, never by realloc;
//  * pops free nothing: filling the tape a second time, or push/pop
//    oscillating across a chunk boundary, does not malloc or free;
//  * __ad_tape_release frees the cached chunks, and everything when the tape
//    is empty;
//  * a thread's chunks are freed when it exits, even with records left.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -lpthread \
// RUN:   -Wl,--wrap=malloc -Wl,--wrap=free -Wl,--wrap=realloc -o %t && %t

#include "ad_runtime.h"
#include "rt_check.h"

#include <pthread.h>

static long Mallocs, Frees, Reallocs;

void *__real_malloc(size_t);
void __real_free(void *);
void *__real_realloc(void *, size_t);

void *__wrap_malloc(size_t Size) {
  __atomic_add_fetch(&Mallocs, 1, __ATOMIC_RELAXED);
  return __real_malloc(Size);
}

void __wrap_free(void *Ptr) {
  if (Ptr)
    __atomic_add_fetch(&Frees, 1, __ATOMIC_RELAXED);
  __real_free(Ptr);
}

void *__wrap_realloc(void *Ptr, size_t Size) {
  __atomic_add_fetch(&Reallocs, 1, __ATOMIC_RELAXED);
  return __real_realloc(Ptr, Size);
}

static long live(void) {
  return __atomic_load_n(&Mallocs, __ATOMIC_RELAXED) -
         __atomic_load_n(&Frees, __ATOMIC_RELAXED);
}

static void fill(int N, size_t Size) {
  for (int I = 0; I < N; ++I)
    __ad_tape_push(Size);
}

static void drain(int N, size_t Size) {
  for (int I = 0; I < N; ++I)
    __ad_tape_pop(Size);
}

static void largeChunks(void) {
  // 256 MiB in 1 KiB records: a few dozen chunks at most, no realloc.
  long Before = Mallocs;
  fill(256 * 1024, 1024);
  long Chunks = Mallocs - Before;
  EXPECT(Chunks >= 2 && Chunks <= 20, "tape does not grow in large chunks");
  EXPECT_EQ(Reallocs, 0);
  drain(256 * 1024, 1024);
  EXPECT_EQ(Frees, 0);

  // The same derivative again: the cached chunks serve it.
  fill(256 * 1024, 1024);
  drain(256 * 1024, 1024);
  EXPECT_EQ(Mallocs - Before, Chunks);
  EXPECT_EQ(Frees, 0);

  // Release with records on the tape frees only the chunks above the top.
  fill(1000, 1024);
  __ad_tape_release();
  EXPECT(live() >= 1 && live() < Chunks, "release freed too much or nothing");
  drain(1000, 1024);
  __ad_tape_release();
  EXPECT_EQ(live(), 0);
}

static void oscillation(void) {
  // Fill with 16-byte records until one lands in a new chunk: the chunk below
  // is then exactly full.
  unsigned char *Prev = (unsigned char *)__ad_tape_push(16);
  size_t Count = 1;
  for (;;) {
    unsigned char *P = (unsigned char *)__ad_tape_push(16);
    ++Count;
    if (P != Prev + 16)
      break;
    Prev = P;
  }
  // Back into the lower chunk, leaving one free slot at its end.
  __ad_tape_pop(16);
  __ad_tape_pop(16);
  Count -= 2;

  long Mallocs0 = Mallocs, Frees0 = Frees;
  for (int I = 0; I < 100000; ++I) {
    __ad_tape_push(16); // Fills the lower chunk.
    __ad_tape_push(16); // Needs the chunk above.
    __ad_tape_pop(16);
    __ad_tape_pop(16); // Back below the boundary.
  }
  EXPECT(Mallocs - Mallocs0 <= 1, "oscillation at a chunk boundary mallocs");
  EXPECT_EQ(Frees - Frees0, 0);

  while (Count-- > 0)
    __ad_tape_pop(16);
  __ad_tape_release();
  EXPECT_EQ(live(), 0);
}

static void *leaveRecords(void *Arg) {
  (void)Arg;
  for (int I = 0; I < 100000; ++I) // ~3 MB over several chunks.
    __ad_tape_push(24);
  return NULL;
}

static void *popEverything(void *Arg) {
  (void)Arg;
  for (int I = 0; I < 100000; ++I)
    __ad_tape_push(24);
  for (int I = 0; I < 100000; ++I)
    __ad_tape_pop(24);
  return NULL; // Empty tape, its chunks still cached.
}

static void threadExit(void) {
  long Before = live();
  for (int I = 0; I < 10; ++I) {
    pthread_t T;
    EXPECT(pthread_create(&T, NULL, I % 2 ? leaveRecords : popEverything,
                          NULL) == 0,
           "pthread_create failed");
    pthread_join(T, NULL);
  }
  EXPECT_EQ(live(), Before);
}

int main(void) {
  largeChunks();
  oscillation();
  threadExit();
  EXPECT_EQ(Reallocs, 0);
  puts("tape-chunks: ok");
  return 0;
}
