//===- UnwindingRequests.h - requests whose function throws -----*- C++ -*-===//
//
// An exception that leaves f leaves the request too, as the same
// exception, and the runtime tape is back where the request started.
// f.fwd, in which every call that may unwind has a cleanup path to f's
// exit (ExplicitUnwinding.h), records the path that ran up to the throw;
// f.rev, seeded with zero, walks it back, popping what f.fwd pushed and
// releasing the shadows it allocated. A request inside a try keeps its
// edge to the handler.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNWINDINGREQUESTS_H
#define ADPASS_UNWINDINGREQUESTS_H

namespace llvm {
class BasicBlock;
class CallBase;
class CallInst;
class Function;
} // namespace llvm

namespace ad {

/// What a gradient request does besides f.rev when f unwinds.
struct UnwindCleanup {
  bool FreeTape = false; ///< the tape is on the heap
  bool EndFrees = false; ///< the request noted freed shadows (a mark)
  bool TrimTape = false; ///< the request trims the runtime tape
};

/// A function taking f.fwd's arguments (then the mark of freed shadows
/// when \p Cleanup.EndFrees) that calls f.fwd and, if it unwinds, runs
/// \p Rev with a zero seed and the rest of \p Cleanup, then resumes.
llvm::Function *guardedForward(llvm::Function &Fwd, llvm::Function &Rev,
                               const UnwindCleanup &Cleanup);

/// A marker called by an invoke: the call that replaces it, the invoke's
/// normal destination now reached by a branch. The unwind destination
/// keeps the marker's block among its predecessors until
/// unwindToHandler.
llvm::CallBase *callInsteadOfInvoke(llvm::CallBase &Marker,
                                    llvm::BasicBlock *&UnwindDest);

/// \p MayUnwind (null if nothing the request calls can unwind) becomes an
/// invoke that unwinds to \p UnwindDest, the handler of the marker that
/// was in \p MarkerBlock (null if the marker was a call).
void unwindToHandler(llvm::CallInst *MayUnwind, llvm::BasicBlock *UnwindDest,
                     llvm::BasicBlock *MarkerBlock);

} // namespace ad

#endif
