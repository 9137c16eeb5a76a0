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

struct State {
  std::mutex mutex;
  std::unordered_map<uint64_t, std::vector<Header *>> free;
  size_t cached = 0;
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
  std::unordered_map<uint64_t, std::vector<Header *>> free;
  size_t cached = 0;
  void trim() {
    for (auto &[size, blocks] : free)
      for (Header *header : blocks)
        std::free(header);
    free.clear();
    cached = 0;
  }
  ~SmallCache();
};
thread_local bool smallCacheGone = false;
SmallCache::~SmallCache() {
  trim();
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
  if (rounded < kMinCachedBytes) {
    rounded = (rounded + kLine - 1) / kLine * kLine;
    if (SmallCache *c = smallCache()) {
      auto it = c->free.find(rounded);
      if (it != c->free.end() && !it->second.empty()) {
        Header *header = it->second.back();
        it->second.pop_back();
        c->cached -= rounded;
        return header + 1;
      }
    }
  } else {
    rounded = (rounded + kPage - 1) / kPage * kPage;
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.free.find(rounded);
    if (it != s.free.end() && !it->second.empty()) {
      Header *header = it->second.back();
      it->second.pop_back();
      s.cached -= rounded;
      return header + 1;
    }
  }
  auto *header = static_cast<Header *>(std::malloc(rounded));
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
    if (c && c->cached + header->size <= kMaxSmallCachedBytes) {
      c->free[header->size].push_back(header);
      c->cached += header->size;
      return;
    }
  } else {
    State &s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.cached + header->size <= kMaxCachedBytes) {
      s.free[header->size].push_back(header);
      s.cached += header->size;
      return;
    }
  }
  std::free(header);
}

void AllocationCache::trim() {
  if (SmallCache *c = smallCache())
    c->trim();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &[size, blocks] : s.free)
    for (Header *header : blocks)
      std::free(header);
  s.free.clear();
  s.cached = 0;
}

size_t AllocationCache::cachedBytes() {
  SmallCache *c = smallCache();
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.cached + (c ? c->cached : 0);
}

void *boo::runtime::cachedAlloc(uint64_t size) {
  return AllocationCache::get().allocate(size);
}

void boo::runtime::cachedFree(void *block) {
  AllocationCache::get().release(block);
}
