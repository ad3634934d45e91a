//===- Diagnostics.h - user-facing errors, at the right source line -*- C++
//-*-===//
//
// Errors go through LLVM's diagnostic machinery so clang prints
// "file.c:LINE:COL: error: ..." and exits non-zero.
//
// Where a location comes from:
//  * Marker calls carry clang's !srcloc (ad.h declares them with
//    __attribute__((error))), which clang maps back to the exact line and
//    column without -g. We report through DiagnosticInfoInlineAsm because
//    that is the diagnostic clang resolves !srcloc cookies for.
//  * Instructions inside the function being differentiated have a line only
//    with -g (DebugLoc). Without it the error is reported at the request and
//    names the function, and says that -g gives the exact line.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_DIAGNOSTICS_H
#define ADPASS_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/IR/Instruction.h"

namespace ad {

class Diagnostics {
public:
  explicit Diagnostics(llvm::LLVMContext &Ctx) : Ctx(Ctx) {}

  /// The marker call being lowered; errors found deeper add a note that
  /// points back at it. Null under opt's stage passes without a marker.
  void setRequest(const llvm::Instruction *Marker) { Request = Marker; }

  /// An error about the request itself (arguments, return type, callee).
  void errorAtRequest(const llvm::Twine &Msg);
  /// An error about instruction \p I of a function being differentiated.
  void errorAt(const llvm::Instruction &I, const llvm::Twine &Msg);
  /// A bug in ADPass rather than in the user's program: still a clean error.
  void internalError(const llvm::Instruction *I, const llvm::Twine &Msg);

  unsigned numErrors() const { return NumErrors; }

private:
  void emit(const llvm::Instruction *At, const llvm::Twine &Msg,
            bool IsNote = false);
  llvm::LLVMContext &Ctx;
  const llvm::Instruction *Request = nullptr;
  unsigned NumErrors = 0;
};

} // namespace ad

#endif
