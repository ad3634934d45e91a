//===- Transpose.cpp - f.lin -> f.rev -------------------------------------===//
//
// f.rev(tape, ct) runs f.lin backwards: every linear instruction is replaced
// by its transpose, in reverse order, across the reversed CFG, and f.rev
// returns the cotangents of f.lin's tangent arguments. The algorithm:
//
// 1. Declare f.rev and give it one block per block of f.lin, in reverse
//    layout order, after an entry block "seed" that adds ct to the
//    cotangent of f.lin's returned value and branches to the reversed
//    block of f.lin's return. (An f.lin that never returns gives an f.rev
//    that is unreachable.)
// 2. Find f.lin's array loops (findArrayLoops): f.rev keeps each one's
//    current iteration, its array of records and its iteration count in
//    stack slots and counts the iteration down, or up where the transposed
//    iterations commute (ReversedLoops.cpp). A loop with neither linear
//    code nor tape reads is inert: f.rev skips it.
// 3. Find the linear values that feed an arm of a select
//    (findSelectZeroed): their cotangent may be the zero the select sends
//    to the arm it did not choose, which products must keep zero.
// 4. Transpose each block (transposeBlock), in phases:
//    a. Note its linear instructions, and which of them are used only by
//       later instructions of the block: their cotangents stay SSA values.
//    b. Pop the block's record off the tape (f.lin reads it forwards, f.rev
//       pops it) and, in a loop's preheader, the loop's array.
//    c. Where f.lin leaves an array loop, f.rev enters it: at its last
//       iteration.
//    d. Read the recorded predecessor index, if the block is a merge block.
//    e. Transpose the linear instructions, last first: a rule of the table
//       (TransposeRules.cpp) adds the cotangent of the result to the
//       cotangents of the linear operands; a call of g.lin becomes a call
//       of g.rev. Non-linear operands (tape reads, addresses) are rebuilt
//       in the reversed block from what is valid there (materialize). An
//       instruction whose cotangent nothing was added to is skipped (a
//       symbolic zero), unless it is a call that touches memory.
//    f. Branch back along the reversed edges (emitTerminator). f.lin's
//       entry returns the arguments' cotangents. A linear PHI turns into an
//       accumulation of its cotangent into its incoming value, in a block
//       on each reversed edge. Of several reversed edges, an array loop's
//       header takes the one to the latch until the first iteration, and
//       any other merge block switches on the predecessor index that f.fwd
//       recorded (the position of the predecessor in layout order).
// 5. Cotangents of linear values used across blocks live in stack slots,
//    which start at -0.0 (the identity of fadd) and are reset when read
//    (takeCotangent): a value defined again in a later reverse iteration
//    starts from zero. PromoteMemToReg turns all slots into SSA at the end.
// 6. Tell shadow accesses apart from primal reads and tape reads with alias
//    scopes (RevAliasScopes.h), so that f.rev's loops vectorize.
// Cotangents of memory live in shadow memory: a linear load transposes to
// `*shadow += ct`, a linear store to `ct = *shadow; *shadow = 0`. While a
// block is built, ShadowCotangents keeps each shadow cell's cotangent in an
// SSA value and writes it back at the end of the block and before each
// call, which may touch shadow memory itself.
//
//===----------------------------------------------------------------------===//
#include "transpose/Transpose.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "driver/OpenMPRegions.h"
#include "ir/Linearity.h"
#include "transpose/RevAliasScopes.h"
#include "transpose/TransposeImpl.h"
#include "transpose/TransposeRules.h"
#include "unzip/TapeRuntime.h"
#include "unzip/Unzip.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Debug.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#define DEBUG_TYPE "ad-transpose"

using namespace llvm;

STATISTIC(NumTransposed, "Number of linear functions transposed");
STATISTIC(NumRuleTransposes, "Number of linear instructions transposed by a "
                             "rule of the table");
STATISTIC(NumCalleeRevCalls, "Number of calls of g.lin turned into g.rev");
STATISTIC(NumSymbolicZeros, "Number of linear instructions skipped for a "
                            "cotangent nothing was added to");
STATISTIC(NumMergeSwitches, "Number of merge blocks reversed into a switch on "
                            "the recorded predecessor index");

namespace ad {

Function *Transposer::createRevDeclaration() {
  LLVMContext &Ctx = Lin.getContext();
  SmallVector<Type *, 2> Params{PointerType::getUnqual(Ctx)};
  if (!Lin.getReturnType()->isVoidTy())
    Params.push_back(Lin.getReturnType());
  SmallVector<Type *, 8> Outs;
  for (unsigned K = 1; K < Lin.arg_size(); ++K)
    Outs.push_back(Lin.getArg(K)->getType());
  Type *RetTy = Outs.empty()       ? Type::getVoidTy(Ctx)
                : Outs.size() == 1 ? Outs[0]
                                   : StructType::get(Ctx, Outs);
  Function *F = Function::Create(
      FunctionType::get(RetTy, Params, false), GlobalValue::InternalLinkage,
      derivedName(*Info.Primal, "rev", Info.Act), Lin.getParent());
  copyCodegenAttributes(*F, *Info.Primal);
  tagDerived(*F, DerivedKind::Rev, *Info.Primal, Info.Act);
  F->getArg(0)->setName("tape");
  if (Params.size() > 1)
    F->getArg(1)->setName("ct");
  return F;
}

/// Cotangent accumulators start at -0.0, the exact identity of fadd
/// (0.0 + -0.0 is 0.0), so that the first accumulation folds away. For an
/// aggregate (a struct returned by value), in every element; its integer
/// fields carry no cotangent and stay 0.
static Constant *additiveIdentity(Type *T) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    SmallVector<Constant *, 4> Elts;
    for (Type *E : ST->elements())
      Elts.push_back(additiveIdentity(E));
    return ConstantStruct::get(ST, Elts);
  }
  if (auto *AT = dyn_cast<ArrayType>(T))
    return ConstantArray::get(
        AT, SmallVector<Constant *, 8>(AT->getNumElements(),
                                       additiveIdentity(AT->getElementType())));
  if (T->isIntOrIntVectorTy())
    return Constant::getNullValue(T);
  return ConstantFP::getNegativeZero(T);
}

/// A + B (or A - B) elementwise, for scalars, vectors and aggregates. The
/// integer fields of an aggregate are not cotangents: A's are kept.
static Value *addCotangents(IRBuilder<> &B, Value *A, Value *C, bool Negate) {
  Type *T = A->getType();
  if (T->isIntOrIntVectorTy())
    return A;
  if (!T->isAggregateType())
    return Negate ? B.CreateFSub(A, C) : B.CreateFAdd(A, C);
  unsigned N = isa<StructType>(T) ? cast<StructType>(T)->getNumElements()
                                  : cast<ArrayType>(T)->getNumElements();
  Value *Sum = A;
  for (unsigned K = 0; K < N; ++K)
    Sum = B.CreateInsertValue(Sum,
                              addCotangents(B, B.CreateExtractValue(A, K),
                                            B.CreateExtractValue(C, K), Negate),
                              K);
  return Sum;
}

AllocaInst *Transposer::newSlot(Type *T, const Twine &Name) {
  IRBuilder<> B(SlotInsertPt);
  AllocaInst *S = B.CreateAlloca(T, nullptr, Name);
  OtherSlots.push_back(S);
  return S;
}

AllocaInst *Transposer::slot(Value *V) {
  AllocaInst *&S = Slots[V];
  if (!S) {
    IRBuilder<> B(SlotInsertPt);
    S = B.CreateAlloca(V->getType(), nullptr, V->getName() + ".ct");
    B.CreateStore(additiveIdentity(V->getType()), S);
  }
  return S;
}

void Transposer::accumulate(IRBuilder<> &B, Value *LinValue, Value *C,
                            bool Negate) {
  if (isa<Constant>(LinValue))
    return; // a linear zero
  if (auto *K = dyn_cast<Constant>(C); K && K->isNullValue())
    return; // adds +0.0 (a cleared shadow cell read again)
  if (BlockLocal.count(LinValue)) {
    // -0.0 + C is C and -0.0 - C is -C: the first contribution needs no add.
    Value *&Acc = BlockLocalCt[LinValue];
    Acc = Acc ? addCotangents(B, Acc, C, Negate)
              : (Negate
                     ? addCotangents(B, additiveIdentity(C->getType()), C, true)
                     : C);
    return;
  }
  AllocaInst *S = slot(LinValue);
  Value *Old = B.CreateLoad(S->getAllocatedType(), S);
  Value *Sum = addCotangents(B, Old, C, Negate);
  // The cotangent of a value defined before the loop being transposed (such
  // as c[col] in the transpose of out[row] += L[at] c[col]) is a reduction
  // over its iterations. Its terms may be added in any order, as those of
  // a shadow cell are: with reassoc the vectorizer may split the sum into
  // lanes.
  if (auto *Add = dyn_cast<Instruction>(Sum);
      Add && isa<FPMathOperator>(Add) && isDefinedOutsideLoopOf(LinValue))
    Add->setHasAllowReassoc(true);
  B.CreateStore(Sum, S);
}

/// Reads the cotangent of \p LinValue and resets it: a value defined again
/// (in a later reverse iteration) starts from zero.
Value *Transposer::takeCotangent(IRBuilder<> &B, Value *LinValue) {
  if (BlockLocal.count(LinValue)) {
    Value *Ct = BlockLocalCt.lookup(LinValue);
    BlockLocalCt.erase(LinValue);
    return Ct ? Ct : additiveIdentity(LinValue->getType());
  }
  AllocaInst *S = slot(LinValue);
  Value *Ct =
      B.CreateLoad(S->getAllocatedType(), S, LinValue->getName() + ".ct");
  B.CreateStore(additiveIdentity(S->getAllocatedType()), S);
  return Ct;
}

/// The value f.lin's non-linear \p V has in the reversed block of \p LinBB.
Value *Transposer::materialize(IRBuilder<> &B, Value *V, BasicBlock &LinBB) {
  if (isa<Constant>(V) || isa<BasicBlock>(V))
    return V;
  if (V == Lin.getArg(0))
    return RevTape;
  if (Value *Done = Local.lookup(V))
    return Done;
  auto *I = dyn_cast<Instruction>(V);
  auto Fail = [&](const Twine &Why) -> Value * {
    if (!Failed)
      D.diags().internalError(nullptr, "cannot rebuild a value of '" +
                                           Lin.getName() +
                                           "' in f.rev: " + Why);
    Failed = true;
    return PoisonValue::get(V->getType());
  };
  if (!I || isLinear(I))
    return Fail("it is not a tape read");
  Value *R = nullptr;
  if (auto CI = counterInfo(*I)) {
    ReversedLoop &RL = Loops[CI->Id];
    R = B.CreateLoad(RL.Iteration->getAllocatedType(), RL.Iteration,
                     "iteration");
  } else if (auto LE = loopEntryInfo(*I); LE && !LE->IsExit) {
    ReversedLoop &RL = Loops[LE->Id];
    AllocaInst *S = LE->IsBase ? RL.Array : RL.Count;
    R = B.CreateLoad(S->getAllocatedType(), S, I->getName());
  } else {
    // Reads of the block's own record, and static tape reads, which are
    // valid anywhere in f.rev.
    bool Movable =
        (isa<GetElementPtrInst>(I) &&
         cast<GetElementPtrInst>(I)->getPointerOperand() == Lin.getArg(0)) ||
        I->getMetadata(StaticReadMD);
    if (I->getParent() != &LinBB && !Movable)
      return Fail("it is computed in another block");
    if (isTapeCall(I, TapeOp::Read)) {
      R = emitPopFor(B, *cast<CallInst>(I)); // f.lin reads forwards, f.rev pops
    } else {
      Instruction *C = I->clone();
      C->dropUnknownNonDebugMetadata(); // f.lin's marks mean nothing here
      if (isa<LoadInst>(C))
        markNonLinearRead(*C);
      for (Use &U : C->operands())
        U.set(materialize(B, U.get(), LinBB));
      B.Insert(C, I->getName());
      R = C;
    }
  }
  Local[V] = R;
  return R;
}

bool Transposer::transposeCall(IRBuilder<> &B, CallInst &Call,
                               BasicBlock &LinBB) {
  Function *Callee = Call.getCalledFunction();
  auto CInfo = Callee ? getDerivedInfo(*Callee) : std::nullopt;
  if (!CInfo || CInfo->Kind != DerivedKind::Lin) {
    D.diags().internalError(nullptr, "unexpected call in linear function '" +
                                         Lin.getName() + "'");
    return false;
  }
  Function *CalleeRev = D.getRev(*Callee);
  if (!CalleeRev)
    return false;
  SmallVector<Value *, 2> Args{materialize(B, Call.getArgOperand(0), LinBB)};
  if (!Call.getType()->isVoidTy())
    Args.push_back(takeCotangent(B, &Call));
  CallInst *Cts = B.CreateCall(CalleeRev, Args);
  // g's tape was pushed for this call (inside a loop): release it.
  if (std::optional<uint64_t> Size = calleeTapeOnStackSize(Call))
    emitPopOfSize(B, *Size);
  unsigned NumOut = Call.arg_size() - 1;
  for (unsigned K = 0; K < NumOut; ++K)
    accumulate(B, Call.getArgOperand(K + 1),
               NumOut == 1 ? static_cast<Value *>(Cts)
                           : B.CreateExtractValue(Cts, K),
               false);
  return true;
}

bool Transposer::transposeBlock(BasicBlock &BB) {
  IRBuilder<> B(RevBlock[&BB]);
  CurrentLinBlock = &BB;
  Local.clear();
  BlockLocal.clear();
  BlockLocalCt.clear();
  BlockContents Contents = scanBlock(BB);
  popRecords(B, BB);
  enterLoopsAtLastIteration(B, BB, Contents.TapeLoads);
  enterLoopsAtLastIteration(B, BB, Contents.RecomputedCounts);
  Value *PredIdx = readPredecessorIndex(B, BB, Contents);
  // Linear instructions, last first.
  for (Instruction *I : reverse(Contents.Linear))
    if (!transposeInstruction(B, *I, BB))
      return false;
  B.clearFastMathFlags();
  Shadow->flush(B);
  emitTerminator(B, BB, takePhiCotangents(B, BB), PredIdx);
  return !Failed;
}

/// \p BB's linear instructions and tape loads; notes in BlockLocal the
/// linear values whose every use is a later instruction of \p BB.
BlockContents Transposer::scanBlock(BasicBlock &BB) {
  BlockContents Contents;
  for (Instruction &I : BB) {
    if (isa<PHINode>(I))
      continue;
    if (!isLinear(&I)) {
      if (isa<LoadInst>(I))
        Contents.TapeLoads.push_back(&I);
      else if (isa<SelectInst>(I) && I.getMetadata(PredIndexMD))
        Contents.RecomputedPredIdx = &I;
      else if (isa<BinaryOperator>(I) && I.hasMetadataOtherThanDebugLoc() &&
               loopEntryInfo(I))
        Contents.RecomputedCounts.push_back(&I);
      continue;
    }
    Contents.Linear.push_back(&I);
    if (&I != ReturnedValue && !I.getType()->isVoidTy() &&
        llvm::all_of(I.users(), [&](User *U) {
          auto *UI = cast<Instruction>(U);
          return UI->getParent() == &BB && !isa<PHINode>(UI);
        }))
      BlockLocal.insert(&I);
  }
  return Contents;
}

/// The record \p BB pushed comes off the tape first; then, for a
/// preheader, the array of the loop it entered (pushed just before).
void Transposer::popRecords(IRBuilder<> &B, BasicBlock &BB) {
  for (Instruction &I : BB)
    if (isTapeCall(&I, TapeOp::Read))
      materialize(B, &I, BB);
  if (auto It = LoopOfPreheader.find(&BB); It != LoopOfPreheader.end()) {
    ReversedLoop &RL = Loops[It->second];
    if (RL.RecordSize)
      emitTapeArrayPop(B, RL.RecordSize,
                       B.CreateLoad(RL.Count->getAllocatedType(), RL.Count));
  }
}

/// Which predecessor a merge block was entered from, as f.fwd recorded it
/// or f.lin recomputed it; null in other blocks.
Value *Transposer::readPredecessorIndex(IRBuilder<> &B, BasicBlock &BB,
                                        const BlockContents &Contents) {
  if (Contents.RecomputedPredIdx)
    return materialize(B, Contents.RecomputedPredIdx, BB);
  Value *PredIdx = nullptr;
  for (Instruction *I : Contents.TapeLoads)
    if (I->getMetadata(PredIndexMD))
      PredIdx = materialize(B, I, BB);
  return PredIdx;
}

/// Whether a cotangent \p Ct of \p I can be skipped: nothing was added to
/// it (a value overwritten before it was read), so it is a symbolic zero,
/// as in JAX: arithmetic on it contributes nothing to its operands, and
/// IEEE rules keep -0.0 * r from folding. Calls run regardless: g.rev moves
/// memory cotangents and pops tapes.
static bool isSymbolicZero(const Instruction &I, Value *Ct) {
  auto *Zero = dyn_cast_or_null<Constant>(Ct);
  return Zero && Zero->isZeroValue() &&
         (!isa<CallBase>(I) ||
          (isa<IntrinsicInst>(I) && !I.mayReadOrWriteMemory()));
}

/// Adds the cotangent of linear \p I to the cotangents of its linear
/// operands, by its rule or, for a call of g.lin, by a call of g.rev.
bool Transposer::transposeInstruction(IRBuilder<> &B, Instruction &I,
                                      BasicBlock &BB) {
  NamedTransposeRule Rule = findTransposeRule(I);
  if (isa<CallInst>(I))
    Shadow->flush(B); // g.rev and memory intrinsics touch shadow memory
  if (auto *Call = dyn_cast<CallInst>(&I); Call && !Rule) {
    LLVM_DEBUG(dbgs() << "transpose: g.rev for" << I << '\n');
    ++NumCalleeRevCalls;
    return transposeCall(B, *Call, BB);
  }
  if (!Rule) {
    D.diags().internalError(nullptr, Twine("no transpose rule for '") +
                                         I.getOpcodeName() + "'");
    return false;
  }
  if (auto *FPOp = dyn_cast<FPMathOperator>(&I))
    B.setFastMathFlags(FPOp->getFastMathFlags());
  else
    B.clearFastMathFlags();
  // An atomic add's result (the old value) is unused: what it transposes
  // is the update of memory, which its cotangent does not scale.
  Value *Ct = I.getType()->isVoidTy() || isa<AtomicRMWInst>(I)
                  ? nullptr
                  : takeCotangent(B, &I);
  if (!isa<AtomicRMWInst>(I) && isSymbolicZero(I, Ct)) {
    LLVM_DEBUG(dbgs() << "transpose: zero cotangent, skipped" << I << '\n');
    ++NumSymbolicZeros;
    return true;
  }
  // Named: TransposeBuilder keeps only function_refs to them.
  auto RevValue = [&](Value *V) { return materialize(B, V, BB); };
  auto Accumulate = [&](Value *Op, Value *C, bool Negate) {
    accumulate(B, Op, C, Negate);
  };
  TransposeBuilder TB(B, I, Ct, RevValue, Accumulate, *Shadow,
                      SelectZeroed.count(&I));
  LLVM_DEBUG(dbgs() << "transpose: rule " << Rule.Primitive << " for" << I
                    << '\n');
  ++NumRuleTransposes;
  Rule.Apply(I, TB);
  return true;
}

/// The cotangents of \p BB's linear PHIs, which its reversed edges send to
/// the incoming values.
PhiCotangents Transposer::takePhiCotangents(IRBuilder<> &B, BasicBlock &BB) {
  PhiCotangents PhiCts;
  for (PHINode &Phi : BB.phis())
    if (isLinear(&Phi))
      PhiCts.push_back({&Phi, takeCotangent(B, &Phi)});
  return PhiCts;
}

/// The reversed edges of \p BB: to the block it was entered from.
void Transposer::emitTerminator(IRBuilder<> &B, BasicBlock &BB,
                                ArrayRef<std::pair<PHINode *, Value *>> PhiCts,
                                Value *PredIdx) {
  SmallVector<BasicBlock *, 4> Preds = predecessorsInLayoutOrder(BB);
  if (Preds.empty())
    return emitReturnOfCotangents(B);
  SmallVector<BasicBlock *, 4> Targets = reversedEdgeTargets(BB, Preds, PhiCts);
  if (Targets.size() == 1) {
    B.CreateBr(Targets[0]);
    return;
  }
  if (auto It = LoopOfHeader.find(&BB); It != LoopOfHeader.end())
    return emitLoopHeaderBranch(B, Loops[It->second], Preds, Targets);
  if (!PredIdx) {
    D.diags().internalError(nullptr, "merge block without a predecessor "
                                     "index in '" +
                                         Lin.getName() + "'");
    Failed = true;
    B.CreateUnreachable();
    return;
  }
  emitPredecessorSwitch(B, PredIdx, Targets);
}

/// f.lin's entry: f.rev returns the cotangents of f.lin's arguments.
/// + 0.0 turns the -0.0 of an input that received nothing into 0.0.
void Transposer::emitReturnOfCotangents(IRBuilder<> &B) {
  SmallVector<Value *, 4> Outs;
  for (unsigned K = 1; K < Lin.arg_size(); ++K)
    Outs.push_back(
        addCotangents(B, takeCotangent(B, Lin.getArg(K)),
                      Constant::getNullValue(Lin.getArg(K)->getType()), false));
  if (Outs.empty())
    B.CreateRetVoid();
  else if (Outs.size() == 1)
    B.CreateRet(Outs[0]);
  else
    B.CreateAggregateRet(Outs.data(), Outs.size());
}

/// Where each reversed edge of \p BB goes, in the order of \p Preds: the
/// predecessor's reversed block, or, with linear PHIs, a block on the edge
/// that accumulates their cotangents into what they took by that edge.
SmallVector<BasicBlock *, 4> Transposer::reversedEdgeTargets(
    BasicBlock &BB, ArrayRef<BasicBlock *> Preds,
    ArrayRef<std::pair<PHINode *, Value *>> PhiCts) {
  SmallVector<BasicBlock *, 4> Targets;
  for (BasicBlock *P : Preds) {
    if (PhiCts.empty()) {
      Targets.push_back(RevBlock[P]);
      continue;
    }
    BasicBlock *Edge = BasicBlock::Create(
        Lin.getContext(), BB.getName() + ".from." + P->getName(), Rev);
    IRBuilder<> EB(Edge);
    for (auto [Phi, Ct] : PhiCts)
      accumulate(EB, Phi->getIncomingValueForBlock(P), Ct, false);
    EB.CreateBr(RevBlock[P]);
    Targets.push_back(Edge);
  }
  return Targets;
}

/// Any other merge block: back along the edge f.fwd recorded it was
/// entered by (the predecessor's position in layout order).
void Transposer::emitPredecessorSwitch(IRBuilder<> &B, Value *PredIdx,
                                       ArrayRef<BasicBlock *> Targets) {
  ++NumMergeSwitches;
  SwitchInst *Sw = B.CreateSwitch(PredIdx, Targets.back(), Targets.size() - 1);
  for (unsigned K = 0; K + 1 < Targets.size(); ++K)
    Sw->addCase(cast<ConstantInt>(ConstantInt::get(PredIdx->getType(), K)),
                Targets[K]);
}

/// A select evaluates both arms, so f.lin computes the tangent of the arm
/// not chosen too, and its partials may be infinite or NaN where the primal
/// program never used its value (b != 0 ? a / b : 0 at b = 0, clang's
/// if-conversion of a guarded branch). Its cotangent is zero, and zero
/// times those partials is NaN. Every linear value that feeds an arm
/// receives a part of that zero: their products with coefficients keep a
/// zero zero (TransposeBuilder::times). Calls of g.lin are left as they
/// are: g.rev is shared with callers whose cotangents are never such zeros.
void Transposer::findSelectZeroed() {
  SmallVector<Instruction *, 16> Work;
  auto Note = [&](Value *V) {
    auto *I = dyn_cast<Instruction>(V);
    if (I && isLinear(I) && SelectZeroed.insert(I).second)
      Work.push_back(I);
  };
  for (Instruction &I : instructions(Lin))
    if (auto *Sel = dyn_cast<SelectInst>(&I);
        Sel && !isa<Constant>(Sel->getCondition()) && isLinear(Sel)) {
      Note(Sel->getTrueValue());
      Note(Sel->getFalseValue());
    }
  while (!Work.empty()) {
    Instruction *I = Work.pop_back_val();
    if (isa<CallBase>(I) || isa<LoadInst>(I) || isa<StoreInst>(I) ||
        isa<AtomicRMWInst>(I))
      continue; // a call's tangents go to g.rev; loads read memory
    for (Value *Op : I->operands())
      Note(Op);
  }
}

Function *Transposer::run() {
  Info = *getDerivedInfo(Lin);
  if (Function *Existing = findDerived(*Lin.getParent(), *Info.Primal,
                                       DerivedKind::Rev, Info.Act))
    return Existing;
  SmallVector<ReturnInst *, 1> Returns;
  for (BasicBlock &BB : Lin)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      Returns.push_back(Ret);
  if (Returns.size() > 1) {
    D.diags().internalError(nullptr, "'" + Lin.getName() +
                                         "' must have at most one return");
    return nullptr;
  }

  Rev = createRevDeclaration();
  D.noteGenerated(Rev);
  if (Returns.empty()) {
    // f never returns (an abstract class's deleting destructor is a trap),
    // so its reverse pass never runs: a call of it is a candidate of a
    // virtual call's dispatch, not a path the program takes.
    new UnreachableInst(Lin.getContext(),
                        BasicBlock::Create(Lin.getContext(), "", Rev));
    ++NumTransposed;
    return Rev;
  }
  RevTape = Rev->getArg(0);
  Shadow = std::make_unique<ShadowCotangents>(Lin.getParent()->getDataLayout());
  if (runsInParallelRegion(*getDerivedInfo(Lin)->Primal))
    Shadow->addAtomically(RevTape);
  LLVMContext &Ctx = Lin.getContext();
  // Seeds the cotangent of the result, then enters at f.lin's return.
  BasicBlock *Entry = BasicBlock::Create(Ctx, "seed", Rev);
  // f.rev's blocks in reverse layout order, so it reads top to bottom.
  for (BasicBlock &BB : reverse(Lin))
    RevBlock[&BB] = BasicBlock::Create(Ctx, BB.getName(), Rev);
  BranchInst *EntryBr =
      BranchInst::Create(RevBlock[Returns[0]->getParent()], Entry);
  SlotInsertPt = EntryBr;
  LinDT.recalculate(Lin);
  LinLI.analyze(LinDT);
  if (!findArrayLoops())
    return nullptr;
  findSelectZeroed();

  if (Value *DY = Returns[0]->getReturnValue()) {
    ReturnedValue = DY;
    IRBuilder<> B(EntryBr);
    accumulate(B, DY, Rev->getArg(1), false);
  }
  for (BasicBlock &BB : Lin)
    if (!transposeBlock(BB))
      return nullptr;

  removeUnreachableBlocks(*Rev);
  SmallVector<AllocaInst *, 32> Allocas(OtherSlots.begin(), OtherSlots.end());
  for (auto &KV : Slots)
    Allocas.push_back(KV.second);
  DominatorTree DT(*Rev);
  PromoteMemToReg(Allocas, DT);
  scopeRevMemory(*Rev);
  D.simplify(*Rev);
  if (!D.verifyStage(*Rev))
    return nullptr;
  ++NumTransposed;
  return Rev;
}

Function *transpose(Function &Lin, Differentiator &D) {
  Transposer T(Lin, D);
  return T.run();
}

} // namespace ad
