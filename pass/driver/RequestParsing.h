//===- RequestParsing.h - what a marker call asks for -----------*- C++ -*-===//
//
// What a marker call asks for (docs/api.md): the function to differentiate,
// and its variadic argument list decoded against that function's parameters
// (activity tags, C's default promotions, shadows, tangents) into a Request.
// Every way the list can be wrong is reported at the request; lowering
// (MarkerLowering.h) only ever sees a Request that matches its function.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_REQUESTPARSING_H
#define ADPASS_REQUESTPARSING_H

#include "prepare/Activity.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include <optional>
#include <string>

namespace ad {

class CustomRules;
class Diagnostics;

/// The handle markers (Linearize once, apply many times in docs/api.md).
enum class HandleOp { None, Linearize, Jvp, Vjp };

struct Request {
  llvm::CallBase *Marker = nullptr;
  /// __ad_gradient and __ad_vjp (else __ad_derivative, __ad_jvp and, with
  /// no shadows at all, __ad_linearize)
  bool Reverse = true;
  HandleOp Op = HandleOp::None;
  /// __ad_linearize: where f's result goes (null for a void f);
  /// __ad_jvp / __ad_vjp: the handle.
  llvm::Value *Lead = nullptr;
  /// __ad_vjp of f with a float/double result: its cotangent.
  llvm::Value *Cotangent = nullptr;
  llvm::Function *Fn = nullptr;
  Activity Act;
  llvm::SmallVector<llvm::Value *, 8> Args; ///< one per parameter of Fn
  /// In parameter order: the shadow of each AD_DUP pointer and, in forward
  /// mode, the tangent of each active value (what f.jvp takes after Args;
  /// in reverse mode what f.fwd takes).
  llvm::SmallVector<llvm::Value *, 8> Extras;
  /// Forward mode of a function that returns a struct in memory (sret):
  /// the struct's type. Args[0] and Extras[0], the result and its tangent,
  /// are locals lowerDerivative makes (null until then).
  llvm::Type *ResultInMemory = nullptr;
  /// The call of the lowered request through which an exception of f
  /// leaves it, if f can throw (null until lowered).
  llvm::CallInst *MayUnwind = nullptr;
};

/// Whether \p Name is that of a marker (a request), mangled names aside.
bool isMarkerName(llvm::StringRef Name);
/// Whether \p F is a marker's declaration.
bool isMarker(const llvm::Function &F);
/// A reverse-mode request (__ad_gradient*); the others are forward mode.
bool isGradientMarker(const llvm::CallBase &Marker);
/// Which handle marker \p Marker is, if any.
HandleOp handleOpOf(const llvm::CallBase &Marker);
/// Whether \p CB hands its result back through memory (its first argument),
/// so that the function to differentiate is its second argument.
bool hasSRet(const llvm::CallBase &CB);

/// The function \p Marker asks to differentiate, if it names one.
llvm::Function *requestedFunction(llvm::CallBase &Marker);

/// Marks the arguments of \p Marker's forward-mode calls that are the real
/// half of a _Complex passed whole, for parseRequest to report. Must run on
/// clang's unoptimised code, the only code that still shows it.
void markWholeComplexArguments(llvm::Function &Marker);

/// Decodes \p Marker; null after reporting what is wrong with it.
std::optional<Request> parseRequest(llvm::CallBase &Marker, Diagnostics &Diags,
                                    const CustomRules &Rules);

/// Erases the activity tags' globals (AD_CONST, AD_DUP) once no request
/// uses them.
void eraseUnusedActivityTags(llvm::Module &M);

/// How a C programmer would name an IR type in a message.
std::string cTypeName(llvm::Type *T);

} // namespace ad

#endif
