//===- RuntimeSession.cpp - Running compiled modules on the runtime -------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Runner/RuntimeSession.h"

using namespace mlir::boo;

namespace {
/// boo_dtype_t is the C spelling of ElementType (Runtime.cpp asserts that
/// their values agree).
ElementType toElementType(boo_dtype_t dtype) {
  return static_cast<ElementType>(static_cast<int>(dtype));
}

TensorSignature toSignature(const boo_tensor_info_t &info) {
  TensorSignature signature;
  signature.name = info.name ? info.name : "";
  signature.type = toElementType(info.dtype);
  signature.shape.assign(info.dims, info.dims + info.rank);
  return signature;
}

size_t getByteSize(const TensorSignature &signature) {
  size_t elements = 1;
  for (int64_t dim : signature.shape)
    elements *= dim;
  return elements * getElementSize(signature.type);
}
} // namespace

RuntimeSession::~RuntimeSession() {
  freeBuffers();
  boo_event_free(start);
  boo_event_free(stop);
  boo_module_free(module);
  boo_device_close(device);
}

void RuntimeSession::freeBuffers() {
  for (boo_buffer_t *buffer : inputBuffers)
    boo_buffer_free(buffer);
  for (boo_buffer_t *buffer : resultBuffers)
    boo_buffer_free(buffer);
  inputBuffers.clear();
  resultBuffers.clear();
}

bool RuntimeSession::check(boo_status_t status, std::string &error) {
  if (!status)
    return true;
  error = boo_status_message(status);
  boo_status_free(status);
  return false;
}

std::unique_ptr<RuntimeSession>
RuntimeSession::open(const std::string &deviceSpec, std::string &error) {
  std::unique_ptr<RuntimeSession> session(new RuntimeSession());
  if (!session->check(boo_device_open(deviceSpec.c_str(), &session->device),
                      error) ||
      !session->check(boo_event_create(session->device, &session->start),
                      error) ||
      !session->check(boo_event_create(session->device, &session->stop),
                      error))
    return nullptr;
  return session;
}

std::string RuntimeSession::getTarget() const {
  return boo_device_target(device);
}

std::string RuntimeSession::getDescription() const {
  return boo_device_description(device);
}

unsigned RuntimeSession::getHostThreads() const {
  return boo_device_host_threads(device);
}

size_t RuntimeSession::getLaunchCount() const {
  return boo_function_launch_count(function);
}

bool RuntimeSession::load(const std::string &bytes, const std::string &name,
                          std::string &error) {
  if (!check(boo_module_load_data(device, bytes.data(), bytes.size(), &module),
             error) ||
      !check(boo_module_lookup_function(module, name.c_str(), &function),
             error))
    return false;
  functionName = boo_function_name(function);
  inputs.clear();
  results.clear();
  boo_tensor_info_t info;
  for (size_t i = 0, e = boo_function_input_count(function); i < e; ++i) {
    if (!check(boo_function_input(function, i, &info), error))
      return false;
    inputs.push_back(toSignature(info));
  }
  for (size_t i = 0, e = boo_function_result_count(function); i < e; ++i) {
    if (!check(boo_function_result(function, i, &info), error))
      return false;
    results.push_back(toSignature(info));
  }
  return true;
}

bool RuntimeSession::setInputs(const std::vector<HostTensor> &args,
                               std::string &error) {
  freeBuffers();
  if (args.size() != inputs.size()) {
    error = "@" + functionName + " takes " + std::to_string(inputs.size()) +
            " input(s), got " + std::to_string(args.size());
    return false;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const TensorSignature &signature = inputs[i];
    std::string what =
        "input " + std::to_string(i) +
        (signature.name.empty() ? "" : " (" + signature.name + ")");
    if (args[i].shape != signature.shape || args[i].type != signature.type) {
      error = what + ": expected " + signature.toString() + ", got " +
              args[i].getTypeString();
      return false;
    }
    size_t bytes = getByteSize(signature);
    if (args[i].data.size() != bytes) {
      error = what + ": " + signature.toString() + " needs " +
              std::to_string(bytes) + " bytes, the tensor holds " +
              std::to_string(args[i].data.size());
      return false;
    }
    boo_buffer_t *buffer = nullptr;
    if (!check(boo_buffer_allocate(device, args[i].data.size(), &buffer),
               error))
      return false;
    inputBuffers.push_back(buffer);
    if (!check(boo_buffer_write(buffer, 0, args[i].data.data(),
                                args[i].data.size()),
               error))
      return false;
  }
  for (const TensorSignature &signature : results) {
    boo_buffer_t *buffer = nullptr;
    if (!check(boo_buffer_allocate(device, getByteSize(signature), &buffer),
               error))
      return false;
    resultBuffers.push_back(buffer);
  }
  return true;
}

bool RuntimeSession::invoke(double &milliseconds, std::string &error) {
  return check(boo_event_record(start), error) &&
         check(boo_function_invoke(function, inputBuffers.data(),
                                   inputBuffers.size(), resultBuffers.data(),
                                   resultBuffers.size()),
               error) &&
         check(boo_event_record(stop), error) &&
         check(boo_device_synchronize(device), error) &&
         check(boo_event_elapsed_ms(start, stop, &milliseconds), error);
}

bool RuntimeSession::invokeProfiled(uint64_t maxWorkgroups,
                                    std::vector<LaunchProfile> &profiles,
                                    std::string &error) {
  profiles.clear();
  if (!check(boo_device_profile_begin(device, maxWorkgroups), error))
    return false;
  bool invoked = check(
      boo_function_invoke(function, inputBuffers.data(), inputBuffers.size(),
                          resultBuffers.data(), resultBuffers.size()),
      error);
  const boo_launch_profile_t *launches = nullptr;
  size_t count = 0;
  // Ends the profile even when the invocation failed.
  std::string endError;
  if (!check(boo_device_profile_end(device, &launches, &count), endError)) {
    error = invoked ? endError : error;
    return false;
  }
  if (!invoked)
    return false;
  for (size_t i = 0; i < count; ++i)
    profiles.push_back({launches[i].kernel, launches[i]});
  return true;
}

bool RuntimeSession::invokeSampled(uint64_t maxWorkgroups, uint8_t unwritten,
                                   std::string &error) {
  if (getLaunchCount() != 1) {
    error = "@" + functionName + " launches " +
            std::to_string(getLaunchCount()) +
            " kernels; a sample of workgroups runs functions of one launch "
            "only (a later kernel would read what the sample left unwritten)";
    return false;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    std::vector<uint8_t> fill(getByteSize(results[i]), unwritten);
    if (!check(boo_buffer_write(resultBuffers[i], 0, fill.data(), fill.size()),
               error))
      return false;
  }
  std::vector<LaunchProfile> profiles;
  return invokeProfiled(maxWorkgroups, profiles, error);
}

bool RuntimeSession::readResults(std::vector<HostTensor> &outs,
                                 std::string &error) {
  outs.clear();
  for (size_t i = 0; i < results.size(); ++i) {
    HostTensor out = HostTensor::zeros(results[i].shape, results[i].type);
    if (!check(boo_buffer_read(resultBuffers[i], 0, out.data.data(),
                               out.data.size()),
               error))
      return false;
    outs.push_back(std::move(out));
  }
  return true;
}
