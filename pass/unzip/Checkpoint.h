//===- Checkpoint.h - AD_CHECKPOINT: recompute a call instead of taping -*-===//
//
// YOLO's unzip chooses, per residual, between storing and recomputing; a
// checkpoint makes that choice for a whole call, as the user asked. For a
// call of g registered with AD_CHECKPOINT, reverse mode keeps only g's
// arguments (and their shadows) and runs g.fwd again, into a tape of its
// own, right before g.rev:
//
//   g.fwd.k(x, dx, tape)  stores x and dx into %g.tape.k, calls g(x)
//   g.lin.k(tape, t)      g.fwd(x, dx, gtape) into a fresh tape; g.lin(gtape,
//   t);
//                         drops what g.fwd pushed
//   g.rev.k(tape, ct)     g.fwd(x, dx, gtape) into a fresh tape; g.rev(gtape,
//   ct)
//
// The `k` in the activity suffix names them (Activity::checkpoint), so the
// caller's unzipping and transposition find them like any callee's derived
// functions; g.jvp.k is a wrapper of g.jvp for forward mode.
//
// Running g again gives g's first run only if everything g reads is the
// same at that moment: g may write nothing but memory of its own (locals,
// heap blocks), and may read through its pointer parameters only memory
// that nothing writes after the call (RereadableLoads::whyChangedAfter).
// Anything else is an error at the call.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIP_CHECKPOINT_H
#define ADPASS_UNZIP_CHECKPOINT_H

#include "driver/Differentiator.h"
#include "unzip/RereadableLoads.h"

#include <optional>

namespace ad {

/// g.jvp.k for a checkpointed activity \p A: calls g.jvp. Null after an
/// error.
llvm::Function *buildCheckpointJvp(llvm::Function &G, const Activity &A,
                                   Differentiator &D,
                                   const llvm::Instruction *CallSite);

/// g.fwd.k, g.lin.k, %g.tape.k and g.rev.k for g.jvp.k (\p JvpK).
std::optional<Unzipped> unzipCheckpointed(llvm::Function &JvpK,
                                          Differentiator &D);

/// Whether the call \p Call of g.jvp.k in f.jvp can run g again in f.rev:
/// g writes only its own memory and reads, through pointers, only memory
/// \p Reread says is unchanged after the call. Reports an error at the
/// call otherwise.
bool checkCheckpointedCall(llvm::CallBase &Call, Differentiator &D,
                           RereadableLoads &Reread);

} // namespace ad

#endif
