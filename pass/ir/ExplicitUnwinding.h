//===- ExplicitUnwinding.h - exceptions as branches -------------*- C++ -*-===//
//
// The three stages know branches, merges and one return. C++ exceptions
// add invokes (a call with a second, exceptional successor), landing pads
// and resumes. The prepared copy expresses them in those terms (the
// explicit form), and derived code goes back to real exception handling
// once a request is lowered:
//
//   %r = invoke @g(x) to %N unwind %L
//
// becomes
//
//   %r = call @g(x)
//   %u = call i1 @ad.unwound()          ; did the call above unwind?
//   br i1 %u, label %L.u, label %N
// L.u:
//   %lp = call {ptr, i32} @ad.landing_pad(i1 <cleanup>, <clauses>...)
//   br label %L                          ; %L's landingpad: a phi of %lp
//
// %u is a non-linear value like any branch condition: f.fwd keeps the
// call, the tape records which way it went, f.lin follows it, and f.rev
// turns the branch into a merge. A call that may unwind out of a function
// (not inside a try) becomes such an invoke too, whose cleanup leads to
// the function's exit; every resume goes there as well:
//
// exit:
//   %unwinding = phi i1 ...; %exn = phi {ptr, i32} ...; %ret = phi ...
//   call void @ad.resume_if(i1 %unwinding, {ptr, i32} %exn)
//   ret %ret
//
// so a function has one return whether it returned or unwound, and its
// reverse starts there and walks back along the path that ran, covering
// exactly the part of it that ran before an exception left it.
//
// Materializing the form again in derived code (f.jvp, f.fwd): the call
// before each ad.unwound becomes an invoke. What the stages placed between
// that call and the branch (extracting the results, tape records) runs on
// both edges, as the explicit form says; on the unwinding edge it sees a
// poison result, which no code there uses.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_EXPLICITUNWINDING_H
#define ADPASS_EXPLICITUNWINDING_H

namespace llvm {
class Constant;
class Function;
class Module;
class TargetLibraryInfo;
} // namespace llvm

namespace ad {
class Diagnostics;

/// Rewrites the exception handling of \p F, a prepared copy, into the
/// explicit form above; \p Changed says whether there was any. False,
/// after reporting, for exception handling the form does not express
/// (Windows funclets).
bool makeUnwindingExplicit(llvm::Function &F,
                           const llvm::TargetLibraryInfo &TLI,
                           Diagnostics &Diags, bool &Changed);

/// Whether \p F, in the explicit form, can unwind into its caller.
bool unwindsExplicitly(const llvm::Function &F);

/// Real invokes, landing pads and resumes again in every function of \p M
/// that holds the explicit form.
void materializeUnwinding(llvm::Module &M);

/// The personality for landing pads in \p F: its own, its primal's, any
/// in the module, else the C++ one.
llvm::Constant *personalityFor(llvm::Function &F);

/// Whether \p F is one of the explicit form's placeholders.
bool isUnwindingPlaceholder(const llvm::Function &F);

} // namespace ad

#endif
