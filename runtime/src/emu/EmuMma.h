//===- EmuMma.h - Wave-collective matrix instructions -----------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// amdgpu.mfma / amdgpu.wmma as the emulator runs them: the fragments of all
// lanes of a wave are gathered into whole A, B and C matrices through the
// chip's per-lane layout, D = C + A * B is computed in f32, and D is
// scattered back to the lanes. The layouts are written here from the ISA
// references, independently of the compiler's (lib/Codegen/GPU/MMALayout),
// so that a layout bug in the compiler shows up as wrong results.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_EMUMMA_H
#define BOO_RUNTIME_SRC_EMUMMA_H

#include "EmuChip.h"

#include <cstdint>
#include <string>

namespace boo {
namespace emu {

/// The parameters of one matrix instruction (the same in every lane).
struct MmaOp {
  int32_t family, m, n, k, inputType, aItems, cItems;
  bool operator==(const MmaOp &other) const {
    return family == other.family && m == other.m && n == other.n &&
           k == other.k && inputType == other.inputType &&
           aItems == other.aItems && cItems == other.cItems;
  }
};

/// "MFMA 16x16x16 f16 (4 A/B items, 4 C items per lane)".
std::string describeMma(const MmaOp &op);

/// One lane's operands; `a` null for a lane that does not take part (it
/// returned, or the wave is partial): its fragments read as zeros and its
/// D is not written.
struct MmaLane {
  const uint16_t *a = nullptr, *b = nullptr;
  const float *c = nullptr;
  float *d = nullptr;
};

/// Runs `op` for a wave of `chip.waveSize` lanes. Returns an empty string,
/// or what is wrong: an instruction the chip does not have (every D is
/// then a copy of its C), or RDNA3 half-waves that disagree (D is then
/// computed from lanes 0-15).
std::string runMma(const ChipInfo &chip, const MmaOp &op, const MmaLane *lanes);

/// IEEE binary16 bits to float, exactly (subnormals, infinities, NaNs).
float halfToFloat(uint16_t bits);
/// bfloat16 bits (the upper half of an f32) to float.
float bfloat16ToFloat(uint16_t bits);

} // namespace emu
} // namespace boo

#endif // BOO_RUNTIME_SRC_EMUMMA_H
