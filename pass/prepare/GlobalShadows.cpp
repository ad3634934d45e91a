//===- GlobalShadows.cpp - shadow storage for written global variables ----===//
#include "prepare/GlobalShadows.h"
#include "prepare/Activity.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

namespace ad {

const GlobalVariable *globalBaseOf(const Value *P) {
  while (auto *CE = dyn_cast<ConstantExpr>(P)) {
    if (CE->getOpcode() != Instruction::GetElementPtr && !CE->isCast())
      return nullptr;
    P = CE->getOperand(0);
  }
  return dyn_cast<GlobalVariable>(P);
}

/// Globals whose memory can carry derivatives and can be given a twin:
/// mutable, floating-point data without pointers (a global holding
/// pointers would need the shadow pointers of whatever the program stored
/// there before the request), of a size known in this module.
static bool canBeActive(const GlobalVariable &GV) {
  Type *T = GV.getValueType();
  if (GV.isConstant() || GV.getName().starts_with("llvm.") || !T->isSized() ||
      !containsFloatingPoint(T) || containsPointer(T))
    return false;
  return GV.getParent()->getDataLayout().getTypeAllocSize(T) > 0;
}

/// Whether a function in \p Reach may write \p GV: some use there, followed
/// through address arithmetic, is not a read (a store through it, a memory
/// copy or fill into it, or the address escaping into memory, a call or a
/// return, after which anything may write it).
static bool isWrittenIn(const GlobalVariable &GV,
                        const SmallPtrSetImpl<const Function *> &Reach) {
  SmallVector<const Value *, 16> Work{&GV};
  SmallPtrSet<const Value *, 16> Seen{&GV};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      const User *Usr = U.getUser();
      auto Follow = [&] {
        if (Seen.insert(Usr).second)
          Work.push_back(Usr);
      };
      if (isa<ConstantExpr>(Usr)) {
        Follow();
        continue;
      }
      auto *I = dyn_cast<Instruction>(Usr);
      if (!I || !Reach.count(I->getFunction()))
        continue;
      if (isa<PtrToIntInst>(I))
        return true;
      if (derivesAddress(*I) || isa<CastInst>(I)) {
        Follow();
        continue;
      }
      if (isa<LoadInst>(I) || isa<ICmpInst>(I) || isa<DbgInfoIntrinsic>(I) ||
          isa<LifetimeIntrinsic>(I))
        continue;
      if (auto *MT = dyn_cast<MemTransferInst>(I);
          MT && U.getOperandNo() == 1 && MT->getRawDest() != V)
        continue; // copied from
      return true;
    }
  }
  return false;
}

/// Whether a function in \p Reach uses \p GV: loads from it, or passes
/// its address on (to std::vector<double>::operator[] at -O0).
static bool isUsedIn(const GlobalVariable &GV,
                     const SmallPtrSetImpl<const Function *> &Reach) {
  SmallVector<const Value *, 8> Work{&GV};
  SmallPtrSet<const Value *, 8> Seen{&GV};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const User *U : V->users()) {
      if (auto *I = dyn_cast<Instruction>(U)) {
        if (Reach.count(I->getFunction()))
          return true;
      } else if (isa<ConstantExpr>(U) && Seen.insert(U).second) {
        Work.push_back(U);
      }
    }
  }
  return false;
}

/// Whether every pointer in constant \p C leads to constant data (or to
/// none): null, functions, addresses in constant globals.
static bool pointsOnlyToConstants(const Constant *C) {
  if (auto *CA = dyn_cast<ConstantAggregate>(C))
    return llvm::all_of(CA->operands(), [](const Use &U) {
      return pointsOnlyToConstants(cast<Constant>(U.get()));
    });
  if (isa<ConstantData>(C))
    return true;
  const Value *Base = getUnderlyingObject(C);
  if (auto *GV = dyn_cast<GlobalVariable>(Base))
    return GV->isConstant();
  return isa<Function>(Base) || isa<ConstantPointerNull>(Base);
}

/// Whether \p GV, a mutable global, can only ever hold addresses of
/// constant data (a static pointer set to a static const table): no other
/// translation unit can write it, its initial value and every value this
/// module stores into it are such addresses, and its address goes nowhere
/// else.
static bool holdsOnlyConstantAddresses(const GlobalVariable &GV) {
  if (!GV.hasLocalLinkage() || !GV.hasDefinitiveInitializer() ||
      !pointsOnlyToConstants(GV.getInitializer()))
    return false;
  SmallVector<const Value *, 8> Work{&GV};
  SmallPtrSet<const Value *, 8> Seen{&GV};
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    for (const Use &U : V->uses()) {
      const User *Usr = U.getUser();
      if (isa<LoadInst>(Usr))
        continue;
      if (auto *SI = dyn_cast<StoreInst>(Usr)) {
        auto *Stored = dyn_cast<Constant>(SI->getValueOperand());
        if (U.getOperandNo() != SI->getPointerOperandIndex() || !Stored ||
            !pointsOnlyToConstants(Stored))
          return false;
        continue;
      }
      if (!isa<GEPOperator>(Usr) && !isa<BitCastOperator>(Usr))
        return false;
      if (Seen.insert(Usr).second)
        Work.push_back(Usr);
    }
  }
  return true;
}

/// Whether loads from \p GV give pointers the derived code has no shadow
/// for, and that may lead to memory with derivatives.
/// A global whose floating-point data code may use by name: mutable, of a
/// size known here (dataUsedByNameFrom).
static bool isDataUsedByName(const GlobalVariable &GV) {
  return !GV.isConstant() && !GV.getName().starts_with("llvm.") &&
         GV.getValueType()->isSized() &&
         containsFloatingPoint(GV.getValueType());
}

static bool isUnshadowedPointerGlobal(
    const GlobalVariable &GV,
    const SmallPtrSetImpl<const GlobalVariable *> &Active) {
  return !GV.isConstant() && !Active.count(&GV) &&
         !GV.getName().starts_with("llvm.") && GV.getValueType()->isSized() &&
         containsPointer(GV.getValueType()) && !holdsOnlyConstantAddresses(GV);
}

void GlobalShadows::findActive(
    Module &M, const SmallPtrSetImpl<const Function *> &Reach,
    const DenseMap<GlobalVariable *, GlobalVariable *> &Declared,
    unsigned Level) {
  if (Levels.size() <= Level)
    Levels.resize(Level + 1);
  Current = Level;
  LevelState &L = current();
  // A declared shadow is the user's memory, like an argument's shadow:
  // never one of the twins the requests zero. It serves the outermost
  // requests only: an outer level would share it with the inner requests
  // whose derived code writes it, so there the global has no shadow (and
  // reaching floating-point data through it is reported).
  if (Level == 0)
    for (auto [G, DG] : Declared) {
      L.Active.insert(G);
      L.PrimalToShadow[G] = DG;
    }
  // The shadows of inner levels are memory like any other here: the inner
  // request's derived code, which this level differentiates, writes them.
  for (GlobalVariable &GV : M.globals())
    if (canBeActive(GV) && isWrittenIn(GV, Reach))
      L.Active.insert(&GV);
  // Only then: a global that holds pointers has no shadow unless declared.
  for (GlobalVariable &GV : M.globals())
    if (isUnshadowedPointerGlobal(GV, L.Active) && isUsedIn(GV, Reach))
      L.PointerGlobals.insert(&GV);
  for (GlobalVariable &GV : M.globals())
    if (isDataUsedByName(GV) && !isShadowGlobal(&GV) && isUsedIn(GV, Reach))
      L.NamedData.insert(&GV);
  findTouching(Reach);
}

/// The local that \p LI reloads a pointer from, at -O0 where every
/// pointer variable lives in memory (a spill slot), or null.
static const AllocaInst *spillSlotOf(const LoadInst &LI) {
  auto *AI = dyn_cast<AllocaInst>(LI.getPointerOperand());
  return AI && AI->getAllocatedType()->isPointerTy() ? AI : nullptr;
}

/// A value that \p P, an address, is computed from and that \p IsSource
/// accepts, or null. The walk goes through address arithmetic and choices
/// (underlying objects), through pointers loaded from memory to the
/// address of that memory (\p ThroughLoad from then on), through pointers
/// calls return to the pointers they were given (which they may have
/// loaded from), and through the spill slots of pointer variables to what
/// was stored there.
static const Value *
sourceOfAddress(const Value *P, bool ThroughLoad,
                function_ref<bool(const Value *, bool)> IsSource,
                SmallPtrSetImpl<const Value *> &Visited) {
  if (!Visited.insert(P).second)
    return nullptr;
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(P, Objects, /*LI=*/nullptr, /*MaxLookup=*/0);
  for (const Value *Obj : Objects) {
    if (IsSource(Obj, ThroughLoad))
      return Obj;
    // A pointer a call returns may have been loaded from memory it was
    // given (std::vector<double>::operator[] of a global vector at -O0).
    if (auto *CB = dyn_cast<CallBase>(Obj)) {
      for (const Use &U : CB->args())
        if (U->getType()->isPointerTy())
          if (const Value *S = sourceOfAddress(U.get(), /*ThroughLoad=*/true,
                                               IsSource, Visited))
            return S;
      continue;
    }
    auto *LI = dyn_cast<LoadInst>(Obj);
    if (!LI)
      continue;
    if (const AllocaInst *Slot = spillSlotOf(*LI)) {
      for (const User *U : Slot->users())
        if (auto *SI = dyn_cast<StoreInst>(U);
            SI && SI->getPointerOperand() == Slot)
          if (const Value *S = sourceOfAddress(SI->getValueOperand(),
                                               ThroughLoad, IsSource, Visited))
            return S;
    } else if (const Value *S =
                   sourceOfAddress(LI->getPointerOperand(),
                                   /*ThroughLoad=*/true, IsSource, Visited)) {
      return S;
    }
  }
  return nullptr;
}

const GlobalVariable *
GlobalShadows::unshadowedPointerGlobalBehind(const Value *P) const {
  const auto &PointerGlobals = current().PointerGlobals;
  if (PointerGlobals.empty())
    return nullptr;
  SmallPtrSet<const Value *, 8> Visited;
  // The global's own fields, read by name, are not reached through it.
  return cast_or_null<GlobalVariable>(sourceOfAddress(
      P, /*ThroughLoad=*/false,
      [&](const Value *Obj, bool ThroughLoad) {
        auto *GV = dyn_cast<GlobalVariable>(Obj);
        return ThroughLoad && GV && PointerGlobals.count(GV);
      },
      Visited));
}

/// Whether the function of \p A may read or write floating-point data
/// through the address \p A holds, or pass it to a function that may
/// (calls of functions defined in this module are followed, \p Seen).
static bool mayAccessFloatsThrough(const Argument &A,
                                   SmallPtrSetImpl<const Argument *> &Seen) {
  const Function &F = *A.getParent();
  if (F.isDeclaration() || !Seen.insert(&A).second)
    return false;
  auto FromA = [&](const Value *P) {
    SmallPtrSet<const Value *, 8> Visited;
    return sourceOfAddress(
               P, /*ThroughLoad=*/false,
               [&](const Value *Obj, bool) { return Obj == &A; },
               Visited) != nullptr;
  };
  for (const Instruction &I : instructions(F)) {
    if (auto *LI = dyn_cast<LoadInst>(&I)) {
      if (containsFloatingPoint(LI->getType()) &&
          FromA(LI->getPointerOperand()))
        return true;
    } else if (auto *SI = dyn_cast<StoreInst>(&I)) {
      if (containsFloatingPoint(SI->getValueOperand()->getType()) &&
          FromA(SI->getPointerOperand()))
        return true;
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (isDeallocationCall(CB) || isa<DbgInfoIntrinsic>(CB) ||
          isa<LifetimeIntrinsic>(CB))
        continue;
      const Function *Callee = CB->getCalledFunction();
      for (const Use &U : CB->args())
        if (U->getType()->isPointerTy() && FromA(U.get()) &&
            (isa<MemIntrinsic>(CB) || !Callee ||
             (U.getOperandNo() < Callee->arg_size() &&
              mayAccessFloatsThrough(*Callee->getArg(U.getOperandNo()), Seen))))
          return true;
    }
  }
  return false;
}

const GlobalVariable *
GlobalShadows::pointerGlobalAccessedBy(const Instruction &I) const {
  if (auto *LI = dyn_cast<LoadInst>(&I))
    return containsFloatingPoint(LI->getType())
               ? unshadowedPointerGlobalBehind(LI->getPointerOperand())
               : nullptr;
  if (auto *SI = dyn_cast<StoreInst>(&I))
    return containsFloatingPoint(SI->getValueOperand()->getType())
               ? unshadowedPointerGlobalBehind(SI->getPointerOperand())
               : nullptr;
  // A call may read or write through the pointer: a memory intrinsic, a
  // function through a pointer, or one of this module whose body does (a
  // helper that scales an array in place). Freeing it changes no value; a
  // FILE * kept in stderr goes to functions of the C library.
  auto *CB = dyn_cast<CallBase>(&I);
  if (!CB || isDeallocationCall(CB) || isa<DbgInfoIntrinsic>(CB) ||
      isa<LifetimeIntrinsic>(CB))
    return nullptr;
  const Function *Callee = CB->getCalledFunction();
  for (const Use &U : CB->args()) {
    if (!U->getType()->isPointerTy())
      continue;
    const GlobalVariable *GV = unshadowedPointerGlobalBehind(U.get());
    if (!GV)
      continue;
    SmallPtrSet<const Argument *, 8> Seen;
    if (isa<MemIntrinsic>(CB) || (!Callee && !CB->isInlineAsm()) ||
        (Callee && U.getOperandNo() < Callee->arg_size() &&
         mayAccessFloatsThrough(*Callee->getArg(U.getOperandNo()), Seen)))
      return GV;
  }
  return nullptr;
}

void GlobalShadows::findTouching(
    const SmallPtrSetImpl<const Function *> &Reach) {
  // Functions that use an active global themselves, and who calls whom.
  SmallVector<const Function *, 16> Work;
  DenseMap<const Function *, SmallVector<const Function *, 4>> Callers;
  SmallVector<const Function *, 4> IndirectCallers;
  for (const Function *F : Reach) {
    bool Uses = false, CallsIndirectly = false;
    for (const Instruction &I : instructions(*F)) {
      // A function that reads memory through a pointer global without a
      // shadow is differentiated too: it must not be taken as constant
      // when that memory has derivatives (Linearize reports the access).
      // Inner derived code's records on the runtime tape are memory with
      // derivatives that no argument leads to: an inner f.rev given only
      // its static tape and a seed reads them.
      Uses |= llvm::any_of(I.operands(),
                           [&](const Use &U) { return isShadowed(U.get()); }) ||
              pointerGlobalAccessedBy(I) || tapeRecordCall(&I);
      if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (const Function *Callee = CB->getCalledFunction())
          Callers[Callee].push_back(F);
        else
          CallsIndirectly |= !CB->isInlineAsm();
      }
    }
    if (CallsIndirectly)
      IndirectCallers.push_back(F);
    if (Uses && current().Touching.insert(F).second)
      Work.push_back(F);
  }
  // Their callers, transitively; indirect calls may reach any address-taken
  // function.
  LevelState &L = current();
  auto Add = [&](const Function *F) {
    if (L.Touching.insert(F).second)
      Work.push_back(F);
  };
  while (!Work.empty()) {
    const Function *F = Work.pop_back_val();
    for (const Function *Caller : Callers.lookup(F))
      Add(Caller);
    if (F->hasAddressTaken() && !L.IndirectMayTouch) {
      L.IndirectMayTouch = true;
      for (const Function *Caller : IndirectCallers)
        Add(Caller);
    }
  }
}

bool GlobalShadows::mayTouchActive(const CallBase &CB) const {
  if (const Function *Callee = CB.getCalledFunction())
    return current().Touching.count(Callee);
  return current().IndirectMayTouch && !CB.isInlineAsm();
}

bool GlobalShadows::isShadowed(const Value *P) const {
  if (!isa<Constant>(P) || !P->getType()->isPointerTy())
    return false;
  const GlobalVariable *GV = globalBaseOf(P);
  return GV && current().Active.count(GV);
}

/// \p P, an address inside a global or the global itself, as the same
/// address inside the global's twin, which \p Twins keeps (created on
/// first use: zeroed, mutable, internal, aligned for every access to the
/// global). Twins are shadow globals: requests zero them when they start.
Constant *
GlobalShadows::inTwin(Constant *P,
                      DenseMap<GlobalVariable *, GlobalVariable *> &Twins,
                      StringRef Suffix) {
  if (auto *CE = dyn_cast<ConstantExpr>(P)) {
    SmallVector<Constant *, 4> Ops;
    for (Value *Op : CE->operands())
      Ops.push_back(cast<Constant>(Op));
    Ops[0] = inTwin(Ops[0], Twins, Suffix);
    return CE->getWithOperands(Ops);
  }
  auto *GV = cast<GlobalVariable>(P);
  GlobalVariable *&S = Twins[GV];
  if (!S) {
    Module &M = *GV->getParent();
    Type *T = GV->getValueType();
    // Level 0 keeps the plain names; outer levels say which they are.
    std::string Name = (GV->getName() + Suffix).str();
    if (Current)
      Name += ".L" + std::to_string(Current);
    S = new GlobalVariable(M, T, /*isConstant=*/false,
                           GlobalValue::InternalLinkage,
                           Constant::getNullValue(T), Name,
                           /*InsertBefore=*/nullptr, GV->getThreadLocalMode(),
                           GV->getAddressSpace());
    S->setAlignment(std::max(GV->getAlign().valueOrOne(),
                             M.getDataLayout().getPreferredAlign(GV)));
    ShadowLevel[S] = Current;
  }
  return S;
}

Constant *GlobalShadows::shadowOf(Constant *P) {
  assert(current().Active.count(globalBaseOf(P)) &&
         "shadow of a global that carries none");
  return inTwin(P, current().PrimalToShadow, ".shadow");
}

/// Whether every pointer in constant \p C leads to no floating-point data:
/// null, functions, and addresses in constant globals that hold none (the
/// vtables a C++ VTT points into).
static bool pointsOnlyToConstantsWithoutFloats(const Constant *C) {
  if (auto *CA = dyn_cast<ConstantAggregate>(C))
    return llvm::all_of(CA->operands(), [](const Use &U) {
      return pointsOnlyToConstantsWithoutFloats(cast<Constant>(U.get()));
    });
  if (isa<ConstantData>(C))
    return true;
  const Value *Base = C->stripPointerCasts();
  if (auto *CE = dyn_cast<ConstantExpr>(Base);
      CE && CE->getOpcode() == Instruction::GetElementPtr)
    Base = CE->getOperand(0);
  if (auto *GV = dyn_cast<GlobalVariable>(Base))
    return GV->isConstant() && !hasFloatLeaf(GV->getValueType());
  return isa<Function>(Base);
}

bool GlobalShadows::canHaveZeroTwin(const GlobalVariable &GV) {
  Type *T = GV.getValueType();
  if (!GV.isConstant() || GV.getName().starts_with("llvm.") || !T->isSized())
    return false;
  // Constant data: its tangents are zero. Or pointers that lead to no
  // derivatives (a VTT, which a C++ constructor of a class with virtual
  // bases reads its vtable pointers from): their shadows are null.
  if (!containsPointer(T))
    return containsFloatingPoint(T);
  return !hasFloatLeaf(T) && GV.hasDefinitiveInitializer() &&
         pointsOnlyToConstantsWithoutFloats(GV.getInitializer());
}

Constant *GlobalShadows::zeroTwinOf(Constant *P) {
  assert(globalBaseOf(P) && canHaveZeroTwin(*globalBaseOf(P)) &&
         "zero twin of a global that needs none");
  // Kept apart from PrimalToShadow: primalOf() does not know these, so
  // requests do not check arguments against constants (nothing writes
  // them).
  return inTwin(P, current().ConstantToTwin, ".zero");
}

GlobalVariable *GlobalShadows::primalOf(const GlobalVariable *Shadow) const {
  for (auto &[Primal, S] : current().PrimalToShadow)
    if (S == Shadow)
      return Primal;
  return nullptr;
}

/// The global variables that \p F and every function it references (that
/// is defined here) use by name, in the order first found.
static SmallSetVector<GlobalVariable *, 4> globalsUsedFrom(Function &F) {
  SmallSetVector<GlobalVariable *, 4> Used;
  SmallPtrSet<Function *, 16> Seen{&F};
  SmallVector<Function *, 16> Work{&F};
  while (!Work.empty()) {
    Function *G = Work.pop_back_val();
    for (Instruction &I : instructions(*G))
      for (Value *Op : I.operands()) {
        if (auto *Callee = dyn_cast<Function>(Op)) {
          if (!Callee->isDeclaration() && Seen.insert(Callee).second)
            Work.push_back(Callee);
        } else if (isa<Constant>(Op)) {
          if (auto *GV = const_cast<GlobalVariable *>(globalBaseOf(Op)))
            Used.insert(GV);
        }
      }
  }
  return Used;
}

SmallSetVector<GlobalVariable *, 4>
GlobalShadows::shadowsUsedFrom(Function &F) const {
  SmallSetVector<GlobalVariable *, 4> Used;
  if (ShadowLevel.empty())
    return Used;
  for (GlobalVariable *GV : globalsUsedFrom(F))
    if (isShadowGlobal(GV) && ShadowLevel.lookup(GV) == Current)
      Used.insert(GV);
  return Used;
}

SmallSetVector<GlobalVariable *, 4>
GlobalShadows::dataUsedByNameFrom(Function &F) const {
  SmallSetVector<GlobalVariable *, 4> Used;
  for (GlobalVariable *GV : globalsUsedFrom(F)) {
    if (isShadowGlobal(GV)) {
      if (GlobalVariable *Primal = primalOf(GV))
        Used.insert(Primal);
    } else if (isDataUsedByName(*GV)) {
      Used.insert(GV);
    }
  }
  return Used;
}

} // namespace ad
