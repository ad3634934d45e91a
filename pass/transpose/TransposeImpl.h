//===- TransposeImpl.h - the transposer, shared by its files -*- C++ -*-===//
//
// Transpose.cpp builds f.rev block by block; ReversedLoops.cpp decides how
// f.rev runs f.lin's array loops (which way, where it enters and leaves
// them). Both define members of the Transposer declared here. Not for use
// outside pass/transpose/.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_TRANSPOSE_TRANSPOSEIMPL_H
#define ADPASS_TRANSPOSE_TRANSPOSEIMPL_H

#include "driver/DerivedFunctions.h"
#include "transpose/ShadowCotangents.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"

#include <memory>

namespace ad {

class Differentiator;

using namespace llvm;

/// f.rev's view of an array loop of f.lin: it enters at the exit block with
/// the last iteration and counts down to the first, or, Forwards, with the
/// first and counts up.
struct ReversedLoop {
  AllocaInst *Iteration = nullptr; ///< current iteration (i64)
  AllocaInst *Array = nullptr;     ///< the records (ptr)
  AllocaInst *Count = nullptr;     ///< number of iterations (i64)
  uint64_t RecordSize = 0;
  BasicBlock *Header = nullptr, *Preheader = nullptr, *Latch = nullptr;
  /// No linear code and no tape reads inside: f.rev skips the loop.
  bool Inert = false;
  /// The transposed iterations commute (IterationOrder.h).
  bool Forwards = false;
};

/// What transposing a block needs to know of it, from one look at each
/// instruction's marks: metadata lookups go through a context-wide table
/// and were 8% of a -O0 compile of a long function.
struct BlockContents {
  SmallVector<Instruction *, 64> Linear; ///< in order, PHIs excepted
  /// Non-linear loads: loop entries and the predecessor index are loads
  /// from the tape.
  SmallVector<Instruction *, 16> TapeLoads;
  /// The iteration counts of array loops that f.lin recomputes rather than
  /// reads (an add, marked as a loop entry).
  SmallVector<Instruction *, 2> RecomputedCounts;
  /// The predecessor index f.lin recomputes rather than reads (a select).
  Instruction *RecomputedPredIdx = nullptr;
};

using PhiCotangents = SmallVector<std::pair<PHINode *, Value *>, 4>;

class Transposer {
public:
  Transposer(Function &Lin, Differentiator &D) : Lin(Lin), D(D) {}
  Function *run();

private:
  Function *createRevDeclaration();
  AllocaInst *slot(Value *V);
  AllocaInst *newSlot(Type *T, const Twine &Name);
  void accumulate(IRBuilder<> &B, Value *LinValue, Value *C, bool Negate);
  Value *takeCotangent(IRBuilder<> &B, Value *LinValue);
  bool isDefinedOutsideLoopOf(Value *LinValue) const;
  Value *materialize(IRBuilder<> &B, Value *V, BasicBlock &LinBB);
  bool findArrayLoops();
  void findSelectZeroed();
  bool transposeBlock(BasicBlock &BB);
  BlockContents scanBlock(BasicBlock &BB);
  void popRecords(IRBuilder<> &B, BasicBlock &BB);
  void enterLoopsAtLastIteration(IRBuilder<> &B, BasicBlock &BB,
                                 ArrayRef<Instruction *> Entries);
  Value *readPredecessorIndex(IRBuilder<> &B, BasicBlock &BB,
                              const BlockContents &Contents);
  bool transposeInstruction(IRBuilder<> &B, Instruction &I, BasicBlock &BB);
  bool transposeCall(IRBuilder<> &B, CallInst &Call, BasicBlock &LinBB);
  PhiCotangents takePhiCotangents(IRBuilder<> &B, BasicBlock &BB);
  void emitTerminator(IRBuilder<> &B, BasicBlock &BB,
                      ArrayRef<std::pair<PHINode *, Value *>> PhiCts,
                      Value *PredIdx);
  void emitReturnOfCotangents(IRBuilder<> &B);
  SmallVector<BasicBlock *, 4>
  reversedEdgeTargets(BasicBlock &BB, ArrayRef<BasicBlock *> Preds,
                      ArrayRef<std::pair<PHINode *, Value *>> PhiCts);
  void emitLoopHeaderBranch(IRBuilder<> &B, ReversedLoop &RL,
                            ArrayRef<BasicBlock *> Preds,
                            ArrayRef<BasicBlock *> Targets);
  void emitPredecessorSwitch(IRBuilder<> &B, Value *PredIdx,
                             ArrayRef<BasicBlock *> Targets);

  Function &Lin;
  Differentiator &D;
  DerivedInfo Info{};
  DominatorTree LinDT;
  LoopInfo LinLI;
  BasicBlock *CurrentLinBlock = nullptr; ///< the block being transposed
  Function *Rev = nullptr;
  Argument *RevTape = nullptr;
  Instruction *SlotInsertPt = nullptr; // in f.rev's entry block
  /// In creation order: PromoteMemToReg places the PHIs of the slots in the
  /// order it is given them, and a pointer-keyed map's order changes from
  /// run to run (the same input gave different IR).
  MapVector<Value *, AllocaInst *> Slots;
  SmallVector<AllocaInst *, 8> OtherSlots;
  DenseMap<BasicBlock *, BasicBlock *> RevBlock;
  DenseMap<unsigned, ReversedLoop> Loops;
  DenseMap<BasicBlock *, unsigned> LoopOfHeader, LoopOfPreheader;
  DenseMap<Value *, Value *> Local; // materialized in the current block
  /// Linear values of the current block used only by its other (non-PHI)
  /// instructions: their uses are all transposed before their definition
  /// in the reversed block, so their cotangents stay SSA values instead of
  /// going through stack slots (which straight-line code of thousands of
  /// statements would make quadratic in PromoteMemToReg).
  SmallPtrSet<Value *, 32> BlockLocal;
  DenseMap<Value *, Value *> BlockLocalCt;
  /// Cotangents of shadow memory cells touched by the current block.
  std::unique_ptr<ShadowCotangents> Shadow;
  /// Linear values whose cotangent may be the zero a select sends to the
  /// arm it did not choose (findSelectZeroed).
  SmallPtrSet<const Value *, 16> SelectZeroed;
  Value *ReturnedValue = nullptr;
  bool Failed = false;
};

} // namespace ad

#endif // ADPASS_TRANSPOSE_TRANSPOSEIMPL_H
