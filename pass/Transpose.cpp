//===- Transpose.cpp - f.lin -> f.rev -------------------------------------===//
#include "Transpose.h"
#include "DerivedFunctions.h"
#include "Differentiator.h"
#include "Linearity.h"
#include "TapeRuntime.h"
#include "TransposeRules.h"
#include "Unzip.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#define DEBUG_TYPE "ad-transpose"

using namespace llvm;

STATISTIC(NumTransposed, "Number of linear functions transposed");

namespace ad {

namespace {

class Transposer {
public:
  Transposer(Function &Lin, Differentiator &D) : Lin(Lin), D(D) {}
  Function *run();

private:
  Function *createRevDeclaration();
  AllocaInst *slot(Value *V);
  void accumulate(IRBuilder<> &B, Value *LinValue, Value *C, bool Negate);
  Value *takeCotangent(IRBuilder<> &B, Value *LinValue);
  bool transposeBlock(BasicBlock &BB);
  bool transposeCall(IRBuilder<> &B, CallInst &Call,
                     DenseMap<Value *, Value *> &Local);

  Function &Lin;
  Differentiator &D;
  DerivedInfo Info{};
  Function *Rev = nullptr;
  Argument *RevTape = nullptr;
  Instruction *SlotInsertPt = nullptr; // in f.rev's entry block
  DenseMap<Value *, AllocaInst *> Slots;
  DenseMap<BasicBlock *, BasicBlock *> RevBlock;
};

} // namespace

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
  Function *F = Function::Create(FunctionType::get(RetTy, Params, false),
                                 GlobalValue::InternalLinkage,
                                 derivedName(*Info.Primal, "rev", Info.Act),
                                 Lin.getParent());
  tagDerived(*F, DerivedKind::Rev, *Info.Primal, Info.Act);
  F->getArg(0)->setName("tape");
  if (Params.size() > 1)
    F->getArg(1)->setName("ct");
  return F;
}

/// Cotangent accumulators start at -0.0, the exact identity of fadd
/// (0.0 + -0.0 is 0.0), so that the first accumulation folds away.
static Constant *additiveIdentity(Type *T) {
  return ConstantFP::getNegativeZero(T);
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
  AllocaInst *S = slot(LinValue);
  Value *Old = B.CreateLoad(S->getAllocatedType(), S);
  B.CreateStore(Negate ? B.CreateFSub(Old, C) : B.CreateFAdd(Old, C), S);
}

/// Reads the cotangent of \p LinValue and resets it: a value defined again
/// (in a later reverse iteration) starts from zero.
Value *Transposer::takeCotangent(IRBuilder<> &B, Value *LinValue) {
  AllocaInst *S = slot(LinValue);
  Value *Ct = B.CreateLoad(S->getAllocatedType(), S, LinValue->getName() + ".ct");
  B.CreateStore(additiveIdentity(S->getAllocatedType()), S);
  return Ct;
}

bool Transposer::transposeCall(IRBuilder<> &B, CallInst &Call,
                               DenseMap<Value *, Value *> &Local) {
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
  SmallVector<Value *, 2> Args{Local.lookup(Call.getArgOperand(0))};
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
  // Tape reads come first: each block of f.lin reads its own residuals.
  DenseMap<Value *, Value *> Local{{Lin.getArg(0), RevTape}};
  Value *PredIdx = nullptr;
  for (Instruction &I : BB) {
    if (isLinear(&I) || I.isTerminator())
      continue;
    // f.lin reads a loop block's record forwards; f.rev pops it.
    Instruction *C = isTapeCall(&I, TapeOp::Read)
                         ? emitPopFor(B, cast<CallInst>(I))
                         : I.clone();
    if (C->getParent()) {
      Local[&I] = C;
      continue;
    }
    for (Use &U : C->operands()) {
      if (isa<Constant>(U.get()) || isa<BasicBlock>(U.get()))
        continue;
      Value *R = Local.lookup(U.get());
      if (!R) {
        D.diags().internalError(nullptr, "f.lin reads a value of another "
                                         "block in '" + Lin.getName() + "'");
        return false;
      }
      U.set(R);
    }
    B.Insert(C, I.getName());
    Local[&I] = C;
    if (I.getMetadata(PredIndexMD))
      PredIdx = C;
  }
  auto RevValue = [&](Value *V) -> Value * {
    if (isa<Constant>(V))
      return V;
    return Local.lookup(V);
  };

  // Linear instructions, last first.
  for (Instruction &I : reverse(BB)) {
    if (!isLinear(&I) || isa<PHINode>(I))
      continue;
    TransposeRule Rule = findTransposeRule(I);
    if (auto *Call = dyn_cast<CallInst>(&I); Call && !Rule) {
      if (!transposeCall(B, *Call, Local))
        return false;
      continue;
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
    Value *Ct = I.getType()->isVoidTy() ? nullptr : takeCotangent(B, &I);
    // Named: TransposeBuilder keeps only a function_ref to it.
    auto Accumulate = [&](Value *Op, Value *C, bool Negate) {
      accumulate(B, Op, C, Negate);
    };
    TransposeBuilder TB(B, I, Ct, RevValue, Accumulate);
    Rule(I, TB);
  }
  B.clearFastMathFlags();
  SmallVector<std::pair<PHINode *, Value *>, 4> PhiCts;
  for (PHINode &Phi : BB.phis())
    if (isLinear(&Phi))
      PhiCts.push_back({&Phi, takeCotangent(B, &Phi)});

  // The reversed edges.
  SmallVector<BasicBlock *, 4> Preds = predecessorsInLayoutOrder(BB);
  if (Preds.empty()) {
    // f.lin's entry: f.rev returns the cotangents of f.lin's arguments.
    SmallVector<Value *, 4> Outs;
    // + 0.0 turns the -0.0 of an input that received nothing into 0.0.
    for (unsigned K = 1; K < Lin.arg_size(); ++K)
      Outs.push_back(B.CreateFAdd(takeCotangent(B, Lin.getArg(K)),
                                  ConstantFP::get(Lin.getArg(K)->getType(), 0.0)));
    if (Outs.empty())
      B.CreateRetVoid();
    else if (Outs.size() == 1)
      B.CreateRet(Outs[0]);
    else
      B.CreateAggregateRet(Outs.data(), Outs.size());
    return true;
  }
  SmallVector<BasicBlock *, 4> Targets;
  for (BasicBlock *P : Preds) {
    if (PhiCts.empty()) {
      Targets.push_back(RevBlock[P]);
      continue;
    }
    // Linear PHIs transpose into accumulations on the edge they came by.
    BasicBlock *Edge = BasicBlock::Create(Lin.getContext(),
                                          BB.getName() + ".from." + P->getName(),
                                          Rev);
    IRBuilder<> EB(Edge);
    for (auto [Phi, Ct] : PhiCts)
      accumulate(EB, Phi->getIncomingValueForBlock(P), Ct, false);
    EB.CreateBr(RevBlock[P]);
    Targets.push_back(Edge);
  }
  if (Targets.size() == 1) {
    B.CreateBr(Targets[0]);
    return true;
  }
  if (!PredIdx) {
    D.diags().internalError(nullptr, "merge block without a predecessor "
                                     "index in '" + Lin.getName() + "'");
    return false;
  }
  SwitchInst *Sw = B.CreateSwitch(PredIdx, Targets.back(), Targets.size() - 1);
  for (unsigned K = 0; K + 1 < Targets.size(); ++K)
    Sw->addCase(cast<ConstantInt>(ConstantInt::get(PredIdx->getType(), K)),
                Targets[K]);
  return true;
}

Function *Transposer::run() {
  Info = *getDerivedInfo(Lin);
  if (Function *Existing =
          findDerived(*Lin.getParent(), *Info.Primal, DerivedKind::Rev, Info.Act))
    return Existing;
  SmallVector<ReturnInst *, 1> Returns;
  for (BasicBlock &BB : Lin)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      Returns.push_back(Ret);
  if (Returns.size() != 1) {
    D.diags().internalError(nullptr, "'" + Lin.getName() +
                                         "' must have exactly one return");
    return nullptr;
  }

  Rev = createRevDeclaration();
  D.noteGenerated(Rev);
  RevTape = Rev->getArg(0);
  LLVMContext &Ctx = Lin.getContext();
  // Seeds the cotangent of the result, then enters at f.lin's return.
  BasicBlock *Entry = BasicBlock::Create(Ctx, "seed", Rev);
  // f.rev's blocks in reverse layout order, so it reads top to bottom.
  for (BasicBlock &BB : reverse(Lin))
    RevBlock[&BB] = BasicBlock::Create(Ctx, BB.getName(), Rev);
  BranchInst *EntryBr = BranchInst::Create(RevBlock[Returns[0]->getParent()], Entry);
  SlotInsertPt = EntryBr;

  // Seed: the cotangent of what f.lin returns.
  if (Value *DY = Returns[0]->getReturnValue()) {
    IRBuilder<> B(EntryBr);
    accumulate(B, DY, Rev->getArg(1), false);
  }
  for (BasicBlock &BB : Lin)
    if (!transposeBlock(BB))
      return nullptr;

  removeUnreachableBlocks(*Rev);
  SmallVector<AllocaInst *, 32> Allocas;
  for (auto &KV : Slots)
    Allocas.push_back(KV.second);
  DominatorTree DT(*Rev);
  PromoteMemToReg(Allocas, DT);
  D.simplify(*Rev);
  ++NumTransposed;
  return Rev;
}

Function *transpose(Function &Lin, Differentiator &D) {
  Transposer T(Lin, D);
  return T.run();
}

} // namespace ad
