//===- LinearityVerifier.cpp - the invariants of linear code --------------===//
#include "ir/LinearityVerifier.h"
#include "driver/DerivedFunctions.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "linearize/JvpRules.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ad {

namespace {

class LinearityChecker {
public:
  LinearityChecker(const Function &F, DerivedKind K) : F(F), Kind(K) {
    auto Info = getDerivedInfo(F);
    Primal = Info->Primal;
    Act = Info->Act;
  }
  bool run(std::string &Msg, const llvm::Instruction **Bad);

private:
  bool isLinearValue(const Value *V) const;
  bool isLinearOrZero(const Value *V) const;
  bool isMixedCall(const Value *V) const;
  bool allLinearOrZero(const Instruction &I,
                       std::initializer_list<unsigned> Ops) const;
  bool isNonLinearOperand(const Instruction &I, unsigned K) const {
    return !isLinearValue(I.getOperand(K));
  }
  const char *checkLinear(const Instruction &I) const;
  const char *checkLinearExtractValue(const Instruction &I) const;
  const char *checkLinearInsertValue(const Instruction &I) const;
  const char *checkLinearCall(const CallInst &CI) const;
  const char *checkNonLinear(const Instruction &I) const;

  const Function &F;
  DerivedKind Kind;
  const Function *Primal;
  Activity Act;
  DenseSet<const Value *> Linear; // linearInstructions(F)
};

} // namespace

bool LinearityChecker::isLinearValue(const Value *V) const {
  if (auto *A = dyn_cast<Argument>(V)) {
    // Tangent parameters: after f's own in f.jvp (shadows, also there, are
    // addresses: non-linear), after the tape in f.lin.
    if (Kind == DerivedKind::Lin)
      return A->getArgNo() >= 1;
    unsigned N = Primal->arg_size();
    return A->getArgNo() >= N &&
           Act.isActive(Act.extraOwners()[A->getArgNo() - N]);
  }
  return Linear.contains(V);
}

bool LinearityChecker::isLinearOrZero(const Value *V) const {
  if (auto *C = dyn_cast<Constant>(V))
    return C->isNullValue() || C->isNegativeZeroValue() || isa<PoisonValue>(C);
  return isLinearValue(V);
}

bool LinearityChecker::isMixedCall(const Value *V) const {
  auto *I = dyn_cast<Instruction>(V);
  return I && mixedCallee(*I);
}

bool LinearityChecker::allLinearOrZero(
    const Instruction &I, std::initializer_list<unsigned> Ops) const {
  return llvm::all_of(
      Ops, [&](unsigned K) { return isLinearOrZero(I.getOperand(K)); });
}

/// Returns what is wrong with linear instruction \p I, or null.
const char *LinearityChecker::checkLinear(const Instruction &I) const {
  switch (I.getOpcode()) {
  case Instruction::FAdd:
  case Instruction::FSub:
    return allLinearOrZero(I, {0, 1})
               ? nullptr
               : "adds a non-zero non-linear value (affine)";
  case Instruction::FNeg:
  case Instruction::FPExt:
  case Instruction::FPTrunc:
    return allLinearOrZero(I, {0}) ? nullptr : "operand is not linear";
  case Instruction::FMul:
    return (isLinearValue(I.getOperand(0)) != isLinearValue(I.getOperand(1)))
               ? nullptr
               : "fmul needs exactly one linear operand";
  case Instruction::FDiv:
    return isLinearValue(I.getOperand(0)) && isNonLinearOperand(I, 1)
               ? nullptr
               : "fdiv needs a linear numerator and a non-linear divisor";
  case Instruction::Select:
    return isNonLinearOperand(I, 0) && allLinearOrZero(I, {1, 2})
               ? nullptr
               : "select needs a non-linear condition and linear arms";
  case Instruction::PHI:
    for (const Value *In : cast<PHINode>(I).incoming_values())
      if (!isLinearOrZero(In))
        return "phi has a non-linear incoming value";
    return nullptr;
  case Instruction::ExtractElement:
    return allLinearOrZero(I, {0}) && isNonLinearOperand(I, 1)
               ? nullptr
               : "bad linear extractelement";
  case Instruction::InsertElement:
    return allLinearOrZero(I, {0, 1}) && isNonLinearOperand(I, 2)
               ? nullptr
               : "bad linear insertelement";
  case Instruction::ShuffleVector:
    return allLinearOrZero(I, {0, 1}) ? nullptr : "bad linear shufflevector";
  case Instruction::ExtractValue:
    return checkLinearExtractValue(I);
  case Instruction::InsertValue:
    return checkLinearInsertValue(I);
  case Instruction::Load:
    return isNonLinearOperand(I, 0)
               ? nullptr
               : "a linear load needs a non-linear address";
  case Instruction::Store:
    return isLinearOrZero(I.getOperand(0)) && isNonLinearOperand(I, 1)
               ? nullptr
               : "a linear store needs a linear value and a non-linear address";
  case Instruction::AtomicRMW:
    return cast<AtomicRMWInst>(I).getOperation() == AtomicRMWInst::FAdd &&
                   isNonLinearOperand(I, 0) && isLinearOrZero(I.getOperand(1))
               ? nullptr
               : "a linear atomic update is an fadd of a linear value at a "
                 "non-linear address";
  case Instruction::Call:
    return checkLinearCall(cast<CallInst>(I));
  default:
    return "this opcode is not a linear primitive";
  }
}

const char *
LinearityChecker::checkLinearExtractValue(const Instruction &I) const {
  // The tangent half of a mixed call's result.
  if (Kind == DerivedKind::Jvp && isMixedCall(I.getOperand(0)))
    return cast<ExtractValueInst>(I).getIndices()[0] == 1
               ? nullptr
               : "the primal half of a JVP call is not linear";
  return allLinearOrZero(I, {0}) ? nullptr : "bad linear extractvalue";
}

const char *
LinearityChecker::checkLinearInsertValue(const Instruction &I) const {
  // f.jvp returns {y, dy}: the insertvalue of dy is the only linear one
  // with a non-linear aggregate.
  if (Kind == DerivedKind::Jvp && I.hasOneUse() &&
      isa<ReturnInst>(*I.user_begin()))
    return isLinearOrZero(I.getOperand(1)) ? nullptr
                                           : "returned tangent is not linear";
  return allLinearOrZero(I, {0, 1}) ? nullptr : "bad linear insertvalue";
}

const char *LinearityChecker::checkLinearCall(const CallInst &CI) const {
  // Copies and fills of shadow memory, and the lifetime of heap shadows:
  // every operand is an address or a length.
  if (isa<MemIntrinsic>(CI) || isShadowLive(CI) || isShadowFree(CI) ||
      isSnapshotLive(CI)) {
    for (const Value *Op : CI.args())
      if (isLinearValue(Op))
        return "a shadow memory operation takes a linear operand";
    return nullptr;
  }
  const Function *Callee = CI.getCalledFunction();
  auto Info = Callee ? getDerivedInfo(*Callee) : std::nullopt;
  if (Kind != DerivedKind::Lin || !Info || Info->Kind != DerivedKind::Lin)
    return "a linear call must call a generated linear function";
  for (unsigned K = 1; K < CI.arg_size(); ++K)
    if (!isLinearOrZero(CI.getOperand(K)))
      return "a linear call passes a non-linear tangent";
  return nullptr;
}

/// Returns what is wrong with non-linear instruction \p I, or null.
const char *LinearityChecker::checkNonLinear(const Instruction &I) const {
  bool IsMixed = isMixedCall(&I);
  if (IsMixed && Kind == DerivedKind::Lin)
    return "a linear function calls a JVP";
  if (!IsMixed && !isa<ReturnInst>(I))
    for (const Value *Op : I.operands())
      if (isLinearValue(Op))
        return "non-linear code reads a linear value";
  // f.lin's non-linear code reads the tape and counts iterations; f.rev
  // rebuilds what it needs of it (and reports anything it cannot).
  // Pure intrinsics are recomputed coefficients (Unzip rematerializes them).
  // So are math calls on scalars (exp of a value read again), and a
  // handle's rebasing of the shadow addresses it reads.
  if (Kind == DerivedKind::Lin && isa<CallBase>(I) &&
      !isTapeCall(&I, TapeOp::Read) &&
      !(isa<IntrinsicInst>(I) && cast<CallBase>(I).doesNotAccessMemory()) &&
      !isScalarMathCall(I, /*TLI=*/nullptr) && !isHandleRebase(I))
    return "a linear function runs primal code (a call)";
  return nullptr;
}

bool LinearityChecker::run(std::string &Msg, const Instruction **Bad) {
  Linear = linearInstructions(F);
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      const char *Problem =
          Linear.contains(&I) ? checkLinear(I) : checkNonLinear(I);
      if (!Problem)
        continue;
      raw_string_ostream OS(Msg);
      OS << Problem << ": " << I;
      if (Bad)
        *Bad = &I;
      return false;
    }
  return true;
}

bool verifyLinearFunction(const Function &F, std::string &Msg,
                          const Instruction **Bad) {
  auto Info = getDerivedInfo(F);
  if (!Info ||
      (Info->Kind != DerivedKind::Jvp && Info->Kind != DerivedKind::Lin))
    return true;
  return LinearityChecker(F, Info->Kind).run(Msg, Bad);
}

} // namespace ad
