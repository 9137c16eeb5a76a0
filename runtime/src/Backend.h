//===- Backend.h - The interface each device backend implements -*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Runtime.cpp implements the C API once: argument checks, module parsing,
// target selection and the objects' lifetimes. What differs per device kind
// (memory, code loading, launching, timing) sits behind these interfaces;
// CPUBackend.cpp, EmuBackend.cpp and HIPBackend.cpp implement them.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_BACKEND_H
#define BOO_RUNTIME_SRC_BACKEND_H

#include "boo/ModuleFormat.h"
#include "boo_runtime.h"

#include <memory>
#include <string>

namespace boo {
namespace runtime {

/// Returns a new status (never NULL) with `code` and `message`.
boo_status_t makeStatus(boo_status_code_t code, std::string message);

/// A point in a device's stream of work.
class Event {
public:
  virtual ~Event() = default;
  virtual boo_status_t record() = 0;
  /// Milliseconds from this event to `end` (an event of the same backend);
  /// waits for `end`.
  virtual boo_status_t getElapsedMs(const Event &end, double &ms) const = 0;
};

/// The code of one module target, loaded on a device.
class Executable {
public:
  virtual ~Executable() = default;
  /// Runs `impl`, the implementation of function `functionIndex` for the
  /// loaded target. `inputs` and `results` are the base pointers of
  /// buffers already checked to be large enough.
  virtual boo_status_t invoke(size_t functionIndex, const FunctionImpl &impl,
                              void *const *inputs, void *const *results) = 0;
};

class Backend {
public:
  virtual ~Backend() = default;

  virtual TargetKind getTargetKind() const = 0;
  /// The code-object target this device runs ("x86_64", "gfx942").
  const std::string &getTarget() const { return target; }
  const std::string &getDescription() const { return description; }
  /// The host threads this device's work runs on (0: none, a GPU).
  unsigned getHostThreads() const { return hostThreads; }

  /// Called for module targets of this backend's kind and name: returns an
  /// empty string when this machine can run the target's code, else why not.
  virtual std::string checkTargetFeatures(const TargetDesc &target) const {
    return {};
  }

  virtual boo_status_t synchronize() = 0;

  /// Orders later work on the caller's `stream` (a hipStream_t on HIP);
  /// null goes back to the device's own. Devices without streams refuse.
  virtual boo_status_t setStream(void *stream) {
    return makeStatus(BOO_STATUS_INVALID_ARGUMENT,
                      description + " has no streams; only hip devices do");
  }

  /// Profiles the launches from now on (emulator devices); others refuse.
  virtual boo_status_t beginProfile(uint64_t maxWorkgroups) {
    return makeStatus(BOO_STATUS_INVALID_ARGUMENT,
                      description + " has no profile; only emulator (emu:*) "
                                    "devices count what a launch executes");
  }
  /// The profiles of the launches since beginProfile.
  virtual boo_status_t endProfile(const boo_launch_profile_t *&profiles,
                                  size_t &count) {
    return beginProfile(0);
  }

  /// Device memory; `bytes` may be 0 (the pointer is then still unique).
  virtual boo_status_t allocate(size_t bytes, void *&pointer) = 0;
  virtual void deallocate(void *pointer) = 0;
  virtual boo_status_t copyToDevice(void *destination, const void *source,
                                    size_t bytes) = 0;
  virtual boo_status_t copyFromDevice(void *destination, const void *source,
                                      size_t bytes) = 0;

  /// Loads the code objects that target `targetIndex` of `module` uses.
  /// `module` outlives the executable; its code-object bytes may be dropped
  /// once this returns.
  virtual boo_status_t load(const ModuleDesc &module, uint32_t targetIndex,
                            std::unique_ptr<Executable> &executable) = 0;

  virtual boo_status_t createEvent(std::unique_ptr<Event> &event) = 0;

protected:
  std::string target;
  std::string description;
  unsigned hostThreads = 0;
};

/// Opens the host CPU with `threads` threads (the caller included). `spec`
/// is the name the description starts with.
boo_status_t openCPUBackend(const std::string &spec, unsigned threads,
                            std::unique_ptr<Backend> &backend);

/// Opens the SIMT emulator of AMD chip `chip` ("gfx942") with `threads`
/// threads; an unknown chip is an error that lists the known ones.
boo_status_t openEmuBackend(const std::string &spec, const std::string &chip,
                            unsigned threads,
                            std::unique_ptr<Backend> &backend);

/// Opens AMD GPU `ordinal` through a dynamically loaded HIP runtime.
boo_status_t openHIPBackend(const std::string &spec, int ordinal,
                            std::unique_ptr<Backend> &backend);

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_BACKEND_H
