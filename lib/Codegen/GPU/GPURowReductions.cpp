//===- GPURowReductions.cpp - Cooperative row-reduction kernels -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-gpu-row-reductions` builds the row-reduction kernels that
// boo-gpu-distribute left whole (layer norm forward, the data gradient of
// its backward): after bufferization, the kernel's generics are
//
//   row ops         over the leading `rows` loops only (fills, mean = sum/n,
//                   rstd = rsqrt(var + eps), ...);
//   row reductions  over (rows, columns) with the columns reduced into a
//                   per-row output;
//   column ops      element-wise over (rows, columns): the root, e.g.
//                   y = (x - mean) * rstd * w + b.
//
// They become one workgroup per row (a block scf.forall over the rows) and
// `threads` threads (a thread scf.forall) that share the row's columns:
//
//   - a row op runs in every thread on scalars (uniform values);
//   - a row reduction: each thread folds the body over the columns
//     tid, tid + threads, ... starting from the combiner's identity; the
//     partial values are combined across the workgroup by gpu.all_reduce
//     (subgroup shuffles, then LDS across subgroups; see
//     boo-gpu-lower-all-reduce), and the init (the fill's value) is
//     combined last;
//   - a column op: each thread computes and stores its columns; row values
//     come from registers;
//   - statistics written to buffers something else reads (the mean and
//     rstd results) are stored once per row, by thread 0.
//
// Columns of any count work: the strided loop simply has one iteration less
// in some threads. Reads are coalesced: consecutive threads read consecutive
// columns.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/Passes.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ChipInfo.h"
#include "GPUUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOGPUROWREDUCTIONS
#include "Boo/Codegen/GPU/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;

namespace {

/// How partial values of a row reduction combine: the body's yield is
/// `combiner(out, value)` (either operand order), or `fma(a, b, out)`, an
/// addition of a * b.
std::optional<gpu::AllReduceOperation> getCombiner(linalg::GenericOp op) {
  Block *body = op.getBody();
  Value out = body->getArgument(body->getNumArguments() - 1);
  Operation *yielded = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!yielded)
    return std::nullopt;
  if (auto fma = dyn_cast<math::FmaOp>(yielded))
    return fma.getC() == out && fma.getA() != out && fma.getB() != out
               ? std::optional(gpu::AllReduceOperation::ADD)
               : std::nullopt;
  if (yielded->getNumOperands() != 2 ||
      (yielded->getOperand(0) != out) == (yielded->getOperand(1) != out))
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<gpu::AllReduceOperation>>(
             yielded)
      .Case([](arith::AddFOp) { return gpu::AllReduceOperation::ADD; })
      .Case([](arith::AddIOp) { return gpu::AllReduceOperation::ADD; })
      .Case([](arith::MaxNumFOp) { return gpu::AllReduceOperation::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return gpu::AllReduceOperation::MINNUMF; })
      .Case([](arith::MaximumFOp) { return gpu::AllReduceOperation::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return gpu::AllReduceOperation::MINIMUMF; })
      .Default([](Operation *) { return std::nullopt; });
}

/// `lhs kind rhs`, for the kinds getCombiner returns.
Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
              Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case gpu::AllReduceOperation::ADD:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case gpu::AllReduceOperation::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MINNUMF:
    return arith::MinNumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  default:
    llvm_unreachable("not a kind getCombiner returns");
  }
}

/// The identity of `kind` for `type`.
Value getIdentity(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
                  Type type) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    APFloat value = APFloat::getZero(semantics);
    switch (kind) {
    case gpu::AllReduceOperation::MAXNUMF:
    case gpu::AllReduceOperation::MAXIMUMF:
      value = APFloat::getInf(semantics, /*Negative=*/true);
      break;
    case gpu::AllReduceOperation::MINNUMF:
    case gpu::AllReduceOperation::MINIMUMF:
      value = APFloat::getInf(semantics, /*Negative=*/false);
      break;
    default:
      break;
    }
    return arith::ConstantOp::create(b, loc, FloatAttr::get(type, value));
  }
  return arith::ConstantOp::create(b, loc, IntegerAttr::get(type, 0));
}

Value cIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The most columns per thread whose input values are kept in registers
/// between the kernel's passes over the row (a row of 2048 with 256
/// threads).
constexpr int64_t kMaxCachedColumns = 8;

/// One kernel, in block order.
struct RowReductionKernel {
  SmallVector<linalg::GenericOp> ops;
  /// Copies between buffers of the kernel that bufferization placed among
  /// its ops (a statistic's initial value copied into a temporary): they
  /// alias row values instead of running on the host.
  SmallVector<memref::CopyOp> copies;
  linalg::GenericOp root;
  unsigned rows = 0;
  SmallVector<int64_t> rowSizes, columnSizes;
};

/// A column loop's body: gets the loop values (rows then columns) and the
/// iteration's carried values, returns the values to carry on.
using ColumnBody =
    function_ref<SmallVector<Value>(ArrayRef<Value>, ValueRange)>;

/// Builds one kernel after its last op: one workgroup per row, the row's
/// columns shared by the threads. The helpers build through `b` (the
/// rewriter), which the column loops point into their bodies while those
/// are built.
class RowReductionBuilder {
public:
  RowReductionBuilder(RewriterBase &rewriter, RowReductionKernel &kernel,
                      const ChipInfo &chip);

  LogicalResult build();

private:
  void createLoops();
  Value read(linalg::GenericOp op, OpOperand *operand, ArrayRef<Value> loops);
  SmallVector<Value> applyBody(linalg::GenericOp op, ArrayRef<Value> args,
                               ArrayRef<Value> loops);
  SmallVector<Value> columnsAt(Value column);
  scf::ForOp forColumns(ValueRange inits, ColumnBody bodyFn);
  /// The body over the `chunk` consecutive columns of chunk `chunkIndex`;
  /// `slotBase` is its j in a cached loop (else null).
  SmallVector<Value> chunkBody(Value chunkIndex, Value slotBase,
                               ValueRange carried, ColumnBody bodyFn);
  /// Whether `map` of `buffer` reads or writes it along the innermost
  /// column, contiguously (one vector per chunk).
  bool isChunkContiguous(AffineMap map, Value buffer) const;
  SmallVector<Value> indicesAt(AffineMap map, ArrayRef<Value> loops);
  /// Stores `value` of a column op at `loops`: in a chunk, along the
  /// innermost column, collected into one vector store.
  void writeColumn(Value value, Value buffer, AffineMap map,
                   ArrayRef<Value> loops);
  void emitCopy(memref::CopyOp copy);
  void emitRowOp(linalg::GenericOp op);
  void emitReduction(linalg::GenericOp op);
  void emitColumnOp(linalg::GenericOp op);
  void storeRowValues();

  RewriterBase &rewriter;
  OpBuilder &b;
  RowReductionKernel &kernel;
  MLIRContext *ctx;
  Location loc;
  int64_t numColumns = 1;
  int64_t threads;
  /// Columns per thread; whether they are few enough to keep their input
  /// values in registers (see the constructor).
  int64_t perThread;
  bool cacheColumns;

  scf::ForallOp workgroupLoop, threadLoop;
  Value tid;
  SmallVector<Value> row;
  /// Row values in registers: buffer -> this row's value.
  llvm::MapVector<Value, Value> rowValues;
  llvm::SmallPtrSet<Operation *, 8> kernelOps;
  /// Buffers the kernel writes: never cached.
  llvm::SmallPtrSet<Value, 8> written;
  Value cacheSlot; // j of the cached column loop being built
  DenseMap<std::pair<Value, AffineMap>, Value> caches;
  /// The caches the column loop being built fills.
  llvm::DenseSet<std::pair<Value, AffineMap>> fillingCaches;
  /// Consecutive columns a thread takes at a time: 16 bytes of the
  /// narrowest column element, when the innermost column dim divides, so
  /// that reads and writes along it are vectors (wide loads); else 1.
  int64_t chunk = 1;
  /// While a chunk's body is built: the loops of its first column, the
  /// column being built (0 to chunk - 1), the vectors read for it and the
  /// values to store, by (buffer, map).
  SmallVector<Value> chunkLoops;
  int64_t chunkColumn = -1;
  DenseMap<std::pair<Value, AffineMap>, Value> chunkVectors;
  llvm::MapVector<std::pair<Value, AffineMap>, SmallVector<Value>> chunkStores;
};

RowReductionBuilder::RowReductionBuilder(RewriterBase &rewriter,
                                         RowReductionKernel &kernel,
                                         const ChipInfo &chip)
    : rewriter(rewriter), b(rewriter), kernel(kernel),
      ctx(rewriter.getContext()), loc(kernel.root.getLoc()) {
  for (int64_t c : kernel.columnSizes)
    numColumns *= c;
  // Chunks of 16 bytes of the narrowest element read or written by column,
  // dividing the innermost column dim.
  int64_t narrowest = 16;
  for (linalg::GenericOp op : kernel.ops)
    for (OpOperand &operand : op->getOpOperands()) {
      auto type = dyn_cast<MemRefType>(operand.get().getType());
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (type && op.getNumLoops() > kernel.rows &&
          map.isFunctionOfDim(op.getNumLoops() - 1))
        narrowest = std::min<int64_t>(
            narrowest, llvm::divideCeil(type.getElementTypeBitWidth(), 8));
    }
  chunk = kernel.columnSizes.empty() ? 1 : 16 / narrowest;
  while (chunk > 1 && kernel.columnSizes.back() % chunk != 0)
    chunk /= 2;
  int64_t numChunks = numColumns / chunk;
  // Threads: enough whole waves for the columns, a power of two of them,
  // at most 256. gpu.all_reduce's lowering combines 32-lane partials with
  // a shuffle reduction of width "number of partials"; when that is not a
  // power of two, its lanes end with different sums and all store theirs
  // to the same LDS word (the emulator's race detector caught this on
  // gfx1100 with 96 threads).
  int64_t wave = chip.waveSize;
  threads = std::clamp<int64_t>(wave * static_cast<int64_t>(llvm::PowerOf2Ceil(
                                           llvm::divideCeil(numChunks, wave))),
                                wave, std::max<int64_t>(wave, 256));
  // One pass over the data: when each thread has at most
  // kMaxCachedColumns columns, the column loops run over j in
  // [0, perThread) (chunk tid + j * threads), and what they read from
  // buffers the kernel does not write is kept per (buffer, map) in a
  // private array indexed by j * chunk + v (registers once the loops
  // unroll): the first loop that reads a value loads it from memory, later
  // loops (the centred sum of squares, the normalization) take it from
  // there.
  perThread = llvm::divideCeil(numChunks, threads);
  cacheColumns = perThread * chunk <= kMaxCachedColumns;
  for (linalg::GenericOp op : kernel.ops)
    kernelOps.insert(op);
  for (memref::CopyOp copy : kernel.copies)
    kernelOps.insert(copy);
  for (linalg::GenericOp op : kernel.ops)
    written.insert(op.getDpsInits().begin(), op.getDpsInits().end());
  for (memref::CopyOp copy : kernel.copies)
    written.insert(copy.getTarget());
}

/// The block loop over the rows and the thread loop, after the last op of
/// the kernel: everything it reads is written by then (the kernel's ops
/// may be interleaved with other kernels' allocations and views).
void RowReductionBuilder::createLoops() {
  rewriter.setInsertionPointAfter(kernel.ops.back());
  SmallVector<Attribute> blockMapping;
  for (unsigned d = 0; d < kernel.rows; ++d)
    blockMapping.push_back(gpu::GPUBlockMappingAttr::get(
        ctx, static_cast<gpu::MappingId>(
                 static_cast<int64_t>(gpu::MappingId::LinearDim0) +
                 (kernel.rows - 1 - d))));
  // One row only (every dim normalized): a block loop of one iteration,
  // whose index no access uses (a loop without dims would fold away).
  SmallVector<int64_t> blockSizes = kernel.rowSizes;
  if (kernel.rows == 0) {
    blockSizes.push_back(1);
    blockMapping.push_back(
        gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::LinearDim0));
  }
  workgroupLoop =
      scf::ForallOp::create(b, loc, getAsIndexOpFoldResult(ctx, blockSizes),
                            ValueRange(), b.getArrayAttr(blockMapping));
  b.setInsertionPointToStart(workgroupLoop.getBody());
  threadLoop = createThreadLoop(b, loc, threads);
  tid = threadLoop.getInductionVar(0);
  row = SmallVector<Value>(ArrayRef<Value>(workgroupLoop.getInductionVars())
                               .take_front(kernel.rows));
}

/// Loads operand `operand` of `op` at `loops`, or takes its row value; in a
/// cached column loop, a column value of a buffer the kernel does not write
/// goes through its private array.
Value RowReductionBuilder::read(linalg::GenericOp op, OpOperand *operand,
                                ArrayRef<Value> loops) {
  AffineMap map = op.getMatchingIndexingMap(operand);
  Value buffer = operand->get();
  if (Value value = rowValues.lookup(buffer)) {
    // A row value is indexed by the row loops: (d0, ..., dk-1).
    bool byRow = map.getNumResults() == kernel.rows &&
                 llvm::all_of(llvm::enumerate(map.getResults()), [](auto it) {
                   auto dim = dyn_cast<AffineDimExpr>(it.value());
                   return dim && dim.getPosition() == it.index();
                 });
    if (byRow)
      return value;
  }
  if (map.getNumResults() == 0 && !isa<MemRefType>(buffer.getType()))
    return buffer; // a scalar operand
  bool byColumn = llvm::any_of(map.getResults(), [&](AffineExpr expr) {
    return llvm::any_of(llvm::seq(kernel.rows, map.getNumDims()),
                        [&](unsigned d) { return expr.isFunctionOfDim(d); });
  });
  bool cached = cacheSlot && byColumn && !written.contains(buffer);
  Value *cache = cached ? &caches[{buffer, map}] : nullptr;
  // Filled by an earlier column loop (this one fills it column by column).
  if (cache && *cache && !fillingCaches.contains({buffer, map}))
    return memref::LoadOp::create(b, loc, *cache, cacheSlot);
  Value value;
  if (chunkColumn >= 0 && isChunkContiguous(map, buffer)) {
    // The chunk's columns in one vector, loaded with its first column.
    Value &vector = chunkVectors[{buffer, map}];
    if (!vector) {
      Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
      vector =
          vector::LoadOp::create(b, loc, VectorType::get({chunk}, elementType),
                                 buffer, indicesAt(map, chunkLoops));
    }
    value = vector::ExtractOp::create(b, loc, vector, chunkColumn);
  } else {
    value = memref::LoadOp::create(b, loc, buffer, indicesAt(map, loops));
  }
  if (!cache)
    return value;
  if (!*cache) {
    fillingCaches.insert({buffer, map});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(threadLoop.getBody());
    Type elementType = cast<MemRefType>(buffer.getType()).getElementType();
    *cache = memref::AllocaOp::create(
        b, loc, MemRefType::get({perThread * chunk}, elementType));
  }
  memref::StoreOp::create(b, loc, value, *cache, cacheSlot);
  return value;
}

SmallVector<Value> RowReductionBuilder::indicesAt(AffineMap map,
                                                  ArrayRef<Value> loops) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults())
    indices.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), loops));
  return indices;
}

bool RowReductionBuilder::isChunkContiguous(AffineMap map, Value buffer) const {
  // The vector runs along the buffer's last dim, which must be the
  // innermost column itself: contiguous memory along another dim (a batch
  // norm's x of one channel, [N, 1], read along N) is read element-wise.
  if (chunk == 1 || map.getNumResults() == 0)
    return false;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  return last && last.getPosition() == map.getNumDims() - 1 &&
         isUnitStrideAlong(buffer, map, map.getNumDims() - 1);
}

void RowReductionBuilder::writeColumn(Value value, Value buffer, AffineMap map,
                                      ArrayRef<Value> loops) {
  if (chunkColumn < 0 || !isChunkContiguous(map, buffer)) {
    memref::StoreOp::create(b, loc, value, buffer, indicesAt(map, loops));
    return;
  }
  chunkStores[{buffer, map}].push_back(value);
}

/// Clones the body of `op` with its block arguments bound to `args` and
/// returns the yielded values.
SmallVector<Value> RowReductionBuilder::applyBody(linalg::GenericOp op,
                                                  ArrayRef<Value> args,
                                                  ArrayRef<Value> loops) {
  IRMapping mapping;
  Block *body = op.getBody();
  for (auto [arg, value] : llvm::zip(body->getArguments(), args))
    mapping.map(arg, value);
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), loops[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
  SmallVector<Value> results;
  for (Value yielded : body->getTerminator()->getOperands())
    results.push_back(mapping.lookupOrDefault(yielded));
  return results;
}

/// The loop values (rows then columns) of linearized column `column`.
SmallVector<Value> RowReductionBuilder::columnsAt(Value column) {
  SmallVector<Value> loops = row;
  auto delinearized = affine::AffineDelinearizeIndexOp::create(
      b, loc, column, kernel.columnSizes, /*hasOuterBound=*/true);
  llvm::append_range(loops, delinearized.getResults());
  return loops;
}

/// A strided loop over this thread's chunks of columns; `bodyFn` gets the
/// loop values (rows then columns) of each column and the iteration's
/// carried values. The helpers build through `b`: it is pointed into the
/// body while the body is built.
scf::ForOp RowReductionBuilder::forColumns(ValueRange inits,
                                           ColumnBody bodyFn) {
  int64_t numChunks = numColumns / chunk;
  fillingCaches.clear();
  if (cacheColumns)
    return scf::ForOp::create(
        b, loc, cIndex(b, loc, 0), cIndex(b, loc, perThread), cIndex(b, loc, 1),
        inits, [&](OpBuilder &nested, Location, Value j, ValueRange carried) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          Value index = arith::AddIOp::create(
              b, loc, tid,
              arith::MulIOp::create(b, loc, j, cIndex(b, loc, threads)));
          if (numChunks % threads == 0) {
            scf::YieldOp::create(b, loc, chunkBody(index, j, carried, bodyFn));
            return;
          }
          // The last j of some threads is past the columns.
          Value inBounds =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, index,
                                    cIndex(b, loc, numChunks));
          auto branch = [&](bool taken) {
            return [&, taken](OpBuilder &inner, Location) {
              OpBuilder::InsertionGuard innerGuard(b);
              b.setInsertionPoint(inner.getInsertionBlock(),
                                  inner.getInsertionPoint());
              if (taken)
                scf::YieldOp::create(b, loc,
                                     chunkBody(index, j, carried, bodyFn));
              else
                scf::YieldOp::create(b, loc, carried);
            };
          };
          auto ifOp =
              scf::IfOp::create(b, loc, inBounds, branch(true), branch(false));
          scf::YieldOp::create(b, loc, ifOp.getResults());
        });
  return scf::ForOp::create(
      b, loc, tid, cIndex(b, loc, numChunks), cIndex(b, loc, threads), inits,
      [&](OpBuilder &nested, Location, Value iv, ValueRange carried) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        scf::YieldOp::create(b, loc, chunkBody(iv, Value(), carried, bodyFn));
      });
}

SmallVector<Value> RowReductionBuilder::chunkBody(Value chunkIndex,
                                                  Value slotBase,
                                                  ValueRange carried,
                                                  ColumnBody bodyFn) {
  if (chunk == 1) {
    cacheSlot = slotBase;
    SmallVector<Value> values = bodyFn(columnsAt(chunkIndex), carried);
    cacheSlot = Value();
    return values;
  }
  chunkLoops = columnsAt(
      arith::MulIOp::create(b, loc, chunkIndex, cIndex(b, loc, chunk)));
  chunkVectors.clear();
  chunkStores.clear();
  SmallVector<Value> values(carried);
  for (int64_t v = 0; v < chunk; ++v) {
    // The chunk lies in one innermost column row (its size divides).
    SmallVector<Value> loops = chunkLoops;
    loops.back() =
        arith::AddIOp::create(b, loc, chunkLoops.back(), cIndex(b, loc, v));
    chunkColumn = v;
    if (slotBase)
      cacheSlot = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, slotBase, cIndex(b, loc, chunk)),
          cIndex(b, loc, v));
    values = bodyFn(loops, values);
  }
  for (auto &[key, elements] : chunkStores) {
    auto [buffer, map] = key;
    Value vector = vector::FromElementsOp::create(
        b, loc, VectorType::get({chunk}, elements.front().getType()), elements);
    vector::StoreOp::create(b, loc, vector, buffer, indicesAt(map, chunkLoops));
  }
  chunkColumn = -1;
  cacheSlot = Value();
  chunkVectors.clear();
  chunkStores.clear();
  return values;
}

/// A copy between the kernel's buffers: the target takes the source's row
/// value (loaded if the kernel did not compute it).
void RowReductionBuilder::emitCopy(memref::CopyOp copy) {
  Value value = rowValues.lookup(copy.getSource());
  if (!value)
    value = memref::LoadOp::create(b, loc, copy.getSource(), row);
  rowValues[copy.getTarget()] = value;
}

/// A row op: scalars in every thread.
void RowReductionBuilder::emitRowOp(linalg::GenericOp op) {
  SmallVector<Value> args;
  for (OpOperand *input : op.getDpsInputOperands())
    args.push_back(read(op, input, row));
  for (OpOperand &init : op.getDpsInitsMutable())
    args.push_back(rowValues.lookup(init.get()) ? rowValues.lookup(init.get())
                                                : read(op, &init, row));
  SmallVector<Value> results = applyBody(op, args, row);
  for (auto [init, value] : llvm::zip(op.getDpsInits(), results))
    rowValues[init] = value;
}

/// A row reduction: each thread folds its columns from the combiner's
/// identity, gpu.all_reduce combines the partial values, and the init (the
/// fill's value, or the buffer's) goes in last.
void RowReductionBuilder::emitReduction(linalg::GenericOp op) {
  gpu::AllReduceOperation kind = *getCombiner(op);
  OpOperand *out = op.getDpsInitOperand(0);
  Type type = op.getBody()->getArguments().back().getType();
  Value identity = getIdentity(b, loc, kind, type);
  scf::ForOp loop =
      forColumns(identity, [&](ArrayRef<Value> loops, ValueRange carried) {
        SmallVector<Value> args;
        for (OpOperand *input : op.getDpsInputOperands())
          args.push_back(read(op, input, loops));
        args.push_back(carried.front());
        return applyBody(op, args, loops);
      });
  Value reduced = gpu::AllReduceOp::create(
      b, loc, loop.getResult(0), gpu::AllReduceOperationAttr::get(ctx, kind),
      UnitAttr::get(ctx));
  Value init = rowValues.lookup(out->get());
  if (!init)
    init = read(op, out, row);
  rowValues[out->get()] = combine(b, loc, kind, init, reduced);
}

/// A column op: each thread computes and stores its columns.
void RowReductionBuilder::emitColumnOp(linalg::GenericOp op) {
  forColumns(ValueRange(), [&](ArrayRef<Value> loops, ValueRange) {
    SmallVector<Value> args;
    for (OpOperand *input : op.getDpsInputOperands())
      args.push_back(read(op, input, loops));
    for (OpOperand &init : op.getDpsInitsMutable())
      args.push_back(read(op, &init, loops)); // dead unless used
    SmallVector<Value> results = applyBody(op, args, loops);
    for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), results))
      writeColumn(value, init.get(), op.getMatchingIndexingMap(&init), loops);
    return SmallVector<Value>();
  });
}

/// Row values that outlive the kernel: written once per row, by thread 0.
void RowReductionBuilder::storeRowValues() {
  SmallVector<std::pair<Value, Value>> rowStores; // buffer, value
  for (auto [buffer, value] : rowValues) {
    bool temporary = buffer.getDefiningOp<memref::AllocOp>() &&
                     llvm::all_of(buffer.getUsers(), [&](Operation *user) {
                       return kernelOps.contains(user);
                     });
    if (!temporary)
      rowStores.push_back({buffer, value});
  }
  if (rowStores.empty())
    return;
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      cIndex(b, loc, 0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  for (auto [buffer, value] : rowStores)
    memref::StoreOp::create(b, loc, value, buffer, row);
}

LogicalResult RowReductionBuilder::build() {
  createLoops();
  // The ops and the copies among them, in block order.
  SmallVector<Operation *> sequence(kernel.ops.begin(), kernel.ops.end());
  llvm::append_range(sequence,
                     llvm::map_range(kernel.copies, [](memref::CopyOp copy) {
                       return copy.getOperation();
                     }));
  llvm::sort(sequence, [](Operation *lhs, Operation *rhs) {
    return lhs->isBeforeInBlock(rhs);
  });
  for (Operation *next : sequence) {
    if (auto copy = dyn_cast<memref::CopyOp>(next)) {
      emitCopy(copy);
      continue;
    }
    auto op = cast<linalg::GenericOp>(next);
    if (op.getNumLoops() == kernel.rows)
      emitRowOp(op);
    else if (op.getNumReductionLoops() != 0)
      emitReduction(op);
    else
      emitColumnOp(op);
  }
  storeRowValues();
  for (Operation *op : llvm::reverse(sequence))
    rewriter.eraseOp(op);
  return success();
}

struct BooGPURowReductionsPass
    : public mlir::boo::impl::BooGPURowReductionsBase<BooGPURowReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const ChipInfo *chipInfo = resolveChip(module, getArgument());
    if (!chipInfo)
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // Kernel id -> ops, in block order.
      llvm::MapVector<int64_t, RowReductionKernel> kernels;
      func.walk([&](linalg::GenericOp op) {
        auto id = op->getAttrOfType<IntegerAttr>(kRowReductionKernelAttrName);
        if (!id)
          return;
        RowReductionKernel &kernel = kernels[id.getInt()];
        kernel.ops.push_back(op);
        if (op->hasAttr(kRowReductionRootAttrName))
          kernel.root = op;
      });
      if (kernels.empty())
        continue;
      elideResultCopies(rewriter, func);
      func.walk([&](memref::CopyOp copy) {
        for (Operation *user : copy.getTarget().getUsers())
          if (auto id = user->getAttrOfType<IntegerAttr>(
                  kRowReductionKernelAttrName)) {
            kernels[id.getInt()].copies.push_back(copy);
            return;
          }
      });
      for (auto &[id, kernel] : kernels)
        if (failed(analyze(kernel)) ||
            failed(RowReductionBuilder(rewriter, kernel, *chipInfo).build()))
          return signalPassFailure();
    }
  }

  LogicalResult analyze(RowReductionKernel &kernel) {
    if (!kernel.root)
      return kernel.ops.front().emitError()
             << "boo-gpu-row-reductions: a kernel without a root";
    linalg::GenericOp root = kernel.root;
    if (!root.hasPureBufferSemantics())
      return root.emitError() << "boo-gpu-row-reductions: runs after "
                                 "bufferization";
    // The rows: the reductions' output rank.
    for (linalg::GenericOp op : kernel.ops)
      if (op.getNumReductionLoops() != 0)
        kernel.rows = op.getNumParallelLoops();
    SmallVector<int64_t> ranges = root.getStaticLoopRanges();
    // rows == 0: one row (every dim is normalized).
    if (kernel.rows >= ranges.size() || root.getNumReductionLoops() != 0)
      return root.emitError() << "boo-gpu-row-reductions: the root is not "
                                 "an element-wise op over rows and columns";
    kernel.rowSizes.assign(ranges.begin(), ranges.begin() + kernel.rows);
    kernel.columnSizes.assign(ranges.begin() + kernel.rows, ranges.end());
    for (linalg::GenericOp op : kernel.ops) {
      unsigned loops = op.getNumLoops();
      bool rowOp = loops == kernel.rows && op.getNumReductionLoops() == 0;
      bool columnOp = loops == ranges.size() && op.getNumReductionLoops() == 0;
      bool reduction = loops == ranges.size() &&
                       op.getNumReductionLoops() == loops - kernel.rows &&
                       op.getNumDpsInits() == 1 && getCombiner(op).has_value();
      if (!rowOp && !columnOp && !reduction)
        return op.emitError()
               << "boo-gpu-row-reductions: not a row op, row reduction or "
                  "column op of the kernel";
      if (!rowOp && op.getStaticLoopRanges() != ranges)
        return op.emitError() << "boo-gpu-row-reductions: loop ranges differ "
                                 "from the root's";
    }
    // A copy of a row value (a shared fill) into a temporary or into a
    // result buffer (an out-param: stored by thread 0 like a statistic).
    auto isRowBuffer = [&](Value buffer) {
      auto type = dyn_cast<MemRefType>(buffer.getType());
      return type && type.getShape() == ArrayRef<int64_t>(kernel.rowSizes) &&
             type.getLayout().isIdentity();
    };
    for (memref::CopyOp copy : kernel.copies) {
      Value target = copy.getTarget();
      bool ownTarget =
          target.getDefiningOp<memref::AllocOp>() || isa<BlockArgument>(target);
      if (!ownTarget || !isRowBuffer(copy.getSource()) || !isRowBuffer(target))
        return copy.emitError() << "boo-gpu-row-reductions: a copy into the "
                                   "kernel that is not a row value's";
    }
    return success();
  }
};

} // namespace
