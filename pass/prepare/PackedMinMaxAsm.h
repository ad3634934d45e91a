//===- PackedMinMaxAsm.h - SSE min/max written as inline assembly -*- C++ -*-//
//
// Eigen writes its packet min and max as inline assembly when the compiler
// says it is GCC older than 6.3, which clang does (__GNUC__ is 4):
//   asm("minpd %[a], %[res]" : [res] "+x"(res) : [a] "x"(a))   res = b
//   asm("vminpd %[a], %[b], %[res]" : [res] "=x"(res) : ...)   with AVX
// maxCoeff, minCoeff, cwiseMin and the range clamps of exp and log use
// them. Inline assembly is refused as a whole; these few instructions are
// rewritten, in the prepared copy, into the comparison and select that
// compute the same lanes: minpd gives its destination where it is less
// than the source, else the source (also where either is NaN, or both are
// zeros). The primal function keeps its assembly.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_PACKEDMINMAXASM_H
#define ADPASS_PACKEDMINMAXASM_H

#include "llvm/IR/Function.h"

namespace ad {

/// Rewrites the calls of those inline assembly strings in \p F (with the
/// constraint strings clang gives them, on vectors of float or double).
void rewritePackedMinMaxAsm(llvm::Function &F);

} // namespace ad

#endif
