//===- PackedRounding.cpp - SSE4.1 and AVX rounding intrinsics ------------===//
#include "prepare/PackedRounding.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsX86.h"

using namespace llvm;

namespace ad {

/// The generic intrinsic that rounds as the immediate \p Imm says: bits
/// 0-1 the mode, bit 2 "use the current mode instead", bit 3 "do not
/// raise the inexact exception" (which changes no value).
static std::optional<Intrinsic::ID> genericRounding(uint64_t Imm) {
  if (Imm & ~uint64_t(0xF))
    return std::nullopt;
  if (Imm & 4)
    return Intrinsic::rint;
  static constexpr Intrinsic::ID ByMode[] = {Intrinsic::roundeven,
                                             Intrinsic::floor, Intrinsic::ceil,
                                             Intrinsic::trunc};
  return ByMode[Imm & 3];
}

static bool isPackedRounding(Intrinsic::ID IID) {
  return IID == Intrinsic::x86_sse41_round_pd ||
         IID == Intrinsic::x86_sse41_round_ps ||
         IID == Intrinsic::x86_avx_round_pd_256 ||
         IID == Intrinsic::x86_avx_round_ps_256;
}

void rewritePackedRounding(Function &F) {
  SmallVector<std::pair<IntrinsicInst *, Intrinsic::ID>, 4> Found;
  for (Instruction &I : instructions(F)) {
    auto *II = dyn_cast<IntrinsicInst>(&I);
    if (!II || !isPackedRounding(II->getIntrinsicID()))
      continue;
    auto *Imm = dyn_cast<ConstantInt>(II->getArgOperand(1));
    if (std::optional<Intrinsic::ID> Generic =
            Imm ? genericRounding(Imm->getZExtValue()) : std::nullopt)
      Found.push_back({II, *Generic});
  }
  for (auto [II, Generic] : Found) {
    IRBuilder<> B(II);
    Value *R = B.CreateUnaryIntrinsic(Generic, II->getArgOperand(0), nullptr,
                                      II->getName());
    II->replaceAllUsesWith(R);
    II->eraseFromParent();
  }
}

} // namespace ad
