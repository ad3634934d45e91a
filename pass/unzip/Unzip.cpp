//===- Unzip.cpp - f.jvp -> f.fwd + %f.tape + f.lin -----------------------===//
//
// Unzipping splits f.jvp, whose instructions are marked linear (tangent
// code) or not (primal code), into f.fwd, which runs the primal code and
// fills a tape, and f.lin, which runs the tangent code on what the tape
// holds. Transposing f.lin then gives f.rev, which reads the same tape.
//
// The algorithm:
//
// 1. Plan the tape (TapePlan.cpp). A residual is a non-linear value that
//    linear code, or a branch or switch f.lin must follow, reads. Each is
//    either taped (f.fwd stores it, f.lin loads it) or recomputed in f.lin:
//    from iteration counters, when it is affine in the counters of the
//    counted loops around its reader (addresses and indices), or from its
//    operands, when it is cheap arithmetic on values that are taped or free
//    anyway. Loads, calls and PHIs other than induction variables are
//    always taped.
//
// 2. The tape has three kinds of storage:
//    a. the static %f.tape struct, which the caller allocates: residuals
//       computed outside every loop, shadows of locals, the tapes of callees
//       called outside loops (up to MaxEmbeddedTapeBytes);
//    b. one array per counted loop (trip count known at its preheader,
//       single latch that is its only exit): f.fwd pushes it before the
//       loop, one element per iteration, and f.lin indexes it with an
//       iteration counter instead of taping the loop's branches;
//    c. one record per execution of any other loop block, pushed on the
//       runtime tape at the block's end: the residuals, the index of the
//       predecessor a merge block came from, pushed callee tapes.
//
// 3. Build f.lin (LinBuilder, UnzipLin.cpp), first, since f.fwd may take
// f.jvp's body:
//    a block per f.jvp block, in reverse post-order; each reads its record
//    (or array element), loop arrays and predecessor index on entry, then
//    copies (or moves) f.jvp's linear instructions, their non-linear
//    operands loaded from the tape or recomputed once per block; g.jvp
//    calls become g.lin calls on g's tape; array latches count iterations.
//
// 4. Build f.fwd (FwdBuilder, UnzipFwd.cpp): f.jvp's body, taken over or
// cloned, stores
//    static residuals where they are defined, moves local shadows into the
//    tape, records predecessor indices, turns g.jvp calls into g.fwd calls,
//    pushes loop arrays and counts their iterations, stores every record at
//    the end of its block, returns the primal result only, and drops the
//    linear code and what only it used.
//
//===----------------------------------------------------------------------===//
#include "unzip/Unzip.h"
#include "UnzipImpl.h"
#include "driver/DerivedFunctions.h"
#include "driver/OpenMPRegions.h"
#include "ir/Linearity.h"
#include "ir/ShadowMemory.h"
#include "linearize/Linearize.h"
#include "unzip/Checkpoint.h"
#include "unzip/DeadTangents.h"
#include "unzip/HandleShadows.h"
#include "unzip/PrivateShadowCells.h"
#include "unzip/TapeRuntime.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Debug.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"

#define DEBUG_TYPE "ad-unzip"

using namespace llvm;

STATISTIC(NumUnzipped, "Number of JVP functions unzipped");

namespace ad {

SmallVector<BasicBlock *, 4> predecessorsInLayoutOrder(BasicBlock &BB) {
  SmallPtrSet<BasicBlock *, 4> Preds(pred_begin(&BB), pred_end(&BB));
  SmallVector<BasicBlock *, 4> Ordered;
  for (BasicBlock &Candidate : *BB.getParent())
    if (Preds.count(&Candidate))
      Ordered.push_back(&Candidate);
  return Ordered;
}

Type *predIndexType(LLVMContext &Ctx, unsigned NumPreds) {
  return NumPreds <= 256 ? Type::getInt8Ty(Ctx) : Type::getInt32Ty(Ctx);
}

/// Splits the arguments of a call of g.jvp: g's own arguments and the
/// shadows (for g.fwd), or the tangents (for g.lin).
SmallVector<Value *, 8> calleeArgs(CallBase &JvpCall, bool Tangents) {
  auto Info = getDerivedInfo(*JvpCall.getCalledFunction());
  unsigned N = Info->Primal->arg_size();
  SmallVector<Value *, 8> Out;
  if (!Tangents)
    Out.append(JvpCall.arg_begin(), JvpCall.arg_begin() + N);
  SmallVector<unsigned, 8> Owners = Info->Act.extraOwners();
  for (unsigned K = 0; K < Owners.size(); ++K)
    if (Info->Act.isActive(Owners[K]) == Tangents)
      Out.push_back(JvpCall.getArgOperand(N + K));
  return Out;
}

Value *Unzipper::staticField(IRBuilderBase &B, Value *TapePtr, unsigned Field) {
  return B.CreateStructGEP(TapeTy, TapePtr, Field);
}

Value *Unzipper::slotAddress(IRBuilderBase &B, TapeSlot S, Value *TapePtr,
                             Value *Record) {
  if (!S.Record)
    return staticField(B, TapePtr, S.Field);
  return B.CreateStructGEP(Layout.Records[S.Record].Ty, Record, S.Field);
}

std::optional<Unzipped> unzip(Function &Jvp, Differentiator &D) {
  auto Info = getDerivedInfo(Jvp);
  assert(Info && Info->Kind == DerivedKind::Jvp && "unzip expects f.jvp");
  Module &M = *Jvp.getParent();
  Function *Fwd = findDerived(M, *Info->Primal, DerivedKind::Fwd, Info->Act);
  Function *Lin = findDerived(M, *Info->Primal, DerivedKind::Lin, Info->Act);
  if (Fwd && Lin)
    return Unzipped{
        Fwd, Lin,
        StructType::getTypeByName(
            M.getContext(), derivedName(*Info->Primal, "tape", Info->Act))};
  // Before anything reads which values linear code needs.
  dropDeadTangents(Jvp);
  if (Info->Act.checkpoint())
    return unzipCheckpointed(Jvp, D);
  if (isParallelRegion(*Info->Primal))
    markPrivateShadowCells(Jvp, D.tli(Jvp));
  Unzipper U(Jvp, D);
  return U.run();
}

std::optional<Unzipped> Unzipper::run() {
  Info = *getDerivedInfo(Jvp);
  // Declared before planning: a recursive call finds them (and the tape,
  // still opaque) and pushes a tape per call instead of embedding it.
  TapeTy = StructType::create(Jvp.getContext(),
                              derivedName(*Info.Primal, "tape", Info.Act));
  Function *Fwd = declareFwd();
  D.noteGenerated(Fwd);
  Function *Lin = declareLin();
  D.noteGenerated(Lin);
  if (Info.Act.forHandle() && !prepareHandleShadows(Jvp, D))
    return std::nullopt;
  if (!planTape())
    return std::nullopt;
  // f.lin first: it reads f.jvp, whose body f.fwd may take over.
  buildLin(Lin);
  buildFwd(Fwd);
  capTapeAccessAlignment(*Fwd, Fwd->getArg(Fwd->arg_size() - 1));
  capTapeAccessAlignment(*Lin, Lin->getArg(0));
  retargetShadowsToReverse(*Fwd, Info.Act.level());
  if (!D.verifyLinearity(*Fwd) || !D.verifyLinearity(*Lin))
    return std::nullopt;
  ++NumUnzipped;
  D.setTapeSummary(*Fwd, std::move(Summary));
  return Unzipped{Fwd, Lin, TapeTy};
}

} // namespace ad
