//===- ShadowCotangents.cpp - shadow memory cotangents in registers -------===//
#include "transpose/ShadowCotangents.h"
#include "transpose/RevAliasScopes.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<unsigned> FlushInterval(
    "ad-shadow-flush-interval", cl::init(1024), cl::Hidden,
    cl::desc("Write shadow memory cotangents back after this many accesses"));

namespace ad {

Value *ShadowCotangents::current(IRBuilderBase &B, const Cell &C) {
  if (C.Known)
    return C.V ? C.V : Constant::getNullValue(C.Ty);
  return B.CreateFAdd(load(B, C.Ty, C.Ptr, C.Alignment), C.V);
}

LoadInst *ShadowCotangents::load(IRBuilderBase &B, Type *T, Value *Ptr,
                                 Align A) {
  LoadInst *L = B.CreateAlignedLoad(T, Ptr, A);
  markShadowAccess(*L);
  return L;
}

bool ShadowCotangents::mayBeShared(const Value *Ptr) const {
  const Value *Obj = getUnderlyingObject(Ptr, /*MaxLookup=*/0);
  return !isa<AllocaInst>(Obj) && Obj != PrivateTape;
}

void ShadowCotangents::writeBack(IRBuilderBase &B, const Cell &C) {
  // A cell read and cleared in this block (Known) was written by this
  // thread's iteration alone, as in the primal region; one only added to
  // may be added to by other threads at the same time, unless it is one
  // worksharing-loop iteration's alone.
  if (Atomic && !C.Known && !C.Private && C.Ty->isFPOrFPVectorTy() &&
      mayBeShared(C.Ptr))
    return addIntoSharedCell(B, C);
  markShadowAccess(*B.CreateAlignedStore(current(B, C), C.Ptr, C.Alignment));
}

/// An atomic addition of \p C's value into its cell; lane by lane for a
/// vector (a user's vector type), since no atomic adds a whole vector.
void ShadowCotangents::addIntoSharedCell(IRBuilderBase &B, const Cell &C) {
  auto *VT = dyn_cast<FixedVectorType>(C.Ty);
  if (!VT) {
    markShadowAccess(*B.CreateAtomicRMW(AtomicRMWInst::FAdd, C.Ptr, C.V,
                                        C.Alignment,
                                        AtomicOrdering::Monotonic));
    return;
  }
  Type *Lane = VT->getElementType();
  const DataLayout &DL = B.GetInsertBlock()->getDataLayout();
  uint64_t LaneBytes = DL.getTypeStoreSize(Lane);
  for (unsigned K = 0; K < VT->getNumElements(); ++K) {
    Value *LanePtr = B.CreateConstInBoundsGEP1_64(Lane, C.Ptr, K);
    markShadowAccess(*B.CreateAtomicRMW(
        AtomicRMWInst::FAdd, LanePtr, B.CreateExtractElement(C.V, K),
        commonAlignment(C.Alignment, K * LaneBytes),
        AtomicOrdering::Monotonic));
  }
}

ShadowCotangents::Cell *ShadowCotangents::find(IRBuilderBase &B, Value *Ptr,
                                               Type *T, Align A, Place &At) {
  At.Offset = 0;
  At.Base = GetPointerBaseWithConstantOffset(Ptr, At.Offset, DL);
  At.Size = DL.getTypeStoreSize(T).getFixedValue();
  // Cells of other bases may be this one under another name.
  Cells.remove_if([&](std::pair<Value *, CellsByOffset> &Entry) {
    if (Entry.first == At.Base)
      return false;
    for (auto &[Off, C] : Entry.second)
      writeBack(B, C);
    return true;
  });
  auto It = Cells.find(At.Base);
  if (It == Cells.end())
    return nullptr;
  CellsByOffset &ByOffset = It->second;
  // Cells of this base overlapping [Offset, Offset + Size) other than the
  // one of exactly this type and place are written back.
  Cell *Same = nullptr;
  auto First = ByOffset.lower_bound(At.Offset - int64_t(MaxSize) + 1);
  for (auto I = First;
       I != ByOffset.end() && I->first < At.Offset + int64_t(At.Size);) {
    Cell &C = I->second;
    if (I->first + int64_t(C.Size) <= At.Offset) {
      ++I;
      continue;
    }
    if (I->first == At.Offset && C.Ty == T) {
      Same = &C;
      C.Alignment = std::min(C.Alignment, A);
      ++I;
      continue;
    }
    writeBack(B, C);
    I = ByOffset.erase(I);
  }
  return Same;
}

void ShadowCotangents::insert(const Place &At, Cell C) {
  MaxSize = std::max(MaxSize, C.Size);
  Cells[At.Base][At.Offset] = C;
}

void ShadowCotangents::add(IRBuilderBase &B, Value *Ptr, Value *C, Align A,
                           bool Private) {
  countAccess(B);
  Place At;
  if (Cell *Cached = find(B, Ptr, C->getType(), A, At)) {
    Cached->V = Cached->V ? B.CreateFAdd(Cached->V, C) : C;
    Cached->Private = Cached->Private && Private;
    return;
  }
  insert(At, {Ptr, C->getType(), At.Size, A, /*Known=*/false, C, Private});
}

Value *ShadowCotangents::take(IRBuilderBase &B, Value *Ptr, Type *T, Align A) {
  countAccess(B);
  Place At;
  if (Cell *Cached = find(B, Ptr, T, A, At)) {
    Value *R = current(B, *Cached);
    Cached->Known = true;
    Cached->V = nullptr;
    return R;
  }
  insert(At, {Ptr, T, At.Size, A, /*Known=*/true, nullptr});
  return load(B, T, Ptr, A);
}

Value *ShadowCotangents::read(IRBuilderBase &B, Value *Ptr, Type *T, Align A) {
  countAccess(B);
  Place At;
  if (Cell *Cached = find(B, Ptr, T, A, At))
    return current(B, *Cached);
  return load(B, T, Ptr, A);
}

void ShadowCotangents::countAccess(IRBuilderBase &B) {
  if (++Accesses >= FlushInterval)
    flush(B);
}

void ShadowCotangents::flush(IRBuilderBase &B) {
  Accesses = 0;
  IRBuilderBase::FastMathFlagGuard Guard(B);
  B.clearFastMathFlags();
  for (auto &[Base, ByOffset] : Cells)
    for (auto &[Off, C] : ByOffset)
      writeBack(B, C);
  Cells.clear();
  MaxSize = 0;
}

} // namespace ad
