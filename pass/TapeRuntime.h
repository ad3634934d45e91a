//===- TapeRuntime.h - calls of libADRuntime that generated code makes -*- C++ -*-===//
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

enum class TapeOp { Push, Read, Pop };

/// Emits the runtime call for \p Op on a record of type \p RecordTy and
/// returns the record's address.
llvm::CallInst *emitTapeCall(llvm::IRBuilderBase &B, TapeOp Op,
                             llvm::Type *RecordTy);

/// Whether \p V is a call of the runtime's tape function for \p Op.
bool isTapeCall(const llvm::Value *V, TapeOp Op);

/// The pop that undoes \p Read (same record size), built by \p B.
llvm::CallInst *emitPopFor(llvm::IRBuilderBase &B, const llvm::CallInst &Read);

/// A pop of \p Size bytes (a callee's tape pushed for one call).
llvm::CallInst *emitPopOfSize(llvm::IRBuilderBase &B, uint64_t Size);

} // namespace ad

#endif
