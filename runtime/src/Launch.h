//===- Launch.h - Launches, as every backend walks them ---------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The pieces the CPU, emulator and HIP backends share: walking the launches
// of a target's function implementations when loading, and packing a
// launch's arguments the way hipModuleLaunchKernel's kernelParams (and the
// emulator's kernels) take them.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_LAUNCH_H
#define BOO_RUNTIME_SRC_LAUNCH_H

#include "boo/ModuleFormat.h"
#include "boo_runtime.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace boo {
namespace runtime {

/// Calls `visit(functionIndex, launch)` for every launch of every function's
/// implementation for target `targetIndex`, in module order; stops at and
/// returns the first error.
boo_status_t
forEachLaunch(const ModuleDesc &module, uint32_t targetIndex,
              const std::function<boo_status_t(size_t, const Launch &)> &visit);

/// The values of a launch's arguments and a pointer to each: pointers into
/// the input, result and scratch buffers (plus the argument's byte offset)
/// and 32- or 64-bit immediates.
class LaunchParams {
public:
  LaunchParams(const Launch &launch, void *const *inputs, void *const *results,
               const std::vector<void *> &scratch);
  /// params[i] points to the value of argument i.
  void **get() { return pointers.data(); }

private:
  union Slot {
    void *pointer;
    uint64_t imm64;
    uint32_t imm32;
  };
  std::vector<Slot> slots;
  std::vector<void *> pointers;
};

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_LAUNCH_H
