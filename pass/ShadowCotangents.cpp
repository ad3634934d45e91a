//===- ShadowCotangents.cpp - shadow memory cotangents in registers -------===//
#include "ShadowCotangents.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

static cl::opt<unsigned> FlushInterval(
    "ad-shadow-flush-interval", cl::init(1024), cl::Hidden,
    cl::desc("Write shadow memory cotangents back after this many accesses"));

namespace ad {

void ShadowCotangents::writeBack(IRBuilderBase &B, Cell &C) {
  Value *Sum =
      C.Known
          ? value(C)
          : B.CreateFAdd(B.CreateAlignedLoad(C.Ty, C.Ptr, C.Alignment), C.V);
  B.CreateAlignedStore(Sum, C.Ptr, C.Alignment);
}

ShadowCotangents::Cell *ShadowCotangents::find(IRBuilderBase &B, Value *Ptr,
                                               Type *T, Align A, Value *&Base,
                                               int64_t &Offset) {
  Offset = 0;
  Base = GetPointerBaseWithConstantOffset(Ptr, Offset, DL);
  uint64_t Size = DL.getTypeStoreSize(T).getFixedValue();
  // Cells of other bases may be this one under another name.
  if (!Cells.empty() && (Cells.size() > 1 || Cells.begin()->first != Base)) {
    CellsByOffset Mine;
    if (auto It = Cells.find(Base); It != Cells.end())
      Mine = std::move(It->second);
    for (auto &[OtherBase, ByOffset] : Cells)
      if (OtherBase != Base)
        for (auto &[Off, C] : ByOffset)
          writeBack(B, C);
    Cells.clear();
    if (!Mine.empty())
      Cells[Base] = std::move(Mine);
  }
  auto It = Cells.find(Base);
  if (It == Cells.end())
    return nullptr;
  CellsByOffset &ByOffset = It->second;
  // Cells of this base overlapping [Offset, Offset + Size) other than the
  // one of exactly this type and place are written back.
  Cell *Same = nullptr;
  auto First = ByOffset.lower_bound(Offset - int64_t(MaxSize) + 1);
  for (auto I = First;
       I != ByOffset.end() && I->first < Offset + int64_t(Size);) {
    Cell &C = I->second;
    if (I->first + int64_t(C.Size) <= Offset) {
      ++I;
      continue;
    }
    if (I->first == Offset && C.Ty == T) {
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

void ShadowCotangents::add(IRBuilderBase &B, Value *Ptr, Value *C, Align A) {
  countAccess(B);
  Value *Base;
  int64_t Offset;
  if (Cell *Cached = find(B, Ptr, C->getType(), A, Base, Offset)) {
    Cached->V = Cached->V ? B.CreateFAdd(Cached->V, C) : C;
    return;
  }
  Cell New{
      Ptr, C->getType(),    DL.getTypeStoreSize(C->getType()).getFixedValue(),
      A,   /*Known=*/false, C};
  MaxSize = std::max(MaxSize, New.Size);
  Cells[Base][Offset] = New;
}

Value *ShadowCotangents::take(IRBuilderBase &B, Value *Ptr, Type *T, Align A) {
  countAccess(B);
  Value *Base;
  int64_t Offset;
  Value *R;
  if (Cell *Cached = find(B, Ptr, T, A, Base, Offset)) {
    R = Cached->Known ? value(*Cached)
                      : B.CreateFAdd(B.CreateAlignedLoad(T, Cached->Ptr,
                                                         Cached->Alignment),
                                     Cached->V);
    Cached->Known = true;
    Cached->V = nullptr;
    return R;
  }
  R = B.CreateAlignedLoad(T, Ptr, A);
  Cell New{Ptr,    T, DL.getTypeStoreSize(T).getFixedValue(), A, /*Known=*/true,
           nullptr};
  MaxSize = std::max(MaxSize, New.Size);
  Cells[Base][Offset] = New;
  return R;
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
