// Popping back to a mark (how a checkpointed call in f.lin drops the
// records it pushed and read): every record pushed since the mark goes,
// across chunk boundaries, the records below stay and still pop, and the
// read cursor saved before comes back. A mark that is not on the tape
// aborts.
// RUN: %clang -O2 -I%inc %s %runtime -o %t && %t
// RUN: not --crash %t foreign-mark 2>&1 | FileCheck %s
// CHECK: ADPass runtime: tape mark not found
#include <ad_runtime.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, long k) {
  printf("FAIL %s at %ld\n", what, k);
  return 1;
}

static void push_many(long n, long tag) {
  for (long k = 0; k < n; ++k) {
    size_t size = 16 + (size_t)(k % 7) * 40;
    *(long *)__ad_tape_push(size) = tag + k;
  }
}

int main(int argc, char **argv) {
  for (long below = 0; below < 3; ++below) {
    void *start = __ad_tape_mark();
    push_many(below * 1000, 0);
    size_t held = __ad_tape_current_bytes();
    __ad_tape_seek(start);
    void *cursor = __ad_tape_read_position();
    void *mark = __ad_tape_mark();
    push_many(200000, 1 << 20); // several chunks above the mark
    __ad_tape_pop_to(mark);
    if (__ad_tape_current_bytes() != held)
      return fail("bytes after pop_to", below);
    __ad_tape_seek(cursor);
    if (below && *(long *)__ad_tape_read(16) != 0)
      return fail("read cursor back", below);
    for (long k = below * 1000 - 1; k >= 0; --k) {
      size_t size = 16 + (size_t)(k % 7) * 40;
      if (*(long *)__ad_tape_pop(size) != k)
        return fail("records below the mark", k);
    }
    if (__ad_tape_current_bytes() != 0)
      return fail("empty at the end", below);
  }
  // A mark taken on a tape without storage drops everything.
  __ad_tape_release();
  void *empty = __ad_tape_mark();
  push_many(5000, 0);
  __ad_tape_pop_to(empty);
  if (__ad_tape_current_bytes() != 0)
    return fail("pop_to an empty mark", 0);
  if (argc > 1 && strcmp(argv[1], "foreign-mark") == 0) {
    static char elsewhere[64];
    push_many(10, 0);
    __ad_tape_pop_to(elsewhere + 8);
  }
  printf("pop_to ok\n");
  return 0;
}
