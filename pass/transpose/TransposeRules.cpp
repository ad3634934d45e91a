//===- TransposeRules.cpp - the table of transposes -----------------------===//
//
// One row per linear primitive: given ct = cotangent of the result, what
// each linear operand receives. Calls of g.lin are transposed by the
// transposer itself (they become calls of g.rev). Memory: a linear load
// transposes to an accumulation into shadow memory, a linear store to
// reading and clearing it (docs/design.md, "Memory and shadows").
//
//===----------------------------------------------------------------------===//
#include "transpose/TransposeRules.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace ad {

unsigned TransposeBuilder::linearOperand() const {
  return isLinear(I.getOperand(0)) || isa<Argument>(I.getOperand(0)) ? 0 : 1;
}

Value *strongZero(IRBuilderBase &B, Value *Result, Value *Input, Value *Coef) {
  if (auto *C = dyn_cast<ConstantFP>(Coef);
      C && C->getValueAPF().isFiniteNonZero())
    return Result;
  return B.CreateSelect(
      B.CreateFCmpOEQ(Input, Constant::getNullValue(Input->getType())),
      Constant::getNullValue(Result->getType()), Result);
}

Value *TransposeBuilder::keepZero(Value *Product, Value *Coef, bool Guard) {
  return Guard ? strongZero(B, Product, Ct, Coef) : Product;
}

using T = TransposeBuilder;

/// Output lane j of a shuffle is lane mask[j] of (a ++ b): its cotangent
/// goes back there (lanes used twice receive twice).
static void transposeShuffle(Instruction &I, T &t) {
  auto &SV = cast<ShuffleVectorInst>(I);
  auto *InTy = cast<FixedVectorType>(SV.getOperand(0)->getType());
  unsigned N = InTy->getNumElements();
  IRBuilderBase &B = t.b();
  Value *Ct[2] = {Constant::getNullValue(InTy), Constant::getNullValue(InTy)};
  for (unsigned J = 0; J < SV.getShuffleMask().size(); ++J) {
    int M = SV.getMaskValue(J);
    if (M < 0)
      continue;
    Value *&Acc = Ct[unsigned(M) / N];
    unsigned Lane = unsigned(M) % N;
    Value *Sum = B.CreateFAdd(B.CreateExtractElement(Acc, Lane),
                              B.CreateExtractElement(t.ct(), J));
    Acc = B.CreateInsertElement(Acc, Sum, Lane);
  }
  t.add(0, Ct[0]);
  t.add(1, Ct[1]);
}

// clang-format off
static const struct {
  unsigned Opcode;
  TransposeRule Rule;
} Rules[] = {
// linear primitive            what each linear operand receives
{Instruction::FAdd,           [](Instruction &, T &t) { t.add(0, t.ct()); t.add(1, t.ct()); }},
{Instruction::FSub,           [](Instruction &, T &t) { t.add(0, t.ct()); t.sub(1, t.ct()); }},
{Instruction::FNeg,           [](Instruction &, T &t) { t.sub(0, t.ct()); }},
{Instruction::FMul,           [](Instruction &, T &t) { unsigned L = t.linearOperand(); t.add(L, t.times(t.op(1 - L))); }},
{Instruction::FDiv,           [](Instruction &, T &t) { t.add(0, t.over(t.op(1))); }},
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
{Instruction::ShuffleVector,  transposeShuffle},
{Instruction::Load,           [](Instruction &, T &t) { t.shadowAdd(t.op(0), t.ct()); }},                             // *p += ct
{Instruction::Store,          [](Instruction &I, T &t) { t.add(0, t.shadowTake(t.op(1), I.getOperand(0)->getType())); }},  // ct_v += *p; *p = 0
{Instruction::AtomicRMW,      [](Instruction &I, T &t) { t.add(1, t.shadowRead(t.op(0), I.getOperand(1)->getType())); }},  // *p += v: ct_v += *p
};

// Linear calls other than g.lin (which the transposer turns into g.rev).
static const struct {
  const char *Primitive;
  bool (*Matches)(const Instruction &);
  TransposeRule Rule;
} CallRules[] = {
// shadow memory operation                   its transpose
{"memset",      [](const Instruction &I) { return isa<MemSetInst>(I); },       // the memory's cotangent is dropped: zero it
                                             [](Instruction &I, T &t) { auto &MS = cast<MemSetInst>(I);
                                                                        t.b().CreateMemSet(t.op(0), t.b().getInt8(0), t.op(2), MS.getDestAlign()); }},
{"memtransfer", [](const Instruction &I) { return isa<MemTransferInst>(I); },  // ct(src) += ct(dst); ct(dst) = 0
                                             [](Instruction &I, T &t) { emitCopyTranspose(t.b(), cast<MemTransferInst>(I), t.op(0), t.op(1), t.op(2)); }},
{"shadow.live", isShadowLive,                [](Instruction &, T &t) { emitShadowRelease(t.b(), t.op(0)); }},  // f.rev is done with it: freed if f freed it
{"snapshot.live", isSnapshotLive,            [](Instruction &, T &t) { emitSnapshotFree(t.b(), t.op(0)); }},  // f.rev is done with the copy
{"shadow.free", isShadowFree,                [](Instruction &, T &t) { emitShadowFreed(t.b(), t.op(0)); }},  // still needed earlier in f.rev
};
// clang-format on

NamedTransposeRule findTransposeRule(const Instruction &I) {
  if (isa<CallInst>(I)) {
    for (const auto &R : CallRules)
      if (R.Matches(I))
        return {R.Rule, R.Primitive};
    return {};
  }
  for (const auto &R : Rules)
    if (R.Opcode == I.getOpcode())
      return {R.Rule, Instruction::getOpcodeName(R.Opcode)};
  return {};
}

} // namespace ad
