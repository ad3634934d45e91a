//===- LoweringHelpers.h - pieces shared by the lowerings of markers -*- C++
//-*-===//
//
// MarkerLowering.cpp lowers __ad_gradient and __ad_derivative,
// HandleLowering.cpp the handle markers; both check and pack results and
// treat global shadows and arguments the same way.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LOWERINGHELPERS_H
#define ADPASS_LOWERINGHELPERS_H

#include "driver/RequestParsing.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/IRBuilder.h"

namespace ad {

class Diagnostics;
class Differentiator;

/// Checks that \p Marker was declared to return something with the memory
/// image of the values of types \p Tys. False after reporting.
bool checkResultType(llvm::CallBase &Marker, llvm::ArrayRef<llvm::Type *> Tys,
                     Diagnostics &Diags);
/// Makes the marker's result from \p Values and replaces its uses.
void emitResult(llvm::CallBase &Marker, llvm::ArrayRef<llvm::Value *> Values);
/// The shadow globals \p Derived use, and what they call.
llvm::SmallSetVector<llvm::GlobalVariable *, 4>
globalShadowsUsedBy(llvm::ArrayRef<llvm::Function *> Derived,
                    Differentiator &D);
/// Clears \p Shadows at \p B.
void zeroGlobalShadows(llvm::IRBuilder<> &B,
                       llvm::ArrayRef<llvm::GlobalVariable *> Shadows,
                       Differentiator &D);
/// Run-time checks that no argument with a shadow points into a global the
/// \p Derived functions use by name.
void checkArgumentsOutsideGlobals(llvm::IRBuilder<> &B, const Request &R,
                                  llvm::ArrayRef<llvm::Function *> Derived,
                                  Differentiator &D);
/// The types of a gradient's parts: those of \p R's active parameters.
llvm::SmallVector<llvm::Type *, 8> gradientTypes(const Request &R);

} // namespace ad

#endif
