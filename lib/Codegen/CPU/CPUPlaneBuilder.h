//===- CPUPlaneBuilder.h - The rows of a plane convolution ------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The builder of a channels-first depthwise convolution's output planes
// (convolvePlanes, CPUPlaneConvs.h), private to CPUPlaneConvs.cpp (rows
// of taps, carried to the next row) and CPUPlaneRows.cpp (rows of
// shifted sums, rows two to a register).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUPLANEBUILDER_H
#define BOO_LIB_CODEGEN_CPU_CPUPLANEBUILDER_H

#include "CPUConvWindows.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

namespace mlir::boo::planes {

using Window = ConvWindow;

/// The parts of a plane convolution (convolvePlanes).
struct PlaneConv {
  linalg::GenericOp op;
  OpOperand *image = nullptr, *filter = nullptr;
  /// The windows of the image's two innermost dims (rows, columns); their
  /// offsets are into `source`, the image without its zero padding.
  Window rows, cols;
  Value source;
};

/// Builds the rows of one output plane (convolvePlanes).
class PlaneBuilder : PlaneExtents {
public:
  /// `accumulatorLanes` (three quarters of the host's vector registers)
  /// bounds the taps carried to the next row (half of it: 12 registers
  /// of 16 lanes with AVX-512) and the sums of a group of output registers
  /// in shifted-sums mode (two thirds: 16 registers of 16 lanes).
  PlaneBuilder(RewriterBase &rewriter, PlaneConv conv, int64_t lanes,
               int64_t maxSets, bool pairRows, int64_t accumulatorLanes)
      : PlaneExtents(conv.op, conv.source), b(rewriter), conv(conv),
        loc(conv.op.getLoc()), lanes(lanes), maxSets(maxSets),
        pairRows(pairRows) {
    if (accumulatorLanes > 0) {
      maxCarriedLanes = accumulatorLanes / 2;
      maxSumLanes = accumulatorLanes * 2 / 3;
    }
    SmallVector<int64_t> ranges = conv.op.getStaticLoopRanges();
    tapRows = ranges[conv.rows.tap];
    tapCols = ranges[conv.cols.tap];
    f32 = b.getF32Type();
  }

  /// The plane at `loops` (the value of every loop but the window's):
  /// `plane` (the output's slice) with each row computed; `init`, when
  /// set, is every accumulator's initial value.
  Value build(Value plane, ArrayRef<Value> loops, Value init);

private:
  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  VectorType f32Vector(int64_t n) { return VectorType::get({n}, f32); }
  Value zeros(int64_t n) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(f32Vector(n), 0.0f));
  }
  /// The `lanes` lanes from lane `shift` on of registers `low` then
  /// `high` (`low` itself for a shift of 0).
  Value shiftLanes(Value low, Value high, int64_t shift) {
    if (shift == 0)
      return low;
    return vector::ShuffleOp::create(
        b, loc, low, high,
        llvm::to_vector(llvm::seq<int64_t>(shift, shift + lanes)));
  }
  /// `n` lanes of the image row `row` from column `start` on (zero past
  /// the row's end), in f32.
  Value readImage(Value row, int64_t start, int64_t n);
  /// `n` lanes of output row `oh` of `plane` from column `col` on (zero
  /// past the row's end).
  Value readPlaneRow(Value plane, Value oh, int64_t col, int64_t n);
  /// `plane` with `value` written into output row `oh` from column `col`
  /// on (its lanes past the row's end left out).
  Value writePlaneRow(Value plane, Value oh, int64_t col, Value value);
  /// The lanes of a strided tap whose first lane reads column `col` of
  /// image row `row` (columns col + i*stride; lanes left of the row are
  /// zero), shuffled out of two registers of the row: those from column
  /// `shared` on, when they cover the tap, else two from its first column.
  /// The registers read are kept in `pieces`, by first column.
  Value stridedTap(Value row, int64_t col, int64_t shared,
                   DenseMap<int64_t, Value> &pieces);
  /// The lanes of a unit-stride tap whose first lane reads column `col`
  /// of image row `row`: the row's register at the multiple of `lanes`
  /// at or left of `col`, shuffled with the next one (zero registers left
  /// and right of the row). The registers read are kept in `pieces`.
  Value alignedTap(Value row, int64_t col, DenseMap<int64_t, Value> &pieces);
  /// Whether the tap of window column `kx` for register `j` of an output
  /// row reads the image: a tap left of the row (in a wide padding) adds
  /// nothing, in every row.
  bool tapPresent(int64_t j, int64_t kx) {
    const Window &w = conv.cols;
    return j * lanes * w.stride + w.offset + kx * w.dilation +
               (lanes - 1) * w.stride >=
           0;
  }
  /// The taps of image row `row` for every register of an output row and
  /// every window column (index j * tapCols + kx); null for the taps left
  /// of the row, which add nothing.
  SmallVector<Value> rowTaps(Value row);
  /// `sums` with the taps of window row `ky` multiplied and added.
  void addTaps(ArrayRef<Value> taps, int64_t ky, SmallVector<Value> &sums);
  /// The partial sums of output row `oh` before any tap: the initial
  /// values (read from `plane` unless a fill's), then zeros.
  SmallVector<Value> initialSums(Value oh, Value plane);
  /// `plane` with output row `oh` written: the sum of the sets of `sums`.
  Value writeRow(Value oh, Value plane, ArrayRef<Value> sums);
  /// `plane` with output rows [from, to) computed, each window row inside
  /// an scf.if on whether its image row is inside the image.
  Value checkedRows(Value plane, int64_t from, int64_t to);
  /// Calls `add(ky, imageRow, acc)` for each window row ky of output row
  /// `oh` (one of [from, to)) whose image row is inside the image: inside
  /// an scf.if on `oh` where only some rows of [from, to) have it. Null
  /// values of `acc` are zeros.
  void
  addWindowRows(Value oh, int64_t from, int64_t to, SmallVector<Value> &acc,
                function_ref<void(int64_t, Value, SmallVector<Value> &)> add);
  /// The lanes of the sums of window column `kx` for register `j` of
  /// an output row in shifted-sums mode, from `q` (the column's sums per
  /// register of the image row, first at register `first`, null outside).
  Value shiftedSum(ArrayRef<Value> q, int64_t first, int64_t kx, int64_t j);
  /// The image registers (by first register and count) whose sums window
  /// column `kx` needs for output registers [j0, j1), inside the image.
  std::pair<int64_t, int64_t> sumRegisters(int64_t j0, int64_t j1, int64_t kx);
  /// How many lanes the sums of output registers [j0, j1) take.
  int64_t sumLanes(int64_t j0, int64_t j1);
  /// `sums` (output row `oh`'s initial values) plus its taps in
  /// shifted-sums mode: for each group of output registers, the products
  /// of each window column's weight with the image rows' registers at
  /// multiples of the lanes are summed over the window rows, per window
  /// column and register; each output register adds the sums of each
  /// window column shifted to its columns (one shuffle of two registers),
  /// not one shuffled tap per window row and column.
  SmallVector<Value> shiftedSums(Value oh, SmallVector<Value> sums,
                                 int64_t from, int64_t to);
  /// `plane` with output rows [from, to) computed, whose image rows are
  /// all inside the image; the taps of the image rows the next output row
  /// reads again are carried to it.
  Value interiorRows(Value plane, int64_t from, int64_t to);
  /// The image row of output row `oh` and window row `ky`.
  Value imageRow(Value oh, int64_t ky);
  /// Image row oh*stride + `offset`.
  Value imageRowAt(Value oh, int64_t offset);

  RewriterBase &b;
  PlaneConv conv;
  Location loc;
  int64_t lanes, maxSets;
  int64_t tapRows, tapCols;
  Type f32;
  // Set by build: the plane's loops, the broadcast weights (index
  // ky * tapCols + kx), the fill's splat (or null), the registers of an
  // output row, and the sets of partial sums.
  SmallVector<Value> loops, weights;
  Value splat;
  int64_t chunks = 1, sets = 1;
  /// Whether rows use shifted sums (shiftedSums).
  bool shifted = false;
  /// Whether two output rows may share a register (pairedRows), and
  /// whether they do: each then takes `slot` of its `lanes` lanes.
  bool pairRows, paired = false;
  /// The most lanes of taps carried to the next row, and of a group's sums
  /// in shifted-sums mode (unlimited where accumulatorLanes is 0).
  int64_t maxCarriedLanes = std::numeric_limits<int64_t>::max() / 2;
  int64_t maxSumLanes = std::numeric_limits<int64_t>::max() / 2;
  int64_t slot = 0;

  /// `plane` with every output row computed two rows to a register
  /// (pairedRows mode).
  Value pairedRows(Value plane);
  /// `plane` with output rows `oh` and, when `second`, oh+1 computed in
  /// one register: rows oh in lanes [0, slot), oh+1 in [slot, 2*slot).
  Value rowPair(Value oh, Value plane, bool second);
  /// Image row `row` in one register (zero past the row's end), or zeros
  /// when `row` is outside the image.
  Value wholeImageRow(Value row);
};

} // namespace mlir::boo::planes

#endif // BOO_LIB_CODEGEN_CPU_CPUPLANEBUILDER_H
