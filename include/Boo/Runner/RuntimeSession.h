//===- RuntimeSession.h - Running compiled modules on the runtime -*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Runs a function of a compiled module (docs/ModuleFormat.md) through the
// runtime's C API (runtime/include/boo_runtime.h): the path boo-run-module
// takes for .boomod files and for GPU and emulator devices, and the
// numerics sweeps take on the emulator.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNNER_RUNTIMESESSION_H
#define BOO_RUNNER_RUNTIMESESSION_H

#include "Boo/Runner/HostTensor.h"

#include "boo_runtime.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::boo {

class RuntimeSession {
public:
  ~RuntimeSession();

  /// Opens `deviceSpec` ("cpu", "hip:1", ...).
  static std::unique_ptr<RuntimeSession> open(const std::string &deviceSpec,
                                              std::string &error);
  /// "x86_64", "gfx942", ...: the target this device runs.
  std::string getTarget() const;
  std::string getDescription() const;
  /// The host threads the device runs on (boo_device_host_threads; 0 for
  /// a GPU).
  unsigned getHostThreads() const;

  /// Loads a compiled module and picks `function` (empty: the only one).
  bool load(const std::string &bytes, const std::string &function,
            std::string &error);
  const std::string &getFunctionName() const { return functionName; }
  const std::vector<TensorSignature> &getInputs() const { return inputs; }
  const std::vector<TensorSignature> &getResults() const { return results; }
  size_t getLaunchCount() const;

  /// Copies `args` to device buffers (checked against the signature).
  bool setInputs(const std::vector<HostTensor> &args, std::string &error);
  /// Invokes once and waits; `milliseconds` is the device-event time of the
  /// call (host-to-device copies excluded).
  bool invoke(double &milliseconds, std::string &error);
  /// What one launch executed, from an emulator device's profile
  /// (boo_launch_profile_t, with its kernel's name kept).
  struct LaunchProfile {
    std::string kernel;
    boo_launch_profile_t counts;
  };
  /// Emulator devices: invokes once, profiling each launch and running at
  /// most `maxWorkgroups` of its workgroups (0: all; a sample leaves the
  /// results incomplete). docs/Emulator.md, "Profile".
  bool invokeProfiled(uint64_t maxWorkgroups,
                      std::vector<LaunchProfile> &profiles, std::string &error);
  /// Emulator devices: fills the results with `unwritten` bytes, then
  /// invokes once on at most `maxWorkgroups` workgroups of each launch,
  /// spread over the grid: the elements the sample writes are the kernel's,
  /// the others keep the fill. Only for functions of one launch (a later
  /// kernel would read what the sample of an earlier one left unwritten).
  bool invokeSampled(uint64_t maxWorkgroups, uint8_t unwritten,
                     std::string &error);
  /// Copies the results of the last invocation back.
  bool readResults(std::vector<HostTensor> &outs, std::string &error);

private:
  RuntimeSession() = default;
  bool check(boo_status_t status, std::string &error);
  void freeBuffers();

  boo_device_t *device = nullptr;
  boo_module_t *module = nullptr;
  boo_function_t *function = nullptr;
  boo_event_t *start = nullptr, *stop = nullptr;
  std::vector<boo_buffer_t *> inputBuffers, resultBuffers;
  std::string functionName;
  std::vector<TensorSignature> inputs, results;
};

} // namespace mlir::boo

#endif // BOO_RUNNER_RUNTIMESESSION_H
