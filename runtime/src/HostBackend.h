//===- HostBackend.h - Backends whose memory is host memory -----*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The CPU device and the emulator device both run their code in-process:
// buffers are host memory, copies are memcpy, work is complete when a call
// returns and events read a steady clock. They share that here and differ
// only in how they load and run code.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_HOSTBACKEND_H
#define BOO_RUNTIME_SRC_HOSTBACKEND_H

#include "Backend.h"

namespace boo {
namespace runtime {

/// The host architecture, a CPU target name: "x86_64" or "aarch64".
const char *getHostArch();

class HostBackend : public Backend {
public:
  boo_status_t synchronize() override { return nullptr; }

  /// 64-byte aligned, rounded up to a multiple of 64 bytes so that vector
  /// loads of the last elements stay inside the allocation.
  boo_status_t allocate(size_t bytes, void *&pointer) override;
  void deallocate(void *pointer) override;
  boo_status_t copyToDevice(void *destination, const void *source,
                            size_t bytes) override;
  boo_status_t copyFromDevice(void *destination, const void *source,
                              size_t bytes) override;

  /// Steady-clock events.
  boo_status_t createEvent(std::unique_ptr<Event> &event) override;
};

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_HOSTBACKEND_H
