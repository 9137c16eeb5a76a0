//===- Launch.cpp - What every backend does with a module's launches ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Launch.h"

using namespace boo::runtime;

boo_status_t boo::runtime::forEachLaunch(
    const ModuleDesc &module, uint32_t targetIndex,
    const std::function<boo_status_t(size_t, const Launch &)> &visit) {
  for (size_t f = 0; f < module.functions.size(); ++f)
    for (const FunctionImpl &impl : module.functions[f].impls)
      if (impl.target == targetIndex)
        for (const Launch &launch : impl.launches)
          if (boo_status_t status = visit(f, launch))
            return status;
  return nullptr;
}

LaunchParams::LaunchParams(const Launch &launch, void *const *inputs,
                           void *const *results,
                           const std::vector<void *> &scratch)
    : slots(launch.args.size()), pointers(launch.args.size()) {
  for (size_t i = 0; i < launch.args.size(); ++i) {
    const LaunchArg &arg = launch.args[i];
    Slot &slot = slots[i];
    switch (arg.kind) {
    case ArgKind::Input:
      slot.pointer = static_cast<char *>(inputs[arg.index]) + arg.value;
      pointers[i] = &slot.pointer;
      break;
    case ArgKind::Result:
      slot.pointer = static_cast<char *>(results[arg.index]) + arg.value;
      pointers[i] = &slot.pointer;
      break;
    case ArgKind::Scratch:
      slot.pointer = static_cast<char *>(scratch[arg.index]) + arg.value;
      pointers[i] = &slot.pointer;
      break;
    case ArgKind::Imm64:
      slot.imm64 = arg.value;
      pointers[i] = &slot.imm64;
      break;
    case ArgKind::Imm32:
      slot.imm32 = static_cast<uint32_t>(arg.value);
      pointers[i] = &slot.imm32;
      break;
    }
  }
}
