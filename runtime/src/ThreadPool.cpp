//===- ThreadPool.cpp - The CPU device's parallel-for dispatcher ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "ThreadPool.h"

#include <algorithm>
#include <chrono>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

using namespace boo::runtime;

namespace {
/// The pool of the CPU invocation running on this thread, if any.
thread_local ThreadPool *currentPool = nullptr;

/// How long a worker polls for the next job, and the caller for its last
/// chunks, before blocking. A compiled function runs its parallel loops
/// back to back (a fill, a pad, the contraction), and a benchmark or a
/// training step calls it again within microseconds: waking a blocked
/// thread costs tens of microseconds, as much as a small loop. OpenMP
/// runtimes poll likewise (GOMP_SPINCOUNT, KMP_BLOCKTIME).
constexpr auto kSpinTime = std::chrono::microseconds(200);

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

/// Polls `done` until it holds or kSpinTime has passed; returns its value.
template <typename Pred> bool spinUntil(Pred done) {
  auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (unsigned i = 0;; ++i) {
    if (done())
      return true;
    for (int k = 0; k < 16; ++k)
      cpuRelax();
    // Reading the clock costs more than a poll: do it every 64 polls.
    if (i % 64 == 63 && std::chrono::steady_clock::now() > deadline)
      return done();
  }
}
} // namespace

ThreadPool::ThreadPool(unsigned threadCount) {
  for (unsigned i = 1; i < threadCount; ++i)
    workers.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  wakeCondition.notify_all();
  for (std::thread &worker : workers)
    worker.join();
}

ThreadPool::Job::Job(ParallelBody body, void *ctx, int64_t count,
                     unsigned threads)
    : body(body), ctx(ctx), count(count),
      chunkCount(std::min<int64_t>(count, int64_t(threads) * 4)),
      chunksPerThread((chunkCount + threads - 1) / threads),
      next(new PaddedCounter[threads]), threads(threads) {
  for (unsigned t = 0; t < threads; ++t)
    next[t].value = std::min<int64_t>(t * chunksPerThread, chunkCount);
}

bool ThreadPool::Job::runChunks(unsigned self) {
  bool ranLast = false;
  // The thread's own chunks first, then what is left of the others'.
  for (unsigned k = 0; k < threads; ++k) {
    unsigned owner = (self + k) % threads;
    int64_t end = std::min<int64_t>((owner + 1) * chunksPerThread, chunkCount);
    for (;;) {
      int64_t chunk = next[owner].value.fetch_add(1, std::memory_order_relaxed);
      if (chunk >= end)
        break;
      // The first `count % chunkCount` chunks take one extra iteration.
      int64_t base = count / chunkCount, extra = count % chunkCount;
      int64_t begin = chunk * base + std::min(chunk, extra);
      body(ctx, begin, begin + base + (chunk < extra ? 1 : 0));
      if (doneChunks.fetch_add(1, std::memory_order_acq_rel) + 1 == chunkCount)
        ranLast = true;
    }
  }
  return ranLast;
}

void ThreadPool::workerLoop(unsigned self) {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    lock.unlock();
    spinUntil([&] {
      return stopping.load(std::memory_order_acquire) ||
             generation.load(std::memory_order_acquire) != seen;
    });
    lock.lock();
    wakeCondition.wait(lock, [&] { return stopping || generation != seen; });
    if (stopping)
      return;
    seen = generation;
    // Null when the caller finished the job before this worker woke.
    std::shared_ptr<Job> current = job;
    if (!current)
      continue;
    lock.unlock();
    if (current->runChunks(self)) {
      // The caller may be waiting for this last chunk.
      std::lock_guard<std::mutex> doneLock(mutex);
      doneCondition.notify_all();
    }
    current.reset();
    lock.lock();
  }
}

bool ThreadPool::tryParallelFor(ParallelBody body, void *ctx, int64_t n) {
  if (n <= 0)
    return true;
  bool expected = false;
  if (!busy.compare_exchange_strong(expected, true))
    return false;
  if (workers.empty() || n == 1) {
    body(ctx, 0, n);
    busy.store(false);
    return true;
  }
  auto current = std::make_shared<Job>(body, ctx, n, getThreadCount());
  {
    std::lock_guard<std::mutex> lock(mutex);
    job = current;
    ++generation;
  }
  wakeCondition.notify_all();
  current->runChunks(/*self=*/0);
  auto allDone = [&] {
    return current->doneChunks.load(std::memory_order_acquire) ==
           current->chunkCount;
  };
  if (!spinUntil(allDone)) {
    std::unique_lock<std::mutex> lock(mutex);
    doneCondition.wait(lock, allDone);
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    job.reset();
  }
  busy.store(false);
  return true;
}

ScopedCurrentPool::ScopedCurrentPool(ThreadPool *pool) : previous(currentPool) {
  currentPool = pool;
}

ScopedCurrentPool::~ScopedCurrentPool() { currentPool = previous; }

void boo::runtime::dispatchParallelFor(ParallelBody body, void *ctx,
                                       int64_t n) {
  if (n <= 0)
    return;
  ThreadPool *pool = currentPool;
  if (!pool || !pool->tryParallelFor(body, ctx, n))
    body(ctx, 0, n);
}
