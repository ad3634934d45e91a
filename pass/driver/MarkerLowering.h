//===- MarkerLowering.h - __ad_gradient / __ad_derivative calls -*- C++ -*-===//
//
// A call of any function whose name starts with __ad_gradient (reverse mode)
// or __ad_derivative (forward mode) is a request (docs/api.md). Lowering
// decodes it (RequestParsing.h), builds the derived functions and replaces
// the marker by calls of them, packing the result in whatever type the
// marker was declared to return.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_MARKERLOWERING_H
#define ADPASS_MARKERLOWERING_H

#include "driver/RequestParsing.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

namespace ad {

class Differentiator;

/// Marks every marker declaration nomerge. Run before any optimisation:
/// SimplifyCFG would otherwise sink the requests of an if/else into one
/// call of a select between the two functions, which names no function.
void keepMarkersApart(llvm::Module &M);

/// The marker calls of \p M, in a stable order.
llvm::SmallVector<llvm::CallBase *, 8> findMarkers(llvm::Module &M);

/// Whether \p U is where a marker call names the function to
/// differentiate. A function passed further on (__ad_gradient(apply,
/// AD_CONST, fn, x)) is a pointer the program calls.
bool namesRequestedFunction(const llvm::Use &U);

/// Decides, for the requests \p Markers, which globals of \p M carry
/// derivatives (GlobalShadows.h). Before any derivative is built. Returns
/// the functions the requests reach (reachableFunctions()).
llvm::SmallPtrSet<const llvm::Function *, 32>
findActiveGlobals(llvm::Module &M, llvm::ArrayRef<llvm::CallBase *> Markers,
                  Differentiator &D);

/// Replaces every marker of \p M by derivative code. Markers that cannot be
/// lowered are reported and removed, so no invalid IR is left behind (the
/// pass verifies what it emits after this returns: Passes.cpp).
/// Returns the functions that held markers (now calls of derived code);
/// empty when \p M had none and nothing changed.
llvm::SmallSetVector<llvm::Function *, 8> lowerMarkers(llvm::Module &M,
                                                       Differentiator &D);

} // namespace ad

#endif
