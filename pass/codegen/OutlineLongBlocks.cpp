//===- OutlineLongBlocks.cpp - bounded basic blocks in derived code -------===//
#include "codegen/OutlineLongBlocks.h"
#include "driver/DerivedFunctions.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/CodeExtractor.h"

#define DEBUG_TYPE "ad"

using namespace llvm;

STATISTIC(NumOutlinedRuns, "Runs of long derived blocks moved to functions");
STATISTIC(NumSchedBarriers, "Compiler barriers that bound the machine "
                            "scheduler's windows in long derived blocks");
STATISTIC(NumSlpSkipped, "Runs of the SLP vectorizer skipped on long blocks "
                         "of derived code");

static cl::opt<unsigned> BlockThreshold(
    "ad-outline-block-threshold", cl::init(8000), cl::Hidden,
    cl::desc("Outline parts of derived basic blocks longer than this many "
             "instructions (0: never)"));
static cl::opt<unsigned> RunLength(
    "ad-outline-run-length", cl::init(3000), cl::Hidden,
    cl::desc("Instructions per outlined run of a long derived block"));
static cl::opt<unsigned> SchedWindow(
    "ad-sched-window", cl::init(256), cl::Hidden,
    cl::desc("In blocks of derived code longer than "
             "-ad-sched-window-threshold instructions, a compiler barrier "
             "after every this many memory accesses (0: never)"));
static cl::opt<unsigned> SchedWindowThreshold(
    "ad-sched-window-threshold", cl::init(1000), cl::Hidden,
    cl::desc("Blocks of derived code longer than this many instructions "
             "get compiler barriers (-ad-sched-window)"));
static cl::opt<unsigned> SlpBlockLimit(
    "ad-slp-block-limit", cl::init(2000), cl::Hidden,
    cl::desc("Skip the SLP vectorizer on functions holding derived code "
             "with a block longer than this many instructions (0: never)"));

/// On functions that hold derived code without being derived: outlined
/// runs and the functions whose markers were lowered.
static constexpr const char *HoldsDerivedCodeAttr = "ad-holds-derived-code";

namespace ad {

/// Cuts \p BB into runs of RunLength instructions and returns the new
/// blocks in order: BB keeps the first run, the last new block ends in BB's
/// terminator, the others in a cut's branch. Cut from the end backwards, so
/// that each split moves only one run.
static SmallVector<BasicBlock *, 16> cutIntoRuns(BasicBlock &BB) {
  SmallVector<Instruction *, 16> Cuts;
  unsigned K = 0;
  for (Instruction &I : make_range(BB.getFirstInsertionPt(), BB.end()))
    if (++K % RunLength == 0 && !I.isTerminator())
      Cuts.push_back(&I);
  SmallVector<BasicBlock *, 16> Runs;
  for (Instruction *Cut : reverse(Cuts))
    Runs.push_back(BB.splitBasicBlock(Cut, BB.getName() + ".run"));
  std::reverse(Runs.begin(), Runs.end());
  return Runs;
}

/// Whether \p I must stay in its function: it means something only in its
/// own frame (moved into a callee, it would do something else), or it
/// makes or takes a token, which cannot cross a call. CodeExtractor itself
/// refuses allocas, invokes and varargs intrinsics.
static bool mustStayInFunction(const Instruction &I) {
  if (I.getType()->isTokenTy() || any_of(I.operands(), [](const Use &U) {
        return U->getType()->isTokenTy();
      }))
    return true;
  if (const auto *II = dyn_cast<IntrinsicInst>(&I)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::stacksave:
    case Intrinsic::stackrestore:
    case Intrinsic::frameaddress:
    case Intrinsic::returnaddress:
    case Intrinsic::addressofreturnaddress:
    case Intrinsic::sponentry:
    case Intrinsic::localescape:
      return true;
    default:
      return false;
    }
  }
  const auto *CB = dyn_cast<CallBase>(&I);
  return CB && (CB->hasFnAttr(Attribute::ReturnsTwice) || CB->isMustTailCall());
}

/// Gives \p Run its own copy of every address it uses that is computed
/// outside it at constant offsets (shadow cells, tape fields): recomputing
/// one costs an add, passing it costs a stack slot in every call. Done for
/// all runs before any is extracted (the last too, which stays), so that an
/// address computed in one run and used in a later one does not become a
/// result of the first.
static void rematerializeAddresses(BasicBlock &Run) {
  SmallDenseMap<GetElementPtrInst *, Instruction *, 32> Copies;
  BasicBlock::iterator Top = Run.getFirstInsertionPt();
  for (Instruction &I : make_range(Top, Run.end()))
    for (Use &U : I.operands()) {
      auto *Address = dyn_cast<GetElementPtrInst>(U.get());
      if (!Address || Address->getParent() == &Run ||
          !Address->hasAllConstantIndices())
        continue;
      Instruction *&Copy = Copies[Address];
      if (!Copy) {
        Copy = Address->clone();
        Copy->insertBefore(Top);
        Copy->setName(Address->getName());
      }
      U.set(Copy);
    }
}

SmallVector<Function *, 8> outlineLongBlocks(Function &F) {
  // optnone: the user asked for this function to be left as it is.
  if (BlockThreshold == 0 || RunLength == 0 || F.isDeclaration() ||
      F.hasOptNone())
    return {};
  SmallVector<BasicBlock *, 4> Long;
  for (BasicBlock &BB : F)
    if (BB.sizeWithoutDebug() > BlockThreshold)
      Long.push_back(&BB);
  if (Long.empty())
    return {};
  // The runs between the first and the last of each block are outlined;
  // those two stay, with the phis and allocas and with the terminator.
  SmallVector<BasicBlock *, 16> Runs;
  for (BasicBlock *BB : Long) {
    SmallVector<BasicBlock *, 16> New = cutIntoRuns(*BB);
    for (BasicBlock *Run : New)
      rematerializeAddresses(*Run);
    if (!New.empty())
      Runs.append(New.begin(), New.end() - 1);
  }

  CodeExtractorAnalysisCache CEAC(F);
  SmallVector<Function *, 8> Outlined;
  for (BasicBlock *Run : Runs) {
    if (any_of(*Run, mustStayInFunction))
      continue;
    CodeExtractor CE({Run}, /*DT=*/nullptr, /*AggregateArgs=*/false,
                     /*BFI=*/nullptr, /*BPI=*/nullptr, /*AC=*/nullptr,
                     /*AllowVarArgs=*/false, /*AllowAlloca=*/false,
                     /*AllocationBlock=*/nullptr, "run");
    if (!CE.isEligible())
      continue;
    Function *Part = CE.extractCodeRegion(CEAC);
    if (!Part)
      continue;
    // The inliner must not put the run back (e.g. at link time), and the
    // run is a part of a derived function, not one itself: CodeExtractor
    // copied the attributes that say what F was derived from.
    Part->addFnAttr(Attribute::NoInline);
    untagDerived(*Part);
    noteHoldsDerivedCode(*Part);
    Outlined.push_back(Part);
  }
  NumOutlinedRuns += Outlined.size();
  return Outlined;
}

void boundSchedulingWindows(Function &F) {
  if (SchedWindow == 0 || F.isDeclaration() || F.hasOptNone())
    return;
  for (BasicBlock &BB : F) {
    if (BB.sizeWithoutDebug() <= SchedWindowThreshold)
      continue;
    unsigned Accesses = 0;
    for (Instruction &I : make_early_inc_range(BB)) {
      // A call is a barrier to the scheduler already.
      if (isa<CallBase>(I) && !isa<IntrinsicInst>(I)) {
        Accesses = 0;
        continue;
      }
      if (!I.mayReadOrWriteMemory() || ++Accesses < SchedWindow ||
          I.isTerminator())
        continue;
      new FenceInst(F.getContext(), AtomicOrdering::SequentiallyConsistent,
                    SyncScope::SingleThread, std::next(I.getIterator()));
      ++NumSchedBarriers;
      Accesses = 0;
    }
  }
}

void noteHoldsDerivedCode(Function &F) { F.addFnAttr(HoldsDerivedCodeAttr); }

static cl::opt<bool> SlpOnReverse(
    "ad-slp-on-reverse", cl::init(false), cl::Hidden,
    cl::desc("Run the SLP vectorizer on reverse passes (f.rev) too"));

bool skipSlpOn(const Function &F) {
  std::optional<DerivedInfo> Info = getDerivedInfo(F);
  if (!SlpOnReverse && Info && Info->Kind == DerivedKind::Rev)
    return true;
  if (SlpBlockLimit == 0 || !(F.hasFnAttribute(HoldsDerivedCodeAttr) || Info))
    return false;
  return any_of(F, [](const BasicBlock &BB) {
    return BB.sizeWithoutDebug() > SlpBlockLimit;
  });
}

void registerSlpGuard(PassInstrumentationCallbacks &PIC) {
  PIC.registerShouldRunOptionalPassCallback([](StringRef PassID, Any IR) {
    if (PassID != "SLPVectorizerPass")
      return true;
    const auto *F = any_cast<const Function *>(&IR);
    if (!F || !skipSlpOn(**F))
      return true;
    ++NumSlpSkipped;
    return false;
  });
}

} // namespace ad
