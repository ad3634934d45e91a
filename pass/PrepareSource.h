//===- PrepareSource.h - a clean copy of a function to differentiate -*- C++
//-*-===//
//
// Differentiation reads a private copy of the user's function, never the
// function itself: at -O0 clang marks everything optnone and keeps every
// variable in memory, so the copy drops optnone and is put into SSA form
// (SROA), simplified, and given a single return (Transpose starts from it).
// The copy is also where unsupported constructs are found and reported.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_PREPARESOURCE_H
#define ADPASS_PREPARESOURCE_H

#include "llvm/IR/Function.h"
#include "llvm/IR/PassManager.h"

namespace ad {

class Diagnostics;

/// Returns the prepared copy of \p F (the caller erases it when done), or
/// null after reporting why \p F cannot be differentiated.
llvm::Function *prepareSource(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM,
                              Diagnostics &Diags);

} // namespace ad

#endif
