//===- MMALayoutTest.cpp - Per-lane MMA layouts are consistent ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Checks the structural facts every MMA layout must satisfy (and that a
// transcription error would break): across all lanes and items, D covers
// every element of the M x N tile exactly once, A and B cover their tiles
// the documented number of times (once, or twice for RDNA3's replicated
// lane halves), and fragment sizes match the tile.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/MMALayout.h"

#include "Boo/Target/ChipInfo.h"
#include "boo/LdsBankModel.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <vector>

using namespace mlir::boo;

namespace {

using Coord = std::pair<int64_t, int64_t>;

std::map<Coord, int> coverage(const MMAIntrinsicLayout &l, int64_t items,
                              Coord (MMAIntrinsicLayout::*fn)(int64_t, int64_t)
                                  const) {
  std::map<Coord, int> hits;
  for (int64_t lane = 0; lane < l.waveSize; ++lane)
    for (int64_t i = 0; i < items; ++i)
      ++hits[(l.*fn)(lane, i)];
  return hits;
}

void expectCovers(const std::map<Coord, int> &hits, int64_t rows, int64_t cols,
                  int times, const char *what, const MMAIntrinsicLayout &l) {
  EXPECT_EQ(static_cast<int64_t>(hits.size()), rows * cols)
      << l.name.str() << " gen " << l.wmmaGeneration << ": " << what;
  for (const auto &[coord, n] : hits) {
    EXPECT_GE(coord.first, 0);
    EXPECT_LT(coord.first, rows) << l.name.str() << " " << what;
    EXPECT_GE(coord.second, 0);
    EXPECT_LT(coord.second, cols) << l.name.str() << " " << what;
    EXPECT_EQ(n, times) << l.name.str() << " gen " << l.wmmaGeneration << ": "
                        << what << " element (" << coord.first << ", "
                        << coord.second << ")";
  }
}

TEST(MMALayout, EveryIntrinsicTilesItsOperands) {
  ASSERT_FALSE(getMMAIntrinsicLayouts().empty());
  for (const MMAIntrinsicLayout &l : getMMAIntrinsicLayouts()) {
    // RDNA3 WMMA replicates A and B in both lane halves.
    int replication = l.wmmaGeneration == 11 ? 2 : 1;
    EXPECT_EQ(l.aItems * l.waveSize, l.m * l.k * replication) << l.name.str();
    EXPECT_EQ(l.bItems * l.waveSize, l.k * l.n * replication) << l.name.str();
    EXPECT_EQ(l.cItems * l.waveSize, l.m * l.n) << l.name.str();
    expectCovers(coverage(l, l.aItems, &MMAIntrinsicLayout::aCoord<int64_t>),
                 l.m, l.k, replication, "A", l);
    expectCovers(coverage(l, l.bItems, &MMAIntrinsicLayout::bCoord<int64_t>),
                 l.k, l.n, replication, "B", l);
    expectCovers(coverage(l, l.cItems, &MMAIntrinsicLayout::cCoord<int64_t>),
                 l.m, l.n, 1, "C/D", l);
  }
}

// Every intrinsic the architecture table offers on a chip has a per-lane
// layout here, with the fragment sizes the table (and amdgpu.mfma/wmma) use.
TEST(MMALayout, CoversTheArchitectureTable) {
  for (const ChipInfo &chip : getSupportedChips()) {
    int gen = chip.family == ChipFamily::RDNA3   ? 11
              : chip.family == ChipFamily::RDNA4 ? 12
                                                 : 0;
    for (const MmaIntrinsic &mma : chip.mmaIntrinsics) {
      const MMAIntrinsicLayout *l = lookupMMAIntrinsic(mma.name, gen);
      if (!l) {
        ADD_FAILURE() << "no layout for " << mma.name.str() << " on "
                      << chip.name.str();
        continue;
      }
      EXPECT_EQ(l->m, mma.m) << mma.name.str();
      EXPECT_EQ(l->n, mma.n) << mma.name.str();
      EXPECT_EQ(l->k, mma.k) << mma.name.str();
      EXPECT_EQ(l->aItems, mma.aElementsPerLane)
          << mma.name.str() << " on " << chip.name.str();
      EXPECT_EQ(l->bItems, mma.bElementsPerLane)
          << mma.name.str() << " on " << chip.name.str();
      EXPECT_EQ(l->cItems, mma.cElementsPerLane)
          << mma.name.str() << " on " << chip.name.str();
      EXPECT_EQ(l->waveSize, chip.waveSize) << mma.name.str();
      EXPECT_EQ(getAccumulatorRowRun(*l), mma.accRowRun)
          << mma.name.str() << " on " << chip.name.str();
    }
  }
}

// Spot checks against the ISA references' tables (docs/MMALayouts.md).
TEST(MMALayout, DocumentedPositions) {
  const MMAIntrinsicLayout *mfma16 =
      lookupMMAIntrinsic("MFMA_F32_16x16x16_F16", 0);
  ASSERT_NE(mfma16, nullptr);
  EXPECT_EQ(mfma16->aCoord<int64_t>(17, 2), Coord(1, 6));
  EXPECT_EQ(mfma16->cCoord<int64_t>(48, 3), Coord(15, 0));
  const MMAIntrinsicLayout *mfma32 =
      lookupMMAIntrinsic("MFMA_F32_32x32x8_BF16", 0);
  ASSERT_NE(mfma32, nullptr);
  // D[i][j] is lane j + 32*((i/4)%2), item 4*(i/8) + i%4: row 13 col 5 is
  // lane 37, item 5.
  EXPECT_EQ(mfma32->cCoord<int64_t>(37, 5), Coord(13, 5));
  const MMAIntrinsicLayout *wmma11 =
      lookupMMAIntrinsic("WMMA_F32_16x16x16_F16", 11);
  ASSERT_NE(wmma11, nullptr);
  EXPECT_EQ(wmma11->cCoord<int64_t>(20, 3), Coord(7, 4));
  const MMAIntrinsicLayout *wmma12 =
      lookupMMAIntrinsic("WMMA_F32_16x16x16_F16", 12);
  ASSERT_NE(wmma12, nullptr);
  EXPECT_EQ(wmma12->aCoord<int64_t>(20, 3), Coord(4, 11));
  EXPECT_EQ(wmma12->cCoord<int64_t>(20, 3), Coord(11, 4));
}

} // namespace

namespace {

/// The extra LDS cycles bank conflicts cost when every lane reads its A
/// (or B) fragment from a [rows][kTile + pad] tile of 16-bit elements, in
/// the model of boo/LdsBankModel.h (the emulator's profile uses it too).
int64_t conflictCycles(const MMAIntrinsicLayout &l, bool isA, int64_t kTile,
                       int64_t pad) {
  constexpr int64_t kElementBytes = 2;
  int64_t access = getFragmentAccessBytes(l, isA, kElementBytes);
  int64_t items = isA ? l.aItems : l.bItems;
  int64_t extra = 0;
  // One wave instruction per access of the fragment.
  for (int64_t first = 0; first < items; first += access / kElementBytes) {
    std::vector<::boo::lds::LaneAccess> lanes;
    for (int64_t lane = 0; lane < l.waveSize; ++lane) {
      auto [r, c] =
          isA ? l.aCoord<int64_t>(lane, first) : l.bCoord<int64_t>(lane, first);
      int64_t row = isA ? r : c, k = isA ? c : r;
      int64_t address = (row * (kTile + pad) + k) * kElementBytes;
      lanes.push_back({uint32_t(lane), address, access});
    }
    ::boo::lds::Cycles cycles = ::boo::lds::countCycles(std::move(lanes));
    extra += cycles.actual - cycles.conflictFree;
  }
  return extra;
}

} // namespace

// The padded LDS rows make every intrinsic's fragment reads conflict-free
// for the K tiles the heuristic picks; unpadded, the same reads conflict
// (so the model sees conflicts where they exist).
TEST(MMALayout, PaddedFragmentReadsAreConflictFree) {
  for (const MMAIntrinsicLayout &l : getMMAIntrinsicLayouts())
    for (bool isA : {true, false})
      for (int64_t kTile : {l.k, 2 * l.k, 4 * l.k}) {
        int64_t pad = getLDSRowPadding(l, isA, kTile, 2);
        EXPECT_EQ(conflictCycles(l, isA, kTile, pad), 0)
            << l.name.str() << " gen " << l.wmmaGeneration
            << (isA ? " A" : " B") << " kTile " << kTile << " pad " << pad;
        if (kTile >= 32)
          EXPECT_GT(conflictCycles(l, isA, kTile, 0), 0)
              << l.name.str() << " kTile " << kTile << " unpadded";
      }
}

namespace {

/// The tile row getStagingRowSpread's {group, spacing} gives item row
/// `row` (as MMAStaging.cpp computes it in IR).
int64_t spreadRow(int64_t row, int64_t group, int64_t spacing) {
  if (spacing <= 1)
    return row;
  int64_t block = group * spacing, inBlock = row % block;
  return row / block * block + inBlock % group * spacing + inBlock / group;
}

/// The extra cycles of one staging pass of a wave (64 lanes, lane l
/// writing item l) over a [rows][kTile + pad] tile of 2-byte elements,
/// `width` elements per write, with the staging's row spread.
int64_t stagingConflictCycles(int64_t rows, int64_t kTile, int64_t pad,
                              int64_t width, bool spread) {
  constexpr int64_t kElementBytes = 2;
  int64_t perRow = kTile / width;
  int64_t strideBytes = (kTile + pad) * kElementBytes;
  auto [group, spacing] =
      spread ? getStagingRowSpread(rows, perRow, width * kElementBytes,
                                   strideBytes)
             : std::pair<int64_t, int64_t>{1, 1};
  std::vector<::boo::lds::LaneAccess> lanes;
  for (int64_t lane = 0; lane < std::min<int64_t>(64, rows * perRow); ++lane) {
    int64_t row = spreadRow(lane / perRow, group, spacing);
    int64_t col = lane % perRow * width;
    lanes.push_back({uint32_t(lane), row * strideBytes + col * kElementBytes,
                     width * kElementBytes});
  }
  ::boo::lds::Cycles cycles = ::boo::lds::countCycles(std::move(lanes));
  return cycles.actual - cycles.conflictFree;
}

} // namespace

// The staging's 16-byte writes into the padded tiles: adjacent rows
// conflict (the padding serves the fragment reads), rows spread by
// getStagingRowSpread do not. Every intrinsic's padding, K tiles 16-64.
TEST(MMALayout, SpreadStagingWritesAreConflictFree) {
  for (const MMAIntrinsicLayout &l : getMMAIntrinsicLayouts())
    for (bool isA : {true, false})
      for (int64_t kTile : {16, 32, 64}) {
        int64_t pad = getLDSRowPadding(l, isA, kTile, 2);
        for (int64_t rows : {16, 32, 64, 128}) {
          EXPECT_EQ(stagingConflictCycles(rows, kTile, pad, 8, true), 0)
              << l.name.str() << " kTile " << kTile << " pad " << pad
              << " rows " << rows;
          // A permutation: every row is still written once.
          auto [group, spacing] =
              getStagingRowSpread(rows, kTile / 8, 16, (kTile + pad) * 2);
          std::vector<int> hits(rows, 0);
          for (int64_t r = 0; r < rows; ++r)
            ++hits[spreadRow(r, group, spacing)];
          EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), rows);
        }
        if (kTile == 32 && pad > 0)
          EXPECT_GT(stagingConflictCycles(64, kTile, pad, 8, false), 0)
              << l.name.str() << " unspread";
      }
}

// The staging of an operand contiguous along M or N (a lane's block of 8
// rows x 4 K elements, written as 8 stores of 8 bytes) into bf16 tiles
// padded for 8-byte fragment reads (K tile 32: a stride of 36 elements):
// consecutive lanes on consecutive row blocks hit banks 144 dwords apart,
// i.e. only 2 distinct offsets, while consecutive K groups of a block fill
// the banks; the staging picks the latter.
TEST(MMALayout, TransposedStagingPicksTheConflictFreeOrder) {
  constexpr int64_t kStride = 36 * 2, kWidth = 8, kGroups = 8, kBytes = 8;
  auto extraCycles = [&](bool columnMajor, int64_t rowBlocks) {
    int64_t extra = 0;
    for (int64_t i = 0; i < kWidth; ++i) {
      std::vector<::boo::lds::LaneAccess> lanes;
      for (int64_t lane = 0; lane < 64; ++lane) {
        int64_t block = columnMajor ? lane / kGroups : lane % rowBlocks;
        int64_t group = columnMajor ? lane % kGroups : lane / rowBlocks;
        lanes.push_back({uint32_t(lane),
                         (block * kWidth + i) * kStride + group * kBytes,
                         kBytes});
      }
      ::boo::lds::Cycles cycles = ::boo::lds::countCycles(std::move(lanes));
      extra += cycles.actual - cycles.conflictFree;
    }
    return extra;
  };
  for (int64_t rowBlocks : {8, 16}) {
    EXPECT_EQ(extraCycles(true, rowBlocks), 0) << rowBlocks;
    EXPECT_GT(extraCycles(false, rowBlocks), 0) << rowBlocks;
    EXPECT_TRUE(preferColumnMajorMNStaging(rowBlocks, kGroups, kWidth, kBytes,
                                           kStride, 64));
  }
  // Nothing to reorder with one K group.
  EXPECT_FALSE(preferColumnMajorMNStaging(16, 1, kWidth, kBytes, kStride, 64));
}
