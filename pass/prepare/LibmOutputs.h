//===- LibmOutputs.h - libm functions that return through pointers -*- C++ -*-//
//
// sincos, modf and frexp write results through pointer arguments, which a
// rule of JvpRules (partials of a returned value) cannot describe. In the
// prepared copy of a function they are rewritten into primitives that have
// rules, computing the same values:
//   sincos(x, s, c)  ->  *s = sin x; *c = cos x
//   modf(x, i)       ->  *i = trunc x; x - trunc x (signed zero and
//                        infinities as modf gives them)
//   frexp(x, e)      ->  *e = ilogb x + 1 (0 for 0, inf, NaN); ldexp(x, -*e)
// so their derivatives are cos x and -sin x, 1 (and 0 for the integral
// part), and 2^-e. The primal function keeps its calls. Newer LLVMs have
// llvm.sincos and llvm.modf, returning both results as a pair (clang 22
// emits llvm.modf for modf); they get the same rewrite.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LIBMOUTPUTS_H
#define ADPASS_LIBMOUTPUTS_H

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Function.h"

namespace ad {

/// Rewrites the calls above in \p F (declarations of those names and
/// prototypes only: a user's own function of the same name is left alone).
void rewriteLibmOutputs(llvm::Function &F, const llvm::TargetLibraryInfo &TLI);

} // namespace ad

#endif
