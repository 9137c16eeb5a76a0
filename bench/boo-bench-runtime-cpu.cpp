//===- boo-bench-runtime-cpu.cpp - CPU backend launch overhead ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Measures the host-side cost of invoking a one-kernel function on the
// runtime's CPU backend (boo_function_invoke: argument checks, descriptor
// set-up, the call, the thread-pool dispatch) against, in the same run, the
// reference: calling the same compiled entry point directly with prebuilt
// descriptors (dlopen + dlsym of the module's own shared object). The
// difference is the runtime's overhead per call.
//
//   boo-bench-runtime-cpu [--calls=N] [--batches=B] [--device-threads=T]
//
//===----------------------------------------------------------------------===//

#include "Boo/Artifact/ModuleArtifact.h"
#include "Boo/InitAll.h"

#include "boo/ModuleFormat.h"
#include "boo_runtime.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <dlfcn.h>
#include <vector>

using namespace mlir;

namespace {
llvm::cl::opt<int> calls("calls", llvm::cl::desc("Calls per timed batch"),
                         llvm::cl::init(20000));
llvm::cl::opt<int> batches("batches", llvm::cl::desc("Timed batches"),
                           llvm::cl::init(7));
llvm::cl::opt<int> threads("device-threads",
                           llvm::cl::desc("CPU device threads (0: all cores)"),
                           llvm::cl::init(0));

struct Problem {
  const char *name;
  const char *mlir; // one public function @f
};

const Problem problems[] = {
    {"relu 1x8 f32 (one kernel, tiny)",
     R"(func.func @f(%x: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %y = boo.activation relu %x : tensor<1x8xf32>
  return %y : tensor<1x8xf32>
})"},
    {"conv 1x1 1x4x4x8 -> 8 f32 (one kernel, small)",
     R"(func.func @f(%x: tensor<1x4x4x8xf32>, %w: tensor<8x1x1x8xf32>) -> tensor<1x4x4x8xf32> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x4x4x8xf32>, tensor<8x1x1x8xf32> -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
})"},
};

int fail(const llvm::Twine &message) {
  llvm::errs() << "boo-bench-runtime-cpu: error: " << message << "\n";
  return 1;
}

/// Median of `batches` batches of `calls` calls of `fn`, in microseconds per
/// call.
template <typename Fn>
double timePerCall(Fn &&fn) {
  for (int i = 0; i < 100; ++i) // warm-up
    fn();
  std::vector<double> perCall;
  for (int b = 0; b < batches; ++b) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      fn();
    perCall.push_back(std::chrono::duration<double, std::micro>(
                          std::chrono::steady_clock::now() - start)
                          .count() /
                      calls);
  }
  std::sort(perCall.begin(), perCall.end());
  return perCall[perCall.size() / 2];
}

/// A memref descriptor of an identity-layout tensor, as int64 words.
std::vector<int64_t> makeDescriptor(void *data,
                                    const std::vector<int64_t> &dims) {
  std::vector<int64_t> words(3 + 2 * dims.size());
  words[0] = words[1] = reinterpret_cast<int64_t>(data);
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    words[3 + d] = dims[d];
    words[3 + dims.size() + d] = stride;
    stride *= dims[d];
  }
  return words;
}

bool check(boo_status_t status, std::string &error) {
  if (!status)
    return true;
  error = boo_status_message(status);
  boo_status_free(status);
  return false;
}

int benchmarkProblem(MLIRContext &context, const Problem &problem,
                     boo_device_t *device) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(problem.mlir, &context);
  if (!module)
    return fail(llvm::Twine("cannot parse ") + problem.name);
  mlir::boo::ArtifactOptions options;
  options.targets = {"cpu"};
  std::string bytes, error;
  if (!mlir::boo::compileModuleArtifact(*module, options, bytes, error))
    return fail(error);

  // The runtime path.
  boo_module_t *loaded = nullptr;
  boo_function_t *function = nullptr;
  if (!check(boo_module_load_data(device, bytes.data(), bytes.size(), &loaded),
             error) ||
      !check(boo_module_lookup_function(loaded, "f", &function), error))
    return fail(error);
  std::vector<boo_buffer_t *> inputs, results;
  std::vector<std::vector<int64_t>> dims;
  std::vector<std::vector<char>> hostData;
  auto allocate = [&](const boo_tensor_info_t &info,
                      std::vector<boo_buffer_t *> &into) {
    size_t bytes = boo_dtype_size(info.dtype);
    for (size_t d = 0; d < info.rank; ++d)
      bytes *= info.dims[d];
    boo_buffer_t *buffer = nullptr;
    if (!check(boo_buffer_allocate(device, bytes, &buffer), error))
      return false;
    into.push_back(buffer);
    dims.emplace_back(info.dims, info.dims + info.rank);
    hostData.emplace_back(bytes);
    return true;
  };
  boo_tensor_info_t info;
  for (size_t i = 0; i < boo_function_input_count(function); ++i)
    if (!check(boo_function_input(function, i, &info), error) ||
        !allocate(info, inputs))
      return fail(error);
  for (size_t i = 0; i < boo_function_result_count(function); ++i)
    if (!check(boo_function_result(function, i, &info), error) ||
        !allocate(info, results))
      return fail(error);
  bool invokeFailed = false;
  double runtimeUs = timePerCall([&] {
    boo_status_t status =
        boo_function_invoke(function, inputs.data(), inputs.size(),
                            results.data(), results.size());
    if (status) {
      invokeFailed = true;
      boo_status_free(status);
    }
  });
  if (invokeFailed)
    return fail("boo_function_invoke failed");

  // The reference: the module's own shared object, called directly.
  ::boo::runtime::ModuleDesc desc;
  if (!::boo::runtime::parseModule(bytes.data(), bytes.size(), desc, error))
    return fail(error);
  const ::boo::runtime::Launch &launch =
      desc.functions.front().impls.front().launches.front();
  llvm::SmallString<128> path;
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("boo-bench", "so", fd, path))
    return fail("cannot create a temporary file");
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << desc.codeObjects[launch.codeObject];
  }
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  llvm::sys::fs::remove(path);
  if (!handle)
    return fail(llvm::Twine("dlopen: ") + dlerror());
  auto entry = reinterpret_cast<void (*)(void **)>(
      dlsym(handle, launch.kernel.c_str()));
  if (!entry)
    return fail("no entry symbol " + launch.kernel);
  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < dims.size(); ++i)
    descriptors.push_back(makeDescriptor(hostData[i].data(), dims[i]));
  std::vector<void *> args;
  for (auto &descriptor : descriptors)
    args.push_back(descriptor.data());
  double directUs = timePerCall([&] { entry(args.data()); });
  dlclose(handle);

  llvm::outs() << llvm::formatv(
      "{0,-48} runtime {1,8:f3} us/call   direct {2,8:f3} us/call   "
      "overhead {3,7:f3} us/call   ratio {4,5:f2}\n",
      problem.name, runtimeUs, directUs, runtimeUs - directUs,
      runtimeUs / directUs);
  for (boo_buffer_t *buffer : inputs)
    boo_buffer_free(buffer);
  for (boo_buffer_t *buffer : results)
    boo_buffer_free(buffer);
  boo_module_free(loaded);
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "Boo runtime: CPU backend per-call overhead\n");
  DialectRegistry registry;
  mlir::boo::registerAllDialects(registry);
  MLIRContext context(registry);

  std::string spec = threads > 0 ? "cpu:" + std::to_string(threads) : "cpu";
  boo_device_t *device = nullptr;
  std::string error;
  if (!check(boo_device_open(spec.c_str(), &device), error))
    return fail(error);
  llvm::outs() << "device: " << boo_device_description(device) << "; "
               << calls << " calls x " << batches
               << " batches, median batch\n";
  int rc = 0;
  for (const Problem &problem : problems)
    rc |= benchmarkProblem(context, problem, device);
  boo_device_close(device);
  return rc;
}
