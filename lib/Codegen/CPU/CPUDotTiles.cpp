//===- CPUDotTiles.cpp - Contractions as dot products ---------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A contraction whose two inputs both have the reduction innermost computed
// as register tiles of dot products (see computeDotTiles in CPUDotTiles.h).
//
//===----------------------------------------------------------------------===//

#include "CPUDotTiles.h"

#include "CPUConvWindows.h"
#include "CPUOperandLayouts.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using boo::DotTile;

namespace {

/// Most columns of a register tile: each one's partial sums take a
/// register, and they are added across lanes together.
constexpr int64_t kMaxCols = 8;
/// Independent chains of multiply-adds a core needs to hide their latency
/// (2 FMA pipes, 4 cycles each).
constexpr int64_t kMinChains = 8;
/// Fewest registers of the reduction: with fewer, the additions across
/// lanes cost more than the copy they save (MobileNetV2's NHWC 160->960
/// 1x1 layer at 7x7, 10 registers: 0.096 ms copied, 0.107 ms as dot
/// products on cpu:1).
constexpr int64_t kMinSteps = 16;

/// The parts of a dot-product contraction (computeDotTiles).
struct DotContraction {
  linalg::GenericOp op;
  /// The rows' input (without the columns' loop) and the columns' input.
  OpOperand *rows = nullptr, *cols = nullptr;
  /// The reduction loop (innermost in both inputs), the rows' loop (the
  /// output's innermost loop that only `rows` reads) and the columns' loop
  /// (the output's innermost loop that only `cols` reads).
  unsigned reduction = 0, rowLoop = 0, colLoop = 0;
  /// The output dims of the rows' and the columns' loops; one of them is
  /// the output's innermost.
  unsigned rowDim = 0, colDim = 0;
  SmallVector<int64_t> ranges;
  /// The inputs' maps as computeDotTiles reads them: without trailing
  /// results of unit dims, and the rows' with the reduction moved
  /// innermost when it is not (`transposeRows`, channels-first images).
  AffineMap rowMap, colMap;
  bool transposeRows = false;
};

/// `map` without its trailing results of `type`'s unit dims.
AffineMap withoutTrailingUnitDims(AffineMap map, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  unsigned n = map.getNumResults();
  while (n > 1 && type.getDimSize(n - 1) == 1)
    --n;
  return map.getMajorSubMap(n);
}

/// The position of plain dim `d` among `map`'s results, if it is one.
std::optional<unsigned> plainResult(AffineMap map, unsigned d) {
  return map.getResultPosition(getAffineDimExpr(d, map.getContext()));
}

/// `map` with its result `pos` moved last.
AffineMap moveResultLast(AffineMap map, unsigned pos) {
  SmallVector<AffineExpr> results(map.getResults());
  AffineExpr moved = results[pos];
  results.erase(results.begin() + pos);
  results.push_back(moved);
  return AffineMap::get(map.getNumDims(), 0, results, map.getContext());
}

/// The rows' and columns' loops of `dot` (its inputs and maps set).
bool matchLoops(DotContraction &dot, AffineMap outMap) {
  auto innermostOnlyIn = [&](AffineMap in, AffineMap other)
      -> std::optional<unsigned> {
    for (int64_t i = outMap.getNumResults() - 1; i >= 0; --i) {
      unsigned d = outMap.getDimPosition(i);
      if (dot.ranges[d] > 1 && in.isFunctionOfDim(d) &&
          !other.isFunctionOfDim(d))
        return i;
    }
    return std::nullopt;
  };
  std::optional<unsigned> rowDim = innermostOnlyIn(dot.rowMap, dot.colMap);
  std::optional<unsigned> colDim = innermostOnlyIn(dot.colMap, dot.rowMap);
  unsigned last = outMap.getNumResults() - 1;
  if (!rowDim || !colDim || (*rowDim != last && *colDim != last))
    return false;
  dot.rowDim = *rowDim;
  dot.colDim = *colDim;
  dot.rowLoop = outMap.getDimPosition(dot.rowDim);
  dot.colLoop = outMap.getDimPosition(dot.colDim);
  return true;
}

std::optional<DotContraction> matchDot(linalg::GenericOp op,
                                       const boo::DotOptions &options) {
  if (!boo::isDepthwiseCandidate(op) || op.getNumReductionLoops() == 0)
    return std::nullopt;
  DotContraction dot;
  dot.op = op;
  dot.ranges = op.getStaticLoopRanges();
  if (llvm::any_of(dot.ranges, ShapedType::isDynamic))
    return std::nullopt;
  for (Value input : op.getDpsInputs()) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || !type.hasStaticShape())
      return std::nullopt;
  }
  // One reduction of more than one element; the others are a 1x1 window.
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  std::optional<unsigned> reduction;
  for (auto [d, iter] : llvm::enumerate(iters)) {
    if (iter != utils::IteratorType::reduction || dot.ranges[d] == 1)
      continue;
    if (reduction)
      return std::nullopt;
    reduction = d;
  }
  if (!reduction)
    return std::nullopt;
  dot.reduction = *reduction;
  int64_t depth = dot.ranges[dot.reduction];
  if (depth % options.lanes != 0 || depth < kMinSteps * options.lanes)
    return std::nullopt;
  // The columns' input (a filter) reads the reduction innermost, as a
  // plain dim; the rows' (an image) reads it innermost too, or is
  // transposed so that it does.
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands())
    maps.push_back(withoutTrailingUnitDims(op.getMatchingIndexingMap(input),
                                           input->get()));
  auto readsInnermost = [&](AffineMap map) {
    return map.isProjectedPermutation() &&
           plainResult(map, dot.reduction) == map.getNumResults() - 1;
  };
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (unsigned c : {0u, 1u}) {
    if (!readsInnermost(maps[c]))
      continue;
    DotContraction candidate = dot;
    candidate.cols = op.getDpsInputOperand(c);
    candidate.rows = op.getDpsInputOperand(1 - c);
    candidate.colMap = maps[c];
    candidate.rowMap = maps[1 - c];
    std::optional<unsigned> at = plainResult(maps[1 - c], dot.reduction);
    if (!at)
      continue;
    if (*at != maps[1 - c].getNumResults() - 1) {
      candidate.rowMap = moveResultLast(maps[1 - c], *at);
      candidate.transposeRows = true;
    }
    // Where either input could be the columns' (a product A * B^T), the
    // larger is: it is read from memory once, the rows' from cache.
    if (matchLoops(candidate, outMap) &&
        (!dot.cols || boo::staticTensorBytes(candidate.cols->get().getType()) >
                          boo::staticTensorBytes(dot.cols->get().getType())))
      dot = candidate;
  }
  if (!dot.cols)
    return std::nullopt;
  // Few positions share each column: its copy would cost more than it
  // saves.
  int64_t positions = 1;
  for (auto [d, iter] : llvm::enumerate(iters))
    if (iter == utils::IteratorType::parallel && !dot.colMap.isFunctionOfDim(d))
      positions *= dot.ranges[d];
  if (positions > options.maxRows)
    return std::nullopt;
  // Channels-first positions that fill registers are vectorized along, in
  // place: the output's two innermost dims, merged (mergeInnerOutputLoops).
  if (dot.rowDim > dot.colDim) {
    auto outType = cast<RankedTensorType>(op.getDpsInits()[0].getType());
    int64_t merged = outType.getDimSize(dot.rowDim);
    if (dot.rowDim >= 1 && dot.rowDim - 1 != dot.colDim)
      merged *= outType.getDimSize(dot.rowDim - 1);
    if (merged % options.positionTile == 0)
      return std::nullopt;
  }
  // A larger columns' input is packed one block at a time where it is read
  // (planPackedBlocks), which costs less than the lanes' additions.
  std::optional<int64_t> colBytes =
      boo::staticTensorBytes(dot.cols->get().getType());
  if (options.maxColBytes > 0 &&
      (!colBytes || *colBytes >= options.maxColBytes))
    return std::nullopt;
  return dot;
}

/// `input` read through `map`, `trimmed` after its trailing unit dims are
/// dropped: collapsed into the dim before them.
Value collapseTrailingUnitDims(RewriterBase &rewriter, Location loc,
                               Value input, AffineMap map, AffineMap trimmed) {
  unsigned n = trimmed.getNumResults();
  if (n == map.getNumResults())
    return input;
  SmallVector<ReassociationIndices> groups;
  for (unsigned i = 0; i + 1 < n; ++i)
    groups.push_back({int64_t(i)});
  groups.push_back(
      llvm::to_vector(llvm::seq<int64_t>(n - 1, map.getNumResults())));
  return tensor::CollapseShapeOp::create(rewriter, loc, input, groups);
}

/// `dot.op` rewritten to read its inputs through dot.rowMap and
/// dot.colMap: trailing unit dims collapsed, the rows' input transposed
/// (a copy, tiled with the other copies) where its reduction is not
/// innermost. Returns `dot` matched on the new generic.
DotContraction normalizeInputs(RewriterBase &rewriter, DotContraction dot) {
  linalg::GenericOp op = dot.op;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  AffineMap rowsMap = op.getMatchingIndexingMap(dot.rows);
  AffineMap trimmedRows = withoutTrailingUnitDims(rowsMap, dot.rows->get());
  Value rows = collapseTrailingUnitDims(rewriter, loc, dot.rows->get(),
                                        rowsMap, trimmedRows);
  if (dot.transposeRows) {
    auto type = cast<RankedTensorType>(rows.getType());
    unsigned rank = type.getRank();
    unsigned at = *plainResult(trimmedRows, dot.reduction);
    SmallVector<int64_t> shape(type.getShape());
    int64_t moved = shape[at];
    shape.erase(shape.begin() + at);
    shape.push_back(moved);
    // Element j of the copy's index lists which dim of the source it is.
    SmallVector<AffineExpr> read;
    for (unsigned j = 0; j < rank; ++j)
      read.push_back(rewriter.getAffineDimExpr(j < at    ? j
                                               : j == at ? rank - 1
                                                         : j - 1));
    // The copy is made in f32 (x86 has no shuffles of bf16 vectors, and
    // the multiply-adds extend every element anyway).
    Type f32 = rewriter.getF32Type();
    Value init = tensor::EmptyOp::create(rewriter, loc, shape, f32);
    rows = linalg::GenericOp::create(
               rewriter, loc, init.getType(), rows, init,
               ArrayRef<AffineMap>{
                   AffineMap::get(rank, 0, read, op.getContext()),
                   rewriter.getMultiDimIdentityMap(rank)},
               SmallVector<utils::IteratorType>(rank,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &b, Location loc, ValueRange args) {
                 Value v = args[0];
                 if (v.getType() != f32)
                   v = arith::ExtFOp::create(b, loc, f32, v);
                 linalg::YieldOp::create(b, loc, v);
               })
               .getResult(0);
  }
  AffineMap colsMap = op.getMatchingIndexingMap(dot.cols);
  Value cols = collapseTrailingUnitDims(rewriter, loc, dot.cols->get(),
                                        colsMap, dot.colMap);
  bool rowsFirst = dot.rows->getOperandNumber() == 0;
  SmallVector<Value> inputs =
      rowsFirst ? SmallVector<Value>{rows, cols}
                : SmallVector<Value>{cols, rows};
  SmallVector<AffineMap> maps =
      rowsFirst ? SmallVector<AffineMap>{dot.rowMap, dot.colMap}
                : SmallVector<AffineMap>{dot.colMap, dot.rowMap};
  maps.push_back(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
  // The body is `out + a * b` (isMultiplyAddBody), a promoted input's
  // extension left out.
  auto generic = linalg::GenericOp::create(
      rewriter, loc, op.getResultTypes(), inputs, op.getDpsInits(), maps,
      op.getIteratorTypesArray(),
      [](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> in(args.take_front(2));
        for (Value &v : in)
          if (!v.getType().isF32())
            v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
        Value product = arith::MulFOp::create(b, loc, in[0], in[1]);
        linalg::YieldOp::create(
            b, loc,
            ValueRange{arith::AddFOp::create(b, loc, args[2], product)});
      });
  rewriter.replaceOp(op, generic.getResults());
  dot.op = generic;
  dot.rows = generic.getDpsInputOperand(rowsFirst ? 0 : 1);
  dot.cols = generic.getDpsInputOperand(rowsFirst ? 1 : 0);
  dot.transposeRows = false;
  return dot;
}

/// Builds the register tiles of a dot-product contraction.
class DotBuilder {
public:
  DotBuilder(RewriterBase &rewriter, DotContraction dot, int64_t lanes)
      : b(rewriter), dot(dot), loc(dot.op.getLoc()), lanes(lanes),
        f32(rewriter.getF32Type()) {}

  /// `dest` with every register tile of `tile` computed (the rows left
  /// over in a tile of their own); `fill`, when set, is the initial value
  /// of every output.
  Value build(Value dest, DotTile tile, Value fill);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType f32Vector(int64_t n) { return VectorType::get({n}, f32); }
  /// A register of `input` read at its indexing map's results for `loops`
  /// (a value per loop), in f32.
  Value read(OpOperand *input, ArrayRef<Value> loops);
  /// `block` (the output's slice of one forall iteration) with the rows
  /// of every position computed: loops over the position dims outside the
  /// rows, then the rows' tiles. `loops` holds the forall's loops' values.
  Value computeRows(Value block, SmallVector<Value> loops, unsigned dim);
  /// `block` with the register tile of `shape` computed whose first
  /// element is at `loops` (every loop's value), `at` in `block`.
  Value computeTile(Value block, DotTile shape, ArrayRef<Value> loops,
                    SmallVector<Value> at);
  /// The sums of each of `vectors`' lanes, as one vector.
  Value addLanes(SmallVector<Value> vectors);

  RewriterBase &b;
  DotContraction dot;
  Location loc;
  int64_t lanes;
  Type f32;
  // Set by build: the register tile, the fill's value (or null) and the
  // output dims of the forall (those the columns' input is indexed by).
  DotTile tile;
  Value fill;
  SmallVector<bool> parallelDims;
};

Value DotBuilder::read(OpOperand *input, ArrayRef<Value> loops) {
  AffineMap map = dot.op.getMatchingIndexingMap(input);
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      indices.push_back(loops[dim.getPosition()]);
      continue;
    }
    indices.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, e), loops));
  }
  return boo::readImageRow(b, loc, input->get(), indices, lanes,
                           /*inBounds=*/true);
}

Value DotBuilder::addLanes(SmallVector<Value> vectors) {
  int64_t n = vectors.size();
  int64_t padded = llvm::PowerOf2Ceil(n);
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f));
  vectors.resize(padded, zeros);
  // Pairs of vectors are added half against half: after log2(n) levels one
  // vector holds n groups of lanes / n partial sums, in the vectors' order.
  int64_t group = lanes;
  while (vectors.size() > 1) {
    int64_t half = group / 2;
    SmallVector<int64_t> low, high;
    for (int64_t source : {int64_t(0), lanes})
      for (int64_t g = 0; g < lanes; g += group)
        for (int64_t l = 0; l < half; ++l) {
          low.push_back(source + g + l);
          high.push_back(source + g + half + l);
        }
    SmallVector<Value> next;
    for (size_t i = 0; i < vectors.size(); i += 2) {
      Value x = vector::ShuffleOp::create(b, loc, vectors[i], vectors[i + 1],
                                          low);
      Value y = vector::ShuffleOp::create(b, loc, vectors[i], vectors[i + 1],
                                          high);
      next.push_back(arith::AddFOp::create(b, loc, x, y));
    }
    vectors = std::move(next);
    group = half;
  }
  // Then each group is halved until a lane each is left.
  Value v = vectors.front();
  while (group > 1) {
    int64_t half = group / 2;
    SmallVector<int64_t> low, high;
    for (int64_t g = 0; g < padded; ++g)
      for (int64_t l = 0; l < half; ++l) {
        low.push_back(g * group + l);
        high.push_back(g * group + half + l);
      }
    Value x = vector::ShuffleOp::create(b, loc, v, v, low);
    Value y = vector::ShuffleOp::create(b, loc, v, v, high);
    v = arith::AddFOp::create(b, loc, x, y);
    group = half;
  }
  if (padded != n)
    v = vector::ShuffleOp::create(
        b, loc, v, v, llvm::to_vector(llvm::seq<int64_t>(0, n)));
  return v;
}

Value DotBuilder::computeTile(Value block, DotTile shape,
                              ArrayRef<Value> loops, SmallVector<Value> at) {
  int64_t count = shape.rows * shape.cols;
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(f32Vector(lanes), 0.0f));
  SmallVector<Value> init(count, zeros);
  auto loop = scf::ForOp::create(b, loc, index(0),
                                 index(dot.ranges[dot.reduction]),
                                 index(lanes), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> sums(loop.getRegionIterArgs());
    SmallVector<Value> values(loops);
    values[dot.reduction] = loop.getInductionVar();
    Value firstCol = loops[dot.colLoop], firstRow = loops[dot.rowLoop];
    SmallVector<Value> colRegs;
    for (int64_t c = 0; c < shape.cols; ++c) {
      values[dot.colLoop] = arith::AddIOp::create(b, loc, firstCol, index(c));
      colRegs.push_back(read(dot.cols, values));
    }
    values[dot.colLoop] = firstCol;
    for (int64_t r = 0; r < shape.rows; ++r) {
      values[dot.rowLoop] = arith::AddIOp::create(b, loc, firstRow, index(r));
      Value row = read(dot.rows, values);
      for (int64_t c = 0; c < shape.cols; ++c) {
        Value &sum = sums[r * shape.cols + c];
        sum = vector::FMAOp::create(b, loc, row, colRegs[c], sum);
      }
    }
    scf::YieldOp::create(b, loc, sums);
  }
  // The sums along the output's innermost dim (each row's columns, or
  // each column's rows), added across lanes, to the initial value.
  bool alongCols = dot.colDim > dot.rowDim;
  unsigned otherDim = alongCols ? dot.rowDim : dot.colDim;
  int64_t vectors = alongCols ? shape.rows : shape.cols;
  int64_t width = alongCols ? shape.cols : shape.rows;
  bool zeroFill = fill && matchPattern(fill, m_AnyZeroFloat());
  Value first = at[otherDim];
  VectorType type = f32Vector(width);
  for (int64_t i = 0; i < vectors; ++i) {
    SmallVector<Value> sums;
    for (int64_t j = 0; j < width; ++j)
      sums.push_back(loop.getResult(alongCols ? i * shape.cols + j
                                              : j * shape.cols + i));
    Value v = addLanes(sums);
    at[otherDim] = arith::AddIOp::create(b, loc, first, index(i));
    if (!fill) {
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
      Value old = vector::TransferReadOp::create(b, loc, type, block, at,
                                                 zero, ArrayRef<bool>{true});
      v = arith::AddFOp::create(b, loc, old, v);
    } else if (!zeroFill) {
      v = arith::AddFOp::create(b, loc,
                                vector::BroadcastOp::create(b, loc, type, fill),
                                v);
    }
    block = vector::TransferWriteOp::create(b, loc, v, block, at,
                                            ArrayRef<bool>{true})
                .getResult();
  }
  return block;
}

Value DotBuilder::computeRows(Value block, SmallVector<Value> loops,
                              unsigned dim) {
  AffineMap outMap = dot.op.getMatchingIndexingMap(dot.op.getDpsInitOperand(0));
  auto type = cast<RankedTensorType>(block.getType());
  // The position dims outside the rows: a loop each.
  while (dim < type.getRank() && (parallelDims[dim] || dim == dot.rowDim))
    ++dim;
  if (dim < type.getRank()) {
    auto loop = scf::ForOp::create(b, loc, index(0),
                                   index(type.getDimSize(dim)), index(1),
                                   ValueRange{block});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    loops[outMap.getDimPosition(dim)] = loop.getInductionVar();
    scf::YieldOp::create(
        b, loc, computeRows(loop.getRegionIterArgs()[0], loops, dim + 1));
    return loop.getResult(0);
  }
  // The rows: whole tiles, then the rows left.
  SmallVector<Value> at;
  for (unsigned i = 0; i < type.getRank(); ++i)
    at.push_back(parallelDims[i] ? index(0) : loops[outMap.getDimPosition(i)]);
  int64_t extent = dot.ranges[dot.rowLoop];
  int64_t whole = extent / tile.rows * tile.rows;
  if (whole > 0) {
    auto loop = scf::ForOp::create(b, loc, index(0), index(whole),
                                   index(tile.rows), ValueRange{block});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    loops[dot.rowLoop] = at[dot.rowDim] = loop.getInductionVar();
    scf::YieldOp::create(b, loc,
                         computeTile(loop.getRegionIterArgs()[0], tile, loops,
                                     at));
    block = loop.getResult(0);
  }
  if (whole < extent) {
    loops[dot.rowLoop] = at[dot.rowDim] = index(whole);
    block = computeTile(block, {extent - whole, tile.cols}, loops, at);
  }
  return block;
}

Value DotBuilder::build(Value dest, DotTile shape, Value fillValue) {
  tile = shape;
  fill = fillValue;
  AffineMap outMap = dot.op.getMatchingIndexingMap(dot.op.getDpsInitOperand(0));
  AffineMap colMap = dot.op.getMatchingIndexingMap(dot.cols);
  auto outType = cast<RankedTensorType>(dest.getType());
  unsigned rank = outType.getRank();
  // One iteration per tile of columns (and per value of the other dims
  // the columns' input has: groups), the columns' tiles outermost: each
  // tile's rows of that input are read from memory once.
  SmallVector<unsigned> order = {dot.colDim};
  parallelDims.assign(rank, false);
  parallelDims[dot.colDim] = true;
  for (unsigned i = 0; i < rank; ++i)
    if (i != dot.colDim && colMap.isFunctionOfDim(outMap.getDimPosition(i))) {
      order.push_back(i);
      parallelDims[i] = true;
    }
  SmallVector<OpFoldResult> ubs;
  for (unsigned i : order) {
    int64_t extent = outType.getDimSize(i);
    ubs.push_back(
        b.getIndexAttr(i == dot.colDim ? extent / tile.cols : extent));
  }
  auto forall =
      scf::ForallOp::create(b, loc, ubs, ValueRange{dest}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> loops(dot.op.getNumLoops(), index(0));
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
      strides(rank, b.getIndexAttr(1));
  for (unsigned i = 0; i < rank; ++i)
    sizes.push_back(
        b.getIndexAttr(parallelDims[i] ? 1 : outType.getDimSize(i)));
  sizes[dot.colDim] = b.getIndexAttr(tile.cols);
  for (auto [i, iv] : llvm::zip(order, forall.getInductionVars())) {
    Value at = iv;
    if (i == dot.colDim)
      at = arith::MulIOp::create(b, loc, iv, index(tile.cols));
    loops[outMap.getDimPosition(i)] = at;
    offsets[i] = at;
  }
  Value shared = forall.getRegionIterArgs()[0];
  Value block = tensor::ExtractSliceOp::create(b, loc, shared, offsets, sizes,
                                               strides);
  Value result = computeRows(block, loops, 0);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, result, shared, offsets, sizes,
                                        strides);
  return forall.getResult(0);
}

/// Cycles of one step of a register tile: bound by its multiply-adds, its
/// reads or the latency of too few chains (2 multiply-adds and 2 reads a
/// cycle).
int64_t stepCost(int64_t rows, int64_t cols) {
  return std::max({rows * cols, rows + cols, kMinChains});
}

} // namespace

DotTile boo::chooseDotTile(int64_t rowExtent, int64_t colExtent,
                           int64_t lanes, int64_t accumulatorLanes,
                           int64_t registers, bool rowsInnermost) {
  DotTile best;
  int64_t bestCost = 0, bestReads = 0;
  for (int64_t cols = 1; cols <= std::min(kMaxCols, lanes); ++cols) {
    if (colExtent % cols != 0)
      continue;
    // Sums along the rows are added across lanes together: a register's
    // worth at most.
    int64_t mostRows =
        rowsInnermost ? std::min({rowExtent, kMaxCols, lanes}) : rowExtent;
    for (int64_t rows = 1; rows <= mostRows; ++rows) {
      if (rows * cols * lanes > accumulatorLanes ||
          rows * cols + cols + 1 > registers)
        break;
      int64_t full = rowExtent / rows, left = rowExtent % rows;
      int64_t tiles = colExtent / cols;
      int64_t cost = tiles * (full * stepCost(rows, cols) +
                              (left ? stepCost(left, cols) : 0));
      int64_t reads =
          tiles * (full * (rows + cols) + (left ? left + cols : 0));
      if (best.rows == 0 || cost < bestCost ||
          (cost == bestCost && reads < bestReads)) {
        best = {rows, cols};
        bestCost = cost;
        bestReads = reads;
      }
    }
  }
  return best;
}

bool boo::computeDotTiles(RewriterBase &rewriter, linalg::GenericOp op,
                          const DotOptions &options) {
  std::optional<DotContraction> dot = matchDot(op, options);
  if (!dot)
    return false;
  int64_t rowExtent = dot->ranges[dot->rowLoop];
  DotTile tile = chooseDotTile(rowExtent, dot->ranges[dot->colLoop],
                               options.lanes, options.accumulatorLanes,
                               options.registers, dot->rowDim > dot->colDim);
  if (tile.rows == 0)
    return false;
  *dot = normalizeInputs(rewriter, *dot);
  rewriter.setInsertionPoint(dot->op);
  Value fill;
  Value dest = boo::convDestination(rewriter, dot->op, fill);
  Value result =
      DotBuilder(rewriter, *dot, options.lanes).build(dest, tile, fill);
  boo::replaceConvolution(rewriter, dot->op, result);
  return true;
}
