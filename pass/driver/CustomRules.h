//===- CustomRules.h - AD_CUSTOM_JVP, AD_INACTIVE, AD_SHADOW ----*- C++ -*-===//
//
// Users extend ADPass from their source (ad.h): AD_CUSTOM_JVP(f, f_jvp)
// gives f a forward rule, AD_INACTIVE(g) says g carries no derivative,
// AD_SHADOW(g, dg) gives a global that holds pointers a shadow (used by
// GlobalShadows). The macros leave constant globals that this file reads,
// then deletes.
//
// A custom forward rule is all ADPass needs (YOLO's extensibility claim):
// f.jvp is built from f_jvp's body, with every instruction that depends on
// a tangent marked linear, and Unzip and Transpose derive the reverse rule
// from it. If f_jvp is not linear in its tangents, the linearity checker
// finds the instruction and the error names its line.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_CUSTOMRULES_H
#define ADPASS_CUSTOMRULES_H

#include "prepare/Activity.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Module.h"

namespace ad {

class Differentiator;

class CustomRules {
public:
  /// Reads the registrations of \p M.
  explicit CustomRules(llvm::Module &M);
  /// Deletes the registration globals (once derivatives are built).
  static void eraseRegistrations(llvm::Module &M);

  llvm::Function *customJvp(const llvm::Function &F) const {
    return Jvps.lookup(&F);
  }
  bool isInactive(const llvm::Function &F) const { return Inactive.count(&F); }
  /// Registered with AD_CHECKPOINT: reverse mode recomputes its calls.
  bool isCheckpointed(const llvm::Function &F) const {
    return Checkpointed.count(&F);
  }
  /// The globals given a shadow with AD_SHADOW(g, dg), and their shadows.
  const llvm::DenseMap<llvm::GlobalVariable *, llvm::GlobalVariable *> &
  declaredShadows() const {
    return Shadows;
  }

private:
  llvm::DenseMap<const llvm::Function *, llvm::Function *> Jvps;
  llvm::SmallPtrSet<const llvm::Function *, 4> Inactive;
  llvm::SmallPtrSet<const llvm::Function *, 4> Checkpointed;
  llvm::DenseMap<llvm::GlobalVariable *, llvm::GlobalVariable *> Shadows;

  void addDeclaredShadow(llvm::Constant *Registration);
};

/// At the start of the pipeline: functions with a custom JVP, declared
/// inactive or checkpointed keep their calls (NoInline). Inlined into the
/// function being differentiated, their bodies would be differentiated instead
/// of their rules (a straight-through estimator's floor gave 0).
void keepRuledFunctionsOutOfLine(llvm::Module &M);

/// Builds F.jvp for activity \p A from the user's forward rule \p UserJvp.
/// Null after reporting (a wrong signature, or a rule not linear in its
/// tangents).
llvm::Function *buildCustomJvp(llvm::Function &F, const Activity &A,
                               llvm::Function &UserJvp, Differentiator &D,
                               const llvm::Instruction *CallSite);

} // namespace ad

#endif
