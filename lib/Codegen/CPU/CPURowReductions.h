//===- CPURowReductions.h - Row reductions for the CPU ----------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Row reductions (a layer norm's statistics: sums along the innermost,
// contiguous dims of an input) as boo-cpu-tile-and-vectorize prepares them.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUROWREDUCTIONS_H
#define BOO_LIB_CODEGEN_CPU_CPUROWREDUCTIONS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::boo {

/// A generic that reduces rows (some input is indexed by every loop, and
/// the reduction loops index only the innermost dims of the inputs: the
/// rows, contiguous in memory) would vectorize along the output (one lane
/// per row, each lane reading a whole row, transposed first). It is
/// rewritten so that the vector lanes run along the rows instead:
///  - several reduction loops that are contiguous in every operand are
///    collapsed into one (a layer norm over C, H and W);
///  - the reduction loop of extent R is split into R / P x P, P up to four
///    times `lanes` (upstream's linalg::splitReduction with an inner
///    parallel dim): a generic of P partial results per row, whose vector
///    loop is the contiguous one, then a generic that combines the
///    partials.
/// Applies when R is a multiple of `lanes` and at least twice it. The new
/// generics (the partials' initial value, made a generic, the partials and
/// the combination) are appended to `created`, the combination also to
/// `combines` (it reduces each row's partials in registers: see
/// ReduceRowByTree). Returns whether it applied; when it did not, `op` is
/// the generic to use in its place (collapsed or not).
bool splitRowReduction(RewriterBase &rewriter, linalg::GenericOp &op,
                       int64_t lanes,
                       SmallVectorImpl<linalg::GenericOp> &created,
                       DenseSet<Operation *> &combines);

/// Computes each chain of generics that reads row reductions (a layer
/// norm: the row sums, then the element-wise result that reads them) one
/// tile of rows at a time: one scf.forall over row tiles whose body computes
/// the whole chain on its rows, so that the rows, read once per pass, are
/// read from cache after the first. A chain's root is a generic without
/// reductions that reads a lower-rank input indexed by its leading loops
/// (the rows); its members are the generics it reads, transitively, whose
/// results have the same leading row dims indexed by parallel loops. The
/// innermost row dims take as many rows as fit `budgetBytes` of the root's
/// full-rank operands. Results used outside the chain are the forall's.
///
/// Sums over all the chain's rows of what it reads (a layer norm backward's
/// weight and bias gradients: generics whose reduction loops are the rows
/// and whose outputs are `out + v`, after the root or before it when their
/// results are used only after it) are computed in the same pass: the
/// forall then runs over chunks of rows chosen from the shape alone (at
/// most 64, of at least 4 rows, and at least 4 of them; otherwise the sums
/// stay generics of their own), each an scf.for over its tiles that sums
/// its rows into its own slice of partial sums, and a generic after the
/// forall adds the partials to the sums' initial values. The sums are
/// deterministic: they depend on the shape, not on the threads or caches.
/// The definitions are in CPURowChains.cpp (fuseChainPasses's in
/// CPUChainPasses.cpp).
///
/// A chain whose root's result has at least `streamMinBytes` bytes (when
/// positive) has its forall marked `kStreamStoresAttr`, for
/// boo-cpu-stream-stores.
///
/// The chains' foralls are appended to `foralls`, for fuseChainPasses.
void tileRowChains(RewriterBase &rewriter, func::FuncOp func,
                   int64_t budgetBytes, int64_t streamMinBytes,
                   SmallVectorImpl<Operation *> &foralls);

/// Fuses the passes over a tile of rows inside a row chain's forall (after
/// its generics are tiled and vectorized): sibling scf.for loops, and
/// sibling scf.forall loops, that run over the same iterations and do not
/// depend on each other become one loop (upstream's
/// fuseIndependentSibling{For,Forall}Loops), after the ops the second one
/// needs are moved before the first. A layer norm backward's two row sums
/// then read `dy` and `x` once, and so do its `dx` and its column sums:
/// two passes over each tile instead of four, their common reads merged
/// by CSE.
void fuseChainPasses(RewriterBase &rewriter, ArrayRef<Operation *> foralls);

/// The mark of an scf.forall whose stores into the function's arguments
/// boo-cpu-stream-stores makes non-temporal.
constexpr llvm::StringLiteral kStreamStoresAttr = "boo.stream_stores";

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUROWREDUCTIONS_H
