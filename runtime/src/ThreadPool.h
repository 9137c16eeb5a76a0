//===- ThreadPool.h - The CPU device's parallel-for dispatcher --*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// CPU code objects call `__boo_parallel_for(body, ctx, n)` for their parallel
// loops (docs/ModuleFormat.md). The runtime points that global at
// dispatchParallelFor, which finds the device's pool through a thread-local
// set around each invocation. Without a current pool (a worker thread
// calling it, i.e. nested parallelism, or a thread the runtime did not
// start) or when the pool is already busy, the loop runs inline, so the
// dispatcher can never deadlock or run two loops on one pool. The emulator
// device runs a launch's workgroups through tryParallelFor too.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_THREADPOOL_H
#define BOO_RUNTIME_SRC_THREADPOOL_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace boo {
namespace runtime {

using ParallelBody = void (*)(void *ctx, int64_t begin, int64_t end);

/// `threadCount - 1` workers; the calling thread is the last one.
class ThreadPool {
public:
  explicit ThreadPool(unsigned threadCount);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  unsigned getThreadCount() const { return workers.size() + 1; }

  /// Runs `body` over [0, n) in min(n, 4 * threads) contiguous chunks of
  /// balanced sizes and returns when all are done. Returns
  /// false, running nothing, when the pool is serving another call.
  bool tryParallelFor(ParallelBody body, void *ctx, int64_t n);

private:
  /// One parallel loop, in min(n, 4 * threads) chunks. Thread t (the
  /// caller is 0) owns the t-th run of consecutive chunks and runs those
  /// first, so that successive loops over the same data (a pad, then the
  /// convolution reading it; one call, then the next) find it in the same
  /// core's cache; then it takes what is left of the others' chunks, so a
  /// late thread delays nothing. Workers that wake late (after the caller
  /// has run every chunk and returned) still hold the job, find no chunk
  /// left and drop it; the caller never waits for a worker to wake up.
  struct Job {
    Job(ParallelBody body, void *ctx, int64_t count, unsigned threads);
    ParallelBody body;
    void *ctx;
    int64_t count, chunkCount, chunksPerThread;
    /// Per owner, its next chunk; one cache line each.
    struct alignas(64) PaddedCounter {
      std::atomic<int64_t> value{0};
    };
    std::unique_ptr<PaddedCounter[]> next;
    unsigned threads;
    std::atomic<int64_t> doneChunks{0};
    /// Runs chunks until none is left; true if it ran the last one.
    bool runChunks(unsigned self);
  };

  void workerLoop(unsigned self);

  std::vector<std::thread> workers;
  /// Set while a tryParallelFor is in progress.
  std::atomic<bool> busy{false};

  std::mutex mutex;
  std::condition_variable wakeCondition, doneCondition;
  /// Bumped for each job, under `mutex`; workers poll it without.
  std::atomic<uint64_t> generation{0};
  std::atomic<bool> stopping{false};
  /// The current job; guarded by `mutex`.
  std::shared_ptr<Job> job;
};

/// Makes `pool` the calling thread's current pool for the scope.
class ScopedCurrentPool {
public:
  explicit ScopedCurrentPool(ThreadPool *pool);
  ~ScopedCurrentPool();

private:
  ThreadPool *previous;
};

/// The function CPU code objects call through `__boo_parallel_for`.
void dispatchParallelFor(ParallelBody body, void *ctx, int64_t n);

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_THREADPOOL_H
