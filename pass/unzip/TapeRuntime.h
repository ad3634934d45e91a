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

/// At the end of a gradient whose derivative used the runtime tape: frees
/// the tape storage beyond the runtime's cache limit if the tape is empty
/// (__ad_tape_trim in ad_runtime.h).
llvm::CallInst *emitTapeTrim(llvm::IRBuilderBase &B);

/// Whether \p V calls any of the runtime's tape functions (push, pop, read,
/// the array variants, mark and seek): derived code with loops.
bool callsTapeRuntime(const llvm::Value *V);

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
