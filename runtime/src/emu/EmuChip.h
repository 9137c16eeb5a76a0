//===- EmuChip.h - The chips the SIMT emulator knows ------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The one table of what the emulator needs to know about each AMD chip: its
// wave size, its LDS size, and which matrix instructions it has with which
// per-lane layout. The runtime does not link the compiler, so this is its
// own table; it is deliberately independent of the compiler's chip info
// (the emulator is a check of the compiler).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_EMUCHIP_H
#define BOO_RUNTIME_SRC_EMUCHIP_H

#include "boo/EmuABI.h"

#include <cstdint>
#include <string>

namespace boo {
namespace emu {

/// How a chip's matrix instructions spread their operands over lanes
/// (EmuMma.cpp defines each).
enum class MmaLayout : uint8_t {
  Cdna,  // MFMA, wave64 (gfx90a, gfx942, gfx950)
  Rdna3, // WMMA, wave32, A and B replicated in both half-waves (gfx11)
  Rdna4, // WMMA, wave32, K split across the half-waves (gfx12)
};

/// One matrix instruction shape: D (MxN, f32) = A (MxK) * B (KxN) + C with
/// `aItems` 16-bit A (and B) elements and `cItems` floats of C/D per lane.
struct MmaShape {
  int32_t m, n, k, aItems, cItems;
};

struct ChipInfo {
  const char *name;
  int32_t waveSize;
  /// Bytes of LDS one workgroup may use.
  uint32_t maxLdsBytes;
  MmaFamily mmaFamily;
  MmaLayout mmaLayout;
  /// The shapes of its f16/bf16 -> f32 matrix instructions.
  const MmaShape *mmaShapes;
  int32_t mmaShapeCount;
};

/// Null for a chip the emulator does not know.
const ChipInfo *findChip(const std::string &name);

/// "gfx90a, gfx942, gfx950, gfx1100, gfx1201".
std::string getSupportedChips();

/// "MFMA" or "WMMA".
const char *getMmaFamilyName(MmaFamily family);

} // namespace emu
} // namespace boo

#endif // BOO_RUNTIME_SRC_EMUCHIP_H
