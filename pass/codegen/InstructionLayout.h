//===- InstructionLayout.h - derived code laid out in order -----*- C++ -*-===//
//
// The stages build a derived function by editing the previous stage's body
// in place (f.fwd keeps f.jvp's primal instructions, which themselves are
// f.ad.src's): every instruction they add goes wherever malloc finds a chunk
// that an erased instruction left. The stages run on a worker thread whose
// malloc arena is full of such chunks, so consecutive instructions of f.fwd
// end up megabytes apart, and code generation, which walks each function a
// dozen times, misses the cache at each one.
//
// Re-creating each instruction in list order, from the main thread (whose
// arena has not taken the stages' freed chunks), lays the function out as
// clang's own code generation lays out f. At -O0, where the derived
// functions go to code generation as the stages leave them, on the
// 30,000-statement function of bench/compile_time (medians of 7 compiles):
// code generation of f.fwd 0.62 s without, 0.41 s with the layout, which
// takes 0.06 s.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_INSTRUCTIONLAYOUT_H
#define ADPASS_INSTRUCTIONLAYOUT_H

namespace llvm {
class Function;
}

namespace ad {

/// Replaces every instruction of \p F by a copy allocated in list order (the
/// copies take over names, uses, metadata and debug records). Pointers to
/// \p F's old instructions dangle afterwards, so analyses of \p F must be
/// cleared first; value handles follow the replacement.
void layOutInListOrder(llvm::Function &F);

} // namespace ad

#endif
