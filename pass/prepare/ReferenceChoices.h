//===- ReferenceChoices.h - std::max of references, inlined -----*- C++ -*-===//
//
// std::max and std::min of `const T &` return one of their two references.
// At -O0 they are calls: given the address of a size kept in an object with
// derivatives (Eigen's blocking sizes, next to its packed buffers) and the
// address of a local or a parameter without one, the callee's result
// needed a shadow of both, and one had none (a compile error). Inlined into
// the prepared copy, the choice is a select whose shadow is only built
// where something reads floating-point data through it, which is nowhere.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_REFERENCECHOICES_H
#define ADPASS_REFERENCECHOICES_H

#include "llvm/IR/Function.h"

namespace ad {

/// Inlines into \p F the calls of functions that only choose which of their
/// pointer parameters to return: they return a pointer that is always one
/// of at least two parameters, call nothing, and write only their own
/// locals.
void inlineReferenceChoices(llvm::Function &F);

} // namespace ad

#endif
