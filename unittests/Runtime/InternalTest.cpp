//===- InternalTest.cpp - Runtime internals the C API does not expose -----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The HIP symbol table (every entry resolves when a HIP runtime loads), the
// CPU thread pool behind __boo_parallel_for and the allocation cache behind
// __boo_alloc/__boo_free.
//
//===----------------------------------------------------------------------===//

#include "AllocationCache.h"
#include "ThreadPool.h"
#ifdef BOO_RUNTIME_HAVE_HIP
#include "HIPSymbols.h"
#endif

#include "gtest/gtest.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace boo::runtime;

namespace {

#ifdef BOO_RUNTIME_HAVE_HIP
TEST(HIPSymbolsTest, EverySymbolResolves) {
  const HIPSymbols *symbols = nullptr;
  boo_status_t status = loadHIPSymbols(symbols);
  if (status) {
    std::string message = boo_status_message(status);
    boo_status_free(status);
    ASSERT_NE(message.find("no HIP runtime"), std::string::npos) << message;
    GTEST_SKIP() << "no HIP runtime library here: " << message;
  }
  ASSERT_NE(symbols, nullptr);
  EXPECT_FALSE(symbols->libraryName.empty());
  size_t resolved = 0;
#define BOO_HIP_CHECK_SYMBOL(name, type)                                       \
  EXPECT_NE(symbols->name, nullptr) << #name;                                  \
  resolved += symbols->name != nullptr;
  BOO_HIP_SYMBOLS(BOO_HIP_CHECK_SYMBOL)
#undef BOO_HIP_CHECK_SYMBOL
  EXPECT_EQ(resolved, kHIPSymbolCount);
  EXPECT_EQ(kHIPSymbolCount, 21u);
  EXPECT_STREQ(kHIPSymbolNames[0], "hipInit");

  // A second load returns the same table.
  const HIPSymbols *again = nullptr;
  ASSERT_EQ(loadHIPSymbols(again), nullptr);
  EXPECT_EQ(again, symbols);
  EXPECT_NE(symbols->describeError(hipErrorNoDevice).find("hipErrorNoDevice"),
            std::string::npos);
}
#endif

/// Records which iterations ran and how often.
struct Coverage {
  explicit Coverage(int64_t n) : hits(n) {}
  std::vector<std::atomic<int>> hits;
  std::atomic<int> calls{0};
  std::mutex mutex;
  std::set<std::thread::id> threads;

  static void body(void *ctx, int64_t begin, int64_t end) {
    auto *self = static_cast<Coverage *>(ctx);
    ++self->calls;
    for (int64_t i = begin; i < end; ++i)
      ++self->hits[i];
    std::lock_guard<std::mutex> lock(self->mutex);
    self->threads.insert(std::this_thread::get_id());
  }
};

TEST(ThreadPoolTest, CoversEveryIterationOnce) {
  for (unsigned threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.getThreadCount(), threads);
    for (int64_t n : {1, 2, 3, 7, 16, 17, 1000}) {
      Coverage coverage(n);
      ASSERT_TRUE(pool.tryParallelFor(&Coverage::body, &coverage, n));
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(coverage.hits[i], 1)
            << "threads " << threads << " n " << n << " i " << i;
      if (threads > 1)
        EXPECT_EQ(coverage.calls, std::min<int64_t>(n, 4 * threads));
      else
        EXPECT_EQ(coverage.calls, 1);
    }
  }
}

TEST(ThreadPoolTest, EmptyRangesRunNothing) {
  ThreadPool pool(2);
  Coverage coverage(0);
  EXPECT_TRUE(pool.tryParallelFor(&Coverage::body, &coverage, 0));
  EXPECT_TRUE(pool.tryParallelFor(&Coverage::body, &coverage, -5));
  dispatchParallelFor(&Coverage::body, &coverage, 0);
  EXPECT_EQ(coverage.calls, 0);
}

TEST(ThreadPoolTest, DispatcherWithoutCurrentPoolRunsInline) {
  Coverage coverage(100);
  dispatchParallelFor(&Coverage::body, &coverage, 100);
  EXPECT_EQ(coverage.calls, 1);
  EXPECT_EQ(coverage.threads.count(std::this_thread::get_id()), 1u);
}

TEST(ThreadPoolTest, DispatcherUsesTheCurrentPool) {
  ThreadPool pool(3);
  Coverage coverage(1200);
  {
    ScopedCurrentPool scope(&pool);
    dispatchParallelFor(&Coverage::body, &coverage, 1200);
  }
  EXPECT_EQ(coverage.calls, 12);
  // Outside the scope, inline again.
  Coverage inlined(10);
  dispatchParallelFor(&Coverage::body, &inlined, 10);
  EXPECT_EQ(inlined.calls, 1);
}

/// A body that dispatches again from inside a chunk.
struct Nested {
  std::atomic<int> innerCalls{0}, outerCalls{0};
  static void inner(void *ctx, int64_t, int64_t) {
    ++static_cast<Nested *>(ctx)->innerCalls;
  }
  static void outer(void *ctx, int64_t, int64_t) {
    auto *self = static_cast<Nested *>(ctx);
    ++self->outerCalls;
    dispatchParallelFor(&Nested::inner, ctx, 50);
  }
};

TEST(ThreadPoolTest, NestedDispatchRunsInline) {
  ThreadPool pool(4);
  Nested nested;
  {
    ScopedCurrentPool scope(&pool);
    dispatchParallelFor(&Nested::outer, &nested, 64);
  }
  // Each outer chunk ran its inner loop as one inline call.
  EXPECT_EQ(nested.outerCalls, 16);
  EXPECT_EQ(nested.innerCalls, 16);
}

TEST(ThreadPoolTest, BusyPoolIsRefused) {
  ThreadPool pool(2);
  std::atomic<bool> entered{false}, release{false};
  struct Blocker {
    std::atomic<bool> *entered, *release;
    static void body(void *ctx, int64_t, int64_t) {
      auto *self = static_cast<Blocker *>(ctx);
      *self->entered = true;
      while (!*self->release)
        std::this_thread::yield();
    }
  } blocker{&entered, &release};
  std::thread user([&] { pool.tryParallelFor(&Blocker::body, &blocker, 1); });
  while (!entered)
    std::this_thread::yield();
  Coverage coverage(10);
  EXPECT_FALSE(pool.tryParallelFor(&Coverage::body, &coverage, 10));
  {
    ScopedCurrentPool scope(&pool);
    dispatchParallelFor(&Coverage::body, &coverage, 10);
  }
  EXPECT_EQ(coverage.calls, 1);
  release = true;
  user.join();
}

TEST(AllocationCacheTest, ReusesLargeBlocksOfTheSameSize) {
  AllocationCache &cache = AllocationCache::get();
  cache.trim();
  const uint64_t size = 1 << 20;
  auto *first = static_cast<char *>(cache.allocate(size));
  ASSERT_NE(first, nullptr);
  memset(first, 1, size); // the whole block is usable
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % alignof(std::max_align_t), 0u);
  cache.release(first);
  EXPECT_GE(cache.cachedBytes(), size);
  // The same size, and a size rounding to the same pages, get it back.
  void *second = cache.allocate(size - 8);
  EXPECT_EQ(second, first);
  EXPECT_EQ(cache.cachedBytes(), 0u);
  // A different size does not.
  void *third = cache.allocate(2 * size);
  EXPECT_NE(third, first);
  cache.release(second);
  cache.release(third);
  cache.trim();
  EXPECT_EQ(cache.cachedBytes(), 0u);
}

TEST(AllocationCacheTest, KeepsSmallBlocksPerThread) {
  AllocationCache &cache = AllocationCache::get();
  cache.trim();
  auto *small = static_cast<char *>(cache.allocate(100));
  ASSERT_NE(small, nullptr);
  memset(small, 1, 100);
  cache.release(small);
  EXPECT_GE(cache.cachedBytes(), 100u);
  // This thread gets it back, for a size rounding to the same lines.
  void *again = cache.allocate(90);
  EXPECT_EQ(again, small);
  EXPECT_EQ(cache.cachedBytes(), 0u);
  cache.release(again);
  // Another thread does not.
  void *other = nullptr;
  std::thread([&] {
    other = cache.allocate(100);
    cache.release(other);
  }).join();
  EXPECT_NE(other, small);
  cache.trim();
  EXPECT_EQ(cache.cachedBytes(), 0u);
  cache.release(nullptr); // ignored
  EXPECT_EQ(cache.allocate(UINT64_MAX), nullptr);
}

TEST(AllocationCacheTest, IsThreadSafe) {
  AllocationCache &cache = AllocationCache::get();
  cache.trim();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 200; ++i) {
        uint64_t size = (64 + 64 * ((i + t) % 3)) * 1024;
        auto *block = static_cast<unsigned char *>(cache.allocate(size));
        ASSERT_NE(block, nullptr);
        block[0] = block[size - 1] = static_cast<unsigned char>(t);
        cache.release(block);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_LE(cache.cachedBytes(), AllocationCache::kMaxCachedBytes);
  cache.trim();
}

} // namespace
