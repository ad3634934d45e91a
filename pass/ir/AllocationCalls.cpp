//===- AllocationCalls.cpp - the heap functions ADPass knows --------------===//
//
// The allocation and release functions whose memory gets a shadow, named
// as the module declares them (C's and C++'s).
//
//===----------------------------------------------------------------------===//
#include "ir/AllocationCalls.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"

using namespace llvm;

namespace ad {

// C++'s operator new and new[], also the nothrow forms (std::stable_sort's
// temporary buffer), and the operator deletes that go with them.
static constexpr StringLiteral AllocationFns[] = {"malloc",
                                                  "calloc",
                                                  "_Znwm",
                                                  "_Znam",
                                                  "_ZnwmRKSt9nothrow_t",
                                                  "_ZnamRKSt9nothrow_t",
                                                  "aligned_alloc",
                                                  "memalign"};
static constexpr StringLiteral OutParamAllocationFns[] = {"posix_memalign"};
static constexpr StringLiteral DeallocationFns[] = {"free",
                                                    "_ZdlPv",
                                                    "_ZdaPv",
                                                    "_ZdlPvm",
                                                    "_ZdaPvm",
                                                    "_ZdlPvRKSt9nothrow_t",
                                                    "_ZdaPvRKSt9nothrow_t"};

static bool isNamed(const Function *F, ArrayRef<StringLiteral> Names) {
  return F && F->isDeclaration() && llvm::is_contained(Names, F->getName());
}

static bool calls(const Value *V, ArrayRef<StringLiteral> Names) {
  auto *CB = dyn_cast<CallBase>(V);
  return CB && isNamed(CB->getCalledFunction(), Names);
}

bool isAllocationCall(const Value *V) { return calls(V, AllocationFns); }

bool isOutParamAllocationCall(const Value *V) {
  return calls(V, OutParamAllocationFns);
}

bool isAllocatorFunction(const Function &F) {
  return isNamed(&F, AllocationFns) || isNamed(&F, OutParamAllocationFns) ||
         isNamed(&F, DeallocationFns);
}

bool isDeallocationCall(const Value *V) { return calls(V, DeallocationFns); }

bool isReallocationCall(const Value *V) {
  static constexpr StringLiteral ReallocationFns[] = {"realloc",
                                                      "reallocarray"};
  return calls(V, ReallocationFns);
}

} // namespace ad
