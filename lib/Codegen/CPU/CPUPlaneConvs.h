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
///  - each window row inside the image adds its taps: a tap's lanes are
///    read from the image row at the tap's column (zero past the row's
///    end); a stride-2 tap is one shuffle of two registers of the row;
///    columns before the row's start (the left padding) are zero lanes.
///    Window rows outside the image (the top and bottom padding) are
///    skipped, in loops of their own over the border rows; the interior
///    rows carry the taps of the image rows the next row reads again;
///  - the row is written back, its tail masked.
/// The image's padded copy and the transposes are gone. Returns whether it
/// applied.
bool convolvePlanes(RewriterBase &rewriter, linalg::GenericOp op,
                    int64_t vectorWidth);

/// A channels-first convolution with few input channels (a network's stem:
/// 3), computed in its own layout rather than repacked to channels-last
/// (whose transposed copies of the small image and the large result cost
/// the 3x3 stem a third of its time), one output row of a block of output
/// channels at a time (CPUChannelPlanes.cpp):
///  - one `scf.forall` iteration per output row and block of up to 16
///    output channels (the largest divisor of their count; at least 4);
///  - the row in registers of `vectorWidth` lanes, one at a time, the
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
/// taps in all, and a window no larger than the output plane. Returns
/// whether it applied.
bool convolveChannelPlanes(RewriterBase &rewriter, linalg::GenericOp op,
                           int64_t vectorWidth, int64_t maxChannels);

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

/// A window `stride*o + dilation*k + offset` of a convolution's input: a
/// parallel loop `o` (an output row or column) and a reduction loop `k` (a
/// filter tap).
struct ConvWindow {
  unsigned out = 0, tap = 0;
  int64_t stride = 1, dilation = 1, offset = 0;
};

/// The extents the builders of a convolution computed in its own layout
/// work with: the output's rank, rows and columns (its two innermost dims)
/// of `op`, and the rows and columns of `source`, its unpadded image.
struct PlaneExtents {
  PlaneExtents(linalg::GenericOp op, Value source);
  unsigned outRank;
  int64_t outRows, outCols, inRows, inCols;
};

/// The image and filter of a convolution computed in its own layout, and
/// the image's windows.
struct PlaneImage {
  OpOperand *image = nullptr, *filter = nullptr;
  ConvWindow rows, cols;
};

/// The input of `op` whose two innermost dims are windows (rows, then
/// columns) of the output's two innermost dims, with those windows, and
/// the other input (the filter), if `op` is a candidate
/// (isDepthwiseCandidate) with an output of at least 3 dims and rows of at
/// least `minRow` elements.
std::optional<PlaneImage> matchPlaneImage(linalg::GenericOp op, int64_t minRow);

/// `e` as a ConvWindow of `op`'s loops, if it is one.
std::optional<ConvWindow> matchConvWindow(linalg::GenericOp op, AffineExpr e);

/// Whether `op`'s body is `out + a * b` in f32, `a` and `b` its two inputs
/// (each f32, or f16/bf16 extended to f32).
bool isMultiplyAddBody(linalg::GenericOp op);

/// Whether `op` may be a depthwise convolution computed directly: two
/// inputs, a multiply-add body (isMultiplyAddBody), and a static output
/// indexed by every parallel loop.
bool isDepthwiseCandidate(linalg::GenericOp op);

/// Whether the windows `rows` and `cols` of `op`'s `image` (its dims
/// `rowDim` and `colDim`) make a depthwise convolution with `filter`: a
/// window of at most 64 taps and no larger than the output rows and
/// columns (a batch-1 weight gradient's is not), every other reduction of
/// extent 1, the image's other dims plain loops outside the windows, and
/// the filter a projected permutation with the taps but not the outputs.
bool isDepthwiseWindow(linalg::GenericOp op, OpOperand *image,
                       OpOperand *filter, const ConvWindow &rows,
                       const ConvWindow &cols, unsigned rowDim,
                       unsigned colDim);

/// The tensor a directly computed convolution `op` writes into: the init
/// of the fill that made `op`'s initial value, with `fill` set to the
/// fill's value (at the rewriter's insertion point); else the initial
/// value itself, with `fill` null.
Value convDestination(RewriterBase &rewriter, linalg::GenericOp op,
                      Value &fill);

/// Replaces `op` by `results`, and erases the tensor.pad ops of its inputs
/// that are left without uses (the image is read unpadded).
void replaceConvolution(RewriterBase &rewriter, linalg::GenericOp op,
                        ValueRange results);

/// The source of `image` when it is a tensor.pad with a constant zero, of
/// static widths, that pads only its dims `rowDim` and `colDim`, with the
/// offsets of the windows `rows` and `cols` moved by the low padding (the
/// image is then read unpadded); else `image`, and the windows unchanged.
Value unpadWindows(Value image, unsigned rowDim, unsigned colDim,
                   ConvWindow &rows, ConvWindow &cols);

/// The output rows [lo, hi) whose image row for window row `ky` is inside
/// the image (`inRows` rows, `outRows` output rows).
std::pair<int64_t, int64_t> windowRowsInside(const ConvWindow &w, int64_t ky,
                                             int64_t inRows, int64_t outRows);

/// `n` elements of `image` from `indices` on (the last index a column of
/// its innermost dim; zero past the row's end unless `inBounds`), as f32.
Value readImageRow(OpBuilder &b, Location loc, Value image,
                   ArrayRef<Value> indices, int64_t n, bool inBounds);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUPLANECONVS_H
