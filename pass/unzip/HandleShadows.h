//===- HandleShadows.h - what a handle's f.fwd may do with shadows -*- C++
//-*-===//
//
// A handle (__ad_linearize) runs f.fwd before any shadow is known: f.fwd
// gets placeholder addresses (runtime/Handle.cpp), computes addresses from
// them as from real shadows, and f.lin and f.rev map what they read from
// the tape onto the shadows each application passes. That is sound only
// while f.fwd computes addresses from the placeholders and never touches
// memory through them, stores them, or compares them.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_HANDLESHADOWS_H
#define ADPASS_HANDLESHADOWS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/Function.h"

namespace ad {

class Differentiator;

/// Checks that the non-linear code of \p Jvp (built for a handle) only
/// computes addresses from its shadow parameters, passes them to mixed
/// calls of other JVPs (checked in turn) or to linear code, or returns
/// them. False after reporting the first use that does more, at its line.
bool checkHandleShadowUses(
    llvm::Function &Jvp, llvm::function_ref<bool(const llvm::Value *)> IsLinear,
    Differentiator &D);

} // namespace ad

#endif
