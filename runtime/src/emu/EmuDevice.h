//===- EmuDevice.h - The SIMT emulator's entry points -----------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Runs kernels compiled for an AMD chip and lowered to host code
// (boo/EmuABI.h) with SIMT semantics, checking what hardware does not:
// out-of-bounds accesses, LDS races, barrier and wave divergence. The
// "emu:<chip>" device (EmuBackend.cpp) runs module launches through
// runLaunch; tests run hand-written kernels through runKernel.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_EMUDEVICE_H
#define BOO_RUNTIME_SRC_EMUDEVICE_H

#include "EmuWorkgroup.h"

#include <string>

namespace boo {
namespace runtime {
class ThreadPool;
} // namespace runtime

namespace emu {

/// Runs every workgroup of `launch`, in parallel over `pool`'s threads
/// (inline when `pool` is null or busy). Returns an empty string when the
/// launch ran without error, else a report: the launch, the number of
/// errors and the first kMaxStoredErrors of them (ordered by workgroup),
/// one per line.
std::string runLaunch(const LaunchInfo &launch, runtime::ThreadPool *pool);

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

/// Runs `kernel` as kernel `kernelName` of a `grid` of `workgroup`s on
/// `chip` ("gfx942") with `ldsBytes` of LDS per workgroup and arguments
/// `args`, on `threads` threads, profiling it into `profile` when set (at
/// most `maxWorkgroups` workgroups; 0: all). Returns false and sets
/// `errors` to the report of runLaunch (or to why it could not run).
bool runKernel(const std::string &chip, KernelFn kernel, Dim3 grid,
               Dim3 workgroup, uint32_t ldsBytes, void **args,
               std::string &errors, const std::string &kernelName = "kernel",
               unsigned threads = 1, ProfileCounters *profile = nullptr,
               uint64_t maxWorkgroups = 0);

} // namespace emu
} // namespace boo

#endif // BOO_RUNTIME_SRC_EMUDEVICE_H
