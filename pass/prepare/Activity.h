//===- Activity.h - which arguments of a function carry derivatives -*- C++
//-*-===//
//
// An activity signature says, per parameter of a primal function, whether it
// is differentiated. Each (function, signature) pair gets its own derived
// functions, so a helper called once with an active and once with a constant
// argument is specialised twice and no derivative work is wasted.
//
// Value activity inside a function body ("varied" values: those that depend
// on an active argument) is computed here too.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_ACTIVITY_H
#define ADPASS_ACTIVITY_H

#include "ir/AllocationCalls.h"
#include "ir/TypeLeaves.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include <string>

namespace ad {

enum class ArgRole : char {
  Active = 'a', ///< float/double value with a tangent / cotangent
  Const = 'c',  ///< no derivative (AD_CONST, integers)
  Dup = 'd',    ///< pointer followed by its shadow pointer
};

class Activity {
public:
  Activity() = default;
  explicit Activity(llvm::SmallVector<ArgRole, 8> Roles,
                    bool ShadowReturn = false, unsigned Level = 0,
                    bool ForHandle = false)
      : Roles(std::move(Roles)), ShadowReturn(ShadowReturn), Level(Level),
        ForHandle(ForHandle) {}

  /// Every float/double parameter active, every pointer with a shadow,
  /// integers constant: what __ad_gradient(f, ...) without annotations asks
  /// for. Derived functions for it carry no activity suffix.
  static Activity defaultFor(const llvm::Function &F);

  ArgRole role(unsigned ArgNo) const { return Roles[ArgNo]; }
  bool isActive(unsigned ArgNo) const {
    return Roles[ArgNo] == ArgRole::Active;
  }
  bool isDup(unsigned ArgNo) const { return Roles[ArgNo] == ArgRole::Dup; }
  /// Active or Dup: the parameter gets an extra one (tangent or shadow).
  bool hasDerivative(unsigned ArgNo) const {
    return Roles[ArgNo] != ArgRole::Const;
  }
  unsigned size() const { return Roles.size(); }
  /// The caller keeps the returned pointer where pointers to memory with
  /// derivatives are kept, so f.jvp must return its shadow even when no
  /// derivative flows into f (a helper that allocates a buffer from an
  /// empty allocator object). The values that produce the returned
  /// pointer are given shadows (computeActivity).
  bool shadowReturn() const { return ShadowReturn; }
  unsigned numActive() const;
  /// f.jvp takes f's parameters, then one extra per parameter with a
  /// derivative (tangent or shadow), in parameter order: the f parameter
  /// each extra belongs to.
  llvm::SmallVector<unsigned, 8> extraOwners() const;
  /// The nesting level of the request the derived function is built for:
  /// 0 for a request whose code makes none, one more than the deepest
  /// request its code makes otherwise. Derived code of an outer level runs
  /// inner derived code as primal code, so it keeps its derivatives in
  /// shadows of its own (GlobalShadows): the same function gets derived
  /// functions per level.
  unsigned level() const { return Level; }
  Activity atLevel(unsigned L) const {
    Activity A(*this);
    A.Level = L;
    return A;
  }
  /// A call of a function registered with AD_CHECKPOINT: reverse mode keeps
  /// the call's arguments and runs g.fwd again right before g.rev
  /// (unzip/Checkpoint.h). Forward mode is the same as without it.
  bool checkpoint() const { return Checkpoint; }
  Activity withCheckpoint(bool C) const {
    Activity A(*this);
    A.Checkpoint = C;
    return A;
  }
  /// Derived functions for a handle (__ad_linearize): f.fwd gets
  /// placeholder shadows and f.lin / f.rev the caller's (Handle.cpp in the
  /// runtime), nothing is read again from memory in f.rev, and f.fwd notes
  /// the shadows of f's own memory on the handle. Callees inherit it.
  bool forHandle() const { return ForHandle; }
  Activity asHandle(bool H = true) const {
    Activity A(*this);
    A.ForHandle = H;
    return A;
  }
  /// The pointer parameters whose memory nothing writes from the call until
  /// the caller's reverse pass reads it again, as the call site proved
  /// (unzip/StableCallArgs.h): loads of it may be read again in f.rev.
  /// Empty for a request (the function's own rule applies) and for calls
  /// that prove nothing; such calls get derived functions of their own.
  const llvm::SmallBitVector &stableArgs() const { return StableArgs; }
  Activity withStableArgs(llvm::SmallBitVector S) const {
    Activity A(*this);
    A.StableArgs = S.any() ? std::move(S) : llvm::SmallBitVector();
    return A;
  }
  /// "ac" for (active, constant), "acr" with the return role, "ack"
  /// checkpointed, "ach" for a handle, "acp01" with stable second argument,
  /// "acL1" at level 1: used in derived function names.
  std::string str() const;
  static Activity parse(llvm::StringRef S);
  bool operator==(const Activity &O) const {
    return Roles == O.Roles && ShadowReturn == O.ShadowReturn &&
           Checkpoint == O.Checkpoint && Level == O.Level &&
           ForHandle == O.ForHandle && StableArgs == O.StableArgs;
  }

private:
  llvm::SmallVector<ArgRole, 8> Roles;
  bool ShadowReturn = false;
  bool Checkpoint = false;
  unsigned Level = 0;
  bool ForHandle = false;
  llvm::SmallBitVector StableArgs;
};

class CustomRules;

/// Whether a call of \p Callee is differentiated from its body, which
/// Linearize can then make return the shadow of memory it allocates. The
/// result of a function with a user's rule is what the rule says: an
/// AD_INACTIVE function's has no shadow.
bool differentiatedFromBody(const llvm::Function *Callee,
                            const CustomRules &Rules);

/// The functions with bodies that differentiating \p Roots may run: direct
/// callees (and the bodies of their custom forward rules, which are
/// differentiated too), and every address-taken function once any of them
/// makes an indirect call (the dispatcher of IndirectCalls.h may reach
/// each).
llvm::SmallPtrSet<const llvm::Function *, 32>
reachableFunctions(llvm::Module &M, llvm::ArrayRef<llvm::Function *> Roots,
                   const CustomRules &Rules);

/// Whether \p Accept holds for every pointer that may be stored into \p AI's
/// memory: the value of a store through \p AI (or an address computed from
/// it by GEPs), also a pointer stored as an integer (ptrtoint), and every
/// other pointer argument of a call that is given such an address (a callee
/// can only store there pointers it is given; globals have no shadow).
/// \p PassedToCall says which of the two it is. Stops at the first pointer
/// \p Accept rejects.
bool allPointersStoredInto(
    const llvm::AllocaInst &AI,
    llvm::function_ref<bool(const llvm::Value *P, bool PassedToCall)> Accept);

class GlobalShadows;

/// Whether address-like \p I (an address computation, a choice between
/// addresses, the address of a thread-local global in this thread, a
/// field of a struct of pointers or such a struct built field by field)
/// takes the shadow of its address-like operands.
bool derivesAddress(const llvm::Instruction &I);

/// Which values of a function carry derivatives.
struct ActivityInfo {
  /// Values that depend on an active argument or on memory with a shadow.
  /// Integers never vary: their derivative is zero, so code that only
  /// computes integers (indices, branch conditions) never gets tangent code.
  llvm::SmallPtrSet<const llvm::Value *, 32> Varied;
  /// Pointers with a shadow: AD_DUP arguments, local and heap memory that
  /// can hold floating-point data, addresses of active globals (constants
  /// used by the function), and addresses computed from them.
  llvm::SmallPtrSet<const llvm::Value *, 16> Shadowed;
  /// Integers that hold the bits of a varied value (a double reinterpreted
  /// as uint64_t, and integer arithmetic on it). Comparisons of them carry
  /// no derivative (signbit); turning them back into floating point is bit
  /// manipulation the pass cannot differentiate.
  llvm::SmallPtrSet<const llvm::Value *, 4> FloatBits;
};
ActivityInfo computeActivity(const llvm::Function &F, const Activity &A,
                             const GlobalShadows &Globals,
                             const CustomRules &Rules);

} // namespace ad

#endif
