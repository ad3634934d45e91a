//===- TransposeRules.cpp - the table of transposes -----------------------===//
//
// One row per linear primitive: given ct = cotangent of the result, what
// each linear operand receives. Calls of g.lin are transposed by the
// transposer itself (they become calls of g.rev).
//
//===----------------------------------------------------------------------===//
#include "TransposeRules.h"
#include "Linearity.h"

#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace ad {

unsigned TransposeBuilder::linearOperand() const {
  return isLinear(I.getOperand(0)) || isa<Argument>(I.getOperand(0)) ? 0 : 1;
}

using T = TransposeBuilder;

// clang-format off
static const struct {
  unsigned Opcode;
  TransposeRule Rule;
} Rules[] = {
// linear primitive            what each linear operand receives
{Instruction::FAdd,           [](Instruction &, T &t) { t.add(0, t.ct()); t.add(1, t.ct()); }},
{Instruction::FSub,           [](Instruction &, T &t) { t.add(0, t.ct()); t.sub(1, t.ct()); }},
{Instruction::FNeg,           [](Instruction &, T &t) { t.sub(0, t.ct()); }},
{Instruction::FMul,           [](Instruction &, T &t) { unsigned L = t.linearOperand(); t.add(L, t.b().CreateFMul(t.ct(), t.op(1 - L))); }},
{Instruction::FDiv,           [](Instruction &, T &t) { t.add(0, t.b().CreateFDiv(t.ct(), t.op(1))); }},
{Instruction::FPExt,          [](Instruction &I, T &t) { t.add(0, t.b().CreateFPTrunc(t.ct(), I.getOperand(0)->getType())); }},
{Instruction::FPTrunc,        [](Instruction &I, T &t) { t.add(0, t.b().CreateFPExt(t.ct(), I.getOperand(0)->getType())); }},
{Instruction::Select,         [](Instruction &, T &t) { t.add(1, t.b().CreateSelect(t.op(0), t.ct(), t.zeroLike(t.ct())));
                                                        t.add(2, t.b().CreateSelect(t.op(0), t.zeroLike(t.ct()), t.ct())); }},
{Instruction::ExtractElement, [](Instruction &I, T &t) { Value *Vec = I.getOperand(0);
                                                        t.add(0, t.b().CreateInsertElement(Constant::getNullValue(Vec->getType()), t.ct(), t.op(1))); }},
{Instruction::InsertElement,  [](Instruction &, T &t) { t.add(0, t.b().CreateInsertElement(t.ct(), t.zeroLike(t.b().CreateExtractElement(t.ct(), t.op(2))), t.op(2)));
                                                        t.add(1, t.b().CreateExtractElement(t.ct(), t.op(2))); }},
{Instruction::ExtractValue,   [](Instruction &I, T &t) { Value *Agg = I.getOperand(0);
                                                        t.add(0, t.b().CreateInsertValue(Constant::getNullValue(Agg->getType()), t.ct(), cast<ExtractValueInst>(I).getIndices())); }},
{Instruction::InsertValue,    [](Instruction &I, T &t) { ArrayRef<unsigned> Idx = cast<InsertValueInst>(I).getIndices();
                                                        Value *Part = t.b().CreateExtractValue(t.ct(), Idx);
                                                        t.add(0, t.b().CreateInsertValue(t.ct(), t.zeroLike(Part), Idx));
                                                        t.add(1, Part); }},
};
// clang-format on

TransposeRule findTransposeRule(const Instruction &I) {
  for (const auto &R : Rules)
    if (R.Opcode == I.getOpcode())
      return R.Rule;
  return nullptr;
}

} // namespace ad
