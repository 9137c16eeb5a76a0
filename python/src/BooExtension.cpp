//===- BooExtension.cpp - boo._boo: the compiler and runtime for Python ---===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The nanobind extension under the `boo` package (python/boo): describe and
// compile MIOpenDriver commands in-process (Boo/Harness/CommandCompiler.h),
// open runtime devices, load compiled modules and invoke their functions on
// caller-owned memory (boo_function_invoke_views). The Python side keeps
// the map from signature to launchable and turns tensors into views.
//
// Errors become Python exceptions that carry Boo's message: ValueError for
// a caller mistake (a bad command, a wrong shape, dtype or stride),
// RuntimeError for anything else. This file includes no MLIR or LLVM
// header: it is compiled with exceptions and RTTI, which LLVM is not.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/CommandCompiler.h"
#include "boo_runtime.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <mutex>

namespace nb = nanobind;
using namespace mlir::boo::harness;

namespace {

/// Raises the Python exception for `status` (which it frees); `what`
/// prefixes the message.
void throwStatus(boo_status_t status, const std::string &what) {
  std::string message = what + boo_status_message(status);
  boo_status_code_t code = boo_status_code(status);
  boo_status_free(status);
  if (code == BOO_STATUS_INVALID_ARGUMENT || code == BOO_STATUS_NOT_FOUND)
    throw nb::value_error(message.c_str());
  throw std::runtime_error(message);
}

void check(boo_status_t status, const std::string &what = "") {
  if (status)
    throwStatus(status, what);
}

/// A runtime device, opened once per spec by the Python side.
class Device {
public:
  explicit Device(const std::string &spec) : spec(spec) {
    check(boo_device_open(spec.c_str(), &device), "device '" + spec + "': ");
  }
  ~Device() { boo_device_close(device); }
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  std::string getDescription() const { return boo_device_description(device); }
  std::string getTarget() const { return boo_device_target(device); }
  void synchronize() {
    nb::gil_scoped_release release;
    check(boo_device_synchronize(device), spec + ": ");
  }
  /// hip: later work goes to the caller's stream (0: the device's own).
  void setStream(uintptr_t stream) {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex);
    check(boo_device_set_stream(device, reinterpret_cast<void *>(stream)),
          spec + ": ");
  }

  const std::string spec;
  boo_device_t *device = nullptr;
  /// Invocations on one device are serialized (boo_runtime.h).
  std::mutex mutex;
};

/// Reads one (data_ptr, dtype, shape, strides) tuple into `view`, with
/// `dims` and `strides` as its storage (at most kMaxRank entries).
constexpr size_t kMaxRank = 8;
void readView(nb::handle item, boo_tensor_view_t &view, int64_t *dims,
              int64_t *strides, const char *kind, size_t index) {
  if (!nb::isinstance<nb::tuple>(item) || nb::len(item) != 4)
    throw nb::value_error(("invoke: " + std::string(kind) + " " +
                           std::to_string(index) +
                           " must be (data_ptr, dtype, shape, strides)")
                              .c_str());
  nb::tuple tuple = nb::borrow<nb::tuple>(item);
  view.data = reinterpret_cast<void *>(nb::cast<uintptr_t>(tuple[0]));
  view.dtype = static_cast<boo_dtype_t>(nb::cast<int>(tuple[1]));
  nb::handle shape = tuple[2], stride = tuple[3];
  size_t rank = nb::len(shape);
  if (rank > kMaxRank || nb::len(stride) != rank)
    throw nb::value_error(("invoke: " + std::string(kind) + " " +
                           std::to_string(index) + " has rank " +
                           std::to_string(rank) +
                           " (at most 8) or strides of another rank")
                              .c_str());
  for (size_t d = 0; d < rank; ++d) {
    dims[d] = nb::cast<int64_t>(shape[d]);
    strides[d] = nb::cast<int64_t>(stride[d]);
  }
  view.rank = rank;
  view.dims = dims;
  view.strides = strides;
}

/// A compiled module loaded on a device, and its one function.
class Launchable {
public:
  Launchable(Device &device, nb::bytes bytes, const std::string &name)
      : device(device) {
    check(boo_module_load_data(device.device, bytes.c_str(), bytes.size(),
                               &module));
    check(boo_module_lookup_function(module, name.c_str(), &function));
  }
  ~Launchable() { boo_module_free(module); }
  Launchable(const Launchable &) = delete;
  Launchable &operator=(const Launchable &) = delete;

  std::string getName() const { return boo_function_name(function); }

  /// [(name, shape, dtype code)] of the function's inputs or results.
  nb::list getTensors(bool results) const {
    nb::list list;
    size_t count = results ? boo_function_result_count(function)
                           : boo_function_input_count(function);
    for (size_t i = 0; i < count; ++i) {
      boo_tensor_info_t info;
      check(results ? boo_function_result(function, i, &info)
                    : boo_function_input(function, i, &info));
      nb::list shape;
      for (size_t d = 0; d < info.rank; ++d)
        shape.append(info.dims[d]);
      list.append(nb::make_tuple(std::string(info.name), nb::tuple(shape),
                                 static_cast<int>(info.dtype)));
    }
    return list;
  }
  size_t getLaunchCount() const { return boo_function_launch_count(function); }

  void invoke(nb::list inputs, nb::list results) {
    size_t inputCount = inputs.size(), resultCount = results.size();
    constexpr size_t kMaxArgs = 16;
    if (inputCount + resultCount > kMaxArgs)
      throw nb::value_error("invoke: at most 16 arguments and results");
    boo_tensor_view_t views[kMaxArgs];
    int64_t dims[kMaxArgs][kMaxRank], strides[kMaxArgs][kMaxRank];
    for (size_t i = 0; i < inputCount; ++i)
      readView(inputs[i], views[i], dims[i], strides[i], "input", i);
    for (size_t i = 0; i < resultCount; ++i)
      readView(results[i], views[inputCount + i], dims[inputCount + i],
               strides[inputCount + i], "result", i);
    boo_status_t status;
    {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(device.mutex);
      status = boo_function_invoke_views(function, views, inputCount,
                                         views + inputCount, resultCount);
    }
    check(status);
  }

private:
  Device &device;
  boo_module_t *module = nullptr;
  boo_function_t *function = nullptr;
};

nb::tuple toTuple(const CommandTensor &tensor) {
  nb::list shape;
  for (int64_t dim : tensor.shape)
    shape.append(dim);
  return nb::make_tuple(tensor.name, nb::tuple(shape),
                        static_cast<int>(tensor.type));
}

nb::list toList(const std::vector<CommandTensor> &tensors) {
  nb::list list;
  for (const CommandTensor &tensor : tensors)
    list.append(toTuple(tensor));
  return list;
}

/// (kind, function name, [(name, shape, dtype)] arguments, ... results,
/// parameters: {name: value or [values], layouts, "epsilon", "momentum"}).
nb::tuple describe(const std::string &command) {
  CommandSignature signature;
  std::string error;
  if (!describeCommand(command, signature, error))
    throw nb::value_error(error.c_str());
  nb::dict parameters;
  for (const auto &[name, values] : signature.parameters) {
    nb::list list;
    for (int64_t value : values)
      list.append(value);
    parameters[name.c_str()] = list;
  }
  for (const auto &[name, layout] : signature.layouts)
    parameters[name.c_str()] = layout;
  if (signature.kind == "layernorm" || signature.kind == "bnorm")
    parameters["epsilon"] = signature.epsilon;
  if (signature.kind == "bnorm")
    parameters["momentum"] = signature.momentum;
  return nb::make_tuple(signature.kind, signature.functionName,
                        toList(signature.arguments), toList(signature.results),
                        parameters);
}

/// Runs `compile` (one of CommandCompiler's) without the GIL; returns
/// (module bytes, cache outcome, cache note, seconds) or raises its error.
template <typename Compile> nb::tuple compileWith(Compile compile) {
  CompiledCommand compiled;
  std::string error;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = compile(compiled, error);
  }
  if (!ok)
    throw std::runtime_error(error);
  return nb::make_tuple(nb::bytes(compiled.bytes.data(), compiled.bytes.size()),
                        compiled.cacheOutcome, compiled.cacheNote,
                        compiled.seconds);
}

nb::tuple compile(const std::string &command, const std::string &target,
                  const std::string &producer) {
  return compileWith([&](CompiledCommand &compiled, std::string &error) {
    return compileCommand(command, target, producer, compiled, error);
  });
}

/// As compile, for Boo MLIR text.
nb::tuple compileMLIR(const std::string &source, const std::string &name,
                      const std::string &target, const std::string &producer) {
  return compileWith([&](CompiledCommand &compiled, std::string &error) {
    return compileSource(source, name, target, producer, compiled, error);
  });
}

} // namespace

NB_MODULE(_boo, m) {
  m.doc() = "Boo's compiler and runtime (the boo package's native part)";
  // The package keeps devices and launchables for the life of the process
  // (the launchable cache); they are not leaks.
  nb::set_leak_warnings(false);
  m.def("describe_command", &describe, nb::arg("command"),
        "(kind, function name, arguments, results) of an MIOpenDriver "
        "command; each argument and result is (name, shape, dtype code)");
  m.def("compile_command", &compile, nb::arg("command"), nb::arg("target"),
        nb::arg("producer") = "boo-python",
        "(module bytes, cache outcome, cache note, seconds)");
  m.def("compile_mlir", &compileMLIR, nb::arg("source"), nb::arg("name"),
        nb::arg("target"), nb::arg("producer") = "boo-python",
        "As compile_command, for Boo MLIR text; `name` names it in "
        "diagnostics");
  m.def("dtype_name", [](int dtype) {
    return std::string(boo_dtype_name(static_cast<boo_dtype_t>(dtype)));
  });

  nb::class_<Device>(m, "Device")
      .def(nb::init<const std::string &>(), nb::arg("spec"))
      .def_ro("spec", &Device::spec)
      .def_prop_ro("description", &Device::getDescription)
      .def_prop_ro("target", &Device::getTarget)
      .def("synchronize", &Device::synchronize)
      .def("set_stream", &Device::setStream, nb::arg("stream"));

  nb::class_<Launchable>(m, "Launchable")
      .def(nb::init<Device &, nb::bytes, const std::string &>(),
           nb::arg("device"), nb::arg("module"), nb::arg("function"),
           nb::keep_alive<1, 2>())
      .def_prop_ro("name", &Launchable::getName)
      .def_prop_ro("launch_count", &Launchable::getLaunchCount)
      .def_prop_ro("inputs",
                   [](const Launchable &l) { return l.getTensors(false); })
      .def_prop_ro("results",
                   [](const Launchable &l) { return l.getTensors(true); })
      .def("invoke", &Launchable::invoke, nb::arg("inputs"), nb::arg("results"),
           "Runs the function on [(data_ptr, dtype, shape, strides)] "
           "inputs and results, in place");
}
