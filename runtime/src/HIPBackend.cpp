//===- HIPBackend.cpp - Run HSACO code objects on AMD GPUs ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Every HIP call goes through the dlopen'ed symbol table (HIPSymbols.h). A
// device owns one stream; launches, copies and events are ordered on it, or
// on the caller's stream once boo_device_set_stream names one.
// Each function's scratch buffers are allocated on its first invocation
// and kept until the module is freed.
//
//===----------------------------------------------------------------------===//

#include "Backend.h"
#include "HIPSymbols.h"
#include "Launch.h"

#include <cstring>

using namespace boo::runtime;

namespace {

/// Returns NULL for hipSuccess, else a status naming `call`.
boo_status_t checkHIP(const HIPSymbols &hip, hipError_t error,
                      const std::string &call) {
  if (error == hipSuccess)
    return nullptr;
  return makeStatus(error == hipErrorOutOfMemory ? BOO_STATUS_OUT_OF_MEMORY
                                                 : BOO_STATUS_INTERNAL,
                    call + ": " + hip.describeError(error));
}

/// Makes `ordinal` the calling thread's current device.
boo_status_t activate(const HIPSymbols &hip, int ordinal) {
  return checkHIP(hip, hip.hipSetDevice(ordinal),
                  "hipSetDevice(" + std::to_string(ordinal) + ")");
}

class HIPEvent : public Event {
public:
  HIPEvent(const HIPSymbols &hip, int ordinal, const hipStream_t &stream,
           hipEvent_t event)
      : hip(hip), ordinal(ordinal), stream(stream), event(event) {}
  ~HIPEvent() override {
    (void)hip.hipSetDevice(ordinal);
    (void)hip.hipEventDestroy(event);
  }

  boo_status_t record() override {
    if (boo_status_t status = activate(hip, ordinal))
      return status;
    if (boo_status_t status =
            checkHIP(hip, hip.hipEventRecord(event, stream), "hipEventRecord"))
      return status;
    recorded = true;
    return nullptr;
  }

  boo_status_t getElapsedMs(const Event &end, double &ms) const override {
    const auto &other = static_cast<const HIPEvent &>(end);
    if (!recorded || !other.recorded)
      return makeStatus(BOO_STATUS_INVALID_ARGUMENT,
                        "elapsed time of an event that was never recorded");
    if (boo_status_t status = activate(hip, ordinal))
      return status;
    if (boo_status_t status = checkHIP(
            hip, hip.hipEventSynchronize(other.event), "hipEventSynchronize"))
      return status;
    float elapsed = 0;
    if (boo_status_t status =
            checkHIP(hip, hip.hipEventElapsedTime(&elapsed, event, other.event),
                     "hipEventElapsedTime"))
      return status;
    ms = elapsed;
    return nullptr;
  }

private:
  const HIPSymbols &hip;
  int ordinal;
  /// The device's current stream (HIPBackend::current).
  const hipStream_t &stream;
  hipEvent_t event;
  bool recorded = false;
};

class HIPExecutable : public Executable {
public:
  HIPExecutable(const HIPSymbols &hip, int ordinal, const hipStream_t &stream,
                const ModuleDesc &module)
      : hip(hip), ordinal(ordinal), stream(stream), module(module) {}
  ~HIPExecutable() override;

  boo_status_t load(uint32_t targetIndex);
  boo_status_t invoke(size_t functionIndex, const FunctionImpl &impl,
                      void *const *inputs, void *const *results) override;

private:
  const HIPSymbols &hip;
  int ordinal;
  /// The device's current stream (HIPBackend::current).
  const hipStream_t &stream;
  const ModuleDesc &module;
  /// Indexed by code object; null for those the target does not use.
  std::vector<hipModule_t> modules;
  /// Per function, the kernel of each launch of its impl for the target.
  std::vector<std::vector<hipFunction_t>> kernels;
  /// Per function, its scratch buffers once allocated.
  std::vector<std::vector<void *>> scratch;
};

HIPExecutable::~HIPExecutable() {
  (void)hip.hipSetDevice(ordinal);
  // Launches may still use the code and the scratch buffers.
  (void)hip.hipStreamSynchronize(stream);
  for (const std::vector<void *> &buffers : scratch)
    for (void *buffer : buffers)
      (void)hip.hipFree(buffer);
  for (hipModule_t loaded : modules)
    if (loaded)
      (void)hip.hipModuleUnload(loaded);
}

boo_status_t HIPExecutable::load(uint32_t targetIndex) {
  if (boo_status_t status = activate(hip, ordinal))
    return status;
  modules.assign(module.codeObjects.size(), nullptr);
  kernels.resize(module.functions.size());
  scratch.resize(module.functions.size());
  return forEachLaunch(
      module, targetIndex, [&](size_t f, const Launch &launch) -> boo_status_t {
        std::string what = "code object " + std::to_string(launch.codeObject);
        hipModule_t &loaded = modules[launch.codeObject];
        if (!loaded) {
          hipError_t error = hip.hipModuleLoadData(
              &loaded, module.codeObjects[launch.codeObject].data());
          if (error != hipSuccess) {
            loaded = nullptr;
            return makeStatus(
                BOO_STATUS_INVALID_MODULE,
                what + ": hipModuleLoadData: " + hip.describeError(error));
          }
        }
        hipFunction_t kernel = nullptr;
        hipError_t error =
            hip.hipModuleGetFunction(&kernel, loaded, launch.kernel.c_str());
        if (error != hipSuccess)
          return makeStatus(
              BOO_STATUS_INVALID_MODULE,
              "@" + module.functions[f].name + ": " + what +
                  " does not define the kernel '" + launch.kernel +
                  "': hipModuleGetFunction: " + hip.describeError(error));
        kernels[f].push_back(kernel);
        return nullptr;
      });
}

boo_status_t HIPExecutable::invoke(size_t functionIndex,
                                   const FunctionImpl &impl,
                                   void *const *inputs, void *const *results) {
  if (boo_status_t status = activate(hip, ordinal))
    return status;
  std::vector<void *> &buffers = scratch[functionIndex];
  while (buffers.size() < impl.scratchBytes.size()) {
    uint64_t bytes = impl.scratchBytes[buffers.size()];
    void *buffer = nullptr;
    if (boo_status_t status = checkHIP(
            hip, hip.hipMalloc(&buffer, bytes ? bytes : 1),
            "hipMalloc of " + std::to_string(bytes) + " scratch bytes"))
      return status;
    buffers.push_back(buffer);
  }

  const FunctionDesc &function = module.functions[functionIndex];
  for (size_t l = 0; l < impl.launches.size(); ++l) {
    const Launch &launch = impl.launches[l];
    LaunchParams params(launch, inputs, results, buffers);
    hipError_t error = hip.hipModuleLaunchKernel(
        kernels[functionIndex][l], launch.grid[0], launch.grid[1],
        launch.grid[2], launch.workgroup[0], launch.workgroup[1],
        launch.workgroup[2], launch.dynamicLdsBytes, stream, params.get(),
        nullptr);
    if (error != hipSuccess)
      return makeStatus(
          BOO_STATUS_INTERNAL,
          "@" + function.name + ": launch " + std::to_string(l) + " (" +
              launch.kernel +
              "): hipModuleLaunchKernel: " + hip.describeError(error));
  }
  return nullptr;
}

class HIPBackend : public Backend {
public:
  HIPBackend(const HIPSymbols &hip, int ordinal) : hip(hip), ordinal(ordinal) {}
  ~HIPBackend() override {
    if (own) {
      (void)hip.hipSetDevice(ordinal);
      (void)hip.hipStreamSynchronize(own);
      (void)hip.hipStreamDestroy(own);
    }
  }

  boo_status_t open(const std::string &spec);

  TargetKind getTargetKind() const override { return TargetKind::HIP; }

  boo_status_t synchronize() override {
    if (boo_status_t status = activate(hip, ordinal))
      return status;
    return checkHIP(hip, hip.hipStreamSynchronize(current),
                    "hipStreamSynchronize");
  }

  boo_status_t setStream(void *stream) override {
    // Work already submitted to the old stream finishes first.
    if (boo_status_t status = synchronize())
      return status;
    current = stream ? static_cast<hipStream_t>(stream) : own;
    return nullptr;
  }

  boo_status_t allocate(size_t bytes, void *&pointer) override {
    if (boo_status_t status = activate(hip, ordinal))
      return status;
    pointer = nullptr;
    return checkHIP(hip, hip.hipMalloc(&pointer, bytes ? bytes : 1),
                    "hipMalloc of " + std::to_string(bytes) + " bytes");
  }
  void deallocate(void *pointer) override {
    (void)hip.hipSetDevice(ordinal);
    (void)hip.hipFree(pointer);
  }

  // Copies wait for the stream, so they are ordered after submitted work.
  boo_status_t copyToDevice(void *destination, const void *source,
                            size_t bytes) override {
    if (boo_status_t status = synchronize())
      return status;
    return checkHIP(
        hip, hip.hipMemcpy(destination, source, bytes, hipMemcpyHostToDevice),
        "hipMemcpy host to device");
  }
  boo_status_t copyFromDevice(void *destination, const void *source,
                              size_t bytes) override {
    if (boo_status_t status = synchronize())
      return status;
    return checkHIP(
        hip, hip.hipMemcpy(destination, source, bytes, hipMemcpyDeviceToHost),
        "hipMemcpy device to host");
  }

  boo_status_t load(const ModuleDesc &module, uint32_t targetIndex,
                    std::unique_ptr<Executable> &executable) override {
    auto loaded =
        std::make_unique<HIPExecutable>(hip, ordinal, current, module);
    if (boo_status_t status = loaded->load(targetIndex))
      return status;
    executable = std::move(loaded);
    return nullptr;
  }

  boo_status_t createEvent(std::unique_ptr<Event> &event) override {
    if (boo_status_t status = activate(hip, ordinal))
      return status;
    hipEvent_t created = nullptr;
    if (boo_status_t status =
            checkHIP(hip, hip.hipEventCreate(&created), "hipEventCreate"))
      return status;
    event = std::make_unique<HIPEvent>(hip, ordinal, current, created);
    return nullptr;
  }

private:
  const HIPSymbols &hip;
  int ordinal;
  /// The stream open() creates, and the one work goes to: `own`, or the
  /// caller's (setStream). Executables and events refer to `current`.
  hipStream_t own = nullptr;
  hipStream_t current = nullptr;
};

boo_status_t HIPBackend::open(const std::string &spec) {
  if (boo_status_t status =
          checkHIP(hip, hip.hipSetDevice(ordinal), spec + ": hipSetDevice"))
    return status;
  // Room past the HIP 5 struct in case a newer runtime writes more.
  union {
    hipDeviceProp_t props;
    char bytes[sizeof(hipDeviceProp_t) + 4096];
  } storage;
  memset(&storage, 0, sizeof(storage));
  if (boo_status_t status =
          checkHIP(hip, hip.hipGetDeviceProperties(&storage.props, ordinal),
                   spec + ": hipGetDeviceProperties"))
    return status;
  const hipDeviceProp_t &props = storage.props;
  // "gfx942:sramecc+:xnack-" names the chip and its features.
  std::string arch(props.gcnArchName,
                   strnlen(props.gcnArchName, sizeof(props.gcnArchName)));
  target = arch.substr(0, arch.find(':'));
  if (target.empty())
    return makeStatus(BOO_STATUS_INTERNAL,
                      spec + ": hipGetDeviceProperties gave no gcnArchName");
  std::string name(props.name, strnlen(props.name, sizeof(props.name)));
  description = spec + " (" + target + ", " + name + ", " +
                std::to_string(props.totalGlobalMem >> 30) + " GiB)";
  boo_status_t status =
      checkHIP(hip, hip.hipStreamCreate(&own), spec + ": hipStreamCreate");
  current = own;
  return status;
}

} // namespace

boo_status_t boo::runtime::openHIPBackend(const std::string &spec, int ordinal,
                                          std::unique_ptr<Backend> &backend) {
  const HIPSymbols *hip = nullptr;
  if (boo_status_t status = loadHIPSymbols(hip))
    return status;
  hipError_t initError = hip->hipInit(0);
  int count = 0;
  hipError_t countError = hip->hipGetDeviceCount(&count);
  if (countError != hipSuccess || count <= 0) {
    std::string message =
        "HIP runtime loaded (" + hip->libraryName + ") but no AMD GPU: ";
    if (initError != hipSuccess)
      message += "hipInit: " + hip->describeError(initError) + "; ";
    message += "hipGetDeviceCount: " + (countError != hipSuccess
                                            ? hip->describeError(countError)
                                            : std::string("0 devices"));
    return makeStatus(BOO_STATUS_UNAVAILABLE, message);
  }
  if (initError != hipSuccess)
    return makeStatus(
        BOO_STATUS_UNAVAILABLE,
        "HIP runtime loaded (" + hip->libraryName +
            ") but hipInit failed: " + hip->describeError(initError));
  if (ordinal >= count)
    return makeStatus(BOO_STATUS_NOT_FOUND, spec + ": the machine has " +
                                                std::to_string(count) +
                                                " AMD GPU(s)");
  auto opened = std::make_unique<HIPBackend>(*hip, ordinal);
  if (boo_status_t status = opened->open(spec))
    return status;
  backend = std::move(opened);
  return nullptr;
}
