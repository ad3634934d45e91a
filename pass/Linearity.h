//===- Linearity.h - the linear / non-linear marking of JVP code -*- C++ -*-===//
//
// Linearize marks every instruction it creates that is linear in the
// tangents with !ad.linear. Unzip and Transpose read only this mark, so it is
// the contract between the stages (YOLO §5: "Linear A/B").
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LINEARITY_H
#define ADPASS_LINEARITY_H

#include "llvm/IR/Instruction.h"
#include "llvm/IR/Metadata.h"

namespace ad {

inline constexpr const char *LinearMD = "ad.linear";
/// In a linear function, the tape read that tells which predecessor a
/// merge block was entered from (Transpose branches on it).
inline constexpr const char *PredIndexMD = "ad.pred";

inline bool isLinear(const llvm::Value *V) {
  auto *I = llvm::dyn_cast<llvm::Instruction>(V);
  return I && I->getMetadata(LinearMD);
}

inline void markLinear(llvm::Instruction *I) {
  I->setMetadata(LinearMD, llvm::MDNode::get(I->getContext(), {}));
}

inline void markWith(llvm::Instruction *I, const char *Kind) {
  I->setMetadata(Kind, llvm::MDNode::get(I->getContext(), {}));
}

} // namespace ad

#endif
