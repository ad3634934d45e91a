//===- Activity.h - which arguments of a function carry derivatives -*- C++ -*-===//
//
// An activity signature says, per parameter of a primal function, whether it
// is differentiated. Each (function, signature) pair gets its own derived
// functions, so a helper called once with an active and once with a constant
// argument is specialised twice and no derivative work is wasted.
//
// Value activity inside a function body ("varied" values: those that depend
// on an active argument) is computed here too.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_ACTIVITY_H
#define ADPASS_ACTIVITY_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include <string>

namespace ad {

enum class ArgRole : char {
  Active = 'a', ///< float/double value with a tangent / cotangent
  Const = 'c',  ///< no derivative (AD_CONST, integers)
};

class Activity {
public:
  Activity() = default;
  explicit Activity(llvm::SmallVector<ArgRole, 8> Roles)
      : Roles(std::move(Roles)) {}

  /// Every float/double parameter active, everything else constant: what
  /// __ad_gradient(f, x, y, ...) without annotations asks for.
  static Activity defaultFor(const llvm::Function &F);

  ArgRole role(unsigned ArgNo) const { return Roles[ArgNo]; }
  bool isActive(unsigned ArgNo) const { return Roles[ArgNo] == ArgRole::Active; }
  unsigned size() const { return Roles.size(); }
  unsigned numActive() const;
  /// "ac" for (active, constant): used in derived function names.
  std::string str() const;
  static Activity parse(llvm::StringRef S);
  bool operator==(const Activity &O) const { return Roles == O.Roles; }

private:
  llvm::SmallVector<ArgRole, 8> Roles;
};

/// Types whose values can carry a tangent.
bool isDifferentiableType(const llvm::Type *T);

/// The values of \p F (arguments and instructions) that depend on an active
/// argument through differentiable data flow. Integers never vary: their
/// derivative is zero, so code that only computes integers (indices, branch
/// conditions) never gets tangent code.
llvm::SmallPtrSet<const llvm::Value *, 32>
computeVariedValues(const llvm::Function &F, const Activity &A);

} // namespace ad

#endif
