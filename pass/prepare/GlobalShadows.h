//===- GlobalShadows.h - shadow storage for written global variables -*- C++
//-*-===//
//
// docs/api.md: global variables that the differentiated code writes and reads
// back (scratch buffers, caches) are differentiated through, with shadow
// storage provided by the pass; read-only globals are inactive.
//
// Which globals those are is decided once per module, before any derivative
// is built, because every derived function must agree: if g.jvp read a
// global as a constant that f.jvp writes active values into, the derivative
// would be silently wrong. A global is active when it holds floating-point
// data and no pointers, its size is known here, and some function the
// requests can reach (through direct calls, and through indirect calls to
// every address-taken function) writes it or lets its address escape. A
// global only the rest of the program writes (data main fills in before
// asking for a gradient) stays inactive and costs nothing.
//
// Each active global @g gets an internal, zero-initialised twin @g.shadow
// of the same type (and thread-local mode). The global's contents when a
// request starts are constants, and globals are not outputs: so the
// request zeroes the shadows its derived code uses right before f.jvp
// (tangents of the initial contents) or f.rev (cotangents of the final
// contents). Within the derived code a shadow global is shadow memory like
// any other (docs/design.md, "Memory and shadows").
//
// Nested requests: an outer request differentiates code that runs inner
// requests' derived code as primal code, which writes the inner shadows
// (and the globals themselves) as it goes. So the outer request cannot keep
// the derivatives of @g in @g.shadow: they would be overwritten by the
// inner cotangents, and the inner cotangents, which depend on the outer
// inputs, would carry no derivative. Each nesting level (Activity::level)
// decides its active globals afresh once its inner requests are derived
// code, which makes the inner shadows active globals like any other, and
// creates its own shadows (@g.shadow.L1, @g.shadow.shadow.L1 at level 1).
//
// A global declared with AD_SHADOW(g, dg) (ad.h), typically one that holds
// pointers (G = x before the request, a context struct with a workspace),
// is active with dg as its shadow: the user's memory, set up by the caller
// like an argument's shadow, so requests do not zero it. Memory reached
// through a pointer kept in any other mutable global (unless it can only
// hold addresses of constant data) may be the input itself: the derived
// code reports reading or writing floating-point data there
// (pointerGlobalAccessedBy), and functions that do are differentiated so
// that they are checked too.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_GLOBALSHADOWS_H
#define ADPASS_GLOBALSHADOWS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constant.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InstrTypes.h"

namespace ad {

class GlobalShadows {
public:
  /// Decides which globals of \p M are active, for requests of nesting
  /// \p Level whose differentiated code is \p Reach (reachableFunctions()
  /// of their functions), and makes that level the current one: what
  /// follows answers for it, and the shadows it creates are its own. The
  /// \p Declared globals (AD_SHADOW) are active at level 0, with the
  /// shadow given.
  void findActive(llvm::Module &M,
                  const llvm::SmallPtrSetImpl<const llvm::Function *> &Reach,
                  const llvm::DenseMap<llvm::GlobalVariable *,
                                       llvm::GlobalVariable *> &Declared,
                  unsigned Level = 0);
  /// The nesting level findActive() last decided for.
  unsigned level() const { return Current; }

  /// The global without a shadow that holds a pointer \p P is reached
  /// through (P = G[i], ctx.work + i, rows[i][j] with rows global), or
  /// null. Memory reached so has derivatives the derived code cannot find
  /// when G points into memory that has them: reading or writing
  /// floating-point data there is an error (ad.h: AD_SHADOW). Not a global
  /// that can only hold addresses of constant data.
  const llvm::GlobalVariable *
  unshadowedPointerGlobalBehind(const llvm::Value *P) const;
  /// The global without a shadow through whose pointer \p I reads or
  /// writes floating-point data, or passes such a pointer to a call.
  const llvm::GlobalVariable *
  pointerGlobalAccessedBy(const llvm::Instruction &I) const;

  /// Whether the call may read or write an active global, directly or
  /// through the calls it makes. Such a call carries derivatives even when
  /// no argument does (a helper that reads a cache, or one the optimiser
  /// passed a folded constant).
  bool mayTouchActive(const llvm::CallBase &CB) const;

  /// Whether \p P is a constant address inside an active global.
  bool isShadowed(const llvm::Value *P) const;
  /// The same address in the shadow global (created on first use); \p P
  /// must satisfy isShadowed().
  llvm::Constant *shadowOf(llvm::Constant *P);
  /// Whether \p GV is a shadow global this class created.
  /// A pointer into a constant global, as its shadow: the same place in a
  /// zeroed mutable twin, which reads as zero tangents and takes, unread,
  /// the cotangents reverse mode adds there. Requests zero it when they
  /// start, like the shadows of written globals. For constant globals of
  /// data without pointers, and of pointers that lead to no derivatives
  /// (a VTT), whose shadows are null (canHaveZeroTwin).
  llvm::Constant *zeroTwinOf(llvm::Constant *P);
  static bool canHaveZeroTwin(const llvm::GlobalVariable &GV);
  bool isShadowGlobal(const llvm::GlobalVariable *GV) const {
    return ShadowLevel.count(GV);
  }
  /// The global whose shadow, at the current level, is \p Shadow.
  llvm::GlobalVariable *primalOf(const llvm::GlobalVariable *Shadow) const;
  /// The shadow globals of the current level that \p F and every function
  /// it references use, in the order first found.
  llvm::SmallSetVector<llvm::GlobalVariable *, 4>
  shadowsUsedFrom(llvm::Function &F) const;
  /// The mutable globals with floating-point data that \p F and every
  /// function it references use by name, in the order first found: those
  /// with a shadow (through it, or as themselves) and those the derived
  /// code reads as constants. Memory that a request also passes in with a
  /// shadow of its own would have two different derivatives.
  llvm::SmallSetVector<llvm::GlobalVariable *, 4>
  dataUsedByNameFrom(llvm::Function &F) const;
  /// The same kind of globals, used by name anywhere in the current
  /// level's requests' code: where a pointer loaded from memory with a
  /// shadow must not lead without that global's own shadow.
  llvm::ArrayRef<llvm::GlobalVariable *> dataUsedByNameInReach() const {
    return current().NamedData.getArrayRef();
  }

private:
  void findTouching(const llvm::SmallPtrSetImpl<const llvm::Function *> &Reach);

  /// What a nesting level decides and creates: requests of different
  /// levels keep their derivatives in different shadows.
  struct LevelState {
    llvm::SmallPtrSet<const llvm::GlobalVariable *, 8> Active;
    /// Functions that may access active globals (mayTouchActive).
    llvm::SmallPtrSet<const llvm::Function *, 8> Touching;
    /// Whether an address-taken function is among them: then so may be
    /// every indirect call.
    bool IndirectMayTouch = false;
    /// The globals without a shadow that hold pointers and that the
    /// requests' code uses: those pointers may lead to memory with
    /// derivatives.
    llvm::SmallPtrSet<const llvm::GlobalVariable *, 4> PointerGlobals;
    /// dataUsedByNameInReach().
    llvm::SmallSetVector<llvm::GlobalVariable *, 4> NamedData;
    llvm::DenseMap<llvm::GlobalVariable *, llvm::GlobalVariable *>
        PrimalToShadow;
    llvm::DenseMap<llvm::GlobalVariable *, llvm::GlobalVariable *>
        ConstantToTwin;
  };
  llvm::SmallVector<LevelState, 2> Levels{LevelState()};
  unsigned Current = 0;
  LevelState &current() { return Levels[Current]; }
  const LevelState &current() const { return Levels[Current]; }

  llvm::Constant *
  inTwin(llvm::Constant *P,
         llvm::DenseMap<llvm::GlobalVariable *, llvm::GlobalVariable *> &Twins,
         llvm::StringRef Suffix);

  /// Every shadow global created, and the level whose requests use it.
  llvm::DenseMap<const llvm::GlobalVariable *, unsigned> ShadowLevel;
};

/// The run-time check derived code makes of a pointer it loads against
/// the globals its request uses by name (NamedGlobalChecks.cpp), and the
/// call by which each request names them.
inline constexpr llvm::StringLiteral PointerIntoGlobalCheckFn =
    "__ad_check_pointer_into_global";
inline constexpr llvm::StringLiteral NamedGlobalsSetFn =
    "__ad_named_globals_set";

/// The global variable a constant address points into (through constant
/// GEPs and casts), or null.
const llvm::GlobalVariable *globalBaseOf(const llvm::Value *P);

} // namespace ad

#endif
