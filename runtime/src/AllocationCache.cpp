//===- AllocationCache.cpp - CPU code objects' temporaries ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "AllocationCache.h"

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

using namespace boo::runtime;

namespace {

/// Every block starts with a header that records its (rounded) size; the
/// caller gets the bytes after it, which keep malloc's alignment.
struct alignas(alignof(std::max_align_t)) Header {
  uint64_t size;
};

/// Sizes are rounded up to whole pages so that nearby sizes share blocks.
constexpr uint64_t kPage = 4096;

/// Kept blocks by rounded size, up to a number of bytes in all.
struct FreeLists {
  std::unordered_map<uint64_t, std::vector<Header *>> free;
  size_t cached = 0;
  /// A kept block of `rounded` bytes, or null.
  Header *take(uint64_t rounded) {
    auto it = free.find(rounded);
    if (it == free.end() || it->second.empty())
      return nullptr;
    Header *header = it->second.back();
    it->second.pop_back();
    cached -= rounded;
    return header;
  }
  /// Keeps `header` unless that would exceed `limit` bytes.
  bool keep(Header *header, size_t limit) {
    if (cached + header->size > limit)
      return false;
    free[header->size].push_back(header);
    cached += header->size;
    return true;
  }
  void freeAll() {
    for (auto &[size, blocks] : free)
      for (Header *header : blocks)
        std::free(header);
    free.clear();
    cached = 0;
  }
};

struct State {
  std::mutex mutex;
  FreeLists lists;
};

State &state() {
  static State *s = new State; // never destroyed: code may free at exit
  return *s;
}

/// Small sizes are rounded up to whole cache lines.
constexpr uint64_t kLine = 64;

/// The calling thread's small blocks (no lock: a tile's temporaries are
/// allocated and freed by the thread that runs it). Destroyed with the
/// thread, after which its blocks go back to malloc.
struct SmallCache {
  FreeLists lists;
  ~SmallCache();
};
thread_local bool smallCacheGone = false;
SmallCache::~SmallCache() {
  lists.freeAll();
  smallCacheGone = true;
}
SmallCache *smallCache() {
  thread_local SmallCache cache;
  return smallCacheGone ? nullptr : &cache;
}

} // namespace

AllocationCache &AllocationCache::get() {
  static AllocationCache cache;
  return cache;
}

void *AllocationCache::allocate(uint64_t size) {
  if (size > UINT64_MAX - kPage - sizeof(Header))
    return nullptr;
  uint64_t rounded = size + sizeof(Header);
  Header *header = nullptr;
  if (rounded < kMinCachedBytes) {
    rounded = (rounded + kLine - 1) / kLine * kLine;
    if (SmallCache *c = smallCache())
      header = c->lists.take(rounded);
  } else {
    rounded = (rounded + kPage - 1) / kPage * kPage;
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    header = s.lists.take(rounded);
  }
  if (header)
    return header + 1;
  header = static_cast<Header *>(std::malloc(rounded));
  if (!header)
    return nullptr;
  header->size = rounded;
  return header + 1;
}

void AllocationCache::release(void *block) {
  if (!block)
    return;
  Header *header = static_cast<Header *>(block) - 1;
  if (header->size < kMinCachedBytes) {
    SmallCache *c = smallCache();
    if (c && c->lists.keep(header, kMaxSmallCachedBytes))
      return;
  } else {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.lists.keep(header, kMaxCachedBytes))
      return;
  }
  std::free(header);
}

void AllocationCache::trim() {
  if (SmallCache *c = smallCache())
    c->lists.freeAll();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.lists.freeAll();
}

size_t AllocationCache::cachedBytes() {
  SmallCache *c = smallCache();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.lists.cached + (c ? c->lists.cached : 0);
}

void *boo::runtime::cachedAlloc(uint64_t size) {
  return AllocationCache::get().allocate(size);
}

void boo::runtime::cachedFree(void *block) {
  AllocationCache::get().release(block);
}
