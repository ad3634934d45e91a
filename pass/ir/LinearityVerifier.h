//===- LinearityVerifier.h - the invariants of linear code ------*- C++ -*-===//
//
// Checks the invariants of docs/design.md ("The three stages") on f.jvp and
// f.lin: linear instructions are only linear primitives of linear values
// (fmul/fdiv scale by exactly one non-linear factor), and non-linear code
// never reads a linear value. In
// f.lin, non-linear code is only block-local reads of the tape. A broken
// invariant is an ADPass bug that would give wrong gradients, so it is
// checked on every generated function, not only in tests.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LINEARITYVERIFIER_H
#define ADPASS_LINEARITYVERIFIER_H

#include "llvm/IR/Function.h"
#include <string>

namespace ad {

/// True if \p F (a jvp or lin function; others pass trivially) keeps the
/// invariants; otherwise \p Msg says which instruction breaks which, and
/// \p Bad, if given, points at it.
bool verifyLinearFunction(const llvm::Function &F, std::string &Msg,
                          const llvm::Instruction **Bad = nullptr);

} // namespace ad

#endif
