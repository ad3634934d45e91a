//===- CustomRules.cpp - AD_CUSTOM_JVP, AD_INACTIVE and AD_SHADOW ---------===//
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "ir/Linearity.h"
#include "ir/LinearityVerifier.h"
#include "linearize/Linearize.h"
#include "prepare/PrepareSource.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace ad {

// Names the ad.h macros give their globals (mangled in C++, hence contains).
static constexpr StringLiteral CustomJvpTag = "__ad_custom_jvp_";
static constexpr StringLiteral InactiveTag = "__ad_inactive_";
static constexpr StringLiteral ShadowTag = "__ad_declared_shadow_";
static constexpr StringLiteral CheckpointTag = "__ad_checkpoint_";

static Function *functionIn(Constant *C) {
  return C ? dyn_cast<Function>(C->stripPointerCasts()) : nullptr;
}

void keepRuledFunctionsOutOfLine(Module &M) {
  CustomRules Rules(M);
  for (Function &F : M)
    if (!F.isDeclaration() && (Rules.customJvp(F) || Rules.isInactive(F) ||
                               Rules.isCheckpointed(F))) {
      F.removeFnAttr(Attribute::AlwaysInline);
      F.addFnAttr(Attribute::NoInline);
    }
}

CustomRules::CustomRules(Module &M) {
  for (GlobalVariable &GV : M.globals()) {
    if (!GV.hasInitializer())
      continue;
    Constant *Init = GV.getInitializer();
    if (GV.getName().contains(CustomJvpTag)) {
      Function *F = functionIn(Init->getAggregateElement(0u));
      Function *Jvp = functionIn(Init->getAggregateElement(1u));
      if (F && Jvp)
        Jvps[F] = Jvp;
    } else if (GV.getName().contains(InactiveTag)) {
      if (Function *F = functionIn(Init))
        Inactive.insert(F);
    } else if (GV.getName().contains(ShadowTag)) {
      addDeclaredShadow(Init);
    } else if (GV.getName().contains(CheckpointTag)) {
      if (Function *F = functionIn(Init))
        Checkpointed.insert(F);
    }
  }
}

static GlobalVariable *globalIn(Constant *C) {
  return C ? dyn_cast<GlobalVariable>(C->stripPointerCasts()) : nullptr;
}

void CustomRules::addDeclaredShadow(Constant *Init) {
  GlobalVariable *G = globalIn(Init->getAggregateElement(0u));
  GlobalVariable *DG = globalIn(Init->getAggregateElement(1u));
  // ad.h checks that both have the same type; a declaration only one TU
  // sees may leave the shadow without a definition here, which is fine.
  if (G && DG && G != DG && G->getValueType() == DG->getValueType() &&
      !G->isConstant() && !DG->isConstant())
    Shadows[G] = DG;
}

void CustomRules::eraseRegistrations(Module &M) {
  auto IsRegistration = [](const GlobalValue &GV) {
    return GV.getName().contains(CustomJvpTag) ||
           GV.getName().contains(InactiveTag) ||
           GV.getName().contains(ShadowTag) ||
           GV.getName().contains(CheckpointTag);
  };
  removeFromUsedLists(M, [&](Constant *C) {
    auto *GV = dyn_cast<GlobalValue>(C->stripPointerCasts());
    return GV && IsRegistration(*GV);
  });
  for (GlobalVariable &GV : make_early_inc_range(M.globals()))
    if (IsRegistration(GV) && GV.use_empty())
      GV.eraseFromParent();
}

/// The values of \p J that depend on the tangent arguments \p Tangents.
static SmallPtrSet<Value *, 32> tangentDependent(Function &J,
                                                 ArrayRef<Value *> Tangents) {
  SmallPtrSet<Value *, 32> Dep(Tangents.begin(), Tangents.end());
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Instruction &I : instructions(J))
      if (!Dep.count(&I) && llvm::any_of(I.operands(), [&](Use &U) {
            return Dep.count(U.get());
          })) {
        Dep.insert(&I);
        Changed = true;
      }
  }
  return Dep;
}

/// fmuladd/fma of tangents (what clang makes of a * dx + b * dy) is linear
/// in two steps: split it so that each step is a linear primitive.
static void splitFusedMultiplyAdds(Function &J, ArrayRef<Value *> Tangents) {
  SmallPtrSet<Value *, 32> Dep = tangentDependent(J, Tangents);
  SmallVector<IntrinsicInst *, 4> Fused;
  for (Instruction &I : instructions(J))
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      if ((II->getIntrinsicID() == Intrinsic::fmuladd ||
           II->getIntrinsicID() == Intrinsic::fma) &&
          llvm::any_of(II->args(), [&](Use &U) { return Dep.count(U.get()); }))
        Fused.push_back(II);
  for (IntrinsicInst *II : Fused)
    splitMultiplyAdd(*II);
}

/// Whether parameter \p P of f gets a tangent parameter in f_jvp: a
/// float/double one its tangent, a pointer its shadow (through which f_jvp
/// reads the tangents of what f reads through \p P).
static bool hasCustomTangent(const Argument &P) {
  return isDifferentiableType(P.getType()) || P.getType()->isPointerTy();
}

/// The addresses computed from the tangent pointers \p Shadows (shadows of
/// pointer parameters), and the loads of tangents through them, into
/// \p Loads. f_jvp may only read through them: anything else (a store,
/// passing one to a function, a comparison) is reported through \p Bad.
static SmallPtrSet<Value *, 16>
tangentAddresses(ArrayRef<Value *> Shadows, SmallVectorImpl<LoadInst *> &Loads,
                 const Instruction *&Bad) {
  SmallPtrSet<Value *, 16> Addresses(Shadows.begin(), Shadows.end());
  SmallVector<Value *, 8> Work(Shadows.begin(), Shadows.end());
  while (!Work.empty()) {
    Value *V = Work.pop_back_val();
    for (User *U : V->users()) {
      auto *I = cast<Instruction>(U);
      if (isa<GetElementPtrInst>(I) || isa<PHINode>(I) || isa<SelectInst>(I) ||
          isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I)) {
        if (Addresses.insert(I).second)
          Work.push_back(I);
        continue;
      }
      auto *LI = dyn_cast<LoadInst>(I);
      if (!LI || LI->isVolatile() || !isDifferentiableType(LI->getType())) {
        Bad = I;
        return Addresses;
      }
      Loads.push_back(LI);
    }
  }
  return Addresses;
}

/// Replaces the zero tangents of constant parameters by 0.0; a linear
/// instruction left without linear operands is linear in zeros: zero. A
/// linear load reads tangents from memory, not from its operand.
static void foldZeroTangents(Function &J, ArrayRef<Instruction *> Zeros) {
  for (Instruction *Z : Zeros) {
    Z->replaceAllUsesWith(Constant::getNullValue(Z->getType()));
    Z->eraseFromParent();
  }
  auto IsLinearValue = [&](Value *V) {
    auto *A = dyn_cast<Argument>(V);
    return isLinear(V) ||
           (A && A->getArgNo() >= getDerivedInfo(J)->Primal->arg_size());
  };
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Instruction &I : make_early_inc_range(instructions(J))) {
      if (!isLinear(&I) || I.getType()->isVoidTy() || isa<LoadInst>(I) ||
          (isa<InsertValueInst>(I) && I.hasOneUse() &&
           isa<ReturnInst>(*I.user_begin())))
        continue;
      if (llvm::any_of(I.operands(),
                       [&](Use &U) { return IsLinearValue(U.get()); }))
        continue;
      I.replaceAllUsesWith(Constant::getNullValue(I.getType()));
      I.eraseFromParent();
      Changed = true;
    }
  }
}

/// What a broken linearity invariant means for the author of a custom JVP.
static std::string explainNonLinearity(StringRef Reason,
                                       const Instruction *Bad) {
  if (Bad &&
      (isa<CmpInst>(Bad) || isa<BranchInst>(Bad) || isa<SwitchInst>(Bad)))
    return "it uses a tangent non-linearly (in a comparison or branch, or as "
           "the argument of a function)";
  if (Reason.contains("not a linear primitive") && Bad)
    return (Twine("it applies an operation that is not linear ('") +
            Bad->getOpcodeName() + "') to a tangent")
        .str();
  if (Reason.contains("fmul needs exactly one linear operand"))
    return "it multiplies two tangents";
  if (Reason.contains("fdiv needs"))
    return "it divides by a tangent";
  if (Reason.contains("affine"))
    return "it adds a constant to a tangent (affine, not linear)";
  if (Reason.contains("non-linear code reads a linear value") ||
      Reason.contains("linear call"))
    return "it uses a tangent non-linearly (in a comparison or branch, "
           "or as the argument of a function)";
  return ("it is not linear in its tangents (" + Reason + ")").str();
}

namespace {
/// What stands for the tangents of f_jvp's parameters in f.jvp.
struct RuleTangents {
  /// f.jvp's tangent parameters of the active float/double parameters.
  SmallVector<Argument *, 4> Tangents;
  /// Zero tangents: placeholders for those of constant parameters, then
  /// the loads of tangents through AD_CONST memory (tangentSeeds).
  SmallVector<Instruction *, 2> ZeroTangents;
  /// Shadows of pointer parameters; for a pointer without one (AD_CONST),
  /// a placeholder through which every read is a zero tangent.
  SmallVector<Value *, 2> Shadows;
  /// Those placeholders.
  SmallVector<Instruction *, 2> NoShadows;
};
} // namespace

/// Checks that \p UserJvp, f_jvp of AD_CUSTOM_JVP(f, f_jvp) for \p F, has
/// the signature of a forward rule and a body here. False after reporting
/// at \p CallSite.
static bool checkRuleSignature(Function &F, Function &UserJvp,
                               const Instruction &CallSite,
                               Diagnostics &Diags) {
  std::string Names =
      "AD_CUSTOM_JVP(" + displayName(F) + ", " + displayName(UserJvp) + ")";
  // f_jvp(x..., dx for each float/double or pointer parameter) -> tangent
  // of f's result
  SmallVector<Type *, 8> Want(F.getFunctionType()->params());
  for (Argument &P : F.args())
    if (hasCustomTangent(P))
      Want.push_back(P.getType());
  FunctionType *UT = UserJvp.getFunctionType();
  if (UT->isVarArg() || UT->params() != ArrayRef<Type *>(Want) ||
      UT->getReturnType() != F.getReturnType() ||
      !isDifferentiableType(F.getReturnType())) {
    Diags.errorAt(CallSite,
                  Names + ": the JVP must take the function's parameters, "
                          "then one tangent per float/double or pointer "
                          "parameter (same types, same order; a pointer's "
                          "points to the tangents of what it points to), and "
                          "return the tangent of its float/double result");
    return false;
  }
  if (UserJvp.isDeclaration()) {
    Diags.errorAt(CallSite, Names + ": the body of '" + displayName(UserJvp) +
                                "' must be visible in this translation unit");
    return false;
  }
  return true;
}

/// An empty f.jvp for activity \p A: J(x..., dx for the active
/// parameters), returning f's result and its tangent.
static Function *createJvpDeclaration(Function &F, const Activity &A) {
  SmallVector<Type *, 8> Params(F.getFunctionType()->params());
  for (Argument &P : F.args())
    if (A.hasDerivative(P.getArgNo()))
      Params.push_back(P.getType());
  return Function::Create(
      FunctionType::get(jvpReturnType(F.getReturnType()), Params, false),
      GlobalValue::InternalLinkage, derivedName(F, "jvp", A), F.getParent());
}

/// Maps the parameters of \p Src (f_jvp, prepared) to those of \p J in
/// \p VMap: f's own one to one, and each tangent of f_jvp to J's tangent
/// when \p A gives the parameter one, otherwise to a placeholder.
static RuleTangents mapRuleParameters(Function &F, const Activity &A,
                                      Function &Src, Function &J,
                                      ValueToValueMapTy &VMap) {
  RuleTangents RT;
  unsigned NextTangent = F.arg_size(), SrcTangent = F.arg_size();
  for (Argument &P : F.args()) {
    VMap[Src.getArg(P.getArgNo())] = J.getArg(P.getArgNo());
    J.getArg(P.getArgNo())->setName(Src.getArg(P.getArgNo())->getName());
    if (!hasCustomTangent(P))
      continue;
    Argument *SrcT = Src.getArg(SrcTangent++);
    if (A.hasDerivative(P.getArgNo())) {
      Argument *T = J.getArg(NextTangent++);
      T->setName(SrcT->getName());
      VMap[SrcT] = T;
      if (P.getType()->isPointerTy())
        RT.Shadows.push_back(T);
      else
        RT.Tangents.push_back(T);
    } else if (P.getType()->isPointerTy()) {
      auto *None = new FreezeInst(
          ConstantPointerNull::get(cast<PointerType>(P.getType())),
          SrcT->getName() + ".none");
      RT.NoShadows.push_back(None);
      RT.Shadows.push_back(None);
      VMap[SrcT] = None;
    } else {
      // A constant parameter's tangent is zero. A placeholder stands for it
      // until the rule is checked, so that the check sees the rule whole.
      auto *Zero = UnaryOperator::Create(
          Instruction::FNeg, ConstantFP::getNegativeZero(P.getType()),
          SrcT->getName() + ".zero");
      RT.ZeroTangents.push_back(Zero);
      VMap[SrcT] = Zero;
    }
  }
  return RT;
}

/// Moves f_jvp's body (\p Src, then erased) into \p J, a derived function
/// of \p F, with the placeholders of \p RT at its entry. Returns J's
/// returns.
static SmallVector<ReturnInst *, 4>
cloneRuleBody(Function &F, const Activity &A, Function &Src, Function &J,
              ValueToValueMapTy &VMap, const RuleTangents &RT,
              Differentiator &D) {
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(&J, &Src, VMap, CloneFunctionChangeType::GlobalChanges,
                    Returns);
  D.erase(Src);
  copyPrimalAttributes(J, F, F.arg_size(), /*WritesTape=*/false);
  J.setLinkage(GlobalValue::InternalLinkage);
  tagDerived(J, DerivedKind::Jvp, F, A);
  D.noteGenerated(&J);

  for (Instruction *Z : RT.ZeroTangents)
    Z->insertBefore(J.getEntryBlock().getFirstNonPHIIt());
  for (Instruction *None : RT.NoShadows)
    None->insertBefore(J.getEntryBlock().getFirstNonPHIIt());
  return Returns;
}

/// The values the tangents of f.jvp start from, into \p Seeds, and the
/// addresses computed from the shadows, into \p Addresses. Tangents read
/// through a pointer's shadow are tangents too; its addresses are not
/// (they stay out of the linear marks, as the shadow addresses Linearize
/// computes do). Reads through AD_CONST memory join \p RT's zero tangents.
/// False after reporting a shadow used otherwise than to read through it.
static bool tangentSeeds(RuleTangents &RT, StringRef Rule, Diagnostics &Diags,
                         SmallVectorImpl<Value *> &Seeds,
                         SmallPtrSet<Value *, 16> &Addresses) {
  SmallVector<LoadInst *, 8> TangentLoads;
  const Instruction *BadUse = nullptr;
  Addresses = tangentAddresses(RT.Shadows, TangentLoads, BadUse);
  if (BadUse) {
    Diags.errorAt(*BadUse, Rule + " is not linear in its tangent arguments: "
                                  "it uses a tangent pointer other than to "
                                  "read tangents through it (a store through "
                                  "it, a comparison, passing it to a "
                                  "function)");
    return false;
  }
  Seeds.append(RT.Tangents.begin(), RT.Tangents.end());
  Seeds.append(RT.ZeroTangents.begin(), RT.ZeroTangents.end());
  for (LoadInst *LI : TangentLoads) {
    Seeds.push_back(LI);
    // Through AD_CONST memory: a zero tangent. A choice between that and
    // a shadow would read through null on one side.
    SmallVector<const Value *, 4> Objects;
    getUnderlyingObjects(LI->getPointerOperand(), Objects);
    unsigned Placeholders = llvm::count_if(Objects, [&](const Value *O) {
      return llvm::is_contained(RT.NoShadows, O);
    });
    if (Placeholders == Objects.size()) {
      RT.ZeroTangents.push_back(LI);
    } else if (Placeholders) {
      Diags.errorAt(*LI, Rule + " reads tangents through a choice between a "
                                "pointer passed without derivatives (AD_CONST) "
                                "and one passed with them: not supported");
      return false;
    }
  }
  return true;
}

/// Marks linear every instruction of \p J that depends on \p Seeds.
static void markTangentCodeLinear(Function &J, ArrayRef<Value *> Seeds) {
  splitFusedMultiplyAdds(J, Seeds);
  SmallPtrSet<Value *, 32> Dep = tangentDependent(J, Seeds);
  for (Instruction &I : instructions(J))
    if (Dep.count(&I) && !isa<ReturnInst>(I))
      markLinear(&I);
}

/// f_jvp returns the tangent only: \p J returns f's result, from a call of
/// \p F at its entry, with it at each of \p Returns.
static void returnResultWithTangent(Function &J, Function &F,
                                    ArrayRef<ReturnInst *> Returns) {
  IRBuilder<> B(&*J.getEntryBlock().getFirstInsertionPt());
  SmallVector<Value *, 8> Args;
  for (unsigned K = 0; K < F.arg_size(); ++K)
    Args.push_back(J.getArg(K));
  CallInst *Y = B.CreateCall(&F, Args, "y");
  Y->setCallingConv(F.getCallingConv());
  if (J.getSubprogram())
    Y->setDebugLoc(DILocation::get(J.getContext(), J.getSubprogram()->getLine(),
                                   0, J.getSubprogram()));
  for (ReturnInst *Ret : Returns)
    packJvpReturn(*Ret, Y, Ret->getReturnValue());
}

/// Checks that \p J is linear in its tangents; false after reporting at
/// the offending instruction, or at \p CallSite.
static bool checkRuleLinear(Function &J, StringRef Rule,
                            const Instruction &CallSite, Diagnostics &Diags) {
  std::string Reason;
  const Instruction *Bad = nullptr;
  if (verifyLinearFunction(J, Reason, &Bad))
    return true;
  std::string Msg = Rule.str() + " is not linear in its tangent arguments: " +
                    explainNonLinearity(Reason, Bad);
  if (Bad)
    Diags.errorAt(*Bad, Msg);
  else
    Diags.errorAt(CallSite, Msg);
  return false;
}

/// Once \p J is checked: folds the zero tangents and deletes the
/// placeholders and the \p Addresses computed from them, now unread.
static void removeZeroTangents(Function &J, const RuleTangents &RT,
                               const SmallPtrSetImpl<Value *> &Addresses) {
  foldZeroTangents(J, RT.ZeroTangents);
  SmallVector<WeakTrackingVH, 8> Unread;
  for (Value *V : Addresses)
    if (auto *I = dyn_cast<Instruction>(V);
        I && llvm::is_contained(RT.NoShadows, getUnderlyingObject(I)))
      Unread.push_back(I);
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(Unread);
}

Function *buildCustomJvp(Function &F, const Activity &A, Function &UserJvp,
                         Differentiator &D, const Instruction *CallSite) {
  Diagnostics &Diags = D.diags();
  if (!checkRuleSignature(F, UserJvp, *CallSite, Diags))
    return nullptr;
  Function *Src = D.prepare(UserJvp);
  if (!Src)
    return nullptr;
  // f's result from f itself, its tangent from f_jvp's body, inlined.
  Function *J = createJvpDeclaration(F, A);
  ValueToValueMapTy VMap;
  RuleTangents RT = mapRuleParameters(F, A, *Src, *J, VMap);
  SmallVector<ReturnInst *, 4> Returns =
      cloneRuleBody(F, A, *Src, *J, VMap, RT, D);

  // How the errors about the rule's body name it.
  std::string Rule = "the custom JVP '" + displayName(UserJvp) + "' of '" +
                     displayName(F) + "'";
  SmallVector<Value *, 4> Seeds;
  SmallPtrSet<Value *, 16> Addresses;
  if (!tangentSeeds(RT, Rule, Diags, Seeds, Addresses))
    return nullptr;
  markTangentCodeLinear(*J, Seeds);
  returnResultWithTangent(*J, F, Returns);
  if (!checkRuleLinear(*J, Rule, *CallSite, Diags))
    return nullptr;
  removeZeroTangents(*J, RT, Addresses);
  return J;
}

} // namespace ad
