//===- EmuBackend.cpp - The "emu:<chip>" device ---------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Runs a module's Emu target for a chip: host shared objects whose kernels
// follow boo/EmuABI.h, loaded like CPU code objects. Memory is host memory;
// each launch runs on the SIMT emulator (EmuDevice.h) with its arguments
// resolved as the HIP backend resolves them, and fails with the
// emulator's report when any check fired.
//
//===----------------------------------------------------------------------===//

#include "EmuDevice.h"
#include "HostBackend.h"
#include "Launch.h"
#include "SharedObject.h"
#include "ThreadPool.h"

#include <cstdlib>
#include <cstring>
#include <deque>

using namespace boo::runtime;
using boo::emu::ChipInfo;
using boo::emu::KernelFn;
using boo::emu::LaunchInfo;

namespace {

/// The device's profile (boo_device_profile_begin/end).
struct ProfileState {
  bool active = false;
  uint64_t maxWorkgroups = 0;
  std::vector<boo_launch_profile_t> launches;
  /// The launches' kernel names (stable addresses).
  std::deque<std::string> names;
};

class EmuExecutable : public Executable {
public:
  EmuExecutable(const ModuleDesc &module, const ChipInfo &chip,
                ThreadPool &pool, ProfileState &profile)
      : module(module), chip(chip), pool(pool), profile(profile),
        objects(module) {}
  ~EmuExecutable() override {
    for (const std::vector<void *> &buffers : scratch)
      for (void *buffer : buffers)
        free(buffer);
  }

  boo_status_t load(uint32_t targetIndex);
  boo_status_t invoke(size_t functionIndex, const FunctionImpl &impl,
                      void *const *inputs, void *const *results) override;

private:
  const ModuleDesc &module;
  const ChipInfo &chip;
  ThreadPool &pool;
  ProfileState &profile;
  HostCodeObjects objects;
  /// Per function, the kernel of each launch of its impl for the target.
  std::vector<std::vector<KernelFn>> kernels;
  /// Per function, its scratch buffers once allocated.
  std::vector<std::vector<void *>> scratch;
};

boo_status_t EmuExecutable::load(uint32_t targetIndex) {
  kernels.resize(module.functions.size());
  scratch.resize(module.functions.size());
  return forEachLaunch(
      module, targetIndex, [&](size_t f, const Launch &launch) {
        void *kernel = nullptr;
        if (boo_status_t status =
                objects.lookup(module.functions[f], launch, "kernel", kernel))
          return status;
        kernels[f].push_back(reinterpret_cast<KernelFn>(kernel));
        return boo_status_t(nullptr);
      });
}

boo_status_t EmuExecutable::invoke(size_t functionIndex,
                                   const FunctionImpl &impl,
                                   void *const *inputs, void *const *results) {
  const FunctionDesc &function = module.functions[functionIndex];
  std::vector<void *> &buffers = scratch[functionIndex];
  while (buffers.size() < impl.scratchBytes.size()) {
    uint64_t bytes = impl.scratchBytes[buffers.size()];
    void *buffer = nullptr;
    if (bytes > SIZE_MAX - 64 ||
        posix_memalign(&buffer, 64, bytes ? size_t(bytes) : 1) != 0)
      return makeStatus(BOO_STATUS_OUT_OF_MEMORY,
                        "@" + function.name + ": cannot allocate " +
                            std::to_string(bytes) + " scratch bytes");
    // Like device memory, scratch starts with garbage: NaNs, not zeros.
    memset(buffer, 0xFF, size_t(bytes));
    buffers.push_back(buffer);
  }

  for (size_t l = 0; l < impl.launches.size(); ++l) {
    const Launch &launch = impl.launches[l];
    // As kernelParams in hipModuleLaunchKernel.
    LaunchParams params(launch, inputs, results, buffers);
    LaunchInfo info;
    info.chip = &chip;
    info.kernel = kernels[functionIndex][l];
    info.kernelName = launch.kernel;
    std::copy(launch.grid, launch.grid + 3, info.grid);
    std::copy(launch.workgroup, launch.workgroup + 3, info.workgroup);
    info.ldsBytes = launch.dynamicLdsBytes;
    info.args = params.get();
    boo_launch_profile_t counters{};
    if (profile.active) {
      info.profile = &counters;
      info.maxWorkgroups = profile.maxWorkgroups;
    }
    std::string report = boo::emu::runLaunch(info, &pool);
    if (profile.active) {
      counters.kernel = profile.names.emplace_back(launch.kernel).c_str();
      profile.launches.push_back(counters);
    }
    // Later launches would read what this one left wrong: stop here.
    if (!report.empty())
      return makeStatus(BOO_STATUS_INTERNAL, "@" + function.name + ": launch " +
                                                 std::to_string(l) + ": " +
                                                 report);
  }
  return nullptr;
}

class EmuBackend : public HostBackend {
public:
  EmuBackend(const std::string &spec, const ChipInfo &chip, unsigned threads)
      : chip(chip), pool(threads) {
    hostThreads = threads;
    target = chip.name;
    description = spec + " (" + target + " emulated on " + getHostArch() +
                  ", wave" + std::to_string(chip.waveSize) + ", " +
                  std::to_string(threads) +
                  (threads == 1 ? " thread)" : " threads)");
  }

  TargetKind getTargetKind() const override { return TargetKind::Emu; }

  boo_status_t load(const ModuleDesc &module, uint32_t targetIndex,
                    std::unique_ptr<Executable> &executable) override {
    auto loaded = std::make_unique<EmuExecutable>(module, chip, pool, profile);
    if (boo_status_t status = loaded->load(targetIndex))
      return status;
    executable = std::move(loaded);
    return nullptr;
  }

  boo_status_t beginProfile(uint64_t maxWorkgroups) override {
    profile.active = true;
    profile.maxWorkgroups = maxWorkgroups;
    profile.launches.clear();
    profile.names.clear();
    return nullptr;
  }

  boo_status_t endProfile(const boo_launch_profile_t *&profiles,
                          size_t &count) override {
    if (!profile.active)
      return makeStatus(BOO_STATUS_INVALID_ARGUMENT,
                        description + ": boo_device_profile_end without "
                                      "boo_device_profile_begin");
    profile.active = false;
    profiles = profile.launches.data();
    count = profile.launches.size();
    return nullptr;
  }

private:
  const ChipInfo &chip;
  ThreadPool pool;
  ProfileState profile;
};

} // namespace

boo_status_t boo::runtime::openEmuBackend(const std::string &spec,
                                          const std::string &chipName,
                                          unsigned threads,
                                          std::unique_ptr<Backend> &backend) {
  const ChipInfo *chip = boo::emu::findChip(chipName);
  if (!chip)
    return makeStatus(BOO_STATUS_INVALID_ARGUMENT,
                      "invalid device \"" + spec + "\": the emulator does " +
                          "not know chip '" + chipName + "'; it supports " +
                          boo::emu::getSupportedChips());
  backend = std::make_unique<EmuBackend>(spec, *chip, threads);
  return nullptr;
}
