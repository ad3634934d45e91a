//===- RevAliasScopes.cpp - what f.rev's memory accesses cannot alias -----===//
#include "transpose/RevAliasScopes.h"
#include "ir/Linearity.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace ad {

static constexpr const char *ShadowAccessMD = "ad.rev.shadow";
static constexpr const char *NonLinearReadMD = "ad.rev.read";
static constexpr const char *RecordArrayMD = "ad.rev.records";

void markShadowAccess(Instruction &I) { markWith(&I, ShadowAccessMD); }
void markNonLinearRead(Instruction &I) { markWith(&I, NonLinearReadMD); }
void markRecordArray(Instruction &I) { markWith(&I, RecordArrayMD); }

/// Whether every object \p Load may read is a tape record: popped by f.rev,
/// an array of a loop's records, or f.rev's own tape parameter (a record its
/// caller popped, or the caller's frame). Shadows of records
/// (__ad_tape_shadow) are elsewhere. An undefined pointer is what a
/// promoted slot holds on paths that do not reach the load (a loop's array
/// before the loop is entered).
static bool readsTapeOnly(LoadInst &Load, Function &Rev,
                          const SmallPtrSetImpl<const Value *> &Arrays) {
  SmallVector<const Value *, 4> Objects;
  getUnderlyingObjects(Load.getPointerOperand(), Objects);
  bool AnyRecord = false;
  for (const Value *O : Objects) {
    if (isa<UndefValue>(O))
      continue;
    if (O != Rev.getArg(0) && !Arrays.count(O) && !isTapeCall(O, TapeOp::Pop) &&
        !isTapeCall(O, TapeOp::Read))
      return false;
    AnyRecord = true;
  }
  return AnyRecord;
}

/// The values marked as arrays of records, their marks removed.
static SmallPtrSet<const Value *, 8> takeRecordArrays(Function &Rev) {
  unsigned Kind = Rev.getContext().getMDKindID(RecordArrayMD);
  SmallPtrSet<const Value *, 8> Arrays;
  for (Instruction &I : instructions(Rev))
    if (I.getMetadata(Kind)) {
      I.setMetadata(Kind, nullptr);
      Arrays.insert(&I);
    }
  return Arrays;
}

namespace {
/// The scope lists of one f.rev, made on first use.
class RevScopes {
public:
  explicit RevScopes(Function &Rev) : Rev(Rev) {}
  MDNode *shadow() { return make(), Shadow; }
  MDNode *tape() { return make(), Tape; }

private:
  void make() {
    if (Shadow)
      return;
    MDBuilder MDB(Rev.getContext());
    MDNode *Domain = MDB.createAnonymousAliasScopeDomain(Rev.getName());
    Shadow = MDNode::get(Rev.getContext(),
                         {MDB.createAnonymousAliasScope(Domain, "shadow")});
    Tape = MDNode::get(Rev.getContext(),
                       {MDB.createAnonymousAliasScope(Domain, "tape")});
  }
  Function &Rev;
  MDNode *Shadow = nullptr, *Tape = nullptr;
};
} // namespace

void scopeRevMemory(Function &Rev) {
  LLVMContext &Ctx = Rev.getContext();
  unsigned ShadowKind = Ctx.getMDKindID(ShadowAccessMD);
  unsigned ReadKind = Ctx.getMDKindID(NonLinearReadMD);
  SmallPtrSet<const Value *, 8> Arrays = takeRecordArrays(Rev);
  RevScopes Scopes(Rev);
  for (Instruction &I : instructions(Rev)) {
    if (I.getMetadata(ShadowKind)) {
      I.setMetadata(ShadowKind, nullptr);
      // Not a tape record: records are the runtime's.
      I.setMetadata(LLVMContext::MD_alias_scope, Scopes.shadow());
      I.setMetadata(LLVMContext::MD_noalias, Scopes.tape());
      continue;
    }
    if (!I.getMetadata(ReadKind))
      continue;
    I.setMetadata(ReadKind, nullptr);
    auto *Load = dyn_cast<LoadInst>(&I);
    if (!Load)
      continue;
    if (readsTapeOnly(*Load, Rev, Arrays)) {
      I.setMetadata(LLVMContext::MD_alias_scope, Scopes.tape());
      I.setMetadata(LLVMContext::MD_noalias, Scopes.shadow());
    } else if (Load->getType()->isFPOrFPVectorTy()) {
      // A primal value. Only floating point: a pointer f.rev loads again
      // may be a shadow pointer read from the shadow of a pointer cell,
      // which shadow accesses reach too.
      I.setMetadata(LLVMContext::MD_noalias, Scopes.shadow());
    }
  }
}

} // namespace ad
