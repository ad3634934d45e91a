//===- RevAliasScopes.h - what f.rev's accesses cannot alias -*- C++ -*-===//
//
// f.rev touches three kinds of memory: shadow cells, which it accumulates
// into (the transposes of f.lin's linear loads and stores); primal memory,
// which it reads again instead of taping (f.lin's non-linear loads); and
// tape records, which only the runtime hands out. Shadows never overlap
// primal memory (a shadow is the derivative storage of its own primal,
// API.md), and tape records overlap neither. Without saying so, alias
// analysis sees a store into a shadow row that may overwrite the constant
// vector the next iteration reads, and the loop vectorizer gives up or
// checks overlap at run time (a reversed inner loop's check is hoisted as
// "the outer stride is negative" and then always fails).
//
// The transposer marks the accesses it emits of each kind; scopeRevMemory
// turns the marks into scoped alias metadata, one domain per f.rev: a
// shadow access and a primal or tape read are told apart, two shadow
// accesses or two primal reads are not (the same array may be passed
// twice, and then so is its shadow).
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_REVALIASSCOPES_H
#define ADPASS_REVALIASSCOPES_H

namespace llvm {
class Function;
class Instruction;
} // namespace llvm

namespace ad {

/// \p I, a load or store that f.rev makes of a shadow cell.
void markShadowAccess(llvm::Instruction &I);
/// \p I, a load of f.lin that f.rev makes again: a tape read or a read of
/// primal memory.
void markNonLinearRead(llvm::Instruction &I);

/// \p I, the address of an array loop's records (pushed by f.fwd).
void markRecordArray(llvm::Instruction &I);

/// In \p Rev, whose slots are promoted (tape records are then found
/// through PHIs): replaces the marks with alias scopes.
void scopeRevMemory(llvm::Function &Rev);

} // namespace ad

#endif
