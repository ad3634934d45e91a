//===- LinearizeOpenMP.cpp - the tangents of OpenMP worksharing loops ----===//
//
// clang outlines `#pragma omp parallel for` into a function that
// `__kmpc_fork_call` runs on every thread of a team. Linearized, the fork is
// a call of the outlined function with placeholder thread ids; its derived
// functions are forked in its place once the stages are done
// (driver/OpenMPRegions.h), so f.jvp, f.fwd and f.rev each run their part
// of the region on a team. Inside the region, the loop scheduling calls are
// primal code (their results, the bounds of each thread's chunks, are
// integers kept like any other), and a `reduction(+:s)` combines by an
// atomic add (PrepareSource makes the runtime's choice of combine the
// atomic one in the copy that is differentiated).
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/Diagnostics.h"
#include "driver/Differentiator.h"
#include "driver/OpenMPRegions.h"
#include "ir/Linearity.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"

using namespace llvm;

namespace ad {

/// The first construct of \p Region that the derived code cannot run, as an
/// error at its line. True when there is none.
static bool checkRegionConstructs(Function &Region, Diagnostics &Diags) {
  unsigned Loops = 0;
  for (Instruction &I : instructions(Region)) {
    auto *CB = dyn_cast<CallBase>(&I);
    Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    if (!Callee || !isOpenMPRuntimeFunction(*Callee))
      continue;
    if (isWorksharingLoopStart(*Callee) && ++Loops > 1) {
      Diags.errorAt(I, "cannot differentiate a parallel region with more "
                       "than one worksharing loop (not supported): give "
                       "each loop its own '#pragma omp parallel for'");
      return false;
    }
    if (!isSupportedInRegion(*Callee)) {
      Diags.errorAt(I, "cannot differentiate the OpenMP construct '" +
                           describeOpenMPCall(*Callee) +
                           "' in a parallel region: only worksharing loops "
                           "('#pragma omp parallel for', static or dynamic "
                           "schedule, with private, firstprivate, shared "
                           "and reduction(+:...) variables) are supported");
      return false;
    }
  }
  return true;
}

/// \p Region and the functions with bodies it calls, directly or not.
static SmallVector<Function *, 4> regionCallTree(Function &Region) {
  SmallVector<Function *, 4> Tree{&Region};
  SmallPtrSet<Function *, 4> Seen{&Region};
  for (unsigned K = 0; K < Tree.size(); ++K)
    for (Instruction &I : instructions(*Tree[K]))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction();
            Callee && !Callee->isDeclaration() && Seen.insert(Callee).second)
          Tree.push_back(Callee);
  return Tree;
}

bool Linearizer::passesDerivativeInBits(const Value *V) const {
  SmallVector<const Value *, 8> Work{V};
  SmallPtrSet<const Value *, 16> Seen{V};
  while (!Work.empty() && Seen.size() < 64) {
    const Value *W = Work.pop_back_val();
    if (W->getType()->isPointerTy())
      continue; // a shared variable, with its shadow
    if (isVaried(W))
      return true;
    auto *I = dyn_cast<Instruction>(W);
    if (auto *LI = dyn_cast_or_null<LoadInst>(I)) {
      if (isShadowed(LI->getPointerOperand()))
        return true;
      continue;
    }
    if (I && (isa<BinaryOperator>(I) || isa<CastInst>(I) || isa<PHINode>(I) ||
              isa<SelectInst>(I) || isa<FreezeInst>(I)))
      for (const Value *Op : I->operands())
        if (Seen.insert(Op).second)
          Work.push_back(Op);
  }
  return false;
}

void Linearizer::linearizeParallelRegion(CallBase &CB) {
  Function *Region = forkedRegion(CB);
  FunctionType *FT = Region ? Region->getFunctionType() : nullptr;
  if (!Region || Region->isDeclaration() || FT->isVarArg() ||
      FT->getNumParams() != CB.arg_size() - 1)
    return fail(CB, "cannot differentiate this OpenMP parallel region: its "
                    "outlined function is not visible or does not match the "
                    "fork's arguments");
  for (unsigned K = 3; K < CB.arg_size(); ++K)
    if (CB.getArgOperand(K)->getType() != FT->getParamType(K - 1))
      return fail(CB, "cannot differentiate this OpenMP parallel region: "
                      "its outlined function does not match the fork's "
                      "arguments");
  // The body and every function it calls run on the team (at -O0 -g the
  // body is a call of `outlined_debug__`).
  for (Function *F : regionCallTree(*Region)) {
    if (!checkRegionConstructs(*F, D.diags())) {
      Failed = true;
      return;
    }
    if (F != Region)
      noteRunsInParallelRegion(*F);
  }
  if (Act.forHandle())
    return fail(CB, "cannot linearize a function with an OpenMP parallel "
                    "region into a handle (not supported): use "
                    "__ad_gradient or __ad_derivative");
  // The fork passes values as pointer-sized integers: a firstprivate
  // double arrives as its bits (an i64), whose derivative no tangent
  // follows.
  for (unsigned K = 3; K < CB.arg_size(); ++K)
    if (passesDerivativeInBits(CB.getArgOperand(K)))
      return fail(CB, "cannot differentiate this OpenMP parallel region: a "
                      "variable passed to it by value (firstprivate) "
                      "carries a derivative (not supported); make it "
                      "shared");
  noteParallelRegion(*Region, *CB.getArgOperand(0));
  // The thread ids are null here; the fork passes the real ones.
  auto *Null = ConstantPointerNull::get(cast<PointerType>(FT->getParamType(0)));
  SmallVector<Value *, 8> Args{Null, Null};
  Args.append(CB.arg_begin() + 3, CB.arg_end());
  CallInst *Direct = CallInst::Create(Region, Args, "", CB.getIterator());
  Direct->setDebugLoc(CB.getDebugLoc());
  replaceCall(CB, Direct);
  linearizeUserCall(*Direct, *Region);
}

void Linearizer::linearizeOpenMPRuntimeCall(CallBase &CB, Function &Callee) {
  if (isOpenMPFork(Callee))
    return linearizeParallelRegion(CB);
  // The calls a supported region makes carry no derivative; any other
  // reaching active data is a construct of a region this function is the
  // outlined body of, reported with the region, or a call out of place.
  if (isSupportedInRegion(Callee))
    return constantResult(CB);
  fail(CB, "cannot differentiate the OpenMP construct '" +
               describeOpenMPCall(Callee) +
               "': only worksharing loops ('#pragma omp parallel for') are "
               "supported");
}

void Linearizer::linearizeAtomicAdd(AtomicRMWInst &RMW) {
  Value *P = RMW.getPointerOperand();
  if (RMW.getOperation() != AtomicRMWInst::FAdd || !RMW.use_empty())
    return fail(RMW, "cannot differentiate atomic operations on "
                     "floating-point data other than an addition whose old "
                     "value is not used");
  if (!isShadowed(P)) {
    if (isVaried(RMW.getValOperand()))
      fail(RMW, "cannot differentiate: an active value is added atomically "
                "into memory without a shadow");
    return;
  }
  Value *S = shadowOf(P, RMW);
  if (!S)
    return;
  IRBuilder<> B(RMW.getNextNode());
  AtomicRMWInst *DRMW = B.CreateAtomicRMW(
      AtomicRMWInst::FAdd, S, tangentOf(RMW.getValOperand()), RMW.getAlign(),
      RMW.getOrdering(), RMW.getSyncScopeID());
  markLinear(DRMW);
}

} // namespace ad
