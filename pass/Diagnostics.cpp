//===- Diagnostics.cpp - user-facing errors -------------------------------===//
#include "Diagnostics.h"
#include "DerivedFunctions.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"

using namespace llvm;

namespace ad {

static bool hasSrcLoc(const Instruction &I) {
  return I.getMetadata("srcloc") != nullptr;
}

void Diagnostics::emit(const Instruction *At, const Twine &Msg, bool IsNote) {
  DiagnosticSeverity Sev = IsNote ? DS_Note : DS_Error;
  if (At && hasSrcLoc(*At)) {
    Ctx.diagnose(DiagnosticInfoInlineAsm(*At, Msg, Sev));
    return;
  }
  if (IsNote) // A note without a location says nothing useful.
    return;
  if (At) {
    Ctx.diagnose(DiagnosticInfoUnsupported(*At->getFunction(), Msg,
                                           At->getDebugLoc(), Sev));
    return;
  }
  // Location cookie 0: no source line.
  Ctx.diagnose(DiagnosticInfoInlineAsm(0, Msg, Sev));
}

void Diagnostics::errorAtRequest(const Twine &Msg) {
  ++NumErrors;
  emit(Request, Msg);
}

void Diagnostics::errorAt(const Instruction &I, const Twine &Msg) {
  ++NumErrors;
  // With -g the instruction's own line is the best place. Without it, clang
  // could only point at the enclosing function, so point at the request and
  // name the function instead.
  if (I.getDebugLoc() || !Request) {
    emit(&I, Msg);
    if (Request && Request != &I)
      emit(Request, "derivative requested here", /*IsNote=*/true);
    return;
  }
  emit(Request, Msg + " (in function '" + displayName(*I.getFunction()) +
                    "'; compile with -g to see its line)");
}

void Diagnostics::internalError(const Instruction *I, const Twine &Msg) {
  std::string Full = ("ADPass internal error: " + Msg +
                      " (please report this with the input program)")
                         .str();
  if (I) {
    errorAt(*I, Full);
    return;
  }
  ++NumErrors;
  emit(Request, Full);
}

} // namespace ad
