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
#include "CPUOperandLayouts.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::boo;

/// The fewest blocks (iterations of the forall) worth packing: fewer would
/// leave the threads of a larger machine idle.
constexpr int64_t kMinBlocks = 8;

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
  // Every iteration of the forall reads the other inputs whole: of the
  // inputs that could be packed, the one whose blocks times the other
  // inputs' bytes is least. A product whose A stored transposed is copied
  // back (512+ rows) packs B in blocks of columns, as the plain product
  // does, instead of walking A's row strips and streaming all of B for
  // each: gemm -m 1024 -k 1024 -n 1024 -u 1 on cpu:1 went from 0.53x of
  // oneDNN to the plain product's speed.
  int64_t inputBytes = 0;
  for (OpOperand *operand : op.getDpsInputOperands())
    inputBytes += staticTensorBytes(operand->get().getType()).value_or(0);
  std::optional<PackPlan> best;
  double bestCost = 0;
  for (auto [index, operand] : llvm::enumerate(op.getDpsInputOperands())) {
    auto copy = operand->get().getDefiningOp<linalg::GenericOp>();
    if (!copy || !copy->hasOneUse() || !llvm::is_contained(copies, copy) ||
        copy.getNumDpsInputs() != 1 || copy.getNumReductionLoops() != 0 ||
        !isPure(copy) ||
        staticTensorBytes(operand->get().getType()).value_or(0) < minBytes)
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
    if (blocks < kMinBlocks || readers < 2)
      continue;
    int64_t own = staticTensorBytes(operand->get().getType()).value_or(0);
    double cost = static_cast<double>(blocks) * (inputBytes - own);
    if (!best || cost < bestCost) {
      best = std::move(plan);
      bestCost = cost;
    }
  }
  return best;
}

/// Erases the users of `value` that are dead once their own dead users are
/// (a reversal left behind by foldReversals, whose slices were folded).
static void eraseDeadUsers(RewriterBase &rewriter, Value value) {
  for (Operation *user : llvm::make_early_inc_range(value.getUsers())) {
    for (Value result : user->getResults())
      eraseDeadUsers(rewriter, result);
    if (isOpTriviallyDead(user))
      rewriter.eraseOp(user);
  }
}

/// The block of `copy` an iteration of `forall` reads: along each dim, the
/// forall's induction variable where every slice of `copy` in the body
/// starts there with one static size, else the whole dim. The block's slice
/// is made at the start of the body, and every slice of `copy` in the body
/// becomes a slice of it. Null (changing nothing) when no dim is a block
/// or `copy` has another use.
static tensor::ExtractSliceOp sliceBlock(RewriterBase &rewriter,
                                         scf::ForallOp forall, Value copy) {
  SmallVector<tensor::ExtractSliceOp> slices;
  for (Operation *user : copy.getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !forall->isProperAncestor(slice) || !slice.hasUnitStride())
      return {};
    slices.push_back(slice);
  }
  if (slices.empty())
    return {};
  auto type = cast<RankedTensorType>(copy.getType());
  SmallVector<OpFoldResult> offsets, sizes,
      strides(type.getRank(), rewriter.getIndexAttr(1));
  SmallVector<bool> isBlock;
  SmallVector<Value> ivs = llvm::to_vector(forall.getInductionVars());
  for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
    OpFoldResult offset = slices.front().getMixedOffsets()[i];
    std::optional<int64_t> size =
        getConstantIntValue(slices.front().getMixedSizes()[i]);
    auto iv = dyn_cast_if_present<Value>(offset);
    bool block = iv && llvm::is_contained(ivs, iv) && size &&
                 llvm::all_of(slices, [&](tensor::ExtractSliceOp slice) {
                   return slice.getMixedOffsets()[i] == offset &&
                          getConstantIntValue(slice.getMixedSizes()[i]) == size;
                 });
    isBlock.push_back(block);
    offsets.push_back(block ? offset : rewriter.getIndexAttr(0));
    sizes.push_back(rewriter.getIndexAttr(block ? *size : type.getDimSize(i)));
  }
  if (llvm::none_of(isBlock, [](bool b) { return b; }))
    return {};
  rewriter.setInsertionPointToStart(forall.getBody());
  auto block = tensor::ExtractSliceOp::create(rewriter, forall.getLoc(), copy,
                                              offsets, sizes, strides);
  for (tensor::ExtractSliceOp slice : slices) {
    SmallVector<OpFoldResult> sliceOffsets = slice.getMixedOffsets();
    for (auto [offset, b] : llvm::zip(sliceOffsets, isBlock))
      if (b)
        offset = rewriter.getIndexAttr(0);
    rewriter.setInsertionPoint(slice);
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        slice, slice.getType(), block, sliceOffsets, slice.getMixedSizes(),
        slice.getMixedStrides());
  }
  return block;
}

FailureOr<linalg::GenericOp> mlir::boo::fusePackedBlock(RewriterBase &rewriter,
                                                        linalg::GenericOp tile,
                                                        unsigned input) {
  auto forall = tile->getParentOfType<scf::ForallOp>();
  if (!forall || input >= tile.getNumDpsInputs())
    return failure();
  // The copy: the tile reads it through slices (the forall's, the inner
  // loops'; or one slice, where a reversed filter's were folded).
  Value value = tile.getDpsInputOperand(input)->get();
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    value = slice.getSource();
  // A copy whose tiles upstream's tiling computes: every map a projected
  // permutation (a reversal left unfolded, `2 - y`, is not one).
  auto copy = value.getDefiningOp<linalg::GenericOp>();
  if (!copy || copy->getNumResults() != 1 || forall->isAncestor(copy) ||
      copy.getNumReductionLoops() != 0 ||
      !llvm::all_of(copy.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return failure();
  eraseDeadUsers(rewriter, value);
  tensor::ExtractSliceOp block = sliceBlock(rewriter, forall, value);
  if (!block)
    return failure();
  SmallVector<LoopLikeOpInterface> loops = {
      cast<LoopLikeOpInterface>(forall.getOperation())};
  std::optional<scf::SCFFuseProducerOfSliceResult> fused =
      scf::tileAndFuseProducerOfSlice(rewriter, block, loops);
  if (!fused || fused->tiledOps.empty())
    return failure();
  // The block is written into a temporary of the iteration (its init is a
  // slice of the copy's empty tensor), which boo-cpu-stack-temporaries
  // frees at the iteration's end: each thread reuses a block of memory the
  // runtime's allocation cache hands back, still in its cache.
  auto copyTile = dyn_cast<linalg::GenericOp>(fused->tiledOps.front());
  if (!copyTile)
    return failure();
  if (block->use_empty())
    rewriter.eraseOp(block);
  return copyTile;
}
