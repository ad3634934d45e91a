//===- LLVMCompat.h - shims over LLVM API differences -----------*- C++ -*-===//
//
// ADPass targets LLVM 19 first; it also compiles against LLVM 22 (tests not
// yet run there); LLVM 16 is to follow. Every place
// where the API we use differs between those versions goes through a helper
// here, so the rest of the pass reads as plain LLVM 19 code.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_LLVMCOMPAT_H
#define ADPASS_LLVMCOMPAT_H

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include <functional>

// The plugin interface moved from Passes/ to Plugins/ in LLVM 22.
#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

namespace ad {

/// OptimizerEarly callbacks gained a ThinOrFullLTOPhase parameter in
/// LLVM 20; ours do not need it.
using OptimizerEarlyFn =
    std::function<void(llvm::ModulePassManager &, llvm::OptimizationLevel)>;
#if LLVM_VERSION_MAJOR >= 20
inline auto adaptOptimizerEarlyCallback(OptimizerEarlyFn F) {
  return [F](llvm::ModulePassManager &MPM, llvm::OptimizationLevel L,
             llvm::ThinOrFullLTOPhase) { F(MPM, L); };
}
#else
inline OptimizerEarlyFn adaptOptimizerEarlyCallback(OptimizerEarlyFn F) {
  return F;
}
#endif

/// TBAA's result takes whether TypeSanitizer is on since LLVM 20.
#if LLVM_VERSION_MAJOR >= 20
#define AD_TBAA_RESULT_ARGS /*UsingTypeSanitizer=*/ false
#else
#define AD_TBAA_RESULT_ARGS
#endif

/// atan2 is also an intrinsic since LLVM 20 (and clang emits it for the libm
/// call); before, only the call exists.
#if LLVM_VERSION_MAJOR >= 20
inline constexpr llvm::Intrinsic::ID Atan2Intrinsic = llvm::Intrinsic::atan2;
#else
inline constexpr llvm::Intrinsic::ID Atan2Intrinsic =
    llvm::Intrinsic::not_intrinsic;
#endif

/// llvm.sincos and llvm.modf ({result, result} of one argument) exist in
/// newer LLVMs, and clang 22 emits llvm.modf for modf; before, only the
/// calls exist.
#if LLVM_VERSION_MAJOR >= 21
inline constexpr llvm::Intrinsic::ID SincosIntrinsic = llvm::Intrinsic::sincos;
inline constexpr llvm::Intrinsic::ID ModfIntrinsic = llvm::Intrinsic::modf;
#else
inline constexpr llvm::Intrinsic::ID SincosIntrinsic =
    llvm::Intrinsic::not_intrinsic;
inline constexpr llvm::Intrinsic::ID ModfIntrinsic =
    llvm::Intrinsic::not_intrinsic;
#endif

/// SCEVExpander takes the DataLayout from ScalarEvolution since LLVM 22.
inline llvm::SCEVExpander makeSCEVExpander(llvm::ScalarEvolution &SE,
                                           const char *Name) {
#if LLVM_VERSION_MAJOR >= 22
  return llvm::SCEVExpander(SE, Name);
#else
  return llvm::SCEVExpander(SE, SE.getDataLayout(), Name);
#endif
}

/// Marks call argument \p ArgNo of \p CB as not captured: the `nocapture`
/// attribute, `captures(none)` from LLVM 21.
inline void addNoCaptureParamAttr(llvm::CallBase &CB, unsigned ArgNo) {
#if LLVM_VERSION_MAJOR >= 21
  CB.addParamAttr(ArgNo, llvm::Attribute::getWithCaptureInfo(
                             CB.getContext(), llvm::CaptureInfo::none()));
#else
  CB.addParamAttr(ArgNo, llvm::Attribute::NoCapture);
#endif
}

/// Whether \p V is never less than zero (or is a NaN): its argument order
/// changed in LLVM 22.
inline bool cannotBeOrderedLessThanZero(const llvm::Value *V,
                                        const llvm::SimplifyQuery &SQ) {
#if LLVM_VERSION_MAJOR >= 22
  return llvm::cannotBeOrderedLessThanZero(V, SQ);
#else
  return llvm::cannotBeOrderedLessThanZero(V, /*Depth=*/0, SQ);
#endif
}

} // namespace ad

#endif
