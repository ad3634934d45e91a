//===- Linearity.h - the linear / non-linear marking of JVP code -*- C++
//-*-===//
//
// Linearize marks every instruction it creates that is linear in the
// tangents with !ad.linear. Unzip and Transpose read only this mark, so it is
// the contract between the stages (YOLO §5: "Linear A/B").
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LINEARITY_H
#define ADPASS_LINEARITY_H

#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Metadata.h"
#include <optional>

namespace ad {

inline constexpr const char *LinearMD = "ad.linear";
/// In a linear function, the tape read that tells which predecessor a
/// merge block was entered from (Transpose branches on it).
inline constexpr const char *PredIndexMD = "ad.pred";

/// On a call of g.lin inside a loop: g's tape was pushed on the runtime tape
/// for this call (its operand is the record size); f.rev pops it after g.rev.
inline constexpr const char *CalleeTapeOnStackMD = "ad.callee.tape";

inline bool isLinear(const llvm::Value *V) {
  auto *I = llvm::dyn_cast<llvm::Instruction>(V);
  return I && I->getMetadata(LinearMD);
}

/// \p F's linear instructions, from one look at each one's mark: a mark is
/// a lookup in the context-wide metadata table, which stages asking about
/// every instruction and its operands several times pay for each time.
inline llvm::DenseSet<const llvm::Value *>
linearInstructions(const llvm::Function &F) {
  llvm::DenseSet<const llvm::Value *> Linear;
  for (const llvm::Instruction &I : llvm::instructions(F))
    if (isLinear(&I))
      Linear.insert(&I);
  return Linear;
}

inline void markLinear(llvm::Instruction *I) {
  I->setMetadata(LinearMD, llvm::MDNode::get(I->getContext(), {}));
}

inline void markWith(llvm::Instruction *I, const char *Kind) {
  I->setMetadata(Kind, llvm::MDNode::get(I->getContext(), {}));
}

/// \p Result, the product or quotient of \p Input (a tangent or a
/// cotangent) and \p Coef, made zero where \p Input is zero (a strong
/// zero): 0 times an infinite coefficient, or 0 over a zero one, is NaN. A
/// finite non-zero constant \p Coef keeps a zero zero by itself and gets no
/// test. Used where f.rev transposes a product or quotient
/// (TransposeBuilder) and where f.jvp is finished as forward code
/// (keepZeroTangentsZero).
llvm::Value *strongZero(llvm::IRBuilderBase &B, llvm::Value *Result,
                        llvm::Value *Input, llvm::Value *Coef);

/// Marks \p LinCall as using a tape of type \p TapeTy pushed for this call.
void markCalleeTapeOnStack(llvm::Instruction *LinCall, llvm::Type *TapeTy);
/// The record size f.rev pops after transposing \p LinCall, if any.
std::optional<uint64_t> calleeTapeOnStackSize(const llvm::Instruction &LinCall);

} // namespace ad

#endif
