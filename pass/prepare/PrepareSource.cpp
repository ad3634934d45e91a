//===- PrepareSource.cpp - a clean copy of a function to differentiate ----===//
#include "prepare/PrepareSource.h"
#include "driver/DerivedFunctions.h"
#include "driver/Diagnostics.h"
#include "driver/OpenMPRegions.h"
#include "ir/ExplicitUnwinding.h"
#include "ir/ShadowMemory.h"
#include "prepare/Activity.h"
#include "prepare/ForwardLoads.h"
#include "prepare/IntegerAlignedAddresses.h"
#include "prepare/LibmOutputs.h"
#include "prepare/OpenMPRegionSource.h"
#include "prepare/PackedMinMaxAsm.h"
#include "prepare/PackedRounding.h"
#include "prepare/PointerBitLoads.h"
#include "prepare/Reallocations.h"
#include "prepare/ReferenceChoices.h"
#include "prepare/RoundingBarrier.h"
#include "prepare/SelectedLoadRecurrences.h"
#include "prepare/SignBitLogic.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"
#include "llvm/Transforms/Vectorize/VectorCombine.h"

using namespace llvm;

namespace ad {

/// The type of the data an atomic memory operation moves, or null. Atomics
/// on integers (the guard of a C++ function-local static, a counter) carry
/// no derivative and stay primal code; on floating-point data they would
/// need atomic shadow updates.
static Type *atomicDataType(const Instruction &I) {
  if (auto *LI = dyn_cast<LoadInst>(&I))
    return LI->isAtomic() ? LI->getType() : nullptr;
  if (auto *SI = dyn_cast<StoreInst>(&I))
    return SI->isAtomic() ? SI->getValueOperand()->getType() : nullptr;
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    return RMW->getValOperand()->getType();
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    return CX->getNewValOperand()->getType();
  return nullptr;
}

/// The name of what \p CB calls if it can make control return into this
/// function a second time (setjmp, sigsetjmp, vfork: clang marks them
/// returns_twice) or leave it without returning (longjmp); empty if not.
/// Either way the derived code's bookkeeping is skipped: a longjmp out of
/// a callee leaves the callee's tape records for the caller's reverse pass
/// to pop as its own, and the values kept for the second return from
/// setjmp are not the derivative's.
static StringRef nonLocalJumpName(const CallBase &CB) {
  if (auto *II = dyn_cast<IntrinsicInst>(&CB)) {
    if (II->getIntrinsicID() == Intrinsic::eh_sjlj_setjmp)
      return "__builtin_setjmp";
    if (II->getIntrinsicID() == Intrinsic::eh_sjlj_longjmp)
      return "__builtin_longjmp";
    return "";
  }
  const Function *Callee = CB.getCalledFunction();
  if (CB.hasFnAttr(Attribute::ReturnsTwice))
    return Callee ? Callee->getName() : "a function that returns twice";
  // glibc's names, the one _FORTIFY_SOURCE calls instead of longjmp, and
  // the switches to another context (getcontext returns twice, above).
  if (Callee && Callee->isDeclaration() &&
      is_contained({"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk",
                    "__libc_longjmp", "__libc_siglongjmp", "setcontext",
                    "swapcontext"},
                   Callee->getName()))
    return Callee->getName();
  return "";
}

/// Reports the first construct of \p F outside what ADPass handles today.
static bool checkSupported(Function &F, const Function &Orig,
                           Diagnostics &Diags) {
  // A struct of floating-point values passed as one SSA value (not byval)
  // has a tangent of its own type: f.rev of a forward derivative takes the
  // cotangent of its {value, tangent} result so, and an outer request
  // differentiates it when reverse mode is nested over forward mode.
  for (Argument &A : F.args())
    if (A.getType()->isAggregateType() && !isDifferentiableType(A.getType())) {
      Diags.errorAt(*F.getEntryBlock().getFirstNonPHIOrDbg(),
                    "cannot differentiate '" + Orig.getName() +
                        "': parameter " + Twine(A.getArgNo() + 1) +
                        " is a struct or array passed by value (not "
                        "supported yet; pass a pointer)");
      return false;
    }
  for (Instruction &I : instructions(F)) {
    // -ffp-model=strict, -frounding-math and FENV_ACCESS make every
    // operation a constrained intrinsic, with rounding and exception
    // semantics the derivative code would have to keep too.
    if (isa<ConstrainedFPIntrinsic>(I)) {
      Diags.errorAt(I, "cannot differentiate strict floating-point code "
                       "(constrained operations, from -ffp-model=strict, "
                       "-frounding-math or #pragma STDC FENV_ACCESS ON): not "
                       "supported; compile the function without them");
      return false;
    }
    StringRef Jump =
        isa<CallBase>(I) ? nonLocalJumpName(cast<CallBase>(I)) : StringRef();
    if (!Jump.empty()) {
      Diags.errorAt(I, "cannot differentiate a call of '" + Jump +
                           "' (setjmp, longjmp, vfork and their kin: a "
                           "non-local jump skips the bookkeeping of the "
                           "derivative code): not supported; keep setjmp and "
                           "longjmp outside the differentiated code");
      return false;
    }
    // A reduction's atomic combine (OpenMPReductions.h) is differentiated.
    auto *RMW = dyn_cast<AtomicRMWInst>(&I);
    if (RMW && RMW->getOperation() == AtomicRMWInst::FAdd && RMW->use_empty() &&
        RMW->getValOperand()->getType()->isFloatingPointTy())
      continue;
    if (Type *T = atomicDataType(I); T && hasFloatLeaf(T)) {
      Diags.errorAt(I, "cannot differentiate atomic operations on "
                       "floating-point data");
      return false;
    }
  }
  return true;
}

/// Whether code generation of \p F lowers llvm.fmuladd to a multiply and a
/// separate add: known for x86, which fuses only with FMA or FMA4 (clang
/// lists every feature the CPU implies in "target-features").
static bool backendSplitsFMulAdd(const Function &F) {
  if (!Triple(F.getParent()->getTargetTriple()).isX86())
    return false;
  SmallVector<StringRef, 32> Features;
  F.getFnAttribute("target-features").getValueAsString().split(Features, ',');
  return !is_contained(Features, "+fma") && !is_contained(Features, "+fma4");
}

/// At -O0 FastISel cannot select llvm.fmuladd: each one is handed to
/// SelectionDAG, at a cost that grows with the function (1.1 s for the
/// 30,000 in f.fwd of a 30,000-statement f, 0.36 s once split). Where the
/// backend would split it anyway, split it here: the same operations,
/// rounded the same way, and f.fwd stays as cheap to compile as f.
static void splitFMulAddAsBackendWould(Function &F) {
  if (!backendSplitsFMulAdd(F))
    return;
  for (Instruction &I : make_early_inc_range(instructions(F))) {
    auto *II = dyn_cast<IntrinsicInst>(&I);
    if (!II || II->getIntrinsicID() != Intrinsic::fmuladd)
      continue;
    splitMultiplyAdd(*II);
  }
}

void splitMultiplyAdd(IntrinsicInst &FMA) {
  IRBuilder<> B(&FMA);
  B.setFastMathFlags(FMA.getFastMathFlags());
  Value *Product = B.CreateFMul(FMA.getArgOperand(0), FMA.getArgOperand(1));
  Value *Sum = B.CreateFAdd(Product, FMA.getArgOperand(2));
  Sum->takeName(&FMA);
  FMA.replaceAllUsesWith(Sum);
  FMA.eraseFromParent();
}

/// A parameter passed by value in memory (byval) is the callee's own copy
/// of the caller's object, made by the call. f.jvp's caller passes the
/// shadow of the original, though, which no call copies: a callee that
/// writes its parameter would write the caller's tangents (or, for a
/// pointer field, the caller's shadow pointers). So the copy
/// becomes explicit here (a local, filled by memcpy on entry): the
/// parameter's memory is then only read, and the local gets a shadow of
/// its own like any other. SROA removes the copy again where it can.
static void copyByValParameters(Function &Src) {
  const DataLayout &DL = Src.getParent()->getDataLayout();
  IRBuilder<> B(&*Src.getEntryBlock().getFirstInsertionPt());
  for (Argument &A : Src.args()) {
    Type *T = A.getParamByValType();
    if (!T || A.use_empty() ||
        (!containsFloatingPoint(T) && !containsPointer(T)))
      continue;
    AllocaInst *Copy = B.CreateAlloca(T, A.getType()->getPointerAddressSpace(),
                                      nullptr, A.getName() + ".copy");
    Align Al = A.getParamAlign().value_or(DL.getABITypeAlign(T));
    Copy->setAlignment(Al);
    A.replaceAllUsesWith(Copy);
    B.CreateMemCpy(Copy, Al, &A, Al, DL.getTypeAllocSize(T));
  }
}

/// With _FORTIFY_SOURCE, glibc's headers turn memcpy, memmove and memset
/// whose size the compiler cannot check into __memcpy_chk and friends, which
/// take the destination's size too and abort on overflow. In the copy being
/// differentiated they become the plain intrinsics, which the stages know;
/// f itself keeps its checks (the derived functions do not repeat them).
static void unfortifyMemoryCalls(Function &F, const TargetLibraryInfo &TLI) {
  for (Instruction &I : make_early_inc_range(instructions(F))) {
    auto *CB = dyn_cast<CallInst>(&I);
    Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    LibFunc LF;
    if (!Callee || !TLI.getLibFunc(*Callee, LF) ||
        (LF != LibFunc_memcpy_chk && LF != LibFunc_memmove_chk &&
         LF != LibFunc_memset_chk))
      continue;
    IRBuilder<> B(CB);
    Value *Dst = CB->getArgOperand(0), *Len = CB->getArgOperand(2);
    if (LF == LibFunc_memset_chk)
      B.CreateMemSet(Dst, B.CreateTrunc(CB->getArgOperand(1), B.getInt8Ty()),
                     Len, MaybeAlign(1));
    else if (LF == LibFunc_memcpy_chk)
      B.CreateMemCpy(Dst, MaybeAlign(1), CB->getArgOperand(1), MaybeAlign(1),
                     Len);
    else
      B.CreateMemMove(Dst, MaybeAlign(1), CB->getArgOperand(1), MaybeAlign(1),
                      Len);
    CB->replaceAllUsesWith(Dst); // they return the destination
    CB->eraseFromParent();
  }
}

/// A struct or array with floating-point and other fields.
static bool isMixedAggregate(Type *T) {
  return T->isAggregateType() && containsFloatingPoint(T) && hasNonFloatLeaf(T);
}

/// A local struct (or array of structs) mixing floating-point and other
/// fields that is copied (struct assignment: memcpy). SROA cuts such a copy
/// where the fields' uses split it, and gives a slice that holds both kinds of
/// data an untyped [N x i8] type, starting mid-field: the shadow copy then has
/// no element type to add cotangents by (a struct {int n; double w[3];}
/// copied twice lost its derivative at -O0). Left in memory, the copy is
/// of the whole struct, whose type the shadow copy uses. A union is kept
/// too: SROA would move it as the one member its type names (a pointer for
/// union {void *p; double d;}), and a double swapped through it lost its
/// derivative; a copy of a union is an error instead (ShadowMemory.cpp).
static bool isCopiedMixedAggregate(AllocaInst &AI) {
  if (!isMixedAggregate(AI.getAllocatedType()) &&
      !holdsUnion(AI.getAllocatedType()))
    return false;
  SmallVector<const Value *, 8> Work{&AI};
  SmallPtrSet<const Value *, 8> Seen{&AI};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (isa<MemTransferInst>(U))
        return true;
      if (isa<GetElementPtrInst>(U) && Seen.insert(U).second)
        Work.push_back(U);
    }
  }
  return false;
}

/// Field \p K of the aggregate of type \p T at \p Ptr (aligned to \p A):
/// its address, and its alignment in \p FieldAlign.
static Value *fieldAddress(IRBuilder<> &B, const DataLayout &DL, Type *T,
                           Value *Ptr, Align A, unsigned K, Align &FieldAlign) {
  FieldAlign = commonAlignment(
      A, DL.getIndexedOffsetInType(T, {B.getInt32(0), B.getInt32(K)}));
  return B.CreateConstInBoundsGEP2_32(T, Ptr, 0, K);
}

static unsigned numFields(Type *T) {
  return T->isStructTy() ? T->getStructNumElements()
                         : unsigned(T->getArrayNumElements());
}

static void storeFieldwise(IRBuilder<> &B, const DataLayout &DL, Value *V,
                           Value *Ptr, Align A) {
  Type *T = V->getType();
  if (!T->isAggregateType()) {
    B.CreateAlignedStore(V, Ptr, A);
    return;
  }
  for (unsigned K = 0, N = numFields(T); K < N; ++K) {
    Align FA;
    Value *P = fieldAddress(B, DL, T, Ptr, A, K, FA);
    storeFieldwise(B, DL, B.CreateExtractValue(V, K), P, FA);
  }
}

static Value *loadFieldwise(IRBuilder<> &B, const DataLayout &DL, Type *T,
                            Value *Ptr, Align A) {
  if (!T->isAggregateType())
    return B.CreateAlignedLoad(T, Ptr, A);
  Value *Agg = PoisonValue::get(T);
  for (unsigned K = 0, N = numFields(T); K < N; ++K) {
    Align FA;
    Value *P = fieldAddress(B, DL, T, Ptr, A, K, FA);
    Type *FieldTy = GetElementPtrInst::getTypeAtIndex(T, K);
    Agg = B.CreateInsertValue(Agg, loadFieldwise(B, DL, FieldTy, P, FA), K);
  }
  return Agg;
}

/// Loads and stores of a whole struct mixing floating-point and other
/// fields (clang -O0 stores a returned std::pair<double, int> in one piece
/// into memory that escapes to std::get) become one access per field, as
/// InstCombine would: the shadow of such memory is then read and written
/// field by field, floating-point fields only. Volatile and atomic accesses
/// stay whole.
static void splitMixedAggregateAccesses(Function &F) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  SmallVector<Instruction *, 8> Work;
  for (Instruction &I : instructions(F))
    if (auto *SI = dyn_cast<StoreInst>(&I);
        SI && SI->isSimple() &&
        isMixedAggregate(SI->getValueOperand()->getType()))
      Work.push_back(SI);
    else if (auto *LI = dyn_cast<LoadInst>(&I);
             LI && LI->isSimple() && isMixedAggregate(LI->getType()))
      Work.push_back(LI);
  for (Instruction *I : Work) {
    IRBuilder<> B(I);
    if (auto *SI = dyn_cast<StoreInst>(I)) {
      storeFieldwise(B, DL, SI->getValueOperand(), SI->getPointerOperand(),
                     SI->getAlign());
    } else {
      auto *LI = cast<LoadInst>(I);
      Value *V = loadFieldwise(B, DL, LI->getType(), LI->getPointerOperand(),
                               LI->getAlign());
      V->takeName(LI);
      LI->replaceAllUsesWith(V);
    }
    I->eraseFromParent();
  }
}

/// A derived function differentiated again (a second derivative: the
/// gradient of a function that asks for a derivative) is primal code to
/// the outer request. Its copy loses the stages' marks (!ad.linear and
/// the other ad.* kinds), which the stages would read as their own, and
/// f.rev's alias scopes (RevAliasScopes.h), which speak of its shadows and
/// would be copied onto the outer request's tangent accesses.
static void dropStageMarks(Function &Src) {
  SmallVector<StringRef, 64> Names;
  Src.getContext().getMDKindNames(Names);
  SmallVector<unsigned, 8> Kinds;
  for (unsigned K = 0; K < Names.size(); ++K)
    if (Names[K].starts_with("ad."))
      Kinds.push_back(K);
  Kinds.push_back(LLVMContext::MD_alias_scope);
  Kinds.push_back(LLVMContext::MD_noalias);
  for (Instruction &I : instructions(Src))
    for (unsigned K : Kinds)
      I.setMetadata(K, nullptr);
}

/// A private copy of \p F to differentiate: the same body, internal, with
/// its own debug subprogram, neither optnone nor noinline.
static Function *cloneForDifferentiation(Function &F) {
  // GlobalChanges, not CloneFunction's LocalChangesOnly: the copy gets a
  // DISubprogram of its own, which moves on with the body to f.jvp
  // (Linearize.cpp) and must not be shared with f.
  Function *Src =
      Function::Create(F.getFunctionType(), GlobalValue::InternalLinkage,
                       F.getName() + ".ad.src", F.getParent());
  {
    // Scoped: while the map lives, every value SROA and EarlyCSE below
    // replace or erase would also update the map's value handle.
    ValueToValueMapTy VMap;
    // Sized up front: growing a map of value handles re-registers every
    // handle it moves. Halves CloneFunctionInto's time for a 390,000-
    // instruction f at -O0 (perf: 13% -> 7% of the compile).
    VMap.reserve(F.getInstructionCount() + F.size() + F.arg_size());
    for (Argument &A : F.args()) {
      VMap[&A] = Src->getArg(A.getArgNo());
      Src->getArg(A.getArgNo())->setName(A.getName());
    }
    SmallVector<ReturnInst *, 4> Returns;
    CloneFunctionInto(Src, &F, VMap, CloneFunctionChangeType::GlobalChanges,
                      Returns);
  }
  Src->setLinkage(GlobalValue::InternalLinkage);
  Src->removeFnAttr(Attribute::OptimizeNone);
  Src->removeFnAttr(Attribute::NoInline);
  return Src;
}

/// What the stages cannot read as it is, rewritten into what they can:
/// by-value parameters, mixed aggregates, library calls with outputs
/// through pointers, SSE min and max as inline assembly, SSE4.1 rounding,
/// addresses aligned as integers, std::max of references, fortified
/// copies, reallocations.
static void rewriteForStages(Function &Src, Function &F,
                             const TargetLibraryInfo &TLI) {
  copyByValParameters(Src);
  if (getDerivedInfo(F))
    dropStageMarks(Src);
  for (Instruction &I : instructions(Src))
    if (auto *MT = dyn_cast<MemTransferInst>(&I))
      noteCopiedMemberType(*MT);
  splitMixedAggregateAccesses(Src);
  rewriteLibmOutputs(Src, TLI);
  rewritePackedMinMaxAsm(Src);
  rewritePackedRounding(Src);
  rewriteIntegerAlignedAddresses(Src);
  rewritePointerBitLoads(Src);
  inlineReferenceChoices(Src);
  unfortifyMemoryCalls(Src, TLI);
  rewriteReallocations(Src);
}

/// Registers, one return, simple loops, loads forwarded within blocks; at
/// -O1 and above one more round of GVN, DSE and InstCombine.
static void simplifyCopy(Function &Src, FunctionAnalysisManager &FAM,
                         bool Optimize) {
  // At -O0 every local lives in an alloca. When all of them are plain
  // scalars, mem2reg puts them in registers at a fifth of SROA's cost (a
  // 30,000-statement f); aggregates and escaping locals need SROA, unless
  // SROA would cut a copied struct into untyped byte slices.
  // One walk over the entry block, which at -O0 may hold all of f.
  bool AllPromotable = true, SlicesWouldLoseTypes = false;
  for (Instruction &I : Src.getEntryBlock())
    if (auto *AI = dyn_cast<AllocaInst>(&I)) {
      AllPromotable &= isAllocaPromotable(AI);
      SlicesWouldLoseTypes |= isCopiedMixedAggregate(*AI);
    }
  FunctionPassManager FPM;
  if (AllPromotable || SlicesWouldLoseTypes)
    FPM.addPass(PromotePass());
  else
    FPM.addPass(SROAPass(SROAOptions::ModifyCFG));
  // Shuffles of float bits as integer lanes (Eigen's SSE2 broadcast
  // shuffles <4 x i32> halves of doubles) become shuffles of the floats,
  // which have derivatives; EarlyCSE and InstCombine then load the doubles
  // as doubles. The optimiser would do the same only after this pass, and
  // not at all at -O0, where pbroadcast4 is a function of its own.
  FPM.addPass(VectorCombinePass());
  FPM.addPass(EarlyCSEPass());
  // Sign flips and absolute values as integer masks (SignBitLogic.h), once
  // EarlyCSE has folded the masks' casts into constants; InstSimplify then
  // folds the casts to integers and back.
  FPM.addPass(SignBitLogicPass());
  FPM.addPass(InstSimplifyPass());
  if (Optimize) {
    FPM.addPass(GVNPass());
    FPM.addPass(DSEPass());
    FPM.addPass(InstCombinePass());
  }
  FPM.addPass(SimplifyCFGPass());
  FPM.addPass(UnifyFunctionExitNodesPass());
  // Preheaders, single latches and dedicated exits: the loop shape Unzip
  // counts iterations of.
  FPM.addPass(LoopSimplifyPass());
  FPM.run(Src, FAM);
  // After SimplifyCFG has merged straight-line blocks (ForwardLoads.h).
  forwardLoadsInBlocks(Src, FAM.getResult<TargetLibraryAnalysis>(Src));
}

/// OpenMP in the copy \p Src of \p F: reductions take the atomic path, a
/// region serialized by its if clause is forked on a team of one, and the
/// scheduling calls' out-parameters and, inside a region, math calls are
/// marked as what the derived code may assume (OpenMPRegionSource.h).
static bool prepareParallelRegions(Function &Src, Function &F,
                                   FunctionAnalysisManager &FAM,
                                   Diagnostics &Diags) {
  if (!combineReductionsAtomically(Src, Diags) ||
      !forkSerializedRegions(Src, Diags))
    return false;
  markSchedulingOutParameters(Src);
  if (runsInParallelRegion(F))
    markMathCallsPure(Src, FAM.getResult<TargetLibraryAnalysis>(Src));
  return true;
}

Function *prepareSource(Function &F, FunctionAnalysisManager &FAM,
                        Diagnostics &Diags, bool Optimize) {
  Function *Src = cloneForDifferentiation(F);
  if (!prepareParallelRegions(*Src, F, FAM, Diags)) {
    Src->eraseFromParent();
    return nullptr;
  }
  rewriteForStages(*Src, F, FAM.getResult<TargetLibraryAnalysis>(*Src));
  simplifyCopy(*Src, FAM, Optimize);
  // Once simplification has made Eigen's masked absolute values fabs: the
  // barrier kept the rounding from being folded until now.
  rewriteRoundingBarriers(*Src);
  FAM.clear(*Src, Src->getName());
  bool Unwinds = false;
  if (!makeUnwindingExplicit(*Src, FAM.getResult<TargetLibraryAnalysis>(*Src),
                             Diags, Unwinds)) {
    Src->eraseFromParent();
    return nullptr;
  }
  if (Unwinds) {
    // Calls that may unwind leave loops by a second exit now.
    FunctionPassManager Reshape;
    Reshape.addPass(LoopSimplifyPass());
    Reshape.run(*Src, FAM);
    FAM.clear(*Src, Src->getName());
  }
  if (!Optimize)
    splitFMulAddAsBackendWould(*Src);
  // On the final loop shapes: a running max ends as a load after its loop.
  if (reloadSelectedLoadRecurrences(*Src,
                                    FAM.getResult<TargetLibraryAnalysis>(*Src),
                                    FAM.getResult<AssumptionAnalysis>(*Src)))
    FAM.clear(*Src, Src->getName());

  if (!checkSupported(*Src, F, Diags)) {
    Src->eraseFromParent();
    return nullptr;
  }
  return Src;
}

} // namespace ad
