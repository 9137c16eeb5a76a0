//===- CPUConvWindows.h - Convolution windows -------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The matching the convolutions computed in their own layout share
// (CPUPlaneConvs.cpp, CPUChannelPlanes.cpp, CPUDepthwiseRows.cpp,
// CPUPaddedWindows.cpp): windows, bodies, fills, padding and image rows.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUCONVWINDOWS_H
#define BOO_LIB_CODEGEN_CPU_CPUCONVWINDOWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

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

#endif // BOO_LIB_CODEGEN_CPU_CPUCONVWINDOWS_H
