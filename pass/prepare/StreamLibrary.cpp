//===- StreamLibrary.cpp - C++ stream I/O in differentiated code ----------===//
#include "prepare/StreamLibrary.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Type.h"

using namespace llvm;

namespace ad {

/// The classes whose members carry no derivative, as the demangler spells
/// the start of their names.
static constexpr StringLiteral StreamClasses[] = {
    "std::basic_ios<",
    "std::ostream", // the demangler's abbreviations of the char streams
    "std::istream",
    "std::iostream",
    "std::ios_base",
    "std::basic_ostream<",
    "std::basic_istream<",
    "std::basic_iostream<",
    "std::basic_ofstream<",
    "std::basic_ifstream<",
    "std::basic_fstream<",
    "std::basic_filebuf<",
    "std::basic_streambuf<",
    "std::__cxx11::basic_stringstream<",
    "std::__cxx11::basic_istringstream<",
    "std::__cxx11::basic_ostringstream<",
    "std::__cxx11::basic_stringbuf<",
    "std::__cxx11::basic_string<",
    "std::locale",
    // The strings' allocators, empty classes, whose constructors and
    // destructors libstdc++ defines in the shared library.
    "std::allocator<char>",
    "std::allocator<wchar_t>",
};

/// Free functions of namespace std that take a stream: `<<` and `>>` of
/// characters and strings, std::endl, std::flush, std::ws, and the
/// insertion helper libstdc++ uses for them.
static constexpr StringLiteral StreamFunctions[] = {
    "operator<<", "operator>>",       "endl", "ends", "flush",
    "ws",         "__ostream_insert",
};

namespace {
struct DemangledName {
  std::string Context, Base, Params;
};
} // namespace

static std::optional<DemangledName> demangleFunction(const Function &F) {
  // The demangler points into the name until it is done.
  std::string Mangled = F.getName().str();
  ItaniumPartialDemangler D;
  if (D.partialDemangle(Mangled.c_str()) || !D.isFunction())
    return std::nullopt;
  auto Take = [](char *S) {
    std::string R = S ? S : "";
    std::free(S);
    return R;
  };
  DemangledName N;
  N.Context = Take(D.getFunctionDeclContextName(nullptr, nullptr));
  N.Base = Take(D.getFunctionBaseName(nullptr, nullptr));
  N.Params = Take(D.getFunctionParameters(nullptr, nullptr));
  return N;
}

/// Whether \p Name may name an entity of namespace std (_ZNSt..., _ZNKSo...,
/// _ZSt...): a cheap test before demangling, which most calls fail.
static bool mayBeInStd(StringRef Name) {
  return Name.starts_with("_ZNS") || Name.starts_with("_ZNKS") ||
         Name.starts_with("_ZS");
}

bool isStreamLibraryFunction(const Function &F) {
  if (!F.isDeclaration() || !mayBeInStd(F.getName()))
    return false;
  std::optional<DemangledName> N = demangleFunction(F);
  if (!N)
    return false;
  StringRef Context(N->Context);
  if (llvm::any_of(StreamClasses,
                   [&](StringLiteral C) { return Context.starts_with(C); }))
    return true;
  StringRef Params(N->Params);
  return Context == "std" && llvm::is_contained(StreamFunctions, N->Base) &&
         (Params.contains("std::basic_ostream<") ||
          Params.contains("std::basic_istream<") ||
          Params.contains("std::ostream") || Params.contains("std::istream"));
}

bool isStringBufferAllocationCall(const Value *V) {
  auto *CB = dyn_cast<CallBase>(V);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  return F && F->isDeclaration() &&
         F->getName() == "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE"
                         "9_M_createERmm";
}

Type *streamExtractionTarget(const Function &F) {
  std::optional<DemangledName> N = demangleFunction(F);
  StringRef Context = N ? StringRef(N->Context) : StringRef();
  if (!Context.starts_with("std::basic_istream<") && Context != "std::istream")
    return nullptr;
  StringRef Base(N->Base);
  if (Base != "operator>>" && !Base.starts_with("_M_extract"))
    return nullptr;
  LLVMContext &Ctx = F.getContext();
  StringRef Params(N->Params);
  if (Params == "(double&)")
    return Type::getDoubleTy(Ctx);
  if (Params == "(float&)")
    return Type::getFloatTy(Ctx);
  if (Params == "(long double&)")
    return Type::getX86_FP80Ty(Ctx);
  return nullptr;
}

} // namespace ad
