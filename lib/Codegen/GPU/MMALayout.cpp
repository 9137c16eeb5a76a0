//===- MMALayout.cpp - Per-lane layouts of AMD MMA instructions -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Sources: AMD Instinct MI300 (CDNA3) ISA reference, "Matrix fused multiply
// add" and its operand layout tables (as also produced by AMD's
// amd_matrix_instruction_calculator); RDNA3 and RDNA4 ISA references,
// "Wave Matrix Multiply Accumulate". Summarized in docs/MMALayouts.md.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/MMALayout.h"

#include <algorithm>
#include <vector>

#include "Boo/Target/ChipInfo.h"
#include "boo/LdsBankModel.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"

using namespace mlir;
using namespace mlir::boo;

namespace {
const MMAIntrinsicLayout kLayouts[] = {
    // name, kind, wmma gen, m, n, k, wave, aItems, bItems, cItems, bf16
    {"MFMA_F32_16x16x16_F16", MMAKind::MFMA, 0, 16, 16, 16, 64, 4, 4, 4, false},
    {"MFMA_F32_16x16x16_BF16", MMAKind::MFMA, 0, 16, 16, 16, 64, 4, 4, 4, true},
    {"MFMA_F32_32x32x8_F16", MMAKind::MFMA, 0, 32, 32, 8, 64, 4, 4, 16, false},
    {"MFMA_F32_32x32x8_BF16", MMAKind::MFMA, 0, 32, 32, 8, 64, 4, 4, 16, true},
    // gfx950 (CDNA4): twice the K per instruction, 8 inputs per lane.
    {"MFMA_F32_16x16x32_F16", MMAKind::MFMA, 0, 16, 16, 32, 64, 8, 8, 4, false},
    {"MFMA_F32_16x16x32_BF16", MMAKind::MFMA, 0, 16, 16, 32, 64, 8, 8, 4, true},
    {"MFMA_F32_32x32x16_F16", MMAKind::MFMA, 0, 32, 32, 16, 64, 8, 8, 16,
     false},
    {"MFMA_F32_32x32x16_BF16", MMAKind::MFMA, 0, 32, 32, 16, 64, 8, 8, 16,
     true},
    {"WMMA_F32_16x16x16_F16", MMAKind::WMMA, 11, 16, 16, 16, 32, 16, 16, 8,
     false},
    {"WMMA_F32_16x16x16_BF16", MMAKind::WMMA, 11, 16, 16, 16, 32, 16, 16, 8,
     true},
    {"WMMA_F32_16x16x16_F16", MMAKind::WMMA, 12, 16, 16, 16, 32, 8, 8, 8,
     false},
    {"WMMA_F32_16x16x16_BF16", MMAKind::WMMA, 12, 16, 16, 16, 32, 8, 8, 8,
     true},
};
} // namespace

ArrayRef<MMAIntrinsicLayout> mlir::boo::getMMAIntrinsicLayouts() {
  return kLayouts;
}

const MMAIntrinsicLayout *mlir::boo::lookupMMAIntrinsic(StringRef name,
                                                        int wmmaGeneration) {
  for (const MMAIntrinsicLayout &l : kLayouts)
    if (l.name == name &&
        (l.kind == MMAKind::MFMA || l.wmmaGeneration == wmmaGeneration))
      return &l;
  return nullptr;
}

int64_t mlir::boo::getFragmentAccessBytes(const MMAIntrinsicLayout &layout,
                                          bool isA, int64_t elementBytes) {
  int64_t items = isA ? layout.aItems : layout.bItems;
  return std::min<int64_t>(items * elementBytes, 16);
}

int64_t mlir::boo::getLDSRowPadding(const MMAIntrinsicLayout &layout, bool isA,
                                    int64_t kTile, int64_t elementBytes) {
  int64_t access = getFragmentAccessBytes(layout, isA, elementBytes);
  int64_t rowBytes = kTile * elementBytes;
  if (rowBytes % access != 0 || (rowBytes / access) % 2 == 1)
    return 0;
  return access / elementBytes;
}

std::pair<int64_t, int64_t>
mlir::boo::getStagingRowSpread(int64_t rows, int64_t perRow,
                               int64_t accessBytes, int64_t rowStrideBytes) {
  using namespace ::boo::lds;
  if (accessBytes <= 0 || perRow <= 0 || rowStrideBytes % kBankBytes != 0)
    return {1, 1};
  int64_t lanes = std::min(kBanks, kBytesPerCycle / accessBytes);
  int64_t rowDwords = perRow * accessBytes / kBankBytes;
  if (perRow >= lanes || lanes % perRow != 0 ||
      (lanes / perRow) * rowDwords != kBanks)
    return {1, 1};
  int64_t group = lanes / perRow;
  int64_t stride = rowStrideBytes / kBankBytes;
  for (int64_t spacing = 1; group * spacing <= rows; ++spacing) {
    if (rows % (group * spacing) != 0)
      continue;
    std::vector<bool> used(kBanks, false);
    bool distinct = true;
    for (int64_t j = 0; j < group && distinct; ++j)
      for (int64_t d = 0; d < rowDwords && distinct; ++d) {
        int64_t bank = (j * spacing * stride + d) % kBanks;
        distinct = !used[bank];
        used[bank] = true;
      }
    if (distinct)
      return {group, spacing};
  }
  return {1, 1};
}

namespace {

/// The extra LDS cycles of one wave's transposed staging writes (row `i` of
/// every lane's block, for each i).
int64_t mnStagingConflicts(bool columnMajor, int64_t rowBlocks, int64_t kGroups,
                           int64_t width, int64_t kBytes,
                           int64_t rowStrideBytes, int64_t waveSize) {
  int64_t extra = 0;
  for (int64_t i = 0; i < width; ++i) {
    std::vector<::boo::lds::LaneAccess> lanes;
    for (int64_t lane = 0; lane < std::min(waveSize, rowBlocks * kGroups);
         ++lane) {
      int64_t block = columnMajor ? lane / kGroups : lane % rowBlocks;
      int64_t group = columnMajor ? lane % kGroups : lane / rowBlocks;
      lanes.push_back({uint32_t(lane),
                       (block * width + i) * rowStrideBytes + group * kBytes,
                       kBytes});
    }
    ::boo::lds::Cycles cycles = ::boo::lds::countCycles(std::move(lanes));
    extra += cycles.actual - cycles.conflictFree;
  }
  return extra;
}

} // namespace

bool mlir::boo::preferColumnMajorMNStaging(int64_t rowBlocks, int64_t kGroups,
                                           int64_t width, int64_t kBytes,
                                           int64_t rowStrideBytes,
                                           int64_t waveSize) {
  if (rowBlocks <= 0 || kGroups <= 1 || width <= 0 || kBytes <= 0)
    return false;
  return mnStagingConflicts(true, rowBlocks, kGroups, width, kBytes,
                            rowStrideBytes, waveSize) <
         mnStagingConflicts(false, rowBlocks, kGroups, width, kBytes,
                            rowStrideBytes, waveSize);
}

int64_t mlir::boo::getAccumulatorRowRun(const MMAIntrinsicLayout &mma) {
  for (int64_t g = mma.cItems; g > 1; g /= 2) {
    bool ok = mma.cItems % g == 0;
    for (int64_t l = 0; ok && l < mma.waveSize; ++l)
      for (int64_t v = 0; ok && v < mma.cItems; ++v) {
        auto first = mma.cCoord<int64_t>(l, v - v % g);
        auto item = mma.cCoord<int64_t>(l, v);
        ok = first.first % g == 0 && item.second == first.second &&
             item.first == first.first + v % g;
      }
    if (ok)
      return g;
  }
  return 1;
}

int mlir::boo::getWMMAGeneration(const ChipInfo &chip) {
  switch (chip.family) {
  case ChipFamily::RDNA3:
    return 11;
  case ChipFamily::RDNA4:
    return 12;
  default:
    return 0;
  }
}

Value mlir::boo::createMMAOp(OpBuilder &b, Location loc,
                             const MMAIntrinsicLayout &layout, Value a,
                             Value bOperand, Value acc) {
  if (layout.kind == MMAKind::MFMA)
    return amdgpu::MFMAOp::create(b, loc, acc.getType(), layout.m, layout.n,
                                  layout.k, /*blocks=*/1, a, bOperand, acc);
  return amdgpu::WMMAOp::create(b, loc, acc.getType(), layout.m, layout.n,
                                layout.k, a, bOperand, acc);
}
