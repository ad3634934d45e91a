//===- Reallocations.h - realloc as malloc, copy and free ---------*- C++
//-*-===//
//
// realloc(p, n) moves a block's contents into a block of another size. Its
// derivative must do the same with the shadow, and in reverse mode keep the
// old shadow until the reverse pass has gone back past the call (code before
// it addresses the old block). The stages already know each part: in the
// prepared copy of a function,
//   q = realloc(p, n)   becomes   q = malloc(n);
//                                 if (q) { memcpy(q, p, min(usable(p), n));
//                                          free(p); }
// (reallocarray(p, k, s) likewise, with n = k * s and NULL on overflow), so
// that the shadow is allocated, copied and released by the rules for
// malloc, memcpy and free. usable(p) is malloc_usable_size(p), 0 for NULL:
// the old block's size, rounded up to what the allocator gave. The bytes
// past the requested size are the allocator's, never read by a correct
// program, and their shadows are zero (shadows are calloc'd). The primal
// function keeps its call: only the derivative copies where realloc might
// have grown the block in place.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_REALLOCATIONS_H
#define ADPASS_REALLOCATIONS_H

#include "llvm/IR/Function.h"

namespace ad {

/// Rewrites the calls of realloc and reallocarray in \p F (declarations
/// with their C prototypes only).
void rewriteReallocations(llvm::Function &F);

} // namespace ad

#endif
