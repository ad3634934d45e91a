// Popping more than was pushed is a fatal error with a message, not a crash
// somewhere else later. So is a pop whose size visibly does not match the
// record on top of the tape.
//
// RUN: %clang -O2 -I%inc -I%S/Inputs %s %runtime -o %t
// RUN: not --crash %t empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not --crash %t extra 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not --crash %t larger 2>&1 | FileCheck %s --check-prefix=LARGER
// RUN: not --crash %t mismatch 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: %t none

// EMPTY: ADPass runtime: tape underflow: popping 8 bytes but this thread's
// EMPTY-SAME: tape holds only 0 (more pops than pushes)

// EXTRA: ADPass runtime: tape underflow: popping 16 bytes but this thread's
// EXTRA-SAME: tape holds only 0 (more pops than pushes)

// LARGER: ADPass runtime: tape underflow: popping 1000 bytes but this
// LARGER-SAME: thread's tape holds only 64 (more pops than pushes)

// MISMATCH: ADPass runtime: tape corrupted: popping 32 bytes but the record
// MISMATCH-SAME: on top of this thread's tape is smaller (pops must mirror
// MISMATCH-SAME: pushes in reverse order, with the same sizes)

#include "ad_runtime.h"
#include "rt_check.h"

#include <string.h>

int main(int Argc, char **Argv) {
  EXPECT(Argc == 2, "usage: tape-underflow MODE");
  const char *Mode = Argv[1];
  if (!strcmp(Mode, "empty")) {
    __ad_tape_pop(8);
  } else if (!strcmp(Mode, "extra")) {
    __ad_tape_push(32);
    __ad_tape_pop(32);
    __ad_tape_pop(16);
  } else if (!strcmp(Mode, "larger")) {
    __ad_tape_push(64);
    __ad_tape_pop(1000);
  } else if (!strcmp(Mode, "mismatch")) {
    // Fill until a record lands at the start of a new chunk, then pop more
    // than that record from it.
    unsigned char *Prev = (unsigned char *)__ad_tape_push(16);
    for (;;) {
      unsigned char *P = (unsigned char *)__ad_tape_push(16);
      if (P != Prev + 16)
        break;
      Prev = P;
    }
    __ad_tape_pop(32);
  } else {
    // Zero-byte pops are always fine, even on an empty tape.
    __ad_tape_pop(0);
    return 0;
  }
  fputs("reached the end without a fatal error\n", stderr);
  return 0;
}
