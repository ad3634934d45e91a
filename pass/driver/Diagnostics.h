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

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/Instruction.h"

#include <string>

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

  /// A warning about the request: its derivative works, with a limit.
  void warnAtRequest(const llvm::Twine &Msg);

  unsigned numErrors() const { return NumErrors; }

  /// While one lives, errors are kept here instead of reported (and not
  /// counted): differentiating something that may be given up on, such as
  /// one of the possible targets of a call through a function pointer.
  class Capture {
  public:
    explicit Capture(Diagnostics &D)
        : D(D), Outer(D.Captured), ErrorsBefore(D.NumErrors) {
      D.Captured = this;
    }
    ~Capture() {
      D.Captured = Outer;
      D.NumErrors = ErrorsBefore;
    }
    Capture(const Capture &) = delete;
    Capture &operator=(const Capture &) = delete;
    llvm::ArrayRef<std::string> errors() const { return Kept; }
    /// Warnings kept meanwhile, to report if what was tried is kept.
    llvm::ArrayRef<std::string> warnings() const { return KeptWarnings; }

  private:
    Diagnostics &D;
    Capture *Outer;
    unsigned ErrorsBefore;
    llvm::SmallVector<std::string, 1> Kept;
    llvm::SmallVector<std::string, 1> KeptWarnings;
    friend class Diagnostics;
  };

private:
  enum class Severity { Error, Warning, Note };
  /// Reports \p Msg at \p At; false, printing nothing, when the same error
  /// or warning was already printed at the same place (copies of one
  /// instruction that the optimiser made, an unrolled loop's, fail alike).
  bool emit(const llvm::Instruction *At, const llvm::Twine &Msg,
            Severity Sev = Severity::Error);
  llvm::LLVMContext &Ctx;
  llvm::StringSet<> Printed;
  const llvm::Instruction *Request = nullptr;
  unsigned NumErrors = 0;
  Capture *Captured = nullptr;
};

} // namespace ad

#endif
