//===- CPUOperandLayouts.h - Operand copies of the CPU schedule -*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The copies boo-cpu-tile-and-vectorize makes of a contraction's operands
// before tiling it, so that its tiles read contiguous vectors: promotions
// to f32, transposes that put the vector loop (or the reduction loop)
// innermost, and the repacking of channels-first convolutions into a
// channels-last computation. Every copy made is appended to `copies`, for
// the pass to tile and vectorize in turn.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUOPERANDLAYOUTS_H
#define BOO_LIB_CODEGEN_CPU_CPUOPERANDLAYOUTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

struct TileTargets;

/// A map result as sum(coefficient * loop) + constant.
struct LinearExpr {
  SmallVector<std::pair<unsigned, int64_t>> terms; // (loop, coefficient)
  int64_t constant = 0;
};

/// `e` as a LinearExpr, or failure if it is not a sum of loops times
/// positive constants and constants (a convolution's window `s*o + d*k`).
FailureOr<LinearExpr> decomposeLinear(AffineExpr e);

/// The largest divisor of `n` no greater than `limit` (1 when none is
/// greater than 1).
int64_t largestDivisor(int64_t n, int64_t limit);

/// Whether `op` is a fill: all loops parallel, no tensor input, and a
/// yielded value that does not read the init (a constant, or a scalar
/// defined outside).
bool isFill(linalg::GenericOp op);

/// A generic that copies `input` into a new tensor of `type`: each element
/// of the result reads `input` at `readMap` of its indices (a reversal, a
/// subsample). The copy's generic is returned for the caller to tile.
linalg::GenericOp copyThrough(RewriterBase &rewriter, Location loc, Value input,
                              AffineMap readMap, RankedTensorType type);

/// Whether `value` is the result of a fill that refill can copy: no
/// inputs, an identity map, a body that only yields.
bool isRefillable(Value value);

/// A zero-input generic (a fill) like the one defining `value` but
/// producing `type` (appended to `copies`), or null when `value` is not
/// such a fill (isRefillable).
Value refill(RewriterBase &rewriter, Value value, RankedTensorType type,
             SmallVectorImpl<linalg::GenericOp> &copies);

/// The generics of `op`'s body (cloned) with `maps` and `iters`, one per
/// piece (offset, size) along the dim each operand has at `positions`
/// (`inputs`, then the result, of type `outType`; an input without one is
/// read whole), each over slices of the inputs and from its own refill of
/// `init` (isRefillable). Their results are inserted into one tensor, in
/// order, so that a piece overwrites the elements an earlier one also
/// computed. Returns the generics and that tensor.
std::pair<SmallVector<linalg::GenericOp>, Value>
computeInPieces(RewriterBase &rewriter, linalg::GenericOp op, ValueRange inputs,
                Value init, RankedTensorType outType,
                ArrayRef<std::optional<unsigned>> positions,
                ArrayRef<AffineMap> maps, ArrayRef<utils::IteratorType> iters,
                ArrayRef<std::pair<int64_t, int64_t>> pieces,
                SmallVectorImpl<linalg::GenericOp> &copies);

/// `value`'s slice (a ranked tensor's) of `size` elements from `offset`
/// along dim `pos`, the other dims whole.
Value extractSliceAlong(RewriterBase &rewriter, Location loc, Value value,
                        unsigned pos, int64_t offset, int64_t size);

/// `dest` with `piece` inserted from `offset` along dim `pos` (from 0
/// along the others).
Value insertSliceAlong(RewriterBase &rewriter, Location loc, Value piece,
                       Value dest, unsigned pos, int64_t offset);

/// The bytes of a statically shaped ranked tensor type, or nullopt.
std::optional<int64_t> staticTensorBytes(Type type);

/// Whether every input of `op` is indexed by loop `d` (for its vector loop:
/// element-wise ops and depthwise convolutions, whose filter is read in
/// step with the image).
bool everyInputIndexedBy(linalg::GenericOp op, unsigned d);

/// Promotes the f16/bf16 inputs of a multiply-accumulate generic to f32
/// once, outside the loops, when every use in the body is an extension to
/// f32: the inner loop then runs on f32 vectors instead of converting each
/// element at every reuse (bf16 has no native conversion on most CPUs).
void promoteInputsToF32(RewriterBase &rewriter, linalg::GenericOp op,
                        SmallVectorImpl<linalg::GenericOp> &copies);

/// If an input is indexed by the vector loop in a dim that is not its
/// innermost one (e.g. the K dim of a KYXC filter), copies it once into a
/// transposed tensor whose innermost dim is the vector loop's, so the tiles
/// read contiguous vectors instead of transposing in the inner loop (the
/// weight reorder CPU libraries do).
void makeVectorDimContiguous(RewriterBase &rewriter, linalg::GenericOp op,
                             unsigned vecDim,
                             SmallVectorImpl<linalg::GenericOp> &copies);

/// The fewest output elements along the parallel loops that do not index
/// an input with one reduction dim (a matrix product's B, [K][N], read along
/// N: the M rows) for blockVectorLoop to make it a slab, and for
/// makeReductionDimContiguous to copy it. Each block of it is then read by
/// M / rows register tiles: a product's 512 to 2048 rows repay the packing
/// (1024^3 f32, one thread: 0.42x to 0.85x oneDNN; 2048^3: 0.27x to 0.78x;
/// 784x256x1000: 0.72x to 0.96x), while the 64-512 output channels of a
/// channels-first 1x1 convolution, whose merged image [C][positions] this
/// also is, do not (its 512 -> 128 and 512 -> 256 layers at 28x28 lost
/// 10-20%).
constexpr int64_t kMinSingleReductionSlabReaders = 512;

/// The product of the extents of `op`'s parallel loops that `map` does not
/// use: how many output elements read each element `map` indexes.
int64_t getReaderExtent(linalg::GenericOp op, AffineMap map);

/// Moves loop `d` innermost in input `operand` of `op` (a transposed copy,
/// appended to `copies`), updating `maps`; false when `operand` has no
/// plain result `d` or has it innermost already.
bool moveInnermost(RewriterBase &rewriter, linalg::GenericOp op,
                   OpOperand *operand, unsigned d,
                   SmallVectorImpl<AffineMap> &maps,
                   SmallVectorImpl<linalg::GenericOp> &copies);

/// If an input without the vector loop has one reduction dim, not its
/// innermost one, and is read by 512 or more output rows (a matrix
/// product's A stored transposed, [K][M]: each register tile would read a
/// few floats of every row of K, rows a power of two apart), copies it
/// once into a transposed tensor with that reduction innermost ([M][K])
/// (CPUReductionLayouts.cpp).
void makeReductionDimContiguous(RewriterBase &rewriter, linalg::GenericOp op,
                                unsigned vecDim,
                                SmallVectorImpl<linalg::GenericOp> &copies);

/// Splits the vector loop `vecDim` of a contraction (extent E) into an
/// outer loop of E / `block` blocks and an inner loop of `block` lanes (a
/// new last loop) when some input has the vector loop as a plain result
/// that is not its innermost one, so that a transposed copy of it is due
/// anyway: a KYXC filter then becomes [K/block][Y][X][C][block] (after
/// makeVectorDimContiguous) instead of YXCK, and each block of output
/// channels reads one contiguous slab of the filter rather than rows
/// 4*K bytes apart, which for K = 512 fall in a handful of L1 sets. The
/// operands with the loop are expanded (tensor.expand_shape), a fill as
/// the initial value is made in the expanded shape, and the result is
/// collapsed back. It applies too when an input of at least `slabMinBytes`
/// (0: never) has the loop innermost, after other dims, and no window (a
/// KYXC filter read along C by a backward-data convolution, whose tiles
/// read a few vectors of rows Y*X*C floats apart), or that has one
/// reduction dim and is read by 512 or more output rows (a matrix
/// product's B, [K][N]): that input is copied with its blocks outermost,
/// [C/block][K][Y][X][block], for the tiles of a block to read one
/// contiguous slab (and planPackedBlocks to pack it block by block).
/// Returns the new generic, or `op` when it does not apply (E not a
/// multiple of `block` above it, the loop in a window, index semantics, or
/// every input indexed by the loop: a depthwise convolution's filter is
/// small and read in step with its image).
linalg::GenericOp blockVectorLoop(RewriterBase &rewriter, linalg::GenericOp op,
                                  unsigned vecDim, int64_t block,
                                  int64_t slabMinBytes,
                                  SmallVectorImpl<linalg::GenericOp> &copies);

/// Merges the loops of the output's two innermost dims (an NCHW
/// convolution's `oh` and `ow`) into one when every operand that has them
/// reads them as two adjacent plain dims, the inner one whole (a stride-1
/// 1x1 convolution: its unit window loops are ignored). The operands are
/// collapsed (tensor.collapse_shape; a fill as the initial value is made
/// collapsed), and the result expanded back. A merged extent that is no
/// multiple of `lanes` is padded up to one with zeros (the inputs padded,
/// the result sliced by a copy) when that adds at most an eighth (14x14:
/// 196 positions become 208); else nothing is merged. With
/// `splitExtents` and a fill as the initial value, such an extent is
/// instead computed by two generics, over its leading multiple of
/// `2 * lanes` (of `lanes` for fewer than `2 * lanes` positions) and over
/// its last `lanes` positions (180 to 195 of 196), or `2 * lanes` where
/// more are left, each from its own fill, reading slices of the inputs in
/// place; the second is appended to `tails`, to be tiled like the first,
/// and overwrites the positions both compute with the same values. So is
/// an extent that is an odd multiple of `lanes` (784: 768, then 768 to
/// 783), whose leading piece then takes tiles of `2 * lanes`. An input that
/// reads the loops with strides (a stride-2 1x1 convolution's `2*oh`, `2*ow`)
/// is subsampled by a copy first. A channels-first 1x1 convolution is then
/// a matrix product whose vector loop runs along the image's contiguous
/// rows, with no transposed copies (CPUMergedLoops.cpp). Returns the new
/// generic, or `op`.
linalg::GenericOp
mergeInnerOutputLoops(RewriterBase &rewriter, linalg::GenericOp op,
                      int64_t lanes, bool splitExtents,
                      SmallVectorImpl<linalg::GenericOp> &copies,
                      SmallVectorImpl<linalg::GenericOp> &tails);

/// A contraction whose vector loop (the loop of the output's innermost
/// dim) has an extent above `lanes` that is a multiple of half of them but
/// not of them (24 output channels, for 16 lanes), with a fill as its
/// initial value, computed by two generics: over the leading multiple of
/// `lanes` and over the last `lanes` (8 to 23 of 24), each from its own
/// fill, reading slices of the inputs that the loop indexes (as one plain
/// dim: a filter's output channels); the second is appended to `tails`
/// and overwrites the lanes both compute with the same values
/// (CPULoopSplits.cpp). Returns the first generic, or `op` when it
/// does not apply (the loop in a window, or indexing every input: a
/// depthwise convolution's).
linalg::GenericOp splitVectorLoop(RewriterBase &rewriter, linalg::GenericOp op,
                                  int64_t lanes,
                                  SmallVectorImpl<linalg::GenericOp> &copies,
                                  SmallVectorImpl<linalg::GenericOp> &tails);

/// A contraction whose register tile under `targets.accumulatorLanes`
/// would take rows that do not divide its row loop (6 rows of 16 lanes on
/// an AVX2 host, for 512 output channels), with a fill as its initial
/// value and no input copied before it (`copies`: both pieces would copy
/// it), computed by two generics: over the leading multiple of those rows
/// and over the last of them (506 to 511), each from its own fill, reading
/// slices of the inputs that the row loop indexes as one plain dim; the
/// second is appended to `tails` (CPULoopSplits.cpp). Returns the first
/// generic, or `op` when it does not apply.
linalg::GenericOp splitRowLoop(RewriterBase &rewriter, linalg::GenericOp op,
                               const TileTargets &targets,
                               SmallVectorImpl<linalg::GenericOp> &copies,
                               SmallVectorImpl<linalg::GenericOp> &tails);

/// The pieces of a piece (computeInPieces of a generic that is itself one:
/// a channels-first 1x1 convolution's positions split, then their rows)
/// inserted into the outer result directly, instead of into a tensor of
/// their own that is then inserted (a copy after bufferization, whose
/// empty-tensor elimination reaches only one level).
void flattenNestedPieces(RewriterBase &rewriter, func::FuncOp func);

/// A contraction whose vector loop `vecDim` (the loop of the output's
/// innermost dim) slides in a window, as the output columns of an NCHW
/// convolution do, cannot tile its reduction, and multiplies by one
/// broadcast weight per step. Such a generic is rewritten to compute in
/// channels-last layouts:
///  - the new vector loop is the output's largest parallel loop that is in
///    no window and that some input lacks (a convolution's output
///    channels), else its largest parallel loop in no window (a depthwise
///    convolution's groups);
///  - the inputs that lack it get their largest un-windowed reduction loop
///    innermost (NCHW -> NHWC), windowed inputs that have it (a depthwise
///    convolution's image) get it innermost; a padded input is transposed
///    before it is padded. The other inputs with it (filters) are left for
///    blockVectorLoop and makeVectorDimContiguous, which put it innermost;
///  - the generic writes a result transposed the same way, and a copy
///    transposes it back to the original layout.
/// Returns the new generic, or `op` when it is not such a contraction.
linalg::GenericOp
repackWindowedVectorLoop(RewriterBase &rewriter, linalg::GenericOp op,
                         unsigned vecDim,
                         SmallVectorImpl<linalg::GenericOp> &copies);

/// Rewrites a tensor.pad of static shape with a constant padding value as
/// generics appended to `copies`: a fill of each padded side of the border
/// (disjoint regions), and a copy of the source into the interior. When the
/// source is made by a generic of its own (a transpose, a promotion) used
/// only here, that generic writes the interior directly instead. The pass
/// tiles them into parallel, vectorized loops; a tensor.pad would become
/// one sequential memset of the whole result and a copy of each row.
void decomposePad(RewriterBase &rewriter, tensor::PadOp pad,
                  SmallVectorImpl<linalg::GenericOp> &copies);

/// Fuses each element-wise copy whose only user is another copy into that
/// user (linalg's element-wise fusion), so that, e.g., a bf16 filter's
/// promotion to f32 and its reorder are one pass over the filter, not two.
/// An element-wise copy read through an expand_shape (the filter split into
/// blocks of output channels) is expanded first. `copies` is updated in
/// place.
void fuseCopyChains(RewriterBase &rewriter,
                    SmallVectorImpl<linalg::GenericOp> &copies);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUOPERANDLAYOUTS_H
