//===- EmuChip.cpp - The chips the SIMT emulator knows --------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Sources: the CDNA2/CDNA3/CDNA4 and RDNA3/RDNA4 instruction set
// references (matrix instructions, LDS size per workgroup).
//
//===----------------------------------------------------------------------===//

#include "EmuChip.h"

#include <iterator>

using namespace boo::emu;

namespace {

// v_mfma_f32_{16x16x16,32x32x8}_{f16,bf16_1k}.
constexpr MmaShape kCdnaShapes[] = {{16, 16, 16, 4, 4}, {32, 32, 8, 4, 16}};
// CDNA4 adds v_mfma_f32_{16x16x32,32x32x16}_{f16,bf16}.
constexpr MmaShape kCdna4Shapes[] = {{16, 16, 16, 4, 4},
                                     {32, 32, 8, 4, 16},
                                     {16, 16, 32, 8, 4},
                                     {32, 32, 16, 8, 16}};
// v_wmma_f32_16x16x16_{f16,bf16}: RDNA3 lanes hold a whole row/column of
// A/B (16 items), RDNA4 lanes half of one (8 items).
constexpr MmaShape kRdna3Shapes[] = {{16, 16, 16, 16, 8}};
constexpr MmaShape kRdna4Shapes[] = {{16, 16, 16, 8, 8}};

template <size_t N> constexpr int32_t count(const MmaShape (&)[N]) {
  return int32_t(N);
}

constexpr uint32_t k64KiB = 64 * 1024;

const ChipInfo kChips[] = {
    {"gfx90a", 64, k64KiB, kMfma, MmaLayout::Cdna, kCdnaShapes,
     count(kCdnaShapes)},
    {"gfx942", 64, k64KiB, kMfma, MmaLayout::Cdna, kCdnaShapes,
     count(kCdnaShapes)},
    {"gfx950", 64, 160 * 1024, kMfma, MmaLayout::Cdna, kCdna4Shapes,
     count(kCdna4Shapes)},
    {"gfx1100", 32, k64KiB, kWmma, MmaLayout::Rdna3, kRdna3Shapes,
     count(kRdna3Shapes)},
    {"gfx1201", 32, k64KiB, kWmma, MmaLayout::Rdna4, kRdna4Shapes,
     count(kRdna4Shapes)},
};

} // namespace

const ChipInfo *boo::emu::findChip(const std::string &name) {
  for (const ChipInfo &chip : kChips)
    if (name == chip.name)
      return &chip;
  return nullptr;
}

std::string boo::emu::getSupportedChips() {
  std::string names;
  for (const ChipInfo &chip : kChips)
    names += (names.empty() ? "" : ", ") + std::string(chip.name);
  return names;
}

const char *boo::emu::getMmaFamilyName(MmaFamily family) {
  switch (family) {
  case kMfma:
    return "MFMA";
  case kWmma:
    return "WMMA";
  }
  return "unknown matrix instruction family";
}
