//===- IndirectCalls.h - differentiating calls through pointers -*- C++ -*-===//
//
// A call through a function pointer (or a C++ virtual call) with active
// arguments is differentiated through a dispatcher: an ordinary function
// that compares the pointer with every function of the module whose address
// is taken and whose signature matches, and calls the match directly. The
// pipeline then differentiates the dispatcher like any user function, so
// each possible target gets its derived functions and the branch taken is
// taped. A target the module does not contain is a run-time error with a
// message (the runtime's __ad_unknown_target).
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_INDIRECTCALLS_H
#define ADPASS_INDIRECTCALLS_H

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace ad {

class CustomRules;

/// The dispatcher for indirect calls of type \p FT: (ptr target, args...).
/// Null if no function of the module can be the target.
llvm::Function *getDispatcher(llvm::Module &M, llvm::FunctionType *FT,
                              const CustomRules &Rules);

/// Whether \p F is a dispatcher getDispatcher made.
bool isDispatcher(const llvm::Function &F);

/// In derived code of a dispatcher, where it would call the derivative of
/// \p Target, which cannot be built: a call of the runtime that aborts with
/// a message naming it, if the program ever calls \p Target through the
/// pointer in derived code.
void emitUndifferentiableTarget(llvm::IRBuilderBase &B,
                                const llvm::Function &Target);

} // namespace ad

#endif
