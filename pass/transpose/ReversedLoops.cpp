//===- ReversedLoops.cpp - how f.rev runs f.lin's array loops -------------===//
//
// f.rev keeps each array loop's current iteration, its array of records and
// its iteration count in stack slots. It enters the loop where f.lin leaves
// it, at the exit block, and runs the iterations from the last down to the
// first, or from the first up where the transposed iterations commute
// (IterationOrder.h); the header's reversed branch goes back to the latch
// until the iteration it ends with. In such a loop, the cotangent of a value
// defined before it is a sum over the iterations, which may be reassociated.
//
//===----------------------------------------------------------------------===//
#include "driver/Differentiator.h"
#include "ir/Linearity.h"
#include "transpose/IterationOrder.h"
#include "transpose/RevAliasScopes.h"
#include "transpose/TransposeImpl.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "ad-transpose"

using namespace llvm;

STATISTIC(NumForwardLoops, "Number of array loops f.rev runs forwards, their "
                           "transposed iterations commuting");

namespace ad {

/// Whether f.lin's \p LinValue is defined outside the innermost loop of the
/// block being transposed (an argument is).
bool Transposer::isDefinedOutsideLoopOf(Value *LinValue) const {
  const Loop *L = CurrentLinBlock ? LinLI.getLoopFor(CurrentLinBlock) : nullptr;
  if (!L)
    return false;
  auto *I = dyn_cast<Instruction>(LinValue);
  return !I || !L->contains(I);
}

bool Transposer::findArrayLoops() {
  LLVMContext &Ctx = Lin.getContext();
  for (BasicBlock &BB : Lin)
    for (PHINode &Phi : BB.phis())
      if (auto CI = counterInfo(Phi)) {
        ReversedLoop &RL = Loops[CI->Id];
        RL.RecordSize = CI->RecordSize;
        RL.Header = &BB;
        for (BasicBlock *P : predecessors(&BB))
          (LinDT.dominates(&BB, P) ? RL.Latch : RL.Preheader) = P;
        if (!RL.Latch || !RL.Preheader) {
          D.diags().internalError(nullptr, "malformed array loop in '" +
                                               Lin.getName() + "'");
          return false;
        }
        Type *I64 = Type::getInt64Ty(Ctx);
        RL.Iteration = newSlot(I64, "iteration");
        RL.Array = newSlot(PointerType::getUnqual(Ctx), "array");
        RL.Count = newSlot(I64, "iterations");
        LoopOfHeader[&BB] = CI->Id;
        LoopOfPreheader[RL.Preheader] = CI->Id;
        Loop &L = *LinLI.getLoopFor(&BB);
        RL.Inert = llvm::none_of(L.blocks(), [](BasicBlock *LB) {
          return llvm::any_of(*LB, [](Instruction &I) {
            return isLinear(&I) || isTapeCall(&I, TapeOp::Read);
          });
        });
        RL.Forwards = !RL.Inert && transposedIterationsCommute(L);
        NumForwardLoops += RL.Forwards;
        LLVM_DEBUG(if (RL.Forwards) dbgs()
                   << "transpose: runs forwards: loop at " << BB.getName()
                   << '\n');
      }
  return true;
}

/// Leaving an array loop forwards is entering it backwards: at its last
/// iteration, or at its first where its transposed iterations commute.
void Transposer::enterLoopsAtLastIteration(IRBuilder<> &B, BasicBlock &BB,
                                           ArrayRef<Instruction *> Entries) {
  for (Instruction *I : Entries)
    if (auto LE = loopEntryInfo(*I); LE && LE->IsExit) {
      ReversedLoop &RL = Loops[LE->Id];
      Value *V = materialize(B, I, BB);
      if (LE->IsBase) {
        if (auto *Array = dyn_cast<Instruction>(V))
          markRecordArray(*Array);
        B.CreateStore(V, RL.Array);
      } else {
        B.CreateStore(V, RL.Count);
        B.CreateStore(RL.Forwards
                          ? ConstantInt::get(V->getType(), 0)
                          : B.CreateSub(V, ConstantInt::get(V->getType(), 1)),
                      RL.Iteration);
      }
    }
}

/// An array loop's header: back to the latch until the first iteration (the
/// last, when f.rev runs it forwards).
void Transposer::emitLoopHeaderBranch(IRBuilder<> &B, ReversedLoop &RL,
                                      ArrayRef<BasicBlock *> Preds,
                                      ArrayRef<BasicBlock *> Targets) {
  BasicBlock *ToPreheader =
      Targets[llvm::find(Preds, RL.Preheader) - Preds.begin()];
  if (RL.Inert) {
    B.CreateBr(ToPreheader); // nothing to transpose in there
    return;
  }
  Value *K = B.CreateLoad(RL.Iteration->getAllocatedType(), RL.Iteration);
  Value *One = ConstantInt::get(K->getType(), 1);
  Value *Done;
  if (RL.Forwards) {
    Value *Next = B.CreateAdd(K, One);
    B.CreateStore(Next, RL.Iteration);
    Done = B.CreateICmpEQ(
        Next, B.CreateLoad(RL.Count->getAllocatedType(), RL.Count), "last");
  } else {
    B.CreateStore(B.CreateSub(K, One), RL.Iteration);
    Done = B.CreateICmpEQ(K, ConstantInt::get(K->getType(), 0), "first");
  }
  BasicBlock *ToLatch = Targets[llvm::find(Preds, RL.Latch) - Preds.begin()];
  B.CreateCondBr(Done, ToPreheader, ToLatch);
}

} // namespace ad
