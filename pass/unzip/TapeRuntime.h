//===- TapeRuntime.h - calls of libADRuntime that generated code makes -*- C++
//-*-===//
//
// Blocks inside loops save their residuals in one record per execution on
// the runtime's per-thread LIFO tape (ad_runtime.h):
//   f.fwd  pushes it at the end of the block      __ad_tape_push(size)
//   f.lin  reads it at the start of the block     __ad_tape_read(size)
//   f.rev  pops it at the start of the block      __ad_tape_pop(size)
// f.rev visits block executions in exactly the reverse order, so LIFO is
// all it needs; f.lin reads forwards from the runtime's read cursor.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_TAPERUNTIME_H
#define ADPASS_TAPERUNTIME_H

#include "llvm/IR/IRBuilder.h"

namespace ad {

/// The alignment of tapes and run-time tape records (AD_TAPE_ALIGN in
/// include/ad_runtime.h).
inline constexpr uint64_t TapeAlignment = 16;

/// Whether local \p AI is aligned beyond what the tape promises its fields:
/// its shadow's field is then rounded up at run time (TapePlan, Unzip).
inline bool isAlignedBeyondTape(const llvm::AllocaInst &AI) {
  return AI.getAlign().value() > TapeAlignment;
}

/// Caps at TapeAlignment the alignment of \p F's loads and stores of the
/// tape \p TapePtr and of the records the runtime returns: a residual
/// vector of 32 bytes (AVX) has that ABI alignment in the tape's type, but
/// records and the tapes of callees kept in them start at 16 bytes.
void capTapeAccessAlignment(llvm::Function &F, llvm::Value *TapePtr);

enum class TapeOp { Push, Read, Pop };

/// Emits the runtime call for \p Op on a record of type \p RecordTy and
/// returns the record's address.
llvm::CallInst *emitTapeCall(llvm::IRBuilderBase &B, TapeOp Op,
                             llvm::Type *RecordTy);

/// Sets the size global of \p TapeTy (see emitTapeCall) now that its layout
/// is known.
void publishTapeSize(llvm::Module &M, llvm::StructType *TapeTy);

/// Whether \p V is a call of the runtime's tape function for \p Op.
bool isTapeCall(const llvm::Value *V, TapeOp Op);
/// Whether \p M declares the runtime's tape function for \p Op (a cheap
/// test before looking for its calls).
bool declaresTapeFunction(const llvm::Module &M, TapeOp Op);

/// The read cursor and marks of the tape of the level of the code \p B
/// builds (ad_runtime.h): a position to come back to, the cursor, moving it,
/// and dropping the records pushed since a mark.
llvm::Value *emitTapeMark(llvm::IRBuilderBase &B);
llvm::Value *emitTapeReadPosition(llvm::IRBuilderBase &B);
void emitTapeSeek(llvm::IRBuilderBase &B, llvm::Value *Position);
void emitTapePopTo(llvm::IRBuilderBase &B, llvm::Value *Mark);

/// At the end of a gradient whose derivative used the runtime tape: frees
/// the tape storage beyond the runtime's cache limit if the tape is empty
/// (__ad_tape_trim in ad_runtime.h).
llvm::CallInst *emitTapeTrim(llvm::IRBuilderBase &B);

/// Whether \p V calls any of the runtime's tape functions (push, pop, read,
/// the array variants, mark and seek): derived code with loops.
bool callsTapeRuntime(const llvm::Value *V);

//===--- Records of inner derived code ---------------------------------------
// Derived code at nesting level M differentiates inner derived code (levels
// below M) as primal code, tape calls included. A pointer into a record has
// a shadow: the same offset in a shadow region of the record's chunk
// (__ad_tape_shadow in ad_runtime.h), found by address, so that a push,
// the pop of the same record and a forward read all find the same shadow.
// Regions are numbered in base 3, one digit per differentiating level
// M = 1, 2, 3: 0 where level M has no part in the shadow, 1 for its forward
// mode (f.jvp run as is, which writes tangents before reading them), 2 for
// its reverse mode (f.fwd + f.rev, whose region must be zero when f.rev
// starts: f.rev leaves every cell it reads zero again, and forward mode
// would leave tangents behind, hence a region of its own).

/// The number of shadow regions (AD_TAPE_SHADOW_REGIONS in ad_runtime.h).
inline constexpr unsigned TapeShadowRegions = 27;

/// A call that returns a pointer into a record of the tape of level
/// \c Level, in shadow region \c Region (0: the record itself).
struct TapeRecordCall {
  unsigned Level;
  unsigned Region;
};
std::optional<TapeRecordCall> tapeRecordCall(const llvm::Value *V);

/// The address of the record \p Call points into: the record itself, or
/// the record a shadow was asked for (the runtime finds shadows by the
/// record's address).
llvm::Value *recordAddress(llvm::CallBase &Call);

/// The region of the forward-mode shadow that derived code of level \p M
/// gives a pointer into region \p Region, if there is one (M from 1 to 3).
std::optional<unsigned> forwardShadowRegion(unsigned Region, unsigned M);

/// Emits the shadow of \p Record, of the tape of level \p Level, in
/// \p Region, marked as made by the linearization of level \p M (which
/// retargetShadowsToReverse reads).
llvm::CallInst *emitTapeShadow(llvm::IRBuilderBase &B, unsigned Level,
                               llvm::Value *Record, unsigned Region,
                               unsigned M);

/// In \p Fwd, built by unzipping a JVP of level \p M: moves the record
/// shadows that this level's linearization made to their reverse-mode
/// regions.
void retargetShadowsToReverse(llvm::Function &Fwd, unsigned M);

/// Whether \p Obj is memory of the runtime tape: a record (or its shadow)
/// that inner derived code pushed, or the tape parameter of a g.fwd whose
/// caller pushed g's tape. Records are reused once popped: loads from them
/// are never read again later.
bool isRuntimeTapeMemory(const llvm::Value *Obj);

/// The pop that undoes \p Read (same record size), built by \p B.
llvm::CallInst *emitPopFor(llvm::IRBuilderBase &B, const llvm::CallInst &Read);

/// A pop of \p Size bytes (a callee's tape pushed for one call).
llvm::CallInst *emitPopOfSize(llvm::IRBuilderBase &B, uint64_t Size);

//===--- Array loops ---------------------------------------------------------
// A loop whose trip count is known when it starts gets all its iteration
// records at once: f.fwd pushes an array of Count records before the loop,
// iteration K uses element K, f.rev pops the array after the loop.

/// Pushes \p Count records of type \p RecordTy; returns the array.
llvm::CallInst *emitTapeArrayPush(llvm::IRBuilderBase &B, llvm::Type *RecordTy,
                                  llvm::Value *Count);
/// Pops \p Count records of \p RecordSize bytes.
llvm::CallInst *emitTapeArrayPop(llvm::IRBuilderBase &B, uint64_t RecordSize,
                                 llvm::Value *Count);
/// The address of record \p K of \p Array.
llvm::Value *arrayElement(llvm::IRBuilderBase &B, llvm::Value *Array,
                          llvm::Type *RecordTy, llvm::Value *K);

/// In f.lin: the iteration counter of array loop \p Id, whose records have
/// type \p RecordTy. f.rev counts the same iterations down.
void markCounter(llvm::PHINode *Counter, unsigned Id, llvm::Type *RecordTy);
struct CounterInfo {
  unsigned Id;
  uint64_t RecordSize;
};
/// The readers test the instruction's kind first: every f.lin instruction
/// carries marks, and each metadata lookup probes a context-wide table.
std::optional<CounterInfo> counterInfo(const llvm::Instruction &I);

/// In f.lin: the reads of array loop \p Id's array and iteration count, in
/// its preheader or (IsExit) its exit block, where f.rev enters the loop.
/// No \p Base when the loop keeps nothing per iteration (no array); the
/// count is a tape load or, recomputed, the add of 1 to the backedge count.
void markLoopEntry(llvm::Instruction *Base, llvm::Instruction *Count,
                   unsigned Id, bool IsExit);
struct LoopEntryInfo {
  unsigned Id;
  bool IsExit;
  bool IsBase; ///< else the count
};
std::optional<LoopEntryInfo> loopEntryInfo(const llvm::Instruction &I);

/// In f.lin: a read of the static tape (valid anywhere in f.rev).
inline constexpr const char *StaticReadMD = "ad.static";

} // namespace ad

#endif
