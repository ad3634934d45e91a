//===- ExplicitUnwinding.cpp - exceptions as ordinary control flow --------===//
#include "ir/ExplicitUnwinding.h"
#include "driver/DerivedFunctions.h"
#include "driver/Diagnostics.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace ad {

static constexpr StringLiteral UnwoundFn = "ad.unwound";
static constexpr StringLiteral LandingPadFn = "ad.landing_pad";
static constexpr StringLiteral ResumeIfFn = "ad.resume_if";

static bool isPlaceholderName(StringRef Name) {
  return Name == UnwoundFn || Name == LandingPadFn || Name == ResumeIfFn;
}

bool isUnwindingPlaceholder(const Function &F) {
  return isPlaceholderName(F.getName());
}

/// Declarations the pass itself calls: the runtime (built without
/// exceptions, it stops the program on error), the allocator of shadows,
/// and the placeholders.
static bool isNonUnwindingDeclaration(const Function &Callee) {
  StringRef Name = Callee.getName();
  return Callee.isDeclaration() &&
         (Name.starts_with("__ad_") || isPlaceholderName(Name) ||
          is_contained({"malloc", "calloc", "aligned_alloc", "free"}, Name));
}

namespace {
/// Which functions of the module may unwind, decided from their bodies.
/// A call cycle counts as unwinding: an answer that can be too cautious,
/// never wrong, so every answer can be kept.
class UnwindAnalysis {
public:
  explicit UnwindAnalysis(const TargetLibraryInfo *TLI) : TLI(TLI) {}
  bool callMayUnwind(const CallBase &CB);

private:
  bool bodyMayUnwind(const Function &F);
  bool isCLibraryFunction(const Function &Callee) const;
  const TargetLibraryInfo *TLI;
  DenseMap<const Function *, bool> Known;
  SmallPtrSet<const Function *, 16> Visiting;
};
} // namespace

bool UnwindAnalysis::callMayUnwind(const CallBase &CB) {
  if (CB.doesNotThrow() || isa<IntrinsicInst>(CB))
    return false;
  if (CB.isInlineAsm())
    return cast<InlineAsm>(CB.getCalledOperand())->canThrow();
  const Function *Callee = CB.getCalledFunction();
  if (!Callee)
    return true;
  if (isNonUnwindingDeclaration(*Callee) || isCLibraryFunction(*Callee))
    return false;
  if (Callee->isDeclaration() || Callee->isInterposable())
    return true;
  return bodyMayUnwind(*Callee);
}

/// The C++ functions TargetLibraryInfo knows by a name that is not
/// mangled: LLVM 22 counts __cxa_throw, which only unwinds, and
/// __size_returning_new*, which throw std::bad_alloc, among its library
/// functions.
static bool isUnmangledCxxFunction(StringRef Name) {
  return Name == "__cxa_throw" || Name.starts_with("__size_returning_new");
}

/// A function of the C library (exp, memcpy, printf), whose declaration
/// may lack nounwind (IR written by hand, or before InferFunctionAttrs):
/// C code does not throw, except the callbacks that qsort makes.
bool UnwindAnalysis::isCLibraryFunction(const Function &Callee) const {
  LibFunc LF;
  StringRef Name = Callee.getName();
  return TLI && Callee.isDeclaration() && TLI->getLibFunc(Callee, LF) &&
         !Name.starts_with("_Z") && !isUnmangledCxxFunction(Name) &&
         LF != LibFunc_qsort;
}

bool UnwindAnalysis::bodyMayUnwind(const Function &F) {
  if (F.doesNotThrow())
    return false;
  if (auto It = Known.find(&F); It != Known.end())
    return It->second;
  if (!Visiting.insert(&F).second)
    return true;
  bool May = false;
  for (const Instruction &I : instructions(F)) {
    auto *CI = dyn_cast<CallInst>(&I);
    const Function *Callee = CI ? CI->getCalledFunction() : nullptr;
    May = isa<ResumeInst>(I) || isa<CleanupReturnInst>(I) ||
          isa<CatchSwitchInst>(I) ||
          (Callee && Callee->getName() == ResumeIfFn) ||
          (CI && callMayUnwind(*CI));
    if (May)
      break;
  }
  Visiting.erase(&F);
  Known[&F] = May;
  return May;
}

static FunctionCallee placeholder(Module &M, StringRef Name, Type *Ret,
                                  ArrayRef<Type *> Params, bool VarArg) {
  LLVMContext &Ctx = M.getContext();
  // Nothing may merge, move or drop them: each stands for one edge.
  AttrBuilder FnAttrs(Ctx);
  FnAttrs.addAttribute(Attribute::NoUnwind);
  FnAttrs.addMemoryAttr(MemoryEffects::inaccessibleMemOnly());
  AttributeList Attrs =
      AttributeList::get(Ctx, AttributeList::FunctionIndex, FnAttrs);
  return M.getOrInsertFunction(Name, FunctionType::get(Ret, Params, VarArg),
                               Attrs);
}

/// A landing pad block's type, the same for all of a function's.
static Type *landingPadType(Function &F) {
  for (BasicBlock &BB : F)
    if (BB.isLandingPad())
      return BB.getLandingPadInst()->getType();
  LLVMContext &Ctx = F.getContext();
  return StructType::get(PointerType::getUnqual(Ctx), Type::getInt32Ty(Ctx));
}

namespace {
/// The rewriting of one prepared copy into the explicit form.
class ExplicitForm {
public:
  ExplicitForm(Function &F, const TargetLibraryInfo &TLI)
      : F(F), M(*F.getParent()), Ctx(F.getContext()), TLI(TLI),
        PadTy(landingPadType(F)) {}
  bool run();

private:
  void invokeUnwindingCalls(ArrayRef<CallInst *> Calls);
  void makeInvokeExplicit(InvokeInst &II);
  void replaceLandingPads();
  void routeResumesToExit(ArrayRef<ResumeInst *> Resumes);

  Function &F;
  Module &M;
  LLVMContext &Ctx;
  const TargetLibraryInfo &TLI;
  Type *PadTy;
  SmallVector<ResumeInst *, 8> Resumes;
  /// Each landing pad block: the edge blocks now leading to it, with the
  /// value standing for its landingpad on each.
  MapVector<BasicBlock *, SmallVector<std::pair<BasicBlock *, Value *>, 2>>
      PadEdges;
};
} // namespace

bool ExplicitForm::run() {
  UnwindAnalysis UA(&TLI);
  SmallVector<CallInst *, 16> Unwinding;
  SmallVector<InvokeInst *, 16> Invokes;
  for (Instruction &I : instructions(F)) {
    if (auto *CI = dyn_cast<CallInst>(&I);
        CI && !F.doesNotThrow() && UA.callMayUnwind(*CI))
      Unwinding.push_back(CI);
    else if (auto *R = dyn_cast<ResumeInst>(&I))
      Resumes.push_back(R);
  }
  invokeUnwindingCalls(Unwinding);
  for (Instruction &I : instructions(F))
    if (auto *II = dyn_cast<InvokeInst>(&I))
      Invokes.push_back(II);
  if (Invokes.empty() && Resumes.empty())
    return false;
  for (InvokeInst *II : Invokes)
    makeInvokeExplicit(*II);
  replaceLandingPads();
  routeResumesToExit(Resumes);
  return true;
}

/// A call that may unwind out of F becomes an invoke whose cleanup resumes:
/// the exceptional exit of F made visible.
void ExplicitForm::invokeUnwindingCalls(ArrayRef<CallInst *> Calls) {
  if (Calls.empty())
    return;
  BasicBlock *Cleanup = BasicBlock::Create(Ctx, "unwind.cleanup", &F);
  auto *LP = LandingPadInst::Create(PadTy, 0, "exn", Cleanup);
  LP->setCleanup(true);
  Resumes.push_back(ResumeInst::Create(LP, Cleanup));
  for (CallInst *CI : Calls)
    changeToInvokeAndSplitBasicBlock(CI, Cleanup);
}

/// All but branch weights, which a call and an invoke count differently.
static void copyCallMetadata(CallBase &To, const CallBase &From) {
  SmallVector<std::pair<unsigned, MDNode *>, 4> MDs;
  From.getAllMetadata(MDs);
  for (auto [Kind, MD] : MDs)
    if (Kind != LLVMContext::MD_prof)
      To.setMetadata(Kind, MD);
}

void ExplicitForm::makeInvokeExplicit(InvokeInst &II) {
  BasicBlock *BB = II.getParent(), *Normal = II.getNormalDest(),
             *Pad = II.getUnwindDest();
  LandingPadInst *LP = Pad->getLandingPadInst();
  BasicBlock *Edge =
      BasicBlock::Create(Ctx, BB->getName() + ".unwound", &F, Pad);
  IRBuilder<> EB(Edge);
  SmallVector<Value *, 4> PadArgs{EB.getInt1(LP->isCleanup())};
  for (unsigned K = 0; K < LP->getNumClauses(); ++K)
    PadArgs.push_back(LP->getClause(K));
  Value *Stand =
      EB.CreateCall(placeholder(M, LandingPadFn, PadTy, {EB.getInt1Ty()}, true),
                    PadArgs, "lp");
  EB.CreateBr(Pad);
  for (PHINode &Phi : Pad->phis())
    Phi.replaceIncomingBlockWith(BB, Edge);
  PadEdges[Pad].push_back({Edge, Stand});

  IRBuilder<> B(&II);
  SmallVector<OperandBundleDef, 2> Bundles;
  II.getOperandBundlesAsDefs(Bundles);
  SmallVector<Value *, 8> Args(II.args());
  CallInst *Call =
      B.CreateCall(II.getFunctionType(), II.getCalledOperand(), Args, Bundles);
  Call->takeName(&II);
  Call->setCallingConv(II.getCallingConv());
  Call->setAttributes(II.getAttributes());
  Call->setDebugLoc(II.getDebugLoc());
  copyCallMetadata(*Call, II);
  II.replaceAllUsesWith(Call);
  Value *Unwound = B.CreateCall(
      placeholder(M, UnwoundFn, B.getInt1Ty(), {}, false), {}, "unwound");
  B.CreateCondBr(Unwound, Edge, Normal);
  II.eraseFromParent();
}

/// A landing pad block is entered by branches now: its landingpad is what
/// the edge it came by stands for.
void ExplicitForm::replaceLandingPads() {
  for (auto &[Pad, Edges] : PadEdges) {
    LandingPadInst *LP = Pad->getLandingPadInst();
    PHINode *Phi = PHINode::Create(PadTy, Edges.size(), LP->getName());
    Phi->insertBefore(LP->getIterator());
    for (auto [Edge, Stand] : Edges)
      Phi->addIncoming(Stand, Edge);
    LP->replaceAllUsesWith(Phi);
    LP->eraseFromParent();
  }
}

/// One exit for returning and unwinding alike: f.rev starts there.
void ExplicitForm::routeResumesToExit(ArrayRef<ResumeInst *> Resumes) {
  if (Resumes.empty())
    return;
  SmallVector<ReturnInst *, 2> Returns;
  for (BasicBlock &BB : F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()))
      Returns.push_back(Ret);
  BasicBlock *Exit = BasicBlock::Create(Ctx, "exit", &F);
  IRBuilder<> B(Exit);
  unsigned N = Returns.size() + Resumes.size();
  PHINode *Unwinding = B.CreatePHI(B.getInt1Ty(), N, "unwinding");
  PHINode *Exn = B.CreatePHI(PadTy, N, "exn");
  Type *RetTy = F.getReturnType();
  PHINode *RetV = RetTy->isVoidTy() ? nullptr : B.CreatePHI(RetTy, N, "ret");
  auto AddEdge = [&](Instruction *From, bool Unwinds, Value *E, Value *R) {
    BasicBlock *BB = From->getParent();
    Unwinding->addIncoming(B.getInt1(Unwinds), BB);
    Exn->addIncoming(E, BB);
    if (RetV)
      RetV->addIncoming(R, BB);
    BranchInst::Create(Exit, From->getIterator());
    From->eraseFromParent();
  };
  for (ReturnInst *Ret : Returns)
    AddEdge(Ret, false, PoisonValue::get(PadTy), Ret->getReturnValue());
  for (ResumeInst *R : Resumes)
    AddEdge(R, true, R->getValue(), RetV ? PoisonValue::get(RetTy) : nullptr);
  B.CreateCall(
      placeholder(M, ResumeIfFn, B.getVoidTy(), {B.getInt1Ty(), PadTy}, false),
      {Unwinding, Exn});
  if (RetV)
    B.CreateRet(RetV);
  else
    B.CreateRetVoid();
}

bool makeUnwindingExplicit(Function &F, const TargetLibraryInfo &TLI,
                           Diagnostics &Diags, bool &Changed) {
  Changed = false;
  for (Instruction &I : instructions(F))
    if (I.isEHPad() && !isa<LandingPadInst>(I)) {
      Diags.errorAt(I, "cannot differentiate code with funclet-based "
                       "exception handling (catchswitch, cleanuppad): not "
                       "supported; only the Itanium C++ ABI's landing pads "
                       "are");
      return false;
    }
  Changed = ExplicitForm(F, TLI).run();
  return true;
}

bool unwindsExplicitly(const Function &F) {
  const Function *ResumeIf = F.getParent()->getFunction(ResumeIfFn);
  return ResumeIf && llvm::any_of(ResumeIf->users(), [&](const User *U) {
           return cast<Instruction>(U)->getFunction() == &F;
         });
}

//===----------------------------------------------------------------------===//
// Back to invokes, landing pads and resumes.
//===----------------------------------------------------------------------===//

namespace {
class Materializer {
public:
  Materializer(Function &F) : F(F), Ctx(F.getContext()) {}
  void materializeInvoke(CallInst &Unwound);
  void materializeResume(CallInst &ResumeIf);
  bool MadePads = false;

private:
  CallBase *callBefore(CallInst &Unwound);
  void rewriteUsesAcrossEdges(Instruction &Def, Value *NormalDef,
                              Value *UnwoundDef, BasicBlock *Normal,
                              BasicBlock *Lpad);
  Function &F;
  LLVMContext &Ctx;
};
} // namespace

/// The call \p Unwound asks about: the last one before it that is not the
/// pass's own bookkeeping (the stages put tape records and shadow
/// allocations between the two).
CallBase *Materializer::callBefore(CallInst &Unwound) {
  for (Instruction *I = Unwound.getPrevNode(); I; I = I->getPrevNode()) {
    auto *CB = dyn_cast<CallBase>(I);
    if (!CB || (isa<IntrinsicInst>(CB) && CB->doesNotThrow()))
      continue;
    const Function *Callee = CB->getCalledFunction();
    if (Callee && isNonUnwindingDeclaration(*Callee))
      continue;
    return CB;
  }
  return nullptr;
}

static CallInst *placeholderCallIn(BasicBlock &BB, StringRef Name) {
  for (Instruction &I : BB)
    if (auto *CI = dyn_cast<CallInst>(&I);
        CI && CI->getCalledFunction() &&
        CI->getCalledFunction()->getName() == Name)
      return CI;
  return nullptr;
}

/// Uses of \p Def beyond the two edge blocks see \p NormalDef or
/// \p UnwoundDef, by the edge they were reached by.
void Materializer::rewriteUsesAcrossEdges(Instruction &Def, Value *NormalDef,
                                          Value *UnwoundDef, BasicBlock *Normal,
                                          BasicBlock *Lpad) {
  SmallVector<Use *, 8> Uses, Far;
  for (Use &U : Def.uses())
    Uses.push_back(&U); // setting one moves it to another value's list
  for (Use *UP : Uses) {
    Use &U = *UP;
    auto *User = cast<Instruction>(U.getUser());
    BasicBlock *At = isa<PHINode>(User)
                         ? cast<PHINode>(User)->getIncomingBlock(U)
                         : User->getParent();
    if (At != Normal && At != Lpad)
      Far.push_back(&U);
    else if (At == Normal && NormalDef != &Def)
      U.set(NormalDef);
  }
  if (Far.empty())
    return;
  SSAUpdater SSA;
  SSA.Initialize(Def.getType(), Def.getName());
  SSA.AddAvailableValue(Normal, NormalDef);
  SSA.AddAvailableValue(Lpad, UnwoundDef);
  for (Use *U : Far)
    SSA.RewriteUse(*U);
}

/// The landing pad \p Stand stood for, at the start of \p B's block.
static LandingPadInst *landingPadFor(IRBuilder<> &B, CallInst &Stand) {
  LandingPadInst *LP =
      B.CreateLandingPad(Stand.getType(), Stand.arg_size() - 1, "lp");
  LP->setCleanup(cast<ConstantInt>(Stand.getArgOperand(0))->isOne());
  for (unsigned K = 1; K < Stand.arg_size(); ++K)
    LP->addClause(cast<Constant>(Stand.getArgOperand(K)));
  return LP;
}

/// An invoke of what \p C calls, in place of the branch that ends C's
/// block.
static InvokeInst *invokeInsteadOf(CallBase &C, BasicBlock *Normal,
                                   BasicBlock *Lpad) {
  Instruction *OldBr = C.getParent()->getTerminator();
  IRBuilder<> IB(OldBr);
  SmallVector<OperandBundleDef, 2> Bundles;
  C.getOperandBundlesAsDefs(Bundles);
  SmallVector<Value *, 8> Args(C.args());
  InvokeInst *II = IB.CreateInvoke(C.getFunctionType(), C.getCalledOperand(),
                                   Normal, Lpad, Args, Bundles);
  II->takeName(&C);
  II->setCallingConv(C.getCallingConv());
  II->setAttributes(C.getAttributes());
  II->setDebugLoc(C.getDebugLoc());
  copyCallMetadata(*II, C);
  OldBr->eraseFromParent();
  C.replaceAllUsesWith(II);
  C.eraseFromParent();
  return II;
}

/// Copies \p Tail, what runs between the call and the branch, to \p B
/// (the unwinding edge), where the call's result is poison and
/// \p Unwound true; \p VMap maps each instruction to its copy.
static void copyTail(IRBuilder<> &B, ArrayRef<Instruction *> Tail, CallBase &C,
                     CallInst &Unwound, ValueToValueMapTy &VMap) {
  if (!C.getType()->isVoidTy())
    VMap[&C] = PoisonValue::get(C.getType());
  VMap[&Unwound] = B.getTrue();
  for (Instruction *I : Tail) {
    Instruction *Copy = I->clone();
    Copy->setName(I->getName());
    B.Insert(Copy);
    VMap[I] = Copy;
    RemapInstruction(Copy, VMap,
                     RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
  }
}

void Materializer::materializeInvoke(CallInst &Unwound) {
  BasicBlock *BB = Unwound.getParent();
  auto *Br = dyn_cast<BranchInst>(BB->getTerminator());
  CallBase *C = callBefore(Unwound);
  CallInst *Stand = nullptr;
  if (Br && Br->isConditional() && Br->getCondition() == &Unwound)
    Stand = placeholderCallIn(*Br->getSuccessor(0), LandingPadFn);
  if (!C || C->doesNotThrow() || !Stand) {
    // The call cannot unwind (the stages made it a call of a derived
    // function that cannot): the edge is never taken.
    Unwound.replaceAllUsesWith(ConstantInt::getFalse(Ctx));
    Unwound.eraseFromParent();
    return;
  }
  BasicBlock *UnwoundBB = Br->getSuccessor(0), *NormalBB = Br->getSuccessor(1);
  BasicBlock *Normal = BB->splitBasicBlock(C->getNextNode()->getIterator(),
                                           BB->getName() + ".normal");
  BasicBlock *Lpad =
      BasicBlock::Create(Ctx, BB->getName() + ".lpad", &F, UnwoundBB);
  IRBuilder<> B(Lpad);
  LandingPadInst *LP = landingPadFor(B, *Stand);
  SmallVector<Instruction *, 8> Tail;
  for (Instruction &I : *Normal)
    if (&I != Br && &I != &Unwound)
      Tail.push_back(&I);
  ValueToValueMapTy VMap;
  copyTail(B, Tail, *C, Unwound, VMap);
  B.CreateBr(UnwoundBB);
  for (PHINode &Phi : UnwoundBB->phis()) {
    int Idx = Phi.getBasicBlockIndex(Normal);
    if (Value *Mapped = VMap.lookup(Phi.getIncomingValue(Idx)))
      Phi.setIncomingValue(Idx, Mapped);
    Phi.setIncomingBlock(Idx, Lpad);
  }
  BranchInst::Create(NormalBB, Br->getIterator());
  Br->eraseFromParent();
  InvokeInst *II = invokeInsteadOf(*C, Normal, Lpad);
  Stand->replaceAllUsesWith(LP);
  Stand->eraseFromParent();
  MadePads = true;

  if (!II->getType()->isVoidTy())
    rewriteUsesAcrossEdges(*II, II, PoisonValue::get(II->getType()), Normal,
                           Lpad);
  rewriteUsesAcrossEdges(Unwound, ConstantInt::getFalse(Ctx),
                         ConstantInt::getTrue(Ctx), Normal, Lpad);
  for (Instruction *I : Tail)
    rewriteUsesAcrossEdges(*I, I, VMap[I], Normal, Lpad);
  Unwound.eraseFromParent();
}

/// ad.resume_if(unwinding, exn); ret  ->  br unwinding, resume, ret.
void Materializer::materializeResume(CallInst &ResumeIf) {
  BasicBlock *Exit = ResumeIf.getParent();
  Instruction *Ret = Exit->getTerminator();
  BasicBlock *RetBB =
      Exit->splitBasicBlock(Ret->getIterator(), Exit->getName() + ".return");
  BasicBlock *ResumeBB = BasicBlock::Create(Ctx, "resume", &F);
  ResumeInst::Create(ResumeIf.getArgOperand(1), ResumeBB);
  Exit->getTerminator()->eraseFromParent();
  BranchInst::Create(ResumeBB, RetBB, ResumeIf.getArgOperand(0), Exit);
  ResumeIf.eraseFromParent();
  MadePads = true; // a resume needs a personality too
}

/// The personality of the code \p F came from; of any function in the
/// module if that had none (it caught nothing), else the C++ one.
Constant *personalityFor(Function &F) {
  if (F.hasPersonalityFn())
    return F.getPersonalityFn();
  if (auto Info = getDerivedInfo(F);
      Info && Info->Primal && Info->Primal->hasPersonalityFn())
    return Info->Primal->getPersonalityFn();
  Module &M = *F.getParent();
  for (Function &G : M)
    if (G.hasPersonalityFn())
      return G.getPersonalityFn();
  LLVMContext &Ctx = M.getContext();
  return cast<Constant>(
      M.getOrInsertFunction("__gxx_personality_v0",
                            FunctionType::get(Type::getInt32Ty(Ctx), true))
          .getCallee());
}

static SmallVector<CallInst *, 8> callsOf(Function *Fn, Function &In) {
  SmallVector<CallInst *, 8> Calls;
  if (Fn)
    for (User *U : Fn->users())
      if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getFunction() == &In)
        Calls.push_back(CI);
  return Calls;
}

void materializeUnwinding(Module &M) {
  Function *Unwound = M.getFunction(UnwoundFn);
  Function *Pad = M.getFunction(LandingPadFn);
  Function *ResumeIf = M.getFunction(ResumeIfFn);
  SmallSetVector<Function *, 16> Holders;
  for (Function *Fn : {Unwound, Pad, ResumeIf})
    if (Fn)
      for (User *U : Fn->users())
        Holders.insert(cast<Instruction>(U)->getFunction());
  for (Function *F : Holders) {
    Materializer Mat(*F);
    for (CallInst *U : callsOf(Unwound, *F))
      Mat.materializeInvoke(*U);
    for (CallInst *R : callsOf(ResumeIf, *F))
      Mat.materializeResume(*R);
    // Stand-ins of landing pads no call can reach any more.
    for (CallInst *P : callsOf(Pad, *F)) {
      P->replaceAllUsesWith(PoisonValue::get(P->getType()));
      P->eraseFromParent();
    }
    if (Mat.MadePads && !F->hasPersonalityFn())
      F->setPersonalityFn(personalityFor(*F));
  }
  for (Function *Fn : {Unwound, Pad, ResumeIf})
    if (Fn && Fn->use_empty())
      Fn->eraseFromParent();
}

} // namespace ad
