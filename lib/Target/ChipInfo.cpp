//===- ChipInfo.cpp - AMD GPU architecture table --------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The per-lane vector lengths and the ROCDL ops below were checked against
// LLVM 22: `mlir-opt --convert-amdgpu-to-rocdl=chipset=<chip>` on one
// `amdgpu.mfma`/`amdgpu.wmma` per entry, and `llc -mcpu=<chip>` accepts every
// chip. Sources for sizes: the CDNA2/3/4 and RDNA3/4 ISA guides.
//
//===----------------------------------------------------------------------===//

#include "Boo/Target/ChipInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir::boo;
using llvm::ArrayRef;
using llvm::StringRef;

namespace {
constexpr int64_t kKiB = 1024;
constexpr auto kF16 = ElementType::F16;
constexpr auto kBF16 = ElementType::BF16;
constexpr auto kMFMA = MmaKind::MFMA;
constexpr auto kWMMA = MmaKind::WMMA;

// CDNA (gfx90a, gfx942, gfx950). bf16 goes through the "_1k" instructions,
// which take four bf16 per lane like f16 does (the ISA of gfx942 calls them
// v_mfma_f32_16x16x16_bf16 / 32x32x8_bf16). gfx950 (CDNA4) adds the
// double-K forms with eight 16-bit elements per lane: the last four rows;
// gfx90a and gfx942 have the first four.
const MmaIntrinsic kCDNAMma[] = {
    {"MFMA_F32_16x16x16_F16", kMFMA, kF16, 16, 16, 16, 1, 4, 4, 4,
     "rocdl.mfma.f32.16x16x16f16", 4},
    {"MFMA_F32_32x32x8_F16", kMFMA, kF16, 32, 32, 8, 1, 4, 4, 16,
     "rocdl.mfma.f32.32x32x8f16", 4},
    {"MFMA_F32_16x16x16_BF16", kMFMA, kBF16, 16, 16, 16, 1, 4, 4, 4,
     "rocdl.mfma.f32.16x16x16bf16.1k", 4},
    {"MFMA_F32_32x32x8_BF16", kMFMA, kBF16, 32, 32, 8, 1, 4, 4, 16,
     "rocdl.mfma.f32.32x32x8bf16.1k", 4},
    {"MFMA_F32_16x16x32_F16", kMFMA, kF16, 16, 16, 32, 1, 8, 8, 4,
     "rocdl.mfma.f32.16x16x32.f16", 4},
    {"MFMA_F32_32x32x16_F16", kMFMA, kF16, 32, 32, 16, 1, 8, 8, 16,
     "rocdl.mfma.f32.32x32x16.f16", 4},
    {"MFMA_F32_16x16x32_BF16", kMFMA, kBF16, 16, 16, 32, 1, 8, 8, 4,
     "rocdl.mfma.f32.16x16x32.bf16", 4},
    {"MFMA_F32_32x32x16_BF16", kMFMA, kBF16, 32, 32, 16, 1, 8, 8, 16,
     "rocdl.mfma.f32.32x32x16.bf16", 4},
};
const llvm::ArrayRef<MmaIntrinsic> kCDNA3Mma =
    llvm::ArrayRef(kCDNAMma).take_front(4);
const llvm::ArrayRef<MmaIntrinsic> kCDNA4Mma = kCDNAMma;

// RDNA3 (gfx11): each lane holds the full 16-element row of A or B (the two
// half-waves hold duplicates) and 8 f32 of the accumulator.
const MmaIntrinsic kRDNA3Mma[] = {
    {"WMMA_F32_16x16x16_F16", kWMMA, kF16, 16, 16, 16, 1, 16, 16, 8,
     "rocdl.wmma.f32.16x16x16.f16", 1},
    {"WMMA_F32_16x16x16_BF16", kWMMA, kBF16, 16, 16, 16, 1, 16, 16, 8,
     "rocdl.wmma.f32.16x16x16.bf16", 1},
};

// RDNA4 (gfx12): no duplication, 8 elements of A or B per lane.
const MmaIntrinsic kRDNA4Mma[] = {
    {"WMMA_F32_16x16x16_F16", kWMMA, kF16, 16, 16, 16, 1, 8, 8, 8,
     "rocdl.wmma.f32.16x16x16.f16", 8},
    {"WMMA_F32_16x16x16_BF16", kWMMA, kBF16, 16, 16, 16, 1, 8, 8, 8,
     "rocdl.wmma.f32.16x16x16.bf16", 8},
};

// Peaks (AMD's product pages and CDNA/RDNA white papers): MI250X per GCD
// (half the card: 191.5 TFLOP/s, 3.28 TB/s), MI300X (1307.4 TFLOP/s,
// 5.3 TB/s), MI355X (2516.6 TFLOP/s dense, 8 TB/s), RX 7900 XTX
// (122.8 TFLOP/s, 960 GB/s), RX 9070 XT (194.7 TFLOP/s dense, 640 GB/s).
const ChipInfo kChips[] = {
    {"gfx90a", ChipFamily::CDNA2, "MI210, MI250X (per GCD)", 64, 64 * kKiB,
     1024, 110, kCDNA3Mma, 1.7, 95.7, 1638, 4, 8, 512, 8},
    {"gfx942", ChipFamily::CDNA3, "MI300X, MI300A, MI325X", 64, 64 * kKiB, 1024,
     304, kCDNA3Mma, 2.1, 1307.4, 5300, 4, 8, 512, 8},
    {"gfx950", ChipFamily::CDNA4, "MI350X, MI355X", 64, 160 * kKiB, 1024, 256,
     kCDNA4Mma, 2.4, 2516.6, 8000, 4, 8, 512, 8},
    {"gfx1100", ChipFamily::RDNA3, "Radeon RX 7900 XTX, PRO W7900", 32,
     64 * kKiB, 1024, 96, kRDNA3Mma, 2.5, 122.8, 960, 2, 16, 1536, 24},
    {"gfx1201", ChipFamily::RDNA4, "Radeon RX 9070 XT, AI PRO R9700", 32,
     64 * kKiB, 1024, 64, kRDNA4Mma, 2.97, 194.7, 640, 2, 16, 1536, 24},
};
} // namespace

std::string MmaIntrinsic::getShapeString() const {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

StringRef MmaIntrinsic::getInputTypeName() const {
  return getElementTypeName(inputType);
}

const MmaIntrinsic *ChipInfo::lookupMma(StringRef mmaName) const {
  for (const MmaIntrinsic &mma : mmaIntrinsics)
    if (mma.name == mmaName)
      return &mma;
  return nullptr;
}

StringRef ChipInfo::getFamilyName() const {
  switch (family) {
  case ChipFamily::CDNA2:
    return "CDNA2";
  case ChipFamily::CDNA3:
    return "CDNA3";
  case ChipFamily::CDNA4:
    return "CDNA4";
  case ChipFamily::RDNA3:
    return "RDNA3";
  case ChipFamily::RDNA4:
    return "RDNA4";
  }
  return "unknown";
}

const ChipInfo *mlir::boo::lookupChip(StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (chip.name == name)
      return &chip;
  return nullptr;
}

ArrayRef<ChipInfo> mlir::boo::getSupportedChips() { return kChips; }

std::string mlir::boo::getSupportedChipList() {
  return llvm::join(
      llvm::map_range(kChips,
                      [](const ChipInfo &c) -> StringRef { return c.name; }),
      ", ");
}

std::string mlir::boo::getUnsupportedChipMessage(StringRef name) {
  return "unsupported chip '" + name.str() +
         "'; supported: " + getSupportedChipList();
}

const MmaIntrinsic *mlir::boo::lookupMmaOnAnyChip(StringRef name) {
  for (const ChipInfo &chip : kChips)
    if (const MmaIntrinsic *mma = chip.lookupMma(name))
      return mma;
  return nullptr;
}

std::string mlir::boo::getKnownMmaList() {
  llvm::SmallVector<StringRef> names;
  for (const ChipInfo &chip : kChips)
    for (const MmaIntrinsic &mma : chip.mmaIntrinsics)
      if (!llvm::is_contained(names, StringRef(mma.name)))
        names.push_back(mma.name);
  return llvm::join(names, ", ");
}
