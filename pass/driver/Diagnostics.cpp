//===- Diagnostics.cpp - user-facing errors -------------------------------===//
#include "driver/Diagnostics.h"
#include "driver/DerivedFunctions.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"

using namespace llvm;

namespace ad {

static bool hasSrcLoc(const Instruction &I) {
  return I.getMetadata("srcloc") != nullptr;
}

/// Where a diagnostic at \p At appears: its srcloc cookie (a request), or
/// its source position, or its function.
static std::string placeOf(const Instruction *At) {
  if (!At)
    return "";
  if (const MDNode *SrcLoc = At->getMetadata("srcloc"))
    return "srcloc " + std::to_string(reinterpret_cast<uintptr_t>(SrcLoc));
  if (const DebugLoc &DL = At->getDebugLoc())
    return DL->getFilename().str() + ":" + std::to_string(DL.getLine()) + ":" +
           std::to_string(DL.getCol());
  return At->getFunction()->getName().str();
}

bool Diagnostics::emit(const Instruction *At, const Twine &Msg, Severity S) {
  if (Captured) {
    if (S == Severity::Error)
      Captured->Kept.push_back(Msg.str());
    else if (S == Severity::Warning)
      Captured->KeptWarnings.push_back(Msg.str());
    return true;
  }
  if (S != Severity::Note &&
      !Printed
           .insert(placeOf(At) + (S == Severity::Error ? " E " : " W ") +
                   Msg.str())
           .second)
    return false;
  DiagnosticSeverity Sev = S == Severity::Note      ? DS_Note
                           : S == Severity::Warning ? DS_Warning
                                                    : DS_Error;
  if (At && hasSrcLoc(*At)) {
    Ctx.diagnose(DiagnosticInfoInlineAsm(*At, Msg, Sev));
    return true;
  }
  if (S == Severity::Note) // A note without a location says nothing useful.
    return true;
  if (At) {
    Ctx.diagnose(DiagnosticInfoUnsupported(*At->getFunction(), Msg,
                                           At->getDebugLoc(), Sev));
    return true;
  }
  // Location cookie 0: no source line.
  Ctx.diagnose(DiagnosticInfoInlineAsm(0, Msg, Sev));
  return true;
}

void Diagnostics::errorAtRequest(const Twine &Msg) {
  ++NumErrors;
  emit(Request, Msg);
}

void Diagnostics::warnAtRequest(const Twine &Msg) {
  emit(Request, Msg, Severity::Warning);
}

void Diagnostics::errorAt(const Instruction &I, const Twine &Msg) {
  ++NumErrors;
  if (Captured) { // kept for a message elsewhere: say where it arose
    std::string Where = " (in function '" + displayName(*I.getFunction()) + "'";
    if (const DebugLoc &DL = I.getDebugLoc())
      Where += ", line " + std::to_string(DL.getLine());
    Captured->Kept.push_back((Msg + Where + ")").str());
    return;
  }
  // With -g the instruction's own line is the best place. Without it, clang
  // could only point at the enclosing function, so point at the request and
  // name the function instead.
  if (I.getDebugLoc() || !Request) {
    if (emit(&I, Msg) && Request && Request != &I)
      emit(Request, "derivative requested here", Severity::Note);
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
