//===- RequestParsing.cpp - reading __ad_gradient / __ad_derivative -------===//
//
// A marker is variadic, so its arguments arrive as C passes any variadic
// call's: floats promoted to double, small integers to int, structs split
// into registers or copied. Decoding walks them against the parameters of
// the function to differentiate, undoing the promotions, reading the
// activity tags (AD_CONST, AD_DUP) that precede an argument, and taking a
// shadow after each AD_DUP pointer and, in forward mode, a tangent after
// each active value. What C's calling convention made ambiguous (a
// _Complex or a struct split into registers) is reported, not guessed.
//
//===----------------------------------------------------------------------===//
#include "driver/RequestParsing.h"
#include "driver/CustomRules.h"
#include "driver/DerivedFunctions.h"
#include "driver/Diagnostics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace ad {

static constexpr StringLiteral GradientPrefix = "__ad_gradient";
static constexpr StringLiteral DerivativePrefix = "__ad_derivative";
static constexpr StringLiteral LinearizePrefix = "__ad_linearize";
static constexpr StringLiteral JvpPrefix = "__ad_jvp";
static constexpr StringLiteral VjpPrefix = "__ad_vjp";
static constexpr StringLiteral ConstTag = "__ad_const_tag";
static constexpr StringLiteral DupTag = "__ad_dup_tag";

bool isMarkerName(StringRef Name) {
  return Name.starts_with(GradientPrefix) ||
         Name.starts_with(DerivativePrefix) ||
         Name.starts_with(LinearizePrefix) || Name.starts_with(JvpPrefix) ||
         Name.starts_with(VjpPrefix);
}

HandleOp handleOpOf(const CallBase &Marker) {
  StringRef Name = Marker.getCalledFunction()->getName();
  if (Name.starts_with(LinearizePrefix))
    return HandleOp::Linearize;
  if (Name.starts_with(JvpPrefix))
    return HandleOp::Jvp;
  if (Name.starts_with(VjpPrefix))
    return HandleOp::Vjp;
  return HandleOp::None;
}

bool isMarker(const Function &F) {
  return F.isDeclaration() && isMarkerName(F.getName());
}

bool isGradientMarker(const CallBase &Marker) {
  StringRef Name = Marker.getCalledFunction()->getName();
  return Name.starts_with(GradientPrefix) || Name.starts_with(VjpPrefix);
}

bool hasSRet(const CallBase &CB) {
  return CB.arg_size() > 0 && CB.paramHasAttr(0, Attribute::StructRet);
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
void markWholeComplexArguments(Function &Marker) {
  for (User *U : Marker.users()) {
    auto *CB = dyn_cast<CallBase>(U);
    if (!CB || CB->getCalledFunction() != &Marker || isGradientMarker(*CB) ||
        handleOpOf(*CB) == HandleOp::Linearize)
      continue;
    for (unsigned K = 1; K + 1 < CB->arg_size(); ++K)
      if (areComplexHalves(CB->getArgOperand(K), CB->getArgOperand(K + 1)))
        CB->addParamAttr(K, Attribute::get(CB->getContext(), WholeComplexAttr));
  }
}

std::string cTypeName(Type *T) {
  if (T->isDoubleTy())
    return "double";
  if (T->isFloatTy())
    return "float";
  if (T->isX86_FP80Ty())
    return "long double";
  if (T->isFP128Ty())
    return "__float128";
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

/// What to write instead, when an argument of type \p T was passed for a
/// parameter of type \p ParamTy that no promotion explains; "" if nothing
/// more can be said.
static const char *mismatchHint(Type *T, Type *ParamTy) {
  if (T->isPointerTy() && isDifferentiableType(ParamTy))
    // &s, &ds for a struct that travels in registers (two doubles, three
    // floats): only a struct passed in memory is taken by address.
    return " (a struct of up to 16 bytes passed by value travels in "
           "registers, one parameter per register: pass the struct itself, "
           "__ad_gradient(f, s), and declare the marker to return a struct "
           "with one field per register)";
  if (T->isIntegerTy() && ParamTy->isFloatingPointTy())
    return " (an integer literal such as 2 is passed as an int: write 2.0)";
  if ((T->isIntegerTy() && ParamTy->isPointerTy()) ||
      (T->isPointerTy() && ParamTy->isIntegerTy()))
    // struct {int n; double *data;} by value: clang passes its fields as
    // parameters of their own, and the marker's arguments as it does for
    // any variadic call, so the count shifts.
    return " (parameters are counted as clang passes them: a struct passed "
           "by value whose fields are integers and pointers becomes one "
           "parameter per field; take such a struct by pointer, in the "
           "function or a wrapper, and pass its address followed by its "
           "shadow's)";
  return "";
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
    Diags.errorAtRequest(MarkerName + ": " + What + " for parameter " +
                         Twine(ParamNo + 1) + " of '" + FnName + "' must be " +
                         cTypeName(ParamTy) + ", but " + cTypeName(T) +
                         " was passed" + mismatchHint(T, ParamTy));
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

/// Whether \p V is an argument of \p Call passed by value (byval): a
/// pointer to a copy the call makes.
static bool isPassedByValue(CallBase &Call, Value *V) {
  for (unsigned K = 0; K < Call.arg_size(); ++K)
    if (Call.getArgOperand(K) == V && Call.paramHasAttr(K, Attribute::ByVal))
      return true;
  return false;
}

/// The function \p Marker asks to differentiate, if it can be
/// differentiated: one whose body is here (or that has a custom JVP) and
/// that is not variadic. Null after reporting.
static Function *findDifferentiableFunction(CallBase &Marker,
                                            Diagnostics &Diags,
                                            const CustomRules &Rules) {
  StringRef MarkerName = Marker.getCalledFunction()->getName();
  unsigned FnIdx = hasSRet(Marker) ? 1 : 0;
  if (Marker.arg_size() <= FnIdx) {
    Diags.errorAtRequest(MarkerName + ": the first argument must be the "
                                      "function to differentiate");
    return nullptr;
  }
  Function *Fn = requestedFunction(Marker);
  // A function is passed as a pointer. A C++ pointer to member function
  // arrives as integers instead (Itanium ABI: the function's address and
  // an adjustment of this).
  if (!Fn && Marker.getArgOperand(FnIdx)->getType()->isIntegerTy()) {
    Diags.errorAtRequest(
        MarkerName + ": the first argument is not a function but an integer "
                     "(a pointer to member function, &Class::method, is "
                     "passed as integers): wrap the method in a free "
                     "function that takes the object pointer, such as "
                     "'double f(const C *c, double x) { return "
                     "c->method(x); }', and differentiate that");
    return nullptr;
  }
  if (!Fn) {
    Diags.errorAtRequest(MarkerName + ": the first argument must name a "
                                      "function (not a variable or function "
                                      "pointer computed at run time)");
    return nullptr;
  }
  std::string FnName = displayName(*Fn);
  if (Fn->isDeclaration() && !Rules.customJvp(*Fn)) {
    Diags.errorAtRequest(MarkerName + ": cannot differentiate '" + FnName +
                         "': its body is not visible in this translation "
                         "unit (define it in this file)");
    return nullptr;
  }
  if (Fn->isVarArg()) {
    Diags.errorAtRequest(MarkerName +
                         ": cannot differentiate the variadic "
                         "function '" +
                         FnName + "'");
    return nullptr;
  }
  return Fn;
}

namespace {

/// Matches the marker's arguments to the parameters of the function to
/// differentiate, one parameter at a time, filling the Request's Args and
/// Extras and the parameters' activity roles.
class ParameterMatcher {
public:
  ParameterMatcher(Request &R, Diagnostics &Diags)
      : R(R), Diags(Diags),
        MarkerName(R.Marker->getCalledFunction()->getName()),
        FnName(displayName(*R.Fn)),
        Dec(*R.Marker, (hasSRet(*R.Marker) ? 1 : 0) + 1 + leadingArgs(R), Diags,
            MarkerName, FnName) {}

  /// The arguments of a handle marker between the function and f's own:
  /// __ad_linearize's result pointer, the handle, __ad_vjp's cotangent.
  static unsigned leadingArgs(const Request &R) {
    Type *RetTy = R.Fn->getReturnType();
    switch (R.Op) {
    case HandleOp::None:
      return 0;
    case HandleOp::Linearize:
      return RetTy->isVoidTy() ? 0 : 1;
    case HandleOp::Jvp:
      return 1;
    case HandleOp::Vjp:
      return RetTy->isFloatingPointTy() ? 2 : 1;
    }
    llvm_unreachable("unknown handle marker");
  }

  /// Matches every parameter, then checks that no argument is left over.
  /// False after reporting.
  bool matchAll() {
    for (Argument &P : R.Fn->args())
      if (!matchParameter(P))
        return false;
    return checkNothingLeft();
  }

  Activity activity() { return Activity(std::move(Roles)); }

private:
  Request &R;
  Diagnostics &Diags;
  std::string MarkerName, FnName;
  ArgumentDecoder Dec;
  SmallVector<ArgRole, 8> Roles;

  bool matchParameter(Argument &P) {
    if (P.getArgNo() == 0 && P.hasStructRetAttr())
      return matchResultInMemory(P);
    std::optional<StringRef> Tag = Dec.peekTag();
    if (Tag)
      Dec.skip();
    if (Tag == DupTag && !P.getType()->isPointerTy()) {
      Diags.errorAtRequest(MarkerName + ": AD_DUP precedes parameter " +
                           Twine(P.getArgNo() + 1) + " of '" + FnName +
                           "', which is not a pointer");
      return false;
    }
    if (P.getType()->isPointerTy() && Tag != ConstTag)
      return R.Op == HandleOp::Linearize ? matchPointerOnly(P)
                                         : matchPointerAndShadow(P);
    return matchValue(P, /*Tagged=*/Tag.has_value());
  }

  /// A struct returned in memory (three doubles and more): the caller
  /// passes where it goes, the marker does not. In forward mode f.jvp
  /// writes the result there and its tangent to a shadow, which is the
  /// marker's result.
  bool matchResultInMemory(Argument &P) {
    if (R.Reverse) {
      Diags.errorAtRequest(
          MarkerName + ": '" + FnName +
          "' returns a struct, which has no gradient (reverse mode needs a "
          "single float/double result); take the derivative in forward mode "
          "(__ad_derivative, declared to return the struct), or return one "
          "component, or write the struct through a pointer parameter and "
          "seed its shadow");
      return false;
    }
    // Where the result and its tangent go: locals lowerDerivative makes.
    R.ResultInMemory = P.getParamStructRetType();
    R.Args.push_back(nullptr);
    R.Extras.push_back(nullptr);
    Roles.push_back(ArgRole::Dup);
    return true;
  }

  /// __ad_linearize: a pointer with a shadow, which comes later.
  bool matchPointerOnly(Argument &P) {
    Value *Ptr = Dec.take(P.getType(), P.getArgNo(), "the pointer");
    if (!Ptr)
      return false;
    R.Args.push_back(Ptr);
    Roles.push_back(ArgRole::Dup);
    return true;
  }

  /// The pointer, then its shadow (AD_DUP, the default for pointers).
  bool matchPointerAndShadow(Argument &P) {
    Type *PT = P.getType();
    unsigned No = P.getArgNo();
    Value *Ptr = Dec.take(PT, No, "the pointer");
    Value *Shadow = Ptr ? Dec.take(PT, No, "the shadow") : nullptr;
    if (!Shadow)
      return false;
    // A struct passed by value (std::array<double, 4>, a struct of three
    // doubles) is passed in memory: a pointer to a copy. Its shadow passed
    // by value is a copy too, and the gradient went there, silently.
    if (R.Reverse && isPassedByValue(*R.Marker, Shadow)) {
      Diags.errorAtRequest(
          MarkerName + ": parameter " + Twine(No + 1) + " of '" + FnName +
          "' is a struct passed by value, and so is its shadow: the "
          "gradient would go to a copy of the shadow; pass the addresses "
          "of both instead (__ad_gradient(f, &s, &ds))");
      return false;
    }
    R.Args.push_back(Ptr);
    R.Extras.push_back(Shadow);
    Roles.push_back(ArgRole::Dup);
    return true;
  }

  /// A value parameter: active unless \p Tagged (AD_CONST) or an integer;
  /// in forward mode an active value is followed by its tangent.
  bool matchValue(Argument &P, bool Tagged) {
    Type *PT = P.getType();
    unsigned No = P.getArgNo();
    bool Active = !Tagged && isDifferentiableType(PT);
    if (!Active && !Tagged && !PT->isIntegerTy()) {
      Diags.errorAtRequest(MarkerName + ": parameter " + Twine(No + 1) +
                           " of '" + FnName + "' has type " + cTypeName(PT) +
                           ", which cannot be differentiated (mark it "
                           "AD_CONST)");
      return false;
    }
    if (Active && !R.Reverse && !checkNotStructPiece(P))
      return false;
    Value *V = Dec.take(PT, No, "the value");
    if (!V)
      return false;
    R.Args.push_back(V);
    Roles.push_back(Active ? ArgRole::Active : ArgRole::Const);
    if (Active && !R.Reverse) {
      Value *T = Dec.take(PT, No, "the tangent");
      if (!T)
        return false;
      R.Extras.push_back(T);
    }
    return true;
  }

  /// f(struct {double x, y;} s) is f(double, double) to LLVM, and the
  /// marker receives s and its tangent as four doubles: paired one by one
  /// they would be (x, dx) = (s.x, s.y), silently wrong. A struct of four
  /// floats is two <2 x float> registers, which no field-by-field call
  /// can make (f's register parameters, unlike a vector type's, are not
  /// noundef). False after reporting the forward-mode value parameter \p P
  /// as such a piece.
  bool checkNotStructPiece(Argument &P) {
    Type *PT = P.getType();
    bool StructRegister =
        PT->isVectorTy() &&
        !R.Fn->hasParamAttribute(P.getArgNo(), Attribute::NoUndef);
    if (!Dec.nextIsAggregatePiece() && !StructRegister)
      return true;
    Diags.errorAtRequest(
        MarkerName + ": parameter " + Twine(P.getArgNo() + 1) + " of '" +
        FnName +
        "' is (part of) a struct passed by value in registers; in forward "
        "mode the marker cannot tell its tangent from its other fields: "
        "take the struct by pointer and pass its address followed by its "
        "tangent's (__ad_derivative(f, &s, &ts))" +
        (PT->isVectorTy() ? ""
                          : ", or pass its fields one by one, each followed "
                            "by its tangent (__ad_derivative(f, s.x, ts.x, "
                            "s.y, ts.y))"));
    return false;
  }

  bool checkNothingLeft() {
    if (Dec.atEnd())
      return true;
    Diags.errorAtRequest(MarkerName + ": too many arguments: '" + FnName +
                         "' takes " + Twine(R.Fn->arg_size()) +
                         " parameter(s)" +
                         (R.Reverse ? ""
                                    : ", each active one followed by "
                                      "its tangent"));
    return false;
  }
};

} // namespace

/// The arguments of handle marker \p R between the function and f's own
/// (ParameterMatcher::leadingArgs). False after reporting.
static bool parseHandleLead(Request &R, Diagnostics &Diags) {
  CallBase &Marker = *R.Marker;
  StringRef MarkerName = Marker.getCalledFunction()->getName();
  std::string FnName = displayName(*R.Fn);
  Type *RetTy = R.Fn->getReturnType();
  if (R.Fn->arg_size() && R.Fn->getArg(0)->hasStructRetAttr()) {
    Diags.errorAtRequest(MarkerName + ": '" + FnName +
                         "' returns a struct in memory, which a handle does "
                         "not support: write the struct through a pointer "
                         "parameter instead");
    return false;
  }
  unsigned Next = (hasSRet(Marker) ? 1 : 0) + 1;
  auto Missing = [&](const char *What) {
    Diags.errorAtRequest(MarkerName + ": too few arguments: " + What +
                         " must follow '" + FnName + "'");
    return false;
  };
  bool WantsLead = R.Op != HandleOp::Linearize || !RetTy->isVoidTy();
  if (WantsLead) {
    const char *What = R.Op == HandleOp::Linearize
                           ? "the address where its result goes"
                           : "the handle __ad_linearize returned";
    if (Marker.arg_size() <= Next)
      return Missing(What);
    R.Lead = Marker.getArgOperand(Next++);
    if (!R.Lead->getType()->isPointerTy() || tagOf(R.Lead)) {
      Diags.errorAtRequest(MarkerName + ": " + What + " must follow '" +
                           FnName + "', but " + cTypeName(R.Lead->getType()) +
                           " was passed");
      return false;
    }
  }
  if (R.Op == HandleOp::Vjp && RetTy->isFloatingPointTy()) {
    if (Marker.arg_size() <= Next)
      return Missing("the cotangent of its result");
    Value *Ct = Marker.getArgOperand(Next);
    if (!Ct->getType()->isFloatingPointTy()) {
      Diags.errorAtRequest(MarkerName + ": the cotangent of the result of '" +
                           FnName + "' must be " + cTypeName(RetTy) + ", but " +
                           cTypeName(Ct->getType()) + " was passed");
      return false;
    }
    IRBuilder<> B(&Marker);
    R.Cotangent = B.CreateFPCast(Ct, RetTy);
  }
  return true;
}

std::optional<Request> parseRequest(CallBase &Marker, Diagnostics &Diags,
                                    const CustomRules &Rules) {
  Request R;
  R.Marker = &Marker;
  R.Op = handleOpOf(Marker);
  R.Reverse = isGradientMarker(Marker) || R.Op == HandleOp::Linearize;
  R.Fn = findDifferentiableFunction(Marker, Diags, Rules);
  if (!R.Fn || (R.Op != HandleOp::None && !parseHandleLead(R, Diags)))
    return std::nullopt;
  ParameterMatcher Matcher(R, Diags);
  if (!Matcher.matchAll())
    return std::nullopt;
  R.Act = Matcher.activity();
  return R;
}

void eraseUnusedActivityTags(Module &M) {
  for (StringRef Tag : {ConstTag, DupTag})
    if (GlobalVariable *GV = M.getNamedGlobal(Tag); GV && GV->use_empty())
      GV->eraseFromParent();
}

} // namespace ad
