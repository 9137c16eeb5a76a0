//===- EmuWorkgroup.cpp - Run one emulated workgroup ----------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Scheduling. Fibers switch directly to one another: a work-item that
// waits runs the scheduler on its own stack, picks the next runnable
// work-item from a FIFO and switches to it, so one wait costs one switch.
// The work-item whose arrival completes a barrier or a wave operation makes
// the others runnable and goes on itself, without a switch. Only the end of
// the workgroup (or a fatal error) switches back to the thread's own stack.
// Nothing here allocates or locks per switch, barrier or access.
//
//===----------------------------------------------------------------------===//

#include "EmuWorkgroup.h"

#include "EmuFiber.h"
#include "EmuMma.h"
#include "EmuRaceDetector.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace boo::emu;

namespace {

enum class ItemState : uint8_t { Runnable, AtBarrier, AtWaveOp, Returned };
enum class WaveOpKind : uint8_t { Shuffle, Mma };

struct ShuffleArgs {
  int32_t mode, value, offset, width;
  int64_t result; // written when the shuffle completes
};

class Runner;

/// One work-item: the kernel's context and the scheduler's state.
struct WorkItem {
  Context ctx;
  FiberContext fiber;
  Runner *runner;
  uint32_t linear, wave, lane;
  ItemState state;
  int32_t barrierId;
  /// The wave operation it waits at (state AtWaveOp).
  WaveOpKind opKind;
  ShuffleArgs shuffle;
  MmaOp mma;
  MmaLane mmaLane;
};

struct Wave {
  uint32_t first, size; // work-items [first, first + size)
  uint32_t live;        // lanes that have not returned
  uint32_t arrived;     // lanes waiting at a wave operation
};

const char *getShuffleModeName(int32_t mode) {
  switch (mode) {
  case kShuffleXor:
    return "xor";
  case kShuffleDown:
    return "down";
  case kShuffleUp:
    return "up";
  case kShuffleIdx:
    return "idx";
  }
  return "unknown-mode";
}

std::string describeTriple(const int64_t values[3]) {
  return "(" + std::to_string(values[0]) + "," + std::to_string(values[1]) +
         "," + std::to_string(values[2]) + ")";
}

std::string describeRange(uint32_t first, uint32_t last) {
  return first == last ? std::to_string(first)
                       : std::to_string(first) + "-" + std::to_string(last);
}

/// Runs the workgroups of one thread, one at a time.
class Runner {
public:
  void run(const LaunchInfo &launch, const uint32_t blockId[3],
           ErrorLog &errors, ProfileCounters *profile);

  // The kernel's callbacks.
  void barrier(WorkItem &self, int32_t barrierId);
  void waitAtWaveOp(WorkItem &self);
  void finish(WorkItem &self);
  void reportOutOfBounds(WorkItem &self, bool isStore, int32_t buffer,
                         int64_t element, int64_t elements, int32_t dim,
                         int64_t dimIndex, int64_t dimSize);
  void recordLdsAccess(WorkItem &self, bool isStore, int64_t byteOffset,
                       int64_t bytes);
  /// Profiles an in-bounds access (`buffer` -1 for the LDS), then lets the
  /// other work-items catch up, so that the lanes of a wave instruction
  /// report close together.
  void profileAccess(WorkItem &self, int32_t site, bool isStore, int32_t buffer,
                     int64_t byteOffset, int64_t bytes);
  bool isProfiling() const { return profiling; }

  const LaunchInfo &getLaunch() const { return *launch; }

private:
  bool prepare(uint32_t count);
  void push(uint32_t item) {
    uint32_t tail = queueHead + queueSize;
    if (tail >= itemCount)
      tail -= itemCount;
    queue[tail] = item;
    ++queueSize;
  }
  uint32_t pop() {
    uint32_t item = queue[queueHead];
    if (++queueHead == itemCount)
      queueHead = 0;
    --queueSize;
    return item;
  }

  /// Leaves `self` (waiting or returned) for the next runnable work-item,
  /// or for the thread's stack when none is left. Returns when `self` is
  /// resumed.
  void switchAway(WorkItem &self);
  /// Lanes of `wave` waiting at a barrier; the first lane at a wave op.
  uint32_t waitingAtBarrier(const Wave &wave) const;
  uint32_t firstAtWaveOp(const Wave &wave) const;
  /// Records a fatal error and abandons the workgroup: never returns.
  [[noreturn]] void fail(std::string message);

  void completeBarrier(WorkItem *continuing);
  void completeWaveOp(Wave &wave, WorkItem *continuing);
  void runShuffle(const Wave &wave);
  void runMmaOp(const Wave &wave);

  std::string getWorkgroupWhere() const;
  std::string getItemWhere(const WorkItem &item) const;
  std::string getWaveWhere(const Wave &wave) const;
  std::string describeItem(uint32_t linear) const;
  std::string describeWait(const WorkItem &item) const;
  /// "work-items 0-63 wait at barrier 1; 64-127 returned" over [first,
  /// first + count).
  std::string describeStates(uint32_t first, uint32_t count) const;

  const LaunchInfo *launch = nullptr;
  ErrorLog *errors = nullptr;
  int64_t blockId[3] = {0, 0, 0};
  int32_t waveSize = 64;

  std::vector<WorkItem> items;
  std::vector<FiberStack> stacks;
  std::vector<Wave> waves;
  std::vector<uint32_t> queue;
  uint32_t itemCount = 0, queueHead = 0, queueSize = 0;
  uint32_t live = 0, barrierArrived = 0, barriersCompleted = 0;
  WorkItem *current = nullptr;
  FiberContext threadContext;

  std::unique_ptr<char, decltype(&free)> lds{nullptr, &free};
  uint32_t ldsCapacity = 0;
  RaceDetector races;
  bool profiling = false;
  WorkgroupProfiler profiler;
};

//===----------------------------------------------------------------------===//
// Callbacks
//===----------------------------------------------------------------------===//

WorkItem &getItem(Context *ctx) { return *static_cast<WorkItem *>(ctx->state); }

void barrierCallback(Context *ctx, int32_t barrierId) {
  WorkItem &item = getItem(ctx);
  item.runner->barrier(item, barrierId);
}

void reportOutOfBoundsCallback(Context *ctx, int32_t isStore, int32_t buffer,
                               int64_t element, int64_t elements, int32_t dim,
                               int64_t dimIndex, int64_t dimSize) {
  WorkItem &item = getItem(ctx);
  item.runner->reportOutOfBounds(item, isStore != 0, buffer, element, elements,
                                 dim, dimIndex, dimSize);
}

void ldsAccessCallback(Context *ctx, int32_t site, int32_t isStore,
                       int64_t byteOffset, int64_t bytes) {
  WorkItem &item = getItem(ctx);
  item.runner->recordLdsAccess(item, isStore != 0, byteOffset, bytes);
  if (item.runner->isProfiling())
    item.runner->profileAccess(item, site, isStore != 0, -1, byteOffset, bytes);
}

/// Set only while profiling.
void globalAccessCallback(Context *ctx, int32_t site, int32_t isStore,
                          int32_t buffer, int64_t byteOffset, int64_t bytes) {
  WorkItem &item = getItem(ctx);
  item.runner->profileAccess(item, site, isStore != 0, buffer, byteOffset,
                             bytes);
}

int64_t shuffleCallback(Context *ctx, int32_t mode, int32_t value,
                        int32_t offset, int32_t width) {
  WorkItem &item = getItem(ctx);
  item.opKind = WaveOpKind::Shuffle;
  item.shuffle = {mode, value, offset, width, 0};
  item.runner->waitAtWaveOp(item);
  return item.shuffle.result;
}

void mmaCallback(Context *ctx, int32_t family, int32_t m, int32_t n, int32_t k,
                 int32_t inputType, int32_t aItems, int32_t cItems,
                 const uint16_t *a, const uint16_t *b, const float *c,
                 float *d) {
  WorkItem &item = getItem(ctx);
  item.opKind = WaveOpKind::Mma;
  item.mma = {family, m, n, k, inputType, aItems, cItems};
  item.mmaLane = {a, b, c, d};
  item.runner->waitAtWaveOp(item);
}

/// Where every fiber starts.
void runWorkItem(void *arg) {
  WorkItem &item = *static_cast<WorkItem *>(arg);
  const LaunchInfo &launch = item.runner->getLaunch();
  launch.kernel(&item.ctx, launch.args);
  item.runner->finish(item);
  abort(); // finish never returns to a fiber that has returned.
}

//===----------------------------------------------------------------------===//
// Running a workgroup
//===----------------------------------------------------------------------===//

bool Runner::prepare(uint32_t count) {
  if (items.size() < count)
    items.resize(count);
  while (stacks.size() < count) {
    FiberStack stack;
    if (!stack.allocate())
      return false;
    stacks.push_back(std::move(stack));
  }
  if (queue.size() < count)
    queue.resize(count);
  if (ldsCapacity < launch->ldsBytes || !lds) {
    void *memory = nullptr;
    uint32_t bytes = launch->ldsBytes < 64 ? 64 : launch->ldsBytes;
    if (posix_memalign(&memory, 64, bytes) != 0)
      return false;
    lds.reset(static_cast<char *>(memory));
    ldsCapacity = bytes;
  }
  return true;
}

void Runner::run(const LaunchInfo &launchInfo, const uint32_t block[3],
                 ErrorLog &errorLog, ProfileCounters *profile) {
  launch = &launchInfo;
  errors = &errorLog;
  profiling = profile != nullptr;
  for (int i = 0; i < 3; ++i)
    blockId[i] = block[i];
  waveSize = launch->chip->waveSize;
  const uint32_t *size = launch->workgroup;
  uint32_t count = size[0] * size[1] * size[2];
  if (!prepare(count)) {
    errors->add(getWorkgroupWhere() + ": cannot allocate " +
                std::to_string(count) + " fiber stacks and " +
                std::to_string(launch->ldsBytes) + " bytes of LDS");
    return;
  }
  itemCount = count;

  // Uninitialized LDS reads as NaN (every byte 0xFF), as stale LDS might
  // on hardware, rather than as a convenient zero.
  memset(lds.get(), 0xFF, launch->ldsBytes);
  races.beginWorkgroup(launch->ldsBytes);
  if (profiling)
    profiler.begin(count);

  waves.clear();
  for (uint32_t first = 0; first < count; first += uint32_t(waveSize)) {
    uint32_t lanes = std::min(count - first, uint32_t(waveSize));
    waves.push_back({first, lanes, lanes, 0});
  }

  for (uint32_t i = 0; i < count; ++i) {
    WorkItem &item = items[i];
    Context &ctx = item.ctx;
    ctx.threadId[0] = i % size[0];
    ctx.threadId[1] = i / size[0] % size[1];
    ctx.threadId[2] = i / (size[0] * size[1]);
    for (int d = 0; d < 3; ++d) {
      ctx.blockId[d] = blockId[d];
      ctx.blockDim[d] = size[d];
      ctx.gridDim[d] = launch->grid[d];
    }
    ctx.lds = lds.get();
    ctx.state = &item;
    ctx.barrier = &barrierCallback;
    ctx.reportOutOfBounds = &reportOutOfBoundsCallback;
    ctx.ldsAccess = &ldsAccessCallback;
    ctx.shuffle = &shuffleCallback;
    ctx.mma = &mmaCallback;
    ctx.globalAccess = profiling ? &globalAccessCallback : nullptr;
    item.runner = this;
    item.linear = i;
    item.wave = i / uint32_t(waveSize);
    item.lane = i % uint32_t(waveSize);
    item.state = ItemState::Runnable;
    item.barrierId = -1;
    initFiber(item.fiber, stacks[i], &runWorkItem, &item);
  }

  queueHead = queueSize = 0;
  for (uint32_t i = 0; i < count; ++i)
    push(i);
  live = count;
  barrierArrived = barriersCompleted = 0;
  current = &items[pop()];
  // Returns when the last work-item returns or a fatal error ends the
  // workgroup.
  switchFiber(threadContext, current->fiber);
  current = nullptr;
  if (profiling) {
    profiler.flush();
    ProfileCounters counters = profiler.getCounters();
    counters.waves = waves.size();
    addCounters(*profile, counters);
  }
}

uint32_t Runner::waitingAtBarrier(const Wave &wave) const {
  uint32_t count = 0;
  for (uint32_t i = wave.first; i < wave.first + wave.size; ++i)
    count += items[i].state == ItemState::AtBarrier;
  return count;
}

uint32_t Runner::firstAtWaveOp(const Wave &wave) const {
  for (uint32_t i = wave.first; i < wave.first + wave.size; ++i)
    if (items[i].state == ItemState::AtWaveOp)
      return i;
  return wave.first;
}

void Runner::switchAway(WorkItem &self) {
  if (queueSize == 0) {
    if (live == 0) {
      switchFiber(self.fiber, threadContext);
      abort(); // The workgroup is over: never resumed.
    }
    // Divergence, as SIMT hardware runs it: lanes of a wave that took
    // another path and wait at the workgroup barrier are inactive for a
    // shuffle that the wave's other lanes execute first (upstream's
    // all-reduce shuffles the subgroup partials in a branch only the first
    // lanes take). Such a shuffle runs with the lanes that reached it.
    for (Wave &wave : waves) {
      if (wave.arrived == 0 ||
          wave.arrived + waitingAtBarrier(wave) != wave.live)
        continue;
      const WorkItem &lane = items[firstAtWaveOp(wave)];
      if (lane.opKind != WaveOpKind::Shuffle)
        continue;
      completeWaveOp(wave, nullptr);
      break;
    }
    if (queueSize == 0)
      fail(getWorkgroupWhere() + ": deadlock: no work-item can continue: " +
           describeStates(0, itemCount));
  }
  WorkItem &next = items[pop()];
  current = &next;
  switchFiber(self.fiber, next.fiber);
}

void Runner::fail(std::string message) {
  errors->add(std::move(message));
  // The fibers are abandoned where they wait; the next workgroup
  // reinitializes their stacks.
  FiberContext abandoned;
  switchFiber(current ? current->fiber : abandoned, threadContext);
  abort(); // Never resumed.
}

void Runner::finish(WorkItem &self) {
  self.state = ItemState::Returned;
  --live;
  Wave &wave = waves[self.wave];
  --wave.live;
  // What waited only for this work-item can complete now.
  if (wave.arrived > 0 && wave.arrived == wave.live)
    completeWaveOp(wave, nullptr);
  if (barrierArrived > 0 && barrierArrived == live)
    completeBarrier(nullptr);
  switchAway(self);
  abort(); // A returned work-item is never resumed.
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

void Runner::barrier(WorkItem &self, int32_t barrierId) {
  self.state = ItemState::AtBarrier;
  self.barrierId = barrierId;
  if (++barrierArrived == live)
    completeBarrier(&self);
  else
    switchAway(self);
}

void Runner::completeBarrier(WorkItem *continuing) {
  // Every work-item that has not returned waits at a barrier: the same one,
  // or the workgroup has diverged.
  int32_t barrierId = -1;
  for (uint32_t i = 0; i < itemCount; ++i) {
    const WorkItem &item = items[i];
    if (item.state != ItemState::AtBarrier)
      continue;
    if (barrierId < 0)
      barrierId = item.barrierId;
    else if (item.barrierId != barrierId)
      fail(getWorkgroupWhere() +
           ": barrier divergence: the work-items wait at different "
           "barriers: " +
           describeStates(0, itemCount));
  }
  for (uint32_t i = 0; i < itemCount; ++i) {
    WorkItem &item = items[i];
    if (item.state != ItemState::AtBarrier)
      continue;
    item.state = ItemState::Runnable;
    if (&item != continuing)
      push(i);
  }
  barrierArrived = 0;
  ++barriersCompleted;
  races.beginEpoch();
  if (profiling)
    profiler.flush();
}

//===----------------------------------------------------------------------===//
// Wave operations
//===----------------------------------------------------------------------===//

void Runner::waitAtWaveOp(WorkItem &self) {
  self.state = ItemState::AtWaveOp;
  Wave &wave = waves[self.wave];
  if (++wave.arrived == wave.live)
    completeWaveOp(wave, &self);
  else
    switchAway(self);
}

/// Whether two lanes wait at the same wave operation. Shuffle offsets may
/// differ per lane (each lane picks its source).
bool isSameWaveOp(const WorkItem &a, const WorkItem &b) {
  if (a.opKind != b.opKind)
    return false;
  if (a.opKind == WaveOpKind::Shuffle)
    return a.shuffle.mode == b.shuffle.mode &&
           a.shuffle.width == b.shuffle.width;
  return a.mma == b.mma;
}

void Runner::completeWaveOp(Wave &wave, WorkItem *continuing) {
  const WorkItem *reference = nullptr;
  for (uint32_t i = wave.first; i < wave.first + wave.size; ++i) {
    const WorkItem &item = items[i];
    if (item.state != ItemState::AtWaveOp)
      continue;
    if (!reference)
      reference = &item;
    else if (!isSameWaveOp(item, *reference))
      fail(getWaveWhere(wave) +
           ": the lanes wait at different wave operations: " +
           describeStates(wave.first, wave.size));
  }
  if (reference->opKind == WaveOpKind::Shuffle)
    runShuffle(wave);
  else
    runMmaOp(wave);
  for (uint32_t i = wave.first; i < wave.first + wave.size; ++i) {
    WorkItem &item = items[i];
    if (item.state != ItemState::AtWaveOp)
      continue;
    item.state = ItemState::Runnable;
    if (&item != continuing)
      push(i);
  }
  wave.arrived = 0;
}

void Runner::runShuffle(const Wave &wave) {
  // gpu.shuffle: lane L reads lane `source` if it lies in L's segment of
  // `width` lanes, [L / width * width, + width) (for a power of two:
  // [segmentEnd - width, segmentEnd) with segmentEnd = (L + width) &
  // -width); otherwise L reads itself and the result is not valid.
  std::string problem;
  uint32_t problems = 0;
  for (uint32_t i = wave.first; i < wave.first + wave.size; ++i) {
    WorkItem &item = items[i];
    if (item.state != ItemState::AtWaveOp)
      continue;
    ShuffleArgs &args = item.shuffle;
    int64_t lane = item.lane, width = args.width, source;
    args.result = int64_t(uint32_t(args.value)); // invalid: its own value
    switch (args.mode) {
    case kShuffleXor:
      source = lane ^ int64_t(args.offset);
      break;
    case kShuffleDown:
      source = lane + int64_t(args.offset);
      break;
    case kShuffleUp:
      source = lane - int64_t(args.offset);
      break;
    case kShuffleIdx:
      source = args.offset;
      break;
    default:
      if (!problems++)
        problem = "unknown shuffle mode " + std::to_string(args.mode);
      continue;
    }
    if (width <= 0 || width > waveSize) {
      if (!problems++)
        problem = "shuffle width " + std::to_string(width) +
                  " is not between 1 and the wave size " +
                  std::to_string(waveSize);
      continue;
    }
    int64_t segmentStart = lane / width * width;
    if (source < segmentStart || source >= segmentStart + width)
      continue;
    if (source >= int64_t(wave.size)) {
      if (!problems++)
        problem = "lane " + std::to_string(lane) + " reads lane " +
                  std::to_string(source) +
                  ", which does not exist (the wave has " +
                  std::to_string(wave.size) + " lanes)";
      continue;
    }
    const WorkItem &from = items[wave.first + uint32_t(source)];
    if (from.state != ItemState::AtWaveOp) {
      if (!problems++)
        problem = "lane " + std::to_string(lane) + " reads lane " +
                  std::to_string(source) +
                  ", which is not active (it has returned or waits "
                  "elsewhere)";
      continue;
    }
    args.result = int64_t(uint32_t(from.shuffle.value)) | int64_t(1) << 32;
  }
  if (problems)
    errors->add(getWaveWhere(wave) + ": shuffle: " + problem +
                (problems > 1
                     ? " (and " + std::to_string(problems - 1) + " more lanes)"
                     : ""));
}

void Runner::runMmaOp(const Wave &wave) {
  MmaLane lanes[64];
  const WorkItem *reference = nullptr;
  uint32_t missing = 0;
  for (uint32_t lane = 0; lane < uint32_t(waveSize); ++lane) {
    lanes[lane] = MmaLane();
    if (lane >= wave.size)
      ++missing;
    else if (items[wave.first + lane].state != ItemState::AtWaveOp)
      ++missing;
    else {
      reference = &items[wave.first + lane];
      lanes[lane] = reference->mmaLane;
    }
  }
  if (missing)
    errors->add(getWaveWhere(wave) + ": " + describeMma(reference->mma) + ": " +
                std::to_string(missing) + " of the " +
                std::to_string(waveSize) +
                " lanes have returned or do not exist; a matrix "
                "instruction needs the whole wave (their fragments read "
                "as 0)");
  if (profiling)
    profiler.recordMma(reference->mma.m, reference->mma.n, reference->mma.k);
  std::string problem = runMma(*launch->chip, reference->mma, lanes);
  if (!problem.empty())
    errors->add(getWaveWhere(wave) + ": " + problem);
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

void Runner::reportOutOfBounds(WorkItem &self, bool isStore, int32_t buffer,
                               int64_t element, int64_t elements, int32_t dim,
                               int64_t dimIndex, int64_t dimSize) {
  if (!errors->keepsNext()) {
    ++errors->count;
    return;
  }
  std::string what;
  if (buffer >= 0 && buffer < kLdsBufferBase)
    what = "argument " + std::to_string(buffer);
  else if (buffer >= kLdsBufferBase && buffer < kPrivateBuffer)
    what = "LDS buffer " + std::to_string(buffer - kLdsBufferBase);
  else if (buffer == kPrivateBuffer)
    what = "a private array";
  else
    what = "an unknown buffer";
  std::string message = getItemWhere(self) + ": out-of-bounds " +
                        (isStore ? "store" : "load") + " of " + what +
                        ": element " + std::to_string(element);
  if (elements >= 0)
    message += " of " + std::to_string(elements) + " elements";
  if (dim >= 0)
    message += "; dim " + std::to_string(dim) + " index " +
               std::to_string(dimIndex) + " of size " + std::to_string(dimSize);
  errors->add(std::move(message));
}

void Runner::recordLdsAccess(WorkItem &self, bool isStore, int64_t byteOffset,
                             int64_t bytes) {
  int64_t size = launch->ldsBytes;
  if (byteOffset < 0 || bytes < 0 || byteOffset > size ||
      bytes > size - byteOffset) {
    errors->add(getItemWhere(self) + ": out-of-bounds LDS " +
                (isStore ? "store" : "load") + " of bytes [" +
                std::to_string(byteOffset) + ", " +
                std::to_string(byteOffset + bytes) + ") of the " +
                std::to_string(size) + "-byte LDS");
    return;
  }
  LdsRace race;
  if (!races.access(self.linear, isStore, uint64_t(byteOffset), uint64_t(bytes),
                    reinterpret_cast<const uint8_t *>(lds.get()), race))
    return;
  if (!errors->keepsNext()) {
    ++errors->count;
    return;
  }
  errors->add(getWorkgroupWhere() +
              ": LDS race: " + (race.isStore ? "write" : "read") +
              " by work-item " + describeItem(self.linear) + " after " +
              (race.otherIsStore ? "write" : "read") + " by work-item " +
              describeItem(race.other) + " at byte offset " +
              std::to_string(race.byteOffset) + ", between barriers " +
              std::to_string(barriersCompleted) + " and " +
              std::to_string(barriersCompleted + 1));
}

void Runner::profileAccess(WorkItem &self, int32_t site, bool isStore,
                           int32_t buffer, int64_t byteOffset, int64_t bytes) {
  profiler.recordAccess(self.linear, self.wave, self.lane,
                        waves[self.wave].live, site, isStore, buffer,
                        byteOffset, bytes);
  if (queueSize == 0)
    return;
  push(self.linear);
  switchAway(self);
}

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

std::string Runner::getWorkgroupWhere() const {
  return "kernel '" + launch->kernelName + "', workgroup " +
         describeTriple(blockId);
}

std::string Runner::describeItem(uint32_t linear) const {
  const uint32_t *size = launch->workgroup;
  int64_t id[3] = {linear % size[0], linear / size[0] % size[1],
                   linear / (size[0] * size[1])};
  return describeTriple(id);
}

std::string Runner::getItemWhere(const WorkItem &item) const {
  return getWorkgroupWhere() + ", work-item " + describeItem(item.linear) +
         " (wave " + std::to_string(item.wave) + ", lane " +
         std::to_string(item.lane) + ")";
}

std::string Runner::getWaveWhere(const Wave &wave) const {
  return getWorkgroupWhere() + ", wave " +
         std::to_string(wave.first / uint32_t(waveSize)) + " (work-items " +
         describeRange(wave.first, wave.first + wave.size - 1) + ")";
}

std::string Runner::describeWait(const WorkItem &item) const {
  switch (item.state) {
  case ItemState::Runnable:
    return "can run";
  case ItemState::Returned:
    return "returned";
  case ItemState::AtBarrier:
    return "wait at barrier " + std::to_string(item.barrierId);
  case ItemState::AtWaveOp:
    if (item.opKind == WaveOpKind::Mma)
      return "wait at " + describeMma(item.mma);
    return std::string("wait at shuffle ") +
           getShuffleModeName(item.shuffle.mode) + " (width " +
           std::to_string(item.shuffle.width) + ")";
  }
  return "?";
}

std::string Runner::describeStates(uint32_t first, uint32_t count) const {
  constexpr int kMaxRuns = 8;
  std::string text;
  int runs = 0;
  for (uint32_t begin = first; begin < first + count;) {
    std::string state = describeWait(items[begin]);
    uint32_t end = begin + 1;
    while (end < first + count && describeWait(items[end]) == state)
      ++end;
    if (runs == kMaxRuns) {
      text += "; ...";
      break;
    }
    text += (runs++ ? "; " : "work-items ") + describeRange(begin, end - 1) +
            " " + state;
    begin = end;
  }
  return text;
}

} // namespace

void boo::emu::runWorkgroup(const LaunchInfo &launch, const uint32_t blockId[3],
                            ErrorLog &errors, ProfileCounters *profile) {
  thread_local std::unique_ptr<Runner> runner;
  if (!runner)
    runner = std::make_unique<Runner>();
  runner->run(launch, blockId, errors, profile);
}
