//===- ForwardLoads.cpp - loads of values a block already has -------------===//
#include "prepare/ForwardLoads.h"
#include "linearize/JvpRules.h"
#include "prepare/Activity.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include <map>

#define DEBUG_TYPE "ad-prepare"

using namespace llvm;

STATISTIC(NumForwardedLoads, "Number of loads replaced by a value their "
                             "block already had");

namespace ad {

namespace {

/// What the block knows a cell holds: a value of type Ty, Size bytes.
struct Cell {
  Type *Ty = nullptr;
  uint64_t Size = 0;
  Value *V = nullptr;
};

/// The cells known at constant offsets from one base pointer.
struct BaseCells {
  std::map<int64_t, Cell> ByOffset;
  uint64_t MaxSize = 0; ///< of any cell, to find the ones overlapping a range
};

/// An access: its base pointer, constant offset and size in bytes.
struct Place {
  Value *Base = nullptr;
  int64_t Offset = 0;
  uint64_t Size = 0;
};

/// The cells one block knows, kept apart by what may alias what: cells of
/// identified objects (locals, globals, noalias parameters) survive a store
/// to another identified object; any other base may point anywhere.
class KnownCells {
public:
  void clear() {
    Identified.clear();
    Other.clear();
  }

  /// The value of type \p T known to be at \p At, or null.
  Value *lookup(const Place &At, Type *T) const {
    const BaseCells *Cells = find(At.Base);
    if (!Cells)
      return nullptr;
    auto It = Cells->ByOffset.find(At.Offset);
    return It != Cells->ByOffset.end() && It->second.Ty == T ? It->second.V
                                                             : nullptr;
  }

  void remember(const Place &At, Type *T, Value *V) {
    BaseCells &Cells = mapFor(At.Base)[At.Base];
    Cells.ByOffset[At.Offset] = {T, At.Size, V};
    Cells.MaxSize = std::max(Cells.MaxSize, At.Size);
  }

  /// Forgets every cell a store to \p At may overwrite.
  void forgetOverwritten(const Place &At) {
    BaseCells Own;
    if (BaseCells *Cells = find(At.Base))
      Own = std::move(*Cells);
    if (isIdentifiedObject(At.Base)) {
      Other.clear();
      Identified.erase(At.Base);
    } else {
      clear();
    }
    auto &ByOffset = Own.ByOffset;
    for (auto It = ByOffset.lower_bound(At.Offset - int64_t(Own.MaxSize) + 1);
         It != ByOffset.end() && It->first < At.Offset + int64_t(At.Size);) {
      if (It->first + int64_t(It->second.Size) > At.Offset)
        It = ByOffset.erase(It);
      else
        ++It;
    }
    if (!ByOffset.empty())
      mapFor(At.Base)[At.Base] = std::move(Own);
  }

private:
  using CellsByBase = DenseMap<const Value *, BaseCells>;
  CellsByBase Identified, Other;

  CellsByBase &mapFor(const Value *Base) {
    return isIdentifiedObject(Base) ? Identified : Other;
  }
  const BaseCells *find(const Value *Base) const {
    const CellsByBase &Map = isIdentifiedObject(Base) ? Identified : Other;
    auto It = Map.find(Base);
    return It != Map.end() ? &It->second : nullptr;
  }
  BaseCells *find(const Value *Base) {
    return const_cast<BaseCells *>(std::as_const(*this).find(Base));
  }
};

} // namespace

/// Where an access of \p T through \p Ptr is; false if its size is not a
/// fixed number of bytes.
static bool placeOf(Value *Ptr, Type *T, const DataLayout &DL, Place &At) {
  TypeSize Size = DL.getTypeStoreSize(T);
  if (Size.isScalable())
    return false;
  At.Size = Size.getFixedValue();
  At.Offset = 0;
  At.Base = GetPointerBaseWithConstantOffset(Ptr, At.Offset, DL);
  return true;
}

bool forwardLoadsInBlocks(Function &F, const TargetLibraryInfo &TLI) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  bool Changed = false;
  KnownCells Known;
  const BasicBlock *Prev = nullptr;
  for (BasicBlock &BB : F) {
    // What the block before it in layout order knew at its end holds when
    // this block starts if that block is its only predecessor (the then-
    // branch of an if, whose loads repeat the condition's).
    if (!Prev || BB.getSinglePredecessor() != Prev)
      Known.clear();
    Prev = &BB;
    for (Instruction &I : make_early_inc_range(BB)) {
      Place At;
      if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->isSimple()) {
        if (!hasFloatLeaf(LI->getType()) ||
            !placeOf(LI->getPointerOperand(), LI->getType(), DL, At))
          continue;
        if (Value *V = Known.lookup(At, LI->getType())) {
          LI->replaceAllUsesWith(V);
          LI->eraseFromParent();
          ++NumForwardedLoads;
          Changed = true;
          continue;
        }
        Known.remember(At, LI->getType(), LI);
        continue;
      }
      if (auto *SI = dyn_cast<StoreInst>(&I); SI && SI->isSimple()) {
        Value *V = SI->getValueOperand();
        if (!placeOf(SI->getPointerOperand(), V->getType(), DL, At)) {
          Known.clear();
          continue;
        }
        Known.forgetOverwritten(At);
        if (hasFloatLeaf(V->getType()))
          Known.remember(At, V->getType(), V);
        continue;
      }
      // exp, tanh and the like write only errno, an int: the floating-point
      // cells known stay as they are (clang reads in[j] again after each
      // exp of an LSTM gate, and each copy was a residual of its own).
      if (I.mayWriteToMemory() && !writesOnlyMathLibraryState(I, &TLI))
        Known.clear();
    }
  }
  return Changed;
}

} // namespace ad
