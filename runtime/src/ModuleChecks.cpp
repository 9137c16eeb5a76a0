//===- ModuleChecks.cpp - Semantic checks of module descriptions ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "ModuleChecks.h"

#include <limits>
#include <set>

using namespace boo;
using namespace boo::runtime;

std::string boo::runtime::describeTensor(const TensorDesc &tensor) {
  std::string text;
  for (int64_t dim : tensor.dims)
    text += std::to_string(dim) + "x";
  return text + getElementTypeName(tensor.dtype);
}

std::string boo::runtime::checkString(const std::string &value,
                                      const char *field, bool allowEmpty) {
  if (value.size() > kMaxStringBytes)
    return std::string(field) + " has " + std::to_string(value.size()) +
           " bytes, more than the limit of " + std::to_string(kMaxStringBytes);
  if (!allowEmpty && value.empty())
    return std::string(field) + " is empty";
  return {};
}

std::string boo::runtime::checkTarget(const TargetDesc &target) {
  if (static_cast<uint8_t>(target.kind) > kMaxTargetKind)
    return "kind " + std::to_string(static_cast<unsigned>(target.kind)) +
           " is unknown (0 cpu, 1 hip, 2 emu)";
  if (std::string problem = checkString(target.name, "name", false);
      !problem.empty())
    return problem;
  return checkString(target.features, "features", true);
}

std::string boo::runtime::checkTensor(const TensorDesc &tensor) {
  if (std::string problem = checkString(tensor.name, "name", true);
      !problem.empty())
    return problem;
  if (static_cast<uint8_t>(tensor.dtype) > kMaxElementType)
    return "dtype " + std::to_string(static_cast<unsigned>(tensor.dtype)) +
           " is unknown (0-" + std::to_string(kMaxElementType) + ")";
  if (tensor.dims.size() > kMaxRank)
    return "rank " + std::to_string(tensor.dims.size()) +
           " exceeds the limit of " + std::to_string(kMaxRank);
  for (size_t i = 0; i < tensor.dims.size(); ++i)
    if (tensor.dims[i] < 0)
      return "dim " + std::to_string(i) + " is negative (" +
             std::to_string(tensor.dims[i]) + ")";
  uint64_t bytes;
  if (!tensor.getByteSize(bytes))
    return "the byte size of " + describeTensor(tensor) + " overflows";
  return {};
}

std::string boo::runtime::checkLaunch(const Launch &launch,
                                      const TargetDesc &target,
                                      size_t codeObjectCount) {
  if (launch.codeObject >= codeObjectCount)
    return "code object " + std::to_string(launch.codeObject) +
           " does not exist (the module has " +
           std::to_string(codeObjectCount) + ")";
  if (std::string problem = checkString(launch.kernel, "kernel", false);
      !problem.empty())
    return problem;
  if (target.kind == TargetKind::CPU) {
    for (int i = 0; i < 3; ++i)
      if (launch.grid[i] != 1 || launch.workgroup[i] != 1)
        return "a CPU launch has grid and workgroup 1x1x1";
    if (launch.dynamicLdsBytes != 0)
      return "a CPU launch has no dynamic LDS";
    return {};
  }
  // HIP and Emu launches.
  for (int i = 0; i < 3; ++i)
    if (launch.grid[i] == 0 || launch.workgroup[i] == 0)
      return "grid and workgroup sizes must be positive";
  return {};
}

std::string boo::runtime::checkArg(const LaunchArg &arg,
                                   const FunctionDesc &function,
                                   const FunctionImpl &impl,
                                   const TargetDesc &target) {
  auto checkBuffer = [&](const char *what, size_t count,
                         uint64_t bytes) -> std::string {
    if (arg.index >= count)
      return std::string(what) + " " + std::to_string(arg.index) +
             " does not exist (there are " + std::to_string(count) + ")";
    if (arg.value > bytes)
      return "offset " + std::to_string(arg.value) + " is past the end of " +
             what + " " + std::to_string(arg.index) + " (" +
             std::to_string(bytes) + " bytes)";
    return {};
  };
  auto tensorBytes = [](const std::vector<TensorDesc> &tensors,
                        uint32_t index) -> uint64_t {
    uint64_t bytes = 0;
    if (index < tensors.size())
      tensors[index].getByteSize(bytes);
    return bytes;
  };
  if (target.kind == TargetKind::CPU &&
      ((arg.kind != ArgKind::Input && arg.kind != ArgKind::Result) ||
       arg.value != 0))
    return "a CPU launch argument binds an input or result at offset 0";
  switch (arg.kind) {
  case ArgKind::Input:
    return checkBuffer("input", function.inputs.size(),
                       tensorBytes(function.inputs, arg.index));
  case ArgKind::Result:
    return checkBuffer("result", function.results.size(),
                       tensorBytes(function.results, arg.index));
  case ArgKind::Scratch:
    return checkBuffer("scratch buffer", impl.scratchBytes.size(),
                       arg.index < impl.scratchBytes.size()
                           ? impl.scratchBytes[arg.index]
                           : 0);
  case ArgKind::Imm64:
  case ArgKind::Imm32:
    if (arg.index != 0)
      return "an immediate has index 0, not " + std::to_string(arg.index);
    return {};
  }
  return "kind " + std::to_string(static_cast<unsigned>(arg.kind)) +
         " is unknown (0-4)";
}

std::string boo::runtime::checkModuleWide(const ModuleDesc &module) {
  std::set<std::string> names;
  std::vector<int64_t> codeObjectTarget(module.codeObjects.size(), -1);
  for (const FunctionDesc &function : module.functions) {
    if (!names.insert(function.name).second)
      return "function '" + function.name + "' is defined twice";
    std::set<uint32_t> targets;
    for (const FunctionImpl &impl : function.impls) {
      if (!targets.insert(impl.target).second)
        return "function '" + function.name + "' has two impls for target " +
               std::to_string(impl.target);
      for (const Launch &launch : impl.launches) {
        if (launch.codeObject >= codeObjectTarget.size())
          continue; // Reported per launch.
        int64_t &owner = codeObjectTarget[launch.codeObject];
        if (owner >= 0 && owner != impl.target)
          return "code object " + std::to_string(launch.codeObject) +
                 " is used by targets " + std::to_string(owner) + " and " +
                 std::to_string(impl.target) + " (function '" + function.name +
                 "')";
        owner = impl.target;
      }
    }
  }
  return {};
}

std::string boo::runtime::validateModule(const ModuleDesc &module) {
  constexpr size_t maxCount = std::numeric_limits<uint32_t>::max();
  if (std::string problem = checkString(module.producer, "producer", true);
      !problem.empty())
    return problem;
  if (module.targets.size() > maxCount || module.functions.size() > maxCount ||
      module.codeObjects.size() >= maxCount)
    return "too many targets, functions or code objects";
  for (size_t i = 0; i < module.targets.size(); ++i)
    if (std::string problem = checkTarget(module.targets[i]); !problem.empty())
      return "target " + std::to_string(i) + ": " + problem;
  for (size_t i = 0; i < module.codeObjects.size(); ++i)
    if (module.codeObjects[i].empty())
      return "code object " + std::to_string(i) + " is empty";
  for (size_t f = 0; f < module.functions.size(); ++f) {
    const FunctionDesc &function = module.functions[f];
    std::string context = "function " + std::to_string(f);
    if (function.name.empty())
      return context + ": the name is empty";
    context += " ('" + function.name + "')";
    if (std::string problem = checkString(function.name, "name", false);
        !problem.empty())
      return context + ": " + problem;
    if (function.inputs.size() > maxCount ||
        function.results.size() > maxCount || function.impls.size() > maxCount)
      return context + ": too many inputs, results or impls";
    for (size_t i = 0; i < function.inputs.size(); ++i)
      if (std::string problem = checkTensor(function.inputs[i]);
          !problem.empty())
        return context + " input " + std::to_string(i) + ": " + problem;
    for (size_t i = 0; i < function.results.size(); ++i)
      if (std::string problem = checkTensor(function.results[i]);
          !problem.empty())
        return context + " result " + std::to_string(i) + ": " + problem;
    for (size_t i = 0; i < function.impls.size(); ++i) {
      const FunctionImpl &impl = function.impls[i];
      std::string implContext = context + " impl " + std::to_string(i);
      if (impl.target >= module.targets.size())
        return implContext + ": target " + std::to_string(impl.target) +
               " does not exist (the module has " +
               std::to_string(module.targets.size()) + ")";
      if (impl.scratchBytes.size() > maxCount ||
          impl.launches.size() > maxCount)
        return implContext + ": too many scratch buffers or launches";
      const TargetDesc &target = module.targets[impl.target];
      for (size_t j = 0; j < impl.launches.size(); ++j) {
        const Launch &launch = impl.launches[j];
        std::string launchContext =
            implContext + " launch " + std::to_string(j);
        if (std::string problem =
                checkLaunch(launch, target, module.codeObjects.size());
            !problem.empty())
          return launchContext + ": " + problem;
        if (launch.args.size() > maxCount)
          return launchContext + ": too many arguments";
        for (size_t k = 0; k < launch.args.size(); ++k)
          if (std::string problem =
                  checkArg(launch.args[k], function, impl, target);
              !problem.empty())
            return launchContext + " arg " + std::to_string(k) + ": " + problem;
      }
    }
  }
  return checkModuleWide(module);
}
