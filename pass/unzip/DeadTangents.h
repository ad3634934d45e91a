//===- DeadTangents.h - tangent code whose values reach nothing -*- C++ -*-===//
//
// Linearize gives every varied value a tangent, whether or not the tangent
// reaches anything: a running maximum that is only compared (its result
// read again from memory after the loop, SelectedLoadRecurrences.h) keeps
// a tangent phi and select that only feed each other. Unzip would tape the
// non-linear operands of that dead code (the choice of every iteration) and
// Transpose would replay it, so it goes before the tape is planned: the
// linear instructions from which no store, call, return or non-linear
// instruction can be reached, as LLVM's aggressive dead code elimination
// finds them, but for linear code only (primal code keeps its effects).
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIP_DEADTANGENTS_H
#define ADPASS_UNZIP_DEADTANGENTS_H

namespace llvm {
class Function;
} // namespace llvm

namespace ad {

/// Erases the dead linear instructions of \p Jvp, and the non-linear code
/// only they used; returns how many linear instructions went.
unsigned dropDeadTangents(llvm::Function &Jvp);

} // namespace ad

#endif
