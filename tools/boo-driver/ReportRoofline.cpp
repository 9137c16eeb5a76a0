//===- ReportRoofline.cpp - The host's measured roofline ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// measureHostRoofline: the peak GFLOP/s of an FMA loop on every core at the
// widest vector width the CPU reports, and the bandwidth of a parallel
// memcpy, for the roofline bound of --emit-plot.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "llvm/Support/Threading.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <thread>

using namespace mlir::boo::harness;

namespace {

constexpr int kChains = 12;

/// `iterations` rounds of kChains independent multiply-adds on vectors of
/// W floats; returns a value that depends on every lane (so nothing is
/// optimized away). Clang contracts a * b + c to an FMA where the target
/// has one; always_inline puts the loop into the target-specific callers
/// below (an out-of-line instantiation would be compiled for the baseline
/// ISA).
template <int W>
__attribute__((always_inline)) inline float fmaRounds(int64_t iterations) {
  typedef float V __attribute__((ext_vector_type(W)));
  V acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = V(1.0f + c * 1e-3f);
  V scale = V(0.999999f), shift = V(1e-6f);
  // Opaque to the optimizer, which would otherwise fold the loop away.
  asm volatile("" : "+m"(scale), "+m"(shift), "+m"(acc));
  for (int64_t i = 0; i < iterations; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = acc[c] * scale + shift;
  float sum = 0;
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < W; ++l)
      sum += acc[c][l];
  return sum;
}

__attribute__((target("avx512f"))) float fmaAvx512(int64_t iterations) {
  return fmaRounds<16>(iterations);
}
__attribute__((target("avx2,fma"))) float fmaAvx2(int64_t iterations) {
  return fmaRounds<8>(iterations);
}
float fmaSse(int64_t iterations) { return fmaRounds<4>(iterations); }

} // namespace

Roofline mlir::boo::harness::measureHostRoofline() {
  Roofline roofline;
  int width = 4;
  float (*kernel)(int64_t) = fmaSse;
  bool fused = false;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    width = 16;
    kernel = fmaAvx512;
    fused = true;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    width = 8;
    kernel = fmaAvx2;
    fused = true;
  }
#endif
  unsigned threads = std::max(1u, llvm::get_physical_cores() > 0
                                      ? unsigned(llvm::get_physical_cores())
                                      : std::thread::hardware_concurrency());
  threads = std::max(threads, std::thread::hardware_concurrency());
  const int64_t iterations = 4'000'000;
  std::vector<std::thread> workers;
  // The sums are printed nowhere but must be computed: volatile stores.
  std::unique_ptr<volatile float[]> sinks(new volatile float[threads]);
  auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] { sinks[t] = kernel(iterations); });
  for (std::thread &w : workers)
    w.join();
  double seconds = secondsSince(start);
  double flops = double(threads) * iterations * kChains * width * 2.0;
  roofline.peakGflops = flops / seconds / 1e9;

  // Bandwidth: every thread copies its slice of 256 MiB, three times;
  // bytes read plus bytes written.
  const size_t bytes = size_t(256) << 20;
  std::vector<char> source(bytes, 1), target(bytes, 0);
  workers.clear();
  start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      size_t slice = bytes / threads, begin = t * slice;
      for (int r = 0; r < 3; ++r)
        std::memcpy(target.data() + begin, source.data() + begin, slice);
    });
  for (std::thread &w : workers)
    w.join();
  seconds = secondsSince(start);
  roofline.gbps = 2.0 * 3.0 * bytes / seconds / 1e9;
  roofline.description =
      "host, " + std::to_string(threads) + " threads, " +
      std::to_string(width * 32) + "-bit " + (fused ? "FMA" : "mul+add") +
      " peak " + formatNumber(roofline.peakGflops, "%.1f") +
      " GFLOP/s, memcpy " + formatNumber(roofline.gbps, "%.1f") + " GB/s";
  return roofline;
}
