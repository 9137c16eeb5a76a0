//===- TestModules.cpp - Modules built around the test code object --------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "TestModules.h"

#include <fstream>
#include <iterator>

using namespace boo::runtime;
using boo::ElementType;

bool test::readFile(const std::string &path, std::string &bytes) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(file),
               std::istreambuf_iterator<char>());
  return true;
}

const char *test::getHostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

namespace {

TensorDesc tensor(const std::string &name, ElementType dtype,
                  std::vector<int64_t> dims) {
  TensorDesc result;
  result.name = name;
  result.dtype = dtype;
  result.dims = std::move(dims);
  return result;
}

/// A function whose only impl, for target 0, is one launch of `entry`
/// binding all inputs then all results.
FunctionDesc function(const std::string &name, std::vector<TensorDesc> inputs,
                      std::vector<TensorDesc> results,
                      const std::string &entry) {
  FunctionDesc desc;
  desc.name = name;
  desc.inputs = std::move(inputs);
  desc.results = std::move(results);
  Launch launch;
  launch.kernel = entry;
  for (uint32_t i = 0; i < desc.inputs.size(); ++i)
    launch.args.push_back({ArgKind::Input, i, 0});
  for (uint32_t i = 0; i < desc.results.size(); ++i)
    launch.args.push_back({ArgKind::Result, i, 0});
  FunctionImpl impl;
  impl.launches.push_back(launch);
  desc.impls.push_back(impl);
  return desc;
}

} // namespace

ModuleDesc test::makeTestModule(const std::string &sharedObject, int64_t n,
                                const std::string &features,
                                const std::string &addEntry) {
  ModuleDesc module;
  module.producer = "boo runtime tests";
  module.targets.push_back({TargetKind::CPU, getHostArch(), features});
  module.functions.push_back(function(
      "add",
      {tensor("a", ElementType::F32, {n}), tensor("b", ElementType::F32, {n})},
      {tensor("c", ElementType::F32, {n}),
       tensor("stats", ElementType::I32, {3})},
      addEntry));
  module.functions.push_back(
      function("describe", {tensor("x", ElementType::F32, {2, 3, 4})},
               {tensor("out", ElementType::I32, {8})}, "boo_test_describe"));
  module.functions.push_back(
      function("nested", {tensor("x", ElementType::F32, {n})},
               {tensor("out", ElementType::I32, {2})}, "boo_test_nested"));
  module.codeObjects.push_back(sharedObject);
  return module;
}
