// Running out of memory is a fatal error with a message on stderr, never a
// segfault: on absurd sizes, when tape growth hits the address-space limit,
// and in __ad_alloc. The limit is set with setrlimit inside the program so
// that FileCheck and the shell keep theirs.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -o %t
// RUN: not --crash %t push-max 2>&1 | FileCheck %s --check-prefix=PUSH-MAX
// RUN: not --crash %t push-huge 2>&1 | FileCheck %s --check-prefix=PUSH-HUGE
// RUN: not --crash %t grow 2>&1 | FileCheck %s --check-prefix=GROW
// RUN: not --crash %t alloc-max 2>&1 | FileCheck %s --check-prefix=ALLOC-MAX
// RUN: not --crash %t alloc-huge 2>&1 | FileCheck %s --check-prefix=ALLOC-HUGE

// PUSH-MAX: ADPass runtime: out of memory growing the tape to
// PUSH-MAX-SAME: 18446744073709551615 bytes (could not allocate a chunk of
// PUSH-MAX-SAME: 18446744073709551615 bytes)

// PUSH-HUGE: ADPass runtime: out of memory growing the tape to 1099511627792
// PUSH-HUGE-SAME: bytes (could not allocate a chunk of 1099511627776 bytes)

// GROW: ADPass runtime: out of memory growing the tape to {{[0-9]+}} bytes
// GROW-SAME: (could not allocate a chunk of 67108864 bytes)

// ALLOC-MAX: ADPass runtime: out of memory allocating 18446744073709551615
// ALLOC-MAX-SAME: bytes of derivative storage (__ad_alloc)

// ALLOC-HUGE: ADPass runtime: out of memory allocating 1073741824 bytes of
// ALLOC-HUGE-SAME: derivative storage (__ad_alloc)

#include "ad_runtime.h"
#include "rt_check.h"

#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

int main(int Argc, char **Argv) {
  EXPECT(Argc == 2, "usage: tape-oom MODE");
  // 512 MiB of address space: plenty for the program, too little for what
  // the modes below ask for.
  struct rlimit Limit = {(rlim_t)512 << 20, (rlim_t)512 << 20};
  EXPECT(setrlimit(RLIMIT_AS, &Limit) == 0, "setrlimit failed");

  const char *Mode = Argv[1];
  if (!strcmp(Mode, "push-max")) {
    __ad_tape_push(SIZE_MAX);
  } else if (!strcmp(Mode, "push-huge")) {
    __ad_tape_push(16); // Counts in the size the tape grows to.
    __ad_tape_push((size_t)1 << 40);
  } else if (!strcmp(Mode, "grow")) {
    // Keep pushing 1 MiB records until the tape cannot grow any more.
    for (;;)
      __ad_tape_push((size_t)1 << 20);
  } else if (!strcmp(Mode, "alloc-max")) {
    __ad_alloc(SIZE_MAX);
  } else if (!strcmp(Mode, "alloc-huge")) {
    __ad_alloc((size_t)1 << 30);
  }
  fputs("reached the end without a fatal error\n", stderr);
  return 0;
}
