//===- MemcpyBackend.h - memcpy as a bandwidth reference --------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-driver --reference-backend=memcpy`: the bandwidth a memory-bound
// kernel should reach. It copies half of the bytes a problem reads and
// writes from one host buffer to another (so it reads and writes the same
// bytes in all), split across the same number of threads as the device, and
// times each copy. Boo's time over this time is its bandwidth over
// memcpy's, with the same working set (in cache where Boo's is).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_HARNESS_MEMCPYBACKEND_H
#define BOO_HARNESS_MEMCPYBACKEND_H

#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::boo::harness {

/// Copies `bytes / 2` bytes (rounded up to whole cache lines) between two
/// buffers on `threads` threads (at least 1), each copying one contiguous
/// slice: one untimed copy, then `iterations` timed ones, whose
/// milliseconds are appended to `milliseconds`. Fails, with `error`, for a
/// non-positive byte count, iteration count or thread count.
LogicalResult runMemcpy(double bytes, int64_t iterations, int64_t threads,
                        std::vector<double> &milliseconds, std::string &error);

} // namespace mlir::boo::harness

#endif // BOO_HARNESS_MEMCPYBACKEND_H
