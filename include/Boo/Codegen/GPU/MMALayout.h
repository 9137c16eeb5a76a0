//===- MMALayout.h - Per-lane layouts of AMD MMA instructions ---*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Which matrix element each lane of a wave holds in the A, B and C/D
// operands of an MFMA (CDNA) or WMMA (RDNA) instruction, as AMD's ISA
// references define them (tabulated in docs/MMALayouts.md). Used to lower
// subgroup tile contractions to amdgpu.mfma / amdgpu.wmma; a later emulator
// must use the same functions.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_GPU_MMALAYOUT_H
#define BOO_CODEGEN_GPU_MMALAYOUT_H

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <utility>

namespace mlir::boo {

enum class MMAKind { MFMA, WMMA };

/// One MMA instruction shape with its per-lane layout.
struct MMAIntrinsicLayout {
  StringRef name; // e.g. "MFMA_F32_16x16x16_F16"
  MMAKind kind;
  /// Which WMMA generation (11: RDNA3, 12: RDNA4); 0 for MFMA.
  int wmmaGeneration;
  int64_t m, n, k;
  int64_t waveSize;
  /// Elements per lane of A, B and C/D.
  int64_t aItems, bItems, cItems;
  /// True for bf16 inputs, false for f16.
  bool bf16;

  /// (row, col) of A (M x K) element `item` held by `lane`; `T` is int64_t
  /// (to evaluate) or AffineExpr (to generate code).
  template <typename T>
  std::pair<T, T> aCoord(T lane, int64_t item) const;
  /// (row, col) of B (K x N) element `item` held by `lane`.
  template <typename T>
  std::pair<T, T> bCoord(T lane, int64_t item) const;
  /// (row, col) of C/D (M x N) element `item` held by `lane`.
  template <typename T>
  std::pair<T, T> cCoord(T lane, int64_t item) const;
};

struct ChipInfo;
struct MMAIntrinsicLayout;

/// One `amdgpu.mfma` or `amdgpu.wmma` (by `layout`'s kind): acc + a * b on
/// the lane's fragments.
Value createMMAOp(OpBuilder &b, Location loc, const MMAIntrinsicLayout &layout,
                  Value a, Value bOperand, Value acc);

/// The WMMA generation of a chip (RDNA3: 11, RDNA4: 12), 0 for CDNA.
int getWMMAGeneration(const ChipInfo &chip);

/// Items of a lane's D fragment that are consecutive rows of one column, in
/// aligned runs: 4 on CDNA, 8 on RDNA4, 1 on RDNA3 (whose lanes hold every
/// other row). The chip table's MmaIntrinsic::accRowRun says the same.
int64_t getAccumulatorRowRun(const MMAIntrinsicLayout &layout);

/// Every intrinsic Boo knows, for the layout lookups below.
ArrayRef<MMAIntrinsicLayout> getMMAIntrinsicLayouts();

/// The layout of intrinsic `name` as executed by a chip with the given WMMA
/// generation (ignored for MFMA), or nullptr.
const MMAIntrinsicLayout *lookupMMAIntrinsic(StringRef name,
                                             int wmmaGeneration);

/// Bytes a lane reads from LDS in one access of its A (or B) fragment:
/// the fragment's bytes, at most 16 (ds_read_b128); RDNA3's 32-byte
/// fragments are two accesses.
int64_t getFragmentAccessBytes(const MMAIntrinsicLayout &layout, bool isA,
                               int64_t elementBytes);

/// Padding, in elements, of the rows of an LDS tile [rows][kT + pad] from
/// which `layout`'s A (or B) fragments are read, so that the lanes one LDS
/// cycle serves (consecutive rows, the same K) hit distinct banks: the row
/// stride becomes an odd number of fragment accesses (docs/GPUPipeline.md,
/// "LDS layout").
int64_t getLDSRowPadding(const MMAIntrinsicLayout &layout, bool isA,
                         int64_t kTile, int64_t elementBytes);

/// How the staging of an LDS tile [rows][row stride] spreads the rows one
/// LDS write cycle serves (boo/LdsBankModel.h: 128 bytes of
/// `accessBytes`-byte writes, `perRow` writes per row). Adjacent rows
/// conflict under the padded stride of getLDSRowPadding; rows `spacing`
/// apart fill distinct banks. Returns {group, spacing}: the staging writes
/// logical rows m * group + j (j < group) to row j * spacing + m of each
/// block of group x spacing rows. {1, 1} (or spacing 1) keeps rows
/// adjacent: already conflict-free, or no spacing helps.
std::pair<int64_t, int64_t> getStagingRowSpread(int64_t rows, int64_t perRow,
                                                int64_t accessBytes,
                                                int64_t rowStrideBytes);

/// Whether the staging of an operand contiguous along M or N (each item
/// `width` rows x `kPer` K elements, written as `width` LDS stores of
/// `kPer` elements along K into a tile with `rowStrideBytes` rows) should
/// give consecutive lanes consecutive K groups of the same row block
/// (column-major items) rather than consecutive row blocks: when that makes
/// a wave's writes conflict less in the bank model of boo/LdsBankModel.h.
/// Either order reads whole 128-byte lines from global memory once a
/// wave covers 128 bytes of rows per K.
bool preferColumnMajorMNStaging(int64_t rowBlocks, int64_t kGroups,
                                int64_t width, int64_t kBytes,
                                int64_t rowStrideBytes, int64_t waveSize);

namespace detail {
inline int64_t floorDiv(int64_t a, int64_t b) { return a / b; }
inline AffineExpr floorDiv(AffineExpr a, int64_t b) { return a.floorDiv(b); }
} // namespace detail

// MFMA (CDNA, wave64): A[i][k] is held by lane i + M*(k/aItems) as item
// k % aItems; B[k][j] by lane j + N*(k/bItems); D[i][j] by lane j + N*g
// where rows come in blocks of 4 per lane group g (G = waveSize/N groups):
// item v of group g is row 4*G*(v/4) + 4*g + v%4.
// WMMA gen 11 (RDNA3, wave32): both lane halves hold row/col lane%16 with
// every K; D rows interleave across the halves (row 2*v + lane/16).
// WMMA gen 12 (RDNA4, wave32): the upper lane half holds the second half
// of K (A, B) and of the rows (D).
template <typename T>
std::pair<T, T> MMAIntrinsicLayout::aCoord(T lane, int64_t item) const {
  using detail::floorDiv;
  if (kind == MMAKind::MFMA)
    return {lane % m, floorDiv(lane, m) * aItems + item};
  if (wmmaGeneration == 11)
    return {lane % 16, lane * 0 + item}; // `lane * 0 + c`: the constant c as a T
  return {lane % 16, floorDiv(lane, 16) * aItems + item};
}

template <typename T>
std::pair<T, T> MMAIntrinsicLayout::bCoord(T lane, int64_t item) const {
  using detail::floorDiv;
  if (kind == MMAKind::MFMA)
    return {floorDiv(lane, n) * bItems + item, lane % n};
  if (wmmaGeneration == 11)
    return {lane * 0 + item, lane % 16};
  return {floorDiv(lane, 16) * bItems + item, lane % 16};
}

template <typename T>
std::pair<T, T> MMAIntrinsicLayout::cCoord(T lane, int64_t item) const {
  using detail::floorDiv;
  if (kind == MMAKind::MFMA) {
    int64_t groups = waveSize / n;
    return {floorDiv(lane, n) * 4 + (4 * groups * (item / 4) + item % 4),
            lane % n};
  }
  if (wmmaGeneration == 11)
    return {floorDiv(lane, 16) + 2 * item, lane % 16};
  return {floorDiv(lane, 16) * cItems + item, lane % 16};
}

} // namespace mlir::boo

#endif // BOO_CODEGEN_GPU_MMALAYOUT_H
