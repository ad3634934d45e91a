//===- StableCallArgs.h - callee arguments the reverse pass may read again
//-===//
//
// A callee's f.rev runs after the rest of its caller's f.fwd, so by itself
// a callee can read nothing again (RereadableLoads.h). Its call site can
// tell more: when a pointer argument points only into memory that nothing
// writes from the call until the reverse pass (an object the caller itself
// may read again: a pointer parameter of a function called by requests
// alone, or a global there, or a stable argument of a callee in turn), and
// no write of the caller that may run after the call may modify it, the
// callee may read that memory again. The call itself counts as such a
// write when it may run again (in a loop): the next call may overwrite
// what this one read.
//
// The proven arguments are part of the callee's Activity (stableArgs), so
// the callee gets derived functions of its own for them; calls that prove
// nothing keep the derived functions that tape.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIP_STABLECALLARGS_H
#define ADPASS_UNZIP_STABLECALLARGS_H

namespace llvm {
class CallBase;
class Function;
} // namespace llvm

namespace ad {

class Differentiator;
class RereadableLoads;

/// The JVP the mixed call \p CB (of JVP \p Callee, in the f.jvp \p Reread
/// describes) calls once the arguments it proves stable are known: \p CB
/// is made to call a JVP whose activity marks them, built if need be, or
/// left calling \p Callee when it proves none. Null after an error.
llvm::Function *retargetToStableArgs(llvm::CallBase &CB, llvm::Function &Callee,
                                     RereadableLoads &Reread,
                                     Differentiator &D);

} // namespace ad

#endif
