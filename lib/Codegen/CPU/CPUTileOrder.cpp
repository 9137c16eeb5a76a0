//===- CPUTileOrder.cpp - The order a contraction's tiles are visited -----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// visitVectorTilesFirst (CPUTileOrder.h). On cpu:1 (alternating
// boo-run-module --benchmark runs), ResNet-50's channels-first 1x1 layers
// 256->128 at 56x56 went from 0.94-1.11 to 0.83-0.86 ms, 256->64 from
// 0.49-0.52 to 0.44-0.45 and 512->128 at 28x28 from 0.51-0.54 to
// 0.46-0.49. Channels-last convolutions read a reordered filter along the
// vector loop, a copy packed per block where it is large
// (CPUPackedBlocks.h): they keep their order (the 3x3 512->512 layer at
// 7x7 took 1.11-1.30 ms so, 1.03-1.04 without).
//
// An image above half of L2 counts as large: the output, written as it
// is read, and the filter share L2 with it. On cpu:1, the channels-first
// 64->256 layer at 56x56 (an 800 KB image) went from 0.45-0.47 to 0.42 ms,
// 64->64 from 0.116-0.121 to 0.106-0.108, the 256->512 layer at stride 2
// (its 786 KB subsample) from 0.96-1.01 to 0.86, the backward data of
// 512->256 at 28x28 from 0.93-0.99 to 0.82; the weight gradient of the
// channels-last 1024->2048 layer at stride 2 from 1.20-1.22 to 1.25-1.26.
//
//===----------------------------------------------------------------------===//

#include "CPUTileOrder.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::boo;

namespace {
/// The bytes of `op`'s largest input read along loop `along` and not along
/// loop `notAlong`, and whether it is one of `copies`.
std::pair<int64_t, bool> largestInput(linalg::GenericOp op, unsigned along,
                                      unsigned notAlong,
                                      ArrayRef<linalg::GenericOp> copies) {
  int64_t most = 0;
  bool copied = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(along) || map.isFunctionOfDim(notAlong))
      continue;
    auto type = cast<ShapedType>(input->get().getType());
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    if (bytes <= most)
      continue;
    most = bytes;
    auto producer = input->get().getDefiningOp<linalg::GenericOp>();
    copied = producer && llvm::is_contained(copies, producer);
  }
  return {most, copied};
}
} // namespace

linalg::GenericOp mlir::boo::visitVectorTilesFirst(
    RewriterBase &rewriter, linalg::GenericOp op, unsigned vectorLoop,
    SmallVectorImpl<int64_t> &tiles, int64_t l2CacheBytes,
    ArrayRef<linalg::GenericOp> copies) {
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInputs() < 2)
    return op;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<unsigned> rowLoop;
  for (unsigned d = 0; d < vectorLoop; ++d)
    if (iterators[d] == utils::IteratorType::parallel && tiles[d] > 1)
      rowLoop = d;
  if (!rowLoop)
    return op;
  auto [vectorBytes, vectorCopied] =
      largestInput(op, vectorLoop, *rowLoop, copies);
  int64_t rowBytes = largestInput(op, *rowLoop, vectorLoop, copies).first;
  if (vectorCopied || vectorBytes <= l2CacheBytes / 2)
    return op;
  // Both inputs beyond L2: whichever order reads fewer bytes from beyond
  // it. Row tiles first, each re-reads the vector input; vector tiles
  // first, each re-reads the row input.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rowTiles = ranges[*rowLoop] / tiles[*rowLoop];
  int64_t vectorTiles = ranges[vectorLoop] / tiles[vectorLoop];
  if (rowBytes > l2CacheBytes / 2 &&
      vectorTiles * rowBytes >= rowTiles * vectorBytes)
    return op;
  SmallVector<unsigned> order;
  for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d) {
    if (d == *rowLoop)
      order.push_back(vectorLoop);
    if (d != vectorLoop)
      order.push_back(d);
  }
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> reordered =
      linalg::interchangeGenericOp(rewriter, op, order);
  if (failed(reordered))
    return op;
  SmallVector<int64_t> permuted;
  for (unsigned d : order)
    permuted.push_back(tiles[d]);
  tiles.assign(permuted);
  return *reordered;
}
