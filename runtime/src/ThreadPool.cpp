//===- ThreadPool.cpp - The CPU device's parallel-for dispatcher ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "ThreadPool.h"

#include <algorithm>

using namespace boo::runtime;

namespace {
/// The pool of the CPU invocation running on this thread, if any.
thread_local ThreadPool *currentPool = nullptr;
} // namespace

ThreadPool::ThreadPool(unsigned threadCount) {
  for (unsigned i = 1; i < threadCount; ++i)
    workers.emplace_back([this] { workerLoop(); });
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

bool ThreadPool::Job::runChunks() {
  bool ranLast = false;
  for (;;) {
    int64_t chunk = nextChunk.fetch_add(1, std::memory_order_relaxed);
    if (chunk >= chunkCount)
      return ranLast;
    // The first `count % chunkCount` chunks take one extra iteration.
    int64_t base = count / chunkCount, extra = count % chunkCount;
    int64_t begin = chunk * base + std::min(chunk, extra);
    body(ctx, begin, begin + base + (chunk < extra ? 1 : 0));
    if (doneChunks.fetch_add(1, std::memory_order_acq_rel) + 1 == chunkCount)
      ranLast = true;
  }
}

void ThreadPool::workerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    wakeCondition.wait(lock, [&] { return stopping || generation != seen; });
    if (stopping)
      return;
    seen = generation;
    // Null when the caller finished the job before this worker woke.
    std::shared_ptr<Job> current = job;
    if (!current)
      continue;
    lock.unlock();
    if (current->runChunks()) {
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
  auto current = std::make_shared<Job>();
  current->body = body;
  current->ctx = ctx;
  current->count = n;
  current->chunkCount = std::min<int64_t>(n, int64_t(getThreadCount()) * 4);
  {
    std::lock_guard<std::mutex> lock(mutex);
    job = current;
    ++generation;
  }
  wakeCondition.notify_all();
  current->runChunks();
  if (current->doneChunks.load(std::memory_order_acquire) !=
      current->chunkCount) {
    std::unique_lock<std::mutex> lock(mutex);
    doneCondition.wait(lock, [&] {
      return current->doneChunks.load(std::memory_order_acquire) ==
             current->chunkCount;
    });
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
