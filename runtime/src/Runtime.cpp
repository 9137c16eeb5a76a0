//===- Runtime.cpp - The boo_runtime.h C API ------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Everything that does not depend on the device kind: statuses, device
// specs, argument checks with messages that name the offending argument,
// module parsing and target selection. The backends (Backend.h) do the
// rest.
//
//===----------------------------------------------------------------------===//

#include "boo_runtime.h"

#include "Backend.h"
#include "ModuleChecks.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace boo;
using namespace boo::runtime;

struct boo_status {
  boo_status_code_t code;
  std::string message;
};

struct boo_device {
  std::string spec;
  std::unique_ptr<Backend> backend;
};

struct boo_buffer {
  boo_device *device;
  void *pointer;
  size_t size;
};

struct boo_function {
  boo_module *module;
  size_t index;
  /// The implementation for the module's loaded target; null when the
  /// function has none.
  const FunctionImpl *impl;
};

struct boo_module {
  boo_device *device;
  ModuleDesc desc;
  std::string targets; // "gfx942,x86_64"
  std::vector<boo_function> functions;
  std::unique_ptr<Executable> executable;
};

struct boo_event {
  boo_device *device;
  std::unique_ptr<Event> event;
};

boo_status_t boo::runtime::makeStatus(boo_status_code_t code,
                                      std::string message) {
  return new boo_status{code, std::move(message)};
}

namespace {

boo_status_t invalidArgument(std::string message) {
  return makeStatus(BOO_STATUS_INVALID_ARGUMENT, std::move(message));
}

/// Parses a decimal number of at most 9 digits, nothing else.
bool parseIndex(const char *text, unsigned &value) {
  size_t length = strlen(text);
  if (length == 0 || length > 9)
    return false;
  value = 0;
  for (const char *p = text; *p; ++p) {
    if (*p < '0' || *p > '9')
      return false;
    value = value * 10 + unsigned(*p - '0');
  }
  return true;
}

/// The most threads "cpu:N" and BOO_CPU_THREADS may ask for.
constexpr unsigned kMaxCPUThreads = 1024;

boo_status_t getDefaultCPUThreads(unsigned &threads) {
  const char *override = getenv("BOO_CPU_THREADS");
  if (override && *override) {
    if (!parseIndex(override, threads) || threads == 0 ||
        threads > kMaxCPUThreads)
      return invalidArgument("BOO_CPU_THREADS=\"" + std::string(override) +
                             "\" is not a thread count (1-" +
                             std::to_string(kMaxCPUThreads) + ")");
    return nullptr;
  }
  threads = std::thread::hardware_concurrency();
  if (threads == 0)
    threads = 1;
  return nullptr;
}

/// How targets are named to users: emulator targets carry an "emu:" prefix,
/// since they share their names (the chips) with HIP targets.
std::string getTargetDisplayName(TargetKind kind, const std::string &name) {
  return kind == TargetKind::Emu ? "emu:" + name : name;
}

std::string joinFunctionNames(const ModuleDesc &module) {
  std::string names;
  for (const FunctionDesc &function : module.functions)
    names += (names.empty() ? "" : ", ") + function.name;
  return names.empty() ? "none" : names;
}

/// "@f: input 1 (filter)": an argument in messages.
std::string describeArgument(const boo_function *function, const char *kind,
                             size_t index, const TensorDesc &tensor) {
  std::string text = "@" +
                     function->module->desc.functions[function->index].name +
                     ": " + kind + " " + std::to_string(index);
  return tensor.name.empty() ? text : text + " (" + tensor.name + ")";
}

/// Checks one argument buffer of an invocation.
boo_status_t checkBuffer(const boo_function *function, const char *kind,
                         size_t index, const TensorDesc &tensor,
                         const boo_buffer_t *buffer) {
  const boo_module *module = function->module;
  std::string what = describeArgument(function, kind, index, tensor);
  if (!buffer)
    return invalidArgument(what + " is NULL");
  if (buffer->device != module->device)
    return invalidArgument(
        what + " is a buffer of another device (" + buffer->device->spec +
        "); the module is loaded on " + module->device->spec);
  uint64_t bytes = 0;
  tensor.getByteSize(bytes);
  if (buffer->size < bytes)
    return invalidArgument(what + ": buffer holds " +
                           std::to_string(buffer->size) +
                           " bytes, the tensor " + describeTensor(tensor) +
                           " needs " + std::to_string(bytes));
  return nullptr;
}

std::string joinDims(const int64_t *values, size_t count) {
  std::string text = "[";
  for (size_t i = 0; i < count; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

/// Checks one caller-owned view of an invocation: the dtype and dims of
/// `tensor`, and strides that make it dense row-major.
boo_status_t checkView(const boo_function *function, const char *kind,
                       size_t index, const TensorDesc &tensor,
                       const boo_tensor_view_t &view) {
  // Built only on failure: the checks run on every call.
  auto what = [&] { return describeArgument(function, kind, index, tensor); };
  if (view.dtype != static_cast<boo_dtype_t>(tensor.dtype))
    return invalidArgument(what() + " is " + boo_dtype_name(view.dtype) +
                           ", the function takes " + describeTensor(tensor));
  if (view.rank != tensor.dims.size() || (view.rank && !view.dims) ||
      !std::equal(tensor.dims.begin(), tensor.dims.end(), view.dims))
    return invalidArgument(what() + " has shape " +
                           joinDims(view.dims, view.dims ? view.rank : 0) +
                           ", the function takes " + describeTensor(tensor));
  uint64_t bytes = 0;
  tensor.getByteSize(bytes);
  if (!view.data && bytes)
    return invalidArgument(what() + ": data is NULL");
  if (!view.strides)
    return nullptr;
  int64_t dense = 1;
  for (size_t d = view.rank; d-- > 0;) {
    if (view.dims[d] != 1 && view.strides[d] != dense)
      return invalidArgument(
          what() + " has strides " + joinDims(view.strides, view.rank) +
          " (elements) for shape " + joinDims(view.dims, view.rank) +
          "; the function reads it dense row-major: make it contiguous, or "
          "pass the layout its memory has");
    dense *= view.dims[d];
  }
  return nullptr;
}

/// The argument counts of an invocation.
boo_status_t checkCounts(const FunctionDesc &desc, const void *inputs,
                         size_t inputCount, const void *results,
                         size_t resultCount) {
  std::string prefix = "@" + desc.name + ": ";
  if (inputCount != desc.inputs.size())
    return invalidArgument(prefix + "expected " +
                           std::to_string(desc.inputs.size()) +
                           " input(s), got " + std::to_string(inputCount));
  if (resultCount != desc.results.size())
    return invalidArgument(prefix + "expected " +
                           std::to_string(desc.results.size()) +
                           " result(s), got " + std::to_string(resultCount));
  if ((inputCount && !inputs) || (resultCount && !results))
    return invalidArgument(prefix + "the inputs or results array is NULL");
  return nullptr;
}

boo_status_t fillTensorInfo(const std::vector<TensorDesc> &tensors,
                            size_t index, const char *kind,
                            boo_tensor_info_t *info) {
  if (!info)
    return invalidArgument("boo_tensor_info_t pointer is NULL");
  if (index >= tensors.size())
    return invalidArgument(std::string(kind) + " " + std::to_string(index) +
                           " does not exist (the function has " +
                           std::to_string(tensors.size()) + ")");
  const TensorDesc &tensor = tensors[index];
  info->name = tensor.name.c_str();
  info->dtype = static_cast<boo_dtype_t>(tensor.dtype);
  info->rank = tensor.dims.size();
  info->dims = tensor.dims.data();
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// Status
//===----------------------------------------------------------------------===//

boo_status_code_t boo_status_code(boo_status_t status) {
  return status ? status->code : BOO_STATUS_OK;
}

const char *boo_status_message(boo_status_t status) {
  return status ? status->message.c_str() : "";
}

void boo_status_free(boo_status_t status) { delete status; }

const char *boo_status_code_name(boo_status_code_t code) {
  switch (code) {
  case BOO_STATUS_OK:
    return "OK";
  case BOO_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case BOO_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case BOO_STATUS_UNAVAILABLE:
    return "UNAVAILABLE";
  case BOO_STATUS_INVALID_MODULE:
    return "INVALID_MODULE";
  case BOO_STATUS_INCOMPATIBLE:
    return "INCOMPATIBLE";
  case BOO_STATUS_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  case BOO_STATUS_INTERNAL:
    return "INTERNAL";
  }
  return "UNKNOWN";
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

boo_status_t boo_device_open(const char *spec, boo_device_t **out_device) {
  if (!spec || !out_device)
    return invalidArgument("boo_device_open: spec and out_device must not "
                           "be NULL");
  *out_device = nullptr;
  std::string text = spec;
  auto invalidSpec = [&] {
    return invalidArgument(
        "invalid device \"" + text + "\": expected \"cpu\", \"cpu:N\" (N " +
        "threads, 1-" + std::to_string(kMaxCPUThreads) +
        "), \"hip\" or \"hip:N\" (GPU N); or \"emu:CHIP\" or " +
        "\"emu:CHIP:N\" (the SIMT emulator of an AMD chip on N threads)");
  };
  std::unique_ptr<Backend> backend;
  unsigned index = 0;
  if (text == "cpu" || text.rfind("cpu:", 0) == 0) {
    if (text == "cpu") {
      if (boo_status_t status = getDefaultCPUThreads(index))
        return status;
    } else if (!parseIndex(spec + 4, index) || index == 0 ||
               index > kMaxCPUThreads) {
      return invalidSpec();
    }
    if (boo_status_t status = openCPUBackend(text, index, backend))
      return status;
  } else if (text.rfind("emu:", 0) == 0) {
    // "emu:gfx942" or "emu:gfx942:4".
    std::string chip = text.substr(4);
    size_t colon = chip.find(':');
    if (colon == std::string::npos) {
      if (boo_status_t status = getDefaultCPUThreads(index))
        return status;
    } else if (!parseIndex(chip.c_str() + colon + 1, index) || index == 0 ||
               index > kMaxCPUThreads) {
      return invalidSpec();
    }
    chip = chip.substr(0, colon);
    if (chip.empty())
      return invalidSpec();
    if (boo_status_t status = openEmuBackend(text, chip, index, backend))
      return status;
  } else if (text == "hip" || text.rfind("hip:", 0) == 0) {
    if (text != "hip" && !parseIndex(spec + 4, index))
      return invalidSpec();
#ifdef BOO_RUNTIME_HAVE_HIP
    if (boo_status_t status = openHIPBackend(text, int(index), backend))
      return status;
#else
    return makeStatus(BOO_STATUS_UNAVAILABLE,
                      "no HIP runtime: this libboo_runtime was built without "
                      "the HIP headers (BOO_RUNTIME_ENABLE_HIP=OFF)");
#endif
  } else {
    return invalidSpec();
  }
  *out_device = new boo_device{text, std::move(backend)};
  return nullptr;
}

void boo_device_close(boo_device_t *device) { delete device; }

const char *boo_device_description(const boo_device_t *device) {
  return device ? device->backend->getDescription().c_str() : "";
}

const char *boo_device_target(const boo_device_t *device) {
  return device ? device->backend->getTarget().c_str() : "";
}

unsigned boo_device_host_threads(const boo_device_t *device) {
  return device ? device->backend->getHostThreads() : 0;
}

boo_status_t boo_device_synchronize(boo_device_t *device) {
  if (!device)
    return invalidArgument("boo_device_synchronize: device is NULL");
  return device->backend->synchronize();
}

boo_status_t boo_device_set_stream(boo_device_t *device, void *stream) {
  if (!device)
    return invalidArgument("boo_device_set_stream: device is NULL");
  return device->backend->setStream(stream);
}

boo_status_t boo_device_profile_begin(boo_device_t *device,
                                      uint64_t max_workgroups) {
  if (!device)
    return invalidArgument("boo_device_profile_begin: device is NULL");
  return device->backend->beginProfile(max_workgroups);
}

boo_status_t boo_device_profile_end(boo_device_t *device,
                                    const boo_launch_profile_t **out_profiles,
                                    size_t *out_count) {
  if (!device || !out_profiles || !out_count)
    return invalidArgument("boo_device_profile_end: device, out_profiles and "
                           "out_count must not be NULL");
  *out_profiles = nullptr;
  *out_count = 0;
  return device->backend->endProfile(*out_profiles, *out_count);
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

boo_status_t boo_buffer_allocate(boo_device_t *device, size_t bytes,
                                 boo_buffer_t **out_buffer) {
  if (!device || !out_buffer)
    return invalidArgument(
        "boo_buffer_allocate: device and out_buffer must not be NULL");
  *out_buffer = nullptr;
  void *pointer = nullptr;
  if (boo_status_t status = device->backend->allocate(bytes, pointer))
    return status;
  *out_buffer = new boo_buffer{device, pointer, bytes};
  return nullptr;
}

void boo_buffer_free(boo_buffer_t *buffer) {
  if (!buffer)
    return;
  buffer->device->backend->deallocate(buffer->pointer);
  delete buffer;
}

size_t boo_buffer_size(const boo_buffer_t *buffer) {
  return buffer ? buffer->size : 0;
}

static boo_status_t checkCopy(const char *operation, const boo_buffer_t *buffer,
                              size_t offset, const void *host, size_t bytes) {
  if (!buffer)
    return invalidArgument(std::string(operation) + ": buffer is NULL");
  if (!host && bytes)
    return invalidArgument(std::string(operation) + ": host pointer is NULL");
  if (offset > buffer->size || bytes > buffer->size - offset)
    return invalidArgument(std::string(operation) + " of " +
                           std::to_string(bytes) + " bytes at offset " +
                           std::to_string(offset) +
                           " is out of bounds: the buffer holds " +
                           std::to_string(buffer->size) + " bytes");
  return nullptr;
}

boo_status_t boo_buffer_write(boo_buffer_t *buffer, size_t offset,
                              const void *source, size_t bytes) {
  if (boo_status_t status =
          checkCopy("boo_buffer_write", buffer, offset, source, bytes))
    return status;
  if (bytes == 0)
    return nullptr;
  return buffer->device->backend->copyToDevice(
      static_cast<char *>(buffer->pointer) + offset, source, bytes);
}

boo_status_t boo_buffer_read(const boo_buffer_t *buffer, size_t offset,
                             void *destination, size_t bytes) {
  if (boo_status_t status =
          checkCopy("boo_buffer_read", buffer, offset, destination, bytes))
    return status;
  if (bytes == 0)
    return nullptr;
  return buffer->device->backend->copyFromDevice(
      destination, static_cast<const char *>(buffer->pointer) + offset, bytes);
}

//===----------------------------------------------------------------------===//
// Modules and functions
//===----------------------------------------------------------------------===//

// boo_dtype_t is the C spelling of boo::ElementType.
static_assert(BOO_DTYPE_F32 == int(ElementType::F32) &&
              BOO_DTYPE_F16 == int(ElementType::F16) &&
              BOO_DTYPE_BF16 == int(ElementType::BF16) &&
              BOO_DTYPE_F64 == int(ElementType::F64) &&
              BOO_DTYPE_I32 == int(ElementType::I32) &&
              BOO_DTYPE_I8 == int(ElementType::I8) &&
              BOO_DTYPE_I64 == int(ElementType::I64) &&
              kMaxElementType == BOO_DTYPE_I64);

const char *boo_dtype_name(boo_dtype_t dtype) {
  return getElementTypeName(static_cast<ElementType>(dtype));
}

size_t boo_dtype_size(boo_dtype_t dtype) {
  return getElementSize(static_cast<ElementType>(dtype));
}

boo_status_t boo_module_load_data(boo_device_t *device, const void *data,
                                  size_t size, boo_module_t **out_module) {
  if (!device || !out_module || (!data && size))
    return invalidArgument("boo_module_load_data: device, data and "
                           "out_module must not be NULL");
  *out_module = nullptr;
  auto module = std::make_unique<boo_module>();
  module->device = device;
  std::string error;
  if (!parseModule(data, size, module->desc, error))
    return makeStatus(BOO_STATUS_INVALID_MODULE, "invalid module: " + error);

  // Pick the first target that this device runs.
  const Backend &backend = *device->backend;
  const ModuleDesc &desc = module->desc;
  std::string listed, whyNot;
  int64_t chosen = -1;
  for (size_t i = 0; i < desc.targets.size(); ++i) {
    const TargetDesc &target = desc.targets[i];
    std::string name = getTargetDisplayName(target.kind, target.name);
    module->targets += (i ? "," : "") + name;
    listed += (i ? ", " : "") + name;
    if (chosen >= 0 || target.kind != backend.getTargetKind() ||
        target.name != backend.getTarget())
      continue;
    std::string problem = backend.checkTargetFeatures(target);
    if (problem.empty())
      chosen = int64_t(i);
    else if (whyNot.empty())
      whyNot = problem;
  }
  if (chosen < 0) {
    if (!whyNot.empty())
      return makeStatus(BOO_STATUS_INCOMPATIBLE, whyNot);
    return makeStatus(
        BOO_STATUS_INCOMPATIBLE,
        "the module has no code for " +
            getTargetDisplayName(backend.getTargetKind(), backend.getTarget()) +
            "; it has: " + (listed.empty() ? "none" : listed));
  }

  if (boo_status_t status =
          device->backend->load(desc, uint32_t(chosen), module->executable))
    return status;
  // The backend has its own copy of the code now.
  module->desc.codeObjects.clear();
  module->desc.codeObjects.shrink_to_fit();

  for (size_t i = 0; i < desc.functions.size(); ++i) {
    const FunctionImpl *impl = nullptr;
    for (const FunctionImpl &candidate : desc.functions[i].impls)
      if (candidate.target == uint32_t(chosen))
        impl = &candidate;
    module->functions.push_back({module.get(), i, impl});
  }
  *out_module = module.release();
  return nullptr;
}

boo_status_t boo_module_load_file(boo_device_t *device, const char *path,
                                  boo_module_t **out_module) {
  if (!path)
    return invalidArgument("boo_module_load_file: path is NULL");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return makeStatus(
        errno == ENOENT ? BOO_STATUS_NOT_FOUND : BOO_STATUS_INVALID_ARGUMENT,
        std::string("cannot open ") + path + ": " + strerror(errno));
  std::string bytes;
  char chunk[65536];
  for (;;) {
    ssize_t got = read(fd, chunk, sizeof(chunk));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      std::string message =
          std::string("cannot read ") + path + ": " + strerror(errno);
      close(fd);
      return invalidArgument(message);
    }
    if (got == 0)
      break;
    bytes.append(chunk, size_t(got));
  }
  close(fd);
  boo_status_t status =
      boo_module_load_data(device, bytes.data(), bytes.size(), out_module);
  if (status)
    status->message = std::string(path) + ": " + status->message;
  return status;
}

void boo_module_free(boo_module_t *module) { delete module; }

const char *boo_module_targets(const boo_module_t *module) {
  return module ? module->targets.c_str() : "";
}

size_t boo_module_function_count(const boo_module_t *module) {
  return module ? module->functions.size() : 0;
}

const char *boo_module_function_name(const boo_module_t *module, size_t index) {
  if (!module || index >= module->functions.size())
    return nullptr;
  return module->desc.functions[index].name.c_str();
}

boo_status_t boo_module_lookup_function(boo_module_t *module, const char *name,
                                        boo_function_t **out_function) {
  if (!module || !out_function)
    return invalidArgument(
        "boo_module_lookup_function: module and out_function must not be "
        "NULL");
  *out_function = nullptr;
  const ModuleDesc &desc = module->desc;
  boo_function *found = nullptr;
  if (!name || !*name) {
    if (module->functions.size() != 1)
      return invalidArgument(
          "the module has " + std::to_string(module->functions.size()) +
          " functions (" + joinFunctionNames(desc) + "); name one");
    found = &module->functions[0];
  } else {
    for (boo_function &function : module->functions)
      if (desc.functions[function.index].name == name)
        found = &function;
    if (!found)
      return makeStatus(
          BOO_STATUS_NOT_FOUND,
          "no function '" + std::string(name) +
              "' in the module; it has: " + joinFunctionNames(desc));
  }
  if (!found->impl)
    return makeStatus(
        BOO_STATUS_INCOMPATIBLE,
        "@" + desc.functions[found->index].name + " has no code for " +
            getTargetDisplayName(module->device->backend->getTargetKind(),
                                 module->device->backend->getTarget()));
  *out_function = found;
  return nullptr;
}

const char *boo_function_name(const boo_function_t *function) {
  return function
             ? function->module->desc.functions[function->index].name.c_str()
             : "";
}

size_t boo_function_input_count(const boo_function_t *function) {
  return function
             ? function->module->desc.functions[function->index].inputs.size()
             : 0;
}

size_t boo_function_result_count(const boo_function_t *function) {
  return function
             ? function->module->desc.functions[function->index].results.size()
             : 0;
}

boo_status_t boo_function_input(const boo_function_t *function, size_t index,
                                boo_tensor_info_t *info) {
  if (!function)
    return invalidArgument("boo_function_input: function is NULL");
  return fillTensorInfo(
      function->module->desc.functions[function->index].inputs, index, "input",
      info);
}

boo_status_t boo_function_result(const boo_function_t *function, size_t index,
                                 boo_tensor_info_t *info) {
  if (!function)
    return invalidArgument("boo_function_result: function is NULL");
  return fillTensorInfo(
      function->module->desc.functions[function->index].results, index,
      "result", info);
}

size_t boo_function_launch_count(const boo_function_t *function) {
  return function && function->impl ? function->impl->launches.size() : 0;
}

boo_status_t boo_function_invoke(boo_function_t *function,
                                 boo_buffer_t *const *inputs,
                                 size_t input_count,
                                 boo_buffer_t *const *results,
                                 size_t result_count) {
  if (!function)
    return invalidArgument("boo_function_invoke: function is NULL");
  const FunctionDesc &desc = function->module->desc.functions[function->index];
  if (boo_status_t status =
          checkCounts(desc, inputs, input_count, results, result_count))
    return status;
  std::vector<void *> inputPointers(input_count), resultPointers(result_count);
  for (size_t i = 0; i < input_count; ++i) {
    if (boo_status_t status =
            checkBuffer(function, "input", i, desc.inputs[i], inputs[i]))
      return status;
    inputPointers[i] = inputs[i]->pointer;
  }
  for (size_t i = 0; i < result_count; ++i) {
    if (boo_status_t status =
            checkBuffer(function, "result", i, desc.results[i], results[i]))
      return status;
    resultPointers[i] = results[i]->pointer;
  }
  return function->module->executable->invoke(function->index, *function->impl,
                                              inputPointers.data(),
                                              resultPointers.data());
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

boo_status_t boo_event_create(boo_device_t *device, boo_event_t **out_event) {
  if (!device || !out_event)
    return invalidArgument(
        "boo_event_create: device and out_event must not be NULL");
  *out_event = nullptr;
  std::unique_ptr<Event> event;
  if (boo_status_t status = device->backend->createEvent(event))
    return status;
  *out_event = new boo_event{device, std::move(event)};
  return nullptr;
}

void boo_event_free(boo_event_t *event) { delete event; }

boo_status_t boo_event_record(boo_event_t *event) {
  if (!event)
    return invalidArgument("boo_event_record: event is NULL");
  return event->event->record();
}

boo_status_t boo_event_elapsed_ms(const boo_event_t *start,
                                  const boo_event_t *end, double *out_ms) {
  if (!start || !end || !out_ms)
    return invalidArgument(
        "boo_event_elapsed_ms: start, end and out_ms must not be NULL");
  if (start->device != end->device)
    return invalidArgument("boo_event_elapsed_ms: the events are on "
                           "different devices (" +
                           start->device->spec + ", " + end->device->spec +
                           ")");
  return start->event->getElapsedMs(*end->event, *out_ms);
}

boo_status_t boo_function_invoke_views(boo_function_t *function,
                                       const boo_tensor_view_t *inputs,
                                       size_t input_count,
                                       const boo_tensor_view_t *results,
                                       size_t result_count) {
  if (!function)
    return invalidArgument("boo_function_invoke_views: function is NULL");
  const FunctionDesc &desc = function->module->desc.functions[function->index];
  if (boo_status_t status =
          checkCounts(desc, inputs, input_count, results, result_count))
    return status;
  // Few arguments: no heap allocation per call.
  constexpr size_t kInline = 16;
  void *fixed[2 * kInline];
  std::vector<void *> heap;
  void **pointers = fixed;
  if (input_count + result_count > 2 * kInline) {
    heap.resize(input_count + result_count);
    pointers = heap.data();
  }
  for (size_t i = 0; i < input_count; ++i) {
    if (boo_status_t status =
            checkView(function, "input", i, desc.inputs[i], inputs[i]))
      return status;
    pointers[i] = inputs[i].data;
  }
  for (size_t i = 0; i < result_count; ++i) {
    if (boo_status_t status =
            checkView(function, "result", i, desc.results[i], results[i]))
      return status;
    pointers[input_count + i] = results[i].data;
  }
  return function->module->executable->invoke(function->index, *function->impl,
                                              pointers, pointers + input_count);
}
