//===- CPUPlaneConvs.h - Depthwise convolutions computed directly -*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUPLANECONVS_H
#define BOO_LIB_CODEGEN_CPU_CPUPLANECONVS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// A plane convolution is a 2-D convolution in which each output plane
/// (the output's two innermost dims, `oh` and `ow`) is the sum over one
/// window (`ky`, `kx`) of one input plane (the image's two innermost dims)
/// times one filter tap: a channels-first depthwise convolution, whose
/// other reductions (the input channels of a group) have extent 1. The
/// general schedule repacks such a convolution to channels-last, with
/// transposed copies of its image and result; a stride-2 layer spent more
/// than half of its time in them.
///
/// When `op` is one (f32 result; f32, f16 or bf16 operands; the image
/// possibly zero-padded in its two innermost dims; static shapes; an
/// output row of at least `vectorWidth / 4` elements; a window of at most
/// 64 taps and no larger than the output plane, which a batch-1 weight
/// gradient's is not), it is rewritten as
/// one `scf.forall` over the output planes that computes each plane in
/// place, one output row at a time, vectorized along the row:
///  - the row's accumulators (vectors of `vectorWidth` lanes, half as
///    many when the row fits in half a register, twice as many for rows
///    longer than `vectorWidth`) start at the fill that made the initial
///    value, else at the initial value;
///  - each window row inside the image adds its taps: a unit-stride
///    tap is two registers of the image row at multiples of the lanes,
///    shuffled (zero registers left and right of the row); a stride-2 tap
///    is one shuffle of two registers of the row, its lanes left of the
///    row zero. Window rows outside the image (the top and bottom
///    padding) are skipped, in loops of their own over the border rows;
///    the interior rows carry the taps of the image rows the next row
///    reads again. Unit-stride rows whose taps are too many to carry add
///    shifted sums instead: each window column's products with the image
///    rows' registers summed over the window rows, then shifted to each
///    output register's columns (one shuffle per column and register
///    rather than one per tap). Strided rows of at most `vectorWidth`
///    outputs whose image rows fit in a register of twice that, with a
///    lane to spare, are computed two to a register, each tap one shuffle
///    of the two rows' image rows;
///  - the row is written back, its tail masked.
/// The taps carried and the shifted sums are bounded by `accumulatorLanes`
/// (three quarters of the host's vector registers), as a contraction's
/// accumulators are. The image's padded copy and the transposes are gone.
/// Returns whether it applied.
bool convolvePlanes(RewriterBase &rewriter, linalg::GenericOp op,
                    int64_t vectorWidth, int64_t accumulatorLanes);

/// A channels-first convolution with few input channels (a network's stem:
/// 3), computed in its own layout rather than repacked to channels-last
/// (whose transposed copies of the small image and the large result cost
/// the 3x3 stem a third of its time), one output row of a block of output
/// channels at a time (CPUChannelPlanes.cpp):
///  - one `scf.forall` iteration per output row and block of up to 16
///    output channels (a divisor of their count; at least 4);
///  - the row in registers of one or two vectors, one at a time, the
///    block's accumulators (one register per channel) starting at the
///    fill's value or the initial value; the registers whose taps all lie
///    inside the image row are one `scf.for`, the others unrolled;
///  - each tap (input channel, window row and column) read once per
///    register: a unit-stride tap is a register of the image row, a
///    stride-2 tap one shuffle of two; lanes left and right of the row are
///    zero, and window rows outside the image skipped (an `scf.if` on the
///    output row, for the rows near the edges); every channel of the block
///    multiplies it by its broadcast weight and adds it.
/// It applies to `op` with a multiply-add body (f32 result; f32, f16 or
/// bf16 operands), static shapes, the output's two innermost dims (rows of
/// at least `vectorWidth`) windows of the image's two innermost (possibly
/// zero-padded there), one output loop the image does not read (the
/// output channels), 2 to `maxChannels` input channels and at most 160
/// taps in all, and a window no larger than the output plane. A row's
/// registers are one or two vectors of `vectorWidth`, and the block of
/// channels at most 16, both chosen so that the block's accumulators fit
/// in `accumulatorLanes` (at least 4 channels). Returns whether it applied.
bool convolveChannelPlanes(RewriterBase &rewriter, linalg::GenericOp op,
                           int64_t vectorWidth, int64_t accumulatorLanes,
                           int64_t maxChannels);

/// Computes the rows of a channels-last depthwise convolution directly
/// (CPUDepthwiseRows.cpp): one `scf.forall` iteration per register of
/// channels (and batch), in it one `scf.for` iteration per output row, the
/// row's positions in registers (rows of at most 16 positions; rows of 17
/// to 32 in two or more pieces of at most 16, when the image is smaller
/// than `maxLongRowImageBytes`: each iteration walks the whole image, and
/// a larger one would come from memory once per register of channels). Each
/// image row's vectors are read once and added to every position whose
/// window they are in; window rows outside the image are skipped and
/// window columns outside it left out, so there is no padded copy and no
/// peeled border. It applies when the channel loop is the innermost dim
/// of the image and of the output (unit dims after it aside), with a
/// multiple of `vectorWidth` channels, the output's rows and columns come
/// before it, and the body and window are a plane convolution's. Returns
/// whether it applied.
bool convolveDepthwiseRows(RewriterBase &rewriter, linalg::GenericOp op,
                           int64_t vectorWidth, int64_t maxLongRowImageBytes);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUPLANECONVS_H
