//===- PrepareSource.h - a clean copy of a function to differentiate -*- C++
//-*-===//
//
// Differentiation reads a private copy of the user's function, never the
// function itself: at -O0 clang marks everything optnone and keeps every
// variable in memory, so the copy drops optnone and is put into SSA form
// (mem2reg, or SROA when a local is an aggregate or escapes), simplified,
// and given a single return (Transpose starts from it).
// The copy is also where unsupported constructs are found and reported.
//
// When the module is optimised (-O1 and above), the copy also gets one more
// round of GVN and dead-store elimination. The primal at that point has had
// one round; LLVM's memory dependence scans stop after a fixed number of
// instructions, so long blocks keep redundant loads and overwritten stores
// that only a second round removes (the primal itself gets it later, in the
// inliner pipeline the ad pass reruns). Differentiating the cleaner copy
// means fewer tangent loads and stores, fewer residuals on the tape and a
// smaller f.fwd to compile: on the compile-time benchmark's straight-line
// code (bench/README.md) f.fwd has 4x fewer loads and a third fewer stores.
// InstCombine follows: GVN forwards a stored vector of doubles to scalar
// loads through an integer view (bitcast to i128, shift, truncate), which
// differentiation rejects as bit manipulation; InstCombine makes it an
// element extraction again.
//
// At every level, loads of values the same block already has are then
// forwarded (ForwardLoads.h), without alias analysis and in one walk: at
// -O0 nothing else removes them, and GVN's scans stop after 100
// instructions. On the 30,000-statement straight-line function of the
// compile-time benchmark at -O0, f.fwd then reads memory 45 times instead
// of 87,000 and tapes 20,000 values instead of 60,000.
//
// At -O0 on x86 without FMA, llvm.fmuladd in the copy becomes fmul + fadd,
// as the backend would lower it: FastISel cannot select fmuladd, and f.fwd
// full of them compiled three times slower than the same code split.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_PREPARESOURCE_H
#define ADPASS_PREPARESOURCE_H

#include "llvm/IR/Function.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PassManager.h"

namespace ad {

class Diagnostics;

/// Returns the prepared copy of \p F (the caller erases it when done), or
/// null after reporting why \p F cannot be differentiated. \p Optimize: the
/// module is compiled with optimisation (adds GVN and DSE, see above).
llvm::Function *prepareSource(llvm::Function &F,
                              llvm::FunctionAnalysisManager &FAM,
                              Diagnostics &Diags, bool Optimize);

/// Replaces \p FMA (llvm.fmuladd or llvm.fma) with an fmul and an fadd
/// carrying its fast-math flags. For llvm.fma this rounds twice: callers use
/// it where that is what the code means (a tangent rule) or where the
/// backend would do the same.
void splitMultiplyAdd(llvm::IntrinsicInst &FMA);

} // namespace ad

#endif
