//===- CPUBackend.cpp - Run CPU code objects in-process -------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A CPU code object is an ELF shared object (docs/ModuleFormat.md). It is
// loaded from memory (SharedObject.h), its `__boo_parallel_for` is pointed
// at the device's thread pool, its `__boo_alloc`/`__boo_free` at the
// process's AllocationCache, and each launch calls
// `void entry(void **args)` with one memref descriptor per argument.
// Memory and events are the host's (HostBackend.h).
//
//===----------------------------------------------------------------------===//

#include "AllocationCache.h"
#include "HostBackend.h"
#include "Launch.h"
#include "SharedObject.h"
#include "ThreadPool.h"

#include <cstring>

using namespace boo::runtime;

namespace {

/// Whether the host has instruction-set feature `name`; `known` is false for
/// names this runtime cannot check.
bool hostHasFeature(const std::string &name, bool &known) {
  known = true;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (name == "sse4.2")
    return __builtin_cpu_supports("sse4.2");
  if (name == "avx")
    return __builtin_cpu_supports("avx");
  if (name == "avx2")
    return __builtin_cpu_supports("avx2");
  if (name == "fma")
    return __builtin_cpu_supports("fma");
  if (name == "avx512f")
    return __builtin_cpu_supports("avx512f");
#endif
  known = false;
  return false;
}

using EntryFunction = void (*)(void **args);

class CPUExecutable : public Executable {
public:
  CPUExecutable(const ModuleDesc &module, ThreadPool &pool)
      : module(module), pool(pool), objects(module) {}

  boo_status_t load(uint32_t targetIndex);
  boo_status_t invoke(size_t functionIndex, const FunctionImpl &impl,
                      void *const *inputs, void *const *results) override;

private:
  const ModuleDesc &module;
  ThreadPool &pool;
  HostCodeObjects objects;
  /// Per function, the entry of each launch of its impl for the target.
  std::vector<std::vector<EntryFunction>> entries;
};

boo_status_t CPUExecutable::load(uint32_t targetIndex) {
  entries.resize(module.functions.size());
  return forEachLaunch(
      module, targetIndex, [&](size_t f, const Launch &launch) {
        void *entry = nullptr;
        // Hand each object the device's dispatcher and the allocator of
        // its temporaries.
        auto setDispatcher = [](SharedObject &object) {
          auto setHook = [&](const char *symbol, auto function) {
            if (void *slot = object.lookup(symbol))
              memcpy(slot, &function, sizeof(function));
          };
          setHook(kParallelForSymbol, &dispatchParallelFor);
          setHook(kAllocSymbol, &cachedAlloc);
          setHook(kFreeSymbol, &cachedFree);
        };
        if (boo_status_t status =
                objects.lookup(module.functions[f], launch, "entry symbol",
                               entry, setDispatcher))
          return status;
        entries[f].push_back(reinterpret_cast<EntryFunction>(entry));
        return boo_status_t(nullptr);
      });
}

boo_status_t CPUExecutable::invoke(size_t functionIndex,
                                   const FunctionImpl &impl,
                                   void *const *inputs, void *const *results) {
  const FunctionDesc &function = module.functions[functionIndex];
  ScopedCurrentPool scope(&pool);
  for (size_t l = 0; l < impl.launches.size(); ++l) {
    const Launch &launch = impl.launches[l];
    // One memref descriptor per argument: {allocated, aligned, offset,
    // sizes[rank], strides[rank]} as 64-bit words.
    size_t words = 0;
    for (const LaunchArg &arg : launch.args) {
      const auto &tensors =
          arg.kind == ArgKind::Input ? function.inputs : function.results;
      words += 3 + 2 * tensors[arg.index].dims.size();
    }
    std::vector<int64_t> descriptors(words);
    std::vector<void *> args(launch.args.size());
    size_t next = 0;
    for (size_t i = 0; i < launch.args.size(); ++i) {
      const LaunchArg &arg = launch.args[i];
      bool isInput = arg.kind == ArgKind::Input;
      const TensorDesc &tensor =
          (isInput ? function.inputs : function.results)[arg.index];
      void *base = (isInput ? inputs : results)[arg.index];
      int64_t *descriptor = &descriptors[next];
      args[i] = descriptor;
      memcpy(&descriptor[0], &base, sizeof(base));
      memcpy(&descriptor[1], &base, sizeof(base));
      descriptor[2] = 0;
      size_t rank = tensor.dims.size();
      int64_t stride = 1;
      for (size_t d = rank; d-- > 0;) {
        descriptor[3 + d] = tensor.dims[d];
        descriptor[3 + rank + d] = stride;
        stride *= tensor.dims[d];
      }
      next += 3 + 2 * rank;
    }
    entries[functionIndex][l](args.data());
  }
  return nullptr;
}

class CPUBackend : public HostBackend {
public:
  ~CPUBackend() override { AllocationCache::get().trim(); }
  CPUBackend(const std::string &spec, unsigned threads) : pool(threads) {
    hostThreads = threads;
    target = getHostArch();
    description = spec + " (" + target + ", " + std::to_string(threads) +
                  (threads == 1 ? " thread)" : " threads)");
  }

  TargetKind getTargetKind() const override { return TargetKind::CPU; }

  std::string checkTargetFeatures(const TargetDesc &desc) const override {
    const std::string &features = desc.features;
    for (size_t begin = 0; begin <= features.size();) {
      size_t end = features.find(',', begin);
      if (end == std::string::npos)
        end = features.size();
      std::string feature = features.substr(begin, end - begin);
      begin = end + 1;
      if (feature.empty())
        continue;
      bool known;
      bool present = hostHasFeature(feature, known);
      if (!known)
        return "the module's " + desc.name + " code needs CPU feature '" +
               feature + "', which this runtime cannot check";
      if (!present)
        return "the module's " + desc.name + " code needs CPU feature " +
               feature + ", which this host lacks";
    }
    return {};
  }

  boo_status_t load(const ModuleDesc &module, uint32_t targetIndex,
                    std::unique_ptr<Executable> &executable) override {
    auto loaded = std::make_unique<CPUExecutable>(module, pool);
    if (boo_status_t status = loaded->load(targetIndex))
      return status;
    executable = std::move(loaded);
    return nullptr;
  }

private:
  ThreadPool pool;
};

} // namespace

boo_status_t boo::runtime::openCPUBackend(const std::string &spec,
                                          unsigned threads,
                                          std::unique_ptr<Backend> &backend) {
  backend = std::make_unique<CPUBackend>(spec, threads);
  return nullptr;
}
