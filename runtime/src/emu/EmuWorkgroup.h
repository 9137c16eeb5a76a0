//===- EmuWorkgroup.h - Run one emulated workgroup --------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A workgroup runs on one thread: each work-item on its own fiber
// (EmuFiber.h), scheduled round-robin. A fiber runs until it waits (at a
// barrier or a wave-collective operation) or returns. A barrier completes
// when every work-item that has not returned waits at it; a wave operation
// when every lane of the wave that has not returned waits at it, and its
// result is then computed for all of them at once. What can never complete
// (a barrier or wave operation some work-items wait at while others wait
// elsewhere) is reported as a divergence or a deadlock and ends the
// workgroup. Out-of-bounds accesses and LDS races are reported and the
// workgroup goes on. docs/Emulator.md has the rules.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_EMUWORKGROUP_H
#define BOO_RUNTIME_SRC_EMUWORKGROUP_H

#include "EmuChip.h"
#include "EmuProfile.h"

#include <cstdint>
#include <string>
#include <vector>

namespace boo {
namespace emu {

/// The most work-items a workgroup may have (as on AMD GPUs).
inline constexpr uint32_t kMaxWorkgroupSize = 1024;
/// Error messages kept per workgroup and per launch; the rest are counted.
inline constexpr size_t kMaxStoredErrors = 8;

/// One kernel launch, as every workgroup sees it.
struct LaunchInfo {
  const ChipInfo *chip = nullptr;
  KernelFn kernel = nullptr;
  std::string kernelName;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t workgroup[3] = {1, 1, 1};
  /// The workgroup's LDS size in bytes.
  uint32_t ldsBytes = 0;
  /// args[i]: the address of argument i's value (boo/EmuABI.h).
  void **args = nullptr;
  /// When set, the launch is profiled into it (EmuProfile.h), running at
  /// most `maxWorkgroups` workgroups spread over the grid (0: all).
  ProfileCounters *profile = nullptr;
  uint64_t maxWorkgroups = 0;
};

/// The errors of a workgroup: the first kMaxStoredErrors messages, and how
/// many there were in all.
struct ErrorLog {
  std::vector<std::string> messages;
  uint64_t count = 0;

  /// Whether the next error's message is kept (else only counted, and
  /// need not be formatted).
  bool keepsNext() const { return messages.size() < kMaxStoredErrors; }
  void add(std::string message) {
    ++count;
    if (keepsNext())
      messages.push_back(std::move(message));
  }
};

/// Runs workgroup `blockId` of `launch` (already checked: sizes positive,
/// at most kMaxWorkgroupSize work-items, LDS within the chip's) on the
/// calling thread, adding its errors to `errors` and, when the launch is
/// profiled, its counters to `profile`. The thread's fiber stacks, LDS and
/// race-detector shadow are kept for its next workgroup.
void runWorkgroup(const LaunchInfo &launch, const uint32_t blockId[3],
                  ErrorLog &errors, ProfileCounters *profile = nullptr);

} // namespace emu
} // namespace boo

#endif // BOO_RUNTIME_SRC_EMUWORKGROUP_H
