//===- CPUTileSizes.cpp - The tile sizes of the CPU schedule --------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// chooseTileSizes and its helpers (CPUTileSizes.h); the rules are in
// docs/CPUPipeline.md, "Choose static tile sizes".
//
//===----------------------------------------------------------------------===//

#include "CPUTileSizes.h"

#include "CPUOperandLayouts.h"

#include <numeric>

using namespace mlir;
using namespace mlir::boo;

/// The tile of the vector loop: the largest divisor of `n` up to `limit`
/// that is `lanes` times a power of two, so that the vector is whole
/// registers (LLVM widens a 24-lane vector to 32 on a 16-lane machine and
/// moves it element by element); else the largest power of two dividing
/// `n` (up to `limit`), else the largest divisor.
static int64_t vectorDivisor(int64_t n, int64_t limit, int64_t lanes) {
  for (int64_t t = llvm::bit_floor(uint64_t(limit / lanes)) * lanes; t >= lanes;
       t /= 2)
    if (n % t == 0)
      return t;
  for (int64_t t = llvm::bit_floor(uint64_t(std::min(n, limit))); t > 1; t /= 2)
    if (n % t == 0)
      return t;
  return largestDivisor(n, limit);
}

unsigned mlir::boo::vectorLoop(linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  for (AffineExpr e : llvm::reverse(outMap.getResults())) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (ranges[d] != 1)
      return d;
  }
  return cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
}

std::optional<unsigned> mlir::boo::transposedLoop(linalg::GenericOp op,
                                                  unsigned vecDim) {
  if (op.getNumDpsInputs() != 1 || op.getNumReductionLoops() != 0)
    return std::nullopt;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // The input's innermost dim, skipping unit ones.
  for (AffineExpr e : llvm::reverse(map.getResults())) {
    auto inner = dyn_cast<AffineDimExpr>(e);
    if (!inner)
      return std::nullopt;
    if (ranges[inner.getPosition()] == 1)
      continue;
    if (inner.getPosition() == vecDim)
      return std::nullopt;
    return inner.getPosition();
  }
  return std::nullopt;
}

/// Whether some input of `op` is indexed by every loop: each output element
/// reads its own elements of it, and nothing of it is reused across loops
/// (a row reduction's partial sums, a layer norm's weight gradient), as in
/// no convolution or contraction.
static bool hasFullInput(linalg::GenericOp op) {
  return llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *operand) {
    return op.getMatchingIndexingMap(operand).isPermutation();
  });
}

/// The bytes of one way of an L1 data cache (Zen 4's, Zen 5's and recent
/// Intel cores': 64 sets of 64-byte lines), and the lines of one set the
/// rows of a tile may take.
constexpr int64_t kL1WayBytes = 4096;
constexpr int64_t kRowLinesPerSet = 8;

/// Whether `rows` rows along loop `d` of an input of `op` not indexed by
/// its vector loop (a filter's output channels, read one scalar per row)
/// would take more than kRowLinesPerSet lines of one L1 set: rows 4 KiB
/// apart (1024 float input channels) all fall in one set. A merged 1x1
/// channels-first convolution at 14x14 with 1024 input channels (its
/// overlapping last tile 16 positions wide) took 0.48-0.52 ms with 16
/// rows in that tile, 0.45-0.46 with 8 (cpu:1, alternating runs).
static bool crowdsCacheSet(linalg::GenericOp op, unsigned d, int64_t rows) {
  unsigned vecDim = vectorLoop(op);
  AffineExpr loop = getAffineDimExpr(d, op.getContext());
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    auto type = dyn_cast<ShapedType>(operand->get().getType());
    std::optional<unsigned> pos = map.getResultPosition(loop);
    if (!type || !type.hasStaticShape() || map.isFunctionOfDim(vecDim) || !pos)
      continue;
    int64_t stride = type.getElementTypeBitWidth() / 8;
    for (int64_t size : type.getShape().drop_front(*pos + 1))
      stride *= size;
    if (stride <= 0) // sub-byte elements, an empty dim
      continue;
    int64_t sets = kL1WayBytes / std::gcd(stride, kL1WayBytes);
    if (rows > kRowLinesPerSet * std::min(rows, sets))
      return true;
  }
  return false;
}

/// Shrinks the register tile of a reduction (`tiles` along `vecDim` and
/// `rowDim`) whose accumulators hold more than `accumulatorLanes` f32
/// lanes, which would spill them to the stack in every step of the
/// reduction: of the vector tiles that divide the vector loop (halving
/// down to one vector) and the most rows that then fit (dividing the row
/// loop unless `targets.undividedRows`), it takes the one whose step fits
/// the registers (the accumulators, one row of the vector operand and a
/// broadcast register in the lanes of which `accumulatorLanes` is three
/// quarters), then the one that holds the most lanes, then the one that
/// loads fewer registers per step (rows broadcast plus vectors read). An
/// AVX2 host (16 registers of 8 lanes) gets 12 accumulator registers,
/// 6 rows of 16 lanes (3 of 32 leave 4 registers for the 4 of a vector
/// row and a broadcast), where the tile aims at 8 rows of 32 lanes (32
/// registers); see docs/CPUPipeline.md, "Choose static tile sizes".
static void fitAccumulators(SmallVector<int64_t> &tiles,
                            ArrayRef<int64_t> ranges, unsigned vecDim,
                            unsigned rowDim, const TileTargets &targets) {
  int64_t budget = targets.accumulatorLanes;
  if (budget <= 0 || tiles[vecDim] * tiles[rowDim] <= budget)
    return;
  int64_t lanes = targets.vectorLanes;
  auto loads = [&](int64_t vector, int64_t rows) {
    return rows + (vector + lanes - 1) / lanes;
  };
  auto fits = [&](int64_t vector, int64_t rows) {
    return 3 * (vector * rows + vector + lanes) <= 4 * budget;
  };
  // Whether (vector, rows) is a better tile than (bestVector, bestRows).
  auto better = [&](int64_t vector, int64_t rows, int64_t bestVector,
                    int64_t bestRows) {
    if (fits(vector, rows) != fits(bestVector, bestRows))
      return fits(vector, rows);
    int64_t held = vector * rows, bestHeld = bestVector * bestRows;
    if (held != bestHeld)
      return held > bestHeld;
    return loads(vector, rows) < loads(bestVector, bestRows);
  };
  int64_t bestVector = 0, bestRows = 0;
  for (int64_t vector = tiles[vecDim];; vector /= 2) {
    int64_t most = std::max<int64_t>(1, budget / vector);
    int64_t rows =
        targets.undividedRows
            ? std::min({most, ranges[rowDim],
                        std::max(tiles[rowDim], targets.rowTile)})
            : std::min(largestDivisor(ranges[rowDim], most), tiles[rowDim]);
    if (vector * rows <= budget &&
        (bestRows == 0 || better(vector, rows, bestVector, bestRows))) {
      bestVector = vector;
      bestRows = rows;
    }
    if (vector <= lanes || vector % 2 != 0)
      break;
  }
  if (bestRows == 0) {
    bestVector = tiles[vecDim];
    bestRows = 1;
  }
  tiles[vecDim] = bestVector;
  tiles[rowDim] = bestRows;
}

/// `given`'s lane counts (f32 lanes) in lanes of `op`'s output elements
/// where those are wider than f32: an f64 product's vector and accumulator
/// tiles hold half as many elements in the same registers.
static TileTargets scaleToOutput(linalg::GenericOp op,
                                 const TileTargets &given) {
  TileTargets t = given;
  Type elem = getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
  int64_t bits = elem.isIntOrFloat() ? elem.getIntOrFloatBitWidth() : 32;
  if (bits <= 32)
    return t;
  int64_t ratio = bits / 32;
  t.vectorLanes = std::max<int64_t>(1, t.vectorLanes / ratio);
  t.vectorTile = std::max<int64_t>(t.vectorLanes, t.vectorTile / ratio);
  t.accumulatorLanes /= ratio;
  return t;
}

FailureOr<SmallVector<int64_t>>
mlir::boo::chooseTileSizes(linalg::GenericOp op, const TileTargets &given) {
  TileTargets targets = scaleToOutput(op, given);
  int64_t vectorLanes = targets.vectorLanes;
  int64_t vectorTile = targets.vectorTile;
  int64_t rowTile = targets.rowTile;
  int64_t reductionTile = targets.reductionTile;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic) || ranges.empty())
    return failure();
  unsigned numLoops = ranges.size();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<int64_t> tiles(numLoops, 1);
  // Every input map must be linear with positive coefficients; remember the
  // loops that share a windowed access.
  SmallVector<SmallVector<unsigned>> windows;
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    for (AffineExpr e : map.getResults()) {
      FailureOr<LinearExpr> lin = decomposeLinear(e);
      if (failed(lin))
        return failure();
      if (lin->terms.size() < 2)
        continue;
      SmallVector<unsigned> window;
      for (auto [d, c] : lin->terms)
        window.push_back(d);
      windows.push_back(window);
    }
  }
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outMap.isProjectedPermutation() || outMap.getNumResults() == 0)
    return failure();
  // Gives loop `d` a tile of up to `limit` unless it shares a window with a
  // loop that already has a tile > 1 (a tile may only slide one loop of
  // each window).
  auto assign = [&](unsigned d, int64_t limit, bool isVector = false) {
    if (tiles[d] > 1)
      return;
    for (ArrayRef<unsigned> window : windows)
      if (llvm::is_contained(window, d))
        for (unsigned other : window)
          if (other != d && tiles[other] > 1)
            return;
    tiles[d] = isVector ? vectorDivisor(ranges[d], limit, vectorLanes)
                        : largestDivisor(ranges[d], limit);
  };
  // Vector dim: the loop of the output's innermost (non-unit) dim.
  unsigned vecDim = vectorLoop(op);
  // A transposing copy (one input, contiguous along another loop of the
  // output) is tiled in register-wide squares: whole rows of the input are
  // read, whole rows of the output written, and the square is transposed
  // in registers.
  if (std::optional<unsigned> inner = transposedLoop(op, vecDim)) {
    tiles[vecDim] = vectorDivisor(ranges[vecDim], 2 * vectorLanes, vectorLanes);
    tiles[*inner] = vectorDivisor(ranges[*inner], 2 * vectorLanes, vectorLanes);
    // The output dims after the input's innermost one, when they hold at
    // most a register's width of elements, are taken whole: each tile then
    // writes one contiguous run of the output. A 3x3 KCYX weight
    // gradient's copy writes 16 channels x 9 taps (144 floats) per tile
    // rather than 16 runs of 3. With the flattened writes of
    // boo-cpu-lower-vectors, ResNet-50's 512->512 gradient at 7x7 went
    // from 1.78-1.83 to 1.41-1.60 ms on cpu:1 (alternating runs), at 14x14
    // stride 2 from 2.18-2.56 to 1.80-2.14 ms.
    std::optional<unsigned> innerPos =
        outMap.getResultPosition(getAffineDimExpr(*inner, op.getContext()));
    if (innerPos) {
      auto after = llvm::seq<unsigned>(*innerPos + 1, outMap.getNumResults());
      int64_t elements = 1;
      for (unsigned i : after)
        elements *= ranges[outMap.getDimPosition(i)];
      if (elements <= 2 * vectorLanes)
        for (unsigned i : after)
          tiles[outMap.getDimPosition(i)] = ranges[outMap.getDimPosition(i)];
    }
    return tiles;
  }
  assign(vecDim, vectorTile, /*isVector=*/true);
  // A contraction whose vector tile is narrower than vectorTile takes more
  // rows, up to twice rowTile, for as many accumulators: a merged 1x1
  // channels-first convolution at 28x28 (784 positions, a tile of 16) has
  // 16 rows of output channels instead of 8. A Zen 5 core issues two
  // 512-bit FMAs per cycle of 4 cycles' latency: 8 accumulators left it
  // waiting (on cpu:1, ResNet-50's 512->128 layer went from 0.56-0.58 to
  // 0.51-0.52 ms, 128->512 from 0.49 to 0.45-0.46).
  int64_t rows = rowTile;
  if (op.getNumDpsInputs() >= 2 && op.getNumReductionLoops() > 0 &&
      tiles[vecDim] < vectorTile && tiles[vecDim] % vectorLanes == 0)
    rows = std::min(2 * rowTile, rowTile * vectorTile / tiles[vecDim]);
  // Row dim: the parallel loop of an output dim (other than the vector
  // dim) that admits the largest tile; ties go to the innermost output dim.
  // For a forward convolution this is the output row (ow), for a weight
  // gradient the output channel.
  // In a contraction, a loop that indexes every input the vector loop
  // indexes (the block loop of blockVectorLoop) shares no vector across
  // rows and is no row dim.
  auto sharesNoVector = [&](unsigned d) {
    if (op.getNumReductionLoops() == 0)
      return false;
    return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *operand) {
      AffineMap map = op.getMatchingIndexingMap(operand);
      return !map.isFunctionOfDim(vecDim) || map.isFunctionOfDim(d);
    });
  };
  std::optional<unsigned> rowDim;
  int64_t bestRow = 1;
  for (AffineExpr e : outMap.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    int64_t t = largestDivisor(ranges[d], rows);
    if (d != vecDim && t >= bestRow && t > 1 && !sharesNoVector(d)) {
      bestRow = t;
      rowDim = d;
    }
  }
  if (rowDim)
    assign(*rowDim, rows > rowTile && crowdsCacheSet(op, *rowDim, rows)
                        ? rowTile
                        : rows);
  if (rowDim && op.getNumReductionLoops() > 0)
    fitAccumulators(tiles, ranges, vecDim, *rowDim, targets);
  // Reduction dim: the reduction loop of some input's innermost dim (a
  // channel loop), else the reduction loop that admits the largest tile.
  // None when an input is indexed by every loop (a row reduction's
  // partial sums, a layer norm's weight gradient): nothing is reused
  // across the reduction, and the tile accumulates element-wise, one step
  // of the reduction at a time.
  std::optional<unsigned> redDim;
  bool readsOnce = hasFullInput(op);
  for (OpOperand *operand : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (readsOnce || map.getNumResults() == 0)
      continue;
    // The innermost dim, skipping those of unit loops (a 1x1 filter's).
    std::optional<unsigned> inner;
    for (AffineExpr e : llvm::reverse(map.getResults())) {
      auto d = dyn_cast<AffineDimExpr>(e);
      if (d && ranges[d.getPosition()] == 1)
        continue;
      if (d)
        inner = d.getPosition();
      break;
    }
    if (inner && iters[*inner] == utils::IteratorType::reduction) {
      redDim = inner;
      break;
    }
  }
  // When every input is indexed by the vector loop (a depthwise
  // convolution), a tiled reduction would be a vector.contract with the
  // vector loop in all three operands, which lowers to shuffles: the
  // reductions stay untiled, and the tile is an element-wise multiply-add.
  if (!redDim && !readsOnce && !everyInputIndexedBy(op, vecDim)) {
    int64_t best = 1;
    for (unsigned d = 0; d < numLoops; ++d) {
      int64_t t = largestDivisor(ranges[d], reductionTile);
      if (iters[d] == utils::IteratorType::reduction && t > best) {
        best = t;
        redDim = d;
      }
    }
  }
  if (redDim)
    assign(*redDim, reductionTile);
  return tiles;
}

SmallVector<int64_t> mlir::boo::rowCombineTileSizes(linalg::GenericOp op) {
  SmallVector<int64_t> tiles = op.getStaticLoopRanges();
  for (auto [t, it] : llvm::zip(tiles, op.getIteratorTypesArray()))
    if (it == utils::IteratorType::parallel)
      t = 1;
  return tiles;
}
