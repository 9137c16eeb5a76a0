//===- MemcpyBackend.cpp - memcpy as a bandwidth reference ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The copy's threads are started once per runMemcpy and spin between
// copies (as Boo's runtime and oneDNN's OpenMP threads do while a kernel
// runs), so a timed copy costs the copy and a release/join of spinning
// threads, not thread creation.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/MemcpyBackend.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

using namespace mlir;
using namespace mlir::boo;

namespace {

constexpr size_t kLine = 64;

/// `threads` threads, the caller included, that copy their slices of
/// `source` into `target` each time copy() is called.
class CopyTeam {
public:
  CopyTeam(size_t bytes, int64_t threads)
      : bytes(bytes), threads(threads),
        source(new (std::align_val_t(kLine)) char[bytes]),
        target(new (std::align_val_t(kLine)) char[bytes]) {
    std::memset(source.get(), 1, bytes);
    std::memset(target.get(), 0, bytes);
    for (int64_t t = 1; t < threads; ++t)
      workers.emplace_back([this, t] { work(t); });
  }
  ~CopyTeam() {
    stop.store(true, std::memory_order_release);
    generation.fetch_add(1, std::memory_order_release);
    for (std::thread &w : workers)
      w.join();
  }

  void copy() {
    finished.store(0, std::memory_order_relaxed);
    generation.fetch_add(1, std::memory_order_release);
    copySlice(0);
    while (finished.load(std::memory_order_acquire) != threads - 1)
      std::this_thread::yield();
  }

private:
  struct AlignedDelete {
    void operator()(char *p) const {
      ::operator delete[](p, std::align_val_t(kLine));
    }
  };

  /// Slice `t`: whole cache lines, the last slice takes the rest.
  void copySlice(int64_t t) {
    size_t lines = bytes / kLine;
    size_t begin = lines * t / threads * kLine;
    size_t end = t + 1 == threads ? bytes : lines * (t + 1) / threads * kLine;
    std::memcpy(target.get() + begin, source.get() + begin, end - begin);
  }

  void work(int64_t t) {
    uint64_t seen = 0;
    while (true) {
      uint64_t now;
      while ((now = generation.load(std::memory_order_acquire)) == seen)
        std::this_thread::yield();
      seen = now;
      if (stop.load(std::memory_order_acquire))
        return;
      copySlice(t);
      finished.fetch_add(1, std::memory_order_acq_rel);
    }
  }

  size_t bytes;
  int64_t threads;
  std::unique_ptr<char[], AlignedDelete> source, target;
  std::vector<std::thread> workers;
  std::atomic<uint64_t> generation{0};
  std::atomic<int64_t> finished{0};
  std::atomic<bool> stop{false};
};

} // namespace

LogicalResult harness::runMemcpy(double bytes, int64_t iterations,
                                 int64_t threads,
                                 std::vector<double> &milliseconds,
                                 std::string &error) {
  if (!(bytes > 0) || iterations < 1 || threads < 1) {
    error = "memcpy backend: needs a positive byte count, iteration count "
            "and thread count";
    return failure();
  }
  size_t half = static_cast<size_t>(bytes / 2);
  half = std::max(kLine, (half + kLine - 1) / kLine * kLine);
  CopyTeam team(half, threads);
  team.copy();
  for (int64_t i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    team.copy();
    milliseconds.push_back(std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - start)
                               .count());
  }
  return success();
}
