//===- LdsBankModel.h - LDS bank conflicts of a wave instruction -*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The model of an AMD GPU's LDS that Boo uses everywhere it reasons about
// bank conflicts: the compiler's LDS padding test (MMALayoutTest) and the
// emulator's profile (runtime/src/emu/EmuProfile.cpp), which the
// performance estimate reads (docs/PerfModel.md). Header-only and free of
// LLVM/MLIR: the compiler and the runtime share it.
//
// 32 banks of 4 bytes serve 128 bytes per cycle. A wave instruction's lanes
// are served in lane order, as many per cycle as 128 bytes hold at the
// instruction's access width (32 lanes of 4-byte accesses, 16 of 8-byte,
// 8 of 16-byte), at most one per bank. Within a cycle, distinct dwords in
// one bank serialize; lanes reading the same dword share it (broadcast).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LDSBANKMODEL_H
#define BOO_LDSBANKMODEL_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace boo {
namespace lds {

inline constexpr int64_t kBanks = 32;
inline constexpr int64_t kBankBytes = 4;
inline constexpr int64_t kBytesPerCycle = kBanks * kBankBytes;

/// One lane's part of a wave LDS instruction.
struct LaneAccess {
  uint32_t lane;
  int64_t byteOffset;
  int64_t bytes;
};

/// The cycles of one wave instruction.
struct Cycles {
  /// With the instruction's bank conflicts.
  int64_t actual = 0;
  /// Without any: one per group of lanes served together.
  int64_t conflictFree = 0;
};

/// The cycles of the wave instruction whose active lanes made `accesses`
/// (in any order; lanes not listed are inactive).
inline Cycles countCycles(std::vector<LaneAccess> accesses) {
  Cycles cycles;
  if (accesses.empty())
    return cycles;
  std::sort(
      accesses.begin(), accesses.end(),
      [](const LaneAccess &a, const LaneAccess &b) { return a.lane < b.lane; });
  int64_t width = 1;
  for (const LaneAccess &a : accesses)
    width = std::max(width, a.bytes);
  int64_t lanesPerCycle = std::max<int64_t>(
      1, std::min(kBanks, kBytesPerCycle / std::min(width, kBytesPerCycle)));
  size_t first = 0;
  std::vector<int64_t> dwords;
  int64_t perBank[kBanks];
  while (first < accesses.size()) {
    int64_t group = accesses[first].lane / lanesPerCycle;
    dwords.clear();
    size_t end = first;
    for (; end < accesses.size() &&
           int64_t(accesses[end].lane) / lanesPerCycle == group;
         ++end) {
      const LaneAccess &a = accesses[end];
      int64_t begin = a.byteOffset / kBankBytes;
      int64_t last =
          (a.byteOffset + std::max<int64_t>(a.bytes, 1) - 1) / kBankBytes;
      for (int64_t d = begin; d <= last; ++d)
        dwords.push_back(d);
    }
    std::sort(dwords.begin(), dwords.end());
    dwords.erase(std::unique(dwords.begin(), dwords.end()), dwords.end());
    std::fill(perBank, perBank + kBanks, 0);
    int64_t worst = 1;
    for (int64_t d : dwords)
      worst = std::max(worst, ++perBank[((d % kBanks) + kBanks) % kBanks]);
    cycles.actual += worst;
    cycles.conflictFree += 1;
    first = end;
  }
  return cycles;
}

} // namespace lds
} // namespace boo

#endif // BOO_LDSBANKMODEL_H
