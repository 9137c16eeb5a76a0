//===- DistributionPlan.h - The plan of boo-gpu-distribute ------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The decisions of boo-gpu-distribute (GPUDistribute.cpp) before it
// rewrites anything: which ops form an MMA or a row-reduction kernel, left
// whole for the passes that build those after bufferization, and the
// workgroup and thread tiles of every other kernel (its lowering config's,
// or built-in ones) with their GPU mapping.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_GPU_DISTRIBUTIONPLAN_H
#define BOO_LIB_CODEGEN_GPU_DISTRIBUTIONPLAN_H

#include "Boo/Dialect/Boo/IR/BooAttrs.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::boo {

/// Tile sizes of one kernel, one entry per loop of its root.
struct KernelTiles {
  /// Workgroup tile; 0: the whole extent (not tiled).
  SmallVector<int64_t> workgroup;
  /// Thread tile within the workgroup tile; 0: not distributed over threads
  /// (each thread covers the whole workgroup tile of that loop).
  SmallVector<int64_t> thread;
};

/// True if loop `d` of `op` is a reduction.
bool isReductionLoop(linalg::LinalgOp op, unsigned d);

/// True if `operand` is indexed by parallel loops of its owner only: a tile
/// of the owner then needs a tile of the operand of the same extents.
bool isParallelOnlyRead(linalg::LinalgOp op, OpOperand *operand);

/// The parallel loops of `root` ordered by the output dim they index,
/// innermost (fastest in memory) first.
SmallVector<int64_t> getLoopOrder(linalg::LinalgOp root);

/// Mapping attributes for the loops with a non-zero tile, in loop order;
/// linear_dim_0 goes to the first such loop of `order`.
SmallVector<Attribute> getMapping(MLIRContext *ctx, ArrayRef<int64_t> tiles,
                                  ArrayRef<int64_t> order, bool threads);

/// `op`'s lowering config if it names an MMA intrinsic, else null.
LoweringConfigAttr getMmaConfig(Operation *op);

/// Groups the kernels of the functions boo-gpu-distribute visits and picks
/// the tiles of those it distributes. Kernels left whole are remembered
/// (their ops are skipped as roots) and row-reduction kernels numbered
/// across the whole run.
class KernelPlanner {
public:
  /// Built-in tiles use at most `budget` threads per workgroup.
  void setBudget(int64_t threads) { budget = threads; }

  /// True if `op` belongs to a kernel left whole (MMA or row reduction).
  bool isLeftWhole(Operation *op) const { return mmaKernelOps.contains(op); }

  /// True if a top-level linalg op of `body` outside the kernels left
  /// whole reads a result of `op`.
  bool isReadByLinalg(Operation *op, Block &body);

  /// True if `root` or an op it reads carries an MMA config.
  static bool isMmaKernel(linalg::LinalgOp root);

  /// Marks `root` and the linalg ops it reads through parallel-only maps
  /// (the accumulation, its fill, epilogue producers) as one MMA kernel,
  /// left whole for boo-gpu-mma-kernels.
  void collectMmaKernel(linalg::LinalgOp root);

  /// Marks the row-reduction kernel of `root`, if it is the root of one
  /// (see DistributionPlan.cpp), and returns whether it is.
  bool collectRowReductionKernel(linalg::LinalgOp root);

  /// The kernel's config (on the root or on a linalg op it reads), else the
  /// default tiles.
  FailureOr<KernelTiles> getTiles(linalg::LinalgOp root);

private:
  /// collectRowReductionKernel for a root whose statistics are indexed by
  /// its leading loops.
  bool collectRowsOf(linalg::GenericOp root);
  void addResultRowOps(linalg::GenericOp root, unsigned rows,
                       SmallVector<linalg::GenericOp> &kernel,
                       llvm::SmallPtrSet<Operation *, 8> &members);

  int64_t budget = 256;
  int64_t nextRowReductionKernel = 0;
  /// Ops of the kernels left whole, for boo-gpu-mma-kernels and
  /// boo-gpu-row-reductions.
  llvm::SmallPtrSet<Operation *, 8> mmaKernelOps;
};

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_GPU_DISTRIBUTIONPLAN_H
