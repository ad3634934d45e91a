//===- Unzip.cpp - f.jvp -> f.fwd + %f.tape + f.lin -----------------------===//
#include "Unzip.h"
#include "DerivedFunctions.h"
#include "Linearity.h"
#include "Linearize.h"
#include "ShadowMemory.h"
#include "TapeRuntime.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Transforms/Utils/Cloning.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumUnzipped, "Number of JVP functions unzipped");
STATISTIC(NumResiduals, "Number of residuals saved on tapes");

namespace ad {

SmallVector<BasicBlock *, 4> predecessorsInLayoutOrder(BasicBlock &BB) {
  SmallPtrSet<BasicBlock *, 4> Preds(pred_begin(&BB), pred_end(&BB));
  SmallVector<BasicBlock *, 4> Ordered;
  for (BasicBlock &Candidate : *BB.getParent())
    if (Preds.count(&Candidate))
      Ordered.push_back(&Candidate);
  return Ordered;
}

static Type *predIndexType(LLVMContext &Ctx, unsigned NumPreds) {
  return NumPreds <= 256 ? Type::getInt8Ty(Ctx) : Type::getInt32Ty(Ctx);
}

/// A call of a generated JVP: it computes primal and tangent at once and is
/// split by unzipping.
static Function *mixedCallee(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  Function *Callee = CB ? CB->getCalledFunction() : nullptr;
  if (!Callee)
    return nullptr;
  auto Info = getDerivedInfo(*Callee);
  return Info && Info->Kind == DerivedKind::Jvp ? Callee : nullptr;
}

namespace {

/// Where a residual, a predecessor index or a callee's tape is kept: a
/// field of the static %f.tape, or of the record a loop block pushes.
struct TapeSlot {
  BasicBlock *Record = nullptr; ///< null: the static tape
  unsigned Field = 0;
};

/// The record a block inside a loop pushes at every execution.
struct BlockRecord {
  SmallVector<Type *, 8> Fields;
  SmallVector<std::pair<Value *, unsigned>, 8> Residuals; ///< Jvp value
  std::optional<unsigned> PredIndex;
  SmallVector<std::pair<CallBase *, unsigned>, 2> CalleeTapes; ///< pointers
  StructType *Ty = nullptr;
  unsigned add(Type *T) {
    Fields.push_back(T);
    return Fields.size() - 1;
  }
};

struct TapeLayout {
  SmallVector<Type *, 16> StaticFields;
  MapVector<Value *, unsigned> StaticResiduals; ///< stored at definition
  DenseMap<std::pair<BasicBlock *, Value *>, TapeSlot> Reads;
  DenseMap<BasicBlock *, TapeSlot> PredIndex;
  DenseMap<CallBase *, TapeSlot> CalleeTapes;
  DenseMap<CallBase *, Unzipped> Callees;
  MapVector<BasicBlock *, BlockRecord> Records;
  MapVector<AllocaInst *, unsigned> ShadowAllocas; ///< -> static field

  unsigned addStatic(Type *T) {
    StaticFields.push_back(T);
    return StaticFields.size() - 1;
  }
};

class Unzipper {
public:
  Unzipper(Function &Jvp, Differentiator &D) : Jvp(Jvp), D(D) {}
  std::optional<Unzipped> run();

private:
  bool planTape();
  void noteResidual(BasicBlock &BB, Value *V);
  Function *buildFwd();
  Function *buildLin();
  Value *staticField(IRBuilderBase &B, Value *TapePtr, unsigned Field);
  Value *slotAddress(IRBuilderBase &B, TapeSlot S, Value *TapePtr,
                     Value *Record);
  /// A tangent parameter of f.jvp (linear); shadows are non-linear.
  bool isTangentArg(const Argument &A) const {
    unsigned N = Info.Primal->arg_size();
    return A.getArgNo() >= N &&
           Info.Act.isActive(Info.Act.extraOwners()[A.getArgNo() - N]);
  }

  Function &Jvp;
  Differentiator &D;
  DerivedInfo Info{};
  TapeLayout Layout;
  StructType *TapeTy = nullptr;
  SmallPtrSet<Instruction *, 2> ReturnPacking; // the {y, dy} insertvalues
  std::unique_ptr<DominatorTree> DT;
  std::unique_ptr<LoopInfo> LI;
};

} // namespace

/// Splits the arguments of a call of g.jvp: g's own arguments and the
/// shadows (for g.fwd), or the tangents (for g.lin).
static SmallVector<Value *, 8> calleeArgs(CallBase &JvpCall, bool Tangents) {
  auto Info = getDerivedInfo(*JvpCall.getCalledFunction());
  unsigned N = Info->Primal->arg_size();
  SmallVector<Value *, 8> Out;
  if (!Tangents)
    Out.append(JvpCall.arg_begin(), JvpCall.arg_begin() + N);
  SmallVector<unsigned, 8> Owners = Info->Act.extraOwners();
  for (unsigned K = 0; K < Owners.size(); ++K)
    if (Info->Act.isActive(Owners[K]) == Tangents)
      Out.push_back(JvpCall.getArgOperand(N + K));
  return Out;
}

Value *Unzipper::staticField(IRBuilderBase &B, Value *TapePtr, unsigned Field) {
  return B.CreateStructGEP(TapeTy, TapePtr, Field);
}

Value *Unzipper::slotAddress(IRBuilderBase &B, TapeSlot S, Value *TapePtr,
                             Value *Record) {
  if (!S.Record)
    return staticField(B, TapePtr, S.Field);
  return B.CreateStructGEP(Layout.Records[S.Record].Ty, Record, S.Field);
}

/// Residual \p V is read by linear code (or the terminator) of \p BB. Values
/// computed outside every loop are taped once, in the static tape, even when
/// loops read them; values computed inside a loop go into the record of each
/// loop block that reads them.
void Unzipper::noteResidual(BasicBlock &BB, Value *V) {
  auto *A = dyn_cast<Argument>(V);
  auto *I = dyn_cast<Instruction>(V);
  if ((!A && !I) || isLinear(V) || (A && isTangentArg(*A)))
    return;
  if (Layout.Reads.count({&BB, V}))
    return;
  bool DefinedInLoop = I && LI->getLoopFor(I->getParent());
  if (!LI->getLoopFor(&BB) || !DefinedInLoop) {
    auto [It, New] = Layout.StaticResiduals.insert({V, 0});
    if (New)
      It->second = Layout.addStatic(V->getType());
    Layout.Reads[{&BB, V}] = {nullptr, It->second};
    return;
  }
  BlockRecord &R = Layout.Records[&BB];
  unsigned Field = R.add(V->getType());
  R.Residuals.push_back({V, Field});
  Layout.Reads[{&BB, V}] = {&BB, Field};
}

bool Unzipper::planTape() {
  DT = std::make_unique<DominatorTree>(Jvp);
  LI = std::make_unique<LoopInfo>(*DT);
  for (BasicBlock &BB : Jvp)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      if (auto [Y, DY] = unpackJvpReturn(*Ret); DY) {
        auto *WithTangent = cast<Instruction>(Ret->getReturnValue());
        ReturnPacking.insert(WithTangent);
        ReturnPacking.insert(cast<Instruction>(WithTangent->getOperand(0)));
      }

  LLVMContext &Ctx = Jvp.getContext();
  for (BasicBlock &BB : Jvp) {
    bool InLoop = LI->getLoopFor(&BB);
    if (size_t N = predecessorsInLayoutOrder(BB).size(); N > 1) {
      Type *IdxTy = predIndexType(Ctx, N);
      if (InLoop) {
        BlockRecord &R = Layout.Records[&BB];
        R.PredIndex = R.add(IdxTy);
        Layout.PredIndex[&BB] = {&BB, *R.PredIndex};
      } else {
        Layout.PredIndex[&BB] = {nullptr, Layout.addStatic(IdxTy)};
      }
    }
    for (Instruction &I : BB) {
      if (ReturnPacking.count(&I))
        continue;
      if (Function *Callee = mixedCallee(I)) {
        std::optional<Unzipped> U = D.getUnzipped(*Callee);
        if (!U)
          return false;
        auto *CB = cast<CallBase>(&I);
        Layout.Callees[CB] = *U;
        if (InLoop) {
          // The callee's tape is pushed for each call; the record keeps
          // its address for f.lin and f.rev.
          BlockRecord &R = Layout.Records[&BB];
          unsigned Field = R.add(PointerType::getUnqual(Ctx));
          R.CalleeTapes.push_back({CB, Field});
          Layout.CalleeTapes[CB] = {&BB, Field};
        } else {
          Layout.CalleeTapes[CB] = {nullptr, Layout.addStatic(U->Tape)};
        }
        continue;
      }
      if (isLinear(&I)) {
        // The tangent half of a mixed call becomes g.lin's result.
        auto *Agg = dyn_cast<Instruction>(I.getOperand(0));
        if (isa<ExtractValueInst>(I) && Agg && mixedCallee(*Agg))
          continue;
        for (Value *Op : I.operands())
          noteResidual(BB, Op);
        continue;
      }
      if (auto *Br = dyn_cast<BranchInst>(&I); Br && Br->isConditional())
        noteResidual(BB, Br->getCondition());
      else if (auto *Sw = dyn_cast<SwitchInst>(&I))
        noteResidual(BB, Sw->getCondition());
      else if (I.isTerminator() && !isa<ReturnInst>(I) &&
               !isa<BranchInst>(I) && !isa<UnreachableInst>(I)) {
        D.diags().errorAt(I, Twine("cannot differentiate through the "
                                   "terminator '") +
                                 I.getOpcodeName() + "' (not supported yet)");
        return false;
      }
    }
  }
  // Shadows of local variables must outlive f.fwd: they live in the tape.
  for (Instruction &I : instructions(Jvp))
    if (I.getMetadata(ShadowAllocaMD)) {
      auto *AI = cast<AllocaInst>(&I);
      Type *T = AI->getAllocatedType();
      if (auto *N = dyn_cast<ConstantInt>(AI->getArraySize()); N && !N->isOne())
        T = ArrayType::get(T, N->getZExtValue());
      Layout.ShadowAllocas[AI] = Layout.addStatic(T);
    }
  NumResiduals += Layout.StaticResiduals.size();
  for (auto &[BB, R] : Layout.Records) {
    R.Ty = StructType::get(Ctx, R.Fields);
    NumResiduals += R.Residuals.size();
  }
  TapeTy = StructType::create(Ctx, Layout.StaticFields,
                              derivedName(*Info.Primal, "tape", Info.Act));
  return true;
}

Function *Unzipper::buildFwd() {
  Function &Primal = *Info.Primal;
  // f's parameters, the shadows of its AD_DUP pointers (shadow addresses
  // are computed here and taped), then the tape.
  SmallVector<Type *, 8> Params(Primal.getFunctionType()->params());
  SmallVector<Argument *, 4> JvpShadows;
  for (unsigned K = Primal.arg_size(); K < Jvp.arg_size(); ++K)
    if (!isTangentArg(*Jvp.getArg(K))) {
      JvpShadows.push_back(Jvp.getArg(K));
      Params.push_back(Jvp.getArg(K)->getType());
    }
  Params.push_back(PointerType::getUnqual(Jvp.getContext()));
  auto *FT = FunctionType::get(Primal.getReturnType(), Params, false);
  Function *Fwd = Function::Create(FT, GlobalValue::InternalLinkage,
                                   derivedName(Primal, "fwd", Info.Act),
                                   Jvp.getParent());
  Argument *TapePtr = Fwd->getArg(Fwd->arg_size() - 1);
  TapePtr->setName("tape");

  ValueToValueMapTy VMap;
  for (Argument &A : Jvp.args())
    VMap[&A] = A.getArgNo() < Primal.arg_size()
                   ? static_cast<Value *>(Fwd->getArg(A.getArgNo()))
                   : PoisonValue::get(A.getType());
  for (unsigned K = 0; K < JvpShadows.size(); ++K)
    VMap[JvpShadows[K]] = Fwd->getArg(Primal.arg_size() + K);
  for (Argument &A : Jvp.args())
    if (Value *M = VMap.lookup(&A); M && isa<Argument>(M))
      M->setName(A.getName());
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(Fwd, &Jvp, VMap, CloneFunctionChangeType::GlobalChanges,
                    Returns);
  copyPrimalAttributes(*Fwd, Primal, Primal.arg_size(), /*WritesTape=*/true);
  Fwd->setLinkage(GlobalValue::InternalLinkage);
  tagDerived(*Fwd, DerivedKind::Fwd, Primal, Info.Act);

  // Static residuals are stored right where they become available.
  for (auto [V, Field] : Layout.StaticResiduals) {
    Value *Mapped = VMap.lookup(V);
    IRBuilder<> B(Fwd->getContext());
    if (isa<Argument>(V))
      B.SetInsertPoint(&*Fwd->getEntryBlock().getFirstInsertionPt());
    else if (isa<PHINode>(Mapped))
      B.SetInsertPoint(&*cast<Instruction>(Mapped)->getParent()->getFirstInsertionPt());
    else
      B.SetInsertPoint(cast<Instruction>(Mapped)->getNextNode());
    B.CreateStore(Mapped, staticField(B, TapePtr, Field));
  }
  for (auto [AI, Field] : Layout.ShadowAllocas) {
    auto *FwdAI = cast<AllocaInst>(VMap.lookup(AI));
    IRBuilder<> B(FwdAI);
    Value *InTape = staticField(B, TapePtr, Field);
    InTape->takeName(FwdAI);
    FwdAI->replaceAllUsesWith(InTape);
    FwdAI->eraseFromParent();
  }
  // Which predecessor each merge block was entered from.
  DenseMap<BasicBlock *, Value *> PredIdx; // Jvp block -> Fwd phi
  for (auto [BB, Slot] : Layout.PredIndex) {
    auto *FwdBB = cast<BasicBlock>(VMap.lookup(BB));
    SmallVector<BasicBlock *, 4> Preds = predecessorsInLayoutOrder(*FwdBB);
    Type *IdxTy = predIndexType(Fwd->getContext(), Preds.size());
    auto *Idx = PHINode::Create(IdxTy, Preds.size(), "pred.idx");
    Idx->insertBefore(FwdBB->getFirstNonPHIIt());
    for (BasicBlock *P : predecessors(FwdBB))
      Idx->addIncoming(ConstantInt::get(IdxTy, llvm::find(Preds, P) - Preds.begin()), P);
    PredIdx[BB] = Idx;
    if (!Slot.Record) {
      IRBuilder<> B(&*FwdBB->getFirstInsertionPt());
      B.CreateStore(Idx, staticField(B, TapePtr, Slot.Field));
    }
  }
  // g.jvp(x, dx) becomes g.fwd(x, tape of g): a field of the static tape,
  // or, inside a loop, a tape pushed for this call.
  DenseMap<CallBase *, Value *> PushedCalleeTape;
  for (auto [JvpCall, Slot] : Layout.CalleeTapes) {
    auto *Call = cast<CallBase>(VMap.lookup(JvpCall));
    const Unzipped &U = Layout.Callees[JvpCall];
    IRBuilder<> B(Call);
    SmallVector<Value *, 8> Args = calleeArgs(*Call, /*Tangents=*/false);
    Value *CalleeTape;
    if (Slot.Record)
      PushedCalleeTape[JvpCall] = CalleeTape = emitTapeCall(B, TapeOp::Push, U.Tape);
    else
      CalleeTape = staticField(B, TapePtr, Slot.Field);
    Args.push_back(CalleeTape);
    CallInst *FwdCall = B.CreateCall(U.Fwd, Args);
    FwdCall->setDebugLoc(Call->getDebugLoc());
    if (Call->getType() == FwdCall->getType()) {
      // No tangent result (void or integer): the result is the primal one.
      Call->replaceAllUsesWith(FwdCall);
    } else {
      for (User *Usr : make_early_inc_range(Call->users()))
        if (auto *EV = dyn_cast<ExtractValueInst>(Usr); EV && EV->getIndices()[0] == 0) {
          EV->replaceAllUsesWith(FwdCall);
          EV->eraseFromParent();
        }
      Call->replaceAllUsesWith(PoisonValue::get(Call->getType()));
    }
    Call->eraseFromParent();
  }
  // Each loop block pushes its record when it is done, after the records
  // its callees pushed, so that f.rev pops it first.
  for (auto &[BB, R] : Layout.Records) {
    auto *FwdBB = cast<BasicBlock>(VMap.lookup(BB));
    IRBuilder<> B(FwdBB->getTerminator());
    Value *Rec = emitTapeCall(B, TapeOp::Push, R.Ty);
    auto Store = [&](Value *V, unsigned Field) {
      B.CreateStore(V, B.CreateStructGEP(R.Ty, Rec, Field));
    };
    for (auto [V, Field] : R.Residuals)
      Store(VMap.lookup(V), Field);
    if (R.PredIndex)
      Store(PredIdx[BB], *R.PredIndex);
    for (auto [Call, Field] : R.CalleeTapes)
      Store(PushedCalleeTape[Call], Field);
  }
  // Return the primal result only; then drop every linear instruction.
  for (ReturnInst *Ret : Returns) {
    auto [Y, DY] = unpackJvpReturn(*Ret);
    if (!DY)
      continue;
    auto *Packed = cast<Instruction>(Ret->getReturnValue());
    ReturnInst::Create(Fwd->getContext(), Y, Ret->getIterator());
    Ret->eraseFromParent();
    Instruction *WithPrimal = cast<Instruction>(Packed->getOperand(0));
    Packed->eraseFromParent();
    WithPrimal->eraseFromParent();
  }
  SmallVector<Instruction *, 32> Linear;
  for (BasicBlock &BB : *Fwd)
    for (Instruction &I : BB)
      if (isLinear(&I))
        Linear.push_back(&I);
  for (Instruction *I : Linear)
    I->replaceAllUsesWith(PoisonValue::get(I->getType()));
  for (Instruction *I : Linear)
    I->eraseFromParent();
  return Fwd;
}

Function *Unzipper::buildLin() {
  Function &Primal = *Info.Primal;
  LLVMContext &Ctx = Jvp.getContext();
  SmallVector<Type *, 8> Params{PointerType::getUnqual(Ctx)};
  for (Argument &A : Primal.args())
    if (Info.Act.isActive(A.getArgNo()))
      Params.push_back(A.getType());
  Type *RetTy = isDifferentiableType(Primal.getReturnType())
                    ? Primal.getReturnType()
                    : Type::getVoidTy(Ctx);
  Function *Lin = Function::Create(FunctionType::get(RetTy, Params, false),
                                   GlobalValue::InternalLinkage,
                                   derivedName(Primal, "lin", Info.Act),
                                   Jvp.getParent());
  tagDerived(*Lin, DerivedKind::Lin, Primal, Info.Act);
  Argument *TapePtr = Lin->getArg(0);
  TapePtr->setName("tape");

  DenseMap<Value *, Value *> Map; // Jvp linear value -> Lin value
  unsigned NextLinArg = 1;
  for (unsigned K = Primal.arg_size(); K < Jvp.arg_size(); ++K)
    if (isTangentArg(*Jvp.getArg(K))) {
      Argument *A = Lin->getArg(NextLinArg++);
      A->setName(Jvp.getArg(K)->getName());
      Map[Jvp.getArg(K)] = A;
    }
  DenseMap<BasicBlock *, BasicBlock *> BlockMap;
  for (BasicBlock &BB : Jvp)
    BlockMap[&BB] = BasicBlock::Create(Ctx, BB.getName(), Lin);

  // Each block reads its residuals from the tape itself (once per block).
  DenseMap<std::pair<BasicBlock *, Value *>, Value *> LocalReads;
  Value *Record = nullptr; // of the block being built
  BasicBlock *JvpBB = nullptr;
  auto Operand = [&](IRBuilder<> &B, Value *V) -> Value * {
    if (isa<Constant>(V))
      return V;
    if (Value *L = Map.lookup(V))
      return L;
    auto It = Layout.Reads.find({JvpBB, V});
    assert(It != Layout.Reads.end() && "non-linear value not taped");
    Value *&Read = LocalReads[{JvpBB, V}];
    if (!Read)
      Read = B.CreateLoad(V->getType(),
                          slotAddress(B, It->second, TapePtr, Record),
                          V->getName());
    return Read;
  };

  SmallVector<std::pair<PHINode *, PHINode *>, 8> Phis;
  ReversePostOrderTraversal<Function *> RPO(&Jvp);
  for (BasicBlock *BB : RPO) {
    JvpBB = BB;
    IRBuilder<> B(BlockMap[BB]);
    for (PHINode &Phi : BB->phis())
      if (isLinear(&Phi)) {
        PHINode *LP = B.CreatePHI(Phi.getType(), Phi.getNumIncomingValues(),
                                  Phi.getName());
        markLinear(LP);
        Map[&Phi] = LP;
        Phis.push_back({&Phi, LP});
      }
    Record = nullptr;
    if (auto It = Layout.Records.find(BB); It != Layout.Records.end())
      Record = emitTapeCall(B, TapeOp::Read, It->second.Ty);
    if (auto It = Layout.PredIndex.find(BB); It != Layout.PredIndex.end()) {
      auto *Idx = B.CreateLoad(
          predIndexType(Ctx, predecessorsInLayoutOrder(*BB).size()),
          slotAddress(B, It->second, TapePtr, Record), "pred.idx");
      markWith(Idx, PredIndexMD);
    }
    for (Instruction &I : *BB) {
      if (isa<PHINode>(I) || ReturnPacking.count(&I))
        continue;
      auto *Call = dyn_cast<CallBase>(&I);
      if (auto CT = Call ? Layout.CalleeTapes.find(Call) : Layout.CalleeTapes.end();
          CT != Layout.CalleeTapes.end()) {
        // g.jvp(x, dx) becomes g.lin(tape of g, dx).
        const Unzipped &U = Layout.Callees[Call];
        Value *CalleeTape = slotAddress(B, CT->second, TapePtr, Record);
        if (CT->second.Record)
          CalleeTape = B.CreateLoad(PointerType::getUnqual(Ctx), CalleeTape);
        SmallVector<Value *, 8> Args{CalleeTape};
        for (Value *T : calleeArgs(*Call, /*Tangents=*/true))
          Args.push_back(Operand(B, T));
        CallInst *LinCall = B.CreateCall(U.Lin, Args);
        markLinear(LinCall);
        if (CT->second.Record)
          markCalleeTapeOnStack(LinCall, U.Tape);
        for (User *Usr : Call->users())
          if (auto *EV = dyn_cast<ExtractValueInst>(Usr);
              EV && EV->getIndices()[0] == 1)
            Map[EV] = LinCall;
        continue;
      }
      if (isLinear(&I)) {
        if (Map.count(&I)) // extractvalue of a mixed call, done above
          continue;
        Instruction *C = I.clone();
        for (Use &U : C->operands())
          U.set(Operand(B, U.get()));
        C->setDebugLoc(DebugLoc());
        C->setName(I.getName());
        B.Insert(C);
        Map[&I] = C;
        continue;
      }
      if (auto *Ret = dyn_cast<ReturnInst>(&I)) {
        auto [Y, DY] = unpackJvpReturn(*Ret);
        if (RetTy->isVoidTy())
          B.CreateRetVoid();
        else
          B.CreateRet(Operand(B, DY));
      } else if (auto *Br = dyn_cast<BranchInst>(&I)) {
        if (Br->isConditional())
          B.CreateCondBr(Operand(B, Br->getCondition()),
                         BlockMap[Br->getSuccessor(0)],
                         BlockMap[Br->getSuccessor(1)]);
        else
          B.CreateBr(BlockMap[Br->getSuccessor(0)]);
      } else if (auto *Sw = dyn_cast<SwitchInst>(&I)) {
        SwitchInst *LS = B.CreateSwitch(Operand(B, Sw->getCondition()),
                                        BlockMap[Sw->getDefaultDest()],
                                        Sw->getNumCases());
        for (auto &Case : Sw->cases())
          LS->addCase(Case.getCaseValue(), BlockMap[Case.getCaseSuccessor()]);
      } else if (isa<UnreachableInst>(I)) {
        B.CreateUnreachable();
      }
    }
  }
  for (auto [Phi, LP] : Phis)
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      Value *In = Phi->getIncomingValue(K);
      Value *LIn = isa<Constant>(In) ? In : Map.lookup(In);
      LP->addIncoming(LIn ? LIn : Constant::getNullValue(LP->getType()),
                      BlockMap[Phi->getIncomingBlock(K)]);
    }
  // Blocks unreachable in f.jvp got no terminator.
  for (BasicBlock &BB : *Lin)
    if (!BB.getTerminator())
      new UnreachableInst(Ctx, &BB);
  return Lin;
}

std::optional<Unzipped> unzip(Function &Jvp, Differentiator &D) {
  auto Info = getDerivedInfo(Jvp);
  assert(Info && Info->Kind == DerivedKind::Jvp && "unzip expects f.jvp");
  Module &M = *Jvp.getParent();
  Function *Fwd = findDerived(M, *Info->Primal, DerivedKind::Fwd, Info->Act);
  Function *Lin = findDerived(M, *Info->Primal, DerivedKind::Lin, Info->Act);
  if (Fwd && Lin)
    return Unzipped{Fwd, Lin,
                    StructType::getTypeByName(
                        M.getContext(),
                        derivedName(*Info->Primal, "tape", Info->Act))};
  Unzipper U(Jvp, D);
  return U.run();
}

std::optional<Unzipped> Unzipper::run() {
  Info = *getDerivedInfo(Jvp);
  if (!planTape())
    return std::nullopt;
  Function *Fwd = buildFwd();
  D.noteGenerated(Fwd);
  Function *Lin = buildLin();
  D.noteGenerated(Lin);
  if (!D.verifyLinearity(*Fwd) || !D.verifyLinearity(*Lin))
    return std::nullopt;
  ++NumUnzipped;
  return Unzipped{Fwd, Lin, TapeTy};
}

} // namespace ad
