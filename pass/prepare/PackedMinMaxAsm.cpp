//===- PackedMinMaxAsm.cpp - SSE min/max written as inline assembly -------===//
#include "prepare/PackedMinMaxAsm.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"

using namespace llvm;

namespace ad {

namespace {
/// One recognised instruction: which comparison picks the destination
/// operand, and the call arguments holding the destination (first source
/// in AVX's three-operand form) and the source.
struct PackedMinMax {
  CmpInst::Predicate PicksDest;
  unsigned DestArg, SourceArg;
};
} // namespace

/// The instruction \p IA is, if it is one of them. Two-operand SSE:
/// "op $1, $0" with $0 tied to the second argument (the destination's old
/// value). AVX: "vop $1, $2, $0", destination = op($2, $1).
static std::optional<PackedMinMax> recognise(const InlineAsm &IA) {
  StringRef Asm = IA.getAsmString();
  StringRef Constraints = IA.getConstraintString();
  constexpr StringLiteral Clobbers = ",~{dirflag},~{fpsr},~{flags}";
  bool Avx = Asm.consume_front("v");
  auto Op =
      StringSwitch<std::optional<CmpInst::Predicate>>(Asm)
          .Cases("minpd $1, $0", "minps $1, $0", CmpInst::FCMP_OLT)
          .Cases("maxpd $1, $0", "maxps $1, $0", CmpInst::FCMP_OGT)
          .Cases("minpd $1, $2, $0", "minps $1, $2, $0", CmpInst::FCMP_OLT)
          .Cases("maxpd $1, $2, $0", "maxps $1, $2, $0", CmpInst::FCMP_OGT)
          .Default(std::nullopt);
  if (!Op || Avx != Asm.ends_with("$2, $0"))
    return std::nullopt;
  StringRef Want = Avx ? "=x,x,x" : "=x,x,0";
  if (Constraints != (Want + Clobbers).str() && Constraints != Want)
    return std::nullopt;
  return PackedMinMax{*Op, /*DestArg=*/1, /*SourceArg=*/0};
}

/// Whether the call's types are those of the packed instruction: two
/// vectors of float or double and a result of the same type.
static bool hasPackedTypes(const CallInst &CI) {
  auto *VT = dyn_cast<FixedVectorType>(CI.getType());
  return VT &&
         (VT->getElementType()->isFloatTy() ||
          VT->getElementType()->isDoubleTy()) &&
         CI.arg_size() == 2 && CI.getArgOperand(0)->getType() == VT &&
         CI.getArgOperand(1)->getType() == VT;
}

void rewritePackedMinMaxAsm(Function &F) {
  SmallVector<std::pair<CallInst *, PackedMinMax>, 4> Found;
  for (Instruction &I : instructions(F))
    if (auto *CI = dyn_cast<CallInst>(&I); CI && CI->isInlineAsm())
      if (auto MM = recognise(*cast<InlineAsm>(CI->getCalledOperand()));
          MM && hasPackedTypes(*CI))
        Found.push_back({CI, *MM});
  for (auto [CI, MM] : Found) {
    IRBuilder<> B(CI);
    Value *Dest = CI->getArgOperand(MM.DestArg);
    Value *Source = CI->getArgOperand(MM.SourceArg);
    // No fast-math flags: the comparison must keep NaN's answer.
    Value *PickDest = B.CreateFCmp(MM.PicksDest, Dest, Source);
    Value *R = B.CreateSelect(PickDest, Dest, Source, CI->getName());
    CI->replaceAllUsesWith(R);
    CI->eraseFromParent();
  }
}

} // namespace ad
