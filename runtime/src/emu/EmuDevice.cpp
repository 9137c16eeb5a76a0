//===- EmuDevice.cpp - The SIMT emulator's entry points -------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A launch checks its sizes against the chip, then runs its workgroups in
// parallel over the thread pool, each on one thread (EmuWorkgroup.cpp).
// Workgroups collect their errors privately; only a workgroup with errors
// takes the launch's lock, to merge them.
//
//===----------------------------------------------------------------------===//

#include "EmuDevice.h"

#include "ThreadPool.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <mutex>

using namespace boo::emu;
using boo::runtime::ThreadPool;

namespace {

/// The errors of a launch's workgroups, merged.
struct LaunchErrors {
  std::mutex mutex;
  /// The first kMaxStoredErrors messages by workgroup (linear id), in order.
  std::vector<std::pair<uint64_t, std::string>> messages;
  uint64_t count = 0;

  void merge(uint64_t workgroup, ErrorLog &log) {
    std::lock_guard<std::mutex> lock(mutex);
    count += log.count;
    // After the messages of earlier workgroups, in the workgroup's order.
    auto at = std::upper_bound(
        messages.begin(), messages.end(), workgroup,
        [](uint64_t group, const auto &entry) { return group < entry.first; });
    for (std::string &message : log.messages)
      at = messages.emplace(at, workgroup, std::move(message)) + 1;
    if (messages.size() > kMaxStoredErrors)
      messages.resize(kMaxStoredErrors);
  }
};

struct LaunchRun {
  const LaunchInfo *launch;
  LaunchErrors errors;
  /// The grid's workgroups, and how many of them run (a profile's sample).
  uint64_t groups = 0, running = 0;
  /// The profile's counters, merged under the errors' mutex.
  ProfileCounters profile{};
};

void runWorkgroups(void *ctx, int64_t begin, int64_t end) {
  LaunchRun &run = *static_cast<LaunchRun *>(ctx);
  const uint32_t *grid = run.launch->grid;
  bool profiling = run.launch->profile != nullptr;
  ProfileCounters profile{};
  for (int64_t index = begin; index < end; ++index) {
    // A sample spreads evenly over the grid.
    uint64_t linear =
        run.running == run.groups
            ? uint64_t(index)
            : uint64_t(__uint128_t(index) * run.groups / run.running);
    uint32_t blockId[3] = {uint32_t(linear % grid[0]),
                           uint32_t(linear / grid[0] % grid[1]),
                           uint32_t(linear / (uint64_t(grid[0]) * grid[1]))};
    ErrorLog log;
    runWorkgroup(*run.launch, blockId, log, profiling ? &profile : nullptr);
    if (log.count)
      run.errors.merge(linear, log);
  }
  if (profiling) {
    std::lock_guard<std::mutex> lock(run.errors.mutex);
    addCounters(run.profile, profile);
  }
}

std::string describeSizes(const uint32_t size[3]) {
  return std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" +
         std::to_string(size[2]);
}

/// The launch's name in reports.
std::string describeLaunch(const LaunchInfo &launch) {
  return "kernel '" + launch.kernelName + "' (grid " +
         describeSizes(launch.grid) + ", workgroup " +
         describeSizes(launch.workgroup) + ", " +
         std::to_string(launch.ldsBytes) + " bytes of LDS, " +
         (launch.chip ? launch.chip->name : "no chip") + ")";
}

/// What makes the launch impossible, or "".
std::string checkLaunch(const LaunchInfo &launch, uint64_t &groups) {
  if (!launch.chip)
    return "no chip";
  if (!launch.kernel)
    return "no kernel function";
  uint64_t items = 1;
  groups = 1;
  for (int d = 0; d < 3; ++d) {
    if (launch.grid[d] == 0 || launch.workgroup[d] == 0)
      return "grid and workgroup sizes must be positive";
    items *= launch.workgroup[d];
    if (__builtin_mul_overflow(groups, uint64_t(launch.grid[d]), &groups) ||
        groups > uint64_t(std::numeric_limits<int64_t>::max()))
      return "the grid has more than 2^63 workgroups";
  }
  if (items > kMaxWorkgroupSize)
    return "a workgroup of " + std::to_string(items) +
           " work-items is more than the " + std::to_string(kMaxWorkgroupSize) +
           " an AMD GPU runs";
  if (launch.ldsBytes > launch.chip->maxLdsBytes)
    return std::to_string(launch.ldsBytes) + " bytes of LDS is more than " +
           launch.chip->name + "'s " +
           std::to_string(launch.chip->maxLdsBytes) + " per workgroup";
  return {};
}

} // namespace

std::string boo::emu::runLaunch(const LaunchInfo &launch, ThreadPool *pool) {
  uint64_t groups = 0;
  if (std::string problem = checkLaunch(launch, groups); !problem.empty())
    return describeLaunch(launch) + ": " + problem;
  LaunchRun run{&launch, {}};
  run.groups = run.running = groups;
  if (launch.profile && launch.maxWorkgroups > 0)
    run.running = std::min(groups, launch.maxWorkgroups);
  if (!pool ||
      !pool->tryParallelFor(&runWorkgroups, &run, int64_t(run.running)))
    runWorkgroups(&run, 0, int64_t(run.running));
  if (launch.profile) {
    addCounters(*launch.profile, run.profile);
    launch.profile->workgroups += groups;
    launch.profile->profiled_workgroups += run.running;
  }

  const LaunchErrors &errors = run.errors;
  if (errors.count == 0)
    return {};
  std::string report = describeLaunch(launch) + ": " +
                       std::to_string(errors.count) +
                       (errors.count == 1 ? " error" : " errors");
  if (errors.count > errors.messages.size())
    report += "; the first " + std::to_string(errors.messages.size());
  report += ":";
  for (const auto &[group, message] : errors.messages)
    report += "\n  " + message;
  return report;
}

bool boo::emu::runKernel(const std::string &chip, KernelFn kernel, Dim3 grid,
                         Dim3 workgroup, uint32_t ldsBytes, void **args,
                         std::string &errors, const std::string &kernelName,
                         unsigned threads, ProfileCounters *profile,
                         uint64_t maxWorkgroups) {
  LaunchInfo launch;
  launch.chip = findChip(chip);
  if (!launch.chip) {
    errors = "unknown chip '" + chip + "'; the emulator supports " +
             getSupportedChips();
    return false;
  }
  launch.kernel = kernel;
  launch.kernelName = kernelName;
  uint32_t gridSizes[3] = {grid.x, grid.y, grid.z};
  uint32_t workgroupSizes[3] = {workgroup.x, workgroup.y, workgroup.z};
  std::copy(gridSizes, gridSizes + 3, launch.grid);
  std::copy(workgroupSizes, workgroupSizes + 3, launch.workgroup);
  launch.ldsBytes = ldsBytes;
  launch.args = args;
  launch.profile = profile;
  launch.maxWorkgroups = maxWorkgroups;
  std::unique_ptr<ThreadPool> pool;
  if (threads > 1)
    pool = std::make_unique<ThreadPool>(threads);
  errors = runLaunch(launch, pool.get());
  return errors.empty();
}
