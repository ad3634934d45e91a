//===- MarkerLowering.cpp - __ad_gradient / __ad_derivative calls ---------===//
#include "driver/MarkerLowering.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "ir/ShadowMemory.h"
#include "linearize/Linearize.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Local.h"
#include <functional>

#define DEBUG_TYPE "ad"

using namespace llvm;

STATISTIC(NumGradients, "Number of __ad_gradient requests lowered");
STATISTIC(NumDerivatives, "Number of __ad_derivative requests lowered");

namespace ad {

static constexpr StringLiteral GradientPrefix = "__ad_gradient";
static constexpr StringLiteral DerivativePrefix = "__ad_derivative";
static constexpr StringLiteral ConstTag = "__ad_const_tag";
static constexpr StringLiteral DupTag = "__ad_dup_tag";

static bool isMarkerName(StringRef Name) {
  return Name.starts_with(GradientPrefix) || Name.starts_with(DerivativePrefix);
}

static bool isMarker(const Function &F) {
  return F.isDeclaration() && isMarkerName(F.getName());
}

/// A reverse-mode request (__ad_gradient*); the others are forward mode.
static bool isGradientMarker(const CallBase &Marker) {
  return Marker.getCalledFunction()->getName().starts_with(GradientPrefix);
}

/// A variant declared in C++ without extern "C" (g2 __ad_gradient_2(...)
/// AD_MARKER;) has a mangled name; it gets its plain name back, which is
/// how requests are recognised (it was left to clang's "compile with
/// -fpass-plugin" error, with the plugin loaded).
static void unmangleMarkerName(Function &F) {
  if (!F.isDeclaration() || !F.getName().starts_with("_Z"))
    return;
  std::string Mangled = F.getName().str(); // the demangler points into it
  ItaniumPartialDemangler Demangler;
  if (Demangler.partialDemangle(Mangled.c_str()) || !Demangler.isFunction())
    return;
  size_t Size = 0;
  char *Context = Demangler.getFunctionDeclContextName(nullptr, &Size);
  bool Global = !Context || !*Context;
  std::free(Context);
  Size = 0;
  char *Base = Demangler.getFunctionBaseName(nullptr, &Size);
  std::string Name = Base ? Base : "";
  std::free(Base);
  if (Global && isMarkerName(Name) && !F.getParent()->getNamedValue(Name))
    F.setName(Name);
}

/// Set on a forward-mode marker's argument that is the real half of a
/// complex number passed whole (the next argument is its imaginary half).
static constexpr const char *WholeComplexAttr = "ad-whole-complex";

/// Whether \p Re and \p Im, consecutive arguments of a call, are the two
/// halves of one `_Complex double` passed by value, as clang emits it
/// before any optimisation: the halves loaded one right after the other
/// from fields 0 and 1 of one `{ double, double }`. `creal(z), cimag(z)`
/// loads each half along with the other, so its two arguments are not
/// next to each other.
static bool areComplexHalves(Value *Re, Value *Im) {
  auto *LRe = dyn_cast<LoadInst>(Re), *LIm = dyn_cast<LoadInst>(Im);
  if (!LRe || !LIm)
    return false;
  auto *GRe = dyn_cast<GetElementPtrInst>(LRe->getPointerOperand());
  auto *GIm = dyn_cast<GetElementPtrInst>(LIm->getPointerOperand());
  if (!GRe || !GIm || LRe->getNextNode() != GIm || GIm->getNextNode() != LIm ||
      GRe->getPointerOperand() != GIm->getPointerOperand() ||
      GRe->getSourceElementType() != GIm->getSourceElementType())
    return false;
  // clang's complex types are the literal struct of two equal FP fields;
  // C structs are named types.
  auto *ST = dyn_cast<StructType>(GRe->getSourceElementType());
  if (!ST || !ST->isLiteral() || ST->getNumElements() != 2 ||
      !ST->getElementType(0)->isFloatingPointTy() ||
      ST->getElementType(0) != ST->getElementType(1))
    return false;
  // Only a field address has two indices; pointer arithmetic over an
  // array of complex numbers has one, and no operand 2.
  auto FieldOf = [](GetElementPtrInst *G) -> int {
    if (G->getNumIndices() != 2)
      return -1;
    auto *First = dyn_cast<ConstantInt>(G->getOperand(1));
    auto *Field = dyn_cast<ConstantInt>(G->getOperand(2));
    if (!First || !First->isZero() || !Field)
      return -1;
    return static_cast<int>(Field->getZExtValue());
  };
  return FieldOf(GRe) == 0 && FieldOf(GIm) == 1;
}

/// A `_Complex double` reaches f as two double parameters and reaches a
/// forward-mode marker as two double arguments: `__ad_derivative(f, z,
/// tz)` would pair creal(z) with cimag(z) as a value and its tangent.
/// Only clang's unoptimised code still shows that two arguments were one
/// complex number; parseRequest reports it from the mark.
static void markWholeComplexArguments(Function &Marker) {
  for (User *U : Marker.users()) {
    auto *CB = dyn_cast<CallBase>(U);
    if (!CB || CB->getCalledFunction() != &Marker || isGradientMarker(*CB))
      continue;
    for (unsigned K = 1; K + 1 < CB->arg_size(); ++K)
      if (areComplexHalves(CB->getArgOperand(K), CB->getArgOperand(K + 1)))
        CB->addParamAttr(K, Attribute::get(CB->getContext(), WholeComplexAttr));
  }
}

void keepMarkersApart(Module &M) {
  for (Function &F : M) {
    unmangleMarkerName(F);
    if (isMarker(F)) {
      F.addFnAttr(Attribute::NoMerge);
      markWholeComplexArguments(F);
    }
  }
}

SmallVector<CallBase *, 8> findMarkers(Module &M) {
  // In program order, so that diagnostics come out in source order.
  SmallVector<CallBase *, 8> Markers;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction();
            Callee && isMarker(*Callee))
          Markers.push_back(CB);
  return Markers;
}

/// How a C programmer would name an IR type in a message.
static std::string cTypeName(Type *T) {
  if (T->isDoubleTy())
    return "double";
  if (T->isFloatTy())
    return "float";
  if (T->isX86_FP80Ty() || T->isFP128Ty())
    return "long double";
  if (T->isIntegerTy(1))
    return "_Bool";
  if (T->isIntegerTy(8))
    return "char";
  if (T->isIntegerTy(16))
    return "short";
  if (T->isIntegerTy(32))
    return "int";
  if (T->isIntegerTy(64))
    return "long";
  if (T->isPointerTy())
    return "a pointer";
  if (T->isVoidTy())
    return "void";
  // How x86-64 passes struct {float a, b;} and a complex float by value,
  // and what a vector extension type is.
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    std::string N = std::to_string(VT->getNumElements());
    std::string E = cTypeName(VT->getElementType());
    return N + " " + E + " values in one vector (a struct of " + N + " " + E +
           " fields, a complex, or a vector type, passed by value)";
  }
  std::string S;
  raw_string_ostream OS(S);
  OS << *T;
  return S;
}

static std::optional<StringRef> tagOf(Value *V) {
  if (auto *GV = dyn_cast<GlobalValue>(V->stripPointerCasts()))
    if (GV->getName() == ConstTag || GV->getName() == DupTag)
      return GV->getName();
  return std::nullopt;
}

namespace {

/// Walks the marker's variadic arguments.
class ArgumentDecoder {
public:
  ArgumentDecoder(CallBase &Marker, unsigned First, Diagnostics &Diags,
                  StringRef MarkerName, StringRef FnName)
      : Marker(Marker), First(First - 1), Next(First), Diags(Diags),
        MarkerName(MarkerName), FnName(FnName) {}

  bool atEnd() const { return Next >= Marker.arg_size(); }
  /// Whether clang split the next argument off a struct or union passed by
  /// value in registers: clang marks the function operand and every
  /// argument of scalar type noundef, but not the registers of an
  /// aggregate, which may hold padding.
  bool nextIsAggregatePiece() const {
    return !atEnd() && Marker.paramHasAttr(First, Attribute::NoUndef) &&
           !Marker.paramHasAttr(Next, Attribute::NoUndef);
  }
  std::optional<StringRef> peekTag() const {
    return atEnd() ? std::nullopt : tagOf(Marker.getArgOperand(Next));
  }
  void skip() { ++Next; }

  /// The next argument converted to \p ParamTy (undoing C's default
  /// promotions), or null after reporting.
  Value *take(Type *ParamTy, unsigned ParamNo, const char *What) {
    if (atEnd()) {
      Diags.errorAtRequest(MarkerName + ": too few arguments: '" + FnName +
                           "' has more parameters (missing " + What +
                           " for parameter " + Twine(ParamNo + 1) + ")");
      return nullptr;
    }
    if (Marker.getAttributes().hasParamAttr(Next, WholeComplexAttr)) {
      Diags.errorAtRequest(
          MarkerName + ": " + What + " for parameter " + Twine(ParamNo + 1) +
          " of '" + FnName +
          "' is a _Complex double passed whole; it travels as two double "
          "values, which forward mode would read as two arguments (a value "
          "and its tangent): pass the parts one by one, each followed by "
          "its tangent (__ad_derivative(f, creal(z), creal(tz), cimag(z), "
          "cimag(tz)))");
      return nullptr;
    }
    Value *V = Marker.getArgOperand(Next++);
    // Tags are consumed before the argument they mark; one here is out of
    // place. Taken as a shadow, its address would receive the gradient.
    if (std::optional<StringRef> Tag = tagOf(V)) {
      Diags.errorAtRequest(
          MarkerName + ": " + (*Tag == ConstTag ? "AD_CONST" : "AD_DUP") +
          " was passed as " + What + " for parameter " + Twine(ParamNo + 1) +
          " of '" + FnName +
          "'; a tag goes right before the argument it marks (AD_CONST, p)");
      return nullptr;
    }
    Type *T = V->getType();
    if (T == ParamTy)
      return V;
    IRBuilder<> B(&Marker);
    if (T->isFloatingPointTy() && ParamTy->isFloatingPointTy())
      return B.CreateFPCast(V, ParamTy);
    if (T->isIntegerTy() && ParamTy->isIntegerTy())
      return B.CreateSExtOrTrunc(V, ParamTy);
    std::string Hint;
    if (T->isPointerTy() && isDifferentiableType(ParamTy))
      // &s, &ds for a struct that travels in registers (two doubles, three
      // floats): only a struct passed in memory is taken by address.
      Hint = " (a struct of up to 16 bytes passed by value travels in "
             "registers, one parameter per register: pass the struct itself, "
             "__ad_gradient(f, s), and declare the marker to return a struct "
             "with one field per register)";
    else if (T->isIntegerTy() && ParamTy->isFloatingPointTy())
      Hint = " (an integer literal such as 2 is passed as an int: write 2.0)";
    else if ((T->isIntegerTy() && ParamTy->isPointerTy()) ||
             (T->isPointerTy() && ParamTy->isIntegerTy()))
      // struct {int n; double *data;} by value: clang passes its fields as
      // parameters of their own, and the marker's arguments as it does for
      // any variadic call, so the count shifts.
      Hint = " (parameters are counted as clang passes them: a struct passed "
             "by value whose fields are integers and pointers becomes one "
             "parameter per field; take such a struct by pointer, in the "
             "function or a wrapper, and pass its address followed by its "
             "shadow's)";
    Diags.errorAtRequest(MarkerName + ": " + What + " for parameter " +
                         Twine(ParamNo + 1) + " of '" + FnName + "' must be " +
                         cTypeName(ParamTy) + ", but " + cTypeName(T) +
                         " was passed" + Hint);
    return nullptr;
  }

private:
  CallBase &Marker;
  unsigned First; // the function operand
  unsigned Next;
  Diagnostics &Diags;
  std::string MarkerName, FnName;
};

} // namespace

static bool hasSRet(const CallBase &CB) {
  return CB.arg_size() > 0 && CB.paramHasAttr(0, Attribute::StructRet);
}

bool namesRequestedFunction(const Use &U) {
  auto *Marker = dyn_cast<CallBase>(U.getUser());
  Function *Callee = Marker ? Marker->getCalledFunction() : nullptr;
  return Callee && isMarker(*Callee) &&
         U.getOperandNo() == (hasSRet(*Marker) ? 1u : 0u);
}

/// The function every return of \p F returns, if there is one.
static Function *onlyReturnedFunction(const Function &F) {
  Function *Only = nullptr;
  for (const BasicBlock &BB : F) {
    auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator());
    if (!Ret)
      continue;
    Value *V = Ret->getReturnValue();
    auto *Fn = V ? dyn_cast<Function>(V->stripPointerCasts()) : nullptr;
    if (!Fn || (Only && Only != Fn))
      return nullptr;
    Only = Fn;
  }
  return Only;
}

Function *requestedFunction(CallBase &Marker) {
  unsigned FnIdx = hasSRet(Marker) ? 1 : 0;
  if (Marker.arg_size() <= FnIdx)
    return nullptr;
  Value *FnV = Marker.getArgOperand(FnIdx)->stripPointerCasts();
  // A call that can only return one function: at -O0, a lambda converted
  // to a function pointer (+[](double u) { ... }) is a call of its
  // conversion operator, whose every return is the lambda's static invoker.
  if (auto *CB = dyn_cast<CallBase>(FnV))
    if (Function *Callee = CB->getCalledFunction();
        Callee && !Callee->isDeclaration())
      if (Function *Only = onlyReturnedFunction(*Callee))
        FnV = Only;
  if (auto *GA = dyn_cast<GlobalAlias>(FnV))
    FnV = GA->getAliaseeObject();
  return dyn_cast<Function>(FnV);
}

SmallPtrSet<const Function *, 32>
findActiveGlobals(Module &M, ArrayRef<CallBase *> Markers, Differentiator &D) {
  SmallVector<Function *, 8> Roots;
  for (CallBase *Marker : Markers)
    if (Function *F = requestedFunction(*Marker))
      Roots.push_back(F);
  SmallPtrSet<const Function *, 32> Reach =
      reachableFunctions(M, Roots, D.rules());
  D.globals().findActive(M, Reach, D.rules().declaredShadows());
  return Reach;
}

std::optional<Request> parseRequest(CallBase &Marker, Diagnostics &Diags,
                                    const CustomRules &Rules) {
  Request R;
  R.Marker = &Marker;
  StringRef MarkerName = Marker.getCalledFunction()->getName();
  R.Reverse = isGradientMarker(Marker);
  unsigned FnIdx = hasSRet(Marker) ? 1 : 0;
  if (Marker.arg_size() <= FnIdx) {
    Diags.errorAtRequest(MarkerName + ": the first argument must be the "
                                      "function to differentiate");
    return std::nullopt;
  }
  R.Fn = requestedFunction(Marker);
  // A function is passed as a pointer. A C++ pointer to member function
  // arrives as integers instead (Itanium ABI: the function's address and
  // an adjustment of this).
  if (!R.Fn && Marker.getArgOperand(FnIdx)->getType()->isIntegerTy()) {
    Diags.errorAtRequest(
        MarkerName + ": the first argument is not a function but an integer "
                     "(a pointer to member function, &Class::method, is "
                     "passed as integers): wrap the method in a free "
                     "function that takes the object pointer, such as "
                     "'double f(const C *c, double x) { return "
                     "c->method(x); }', and differentiate that");
    return std::nullopt;
  }
  if (!R.Fn) {
    Diags.errorAtRequest(MarkerName + ": the first argument must name a "
                                      "function (not a variable or function "
                                      "pointer computed at run time)");
    return std::nullopt;
  }
  std::string FnName = displayName(*R.Fn);
  if (R.Fn->isDeclaration() && !Rules.customJvp(*R.Fn)) {
    Diags.errorAtRequest(MarkerName + ": cannot differentiate '" + FnName +
                         "': its body is not visible in this translation "
                         "unit (define it in this file)");
    return std::nullopt;
  }
  if (R.Fn->isVarArg()) {
    Diags.errorAtRequest(MarkerName +
                         ": cannot differentiate the variadic "
                         "function '" +
                         FnName + "'");
    return std::nullopt;
  }

  auto isPassedByValue = [](CallBase &Call, Value *V) {
    for (unsigned K = 0; K < Call.arg_size(); ++K)
      if (Call.getArgOperand(K) == V && Call.paramHasAttr(K, Attribute::ByVal))
        return true;
    return false;
  };
  ArgumentDecoder Dec(Marker, FnIdx + 1, Diags, MarkerName, FnName);
  SmallVector<ArgRole, 8> Roles;
  for (Argument &P : R.Fn->args()) {
    Type *PT = P.getType();
    unsigned No = P.getArgNo();
    // A struct returned in memory (three doubles and more): the caller
    // passes where it goes, the marker does not. In forward mode f.jvp
    // writes the result there and its tangent to a shadow, which is the
    // marker's result.
    if (No == 0 && P.hasStructRetAttr() && R.Reverse) {
      Diags.errorAtRequest(
          MarkerName + ": '" + FnName +
          "' returns a struct, which has no gradient (reverse mode needs a "
          "single float/double result); take the derivative in forward mode "
          "(__ad_derivative, declared to return the struct), or return one "
          "component, or write the struct through a pointer parameter and "
          "seed its shadow");
      return std::nullopt;
    }
    if (No == 0 && P.hasStructRetAttr()) {
      // Where the result and its tangent go: locals lowerDerivative makes.
      R.ResultInMemory = P.getParamStructRetType();
      R.Args.push_back(nullptr);
      R.Extras.push_back(nullptr);
      Roles.push_back(ArgRole::Dup);
      continue;
    }
    std::optional<StringRef> Tag = Dec.peekTag();
    if (Tag)
      Dec.skip();
    if (Tag == DupTag && !PT->isPointerTy()) {
      Diags.errorAtRequest(MarkerName + ": AD_DUP precedes parameter " +
                           Twine(No + 1) + " of '" + FnName +
                           "', which is not a pointer");
      return std::nullopt;
    }
    if (PT->isPointerTy() && Tag != ConstTag) {
      // The pointer, then its shadow (AD_DUP, the default for pointers).
      Value *P = Dec.take(PT, No, "the pointer");
      Value *S = P ? Dec.take(PT, No, "the shadow") : nullptr;
      if (!S)
        return std::nullopt;
      // A struct passed by value (std::array<double, 4>, a struct of three
      // doubles) is passed in memory: a pointer to a copy. Its shadow passed
      // by value is a copy too, and the gradient went there, silently.
      if (R.Reverse && isPassedByValue(Marker, S)) {
        Diags.errorAtRequest(
            MarkerName + ": parameter " + Twine(No + 1) + " of '" + FnName +
            "' is a struct passed by value, and so is its shadow: the "
            "gradient would go to a copy of the shadow; pass the addresses "
            "of both instead (__ad_gradient(f, &s, &ds))");
        return std::nullopt;
      }
      R.Args.push_back(P);
      R.Extras.push_back(S);
      Roles.push_back(ArgRole::Dup);
      continue;
    }
    bool Active = !Tag && isDifferentiableType(PT);
    if (!Active && !Tag && !PT->isIntegerTy()) {
      Diags.errorAtRequest(MarkerName + ": parameter " + Twine(No + 1) +
                           " of '" + FnName + "' has type " + cTypeName(PT) +
                           ", which cannot be differentiated (mark it "
                           "AD_CONST)");
      return std::nullopt;
    }
    // f(struct {double x, y;} s) is f(double, double) to LLVM, and the
    // marker receives s and its tangent as four doubles: paired one by one
    // they would be (x, dx) = (s.x, s.y), silently wrong. A struct of four
    // floats is two <2 x float> registers, which no field-by-field call
    // can make (f's register parameters, unlike a vector type's, are not
    // noundef).
    bool StructRegister =
        PT->isVectorTy() && !R.Fn->hasParamAttribute(No, Attribute::NoUndef);
    if (Active && !R.Reverse &&
        (Dec.nextIsAggregatePiece() || StructRegister)) {
      Diags.errorAtRequest(
          MarkerName + ": parameter " + Twine(No + 1) + " of '" + FnName +
          "' is (part of) a struct passed by value in registers; in forward "
          "mode the marker cannot tell its tangent from its other fields: "
          "take the struct by pointer and pass its address followed by its "
          "tangent's (__ad_derivative(f, &s, &ts))" +
          (PT->isVectorTy() ? ""
                            : ", or pass its fields one by one, each followed "
                              "by its tangent (__ad_derivative(f, s.x, ts.x, "
                              "s.y, ts.y))"));
      return std::nullopt;
    }
    Value *V = Dec.take(PT, No, "the value");
    if (!V)
      return std::nullopt;
    R.Args.push_back(V);
    Roles.push_back(Active ? ArgRole::Active : ArgRole::Const);
    if (Active && !R.Reverse) {
      Value *T = Dec.take(PT, No, "the tangent");
      if (!T)
        return std::nullopt;
      R.Extras.push_back(T);
    }
  }
  if (!Dec.atEnd()) {
    Diags.errorAtRequest(MarkerName + ": too many arguments: '" + FnName +
                         "' takes " + Twine(R.Fn->arg_size()) +
                         " parameter(s)" +
                         (R.Reverse ? ""
                                    : ", each active one followed by "
                                      "its tangent"));
    return std::nullopt;
  }
  R.Act = Activity(std::move(Roles));
  return R;
}

/// Scalar leaves of \p T with their byte offsets: two types with the same
/// leaves have the same memory image, which is what C's ABI coercions
/// ({float, float, float} returned as {<2 x float>, float}) preserve.
static void flattenLeaves(Type *T, uint64_t Offset, const DataLayout &DL,
                          SmallVectorImpl<std::pair<uint64_t, Type *>> &Out) {
  if (auto *ST = dyn_cast<StructType>(T)) {
    const StructLayout *SL = DL.getStructLayout(ST);
    for (unsigned K = 0; K < ST->getNumElements(); ++K)
      flattenLeaves(ST->getElementType(K), Offset + SL->getElementOffset(K), DL,
                    Out);
  } else if (auto *AT = dyn_cast<ArrayType>(T)) {
    uint64_t Size = DL.getTypeAllocSize(AT->getElementType());
    for (uint64_t K = 0; K < AT->getNumElements(); ++K)
      flattenLeaves(AT->getElementType(), Offset + K * Size, DL, Out);
  } else if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    uint64_t Size = DL.getTypeAllocSize(VT->getElementType());
    for (unsigned K = 0; K < VT->getNumElements(); ++K)
      flattenLeaves(VT->getElementType(), Offset + K * Size, DL, Out);
  } else {
    Out.push_back({Offset, T});
  }
}

static std::string describeFields(ArrayRef<Type *> Tys) {
  std::string S = "{";
  for (Type *T : Tys)
    S += (S.size() > 1 ? ", " : "") + cTypeName(T);
  return S + "}";
}

/// The type the marker hands back: its return type, or its sret pointee.
static Type *markerResultType(CallBase &Marker) {
  return hasSRet(Marker) ? Marker.getParamStructRetType(0) : Marker.getType();
}

/// The derivative is one value per active argument (reverse mode) or the
/// output tangent (forward mode), of types \p Tys. Checks that the marker
/// was declared to return something with that memory image, before any code
/// is generated. False after reporting.
static bool checkResultType(CallBase &Marker, ArrayRef<Type *> Tys,
                            Diagnostics &Diags) {
  Type *Target = markerResultType(Marker);
  if (Target->isVoidTy() || Tys.empty())
    return true;
  if (Tys.size() == 1 && Target->isFloatingPointTy() &&
      (Tys[0] == Target || (Tys[0]->isFloatTy() && Target->isDoubleTy())))
    return true;
  const DataLayout &DL = Marker.getModule()->getDataLayout();
  SmallVector<std::pair<uint64_t, Type *>, 8> Want, Have;
  flattenLeaves(StructType::get(Marker.getContext(), Tys), 0, DL, Want);
  flattenLeaves(Target, 0, DL, Have);
  if (Want == Have)
    return true;
  Diags.errorAtRequest(
      Marker.getCalledFunction()->getName() + " is declared to return " +
      (Target->isStructTy()
           ? "a struct " + describeFields(cast<StructType>(Target)->elements())
           : cTypeName(Target)) +
      ", which does not match the derivative: it must return " +
      (Tys.size() == 1 ? cTypeName(Tys[0])
                       : "a struct with one field per active argument, in "
                         "order: " +
                             describeFields(Tys)));
  return false;
}

/// Makes the marker's result from \p Values (types already checked) and
/// replaces its uses.
static void emitResult(CallBase &Marker, ArrayRef<Value *> Values) {
  Type *Target = markerResultType(Marker);
  if (Target->isVoidTy())
    return;
  if (Values.empty()) {
    // Nothing is active: the derivative is an empty tuple. Give zeros.
    Marker.replaceAllUsesWith(Constant::getNullValue(Marker.getType()));
    return;
  }
  IRBuilder<> B(&Marker);
  if (Values.size() == 1 && Target->isFloatingPointTy()) {
    Marker.replaceAllUsesWith(B.CreateFPExt(Values[0], Target));
    return;
  }
  SmallVector<Type *, 8> FieldTys;
  for (Value *V : Values)
    FieldTys.push_back(V->getType());
  StructType *CLayout = StructType::get(Marker.getContext(), FieldTys);
  AllocaInst *Slot = B.CreateAlloca(CLayout, nullptr, "ad.result");
  for (unsigned K = 0; K < Values.size(); ++K)
    B.CreateStore(Values[K], B.CreateStructGEP(CLayout, Slot, K));
  if (hasSRet(Marker))
    B.CreateMemCpy(
        Marker.getArgOperand(0), MaybeAlign(), Slot, MaybeAlign(),
        Marker.getModule()->getDataLayout().getTypeStoreSize(CLayout));
  else
    Marker.replaceAllUsesWith(B.CreateLoad(Target, Slot));
}

/// The shadow globals the functions a request calls use, and what they
/// call. For a gradient those of f.fwd too: f.rev may reach a shadow only
/// through an address f.fwd put on the tape (at -O0, a pointer chosen
/// between two globals, a _Thread_local global).
static SmallSetVector<GlobalVariable *, 4>
globalShadowsUsedBy(ArrayRef<Function *> Derived, Differentiator &D) {
  SmallSetVector<GlobalVariable *, 4> Shadows;
  for (Function *F : Derived)
    Shadows.set_union(D.globals().shadowsUsedFrom(*F));
  return Shadows;
}

/// Globals are not inputs or outputs of a request: the tangents of their
/// contents when the derived code starts, or the cotangents when it ends,
/// are zero (GlobalShadows.h), whatever the previous request left in their
/// \p Shadows. Clears them at \p B.
static void zeroGlobalShadows(IRBuilder<> &B,
                              ArrayRef<GlobalVariable *> Shadows,
                              Differentiator &D) {
  const DataLayout &DL = D.module().getDataLayout();
  for (GlobalVariable *S : Shadows)
    B.CreateMemSet(S, B.getInt8(0), DL.getTypeAllocSize(S->getValueType()),
                   S->getAlign());
}

/// The offsets at which \p F, in its entry block and before anything that
/// might not return, loads pointers from the memory its parameter \p A
/// points to (b->p of a struct argument; at -O0 through A's spill slot).
/// Reading them before the call is then as safe as the call itself.
static SmallVector<int64_t, 4> pointerFieldsReadOnEntry(const Argument &A) {
  const Function &F = *A.getParent();
  const DataLayout &DL = F.getDataLayout();
  // A's spill slot at -O0: a local that only A is stored into.
  const AllocaInst *Slot = nullptr;
  for (const User *U : A.users())
    if (auto *SI = dyn_cast<StoreInst>(U); SI && SI->getValueOperand() == &A)
      Slot = dyn_cast<AllocaInst>(SI->getPointerOperand());
  if (Slot && llvm::count_if(Slot->users(), [](const User *U) {
                return isa<StoreInst>(U);
              }) != 1)
    Slot = nullptr;
  SmallVector<int64_t, 4> Offsets;
  for (const Instruction &I : F.getEntryBlock()) {
    if (auto *LI = dyn_cast<LoadInst>(&I); LI && LI->getType()->isPointerTy()) {
      APInt Offset(DL.getIndexTypeSizeInBits(LI->getPointerOperandType()), 0);
      const Value *Base =
          LI->getPointerOperand()->stripAndAccumulateConstantOffsets(
              DL, Offset, /*AllowNonInbounds=*/true);
      auto *Reload = dyn_cast<LoadInst>(Base);
      bool FromA =
          Base == &A || (Slot && Reload && Reload->getPointerOperand() == Slot);
      if (FromA && !is_contained(Offsets, Offset.getSExtValue()))
        Offsets.push_back(Offset.getSExtValue());
    }
    if (!isGuaranteedToTransferExecutionToSuccessor(&I))
      break;
  }
  return Offsets;
}

/// A pointer argument with a shadow that points into a global the derived
/// code uses by name would give that memory two derivatives: a wrong one.
/// A global whose shadow the derived code keeps itself (x == G in f(x)
/// that also writes G by name) has two shadows; one it only reads by name
/// (a regulariser reading theta[i] in loss(theta)) is read as constant
/// data, without the argument's derivative. It cannot be ruled out here, so
/// the request checks at run time, before the derived code runs, for each
/// of the \p Globals the \p Derived functions use by name, and aborts with
/// a message. So are the pointers f reads on entry from the memory such an
/// argument points to (Box b = {G}; f(&b)).
static void checkArgumentsOutsideGlobals(IRBuilder<> &B, const Request &R,
                                         ArrayRef<Function *> Derived,
                                         Differentiator &D) {
  SmallSetVector<GlobalVariable *, 4> Globals;
  for (Function *F : Derived)
    Globals.set_union(D.globals().dataUsedByNameFrom(*F));
  if (Globals.empty())
    return;
  Module &M = D.module();
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx);
  // What is checked: each AD_DUP pointer, and the pointers read from it.
  SmallVector<Value *, 8> Checked;
  for (unsigned K = 0; K < R.Args.size(); ++K) {
    if (!R.Act.isDup(K) || !R.Args[K]->getType()->isPointerTy())
      continue;
    Checked.push_back(R.Args[K]);
    for (int64_t Offset : pointerFieldsReadOnEntry(*R.Fn->getArg(K)))
      Checked.push_back(B.CreateLoad(
          Ptr, B.CreateConstGEP1_64(B.getInt8Ty(), R.Args[K], Offset),
          "ad.field"));
  }
  if (Checked.empty())
    return;
  Type *SizeTy = M.getDataLayout().getIntPtrType(Ctx);
  FunctionCallee Check = M.getOrInsertFunction(
      "__ad_check_not_in_global", Type::getVoidTy(Ctx), Ptr, Ptr, SizeTy, Ptr);
  for (GlobalVariable *G : Globals) {
    Constant *Name = B.CreateGlobalString(G->getName(), "ad.global.name");
    // An array whose size this file does not know (extern double t[]):
    // at least its start.
    uint64_t Bytes = std::max<uint64_t>(
        M.getDataLayout().getTypeAllocSize(G->getValueType()), 1);
    for (Value *P : Checked)
      B.CreateCall(Check, {P, G, ConstantInt::get(SizeTy, Bytes), Name});
  }
}

/// Tapes larger than this are allocated on the heap by the request.
static constexpr uint64_t MaxStackTapeBytes = 64 * 1024;

/// Whether derived functions \p Roots, or what they call, keep records on
/// the runtime tape. Most modules have no loop derivative at all, and then
/// no tape function is declared: nothing to walk.
static bool usesRuntimeTape(Module &M, ArrayRef<Function *> Roots,
                            const CustomRules &Rules) {
  if (!declaresTapeFunction(M, TapeOp::Push))
    return false;
  for (const Function *G : reachableFunctions(M, Roots, Rules))
    for (const Instruction &I : instructions(*G))
      if (isTapeCall(&I, TapeOp::Push))
        return true;
  return false;
}

static bool lowerGradient(Request &R, Differentiator &D) {
  SmallVector<Type *, 8> GradTys;
  for (Argument &A : R.Fn->args())
    if (R.Act.isActive(A.getArgNo()))
      GradTys.push_back(A.getType());
  if (!checkResultType(*R.Marker, GradTys, D.diags()))
    return false;
  if (R.Fn->getReturnType()->isAggregateType()) {
    D.diags().errorAtRequest(R.Marker->getCalledFunction()->getName() + ": '" +
                             displayName(*R.Fn) +
                             "' returns a struct; a gradient needs a float or "
                             "double result (or void, with output shadows)");
    return false;
  }
  auto G = D.getGradient(*R.Fn, R.Act, R.Marker);
  if (!G)
    return false;
  auto &[U, Rev] = *G;
  CallBase &Marker = *R.Marker;
  Function &Caller = *Marker.getFunction();
  IRBuilder<> B(&Marker);
  // The tape holds the shadows of f's local arrays: in the caller's frame,
  // a large one overflowed the stack (a 5.6 MB local array, or a few
  // requests of 1 MB arrays at -O0, where each gets its own tape). Large
  // tapes live on the heap for the request.
  Module &M = D.module();
  uint64_t TapeBytes = M.getDataLayout().getTypeAllocSize(U.Tape);
  bool TapeOnHeap = TapeBytes > MaxStackTapeBytes;
  Value *Tape;
  if (TapeOnHeap) {
    Type *Ptr = B.getPtrTy(),
         *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
    FunctionCallee Malloc = M.getOrInsertFunction("malloc", Ptr, SizeTy);
    Tape =
        B.CreateCall(Malloc, {ConstantInt::get(SizeTy, TapeBytes)}, "ad.tape");
  } else {
    IRBuilder<> Entry(&*Caller.getEntryBlock().getFirstInsertionPt());
    Tape = Entry.CreateAlloca(U.Tape, nullptr, "ad.tape");
  }

  SmallSetVector<GlobalVariable *, 4> Shadows =
      globalShadowsUsedBy({U.Fwd, Rev}, D);
  checkArgumentsOutsideGlobals(B, R, {U.Fwd, Rev}, D);
  SmallVector<Value *, 8> FwdArgs(R.Args);
  FwdArgs.append(R.Extras.begin(), R.Extras.end()); // shadows
  FwdArgs.push_back(Tape);
  if (!TapeOnHeap)
    B.CreateLifetimeStart(Tape);
  // f.rev frees the shadow of memory f freed where it reaches the memory's
  // allocation. A shadow it cannot, because f freed memory the caller
  // passed in, is a run-time error when the request ends.
  Value *FreesMark = emitShadowFreesBegin(B);
  B.CreateCall(U.Fwd, FwdArgs)->setDebugLoc(Marker.getDebugLoc());
  zeroGlobalShadows(B, Shadows.getArrayRef(), D);
  SmallVector<Value *, 2> RevArgs{Tape};
  if (Rev->arg_size() > 1)
    RevArgs.push_back(ConstantFP::get(Rev->getArg(1)->getType(), 1.0));
  CallInst *Cts = B.CreateCall(Rev, RevArgs);
  Cts->setDebugLoc(Marker.getDebugLoc());
  if (FreesMark)
    emitShadowFreesEnd(B, FreesMark);
  if (usesRuntimeTape(M, {U.Fwd, Rev}, D.rules()))
    emitTapeTrim(B);
  if (TapeOnHeap)
    B.CreateCall(M.getOrInsertFunction("free", B.getVoidTy(), B.getPtrTy()),
                 {Tape});
  else
    B.CreateLifetimeEnd(Tape);

  SmallVector<Value *, 8> Grads;
  for (unsigned K = 0; K < GradTys.size(); ++K)
    Grads.push_back(GradTys.size() == 1 ? static_cast<Value *>(Cts)
                                        : B.CreateExtractValue(Cts, K));
  emitResult(Marker, Grads);
  ++NumGradients;
  return true;
}

static bool containsInteger(Type *T) {
  if (T->isIntegerTy())
    return true;
  if (auto *ST = dyn_cast<StructType>(T))
    return any_of(ST->elements(), containsInteger);
  if (auto *AT = dyn_cast<ArrayType>(T))
    return containsInteger(AT->getElementType());
  return false;
}

/// The tangent of a struct result with its integer fields taken from the
/// result itself. They carry no derivative, and a zero there is a different
/// value: the tangent of an engaged std::optional<double> came back empty,
/// and a {value, steps} pair without its step count.
static Value *withResultIntegers(IRBuilderBase &B, Value *Tangent,
                                 Value *Result) {
  Type *T = Tangent->getType();
  if (T->isIntegerTy())
    return Result;
  if (!containsInteger(T))
    return Tangent;
  unsigned N = T->isStructTy() ? T->getStructNumElements()
                               : unsigned(T->getArrayNumElements());
  for (unsigned K = 0; K < N; ++K)
    Tangent = B.CreateInsertValue(
        Tangent,
        withResultIntegers(B, B.CreateExtractValue(Tangent, K),
                           B.CreateExtractValue(Result, K)),
        K);
  return Tangent;
}

static bool lowerDerivative(Request &R, Differentiator &D) {
  Type *RetTy = R.ResultInMemory ? R.ResultInMemory : R.Fn->getReturnType();
  bool HasTangent = isDifferentiableType(RetTy);
  if (!HasTangent && !markerResultType(*R.Marker)->isVoidTy()) {
    D.diags().errorAtRequest(R.Marker->getCalledFunction()->getName() + ": '" +
                             displayName(*R.Fn) +
                             "' returns no float/double value, so there is "
                             "no tangent to return (declare a void variant)");
    return false;
  }
  SmallVector<Type *, 1> OutTys;
  if (HasTangent)
    OutTys.push_back(RetTy);
  if (!checkResultType(*R.Marker, OutTys, D.diags()))
    return false;
  Function *Jvp = D.getJvp(*R.Fn, R.Act, R.Marker);
  if (!Jvp)
    return false;
  IRBuilder<> B(R.Marker);
  AllocaInst *ResultTangent = nullptr;
  if (R.ResultInMemory) {
    // f.jvp writes the result to the first local and its tangent to the
    // second, its shadow, which starts at zero: the marker's result.
    IRBuilder<> EB(&*R.Marker->getFunction()->getEntryBlock().begin());
    Align A = R.Fn->getParamAlign(0).valueOrOne();
    AllocaInst *Result =
        EB.CreateAlloca(R.ResultInMemory, nullptr, "ad.result.value");
    ResultTangent =
        EB.CreateAlloca(R.ResultInMemory, nullptr, "ad.result.tangent");
    Result->setAlignment(A);
    ResultTangent->setAlignment(A);
    const DataLayout &DL = D.module().getDataLayout();
    B.CreateMemSet(ResultTangent, B.getInt8(0),
                   DL.getTypeAllocSize(R.ResultInMemory), A);
    R.Args[0] = Result;
    R.Extras[0] = ResultTangent;
  }
  SmallVector<Value *, 8> Args(R.Args);
  Args.append(R.Extras.begin(), R.Extras.end());
  SmallSetVector<GlobalVariable *, 4> Shadows = globalShadowsUsedBy({Jvp}, D);
  checkArgumentsOutsideGlobals(B, R, {Jvp}, D);
  zeroGlobalShadows(B, Shadows.getArrayRef(), D);
  CallInst *Call = B.CreateCall(Jvp, Args);
  Call->setDebugLoc(R.Marker->getDebugLoc());
  SmallVector<Value *, 1> Out;
  if (HasTangent)
    Out.push_back(ResultTangent
                      ? withResultIntegers(
                            B, B.CreateLoad(RetTy, ResultTangent, "ad.tangent"),
                            B.CreateLoad(RetTy, R.Args[0]))
                      : withResultIntegers(B, B.CreateExtractValue(Call, 1),
                                           B.CreateExtractValue(Call, 0)));
  emitResult(*R.Marker, Out);
  ++NumDerivatives;
  return true;
}

/// Generated functions nobody calls (f.lin once f.rev exists, JVPs used
/// only to build other functions) are dropped before code generation.
static void eraseUnusedGenerated(Module &M) {
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Function &F : make_early_inc_range(M))
      if (getDerivedInfo(F) && F.use_empty()) {
        F.eraseFromParent();
        Changed = true;
      }
  }
}

/// A request differentiates its function and everything that reaches, so
/// a marker inside that code (a second derivative: the gradient of a
/// function that itself asks for a gradient) must already be derived code
/// when the request reads it. Gives each of \p Markers its nesting level
/// (Activity::level): 0 when its code reaches no other marker, otherwise
/// one more than the deepest level it reaches. Orders them by level, so
/// that inner requests come first and a level's active globals are
/// decided when all the code it differentiates exists, and within a level
/// as they are (program order). A cycle gets some order and is reported
/// when the inner marker is met. \p Reach is what all the requests reach
/// together: when it holds no marker, nothing is nested.
static SmallVector<std::pair<CallBase *, unsigned>, 8>
byNestingLevel(Module &M, ArrayRef<CallBase *> Markers,
               const SmallPtrSetImpl<const Function *> &Reach,
               const CustomRules &Rules) {
  size_t N = Markers.size();
  SmallVector<unsigned, 8> Level(N, 0);
  if (llvm::any_of(Markers, [&](CallBase *Marker) {
        return Reach.count(Marker->getFunction());
      })) {
    SmallVector<SmallPtrSet<const Function *, 32>, 8> ReachOf;
    for (CallBase *Marker : Markers) {
      SmallVector<Function *, 1> Roots;
      if (Function *F = requestedFunction(*Marker))
        Roots.push_back(F);
      ReachOf.push_back(reachableFunctions(M, Roots, Rules));
    }
    // Depth first; marking on entry makes a cycle stop where it closes.
    SmallVector<bool, 8> Visited(N, false);
    std::function<void(size_t)> Visit = [&](size_t I) {
      if (Visited[I])
        return;
      Visited[I] = true;
      for (size_t J = 0; J < N; ++J)
        if (J != I && ReachOf[I].count(Markers[J]->getFunction())) {
          Visit(J);
          Level[I] = std::max(Level[I], Level[J] + 1);
        }
    };
    for (size_t I = 0; I < N; ++I)
      Visit(I);
  }
  SmallVector<std::pair<CallBase *, unsigned>, 8> Order;
  for (size_t I = 0; I < N; ++I)
    Order.push_back({Markers[I], Level[I]});
  llvm::stable_sort(
      Order, [](const auto &A, const auto &B) { return A.second < B.second; });
  return Order;
}

/// Decides the active globals of nesting level \p Level > 0 from what its
/// requests in \p Order reach now that the inner requests are derived code
/// (which writes the inner levels' shadows).
static void
findActiveGlobalsOfLevel(Module &M,
                         ArrayRef<std::pair<CallBase *, unsigned>> Order,
                         unsigned Level, Differentiator &D) {
  SmallVector<Function *, 8> Roots;
  for (auto &[Marker, L] : Order)
    if (L == Level)
      if (Function *F = requestedFunction(*Marker))
        Roots.push_back(F);
  D.globals().findActive(M, reachableFunctions(M, Roots, D.rules()),
                         D.rules().declaredShadows(), Level);
}

/// Whether \p F or a function it reaches calls the runtime tape: derived
/// code of an inner request whose function has loops.
static bool reachesRuntimeTape(Module &M, Function &F,
                               const CustomRules &Rules) {
  SmallVector<Function *, 1> Roots{&F};
  for (const Function *G : reachableFunctions(M, Roots, Rules))
    for (const Instruction &I : instructions(*G))
      if (callsTapeRuntime(&I))
        return true;
  return false;
}

/// Whether every use of \p F is a request naming it or a direct call from
/// code no request differentiates (\p Reach): no derived function calls
/// f.fwd or f.lin, and nothing takes F's address, so each f.fwd of F runs
/// right before its f.rev.
static bool
calledOnlyByRequests(const Function &F,
                     const SmallPtrSetImpl<const Function *> &Reach) {
  for (const Use &U : F.uses()) {
    auto *CB = dyn_cast<CallBase>(U.getUser());
    if (!CB)
      return false;
    if (const Function *Callee = CB->getCalledFunction();
        Callee && isMarker(*Callee) && !CB->isCallee(&U))
      continue;
    if (!CB->isCallee(&U) || Reach.count(CB->getFunction()))
      return false;
  }
  return true;
}

SmallSetVector<Function *, 8> lowerMarkers(Module &M, Differentiator &D) {
  SmallVector<CallBase *, 8> Markers = findMarkers(M);
  SmallSetVector<Function *, 8> Callers;
  if (Markers.empty())
    return Callers;
  for (CallBase *Marker : Markers)
    Callers.insert(Marker->getFunction());
  SmallPtrSet<const Function *, 32> Reach = findActiveGlobals(M, Markers, D);
  SmallPtrSet<const Function *, 8> OnlyRequested;
  for (CallBase *Marker : Markers)
    if (Function *F = requestedFunction(*Marker);
        F && calledOnlyByRequests(*F, Reach))
      OnlyRequested.insert(F);
  D.setCalledOnlyByRequests(std::move(OnlyRequested));
  SmallVector<std::pair<CallBase *, unsigned>, 8> Order =
      byNestingLevel(M, Markers, Reach, D.rules());
  // Forward mode calls f.jvp itself; reverse mode only unzips it.
  D.setJvpsDisposable(llvm::all_of(
      Markers, [](CallBase *Marker) { return isGradientMarker(*Marker); }));
  unsigned CurrentLevel = 0;
  for (auto [Marker, Level] : Order) {
    if (Level != CurrentLevel)
      findActiveGlobalsOfLevel(M, Order, CurrentLevel = Level, D);
    if (auto *II = dyn_cast<InvokeInst>(Marker))
      Marker = changeToCall(II);
    D.diags().setRequest(Marker);
    D.beginRequest();
    std::optional<Request> R = parseRequest(*Marker, D.diags(), D.rules());
    if (R)
      R->Act = R->Act.atLevel(Level);
    D.setRuntimeTapeInCode(R && reachesRuntimeTape(M, *R->Fn, D.rules()));
    bool Ok = R && (R->Reverse ? lowerGradient(*R, D) : lowerDerivative(*R, D));
    D.endRequest(Ok);
    if (!Ok && !Marker->getType()->isVoidTy())
      Marker->replaceAllUsesWith(PoisonValue::get(Marker->getType()));
    Marker->eraseFromParent();
  }
  D.diags().setRequest(nullptr);
  // The markers' declarations and the activity tags are gone from the code.
  for (Function &F : make_early_inc_range(M))
    if (isMarker(F) && F.use_empty())
      F.eraseFromParent();
  for (StringRef Tag : {ConstTag, DupTag})
    if (GlobalVariable *GV = M.getNamedGlobal(Tag); GV && GV->use_empty())
      GV->eraseFromParent();
  CustomRules::eraseRegistrations(M);
  eraseUnusedGenerated(M);
  for (Function &F : M)
    if (auto Info = getDerivedInfo(F);
        Info && Info->Kind == DerivedKind::Jvp && !F.isDeclaration())
      keepZeroTangentsZero(F);
  // A JVP whose body moved into f.fwd must have gone with its last caller.
  for (Function &F : M)
    if (F.isDeclaration() && getDerivedInfo(F))
      D.diags().internalError(nullptr, "'" + F.getName() +
                                           "' is still called after its "
                                           "body moved into f.fwd");
  return Callers;
}

} // namespace ad
