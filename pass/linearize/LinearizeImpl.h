//===- LinearizeImpl.h - the JVP builder, shared by its files --*- C++ -*-===//
//
// Linearize.cpp builds tangents of values and control flow, LinearizeCalls.cpp
// (with LinearizeComplex.cpp and LinearizeOpenMP.cpp) those of calls. The
// tangent side of memory: LinearizeShadows.cpp builds shadows of pointers,
// LinearizeAllocation.cpp those of allocated memory, LinearizeLoadStore.cpp
// and LinearizeMemIntrinsics.cpp the loads, stores, copies and fills of
// shadow memory, and InactiveMemory.cpp tells which memory carries no
// derivatives. Private to the stage.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LINEARIZEIMPL_H
#define ADPASS_LINEARIZEIMPL_H

#include "prepare/Activity.h"
#include "unzip/TapeRuntime.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"

#include <string>

namespace ad {

class CustomRules;
class Differentiator;
struct JvpRule;

/// A builder whose every instruction is marked linear, inheriting the
/// user's fast-math flags of the primal operation.
struct TangentBuilder
    : llvm::IRBuilder<llvm::ConstantFolder, llvm::IRBuilderCallbackInserter> {
  TangentBuilder(llvm::Instruction *InsertBefore,
                 const llvm::Instruction &Primal);
};

/// compiler-rt's complex multiply and divide (__muldc3 and friends), whose
/// JVP LinearizeComplex.cpp builds.
bool isComplexArithmetic(const llvm::Function &Callee);

/// Constants (null, functions, vtables, not globals holding floating-point
/// data) and locals that hold neither floating-point data nor pointers, and
/// constant structs of such pointers: no tangent is ever loaded through
/// such a pointer, and its shadow, where one is needed, is null.
bool pointsToNonDifferentiableData(const llvm::Value *V);

/// Null, or an address computed from it (an empty std::vector's end, null
/// + size, at -O2): it points nowhere, in the shadow too, so it is its own
/// shadow.
bool isNullDerived(const llvm::Value *P);

/// What memory without a shadow that active data reaches is, for errors.
std::string memoryWithoutShadow(const llvm::Value *P, const CustomRules &Rules);

/// What memory without a known shadow that a read reaches is, for errors.
std::string unknownMemory(const llvm::Value *P, const CustomRules &Rules);

class Linearizer {
public:
  Linearizer(llvm::Function &Src, llvm::Function &Primal, const Activity &A,
             Differentiator &D)
      : Src(Src), Primal(Primal), Act(A), D(D) {}

  llvm::Function *run();

private:
  llvm::Function *createJvpDeclaration(bool ReturnsShadow);
  void moveSourceBodyIntoJvp();
  /// Takes over the activity computed on Src, naming J's arguments.
  void adoptActivity(ActivityInfo &Info);
  /// Maps J's active and AD_DUP parameters to their tangent and shadow
  /// parameters.
  void bindArgumentDerivatives();
  /// A tangent phi per varied phi of \p Blocks, with no incoming values
  /// yet: (primal phi, tangent phi) pairs.
  llvm::SmallVector<std::pair<llvm::PHINode *, llvm::PHINode *>, 8>
  createTangentPhis(llvm::ArrayRef<llvm::BasicBlock *> Blocks);
  /// Linearizes the instructions of \p Blocks, in order. False on error.
  bool linearizeBlocks(llvm::ArrayRef<llvm::BasicBlock *> Blocks);
  void completeTangentPhis(
      llvm::ArrayRef<std::pair<llvm::PHINode *, llvm::PHINode *>> PhiPairs);
  llvm::Value *tangentOf(llvm::Value *V);
  bool isVaried(const llvm::Value *V) const { return Varied.count(V); }
  bool isShadowed(const llvm::Value *V) const { return Shadowed.count(V); }
  /// A varied value or a pointer with a shadow: an operand through which
  /// derivatives flow.
  bool carriesDerivative(const llvm::Value *V) const {
    return isVaried(V) || isShadowed(V);
  }
  /// Whether the call reads data that carries derivatives: an active
  /// argument, a pointer with a shadow, or an active global.
  bool readsActiveData(const llvm::CallBase &CB) const;
  /// Why \p I would silently drop a derivative (a value of a type no
  /// tangent follows computed from active data, or an active value's bits
  /// turned back into floating point), or null.
  const char *droppedDerivative(const llvm::Instruction &I) const;
  /// The tangent of \p BC when it reinterprets an integer load of
  /// floating-point bytes (the shadow's bytes, read by
  /// linearizeIntegerLoad), or null.
  llvm::Value *reinterpretedTangent(const llvm::BitCastInst &BC) const;
  /// Whether integer \p V is made (by integer arithmetic, casts and
  /// choices) from an integer load of memory with a shadow.
  bool bitsLoadedFromActiveMemory(const llvm::Value *V) const;
  void linearizeInstruction(llvm::Instruction &I);
  void applyRule(llvm::Instruction &I, const JvpRule &R);
  void applyLinearStructure(llvm::Instruction &I,
                            llvm::ArrayRef<unsigned> DataOps);
  llvm::Value *allocateShadow(llvm::IRBuilderBase &B, llvm::Value *Size,
                              llvm::Value *Align);
  void releaseShadow(llvm::IRBuilderBase &B, llvm::Value *S);
  void linearizeCall(llvm::CallBase &CB);
  /// \p EvenWithoutActiveArgs: the callee may access active globals, or
  /// its pointer result must have a shadow, so it is differentiated even
  /// when no argument carries a derivative.
  void linearizeUserCall(llvm::CallBase &CB, llvm::Function &Callee,
                         bool FirstArgConst = false,
                         bool EvenWithoutActiveArgs = false);
  /// The role of each argument of \p CB in the call of \p Callee's JVP.
  llvm::SmallVector<ArgRole, 8> calleeArgRoles(llvm::CallBase &CB,
                                               llvm::Function &Callee,
                                               bool FirstArgConst);
  /// The JVP of \p Callee for \p CalleeAct, or null when there is none
  /// (reported, or given up on in a dispatcher).
  llvm::Function *calleeJvp(llvm::CallBase &CB, llvm::Function &Callee,
                            const Activity &CalleeAct);
  /// Appends the tangents and shadows of \p CB's arguments that
  /// \p CalleeAct asks for. False when a shadow is missing (reported).
  bool appendDerivativeArgs(llvm::CallBase &CB, const Activity &CalleeAct,
                            llvm::SmallVectorImpl<llvm::Value *> &Args);
  /// Calls \p CalleeJvp in place of \p CB, and takes the result's tangent
  /// or shadow out of what it returns.
  void replaceByJvpCall(llvm::CallBase &CB, llvm::Function &CalleeJvp,
                        llvm::ArrayRef<llvm::Value *> Args);
  void linearizeIndirectCall(llvm::CallBase &CB, bool EvenWithoutActiveArgs);
  /// `__kmpc_fork_call(loc, n, outlined, args...)`: a call of the outlined
  /// region, whose derived functions are forked in its place once the
  /// stages are done (OpenMPRegions.h).
  void linearizeParallelRegion(llvm::CallBase &CB);
  /// Whether the value \p V a fork passes is made from data with
  /// derivatives (a firstprivate double passed as its bits).
  bool passesDerivativeInBits(const llvm::Value *V) const;
  /// The OpenMP runtime's other entry points: loop scheduling stays primal
  /// code; what is not supported is reported at the construct.
  void linearizeOpenMPRuntimeCall(llvm::CallBase &CB, llvm::Function &Callee);
  /// `atomicrmw fadd p, v` (a reduction's combine): its tangent is an
  /// atomic add of v's tangent into p's shadow.
  void linearizeAtomicAdd(llvm::AtomicRMWInst &RMW);
  /// In a dispatcher: the derivative of the possible target \p Callee, or
  /// null when it cannot be built (then \p Why says why).
  llvm::Function *tryTargetJvp(llvm::CallBase &CB, llvm::Function &Callee,
                               const Activity &CalleeAct, std::string &Why);
  /// A dispatcher's call of a target with no derivative: warns, and aborts
  /// at run time if derived code ever calls it.
  void giveUpOnTarget(llvm::CallBase &CB, llvm::Function &Target,
                      llvm::StringRef Why);
  void constantResult(llvm::CallBase &CB);
  void linearizeStreamCall(llvm::CallBase &CB, llvm::Function &Callee);
  /// A call of an isLinkStructureFunction: made again on the shadows.
  void linearizeRelinkingCall(llvm::CallBase &CB);
  /// Replaces \p CB, which a derived call took the place of, by \p With
  /// and erases it, with its entries in the activity sets.
  void replaceCall(llvm::CallBase &CB, llvm::Value *With);
  // LinearizeComplex.cpp
  void linearizeComplexArithmetic(llvm::CallBase &CB);
  /// cabsf and cargf: a real result of a complex argument.
  void linearizeComplexAbsOrArg(llvm::CallBase &CB);
  void linearizeReturn(llvm::ReturnInst &Ret);
  void fail(const llvm::Instruction &At, const llvm::Twine &Msg);

  // LinearizeShadows.cpp
  /// The shadow of pointer \p P; reports (and returns null) if it has none.
  llvm::Value *shadowOf(llvm::Value *P, const llvm::Instruction &User);
  void createShadowPhis();
  /// Fills in the incoming shadows of the shadow phis that are used, and
  /// erases the others. False on error.
  bool completeShadowPhis();
  void linearizeAddress(llvm::Instruction &I);
  void linearizeTapeRecord(llvm::CallBase &CB, TapeRecordCall Record);
  /// Checks at run time that pointer \p LI, loaded from memory with a
  /// shadow, does not lead into a global used by name with another shadow
  /// than \p ShadowLoad (NamedGlobalChecks.cpp).
  void checkLoadedPointer(llvm::LoadInst &LI, llvm::LoadInst &ShadowLoad);

  // LinearizeAllocation.cpp
  void linearizeAllocation(llvm::CallBase &CB);
  void linearizeStringBufferAllocation(llvm::CallBase &CB);
  void linearizeOutParamAllocation(llvm::CallBase &CB);
  void linearizeDynamicAlloca(llvm::AllocaInst &AI);
  void linearizeDeallocation(llvm::CallBase &CB);

  // LinearizeLoadStore.cpp
  void linearizeLoad(llvm::LoadInst &LI);
  void linearizeIntegerLoad(llvm::LoadInst &LI, llvm::Value *P);
  void linearizeStore(llvm::StoreInst &SI);
  /// A store into memory without a shadow: reports what it would lose.
  void checkStoreWithoutShadow(llvm::StoreInst &SI);
  /// A pointer, or a struct of pointers, stored into memory with a shadow:
  /// its shadow goes into the shadow memory.
  void linearizePointerStore(llvm::StoreInst &SI);
  /// A pointer stored as an integer: its shadow's bits go along.
  void linearizePointerBitsStore(llvm::StoreInst &SI, llvm::PtrToIntInst &PI);
  /// A store of an integer (or of a struct holding integers): the bits of
  /// a tangent or of a shadow, or zero, go along where they may be read
  /// back as floating-point data.
  void linearizeIntegerStore(llvm::StoreInst &SI);
  /// Stores \p Shadow into the shadow of \p SI's address, after \p SI;
  /// null when that address has no shadow (reported by shadowOf).
  llvm::StoreInst *storeIntoShadowAfter(llvm::StoreInst &SI,
                                        llvm::Value *Shadow);

  // LinearizeMemIntrinsics.cpp
  void linearizeMemIntrinsic(llvm::MemIntrinsic &MI);
  void linearizeMemSet(llvm::MemSetInst &MS);
  /// Reports (and returns false for) a copy between memory with a shadow
  /// and local storage that would lose the derivatives it moves.
  bool checkCopyKeepsDerivatives(llvm::MemTransferInst &MT, bool DstShadowed,
                                 bool SrcShadowed);
  /// The element type of the shadow memory \p MT copies (null when no
  /// floating-point data moves); reports, and returns nothing, when it
  /// cannot be told.
  std::optional<llvm::Type *>
  copiedShadowElementType(llvm::MemTransferInst &MT);
  /// Copies the shadows of \p MT's memory, or zeroes the destination's
  /// when the source has none.
  void copyShadowMemory(llvm::MemTransferInst &MT, llvm::Type *Elem,
                        bool SrcShadowed);
  void linearizeLifetimeStart(llvm::IntrinsicInst &LS);

  // InactiveMemory.cpp
  /// Memory the function may read as constant data: read-only globals and
  /// AD_CONST arguments.
  bool isInactiveMemory(const llvm::Value *P) const;
  bool
  isInactiveMemory(const llvm::Value *P,
                   llvm::SmallPtrSetImpl<const llvm::Value *> &Visited) const;
  bool storedPointersAreInactive(
      const llvm::AllocaInst &AI,
      llvm::SmallPtrSetImpl<const llvm::Value *> &Visited) const;

  llvm::Function &Src;
  llvm::Function &Primal;
  Activity Act;
  Differentiator &D;
  llvm::Function *J = nullptr;
  llvm::SmallPtrSet<const llvm::Value *, 32> Varied;   // values of J
  llvm::SmallPtrSet<const llvm::Value *, 16> Shadowed; // values of J
  llvm::SmallPtrSet<const llvm::Value *, 4> FloatBits; // ActivityInfo's
  llvm::DenseMap<const llvm::Value *, llvm::Value *> Tangent;
  llvm::DenseMap<const llvm::Value *, llvm::Value *> Shadow;
  /// Integer loads of doubles' or pointers' bytes from memory with a shadow
  /// (linearizeIntegerLoad): the shadow memory's bytes there, read at the
  /// same point, a tangent (linear) or a shadow pointer's bits.
  llvm::DenseMap<const llvm::Value *, llvm::Value *> ShadowBits;
  llvm::SmallVector<std::pair<llvm::PHINode *, llvm::PHINode *>, 4> ShadowPhis;
  bool Failed = false;
};

} // namespace ad

#endif
