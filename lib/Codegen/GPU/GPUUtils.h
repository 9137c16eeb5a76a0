//===- GPUUtils.h - Helpers shared by the GPU passes ------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_GPU_GPUUTILS_H
#define BOO_LIB_CODEGEN_GPU_GPUUTILS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// A 1-D `scf.forall` of `threads` iterations mapped to
/// `#gpu.thread<linear_dim_0>` (one iteration per thread of the workgroup);
/// leaves `b` at the start of its body.
scf::ForallOp createThreadLoop(OpBuilder &b, Location loc, int64_t threads);

/// Row-reduction kernels (boo-gpu-distribute marks, boo-gpu-row-reductions
/// builds): every op of one kernel carries the same integer id under
/// kRowReductionKernelAttrName, and its root kRowReductionRootAttrName.
constexpr StringLiteral kRowReductionKernelAttrName =
    "boo.row_reduction_kernel";
constexpr StringLiteral kRowReductionRootAttrName = "boo.row_reduction_root";

/// Rewrites the reads of `consumer` that go through data-movement producers
/// into guarded loads in its body (see GPUInlineReads.cpp): an input whose
/// producer chain holds a `tensor.pad` or `tensor.insert_slice`, or that
/// reads an all-parallel "index" generic (e.g. a filter flip) through a map
/// with reduction loops, is dropped, and its block argument replaced by the
/// value computed from the chain's sources with `tensor.extract` under
/// `scf.if` bounds checks. Loops that only the dropped maps defined get a
/// small `tensor.empty` operand of their static extents, never read. The
/// consumer is replaced by the new generic, which is returned (the consumer
/// itself when nothing changed).
linalg::GenericOp inlineDataMovementReads(RewriterBase &rewriter,
                                          linalg::GenericOp consumer);

/// `memref.copy %view_of_temp, %out` with `%out` an out-param nothing
/// else touches: the temporary becomes the inverse view of `%out`, so
/// kernels store straight into the caller's buffer (grouped convolutions
/// return a collapse_shape of their result). Runs on bufferized functions.
void elideResultCopies(RewriterBase &rewriter, func::FuncOp func);

/// Whether `expr`, as a function of dim or symbol `pos`, is that operand
/// plus terms without it: it grows by exactly 1 per step of `pos`.
bool isUnitIn(AffineExpr expr, AffineExpr pos, unsigned numDims,
              unsigned numSymbols);

/// Whether the element of `buffer` that `map` (from a nest's loops) gives
/// is followed in memory by the one of the next iteration of `loop`: the
/// buffer is static and contiguous, and the linearized map is unit in the
/// loop (isUnitIn). False for a null map.
bool isUnitStrideAlong(Value buffer, AffineMap map, unsigned loop);

/// Whether every dim of `loop` is mapped to threads (`threads`) or to
/// workgroups (`#gpu.thread<...>` / `#gpu.block<...>`).
bool isMappedTo(scf::ForallOp loop, bool threads);

/// Whether dim `d` of `type` has stride 1 and only dims of size 1 follow
/// it: consecutive indices along `d` are consecutive elements.
bool contiguousAlong(MemRefType type, int64_t d);

/// `memref` with its dims from `d` on collapsed into one, so that a vector
/// access along dim `d`, whose later dims all have size 1, can index it
/// (vector.load/store take a vector along the innermost dim); `memref`
/// itself when `d` is its last dim.
Value collapseTrailingDims(OpBuilder &b, Location loc, Value memref, int64_t d);

/// The `#gpu.block<linear_dim_*>` / `#gpu.thread<linear_dim_*>` mapping
/// id of dim `i` of a mapped scf.forall; linear_dim_0 varies fastest.
/// Nullopt for other mappings.
std::optional<int64_t> getLinearMappingId(Attribute mapping);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_GPU_GPUUTILS_H
