// include/ad_runtime.h compiles cleanly as C and as C++ (with C linkage: the
// C++ build links with the C driver, so no libstdc++ either), and every
// function it declares links and behaves.
//
// RUN: %clang -std=c99 -Wall -Wextra -pedantic -Werror -I%inc %s %runtime \
// RUN:   -o %t && %t
// RUN: %clang -x c++ -std=c++17 -Wall -Wextra -pedantic -Werror -I%inc %s \
// RUN:   -x none %runtime -o %t.cxx && %t.cxx

#include "ad_runtime.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  double X = 3.25;
  void *P = __ad_tape_push(sizeof X);
  memcpy(P, &X, sizeof X);
  size_t Held = __ad_tape_current_bytes();
  void *A = __ad_alloc(3 * sizeof(double));
  __ad_free(A);
  double Y;
  memcpy(&Y, __ad_tape_pop(sizeof Y), sizeof Y);
  size_t Peak = __ad_tape_peak_bytes();
  __ad_tape_reset_peak();
  __ad_tape_release();
  if (Y != X || Held != 16 || Peak != 16 + 3 * sizeof(double) ||
      __ad_tape_peak_bytes() != 0) {
    fprintf(stderr, "header: unexpected values\n");
    return 1;
  }
  puts("header: ok");
  return 0;
}
