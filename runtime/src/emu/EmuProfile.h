//===- EmuProfile.h - What an emulated launch executes ----------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The emulator's profile: per launch, the wave instructions the kernel
// executes and the memory they move, from every lane's addresses. A wave
// instruction is the set of lanes of one wave that executed the same
// access site (boo/EmuABI.h's `site`) for the same time: the n-th access of
// site s by each lane; an access of more than 16 bytes per lane is one
// instruction per 16 bytes, as on the GPU. Its global bytes, the 128-byte
// lines it touches, and, for LDS, its cycles with and without bank
// conflicts (boo/LdsBankModel.h) are counted when its last lane has
// reported, or at the next barrier or the workgroup's end for lanes that
// diverged.
// docs/Emulator.md, "Profile".
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_EMU_EMUPROFILE_H
#define BOO_RUNTIME_SRC_EMU_EMUPROFILE_H

#include "boo/LdsBankModel.h"
#include "boo_runtime.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace boo {
namespace emu {

/// Global accesses are counted in lines of this many bytes.
inline constexpr int64_t kGlobalLineBytes = 128;
/// The widest access one GPU instruction makes per lane (global_load_dwordx4,
/// ds_read_b128); a wider one counts as several.
inline constexpr int64_t kMaxAccessBytes = 16;

/// The counters of boo_launch_profile_t, without the launch's name.
using ProfileCounters = boo_launch_profile_t;

/// Adds `from`'s counters (not its name or workgroup counts) to `to`.
void addCounters(ProfileCounters &to, const ProfileCounters &from);

/// Groups one workgroup's lane accesses into wave instructions.
class WorkgroupProfiler {
public:
  /// Starts a workgroup of `items` work-items.
  void begin(uint32_t items);
  /// Work-item `item` (lane `lane` of wave `wave`, which has `liveLanes`
  /// lanes that have not returned) made an access of `bytes` bytes at
  /// `byteOffset` of `buffer` (-1 for the LDS) at access site `site`.
  void recordAccess(uint32_t item, uint32_t wave, uint32_t lane,
                    uint32_t liveLanes, int32_t site, bool isStore,
                    int32_t buffer, int64_t byteOffset, int64_t bytes);
  /// Counts every wave instruction still open (at barriers and the end).
  void flush();
  /// A wave's matrix instruction of shape m x n x k.
  void recordMma(int64_t m, int64_t n, int64_t k);

  const ProfileCounters &getCounters() const { return counters; }

private:
  struct Instruction {
    bool isStore = false;
    int32_t buffer = -1;
    std::vector<lds::LaneAccess> lanes;
  };
  /// Counts a finished instruction (its lanes may be moved from).
  void count(Instruction &instruction);

  ProfileCounters counters{};
  /// count's line list, kept between instructions.
  std::vector<int64_t> lineScratch;
  /// Per work-item, how often it executed each site.
  std::vector<std::vector<uint32_t>> executions;
  /// Open wave instructions by (wave, site, execution).
  std::unordered_map<uint64_t, Instruction> open;
};

} // namespace emu
} // namespace boo

#endif // BOO_RUNTIME_SRC_EMU_EMUPROFILE_H
