//===- HostBackend.cpp - Backends whose memory is host memory -------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "HostBackend.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

using namespace boo::runtime;

namespace {

class HostEvent : public Event {
public:
  boo_status_t record() override {
    time = std::chrono::steady_clock::now();
    recorded = true;
    return nullptr;
  }
  boo_status_t getElapsedMs(const Event &end, double &ms) const override {
    const auto &other = static_cast<const HostEvent &>(end);
    if (!recorded || !other.recorded)
      return makeStatus(BOO_STATUS_INVALID_ARGUMENT,
                        "elapsed time of an event that was never recorded");
    ms = std::chrono::duration<double, std::milli>(other.time - time).count();
    return nullptr;
  }

private:
  std::chrono::steady_clock::time_point time;
  bool recorded = false;
};

} // namespace

const char *boo::runtime::getHostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
#error "the Boo runtime supports x86_64 and aarch64 hosts"
#endif
}

boo_status_t HostBackend::allocate(size_t bytes, void *&pointer) {
  size_t rounded = bytes < 64 ? 64 : (bytes + 63) / 64 * 64;
  if (rounded < bytes || posix_memalign(&pointer, 64, rounded) != 0)
    return makeStatus(BOO_STATUS_OUT_OF_MEMORY, "cannot allocate " +
                                                    std::to_string(bytes) +
                                                    " bytes of host memory");
  return nullptr;
}

void HostBackend::deallocate(void *pointer) { free(pointer); }

boo_status_t HostBackend::copyToDevice(void *destination, const void *source,
                                       size_t bytes) {
  if (bytes)
    memcpy(destination, source, bytes);
  return nullptr;
}

boo_status_t HostBackend::copyFromDevice(void *destination, const void *source,
                                         size_t bytes) {
  if (bytes)
    memcpy(destination, source, bytes);
  return nullptr;
}

boo_status_t HostBackend::createEvent(std::unique_ptr<Event> &event) {
  event = std::make_unique<HostEvent>();
  return nullptr;
}
