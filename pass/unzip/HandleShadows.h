//===- HandleShadows.h - what a handle's f.fwd may do with shadows -*- C++
//-*-===//
//
// A handle (__ad_linearize) runs f.fwd before any shadow is known: f.fwd
// gets placeholder addresses (runtime/Handle.cpp), computes addresses from
// them as from real shadows, and f.lin and f.rev map what they read from
// the tape onto the shadows each application passes. That is sound only
// while f.fwd computes addresses from the placeholders and never stores
// them or compares them; a shadow pointer it would read out of the
// caller's shadow memory is a placeholder too, resolved by each
// application.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_HANDLESHADOWS_H
#define ADPASS_HANDLESHADOWS_H

#include "llvm/IR/Function.h"

namespace ad {

class Differentiator;

/// Checks that the non-linear code of \p Jvp (built for a handle) only
/// computes addresses from its shadow parameters, passes them to mixed
/// calls of other JVPs (checked in turn) or to linear code, returns them,
/// or loads pointers through them: such a load becomes a call of the
/// runtime, which gives f.fwd a placeholder for the shadow pointer it will
/// read when the handle is applied. False after reporting, at its line,
/// the first use that does more.
bool prepareHandleShadows(llvm::Function &Jvp, Differentiator &D);

} // namespace ad

#endif
