//===- ShadowCotangents.h - shadow memory cotangents in registers -*- C++ -*-=//
//
// In f.rev, shadow memory is the cotangent environment of memory cells: a
// linear load transposes to `*p += ct`, a linear store to `ct = *p; *p = 0`.
// Emitted literally, a block of n statements makes 2n memory operations on
// a few cells, which no LLVM pass cleans up once a block is large (GVN and
// DSE stop scanning after ~100 instructions) and which make the machine
// scheduler's dependence graph quadratic. Like JAX's transpose keeping
// cotangents in a dictionary, this cache keeps each cell's cotangent in an
// SSA value while one block of f.rev is built, and writes every cell back
// once: at the end of the block, or before anything else that may touch
// shadow memory (calls). Cells are told apart by (base pointer, constant
// offset); an access through any other base writes back all cells first,
// since different bases may alias.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_SHADOWCOTANGENTS_H
#define ADPASS_SHADOWCOTANGENTS_H

#include "llvm/ADT/MapVector.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include <map>

namespace ad {

class ShadowCotangents {
public:
  explicit ShadowCotangents(const llvm::DataLayout &DL) : DL(DL) {}

  /// *Ptr += C, for memory aligned to \p A (as the access transposed).
  /// \p Private: no other thread touches the cell (PrivateShadowCells.h).
  void add(llvm::IRBuilderBase &B, llvm::Value *Ptr, llvm::Value *C,
           llvm::Align A, bool Private = false);
  /// R = *Ptr, leaving it; returns R.
  llvm::Value *read(llvm::IRBuilderBase &B, llvm::Value *Ptr, llvm::Type *T,
                    llvm::Align A);
  /// R = *Ptr; *Ptr = 0; returns R.
  llvm::Value *take(llvm::IRBuilderBase &B, llvm::Value *Ptr, llvm::Type *T,
                    llvm::Align A);
  /// In the reverse pass of a parallel region, threads add into the same
  /// shadow cells (a stencil's neighbours, a shared scalar read by every
  /// iteration): additions are written back atomically, except into the
  /// thread's own memory, its locals and its tape \p ThreadTape.
  void addAtomically(llvm::Value *ThreadTape) {
    Atomic = true;
    PrivateTape = ThreadTape;
  }
  /// Writes every cell back to memory and forgets them: before code that
  /// reads or writes shadow memory itself, and at the end of each block.
  void flush(llvm::IRBuilderBase &B);

private:
  /// A cell's cotangent: what memory holds plus V (Known false), or V
  /// itself (Known true: the cell was read and cleared in this block; a
  /// null V is an exact zero, so that the first addition needs no fadd).
  struct Cell {
    llvm::Value *Ptr = nullptr;
    llvm::Type *Ty = nullptr;
    uint64_t Size = 0;
    llvm::Align Alignment;
    bool Known = false;
    llvm::Value *V = nullptr;
    /// Every addition into the cell was into a cell of one iteration.
    bool Private = false;
  };
  using CellsByOffset = std::map<int64_t, Cell>;

  /// Where an access is: its base pointer, constant offset and size.
  struct Place {
    llvm::Value *Base = nullptr;
    int64_t Offset = 0;
    uint64_t Size = 0;
  };

  /// The cell of \p T at \p Ptr, after writing back every cell that may
  /// overlap it without being it; null if it is not cached yet. \p At
  /// receives the access's place.
  Cell *find(llvm::IRBuilderBase &B, llvm::Value *Ptr, llvm::Type *T,
             llvm::Align A, Place &At);
  void insert(const Place &At, Cell C);
  /// The cell's cotangent as a value (reads memory unless Known).
  llvm::Value *current(llvm::IRBuilderBase &B, const Cell &C);
  void writeBack(llvm::IRBuilderBase &B, const Cell &C);
  void addIntoSharedCell(llvm::IRBuilderBase &B, const Cell &C);
  /// A load of a shadow cell, marked as one (RevAliasScopes.h).
  llvm::LoadInst *load(llvm::IRBuilderBase &B, llvm::Type *T, llvm::Value *Ptr,
                       llvm::Align A);
  void countAccess(llvm::IRBuilderBase &B);

  const llvm::DataLayout &DL;
  llvm::MapVector<llvm::Value *, CellsByOffset> Cells; ///< by base pointer
  uint64_t MaxSize = 0;  ///< of any cached cell, to find overlaps
  unsigned Accesses = 0; ///< since the last flush
  bool Atomic = false;
  llvm::Value *PrivateTape = nullptr;
  /// Whether other threads may add into the cell at \p Ptr.
  bool mayBeShared(const llvm::Value *Ptr) const;
};

} // namespace ad

#endif
