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

} // namespace

AllocationCache &AllocationCache::get() {
  static AllocationCache cache;
  return cache;
}

void *AllocationCache::allocate(uint64_t size) {
  if (size > UINT64_MAX - kPage - sizeof(Header))
    return nullptr;
  uint64_t rounded = size + sizeof(Header);
  if (rounded >= kMinCachedBytes) {
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
  if (header->size >= kMinCachedBytes) {
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
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &[size, blocks] : s.free)
    for (Header *header : blocks)
      std::free(header);
  s.free.clear();
  s.cached = 0;
}

size_t AllocationCache::cachedBytes() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.cached;
}

void *boo::runtime::cachedAlloc(uint64_t size) {
  return AllocationCache::get().allocate(size);
}

void boo::runtime::cachedFree(void *block) {
  AllocationCache::get().release(block);
}
