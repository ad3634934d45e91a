// Each thread has its own tape and statistics: threads pushing and popping at
// the same time never see each other's records or bytes, and a thread that
// exits while its tape still holds records does not disturb the others.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -lpthread -o %t && %t

#include "ad_runtime.h"
#include "rt_check.h"

#include <pthread.h>

enum { NumThreads = 4, NumRecords = 20000, Rounds = 3 };

static pthread_barrier_t Barrier;

typedef struct {
  size_t Index;
  size_t Expected; // Bytes this thread holds at the barrier.
  int Ok;
} Worker;

static size_t recordSize(size_t Thread, size_t I) {
  return 1 + (Thread * 37 + I * 13) % (64 + 48 * Thread);
}

static size_t recordId(size_t Thread, size_t Round, size_t I) {
  return (Thread * Rounds + Round) * NumRecords + I;
}

static void *work(void *Arg) {
  Worker *W = (Worker *)Arg;
  size_t T = W->Index;
  for (size_t Round = 0; Round < Rounds; ++Round) {
    size_t Bytes = 0;
    for (size_t I = 0; I < NumRecords; ++I) {
      size_t Size = recordSize(T, I);
      rtFill((unsigned char *)__ad_tape_push(Size), recordId(T, Round, I),
             Size);
      Bytes += (Size + 15) / 16 * 16;
    }
    W->Expected = Bytes;
    // All threads hold their full tapes here at the same time.
    pthread_barrier_wait(&Barrier);
    EXPECT_EQ(__ad_tape_current_bytes(), Bytes);
    EXPECT_EQ(__ad_tape_peak_bytes(), Bytes);
    pthread_barrier_wait(&Barrier);
    for (size_t I = NumRecords; I-- > 0;) {
      size_t Size = recordSize(T, I);
      if (!rtVerify((unsigned char *)__ad_tape_pop(Size), recordId(T, Round, I),
                    Size)) {
        // Exit the whole process: returning would leave the other threads
        // waiting at the barrier forever.
        fprintf(stderr, "thread %zu: record %zu corrupted\n", T, I);
        exit(1);
      }
    }
    EXPECT_EQ(__ad_tape_current_bytes(), 0);
    __ad_tape_reset_peak();
  }
  W->Ok = 1;
  return NULL;
}

// Leaves records on its tape and exits: the exit cleanup frees them.
static void *leaveRecords(void *Arg) {
  (void)Arg;
  for (int I = 0; I < 50000; ++I)
    __ad_tape_push(40);
  return NULL;
}

int main(void) {
  // The main thread's own tape is untouched by the workers.
  rtFill((unsigned char *)__ad_tape_push(48), 999, 48);
  __ad_tape_reset_peak();

  pthread_t Threads[NumThreads];
  Worker Workers[NumThreads];
  pthread_barrier_init(&Barrier, NULL, NumThreads + 1);
  for (size_t T = 0; T < NumThreads; ++T) {
    Workers[T].Index = T;
    Workers[T].Ok = 0;
    EXPECT(pthread_create(&Threads[T], NULL, work, &Workers[T]) == 0,
           "pthread_create failed");
  }
  for (size_t Round = 0; Round < Rounds; ++Round) {
    pthread_barrier_wait(&Barrier);
    EXPECT_EQ(__ad_tape_current_bytes(), 48);
    pthread_barrier_wait(&Barrier);
  }
  for (size_t T = 0; T < NumThreads; ++T) {
    pthread_join(Threads[T], NULL);
    EXPECT(Workers[T].Ok, "a worker thread failed");
  }

  for (int I = 0; I < 20; ++I) {
    pthread_t T;
    EXPECT(pthread_create(&T, NULL, leaveRecords, NULL) == 0,
           "pthread_create failed");
    pthread_join(T, NULL);
  }

  EXPECT_EQ(__ad_tape_current_bytes(), 48);
  EXPECT_EQ(__ad_tape_peak_bytes(), 48);
  EXPECT(rtVerify((unsigned char *)__ad_tape_pop(48), 999, 48),
         "main thread's record corrupted");
  puts("tape-threads: ok");
  return 0;
}
