//===- TapeRuntime.cpp - calls of libADRuntime that generated code makes --===//
#include "unzip/TapeRuntime.h"
#include "driver/DerivedFunctions.h"
#include "ir/Linearity.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ad {

static StringRef tapeFunctionName(TapeOp Op) {
  switch (Op) {
  case TapeOp::Push:
    return "__ad_tape_push";
  case TapeOp::Read:
    return "__ad_tape_read";
  case TapeOp::Pop:
    return "__ad_tape_pop";
  }
  llvm_unreachable("unknown tape operation");
}

/// The runtime's function for \p Op on the tape of nesting level \p Level
/// > 0, which takes the level first.
static std::string levelFunctionName(TapeOp Op) {
  return (tapeFunctionName(Op) + "_at").str();
}

/// The nesting level of the derived code \p B builds: each level has a
/// tape of its own (ad_runtime.h).
static unsigned tapeLevel(IRBuilderBase &B) {
  auto Info = getDerivedInfo(*B.GetInsertBlock()->getParent());
  return Info ? Info->Act.level() : 0;
}

/// Whether \p V is the tape \p TapePtr or a record the runtime returned.
static bool isTapeMemory(const Value *V, const Value *TapePtr) {
  if (V == TapePtr)
    return true;
  const auto *CB = dyn_cast<CallBase>(V);
  const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
  if (!Callee)
    return false;
  StringRef Name = Callee->getName();
  return llvm::any_of(
      std::initializer_list<TapeOp>{TapeOp::Push, TapeOp::Read, TapeOp::Pop},
      [&](TapeOp Op) { return Name.starts_with(tapeFunctionName(Op)); });
}

void capTapeAccessAlignment(Function &F, Value *TapePtr) {
  for (Instruction &I : instructions(F)) {
    Value *Ptr = getLoadStorePointerOperand(&I);
    if (!Ptr || getLoadStoreAlignment(&I).value() <= TapeAlignment)
      continue;
    SmallVector<const Value *, 4> Objects;
    getUnderlyingObjects(Ptr, Objects);
    if (llvm::any_of(Objects, [&](const Value *O) {
          return isTapeMemory(O, TapePtr);
        })) {
      if (auto *LI = dyn_cast<LoadInst>(&I))
        LI->setAlignment(Align(TapeAlignment));
      else
        cast<StoreInst>(I).setAlignment(Align(TapeAlignment));
    }
  }
}

static void setTapeFunctionAttributes(FunctionCallee FC, LLVMContext &Ctx) {
  if (auto *F = dyn_cast<Function>(FC.getCallee())) {
    // Not willreturn: they abort (with a message) when memory runs out.
    F->setDoesNotThrow();
    F->addRetAttr(Attribute::getWithAlignment(Ctx, Align(TapeAlignment)));
    // Never noalias: a pushed record looks like an allocation nobody reads,
    // and DSE would delete the stores that f.rev reads back through pop.
  }
}

/// Calls the runtime's function for \p Op on \p Size bytes, on the tape of
/// the level of the code \p B builds.
static CallInst *callTapeFunction(IRBuilderBase &B, TapeOp Op, Value *Size,
                                  const Twine &Name = "") {
  Module &M = *B.GetInsertBlock()->getModule();
  LLVMContext &Ctx = M.getContext();
  Type *SizeTy = M.getDataLayout().getIntPtrType(Ctx);
  Type *PtrTy = PointerType::getUnqual(Ctx);
  unsigned Level = tapeLevel(B);
  if (Level == 0) {
    FunctionCallee FC = M.getOrInsertFunction(
        tapeFunctionName(Op), FunctionType::get(PtrTy, {SizeTy}, false));
    setTapeFunctionAttributes(FC, Ctx);
    return B.CreateCall(FC, {Size}, Name);
  }
  FunctionCallee FC = M.getOrInsertFunction(
      levelFunctionName(Op),
      FunctionType::get(PtrTy, {B.getInt32Ty(), SizeTy}, false));
  setTapeFunctionAttributes(FC, Ctx);
  return B.CreateCall(FC, {B.getInt32(Level), Size}, Name);
}

/// Calls the runtime's cursor function \p Name (its _at form, given the
/// level first, for derived code of an outer nesting level) on \p Position,
/// or without an argument when it returns a position.
static CallInst *callCursorFunction(IRBuilderBase &B, StringRef Name,
                                    Value *Position) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *PtrTy = PointerType::getUnqual(M.getContext());
  SmallVector<Type *, 2> Params;
  SmallVector<Value *, 2> Args;
  unsigned Level = tapeLevel(B);
  if (Level) {
    Params.push_back(B.getInt32Ty());
    Args.push_back(B.getInt32(Level));
  }
  if (Position) {
    Params.push_back(PtrTy);
    Args.push_back(Position);
  }
  FunctionCallee FC = M.getOrInsertFunction(
      Level ? (Name + "_at").str() : Name.str(),
      FunctionType::get(Position ? B.getVoidTy() : PtrTy, Params, false));
  if (auto *F = dyn_cast<Function>(FC.getCallee()))
    F->setDoesNotThrow();
  return B.CreateCall(FC, Args);
}

Value *emitTapeMark(IRBuilderBase &B) {
  return callCursorFunction(B, "__ad_tape_mark", nullptr);
}

Value *emitTapeReadPosition(IRBuilderBase &B) {
  return callCursorFunction(B, "__ad_tape_read_position", nullptr);
}

void emitTapeSeek(IRBuilderBase &B, Value *Position) {
  callCursorFunction(B, "__ad_tape_seek", Position);
}

void emitTapePopTo(IRBuilderBase &B, Value *Mark) {
  callCursorFunction(B, "__ad_tape_pop_to", Mark);
}

/// The size of a tape or record type. A tape still being laid out (that of
/// a function whose unzipping is in progress: mutual recursion) is opaque;
/// its size is read from a constant global set once its layout is known.
static Value *sizeOf(IRBuilderBase &B, Type *T) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  if (T->isSized())
    return ConstantInt::get(SizeTy, M.getDataLayout().getTypeAllocSize(T));
  auto *ST = cast<StructType>(T);
  std::string Name = (ST->getName() + ".size").str();
  GlobalVariable *G = M.getNamedGlobal(Name);
  if (!G)
    G = new GlobalVariable(M, SizeTy, /*isConstant=*/true,
                           GlobalValue::InternalLinkage,
                           ConstantInt::get(SizeTy, 0), Name);
  return B.CreateLoad(SizeTy, G, Name);
}

void publishTapeSize(Module &M, StructType *TapeTy) {
  if (GlobalVariable *G = M.getNamedGlobal((TapeTy->getName() + ".size").str()))
    G->setInitializer(ConstantInt::get(
        G->getValueType(), M.getDataLayout().getTypeAllocSize(TapeTy)));
}

CallInst *emitTapeCall(IRBuilderBase &B, TapeOp Op, Type *RecordTy) {
  return callTapeFunction(B, Op, sizeOf(B, RecordTy), "record");
}

bool isTapeCall(const Value *V, TapeOp Op) {
  auto *CI = dyn_cast<CallInst>(V);
  const Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F && (F->getName() == tapeFunctionName(Op) ||
               F->getName() == levelFunctionName(Op));
}

bool declaresTapeFunction(const Module &M, TapeOp Op) {
  return M.getFunction(tapeFunctionName(Op)) ||
         M.getFunction(levelFunctionName(Op));
}

CallInst *emitTapeTrim(IRBuilderBase &B) {
  Module &M = *B.GetInsertBlock()->getModule();
  FunctionCallee FC = M.getOrInsertFunction("__ad_tape_trim", B.getVoidTy());
  if (auto *F = dyn_cast<Function>(FC.getCallee()))
    F->setDoesNotThrow();
  return B.CreateCall(FC);
}

bool callsTapeRuntime(const Value *V) {
  auto *CB = dyn_cast<CallBase>(V);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  return F && F->getName().starts_with("__ad_tape_");
}

// The type, not its size: a recursive callee's tape may still be opaque
// here; its layout is known by the time f.rev is built.
void markCalleeTapeOnStack(Instruction *LinCall, Type *TapeTy) {
  LinCall->setMetadata(
      CalleeTapeOnStackMD,
      MDNode::get(LinCall->getContext(),
                  {ConstantAsMetadata::get(PoisonValue::get(TapeTy))}));
}

std::optional<uint64_t> calleeTapeOnStackSize(const Instruction &LinCall) {
  MDNode *MD = LinCall.getMetadata(CalleeTapeOnStackMD);
  if (!MD)
    return std::nullopt;
  Type *T = cast<ConstantAsMetadata>(MD->getOperand(0))->getType();
  return LinCall.getModule()->getDataLayout().getTypeAllocSize(T);
}

CallInst *emitPopOfSize(IRBuilderBase &B, uint64_t Size) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  return callTapeFunction(B, TapeOp::Pop, ConstantInt::get(SizeTy, Size));
}

static Value *arrayBytes(IRBuilderBase &B, uint64_t RecordSize, Value *Count) {
  Module &M = *B.GetInsertBlock()->getModule();
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  return B.CreateMul(B.CreateZExtOrTrunc(Count, SizeTy),
                     ConstantInt::get(SizeTy, RecordSize), "array.bytes");
}

CallInst *emitTapeArrayPush(IRBuilderBase &B, Type *RecordTy, Value *Count) {
  Module &M = *B.GetInsertBlock()->getModule();
  uint64_t Size = M.getDataLayout().getTypeAllocSize(RecordTy);
  return callTapeFunction(B, TapeOp::Push, arrayBytes(B, Size, Count), "array");
}

CallInst *emitTapeArrayPop(IRBuilderBase &B, uint64_t RecordSize,
                           Value *Count) {
  return callTapeFunction(B, TapeOp::Pop, arrayBytes(B, RecordSize, Count));
}

Value *arrayElement(IRBuilderBase &B, Value *Array, Type *RecordTy, Value *K) {
  return B.CreateGEP(RecordTy, Array, K, "record");
}

static constexpr const char *CounterMD = "ad.counter";
static constexpr const char *LoopBaseMD = "ad.loop.base";
static constexpr const char *LoopCountMD = "ad.loop.count";

static ConstantAsMetadata *mdInt(LLVMContext &Ctx, unsigned Bits, uint64_t V) {
  return ConstantAsMetadata::get(
      ConstantInt::get(IntegerType::get(Ctx, Bits), V));
}

static uint64_t mdIntAt(const MDNode *MD, unsigned K) {
  return mdconst::extract<ConstantInt>(MD->getOperand(K))->getZExtValue();
}

void markCounter(PHINode *Counter, unsigned Id, Type *RecordTy) {
  LLVMContext &Ctx = Counter->getContext();
  uint64_t Size =
      Counter->getModule()->getDataLayout().getTypeAllocSize(RecordTy);
  Counter->setMetadata(
      CounterMD, MDNode::get(Ctx, {mdInt(Ctx, 32, Id), mdInt(Ctx, 64, Size)}));
}

std::optional<CounterInfo> counterInfo(const Instruction &I) {
  MDNode *MD = isa<PHINode>(I) ? I.getMetadata(CounterMD) : nullptr;
  if (!MD)
    return std::nullopt;
  return CounterInfo{unsigned(mdIntAt(MD, 0)), mdIntAt(MD, 1)};
}

void markLoopEntry(Instruction *Base, Instruction *Count, unsigned Id,
                   bool IsExit) {
  LLVMContext &Ctx = Count->getContext();
  MDNode *MD = MDNode::get(Ctx, {mdInt(Ctx, 32, Id), mdInt(Ctx, 1, IsExit)});
  if (Base)
    Base->setMetadata(LoopBaseMD, MD);
  Count->setMetadata(LoopCountMD, MD);
}

std::optional<LoopEntryInfo> loopEntryInfo(const Instruction &I) {
  if (!isa<LoadInst>(I) && !isa<BinaryOperator>(I))
    return std::nullopt;
  MDNode *MD = I.getMetadata(LoopBaseMD);
  bool IsBase = MD;
  if (!IsBase)
    MD = I.getMetadata(LoopCountMD);
  if (!MD)
    return std::nullopt;
  return LoopEntryInfo{unsigned(mdIntAt(MD, 0)), mdIntAt(MD, 1) != 0, IsBase};
}

CallInst *emitPopFor(IRBuilderBase &B, const CallInst &Read) {
  // The size is the read's last operand (after the level, if any).
  return callTapeFunction(B, TapeOp::Pop,
                          Read.getArgOperand(Read.arg_size() - 1), "record");
}

//===--- Records of inner derived code ---------------------------------------

static constexpr const char *TapeShadowFn = "__ad_tape_shadow";
/// On a record shadow made by the linearization of level M: M.
static constexpr const char *ForwardShadowMD = "ad.tape.shadow.forward";

static std::optional<unsigned> constantOperand(const CallBase &CB, unsigned K) {
  auto *C = dyn_cast<ConstantInt>(CB.getArgOperand(K));
  return C ? std::optional<unsigned>(C->getZExtValue()) : std::nullopt;
}

std::optional<TapeRecordCall> tapeRecordCall(const Value *V) {
  auto *CB = dyn_cast<CallBase>(V);
  const Function *F = CB ? CB->getCalledFunction() : nullptr;
  if (!F)
    return std::nullopt;
  if (F->getName() == TapeShadowFn) {
    auto Level = constantOperand(*CB, 0), Region = constantOperand(*CB, 2);
    if (!Level || !Region)
      return std::nullopt;
    return TapeRecordCall{*Level, *Region};
  }
  for (TapeOp Op : {TapeOp::Push, TapeOp::Pop, TapeOp::Read}) {
    if (F->getName() == tapeFunctionName(Op))
      return TapeRecordCall{0, 0};
    if (F->getName() == levelFunctionName(Op)) {
      auto Level = constantOperand(*CB, 0);
      if (!Level)
        return std::nullopt;
      return TapeRecordCall{*Level, 0};
    }
  }
  return std::nullopt;
}

Value *recordAddress(CallBase &Call) {
  const Function *F = Call.getCalledFunction();
  return F && F->getName() == TapeShadowFn ? Call.getArgOperand(1) : &Call;
}

/// The region digit of differentiating level \p M (1 to 3).
static unsigned regionDigit(unsigned M) {
  unsigned Digit = 1;
  for (unsigned K = 1; K < M; ++K)
    Digit *= 3;
  return Digit;
}

std::optional<unsigned> forwardShadowRegion(unsigned Region, unsigned M) {
  if (M < 1 || M > 3 || Region >= TapeShadowRegions)
    return std::nullopt;
  unsigned Digit = regionDigit(M);
  // Inner levels only ever add lower digits.
  if (Region / Digit % 3 != 0)
    return std::nullopt;
  return Region + Digit;
}

CallInst *emitTapeShadow(IRBuilderBase &B, unsigned Level, Value *Record,
                         unsigned Region, unsigned M) {
  Module &Mod = *B.GetInsertBlock()->getModule();
  LLVMContext &Ctx = Mod.getContext();
  Type *PtrTy = PointerType::getUnqual(Ctx);
  FunctionCallee FC = Mod.getOrInsertFunction(
      TapeShadowFn,
      FunctionType::get(PtrTy, {B.getInt32Ty(), PtrTy, B.getInt32Ty()}, false));
  if (auto *F = dyn_cast<Function>(FC.getCallee()))
    F->setDoesNotThrow();
  CallInst *CI =
      B.CreateCall(FC, {B.getInt32(Level), Record, B.getInt32(Region)},
                   Record->getName() + ".shadow");
  CI->setMetadata(ForwardShadowMD, MDNode::get(Ctx, {mdInt(Ctx, 32, M)}));
  return CI;
}

void retargetShadowsToReverse(Function &Fwd, unsigned M) {
  for (Instruction &I : instructions(Fwd)) {
    MDNode *MD = I.getMetadata(ForwardShadowMD);
    if (!MD || mdIntAt(MD, 0) != M)
      continue;
    auto &CI = cast<CallInst>(I);
    unsigned Region =
        cast<ConstantInt>(CI.getArgOperand(2))->getZExtValue() + regionDigit(M);
    CI.setArgOperand(2,
                     ConstantInt::get(CI.getArgOperand(2)->getType(), Region));
    CI.setMetadata(ForwardShadowMD, nullptr);
  }
}

bool isRuntimeTapeMemory(const Value *Obj) {
  // The tape parameter of a g.fwd whose caller pushed g's tape.
  if (auto *A = dyn_cast<Argument>(Obj)) {
    // In g.fwd's JVP (being built), g.fwd's own parameters come first.
    const Function *F = A->getParent();
    auto Info = getDerivedInfo(*F);
    if (Info && Info->Kind == DerivedKind::Jvp) {
      F = Info->Primal;
      Info = getDerivedInfo(*F);
    }
    return Info && Info->Kind == DerivedKind::Fwd &&
           A->getArgNo() + 1 == F->arg_size();
  }
  return tapeRecordCall(Obj).has_value();
}

} // namespace ad
