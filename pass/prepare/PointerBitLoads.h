//===- PointerBitLoads.h - pointers loaded as integers ------------*- C++ -*-//
//
// Optimised code may load a pointer as an integer of its size and turn it
// back into a pointer (libstdc++'s std::tuple of a reference, the key of a
// std::map's emplace, read as i64 once SROA split it). A pointer made from
// an integer has no shadow, though the memory it was loaded from keeps
// one. When clang's type-based alias tag says the memory holds a pointer,
// the prepared copy loads it as the pointer it is, whose shadow is then
// loaded from the shadow memory as any pointer's.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_POINTERBITLOADS_H
#define ADPASS_POINTERBITLOADS_H

#include "llvm/IR/Function.h"

namespace ad {

/// Rewrites `inttoptr (load iN, p)` in \p F, N the pointer's size, the
/// load simple, tagged as a pointer access and used by such casts alone,
/// into `load ptr, p`.
void rewritePointerBitLoads(llvm::Function &F);

} // namespace ad

#endif
