// The bounded cache (__ad_tape_trim): once the tape is empty, storage beyond
// the cache limit goes back to malloc, keeping the smallest chunks; with
// records on the tape (an outer derivative still running) nothing is freed;
// the limit comes from ADPASS_TAPE_CACHE or __ad_tape_set_cache_limit.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -lpthread -o %t
// RUN: %t default
// RUN: env ADPASS_TAPE_CACHE=0 %t env-zero
// RUN: env ADPASS_TAPE_CACHE=100000000 %t env-large

#include "ad_runtime.h"
#include "rt_check.h"

#include <string.h>

enum { Record = 1024, Records = 40 * 1024 }; // 40 MiB of records

static void fill(void) {
  for (int I = 0; I < Records; ++I)
    memset(__ad_tape_push(Record), I & 0xff, Record);
}

static void drain(void) {
  for (int I = Records - 1; I >= 0; --I) {
    unsigned char *P = __ad_tape_pop(Record);
    EXPECT(P[0] == (unsigned char)(I & 0xff), "records survive trims");
  }
}

int main(int argc, char **argv) {
  const char *Mode = argc > 1 ? argv[1] : "default";
  const size_t MiB = (size_t)1 << 20;

  fill();
  size_t Held = __ad_tape_cached_bytes();
  EXPECT(Held >= (size_t)Records * Record, "the records are held");
  // Not empty: a trim frees nothing.
  __ad_tape_trim();
  EXPECT_EQ(__ad_tape_cached_bytes(), Held);
  drain();
  EXPECT_EQ(__ad_tape_cached_bytes(), Held); // pops never free
  __ad_tape_trim();
  size_t Kept = __ad_tape_cached_bytes();

  if (!strcmp(Mode, "default")) {
    EXPECT(Kept > 0 && Kept <= 4 * MiB, "4 MiB cache by default");
    // The tape works again after a trim, and a second fill and drain
    // reuses and regrows storage.
    fill();
    drain();
    __ad_tape_trim();
    EXPECT_EQ(__ad_tape_cached_bytes(), Kept);
    // The setter wins over the default; 0 keeps nothing.
    __ad_tape_set_cache_limit(0);
    fill();
    drain();
    __ad_tape_trim();
    EXPECT_EQ(__ad_tape_cached_bytes(), 0);
    fill();
    drain();
    __ad_tape_set_cache_limit(16 * MiB);
    __ad_tape_trim();
    EXPECT(__ad_tape_cached_bytes() <= 16 * MiB, "settable limit");
    EXPECT(__ad_tape_cached_bytes() > 4 * MiB, "settable limit is used");
  } else if (!strcmp(Mode, "env-zero")) {
    EXPECT_EQ(Kept, 0);
  } else {
    EXPECT_EQ(Kept, Held); // 100 MB: everything fits in the cache
  }
  EXPECT_EQ(__ad_tape_current_bytes(), 0);
  puts("ok");
  return 0;
}
