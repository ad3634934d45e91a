// Forward reading (how f.lin reads loop records): after a mark, records are
// read back in push order, across chunk boundaries, without disturbing the
// tape; then they still pop in reverse. Reading past the top aborts.
// RUN: %clang -O2 -I%inc %s %runtime -o %t && %t
// RUN: not --crash %t past-top 2>&1 | FileCheck %s
// CHECK: ADPass runtime: tape read past the top
#include <ad_runtime.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, long k) {
  printf("FAIL %s at %ld\n", what, k);
  return 1;
}

int main(int argc, char **argv) {
  // Something below the mark that reads must not see.
  *(long *)__ad_tape_push(sizeof(long)) = -1;
  void *mark = __ad_tape_mark();
  const long n = 300000; // several 64 KiB.. chunks; sizes vary
  for (long k = 0; k < n; ++k) {
    size_t size = 16 + (size_t)(k % 5) * 24;
    long *rec = (long *)__ad_tape_push(size);
    rec[0] = k;
    rec[size / sizeof(long) - 1] = ~k;
  }
  size_t before = __ad_tape_current_bytes();
  __ad_tape_seek(mark);
  for (long k = 0; k < n; ++k) {
    size_t size = 16 + (size_t)(k % 5) * 24;
    long *rec = (long *)__ad_tape_read(size);
    if (rec[0] != k || rec[size / sizeof(long) - 1] != ~k)
      return fail("forward read", k);
  }
  if (__ad_tape_current_bytes() != before)
    return fail("reads changed the tape", 0);
  if (argc > 1 && strcmp(argv[1], "past-top") == 0)
    __ad_tape_read(8);
  for (long k = n - 1; k >= 0; --k) {
    size_t size = 16 + (size_t)(k % 5) * 24;
    long *rec = (long *)__ad_tape_pop(size);
    if (rec[0] != k)
      return fail("pop after reads", k);
  }
  if (*(long *)__ad_tape_pop(sizeof(long)) != -1)
    return fail("record below the mark", 0);
  // A mark on an empty tape reads from the bottom.
  __ad_tape_release();
  void *empty = __ad_tape_mark();
  *(double *)__ad_tape_push(8) = 2.5;
  __ad_tape_seek(empty);
  if (*(double *)__ad_tape_read(8) != 2.5)
    return fail("read from an empty mark", 0);
  __ad_tape_pop(8);
  printf("forward reads ok\n");
  return 0;
}
