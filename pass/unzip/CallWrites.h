//===- CallWrites.h - what memory of its caller a call may write -*- C++
//-*-===//
//
// Alias analysis knows a call's effects from its callee's attributes. The
// derived functions the pass generates carry none, and most primal
// functions carry little: a function that calls exp or sin writes errno,
// which LLVM models as a write of any memory but its arguments' read-only
// ones. So a loop that calls project(cam, X, proj) keeps everything it
// loads from the caller's inputs, as the call "may overwrite" them.
//
// A mixed call of g.jvp writes, of its caller's primal memory, what g
// writes (its tangent and shadow writes go to shadow memory, which is
// never primal memory). paramsWrittenBy walks g and the functions it
// calls and finds the parameters through which g writes memory its caller
// can see; writes of g's own locals and heap blocks, and of errno by math
// functions, do not count. When g may write anything else (a global, memory
// reached through a pointer loaded from memory, an unknown function), it
// says nothing.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIP_CALLWRITES_H
#define ADPASS_UNZIP_CALLWRITES_H

#include "llvm/ADT/SmallBitVector.h"
#include <optional>

namespace llvm {
class CallBase;
class Function;
class TargetLibraryInfo;
} // namespace llvm

namespace ad {

/// The parameters of \p G through which it may write memory that its
/// caller can see, one bit each; none when it may write other memory too.
std::optional<llvm::SmallBitVector>
paramsWrittenBy(const llvm::Function &G, const llvm::TargetLibraryInfo &TLI);

/// For a mixed call \p Call of g.jvp: the operands (g's arguments) through
/// which it may write its caller's primal memory; none when unknown.
std::optional<llvm::SmallBitVector>
primalOperandsWrittenBy(const llvm::CallBase &Call,
                        const llvm::TargetLibraryInfo &TLI);

} // namespace ad

#endif
