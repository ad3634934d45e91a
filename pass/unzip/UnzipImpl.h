//===- UnzipImpl.h - the unzipper, shared by its two files ------*- C++ -*-===//
//
// TapePlan.cpp decides what goes on the tape and where (the static tape, a
// record per loop-block execution, an array per counted loop) and what is
// recomputed instead; Unzip.cpp builds f.fwd and f.lin from that plan.
// Private to the stage.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_UNZIPIMPL_H
#define ADPASS_UNZIPIMPL_H

#include "driver/DerivedFunctions.h"
#include "driver/Differentiator.h"
#include "prepare/Activity.h"
#include "unzip/DisjointAccessChecks.h"
#include "unzip/RereadableLoads.h"
#include "unzip/TapeSummary.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include <memory>

namespace ad {

/// Callee tapes up to this size are fields of the caller's tape; larger
/// ones are pushed on the runtime tape per call.
inline constexpr uint64_t MaxEmbeddedTapeBytes = 4096;

/// Whether math calls (exp, sin) that f.rev could call again are called
/// again (the default) rather than kept on the tape
/// (-ad-recompute-math-calls=0: faster gradients, 8 bytes per call).
bool mathCallsRecomputed();

/// The type of a merge block's predecessor index.
llvm::Type *predIndexType(llvm::LLVMContext &Ctx, unsigned NumPreds);
/// The arguments of a call of g.jvp that g.fwd takes (g's own and the
/// shadows), or (Tangents) those g.lin takes.
llvm::SmallVector<llvm::Value *, 8> calleeArgs(llvm::CallBase &JvpCall,
                                               bool Tangents);

// Private to Unzip.cpp and TapePlan.cpp, which both use namespace llvm.
using namespace llvm;

/// Where a residual, a predecessor index, a callee's tape or a loop's
/// array is kept: a field of the static %f.tape, or of a record.
struct TapeSlot {
  BasicBlock *Record = nullptr; ///< the record's key; null: the static tape
  unsigned Field = 0;
};

/// A loop whose trip count ScalarEvolution knows at its preheader (single
/// latch, which is its only exit). The records of its iterations form one
/// array pushed before the loop: no push per iteration, and neither the
/// header's predecessor nor the latch's exit condition is taped (f.lin and
/// f.rev count iterations instead).
struct ArrayLoop {
  unsigned Id = 0;
  Loop *L = nullptr;
  Value *BackedgeCount = nullptr;  ///< i64, computed at the preheader (Jvp)
  const SCEV *Backedges = nullptr; ///< the same, as ScalarEvolution sees it
};

/// Where a block entering or leaving an array loop finds the loop's array
/// and count. No base when the loop keeps nothing per iteration (there is
/// no array); no count when f.lin and f.rev recompute it from counters and
/// static values (ArrayLoop::Backedges is then isRecomputable).
struct LoopEntry {
  std::optional<TapeSlot> Base, Count;
};

/// What a record field holds, and which block stores it (at its end).
struct RecordStore {
  enum Kind { Residual, PredIndex, CalleeTape, LoopBase, LoopCount } K;
  Value *V = nullptr; ///< the residual or the call (Jvp values)
  const ArrayLoop *AL = nullptr;
  BasicBlock *Block = nullptr;
  unsigned Field = 0;
};

/// Either the record one execution of a loop block pushes, or (Array set)
/// the element of a loop's array that one iteration fills.
struct BlockRecord {
  SmallVector<Type *, 8> Fields;
  SmallVector<RecordStore, 8> Stores;
  StructType *Ty = nullptr;
  const ArrayLoop *Array = nullptr;
  unsigned add(Type *T) {
    Fields.push_back(T);
    return Fields.size() - 1;
  }
};

/// A load f.lin and f.rev compute from the value an earlier counted loop
/// stored to the cell it reads (ForwardedStores.cpp): that value at
/// Iteration of StoreLoop, a function of the counters where it is read.
struct ForwardedLoad {
  StoreInst *Store = nullptr;
  Loop *StoreLoop = nullptr;
  const SCEV *Iteration = nullptr;
};

/// A copy f.fwd makes, before loop nest Nest, of the bytes [Start, End)
/// of Object that loads in the nest read and nothing in it writes
/// (LoadSnapshots.cpp). Start and End are f.jvp values computed at the
/// nest's preheader, Object an allocation call or a local of known size;
/// the static tape keeps the start of what is copied and the copy.
struct Snapshot {
  Loop *Nest = nullptr;
  Value *Start = nullptr, *End = nullptr;
  Instruction *Object = nullptr;
  unsigned StartField = 0, BlockField = 0;
};

/// A load f.lin and f.rev read from a snapshot: the copy's address plus
/// the load's address, recomputed from the counters, less Start.
struct SnapshotRead {
  unsigned Index = 0; ///< in TapeLayout::Snapshots
  const SCEV *Address = nullptr;
};

/// Arithmetic cheap enough that recomputing it in f.rev beats a store and
/// a load of the tape.
bool isCheapToRecompute(const Instruction &I);

struct StoreForwardingAnalyses;

/// A merge block's predecessor index as a function of the condition of the
/// branch that decides it: Cond ? IfTrue : IfFalse.
struct RecomputedPred {
  ICmpInst *Cond = nullptr;
  unsigned IfTrue = 0, IfFalse = 0;
};

/// f.lin's values of the array loops: (base, count) and the iteration
/// counter, by which recomputed values are rebuilt.
struct LoopValues {
  const DenseMap<const ArrayLoop *, std::pair<Value *, Value *>> &Arrays;
  const DenseMap<const ArrayLoop *, PHINode *> &Counters;
};

struct TapeLayout {
  SmallVector<Type *, 16> StaticFields;
  MapVector<Value *, unsigned> StaticResiduals; ///< stored at definition
  SmallVector<RecordStore, 4> StaticStores;     ///< loop entries, at block end
  DenseMap<std::pair<BasicBlock *, Value *>, TapeSlot> Reads;
  /// Residuals f.lin and f.rev recompute from iteration counters and static
  /// values (addresses and indices of counted loops) instead of taping.
  DenseMap<std::pair<BasicBlock *, Value *>, const SCEV *> Recomputed;
  /// Residuals that are cheap arithmetic on other residuals (inside loops)
  /// or on at most one value (outside loops): f.lin (and f.rev) recompute
  /// them from their operands (YOLO §6.1).
  DenseSet<std::pair<BasicBlock *, Value *>> Rematerialized;
  DenseMap<std::pair<BasicBlock *, Value *>, unsigned> RecordFieldOf;
  DenseMap<BasicBlock *, TapeSlot> PredIndex;
  /// Merge blocks whose predecessor f.lin and f.rev recompute from the
  /// branch that decides it (RecomputedPredecessors.cpp) instead of taping.
  DenseMap<BasicBlock *, RecomputedPred> RecomputedPredIndex;
  /// Values computed in a counted loop from which addresses of its inner
  /// loops are recomputed (the base of a buffer swapped every time step):
  /// a field of that loop's record, which the inner blocks read at the
  /// loop's current iteration.
  DenseMap<Value *, TapeSlot> LoopLeaves;
  /// Loads of scratch memory f.lin and f.rev compute from what an earlier
  /// loop stored there, instead of taping (ForwardedStores.cpp).
  DenseMap<std::pair<BasicBlock *, Value *>, ForwardedLoad> Forwarded;
  /// Copies of memory loop nests read and do not write, and the loads
  /// f.lin and f.rev read from them instead of the tape.
  SmallVector<Snapshot, 2> Snapshots;
  DenseMap<std::pair<BasicBlock *, Value *>, SnapshotRead> SnapshotReads;
  DenseMap<CallBase *, TapeSlot> CalleeTapes;
  DenseMap<CallBase *, Unzipped> Callees;
  SmallPtrSet<CallBase *, 4> PushedCallees; ///< tape pushed per call
  MapVector<BasicBlock *, BlockRecord> Records;
  MapVector<AllocaInst *, unsigned> ShadowAllocas; ///< -> static field
  MapVector<Loop *, ArrayLoop> ArrayLoops;
  /// Where block X keeps (base, count) of the array loop it enters (as the
  /// preheader) or leaves (as the exit block).
  DenseMap<std::pair<BasicBlock *, const ArrayLoop *>, LoopEntry> LoopEntries;

  unsigned addStatic(Type *T) {
    StaticFields.push_back(T);
    return StaticFields.size() - 1;
  }
};

class FwdBuilder;
class LinBuilder;

class Unzipper {
public:
  Unzipper(Function &Jvp, Differentiator &D) : Jvp(Jvp), D(D) {}
  std::optional<Unzipped> run();

private:
  /// Builds f.fwd and f.lin in phases (Unzip.cpp); they read the plan and
  /// f.jvp's analyses.
  friend class FwdBuilder;
  friend class LinBuilder;
  friend class RecordResidualPlacer;

  bool planTape();
  /// DT, LI, AC, SE and Reread, for f.jvp as it is now.
  void buildAnalyses();
  bool rejectIrreducibleLoops();
  void findArrayLoops();
  void noteReturnPacking();
  void addLoopEntries();
  LoopEntry addLoopEntry(BasicBlock &X, const ArrayLoop &AL);
  bool planBlock(BasicBlock &BB, SmallVectorImpl<AllocaInst *> &Shadows);
  bool planCallee(BasicBlock &BB, CallBase &CB, Function &Target);
  bool noteControlResidual(BasicBlock &BB, Instruction &Term);
  void placeShadowAllocas(ArrayRef<AllocaInst *> Shadows);
  void finishTapeTypes();
  /// The account of the plan the request reports (TapeSummary.h).
  void summarizeTape();
  void summarizeLoops();
  void summarizeKeptLoads();
  /// The record block \p BB writes to: null (static tape), BB itself, or
  /// the header of the array loop it belongs to.
  BasicBlock *recordKey(BasicBlock *BB) const;
  TapeSlot addStored(BasicBlock &BB, RecordStore S, Type *T);
  void noteResidual(BasicBlock &BB, Value *V);
  bool rebuildableFromArguments(const Instruction &I, unsigned Depth);
  void finalizeRecordResiduals();
  Function *declareFwd();
  Function *declareLin();
  void buildFwd(llvm::Function *Fwd);
  void buildLin(llvm::Function *Lin);
  Value *staticField(IRBuilderBase &B, Value *TapePtr, unsigned Field);
  Value *slotAddress(IRBuilderBase &B, TapeSlot S, Value *TapePtr,
                     Value *Record);
  /// A tangent parameter of f.jvp (linear); shadows are non-linear.
  bool isTangentArg(const Argument &A) const {
    unsigned N = Info.Primal->arg_size();
    return A.getArgNo() >= N &&
           Info.Act.isActive(Info.Act.extraOwners()[A.getArgNo() - N]);
  }
  const ArrayLoop *arrayLoopOf(BasicBlock *BB) const {
    Loop *L = LI->getLoopFor(BB);
    auto It = L ? Layout.ArrayLoops.find(L) : Layout.ArrayLoops.end();
    return It == Layout.ArrayLoops.end() ? nullptr : &It->second;
  }
  bool isArrayLatch(BasicBlock *BB) const {
    const ArrayLoop *AL = arrayLoopOf(BB);
    return AL && AL->L->getLoopLatch() == BB;
  }
  bool isArrayHeader(BasicBlock *BB) const {
    const ArrayLoop *AL = arrayLoopOf(BB);
    return AL && AL->L->getHeader() == BB;
  }

  Function &Jvp;
  Differentiator &D;
  DerivedInfo Info{};
  TapeLayout Layout;
  TapeSummary Summary;
  StructType *TapeTy = nullptr;
  SmallPtrSet<Instruction *, 2> ReturnPacking; // the {y, dy} insertvalues
  /// linearInstructions(f.jvp): planning and building ask about every
  /// instruction and its operands several times (the marks cost 6% of a
  /// -O0 compile of a long function). Instructions f.fwd erases leave it.
  DenseSet<const Value *> LinearInJvp;
  bool isLinear(const Value *V) const { return LinearInJvp.contains(V); }
  void eraseJvpInstruction(Instruction *I) {
    LinearInJvp.erase(I);
    I->eraseFromParent();
  }
  /// When f.fwd takes f.jvp's body (Differentiator::jvpsDisposable),
  /// buildLin moves f.jvp's linear instructions into f.lin instead of
  /// copying them, and notes here the values they leave without a use, for
  /// buildFwd to delete.
  SmallVector<WeakTrackingVH, 32> UnusedInJvp;
  bool isRecomputable(const SCEV *S, BasicBlock &UseBB) const;
  /// The counted loop whose record can hold \p I for \p UseBB, a block of
  /// an inner loop: null unless \p I is computed in that loop, outside
  /// \p UseBB's own, and dominates \p UseBB.
  const ArrayLoop *leafLoop(const Instruction &I, BasicBlock &UseBB) const;
  /// For a handle: \p Read, an address f.lin reads from the tape, with a
  /// placeholder shadow f.fwd computed it from replaced by the caller's
  /// (runtime/Handle.cpp). Other reads as they are.
  Value *rebaseForHandle(IRBuilderBase &B, Value *Read);
  void noteStaticLeaves(const SCEV *S);
  void noteLoopLeaf(Instruction &I);
  Value *emitRecomputed(IRBuilder<> &B, const SCEV *S, Value *TapePtr,
                        const LoopValues &Loops);
  /// In f.lin, at a block entering or leaving \p AL: its iteration count,
  /// recomputed (an instruction, which f.rev rebuilds).
  Instruction *emitRecomputedCount(IRBuilder<> &B, const ArrayLoop &AL,
                                   Value *TapePtr, const LoopValues &Loops);
  /// In f.lin, the element of array loop \p Key's array (\p Key is its
  /// header) for the loop's current iteration: where a block of an inner
  /// loop reads what that loop keeps once per iteration (LoopLeaves).
  Value *currentRecordOf(IRBuilder<> &B, BasicBlock &Key,
                         const LoopValues &Loops);
  /// The predecessor index of merge block \p M, when the branch of its
  /// immediate dominator decides it and its condition is recomputable.
  std::optional<RecomputedPred> recomputablePredIndex(BasicBlock &M);
  Value *emitPredIndex(IRBuilder<> &B, BasicBlock &M, Value *TapePtr,
                       const LoopValues &Loops);

  std::unique_ptr<DominatorTree> DT;
  std::unique_ptr<LoopInfo> LI;
  std::unique_ptr<AssumptionCache> AC;
  std::unique_ptr<ScalarEvolution> SE;
  std::unique_ptr<RereadableLoads> Reread;
  /// The loop nests copied behind run-time checks that their stores and
  /// loads do not overlap (DisjointAccessChecks.h).
  DisjointCopies Disjoint;
  /// The store whose value \p L, read by \p UseBB, reads, when f.rev can
  /// compute that value (ForwardedStores.cpp).
  std::optional<ForwardedLoad> forwardedStore(LoadInst &L, BasicBlock &UseBB);
  /// Whether \p V, a value of F's store loop, can be computed in \p UseBB
  /// for the iteration F names; noteForwarded then plans what it needs.
  bool forwardable(Value &V, const ForwardedLoad &F, BasicBlock &UseBB,
                   unsigned Depth);
  void noteForwarded(Value &V, const ForwardedLoad &F, BasicBlock &UseBB);
  /// Where f.lin and f.rev can read \p L, requested by \p UseBB, from a
  /// copy f.fwd makes before its loop nest (LoadSnapshots.cpp).
  std::optional<SnapshotRead> snapshotRead(LoadInst &L, BasicBlock &UseBB);
  /// The snapshot of [Start, End) before \p Nest: an existing one, or a
  /// new one expanded at its preheader.
  unsigned snapshotOf(Loop &Nest, Instruction &Object, const SCEV *Start,
                      const SCEV *End);
  /// \p S with F's store loop at the iteration F names.
  const SCEV *atStoreIteration(const SCEV *S, const ForwardedLoad &F) const;
  struct StoreForwardingDeleter {
    void operator()(StoreForwardingAnalyses *A) const;
  };
  std::unique_ptr<StoreForwardingAnalyses, StoreForwardingDeleter> Forwarding;
  /// Alias analysis and MemorySSA over f.jvp, built when first asked for.
  StoreForwardingAnalyses &forwardingAnalyses();
  /// BasicAA and TBAA over f.jvp (those of forwardingAnalyses()).
  AAResults &aliasAnalysis();
  /// Whether f.lin and f.rev compute \p I again rather than read it from
  /// the tape: cheap arithmetic, or a load of memory nothing overwrites.
  bool isRecomputedNotTaped(const Instruction &I) const;
  /// (block, value) residuals asked of loop records, in order.
  SetVector<std::pair<BasicBlock *, Value *>> Requests;
  /// Residuals outside loops f.lin and f.rev compute again from arguments
  /// (noteResidual): how many, how deep a chain may be, and at most how
  /// many per function, past which recomputing costs more time than the
  /// tape of one call saves.
  unsigned StaticRebuilt = 0;
  static constexpr unsigned MaxStaticRebuildDepth = 24;
  static constexpr unsigned MaxStaticRebuilt = 256;
  DenseMap<const Instruction *, bool> RebuildableFromArgs;
};

} // namespace ad

#endif
