//===- AllocationCache.h - CPU code objects' temporaries ---------*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// CPU code objects allocate their temporaries (padded and transposed
// copies, f32 accumulators) on every call, through the `__boo_alloc` and
// `__boo_free` hooks of their ABI (docs/ModuleFormat.md). With malloc, a
// large block comes from fresh pages on every call, and the page faults of
// its first touch can cost more than the convolution itself. The cpu device
// points the hooks at this cache instead: freed blocks are kept, by size,
// for the next allocation of the same size. Small blocks (a tile's
// partial sums, allocated and freed in every iteration of a parallel loop)
// are kept per thread, without a lock: from malloc, their heap pages were
// returned to the system and faulted in again on many calls.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_ALLOCATIONCACHE_H
#define BOO_RUNTIME_SRC_ALLOCATIONCACHE_H

#include <cstddef>
#include <cstdint>

namespace boo {
namespace runtime {

/// The process's cache (thread-safe). Blocks of at least `kMinCachedBytes`
/// are kept after `release`, up to `kMaxCachedBytes` in all; smaller ones
/// are kept by the releasing thread, up to `kMaxSmallCachedBytes` per
/// thread; the excess goes back to malloc.
class AllocationCache {
public:
  static constexpr size_t kMinCachedBytes = 64 * 1024;
  static constexpr size_t kMaxCachedBytes = size_t(1) << 30;
  static constexpr size_t kMaxSmallCachedBytes = size_t(4) << 20;

  static AllocationCache &get();

  /// A block of at least `size` bytes, aligned as malloc aligns, or null.
  void *allocate(uint64_t size);
  /// Takes back a block `allocate` returned (null is ignored).
  void release(void *block);
  /// Frees every kept block (of other threads, the large ones only).
  void trim();
  /// Bytes kept for reuse (of other threads, the large ones only).
  size_t cachedBytes();
};

/// The hook functions of the ABI, over AllocationCache::get().
void *cachedAlloc(uint64_t size);
void cachedFree(void *block);

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_ALLOCATIONCACHE_H
