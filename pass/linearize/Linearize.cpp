//===- Linearize.cpp - forward mode: f -> f.jvp ---------------------------===//
//
// f.jvp(x, dx) -> (y, dy) keeps f's CFG: f's instructions stay as they are,
// and after each one through which derivatives flow the tangent code is
// inserted. Values that do not vary have tangent zero and generate no code.
// The algorithm (Linearizer::run):
//
// 1. Activity analysis (computeActivity): which values vary (depend on an
//    active argument or on memory with a shadow), which pointers have a
//    shadow (may reach memory that can carry derivatives), which integers
//    hold the bits of a varied value.
// 2. Declare f.jvp: f's parameters, then a tangent per active parameter and
//    a shadow per AD_DUP pointer. It returns {y, dy} when f's result is
//    differentiable, and {p, shadow of p} when the caller keeps a returned
//    pointer with pointers to memory that carries derivatives.
// 3. Move f's body (PrepareSource's private copy) into f.jvp. Calls of JVPs
//    already in f's code are marked as f's own, so that Unzip splits only
//    the calls this linearization makes.
// 4. Put a tangent PHI beside each varied PHI and a shadow PHI beside each
//    shadowed one, before any other code, so that uses across back edges
//    find them.
// 5. Visit f's instructions in reverse post-order (linearizeInstruction);
//    after each, build what its kind needs:
//    - primitives of the rule table (fadd, fmul, fdiv, libm functions,
//      llvm.* intrinsics; JvpRules.cpp): dy = sum of partial_k * dx_k, with
//      the partials as primal (non-linear) code and the products and sums
//      linear;
//    - structurally linear instructions (select, extract/insert of elements
//      and fields, shufflevector, fpext, fptrunc): the same instruction on
//      the tangents (JAX's deflinear); freeze passes its operand's tangent;
//    - memory: a pointer that may reach memory with derivatives has a
//      shadow, computed by the same address arithmetic (non-linear): a
//      zeroed alloca beside an alloca, zeroed heap memory beside an
//      allocation, built on first use for loaded pointers and address
//      arithmetic (LinearizeShadows.cpp, LinearizeAllocation.cpp). A load
//      of such memory becomes a linear load through the shadow, a store a
//      linear store of the tangent (LinearizeLoadStore.cpp), memcpy and
//      memset the same on the shadows, lifetime.start a zeroing of the
//      shadow (LinearizeMemIntrinsics.cpp); the shadow's live and free
//      markers are linear calls;
//    - calls of functions whose body is visible: a call of g.jvp, each
//      argument active (passed with its tangent), AD_DUP (with its shadow)
//      or constant; its result splits into y and a linear dy, and Unzip
//      later splits the call into g.fwd and g.lin. AD_CUSTOM_JVP functions
//      are called the same way with the user's JVP; calls through function
//      pointers call a dispatcher of the type (IndirectCalls.h); AD_INACTIVE
//      and known inactive library functions stay primal code with zero
//      tangents; compiler-rt's complex arithmetic has its own rules
//      (LinearizeComplex.cpp);
//    - return: packs (y, dy).
//    Anything else that derivatives flow through, and anything that would
//    silently drop a derivative (droppedDerivative), is a compile error at
//    its source line.
// 6. Fill in the incoming shadows of the shadow PHIs that are used (the
//    others are erased) and the incoming tangents of the tangent PHIs.
//
// Every instruction linear in the tangents is marked !ad.linear
// (TangentBuilder marks all it builds, markLinear the others): Unzip and
// Transpose read only this mark. In forward mode, keepZeroTangentsZero
// makes each linear quotient keep a zero tangent zero.
//
//===----------------------------------------------------------------------===//
#include "linearize/Linearize.h"
#include "LinearizeImpl.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "driver/IndirectCalls.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "linearize/JvpRules.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/Cloning.h"

#define DEBUG_TYPE "ad-linearize"

using namespace llvm;

STATISTIC(NumJvpFunctions, "Number of JVP functions generated");
STATISTIC(NumTangentInsts, "Number of varied instructions given a tangent");

namespace ad {

Type *jvpReturnType(Type *PrimalRet) {
  if (!isDifferentiableType(PrimalRet))
    return PrimalRet;
  return StructType::get(PrimalRet->getContext(), {PrimalRet, PrimalRet});
}

std::pair<Value *, Value *> unpackJvpReturn(ReturnInst &Ret) {
  Value *RV = Ret.getReturnValue();
  // The pair exactly when f's result is differentiable (it may itself be a
  // struct). A {pointer, shadow} pair is not a tangent pair.
  auto Info = getDerivedInfo(*Ret.getFunction());
  if (!RV || !isDifferentiableType(Info->Primal->getReturnType()))
    return {RV, nullptr};
  auto *WithTangent = cast<InsertValueInst>(RV);
  auto *WithPrimal = cast<InsertValueInst>(WithTangent->getAggregateOperand());
  return {WithPrimal->getInsertedValueOperand(),
          WithTangent->getInsertedValueOperand()};
}

/// Operands that carry data (and so tangents) for the structurally linear
/// instructions: their JVP is the same instruction applied to the tangents
/// (JAX's deflinear). Other operands (conditions, indices) are copied.
static std::optional<SmallVector<unsigned, 2>> linearDataOperands(unsigned Op) {
  switch (Op) {
  case Instruction::FPExt:
  case Instruction::FPTrunc:
  case Instruction::ExtractElement:
  case Instruction::ExtractValue:
    return SmallVector<unsigned, 2>{0};
  case Instruction::Select:
    return SmallVector<unsigned, 2>{1, 2};
  case Instruction::InsertElement:
  case Instruction::InsertValue:
  case Instruction::ShuffleVector:
    return SmallVector<unsigned, 2>{0, 1};
  default:
    return std::nullopt;
  }
}

/// Why a value of type \p T computed from varied values would silently
/// drop its derivative (its type holds floating-point data no tangent can
/// follow), or null.
static const char *untrackedFloatReason(const Type *T) {
  if (isDifferentiableType(T) || !hasFloatLeaf(T))
    return nullptr;
  if (T->isAggregateType())
    return "cannot differentiate a struct value that holds pointers or "
           "__float128 next to floating-point fields (such as a struct "
           "{double value; double *next;} returned by value): not supported "
           "yet; return the floating-point part separately or through a "
           "pointer";
  return "cannot differentiate __float128 arithmetic: not supported; "
         "compute in double or long double";
}

/// Why reading or writing floating-point data through a pointer kept in
/// \p GV, a global without a shadow, is an error: the pointer may lead to
/// memory with derivatives (the function's input, G = x before the
/// request), whose derivatives the derived code would not find there.
static std::string throughPointerGlobal(const GlobalVariable &GV) {
  std::string Name = llvm::demangle(GV.getName().str());
  return "cannot differentiate: this reads or writes floating-point data "
         "through a pointer kept in the global variable '" +
         Name +
         "' (or passes it to a function that does), which may point to "
         "memory with derivatives: give the global a shadow, a global of the "
         "same type that leads to the derivatives, with AD_SHADOW(" +
         Name + ", d" + Name + ") (ad.h)";
}

bool Linearizer::readsActiveData(const CallBase &CB) const {
  return D.globals().mayTouchActive(CB) ||
         llvm::any_of(CB.args(),
                      [&](const Use &U) { return carriesDerivative(U.get()); });
}

/// The call that produced the integer bits \p V is cut from (through
/// truncations, shifts, masks and field extractions), if any.
static const CallBase *callBitsComeFrom(const Value *V) {
  for (unsigned Depth = 0; Depth < 8; ++Depth) {
    if (auto *CB = dyn_cast<CallBase>(V))
      return CB;
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !(isa<TruncInst>(I) || isa<ExtractValueInst>(I) ||
                I->getOpcode() == Instruction::LShr ||
                I->getOpcode() == Instruction::AShr ||
                I->getOpcode() == Instruction::And))
      return nullptr;
    V = I->getOperand(0);
  }
  return nullptr;
}

static const char *const FloatInIntegerReason =
    "cannot differentiate floating-point data passed in the bits of an "
    "integer (a struct such as {float value; int n;} passed or returned by "
    "value, which x86-64 packs into one integer register): pass it through "
    "a pointer, or use double fields";

Value *Linearizer::reinterpretedTangent(const BitCastInst &BC) const {
  Value *Bits = ShadowBits.lookup(BC.getOperand(0));
  return Bits && isLinear(Bits) && Bits->getType() == BC.getType() ? Bits
                                                                   : nullptr;
}

bool Linearizer::bitsLoadedFromActiveMemory(const Value *V) const {
  SmallVector<const Value *, 8> Work{V};
  SmallPtrSet<const Value *, 16> Seen{V};
  while (!Work.empty() && Seen.size() < 64) {
    auto *I = dyn_cast<Instruction>(Work.pop_back_val());
    if (!I)
      continue;
    if (auto *LI = dyn_cast<LoadInst>(I)) {
      if (isShadowed(LI->getPointerOperand()))
        return true;
      continue;
    }
    // Lane moves too: Eigen's SSE2 broadcast loads packed doubles as
    // <4 x i32> and shuffles 32-bit halves before turning them back.
    if (!isa<BinaryOperator>(I) && !isa<CastInst>(I) && !isa<PHINode>(I) &&
        !isa<SelectInst>(I) && !isa<FreezeInst>(I) &&
        !isa<ShuffleVectorInst>(I) && !isa<ExtractElementInst>(I) &&
        !isa<InsertElementInst>(I))
      continue;
    for (const Value *Op : I->operands())
      if (Op->getType()->isIntOrIntVectorTy() && Seen.insert(Op).second)
        Work.push_back(Op);
  }
  return false;
}

const char *Linearizer::droppedDerivative(const Instruction &I) const {
  if (isa<BitCastInst>(I) && I.getType()->isFPOrFPVectorTy()) {
    if (FloatBits.count(I.getOperand(0)))
      return "cannot differentiate floating-point bit manipulation (an "
             "active value reinterpreted as an integer, changed, and turned "
             "back): use fabs, copysign or a sign test instead";
    // Floating-point bytes loaded as an integer and reinterpreted unchanged
    // (the optimiser merges `memcpy(&key, &x[i], 8)` with the read of
    // x[i]): the tangent is the shadow's bytes (linearizeIntegerLoad).
    if (reinterpretedTangent(cast<BitCastInst>(I)))
      return nullptr;
    // Bytes of memory that may carry derivatives, loaded as an integer,
    // changed (or of unknown kind) and reinterpreted: a sign flip through
    // memcpy becomes a load, an xor and a bitcast. The derivative stored
    // with the bytes would be lost.
    if (bitsLoadedFromActiveMemory(I.getOperand(0)))
      return "cannot differentiate a floating-point value made from bytes "
             "of memory that carries derivatives, read as an integer and "
             "changed (type punning, such as a sign flip through memcpy "
             "into a uint64_t): not supported yet";
    // A callee given active data that returns a float in integer bits.
    if (const CallBase *CB = callBitsComeFrom(I.getOperand(0));
        CB && !isa<IntrinsicInst>(CB) && readsActiveData(*CB))
      return FloatInIntegerReason;
  }
  // Active floating-point bits leaving in an integer (a return value, a
  // struct's integer field, an argument of a function that will
  // reinterpret them) would leave their derivative behind.
  if (isa<ReturnInst>(I) || isa<InsertValueInst>(I)) {
    const Value *Out = isa<ReturnInst>(I)
                           ? cast<ReturnInst>(I).getReturnValue()
                           : cast<InsertValueInst>(I).getInsertedValueOperand();
    if (Out && FloatBits.count(Out))
      return FloatInIntegerReason;
  }
  if (auto *CB = dyn_cast<CallBase>(&I);
      CB && !isa<IntrinsicInst>(CB) &&
      (!CB->getCalledFunction() || !CB->getCalledFunction()->isDeclaration()))
    for (const Use &U : CB->args())
      if (FloatBits.count(U.get()))
        return FloatInIntegerReason;
  const char *Why = untrackedFloatReason(I.getType());
  if (!Why)
    return nullptr;
  if (auto *CB = dyn_cast<CallBase>(&I))
    return readsActiveData(*CB) ? Why : nullptr;
  return llvm::any_of(I.operands(),
                      [&](const Use &U) { return carriesDerivative(U.get()); })
             ? Why
             : nullptr;
}

void Linearizer::fail(const Instruction &At, const Twine &Msg) {
  if (!Failed)
    D.diags().errorAt(At, Msg);
  Failed = true;
}

Function *Linearizer::createJvpDeclaration(bool ReturnsShadow) {
  // f's parameters, then a tangent per active one and a shadow per AD_DUP
  // pointer, in parameter order. A returned pointer into active memory
  // comes with its shadow.
  SmallVector<Type *, 8> Params(Src.getFunctionType()->params());
  for (Argument &A : Src.args())
    if (Act.hasDerivative(A.getArgNo()))
      Params.push_back(A.getType());
  Type *RetTy = Src.getReturnType();
  auto *FT = FunctionType::get(ReturnsShadow ? StructType::get(RetTy, RetTy)
                                             : jvpReturnType(RetTy),
                               Params, /*isVarArg=*/false);
  Function *F =
      Function::Create(FT, GlobalValue::InternalLinkage,
                       derivedName(Primal, "jvp", Act), Src.getParent());
  unsigned Next = Src.arg_size();
  for (Argument &A : Src.args()) {
    F->getArg(A.getArgNo())->setName(A.getName());
    if (Act.hasDerivative(A.getArgNo()))
      F->getArg(Next++)->setName("d" + A.getName());
  }
  return F;
}

Value *Linearizer::tangentOf(Value *V) {
  if (!isVaried(V))
    return Constant::getNullValue(V->getType());
  Value *T = Tangent.lookup(V);
  assert(T && "varied value used before its tangent was built");
  return T;
}

Function *Linearizer::run() {
  assert(Act.level() == D.globals().level() &&
         "derived function built at another level than its globals'");
  ActivityInfo Info = computeActivity(Src, Act, D.globals(), D.rules());
  // A returned pointer comes with its shadow when the caller keeps it
  // with pointers to memory with derivatives, and only then: the caller
  // says so (Activity::shadowReturn), and its analysis, not f's, knows
  // what it does with the pointer (std::max of a size in an object with
  // derivatives and a local integer returns a pointer that may point to
  // either, of which the caller only reads the integer).
  bool ReturnsShadow = Act.shadowReturn() && isPointerLike(Src.getReturnType());
  J = createJvpDeclaration(ReturnsShadow);
  moveSourceBodyIntoJvp();
  adoptActivity(Info);
  bindArgumentDerivatives();

  // Tangent PHIs first, so that uses across back edges find them.
  ReversePostOrderTraversal<Function *> RPO(J);
  SmallVector<BasicBlock *, 32> Blocks(RPO.begin(), RPO.end());
  SmallVector<std::pair<PHINode *, PHINode *>, 8> PhiPairs =
      createTangentPhis(Blocks);
  createShadowPhis();
  if (!linearizeBlocks(Blocks) || !completeShadowPhis())
    return nullptr;
  completeTangentPhis(PhiPairs);
  ++NumJvpFunctions;
  return J;
}

void Linearizer::moveSourceBodyIntoJvp() {
  // Src is the private copy PrepareSource made (getJvp erases it next): its
  // body and function metadata (the DISubprogram of its own) move into J
  // rather than being copied once more. Instructions keep their identity,
  // so the activity computed on Src holds for J.
  SmallVector<Value *, 8> ArgsInJ;
  for (Argument &A : Src.args())
    ArgsInJ.push_back(J->getArg(A.getArgNo()));
  takeBody(*J, Src, ArgsInJ);
  // Calls of JVPs in f itself are f's code: only the calls this
  // linearization makes are split by unzipping.
  for (Instruction &I : instructions(*J))
    if (calledJvp(I))
      markInheritedJvpCall(cast<CallBase>(I));
  copyPrimalAttributes(*J, Src, Src.arg_size(), /*WritesTape=*/false);
  J->setLinkage(GlobalValue::InternalLinkage);
  tagDerived(*J, DerivedKind::Jvp, Primal, Act);
}

void Linearizer::adoptActivity(ActivityInfo &Info) {
  // The activity sets name Src's arguments, instructions and addresses of
  // active globals: J has its own arguments and Src's instructions.
  auto InJ = [&](const Value *V) -> Value * {
    if (auto *A = dyn_cast<Argument>(V))
      return J->getArg(A->getArgNo());
    return const_cast<Value *>(V);
  };
  for (const Value *V : Info.Varied)
    Varied.insert(InJ(V));
  for (const Value *V : Info.Shadowed)
    Shadowed.insert(InJ(V));
  FloatBits = std::move(Info.FloatBits); // instructions only
}

void Linearizer::bindArgumentDerivatives() {
  unsigned NextExtraArg = Src.arg_size();
  for (Argument &A : Src.args()) {
    if (Act.isActive(A.getArgNo()))
      Tangent[J->getArg(A.getArgNo())] = J->getArg(NextExtraArg++);
    else if (Act.isDup(A.getArgNo()))
      Shadow[J->getArg(A.getArgNo())] = J->getArg(NextExtraArg++);
  }
}

SmallVector<std::pair<PHINode *, PHINode *>, 8>
Linearizer::createTangentPhis(ArrayRef<BasicBlock *> Blocks) {
  SmallVector<std::pair<PHINode *, PHINode *>, 8> PhiPairs;
  for (BasicBlock *BB : Blocks)
    for (PHINode &Phi : BB->phis())
      if (isVaried(&Phi)) {
        auto *TP = PHINode::Create(Phi.getType(), Phi.getNumIncomingValues(),
                                   Phi.getName() + ".d");
        TP->insertBefore(BB->getFirstNonPHIIt());
        markLinear(TP);
        Tangent[&Phi] = TP;
        PhiPairs.push_back({&Phi, TP});
      }
  return PhiPairs;
}

bool Linearizer::linearizeBlocks(ArrayRef<BasicBlock *> Blocks) {
  SmallVector<Instruction *, 64> Work;
  for (BasicBlock *BB : Blocks)
    for (Instruction &I : *BB)
      if (!isa<PHINode>(I) && !isLinear(&I))
        Work.push_back(&I);
  for (Instruction *I : Work) {
    if (const char *Why = droppedDerivative(*I))
      return fail(*I, Why), false;
    if (const GlobalVariable *GV = D.globals().pointerGlobalAccessedBy(*I))
      return fail(*I, throughPointerGlobal(*GV)), false;
    if (auto *Ret = dyn_cast<ReturnInst>(I))
      linearizeReturn(*Ret);
    else if (isVaried(I) || isShadowed(I) || isa<CallBase>(I) ||
             isa<LoadInst>(I) || isa<StoreInst>(I) || isa<AtomicRMWInst>(I))
      linearizeInstruction(*I);
    if (Failed)
      return false;
  }
  return true;
}

void Linearizer::completeTangentPhis(
    ArrayRef<std::pair<PHINode *, PHINode *>> PhiPairs) {
  for (auto [Phi, TP] : PhiPairs)
    for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
      Value *In = Phi->getIncomingValue(K);
      // Values in unreachable blocks never got tangents; the edge is dead.
      Value *T = (isVaried(In) && !Tangent.count(In))
                     ? Constant::getNullValue(In->getType())
                     : tangentOf(In);
      TP->addIncoming(T, Phi->getIncomingBlock(K));
    }
}

/// Markers about memory that neither read nor change its values: a C++
/// function-local static's guarded initialisation marks the variable
/// invariant from -O1; Eigen's matrix product kernel prefetches.
static bool isMemoryMarker(const Instruction &I) {
  if (isa<DbgInfoIntrinsic>(I) || isa<LifetimeIntrinsic>(I))
    return true;
  auto *II = dyn_cast<IntrinsicInst>(&I);
  return II && (II->getIntrinsicID() == Intrinsic::invariant_start ||
                II->getIntrinsicID() == Intrinsic::invariant_end ||
                II->getIntrinsicID() == Intrinsic::prefetch);
}

void Linearizer::linearizeInstruction(Instruction &I) {
  if (auto *II = dyn_cast<IntrinsicInst>(&I);
      II && II->getIntrinsicID() == Intrinsic::lifetime_start)
    return linearizeLifetimeStart(*II);
  if (isMemoryMarker(I))
    return;
  // Shadows of pointers loaded from memory are read on demand (shadowOf):
  // a vtable pointer in an object with a shadow is never followed there.
  if (isShadowed(&I) && isa<LoadInst>(I))
    return;
  // Shadows of address arithmetic and choices are built on demand too
  // (shadowOf): std::max of two sizes, one kept in an object with
  // derivatives and one in a local, picks between an address with a shadow
  // and one without, and only integers are read through it.
  if (isShadowed(&I) && derivesAddress(I))
    return;
  if (isShadowed(&I) &&
      (!isa<CallBase>(I) || isAllocationCall(&I) || tapeRecordCall(&I)))
    return linearizeAddress(I);
  if (auto *LI = dyn_cast<LoadInst>(&I))
    return linearizeLoad(*LI);
  if (auto *SI = dyn_cast<StoreInst>(&I))
    return linearizeStore(*SI);
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
    if (!hasFloatLeaf(RMW->getValOperand()->getType()))
      return; // a counter: no derivative
    return linearizeAtomicAdd(*RMW);
  }
  if (auto *MI = dyn_cast<MemIntrinsic>(&I))
    return linearizeMemIntrinsic(*MI);
  if (auto *CB = dyn_cast<CallBase>(&I))
    return linearizeCall(*CB);
  // freeze only stops poison: of a number it is that number. The optimiser
  // adds it where it turns a branch into a select (c > 0 ? s / c : 0).
  if (auto *Fr = dyn_cast<FreezeInst>(&I)) {
    Tangent[Fr] = tangentOf(Fr->getOperand(0));
    return;
  }
  // An integer load of floating-point bytes, reinterpreted: the tangent is
  // the shadow's bytes, read where the integer was (linearizeIntegerLoad).
  if (auto *BC = dyn_cast<BitCastInst>(&I))
    if (Value *Bits = reinterpretedTangent(*BC)) {
      Tangent[BC] = Bits;
      return;
    }
  if (const JvpRule *R = findJvpRule(I, nullptr))
    return applyRule(I, *R);
  if (auto DataOps = linearDataOperands(I.getOpcode()))
    return applyLinearStructure(I, *DataOps);
  fail(I, Twine("cannot differentiate the instruction '") + I.getOpcodeName() +
              "' (not supported yet)");
}

/// \p V without a leading fneg, and whether there was one.
static std::pair<Value *, bool> stripFNeg(Value *V) {
  if (auto *Neg = dyn_cast<UnaryOperator>(V);
      Neg && Neg->getOpcode() == Instruction::FNeg)
    return {Neg->getOperand(0), true};
  return {V, false};
}

namespace {
/// One argument's contribution to a result tangent: its partial applied to
/// its tangent, then scaled by a constant.
struct TangentTerm {
  Value *DX;
  Partial P;
  double Scale = 1;
};
} // namespace

/// Merges the terms c dx + c dx of a square (x * x, fmuladd(x, x, y), and
/// either with one side negated, as clang writes y - x * x) into one term
/// 2 (c dx): two linear products instead of two and a sum, the same
/// coefficient c for the tape to keep or read again, and no less exact,
/// scaling by two being exact. Other coefficients of one tangent are left
/// apart: their sum would round differently.
static void mergeSquareTerms(SmallVectorImpl<TangentTerm> &Terms) {
  for (unsigned A = 0; A < Terms.size(); ++A)
    for (unsigned B = A + 1; B < Terms.size(); ++B) {
      TangentTerm &TA = Terms[A], &TB = Terms[B];
      if (TA.P.K != Partial::Times || TB.P.K != Partial::Times)
        continue;
      auto [DXA, NegDXA] = stripFNeg(TA.DX);
      auto [DXB, NegDXB] = stripFNeg(TB.DX);
      auto [CA, NegCA] = stripFNeg(TA.P.Coef);
      auto [CB, NegCB] = stripFNeg(TB.P.Coef);
      if (DXA != DXB || CA != CB)
        continue;
      // dxA cA + dxB cB = +-(c dx) +- (c dx).
      bool NegA = NegDXA != NegCA, NegB = NegDXB != NegCB;
      TA = {DXA, {Partial::Times, CA}, NegA == NegB ? (NegA ? -2.0 : 2.0) : 0};
      Terms.erase(Terms.begin() + B);
      return;
    }
}

void Linearizer::applyRule(Instruction &I, const JvpRule &R) {
  LLVM_DEBUG(dbgs() << "jvp rule " << R.Name << " for" << I << '\n');
  ++NumTangentInsts;
  Instruction *Next = I.getNextNode();
  IRBuilder<> CoefB(Next);
  if (auto *FPOp = dyn_cast<FPMathOperator>(&I))
    CoefB.setFastMathFlags(FPOp->getFastMathFlags());
  TangentBuilder LinB(Next, I);
  PartialBuilder Builder(CoefB, I);

  unsigned NumArgs =
      isa<CallBase>(I) ? cast<CallBase>(I).arg_size() : I.getNumOperands();
  SmallVector<TangentTerm, 4> Terms;
  for (unsigned K = 0; K < NumArgs; ++K) {
    Value *Arg = Builder.x(K);
    // A constant tangent is a linear zero (e.g. the result of floor): no term.
    if (!isVaried(Arg) || isa<Constant>(tangentOf(Arg)))
      continue;
    if (K >= MaxRuleArgs || !R.Partials[K])
      return fail(I, Twine("no derivative rule for argument ") + Twine(K + 1) +
                         " of '" + R.Name + "'");
    Partial P = R.Partials[K](Builder);
    if (P.K != Partial::Zero)
      Terms.push_back({tangentOf(Arg), P});
  }
  mergeSquareTerms(Terms);
  Value *Sum = nullptr;
  for (auto [DX, P, Scale] : Terms) {
    if (Scale == 0)
      continue; // c dx - c dx
    Value *Term = nullptr;
    switch (P.K) {
    case Partial::Zero:
      continue;
    case Partial::One:
    case Partial::MinusOne:
      Term = DX;
      break;
    case Partial::Times:
      Term = LinB.CreateFMul(P.Coef, DX);
      break;
    case Partial::Over:
      Term = LinB.CreateFDiv(DX, P.Coef);
      break;
    case Partial::When:
      Term =
          LinB.CreateSelect(P.Coef, DX, Constant::getNullValue(DX->getType()));
      break;
    }
    if (Scale != 1)
      Term = LinB.CreateFMul(Term, ConstantFP::get(Term->getType(), Scale));
    bool Negate = P.K == Partial::MinusOne;
    if (!Sum)
      Sum = Negate ? LinB.CreateFNeg(Term) : Term;
    else
      Sum = Negate ? LinB.CreateFSub(Sum, Term) : LinB.CreateFAdd(Sum, Term);
  }
  Tangent[&I] = Sum ? Sum : Constant::getNullValue(I.getType());
}

void Linearizer::applyLinearStructure(Instruction &I,
                                      ArrayRef<unsigned> DataOps) {
  ++NumTangentInsts;
  Instruction *T = I.clone();
  for (unsigned Op : DataOps)
    T->setOperand(Op, tangentOf(I.getOperand(Op)));
  T->setName(I.getName() + ".d");
  T->insertAfter(&I);
  markLinear(T);
  Tangent[&I] = T;
}

void packJvpReturn(ReturnInst &Ret, Value *Y, Value *DY) {
  Type *PairTy = jvpReturnType(Y->getType());
  // Built directly, not through a constant folder: unpackJvpReturn relies on
  // the two insertvalue instructions being there.
  auto *WithPrimal = InsertValueInst::Create(PoisonValue::get(PairTy), Y, {0});
  WithPrimal->insertBefore(Ret.getIterator());
  auto *WithTangent = InsertValueInst::Create(WithPrimal, DY, {1});
  WithTangent->insertBefore(Ret.getIterator());
  markLinear(WithTangent);
  Ret.setOperand(0, WithTangent);
}

void Linearizer::linearizeReturn(ReturnInst &Ret) {
  Value *RV = Ret.getReturnValue();
  if (RV && J->getReturnType() != RV->getType() &&
      isPointerLike(RV->getType())) {
    // {pointer, its shadow}: both addresses, non-linear. Asked for the
    // shadow by the caller, a pointer that never leads to a tangent (a
    // function, a vtable) has a null one; any other pointer without one
    // would leave the caller, which keeps it with pointers to memory with
    // derivatives, a mix it cannot tell apart.
    Value *S = nullptr;
    if (isShadowed(RV))
      S = shadowOf(RV, Ret);
    else if (pointsToNonDifferentiableData(RV))
      S = Constant::getNullValue(RV->getType());
    else
      return fail(Ret, "cannot differentiate: this function returns a "
                       "pointer to memory without derivatives to a caller "
                       "that keeps it where pointers to memory with "
                       "derivatives are kept: not supported yet");
    if (!S)
      return;
    IRBuilder<> B(&Ret);
    Value *Pair =
        B.CreateInsertValue(PoisonValue::get(J->getReturnType()), RV, 0);
    Ret.setOperand(0, B.CreateInsertValue(Pair, S, 1));
    return;
  }
  if (!RV || !isDifferentiableType(RV->getType()))
    return;
  packJvpReturn(Ret, RV, tangentOf(RV));
}

Function *linearize(Function &Src, Function &Primal, const Activity &A,
                    Differentiator &D) {
  Linearizer L(Src, Primal, A, D);
  return L.run();
}

void keepZeroTangentsZero(Function &Jvp) {
  for (Instruction &I : make_early_inc_range(instructions(Jvp))) {
    auto *Quotient = dyn_cast<BinaryOperator>(&I);
    if (!Quotient || Quotient->getOpcode() != Instruction::FDiv ||
        !isLinear(Quotient))
      continue;
    IRBuilder<> B(Quotient->getNextNode());
    Value *Kept = strongZero(B, Quotient, Quotient->getOperand(0),
                             Quotient->getOperand(1));
    if (Kept != Quotient)
      Quotient->replaceUsesWithIf(Kept,
                                  [&](Use &U) { return U.getUser() != Kept; });
  }
}

} // namespace ad
