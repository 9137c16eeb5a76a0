//===- CPUOutlineParallel.cpp - boo-cpu-outline-parallel ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Turns every outermost (bufferized) scf.forall of a function, unless it
// has too little work to be worth the threads (option min-work), into a call
// through the `__boo_parallel_for` hook of the CPU code-object ABI
// (docs/ModuleFormat.md, "Code objects"):
//
//   dispatch(body, ctx, n)   when the loader set the hook,
//   body(ctx, 0, n)          when it is null (a plain dlopen),
//
// where `n` is the forall's iteration count, `ctx` a stack struct holding
// the values the loop uses from above, and `body` an outlined function
// `void body(void *ctx, int64_t begin, int64_t end)` that runs the
// linearized iterations [begin, end). The forall's iterations are
// independent by construction, so any split of [0, n) across threads
// computes the same thing as the sequential loop, bit for bit.
//
// The pass runs on loops and vectors (after convert-vector-to-scf) and
// before the conversions to LLVM: the context is built with LLVM dialect
// ops, memrefs travel as their LLVM descriptors through
// unrealized_conversion_casts that reconcile-unrealized-casts removes once
// the memrefs are lowered.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"
#include "boo/ModuleFormat.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCPUOUTLINEPARALLEL
#include "Boo/Codegen/CPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

using ::boo::runtime::kParallelForSymbol;

/// A value the loop uses from above; it travels through its field of the
/// context struct as `storedType` (an LLVM-compatible type).
struct Capture {
  Value value;
  Type storedType;
};

/// The LLVM-compatible type `type` is stored as in the context: index as
/// the converter's index integer (i64), LLVM-compatible scalars and vectors
/// as themselves, memrefs (and anything else the converter knows) as their
/// converted type (the descriptor struct). Null if the type has no LLVM
/// counterpart.
static Type getStoredType(Type type, const LLVMTypeConverter &converter) {
  if (type.isIndex())
    return converter.getIndexType();
  if (LLVM::isCompatibleType(type))
    return type;
  return converter.convertType(type);
}

/// Converts `value` to its stored type (call site).
static Value toStored(OpBuilder &b, Location loc, Value value,
                      Type storedType) {
  if (value.getType() == storedType)
    return value;
  if (value.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, storedType, value);
  return UnrealizedConversionCastOp::create(b, loc, storedType, value)
      .getResult(0);
}

/// Converts a loaded `stored` value back to `type` (outlined body).
static Value fromStored(OpBuilder &b, Location loc, Value stored, Type type) {
  if (stored.getType() == type)
    return stored;
  if (type.isIndex())
    return arith::IndexCastOp::create(b, loc, type, stored);
  return UnrealizedConversionCastOp::create(b, loc, type, stored).getResult(0);
}

/// Materializes `ofr` as an index value, taking SSA values through `map`.
static Value getIndexValue(OpBuilder &b, Location loc, OpFoldResult ofr,
                           const IRMapping &map) {
  if (auto value = dyn_cast<Value>(ofr))
    return map.lookupOrDefault(value);
  return arith::ConstantIndexOp::create(
      b, loc, cast<IntegerAttr>(cast<Attribute>(ofr)).getInt());
}

/// The iteration count of the forall's dim `d`, max(0, ceil((ub - lb) /
/// step)); a constant when the bounds are.
static Value getTripCount(OpBuilder &b, Location loc, scf::ForallOp op,
                          unsigned d, const IRMapping &map) {
  OpFoldResult lb = op.getMixedLowerBound()[d];
  OpFoldResult ub = op.getMixedUpperBound()[d];
  OpFoldResult step = op.getMixedStep()[d];
  std::optional<int64_t> lbC = getConstantIntValue(lb);
  std::optional<int64_t> ubC = getConstantIntValue(ub);
  std::optional<int64_t> stepC = getConstantIntValue(step);
  if (lbC && ubC && stepC && *stepC > 0)
    return arith::ConstantIndexOp::create(
        b, loc, std::max<int64_t>(0, llvm::divideCeil(*ubC - *lbC, *stepC)));
  Value extent = arith::SubIOp::create(b, loc, getIndexValue(b, loc, ub, map),
                                       getIndexValue(b, loc, lb, map));
  Value count = arith::CeilDivSIOp::create(b, loc, extent,
                                           getIndexValue(b, loc, step, map));
  return arith::MaxSIOp::create(b, loc, count,
                                arith::ConstantIndexOp::create(b, loc, 0));
}

/// The `__boo_parallel_for` global, created (zero-initialized, external so
/// that a loader finds and sets it) on first use.
static LLVM::GlobalOp getOrCreateParallelForGlobal(ModuleOp module) {
  if (auto global = module.lookupSymbol<LLVM::GlobalOp>(kParallelForSymbol))
    return global;
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  Location loc = module.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(module.getContext());
  auto global = LLVM::GlobalOp::create(
      b, loc, ptrType, /*isConstant=*/false, LLVM::Linkage::External,
      kParallelForSymbol, /*value=*/Attribute());
  Block *init = b.createBlock(&global.getInitializerRegion());
  b.setInsertionPointToStart(init);
  Value zero = LLVM::ZeroOp::create(b, loc, ptrType);
  LLVM::ReturnOp::create(b, loc, zero);
  return global;
}

/// The static trip count of a loop, or `fallback` when its bounds are
/// not constant.
static int64_t getStaticTripCount(Operation *loop, int64_t fallback) {
  if (auto forOp = dyn_cast<scf::ForOp>(loop)) {
    std::optional<APInt> count = forOp.getStaticTripCount();
    return count ? count->getSExtValue() : fallback;
  }
  if (auto forall = dyn_cast<scf::ForallOp>(loop)) {
    int64_t total = 1;
    for (auto [lb, ub, step] :
         llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                   forall.getMixedStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb);
      std::optional<int64_t> u = getConstantIntValue(ub);
      std::optional<int64_t> s = getConstantIntValue(step);
      if (!l || !u || !s || *s <= 0)
        return fallback;
      total *= std::max<int64_t>(0, llvm::divideCeil(*u - *l, *s));
    }
    return total;
  }
  return 1; // scf.if and other single-shot regions
}

/// The elements an op works on: those of its largest vector operand or
/// result, else 1.
static int64_t elementCount(Operation &op) {
  int64_t count = 1;
  auto visit = [&](Type type) {
    if (auto vector = dyn_cast<VectorType>(type))
      count = std::max<int64_t>(count, vector.getNumElements());
  };
  llvm::for_each(op.getOperandTypes(), visit);
  llvm::for_each(op.getResultTypes(), visit);
  return count;
}

/// A rough count of the element operations one run of `region` executes:
/// every op counts its elements (one for a scalar op), the regions of
/// loops count once per iteration (dynamic loops are assumed to run 16
/// times). Saturates instead of overflowing.
static int64_t estimateWork(Region &region) {
  constexpr int64_t kLimit = int64_t(1) << 50;
  int64_t work = 0;
  for (Operation &op : region.getOps()) {
    work = std::min(kLimit, work + elementCount(op));
    int64_t trips = getStaticTripCount(&op, /*fallback=*/16);
    for (Region &inner : op.getRegions()) {
      int64_t innerWork = estimateWork(inner);
      if (trips != 0 && innerWork > kLimit / trips)
        return kLimit;
      work = std::min(kLimit, work + trips * innerWork);
    }
  }
  return work;
}

/// What the outlined body of a forall uses from above: constants, cloned
/// into it, and the other values, which travel through the context struct.
struct LoopContext {
  SmallVector<Value> constants;
  SmallVector<Capture> captures;
  LLVM::LLVMStructType type; // one field per capture
};

class Outliner {
public:
  Outliner(ModuleOp module, SymbolTable &symbols)
      : module(module), symbols(symbols), converter(module.getContext()) {}

  /// Outlines `op`, the `index`-th outermost forall of `func`, into a
  /// function inserted before `insertPt`.
  FailureOr<func::FuncOp> outline(scf::ForallOp op, func::FuncOp func,
                                  unsigned index, Block::iterator insertPt);

private:
  /// Sorts what `op`'s body uses from above into constants and captures;
  /// fails for a value with no LLVM counterpart.
  FailureOr<LoopContext> collectContext(scf::ForallOp op);
  /// The outlined body, void body(void *ctx, int64_t begin, int64_t end),
  /// inserted before `insertPt` (renamed if the name is taken).
  func::FuncOp createBody(scf::ForallOp op, func::FuncOp func, unsigned index,
                          Block::iterator insertPt, const LoopContext &context);
  /// Replaces `op` by the context's stores and the call of `body` through
  /// the hook (or directly when the hook is null).
  void emitCall(scf::ForallOp op, func::FuncOp func, func::FuncOp body,
                const LoopContext &context);

  ModuleOp module;
  SymbolTable &symbols;
  LLVMTypeConverter converter;
};

FailureOr<LoopContext> Outliner::collectContext(scf::ForallOp op) {
  // What the body uses from above: constants are cloned into the outlined
  // function, everything else travels through the context.
  SetVector<Value> used;
  getUsedValuesDefinedAbove(op.getRegion(), used);
  for (Value bound :
       llvm::concat<Value>(op.getDynamicLowerBound(), op.getDynamicUpperBound(),
                           op.getDynamicStep()))
    used.insert(bound);
  LoopContext context;
  for (Value value : used) {
    Operation *def = value.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>()) {
      context.constants.push_back(value);
      continue;
    }
    Type storedType = getStoredType(value.getType(), converter);
    if (!storedType) {
      op.emitOpError("boo-cpu-outline-parallel cannot pass a value of type ")
          << value.getType() << " to the outlined body";
      return failure();
    }
    context.captures.push_back({value, storedType});
  }
  SmallVector<Type> fields = llvm::map_to_vector(
      context.captures, [](const Capture &c) { return c.storedType; });
  context.type = LLVM::LLVMStructType::getLiteral(op.getContext(), fields);
  return context;
}

func::FuncOp Outliner::createBody(scf::ForallOp op, func::FuncOp func,
                                  unsigned index, Block::iterator insertPt,
                                  const LoopContext &context) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type indexType = IndexType::get(ctx);
  OpBuilder b(ctx);
  auto bodyType = FunctionType::get(ctx, {ptrType, indexType, indexType}, {});
  auto body = func::FuncOp::create(
      b, loc, (func.getSymName() + "_parallel_" + Twine(index)).str(),
      bodyType);
  body.setPrivate();
  // Internal in the object too: only its address leaves the module.
  body->setAttr("llvm.linkage",
                LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
  symbols.insert(body, insertPt);
  Block *entry = body.addEntryBlock();
  b.setInsertionPointToStart(entry);
  Value ctxArg = entry->getArgument(0);
  IRMapping map;
  DenseMap<Operation *, Operation *> clonedConstants;
  for (Value value : context.constants) {
    Operation *def = value.getDefiningOp();
    Operation *&clone = clonedConstants[def];
    if (!clone)
      clone = b.clone(*def);
    map.map(value, clone->getResult(cast<OpResult>(value).getResultNumber()));
  }
  for (auto [i, capture] : llvm::enumerate(context.captures)) {
    Value field = LLVM::GEPOp::create(
        b, loc, ptrType, context.type, ctxArg,
        ArrayRef<LLVM::GEPArg>{int32_t(0), static_cast<int32_t>(i)});
    Value stored = LLVM::LoadOp::create(b, loc, capture.storedType, field);
    map.map(capture.value, fromStored(b, loc, stored, capture.value.getType()));
  }
  // Delinearization: iv_d = lb_d + (linear / prod(count_{>d}) % count_d) *
  // step_d, last dim fastest (the order of the forall's nest); only the
  // non-trivial operands are materialized (tiles have lb 0, static steps).
  unsigned rank = op.getRank();
  SmallVector<Value> counts(rank), lbs(rank), steps(rank);
  for (unsigned d = 0; d < rank; ++d) {
    if (d > 0)
      counts[d] = getTripCount(b, loc, op, d, map);
    if (!isConstantIntValue(op.getMixedLowerBound()[d], 0))
      lbs[d] = getIndexValue(b, loc, op.getMixedLowerBound()[d], map);
    if (!isConstantIntValue(op.getMixedStep()[d], 1))
      steps[d] = getIndexValue(b, loc, op.getMixedStep()[d], map);
  }
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ForOp::create(
      b, loc, entry->getArgument(1), entry->getArgument(2), one, ValueRange{},
      [&](OpBuilder &lb, Location l, Value linear, ValueRange) {
        Value rest = linear;
        for (int64_t d = rank - 1; d >= 0; --d) {
          Value iv = rest;
          if (d > 0) {
            iv = arith::RemUIOp::create(lb, l, rest, counts[d]);
            rest = arith::DivUIOp::create(lb, l, rest, counts[d]);
          }
          if (steps[d])
            iv = arith::MulIOp::create(lb, l, iv, steps[d]);
          if (lbs[d])
            iv = arith::AddIOp::create(lb, l, lbs[d], iv);
          map.map(op.getInductionVar(d), iv);
        }
        for (Operation &inner : op.getBody()->without_terminator())
          lb.clone(inner, map);
        scf::YieldOp::create(lb, l);
      });
  func::ReturnOp::create(b, loc);
  return body;
}

void Outliner::emitCall(scf::ForallOp op, func::FuncOp func, func::FuncOp body,
                        const LoopContext &context) {
  MLIRContext *ctx = op.getContext();
  Location loc = op.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);
  // The context lives in the entry block of `func` (a forall inside a
  // sequential loop reuses it rather than growing the stack).
  OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
  Value ctxCount = LLVM::ConstantOp::create(b, loc, i64, 1);
  Value ctxPtr =
      LLVM::AllocaOp::create(b, loc, ptrType, context.type, ctxCount);

  // The call site.
  b.setInsertionPoint(op);
  for (auto [i, capture] : llvm::enumerate(context.captures)) {
    Value field = LLVM::GEPOp::create(
        b, loc, ptrType, context.type, ctxPtr,
        ArrayRef<LLVM::GEPArg>{int32_t(0), static_cast<int32_t>(i)});
    LLVM::StoreOp::create(
        b, loc, toStored(b, loc, capture.value, capture.storedType), field);
  }
  IRMapping identity;
  Value n;
  for (unsigned d = 0, rank = op.getRank(); d < rank; ++d) {
    Value count = getTripCount(b, loc, op, d, identity);
    n = n ? arith::MulIOp::create(b, loc, n, count) : count;
  }
  if (!n)
    n = arith::ConstantIndexOp::create(b, loc, 1);
  Value n64 = arith::IndexCastOp::create(b, loc, i64, n);
  Value bodyRef = func::ConstantOp::create(b, loc, body.getFunctionType(),
                                           body.getSymName());
  Value bodyPtr =
      UnrealizedConversionCastOp::create(b, loc, ptrType, bodyRef).getResult(0);
  LLVM::GlobalOp global = getOrCreateParallelForGlobal(module);
  Value hookAddr = LLVM::AddressOfOp::create(b, loc, global);
  Value dispatch = LLVM::LoadOp::create(b, loc, ptrType, hookAddr);
  Value null = LLVM::ZeroOp::create(b, loc, ptrType);
  Value isSet =
      LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, dispatch, null);
  auto dispatchType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                                  {ptrType, ptrType, i64});
  scf::IfOp::create(
      b, loc, isSet,
      [&](OpBuilder &tb, Location l) {
        LLVM::CallOp::create(tb, l, dispatchType,
                             ValueRange{dispatch, bodyPtr, ctxPtr, n64});
        scf::YieldOp::create(tb, l);
      },
      [&](OpBuilder &eb, Location l) {
        Value zero = arith::ConstantIndexOp::create(eb, l, 0);
        func::CallOp::create(eb, l, body, ValueRange{ctxPtr, zero, n});
        scf::YieldOp::create(eb, l);
      });
  op.erase();
}

FailureOr<func::FuncOp> Outliner::outline(scf::ForallOp op, func::FuncOp func,
                                          unsigned index,
                                          Block::iterator insertPt) {
  if (op.getNumResults() != 0 || !op.getTerminator().getYieldingOps().empty()) {
    op.emitOpError("boo-cpu-outline-parallel expects a bufferized "
                   "scf.forall (no results, empty terminator)");
    return failure();
  }
  FailureOr<LoopContext> context = collectContext(op);
  if (failed(context))
    return failure();
  func::FuncOp body = createBody(op, func, index, insertPt, *context);
  emitCall(op, func, body, *context);
  return body;
}

struct BooCPUOutlineParallelPass
    : public mlir::boo::impl::BooCPUOutlineParallelBase<
          BooCPUOutlineParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The hook is part of the ABI whether or not the module has parallel
    // loops.
    getOrCreateParallelForGlobal(module);
    SymbolTable symbols(module);
    Outliner outliner(module, symbols);
    // Collect first: outlining adds functions to the module.
    SmallVector<std::pair<func::FuncOp, SmallVector<scf::ForallOp>>> work;
    for (auto func : module.getOps<func::FuncOp>()) {
      SmallVector<scf::ForallOp> foralls;
      func.walk<WalkOrder::PreOrder>([&](scf::ForallOp op) -> WalkResult {
        // Too little work to pay for waking threads: stays sequential.
        int64_t trips =
            std::max<int64_t>(1, getStaticTripCount(op, /*fallback=*/16));
        if (estimateWork(op.getRegion()) >=
            llvm::divideCeilSigned(static_cast<int64_t>(minWork), trips))
          foralls.push_back(op);
        return WalkResult::skip(); // nested foralls stay inside
      });
      if (!foralls.empty())
        work.push_back({func, std::move(foralls)});
    }
    // The bodies follow their function, in loop order.
    for (auto &[func, foralls] : work) {
      Block::iterator insertPt = std::next(Block::iterator(func));
      for (auto [i, op] : llvm::enumerate(foralls)) {
        FailureOr<func::FuncOp> body = outliner.outline(op, func, i, insertPt);
        if (failed(body))
          return signalPassFailure();
        insertPt = std::next(Block::iterator(*body));
      }
    }
  }
};
} // namespace
