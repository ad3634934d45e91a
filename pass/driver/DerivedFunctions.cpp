//===- DerivedFunctions.cpp - names and kinds of generated functions ------===//
#include "driver/DerivedFunctions.h"

#include "llvm/Demangle/Demangle.h"

using namespace llvm;

namespace ad {

static constexpr const char *KindAttr = "ad-kind";
static constexpr const char *PrimalAttr = "ad-primal";
static constexpr const char *ActivityAttr = "ad-activity";

StringRef kindName(DerivedKind K) {
  switch (K) {
  case DerivedKind::Jvp:
    return "jvp";
  case DerivedKind::Fwd:
    return "fwd";
  case DerivedKind::Lin:
    return "lin";
  case DerivedKind::Rev:
    return "rev";
  }
  llvm_unreachable("unknown derived kind");
}

std::string derivedName(const Function &Primal, StringRef Kind,
                        const Activity &A) {
  std::string Name = (Primal.getName() + "." + Kind).str();
  if (!(A == Activity::defaultFor(Primal)))
    Name += "." + A.str();
  return Name;
}

void tagDerived(Function &Derived, DerivedKind K, const Function &Primal,
                const Activity &A) {
  Derived.addFnAttr(KindAttr, kindName(K));
  Derived.addFnAttr(PrimalAttr, Primal.getName());
  Derived.addFnAttr(ActivityAttr, A.str());
}

void untagDerived(Function &F) {
  for (StringRef Attr : {KindAttr, PrimalAttr, ActivityAttr})
    F.removeFnAttr(Attr);
}

void copyCodegenAttributes(Function &Derived, const Function &Primal) {
  static constexpr Attribute::AttrKind CodegenKinds[] = {
      Attribute::UWTable,
      Attribute::NoRedZone,
      Attribute::NoImplicitFloat,
      Attribute::OptimizeForSize,
      Attribute::MinSize,
      Attribute::StackProtect,
      Attribute::StackProtectStrong,
      Attribute::StackProtectReq,
      Attribute::NullPointerIsValid,
      Attribute::SanitizeAddress,
      Attribute::SanitizeHWAddress,
      Attribute::SanitizeMemory,
      Attribute::SanitizeThread,
      Attribute::SafeStack,
      Attribute::ShadowCallStack};
  for (const Attribute &A : Primal.getAttributes().getFnAttrs()) {
    bool IsCodegen = A.isStringAttribute()
                         ? !A.getKindAsString().starts_with("ad-")
                         : is_contained(CodegenKinds, A.getKindAsEnum());
    if (IsCodegen)
      Derived.addFnAttr(A);
  }
}

void takeBody(Function &To, Function &From, ArrayRef<Value *> ArgsInTo) {
  AttributeList Attrs = To.getAttributes();
  To.copyAttributesFrom(&From);
  To.setAttributes(Attrs);
  To.copyMetadata(&From, 0);
  From.clearMetadata();
  for (Argument &A : From.args())
    A.replaceAllUsesWith(ArgsInTo[A.getArgNo()]);
  To.splice(To.end(), &From);
}

void copyPrimalAttributes(Function &Derived, const Function &Primal,
                          unsigned NumPrimalParams, bool WritesTape) {
  LLVMContext &Ctx = Derived.getContext();
  AttributeList PA = Primal.getAttributes();
  SmallVector<AttributeSet, 8> Params;
  for (unsigned K = 0; K < Derived.arg_size(); ++K) {
    if (K >= NumPrimalParams) {
      Params.push_back(AttributeSet());
      continue;
    }
    // `returned` names the return value, which derived functions change.
    Params.push_back(
        PA.getParamAttrs(K).removeAttribute(Ctx, Attribute::Returned));
  }
  AttributeSet RetAttrs;
  if (Derived.getReturnType() == Primal.getReturnType())
    RetAttrs = PA.getRetAttrs();
  Derived.setAttributes(
      AttributeList::get(Ctx, PA.getFnAttrs(), RetAttrs, Params));
  Derived.removeFnAttr(Attribute::OptimizeNone);
  Derived.removeFnAttr(Attribute::NoInline);
  // Cloning copies the primal's calling convention (fastcc for internal
  // functions after GlobalOpt); our calls of derived functions use C's.
  Derived.setCallingConv(CallingConv::C);
  if (WritesTape) {
    // f.fwd writes its tape and pushes records on the runtime's tape, which
    // allocates: none of the primal's promises about memory hold.
    Derived.setMemoryEffects(MemoryEffects::unknown());
    for (Attribute::AttrKind K :
         {Attribute::NoFree, Attribute::NoSync, Attribute::Speculatable})
      Derived.removeFnAttr(K);
  }
}

static constexpr StringLiteral InheritedJvpCallMD = "ad.inherited.jvp";

Function *calledJvp(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  Function *Callee = CB ? CB->getCalledFunction() : nullptr;
  auto Info = Callee ? getDerivedInfo(*Callee) : std::nullopt;
  return Info && Info->Kind == DerivedKind::Jvp ? Callee : nullptr;
}

void markInheritedJvpCall(CallBase &CB) {
  CB.setMetadata(InheritedJvpCallMD, MDNode::get(CB.getContext(), {}));
}

Function *mixedCallee(const Instruction &I) {
  Function *Callee = calledJvp(I);
  return Callee && !I.getMetadata(InheritedJvpCallMD) ? Callee : nullptr;
}

std::optional<DerivedInfo> getDerivedInfo(const Function &F) {
  Attribute KA = F.getFnAttribute(KindAttr);
  if (!KA.isStringAttribute())
    return std::nullopt;
  StringRef KS = KA.getValueAsString();
  std::optional<DerivedKind> K;
  for (DerivedKind C :
       {DerivedKind::Jvp, DerivedKind::Fwd, DerivedKind::Lin, DerivedKind::Rev})
    if (KS == kindName(C))
      K = C;
  Function *Primal = F.getParent()->getFunction(
      F.getFnAttribute(PrimalAttr).getValueAsString());
  if (!K || !Primal)
    return std::nullopt;
  return DerivedInfo{
      *K, Primal,
      Activity::parse(F.getFnAttribute(ActivityAttr).getValueAsString())};
}

Function *findDerived(Module &M, const Function &Primal, DerivedKind K,
                      const Activity &A) {
  return M.getFunction(derivedName(Primal, kindName(K), A));
}

std::string displayName(const Function &F) {
  // Errors are found in generated code and in the prepared copy "f.ad.src";
  // name the user's function.
  if (auto Info = getDerivedInfo(F))
    return displayName(*Info->Primal);
  StringRef Name = F.getName();
  Name.consume_back(".ad.src");
  return llvm::demangle(Name.str());
}

} // namespace ad
