//===- CPUPackedBlocks.cpp - Operand copies packed per block --------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// See CPUPackedBlocks.h. The 3x3 512->512 convolution at 7x7 reorders its
// 9.4 MB filter into blocks of 32 output channels; each block (590 KB) is
// read by the 7 output rows of its channels. Reordered in a pass of its
// own, the filter goes to memory and comes back; packed at the start of
// each block's iteration, the rows read it from the L2 cache.
//
//===----------------------------------------------------------------------===//

#include "CPUPackedBlocks.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::boo;

/// The fewest blocks (iterations of the forall) worth packing: fewer would
/// leave the threads of a larger machine idle.
constexpr int64_t kMinBlocks = 8;

/// Bytes of a statically shaped tensor value, or 0.
static int64_t staticBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return 0;
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

std::optional<PackPlan>
mlir::boo::planPackedBlocks(linalg::GenericOp op, ArrayRef<int64_t> tiles,
                            int64_t minBytes,
                            ArrayRef<linalg::GenericOp> copies) {
  if (minBytes <= 0 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() == 0)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (tiles.size() != ranges.size())
    return std::nullopt;
  for (auto [index, operand] : llvm::enumerate(op.getDpsInputOperands())) {
    auto copy = operand->get().getDefiningOp<linalg::GenericOp>();
    if (!copy || !copy->hasOneUse() || !llvm::is_contained(copies, copy) ||
        copy.getNumDpsInputs() != 1 || copy.getNumReductionLoops() != 0 ||
        !isPure(copy) || staticBytes(operand->get()) < minBytes)
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!map.isProjectedPermutation())
      continue;
    PackPlan plan{unsigned(index), SmallVector<bool>(ranges.size(), false)};
    // Blocks: the tiles of the parallel loops that index the copy; readers
    // of a block: the tiles of the others.
    int64_t blocks = 1, readers = 1;
    for (unsigned d = 0, e = ranges.size(); d < e; ++d) {
      plan.outer[d] = map.isFunctionOfDim(d);
      if (iters[d] != utils::IteratorType::parallel || tiles[d] <= 0)
        continue;
      (plan.outer[d] ? blocks : readers) *= ranges[d] / tiles[d];
    }
    if (blocks >= kMinBlocks && readers >= 2)
      return plan;
  }
  return std::nullopt;
}

FailureOr<linalg::GenericOp> mlir::boo::fusePackedBlock(RewriterBase &rewriter,
                                                        linalg::GenericOp tile,
                                                        unsigned input) {
  auto forall = tile->getParentOfType<scf::ForallOp>();
  if (!forall || input >= tile.getNumDpsInputs())
    return failure();
  // The forall's own slice of the copy: the tile's operand is a slice of a
  // slice (the inner loops') of it.
  tensor::ExtractSliceOp slice;
  for (Value value = tile.getDpsInputOperand(input)->get(); !slice;) {
    auto candidate = value.getDefiningOp<tensor::ExtractSliceOp>();
    if (!candidate)
      return failure();
    if (candidate->getParentOp() == forall.getOperation())
      slice = candidate;
    value = candidate.getSource();
  }
  auto copy = slice.getSource().getDefiningOp<linalg::GenericOp>();
  if (!copy || !copy->hasOneUse() || forall->isAncestor(copy))
    return failure();
  SmallVector<LoopLikeOpInterface> loops = {
      cast<LoopLikeOpInterface>(forall.getOperation())};
  std::optional<scf::SCFFuseProducerOfSliceResult> fused =
      scf::tileAndFuseProducerOfSlice(rewriter, slice, loops);
  if (!fused || fused->tiledOps.empty())
    return failure();
  // The block is written into a temporary of the iteration (its init is a
  // slice of the copy's empty tensor), which boo-cpu-stack-temporaries
  // frees at the iteration's end: each thread reuses a block of memory the
  // runtime's allocation cache hands back, still in its cache.
  auto copyTile = dyn_cast<linalg::GenericOp>(fused->tiledOps.front());
  if (!copyTile)
    return failure();
  if (slice->use_empty())
    rewriter.eraseOp(slice);
  return copyTile;
}
