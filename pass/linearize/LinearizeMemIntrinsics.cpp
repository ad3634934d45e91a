//===- LinearizeMemIntrinsics.cpp - memcpy, memmove, memset, lifetimes ----===//
//
// The memory intrinsics do to the shadows what they do to memory:
//   memcpy, memmove ->  the same copy of the shadows  (linear)
//   memset          ->  zero the shadow               (linear: whatever
//                                                      constant is written)
//   lifetime.start  ->  zero the shadow               (a new variable)
// A copy of shadows is tagged with the floating-point type it moves
// (ShadowMemory.h), which Transpose needs to add cotangents; a copy whose
// type cannot be told, or that moves floating-point data through integer or
// byte storage, is an error, since skipping it would lose derivatives. A
// copy of memory that holds only pointers moves shadow pointers, not
// tangents: it is non-linear and stays in f.fwd.
//
//===----------------------------------------------------------------------===//
#include "LinearizeImpl.h"
#include "driver/Differentiator.h"
#include "ir/Linearity.h"
#include "ir/MemoryTypes.h"
#include "ir/ShadowMemory.h"
#include "ir/TypeLeaves.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

/// A local declared as bytes (char buffers, and what SROA makes of the
/// slice of a copied struct that holds fields of several types). alloca()
/// of a run-time size is bytes too, but as for malloc's, that says nothing
/// of what it holds: the accesses around the copy tell.
static bool isUntypedStorage(const Value *P) {
  auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(P));
  if (!AI || !AI->isStaticAlloca())
    return false;
  Type *T = AI->getAllocatedType();
  while (auto *AT = dyn_cast<ArrayType>(T))
    T = AT->getElementType();
  return T->isIntegerTy(8);
}

/// A local's lifetime starts with contents no code wrote: a zero tangent.
/// Its shadow is one alloca for all its lifetimes (a variable declared in a
/// loop body) and would still hold the derivatives of the previous
/// iteration's value where code the pass cannot see writes the new one (an
/// AD_INACTIVE function filling an out-parameter); in reverse mode the
/// cotangent left at the start of a lifetime would flow into the previous
/// one. Clang marks lifetimes from -O1.
void Linearizer::linearizeLifetimeStart(IntrinsicInst &LS) {
  // (size, pointer) up to LLVM 20, (pointer) since.
  Value *P = LS.getArgOperand(LS.arg_size() - 1);
  auto *AI = dyn_cast<AllocaInst>(P->stripPointerCasts());
  if (!AI || !isShadowed(P))
    return;
  Value *S = shadowOf(P, LS);
  if (!S)
    return;
  const DataLayout &DL = J->getParent()->getDataLayout();
  auto *Size =
      LS.arg_size() == 2 ? dyn_cast<ConstantInt>(LS.getArgOperand(0)) : nullptr;
  std::optional<TypeSize> Whole = AI->getAllocationSize(DL);
  if ((!Size || Size->isMinusOne()) && (!Whole || Whole->isScalable()))
    return;
  IRBuilder<> B(LS.getNextNode());
  Value *Len = Size && !Size->isMinusOne() ? static_cast<Value *>(Size)
                                           : B.getInt64(Whole->getFixedValue());
  markLinear(B.CreateMemSet(S, B.getInt8(0), Len, AI->getAlign()));
}

/// Memory of a constant global without pointers: no derivatives (constant
/// globals are inactive), and no shadow pointers to move.
static bool isConstantPointerFreeData(const Value *P) {
  auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(P));
  return GV && GV->isConstant() && GV->hasDefinitiveInitializer() &&
         !containsPointer(GV->getValueType());
}

void Linearizer::linearizeMemIntrinsic(MemIntrinsic &MI) {
  if (auto *MS = dyn_cast<MemSetInst>(&MI))
    return linearizeMemSet(*MS);
  auto &MT = cast<MemTransferInst>(MI);
  // PrepareSource's note on the copied type is for this decision only.
  auto Forget = make_scope_exit([&] { forgetCopiedMemberType(MT); });
  bool DstShadowed = isShadowed(MT.getRawDest());
  bool SrcShadowed = isShadowed(MT.getRawSource());
  if (!DstShadowed && !SrcShadowed)
    return;
  if (!checkCopyKeepsDerivatives(MT, DstShadowed, SrcShadowed))
    return;
  // Constant data (a string literal into a std::string's buffer, a table
  // of initial values): whatever the destination's type, its tangent
  // becomes zero, and no pointer moves.
  if (!SrcShadowed && isConstantPointerFreeData(MT.getRawSource()))
    return copyShadowMemory(MT, Type::getInt8Ty(MT.getContext()), false);
  std::optional<Type *> Elem = copiedShadowElementType(MT);
  if (!Elem || !*Elem)
    return; // reported, or no floating-point data: nothing to differentiate
  if (!DstShadowed)
    return fail(MT, Twine("cannot differentiate: active data is copied into "
                          "memory without a shadow (") +
                        memoryWithoutShadow(MT.getRawDest(), D.rules()) + ")");
  copyShadowMemory(MT, *Elem, SrcShadowed);
}

void Linearizer::linearizeMemSet(MemSetInst &MS) {
  Value *Dst = MS.getRawDest();
  if (!isShadowed(Dst))
    return;
  // Whatever constant is written, its tangent is zero.
  IRBuilder<> B(MS.getNextNode());
  Value *S = shadowOf(Dst, MS);
  if (S)
    markLinear(
        B.CreateMemSet(S, B.getInt8(0), MS.getLength(), MS.getDestAlign()));
}

bool Linearizer::checkCopyKeepsDerivatives(MemTransferInst &MT,
                                           bool DstShadowed, bool SrcShadowed) {
  Value *Dst = MT.getRawDest(), *Src = MT.getRawSource();
  // A local of byte type between memory with derivatives and anything:
  // a char buffer, or a slice of a copied struct that the optimiser typed
  // as bytes. What it holds cannot be told from it, and skipping the copy
  // (no floating-point type found) or zeroing past it would be silent.
  if ((DstShadowed && isUntypedStorage(Src)) ||
      (SrcShadowed && isUntypedStorage(Dst))) {
    fail(MT, "cannot differentiate this memory copy: it moves data "
             "with derivatives through untyped local storage (a char "
             "buffer, or a struct copy the optimiser cut into bytes); "
             "copy the fields, or through a variable of the struct's "
             "type");
    return false;
  }
  // Memory that may carry derivatives copied to or from a local holding
  // only integers: type punning (memcpy(&bits, &x[i], 8), then back into a
  // double). The integer side must not decide that no floating-point data
  // moves; the other side's own type does.
  if (DstShadowed == SrcShadowed)
    return true;
  auto *AI = dyn_cast<AllocaInst>(getUnderlyingObject(DstShadowed ? Src : Dst));
  if (!AI || containsFloatingPoint(AI->getAllocatedType()) ||
      containsPointer(AI->getAllocatedType()))
    return true;
  auto *Len = dyn_cast<ConstantInt>(MT.getLength());
  std::optional<Type *> Kind = inferIntegerAccessBits(
      MT, DstShadowed ? Dst : Src, Len ? Len->getZExtValue() : 0);
  if (!Kind || (*Kind && (*Kind)->isFloatingPointTy())) {
    fail(MT, "cannot differentiate this memory copy: it moves "
             "floating-point data to or from an integer variable "
             "(type punning), which would lose its derivative: "
             "not supported");
    return false;
  }
  return true;
}

std::optional<Type *> Linearizer::copiedShadowElementType(MemTransferInst &MT) {
  UntypedCopy Why;
  std::optional<Type *> Elem = inferShadowElementType(MT, &Why);
  if (Elem)
    return Elem;
  switch (Why) {
  case UntypedCopy::Mixed:
    fail(MT, "cannot differentiate this memory copy: it moves data "
             "of more than one kind (two of float, double and long "
             "double, or pointers and floating-point data); copy "
             "element by element instead");
    break;
  case UntypedCopy::Union:
    fail(MT, "cannot differentiate this memory copy: it moves a "
             "union, whose bytes may be floating-point data or "
             "pointers (such as the storage of a std::function "
             "moved or copied, into a std::vector say): not "
             "supported; keep such objects out of the "
             "differentiated code, or pass them by reference");
    break;
  case UntypedCopy::Unknown:
    fail(MT, "cannot differentiate this memory copy: what it moves "
             "(float, double or pointer data) cannot be told from "
             "this function or its callers; copy element by "
             "element instead");
    break;
  }
  return std::nullopt;
}

void Linearizer::copyShadowMemory(MemTransferInst &MT, Type *Elem,
                                  bool SrcShadowed) {
  IRBuilder<> B(MT.getNextNode());
  Value *SDst = shadowOf(MT.getRawDest(), MT);
  if (!SDst)
    return;
  if (!SrcShadowed) {
    // Copying constant data: the destination's tangent becomes zero.
    markLinear(
        B.CreateMemSet(SDst, B.getInt8(0), MT.getLength(), MT.getDestAlign()));
    return;
  }
  Value *SSrc = shadowOf(MT.getRawSource(), MT);
  if (!SSrc)
    return;
  auto *Copy = cast<MemTransferInst>(MT.clone());
  Copy->setMetadata(LLVMContext::MD_DIAssignID, nullptr);
  Copy->setDest(SDst);
  Copy->setSource(SSrc);
  Copy->insertAfter(&MT);
  // Memory that holds only pointers (a C++ iterator copied whole): its
  // shadow holds shadow pointers, which are addresses, not cotangents. The
  // copy of them is non-linear, as a pointer store is (linearizeStore),
  // and stays in f.fwd; transposing it as floating-point data would add
  // the pointers' bits.
  if (containsPointer(Elem) && !hasFloatLeaf(Elem))
    return;
  markLinear(Copy);
  tagShadowElementType(*Copy, Elem);
}

} // namespace ad
