//===- SelectedLoadRecurrences.cpp - a running max read after its loop ----===//
#include "prepare/SelectedLoadRecurrences.h"
#include "ir/FunctionAliasAnalysis.h"
#include "linearize/JvpRules.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#define DEBUG_TYPE "ad-prepare"

using namespace llvm;

namespace ad {

namespace {

/// A value the nodes choose besides each other, and the load of the loop
/// it is (or is computed from: |x[i]|).
struct Leaf {
  Value *V;
  LoadInst *Load;
};

/// A loop header's phi and the selects and phis of the loop its value
/// passes through, choosing each time between itself and leaves.
struct Recurrence {
  Loop *L = nullptr;
  PHINode *Header = nullptr;
  /// The header's phi first, then the selects and phis that choose.
  SmallSetVector<Instruction *, 8> Nodes;
  /// What the nodes choose besides each other: loads, or one value
  /// computed from a load.
  SmallVector<Leaf, 4> Leaves;
  /// Nodes used after the loop.
  SmallVector<Instruction *, 2> LiveOut;
};

} // namespace

/// Whether \p Load's address is never null (the reload after the loop
/// tells the initial value by a null address).
static bool isReloadable(const LoadInst &Load) {
  return Load.isSimple() && Load.getPointerAddressSpace() == 0 &&
         !NullPointerIsDefined(Load.getFunction(), 0);
}

/// The one load of \p L that \p V is, or that \p V is computed from by
/// code that may run again after the loop (arithmetic, math functions) on
/// it and on values from outside the loop; null if there is none or more
/// than one, or \p V depends on anything else the loop computes (its
/// counter, a phi). The loop writes no memory, so that load still reads the
/// same value when the loop exits.
static LoadInst *loadBehind(Value *V, const Loop &L,
                            const TargetLibraryInfo &TLI) {
  LoadInst *Found = nullptr;
  SmallVector<Value *, 8> Worklist{V};
  SmallPtrSet<Value *, 8> Seen;
  while (!Worklist.empty()) {
    auto *I = dyn_cast<Instruction>(Worklist.pop_back_val());
    if (!I || !L.contains(I) || !Seen.insert(I).second)
      continue;
    if (auto *Load = dyn_cast<LoadInst>(I)) {
      if ((Found && Found != Load) || !isReloadable(*Load))
        return nullptr;
      Found = Load;
      continue;
    }
    if (isa<PHINode>(I) ||
        !(isSafeToSpeculativelyExecute(I) || isScalarMathCall(*I, &TLI)))
      return nullptr;
    Worklist.append(I->op_begin(), I->op_end());
  }
  return Found;
}

/// Whether \p I is fmax or fmin: it returns one of its operands, the
/// first exactly when the result compares equal to it (the JVP rule's own
/// choice; LLVM leaves open which of +0 and -0 is returned), the other when
/// that one is NaN.
static bool isChoosingMinMax(const Instruction &I) {
  const auto *II = dyn_cast<IntrinsicInst>(&I);
  return II && (II->getIntrinsicID() == Intrinsic::maxnum ||
                II->getIntrinsicID() == Intrinsic::minnum);
}

/// Whether \p I may be a node: a select, a phi, fmax or fmin.
static bool isChoice(const Instruction &I) {
  return isa<SelectInst>(I) || isa<PHINode>(I) || isChoosingMinMax(I);
}

/// The values node \p N chooses between: a select's two, fmax's or fmin's
/// operands, a phi's incoming values, but for the header's phi only those
/// from inside the loop.
static SmallVector<Value *, 4> choicesOf(Instruction &N, const Recurrence &R) {
  if (auto *SI = dyn_cast<SelectInst>(&N))
    return {SI->getTrueValue(), SI->getFalseValue()};
  if (isChoosingMinMax(N))
    return {N.getOperand(0), N.getOperand(1)};
  auto *Phi = cast<PHINode>(&N);
  SmallVector<Value *, 4> Values;
  for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K)
    if (Phi != R.Header || R.L->contains(Phi->getIncomingBlock(K)))
      Values.push_back(Phi->getIncomingValue(K));
  return Values;
}

/// Whether nothing in \p L may write the objects the leaves load from
/// (alias analysis over each whole object: a write in any iteration
/// counts; a math call may set errno), so the chosen value is still in
/// memory when the loop exits.
static bool keepsLeaves(const Loop &L, ArrayRef<Leaf> Leaves, AAResults &AA,
                        const TargetLibraryInfo &TLI) {
  return llvm::none_of(Leaves, [&](const Leaf &Lf) {
    return loopMayModifyObject(
        L, Lf.Load->getPointerOperand(), AA,
        [&](const Instruction &W) { return isScalarMathCall(W, &TLI); });
  });
}

/// Collects the nodes reached from the header's phi through selects and
/// phis of the loop (not of a loop inside it). False if the recurrence's
/// value has another use in the loop than those and comparisons.
static bool collectNodes(Recurrence &R, const LoopInfo &LI) {
  for (unsigned K = 0; K < R.Nodes.size(); ++K) {
    Instruction *N = R.Nodes[K];
    bool UsedAfterLoop = false;
    for (User *U : N->users()) {
      auto *UI = cast<Instruction>(U);
      if (!R.L->contains(UI))
        UsedAfterLoop = true;
      else if (isChoice(*UI) && LI.getLoopFor(UI->getParent()) == R.L)
        R.Nodes.insert(UI);
      else if (!isa<FCmpInst>(UI))
        return false;
    }
    if (UsedAfterLoop)
      R.LiveOut.push_back(N);
  }
  return true;
}

/// The recurrence of \p Header in \p L, if it is one this file rewrites.
static std::optional<Recurrence> findRecurrence(PHINode &Header, Loop &L,
                                                const LoopInfo &LI,
                                                AAResults &AA,
                                                const TargetLibraryInfo &TLI) {
  Type *Ty = Header.getType();
  if (!Ty->isFloatingPointTy() || !L.getLoopPreheader() ||
      Header.getNumIncomingValues() != 2 || !L.getUniqueExitBlock() ||
      !L.hasDedicatedExits())
    return std::nullopt;
  Recurrence R;
  R.L = &L;
  R.Header = &Header;
  R.Nodes.insert(&Header);
  if (!collectNodes(R, LI) || R.LiveOut.empty())
    return std::nullopt;
  SmallPtrSet<Value *, 4> SeenLeaves;
  for (Instruction *N : R.Nodes)
    for (Value *V : choicesOf(*N, R)) {
      auto *I = dyn_cast<Instruction>(V);
      if ((I && R.Nodes.contains(I)) || !SeenLeaves.insert(V).second)
        continue;
      LoadInst *Load = I ? loadBehind(I, L, TLI) : nullptr;
      if (!Load)
        return std::nullopt;
      R.Leaves.push_back({V, Load});
    }
  // After the loop, an address alone says which value was chosen when
  // every leaf is a load, or when there is only one leaf.
  bool AllLoads =
      llvm::all_of(R.Leaves, [](const Leaf &Lf) { return Lf.V == Lf.Load; });
  if ((!AllLoads && R.Leaves.size() != 1) || !keepsLeaves(L, R.Leaves, AA, TLI))
    return std::nullopt;
  return R;
}

/// Builds, next to each node, the address of the value it holds: a leaf's
/// pointer operand, null for the initial value. Returns the map.
static DenseMap<Value *, Value *> buildAddresses(const Recurrence &R) {
  LLVMContext &Ctx = R.Header->getContext();
  auto *PtrTy = PointerType::get(Ctx, 0);
  DenseMap<Value *, Value *> Address;
  for (const Leaf &Lf : R.Leaves)
    Address[Lf.V] = Lf.Load->getPointerOperand();
  // Phis first: a select may choose a phi of a block below it (a cycle).
  for (Instruction *N : R.Nodes)
    if (auto *Phi = dyn_cast<PHINode>(N))
      Address[Phi] =
          PHINode::Create(PtrTy, Phi->getNumIncomingValues(),
                          Phi->getName() + ".from", Phi->getIterator());
  // A select's chosen values are defined above it; built in any order,
  // each operand's address is made first.
  std::function<Value *(Value *)> AddressOf = [&](Value *V) -> Value * {
    if (Value *A = Address.lookup(V))
      return A;
    auto *N = cast<Instruction>(V);
    IRBuilder<> B(N->getNextNode());
    if (auto *SI = dyn_cast<SelectInst>(N)) {
      Value *T = AddressOf(SI->getTrueValue());
      Value *F = AddressOf(SI->getFalseValue());
      return Address[N] = B.CreateSelect(SI->getCondition(), T, F,
                                         N->getName() + ".from");
    }
    Value *First = AddressOf(N->getOperand(0));
    Value *Second = AddressOf(N->getOperand(1));
    Value *IsFirst = B.CreateFCmpOEQ(N, N->getOperand(0));
    return Address[N] =
               B.CreateSelect(IsFirst, First, Second, N->getName() + ".from");
  };
  for (Instruction *N : R.Nodes) {
    auto *Phi = dyn_cast<PHINode>(N);
    if (!Phi)
      continue;
    auto *From = cast<PHINode>(Address[Phi]);
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      BasicBlock *In = Phi->getIncomingBlock(K);
      From->addIncoming(Phi == R.Header && !R.L->contains(In)
                            ? ConstantPointerNull::get(PtrTy)
                            : AddressOf(Phi->getIncomingValue(K)),
                        In);
    }
  }
  for (Instruction *N : R.Nodes)
    if (!isa<PHINode>(N))
      AddressOf(N);
  return Address;
}

/// The leaf \p Lf again at \p B's insertion point, from \p Loaded, the
/// value its load reads there: the code between the load and the leaf,
/// cloned in order, with values from outside the loop used as they are.
static Value *recomputeLeaf(IRBuilderBase &B, const Leaf &Lf, const Loop &L,
                            Value *Loaded) {
  ValueToValueMapTy Map;
  Map[Lf.Load] = Loaded;
  // Operands before users: a post-order walk from the leaf.
  std::function<Value *(Value *)> Again = [&](Value *V) -> Value * {
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !L.contains(I))
      return V;
    if (Value *Done = Map.lookup(I))
      return Done;
    Instruction *Copy = I->clone();
    for (Use &Op : Copy->operands())
      Op.set(Again(Op.get()));
    B.Insert(Copy, I->getName() + ".again");
    return Map[I] = Copy;
  };
  return Again(Lf.V);
}

/// In exit block \p Exit, replaces the value \p Out the loop leaves (a
/// phi of nodes) by the leaf at the address of the value it holds, read
/// again, or by \p Init where that address is null.
static void reloadAtExit(PHINode &Out, const Recurrence &R,
                         DenseMap<Value *, Value *> &Address, Value *Init) {
  BasicBlock *Exit = Out.getParent();
  LLVMContext &Ctx = Exit->getContext();
  auto *From =
      PHINode::Create(PointerType::get(Ctx, 0), Out.getNumIncomingValues(),
                      Out.getName() + ".from", Out.getIterator());
  for (unsigned K = 0; K < Out.getNumIncomingValues(); ++K)
    From->addIncoming(Address.lookup(Out.getIncomingValue(K)),
                      Out.getIncomingBlock(K));
  const Leaf &First = R.Leaves.front();
  Align Alignment = First.Load->getAlign();
  for (const Leaf &Lf : R.Leaves)
    Alignment = std::min(Alignment, Lf.Load->getAlign());

  BasicBlock *Rest = Exit->splitBasicBlock(Exit->getFirstNonPHIIt(),
                                           Exit->getName() + ".reloaded");
  BasicBlock *Reload = BasicBlock::Create(Ctx, Exit->getName() + ".reload",
                                          Exit->getParent(), Rest);
  Exit->getTerminator()->eraseFromParent();
  IRBuilder<> B(Exit);
  B.SetCurrentDebugLocation(First.Load->getDebugLoc());
  B.CreateCondBr(B.CreateIsNull(From, Out.getName() + ".initial"), Rest,
                 Reload);
  B.SetInsertPoint(Reload);
  // All leaves are loads of the result's type, or there is one leaf.
  Value *Again = B.CreateAlignedLoad(First.Load->getType(), From, Alignment,
                                     Out.getName() + ".again");
  if (First.V != First.Load)
    Again = recomputeLeaf(B, First, *R.L, Again);
  B.CreateBr(Rest);
  B.SetInsertPoint(Rest, Rest->begin());
  PHINode *Result = B.CreatePHI(Out.getType(), 2, Out.getName());
  Result->addIncoming(Init, Exit);
  Result->addIncoming(Again, Reload);
  Out.replaceAllUsesWith(Result);
  Out.eraseFromParent();
}

/// Rewrites \p R: addresses next to its nodes, its uses after the loop
/// through phis of the exit block (LCSSA), each replaced by a reload.
static void reloadAfterLoop(Recurrence &R, DominatorTree &DT, LoopInfo &LI) {
  DenseMap<Value *, Value *> Address = buildAddresses(R);
  SmallVector<Instruction *, 2> Worklist(R.LiveOut.begin(), R.LiveOut.end());
  formLCSSAForInstructions(Worklist, DT, LI, /*SE=*/nullptr);
  BasicBlock *Exit = R.L->getUniqueExitBlock();
  Value *Init = R.Header->getIncomingValueForBlock(R.L->getLoopPreheader());
  SmallVector<PHINode *, 2> Outs;
  for (PHINode &Out : Exit->phis())
    if (llvm::all_of(Out.incoming_values(), [&](Value *V) {
          auto *I = dyn_cast<Instruction>(V);
          return I && R.Nodes.contains(I);
        }))
      Outs.push_back(&Out);
  for (PHINode *Out : Outs)
    reloadAtExit(*Out, R, Address, Init);
}

/// The next recurrence of \p F to rewrite whose header's phi is not in
/// \p Tried (which gets every phi looked at).
static std::optional<Recurrence>
findNextRecurrence(LoopInfo &LI, AAResults &AA, const TargetLibraryInfo &TLI,
                   SmallPtrSetImpl<PHINode *> &Tried) {
  for (Loop *L : LI.getLoopsInPreorder())
    for (PHINode &Phi : L->getHeader()->phis()) {
      if (!Tried.insert(&Phi).second || !Phi.getType()->isFloatingPointTy())
        continue;
      if (auto R = findRecurrence(Phi, *L, LI, AA, TLI))
        return R;
    }
  return std::nullopt;
}

bool reloadSelectedLoadRecurrences(Function &F, const TargetLibraryInfo &TLI,
                                   AssumptionCache &AC) {
  // Most functions have no floating-point phi at all: no analyses then.
  bool HasFloatPhi = llvm::any_of(F, [](BasicBlock &BB) {
    return llvm::any_of(BB.phis(), [](PHINode &Phi) {
      return Phi.getType()->isFloatingPointTy();
    });
  });
  if (!HasFloatPhi)
    return false;
  bool Changed = false;
  SmallPtrSet<PHINode *, 8> Tried;
  // One rewrite per round: it splits an exit block, which LoopInfo and
  // the dominator tree are rebuilt for.
  while (true) {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    FunctionAliasAnalysis Alias(F, TLI, AC, DT);
    std::optional<Recurrence> R = findNextRecurrence(LI, Alias.AA, TLI, Tried);
    if (!R)
      return Changed;
    reloadAfterLoop(*R, DT, LI);
    Changed = true;
  }
}

} // namespace ad
