//===- EmuTest.cpp - The SIMT emulator: scheduling, checks, shuffles ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Hand-written kernels following boo/EmuABI.h, run through the emulator's
// internal entry point (EmuDevice.h): ids and grid coverage, barriers and
// LDS, the race detector, out-of-bounds reports, divergence and deadlock
// (reported, not hung), shuffles, and the cost of a fiber switch.
//
//===----------------------------------------------------------------------===//

#include "emu/EmuDevice.h"
#include "emu/EmuFiber.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cfenv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace boo::emu;

namespace {

//===----------------------------------------------------------------------===//
// Kernel helpers
//===----------------------------------------------------------------------===//

template <typename T> T *bufferArg(void **args, int index) {
  return *static_cast<T **>(args[index]);
}

int32_t imm32Arg(void **args, int index) {
  return *static_cast<int32_t *>(args[index]);
}

int64_t linearThreadId(const Context *ctx) {
  return ctx->threadId[0] +
         ctx->blockDim[0] *
             (ctx->threadId[1] + ctx->blockDim[1] * ctx->threadId[2]);
}

int64_t linearBlockId(const Context *ctx) {
  return ctx->blockId[0] +
         ctx->gridDim[0] *
             (ctx->blockId[1] + ctx->gridDim[1] * ctx->blockId[2]);
}

float loadLds(Context *ctx, int64_t index) {
  ctx->ldsAccess(ctx, /*site=*/0, 0, index * 4, 4);
  return static_cast<float *>(ctx->lds)[index];
}

void storeLds(Context *ctx, int64_t index, float value) {
  ctx->ldsAccess(ctx, /*site=*/1, 1, index * 4, 4);
  static_cast<float *>(ctx->lds)[index] = value;
}

/// The arguments of a launch: buffers by address, immediates by value.
class Args {
public:
  Args &buffer(void *pointer) {
    slots.push_back(reinterpret_cast<int64_t>(pointer));
    return *this;
  }
  Args &imm32(int32_t value) {
    slots.push_back(value); // little-endian: the low half is the int32
    return *this;
  }
  void **get() {
    pointers.clear();
    for (int64_t &slot : slots)
      pointers.push_back(&slot);
    return pointers.data();
  }

private:
  std::vector<int64_t> slots;
  std::vector<void *> pointers;
};

/// Runs a kernel; returns "" when it ran without error, else the report.
std::string run(const char *chip, KernelFn kernel, Dim3 grid, Dim3 workgroup,
                uint32_t ldsBytes, Args &args, unsigned threads = 1,
                const char *name = "kernel") {
  std::string errors;
  bool ok = runKernel(chip, kernel, grid, workgroup, ldsBytes, args.get(),
                      errors, name, threads);
  EXPECT_EQ(ok, errors.empty());
  return errors;
}

#define EXPECT_CONTAINS(text, part)                                            \
  EXPECT_NE(std::string(text).find(part), std::string::npos)                   \
      << "expected to find: " << (part) << "\nin: " << (text)

//===----------------------------------------------------------------------===//
// Ids and grid coverage
//===----------------------------------------------------------------------===//

/// out[global id] = a record of the work-item's view of the launch.
void idsKernel(Context *ctx, void **args) {
  int64_t *out = bufferArg<int64_t>(args, 0);
  int64_t items = ctx->blockDim[0] * ctx->blockDim[1] * ctx->blockDim[2];
  int64_t global = linearBlockId(ctx) * items + linearThreadId(ctx);
  int64_t *record = out + 12 * global;
  for (int d = 0; d < 3; ++d) {
    record[d] = ctx->threadId[d];
    record[3 + d] = ctx->blockId[d];
    record[6 + d] = ctx->blockDim[d];
    record[9 + d] = ctx->gridDim[d];
  }
}

TEST(EmuTest, IdsCoverTheGridOnce) {
  Dim3 grid{3, 2, 2}, workgroup{4, 3, 2};
  int64_t groups = 3 * 2 * 2, items = 4 * 3 * 2;
  std::vector<int64_t> out(12 * groups * items, -1);
  Args args;
  args.buffer(out.data());
  for (unsigned threads : {1u, 2u}) {
    std::fill(out.begin(), out.end(), -1);
    ASSERT_EQ(run("gfx942", &idsKernel, grid, workgroup, 0, args, threads), "");
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t t = 0; t < items; ++t) {
        const int64_t *record = &out[12 * (g * items + t)];
        int64_t expected[12] = {t % 4,     t / 4 % 3, t / 12, g % 3,
                                g / 3 % 2, g / 6,     4,      3,
                                2,         3,         2,      2};
        for (int i = 0; i < 12; ++i)
          ASSERT_EQ(record[i], expected[i])
              << "workgroup " << g << " work-item " << t << " field " << i;
      }
  }
}

//===----------------------------------------------------------------------===//
// Barriers, LDS and races
//===----------------------------------------------------------------------===//

/// out[workgroup] = sum of in[workgroup * n + t] by a tree reduction in LDS;
/// imm 2: whether the loop has its barrier.
void reduceKernel(Context *ctx, void **args) {
  const float *in = bufferArg<float>(args, 0);
  float *out = bufferArg<float>(args, 1);
  bool withBarrier = imm32Arg(args, 2) != 0;
  int64_t t = ctx->threadId[0], n = ctx->blockDim[0];
  int64_t group = ctx->blockId[0];
  storeLds(ctx, t, in[group * n + t]);
  ctx->barrier(ctx, 0);
  for (int64_t stride = n / 2; stride > 0; stride /= 2) {
    if (t < stride)
      storeLds(ctx, t, loadLds(ctx, t) + loadLds(ctx, t + stride));
    if (withBarrier)
      ctx->barrier(ctx, 1);
  }
  if (t == 0)
    out[group] = loadLds(ctx, 0);
}

TEST(EmuTest, LdsReductionWithBarriers) {
  const int64_t groups = 5, n = 256;
  std::vector<float> in(groups * n), out(groups, -1.0f);
  for (int64_t i = 0; i < groups * n; ++i)
    in[i] = float(i % 97) * 0.5f;
  Args args;
  args.buffer(in.data()).buffer(out.data()).imm32(1);
  ASSERT_EQ(run("gfx942", &reduceKernel, {uint32_t(groups), 1, 1},
                {uint32_t(n), 1, 1}, n * 4, args, 2, "reduce"),
            "");
  for (int64_t g = 0; g < groups; ++g) {
    double sum = 0;
    for (int64_t t = 0; t < n; ++t)
      sum += in[g * n + t];
    EXPECT_EQ(out[g], float(sum)) << "workgroup " << g;
  }
}

TEST(EmuTest, MissingBarrierIsAnLdsRace) {
  const int64_t n = 64;
  std::vector<float> in(n, 1.0f), out(1);
  Args args;
  args.buffer(in.data()).buffer(out.data()).imm32(0);
  std::string errors = run("gfx942", &reduceKernel, {1, 1, 1}, {n, 1, 1}, n * 4,
                           args, 1, "reduce");
  EXPECT_CONTAINS(errors, "kernel 'reduce', workgroup (0,0,0): LDS race: ");
  // Work-item 0 reads byte 128 (element 32), which work-item 32 wrote
  // after the only barrier; or work-item 0 writes what 16 reads after.
  EXPECT_CONTAINS(errors, "between barriers 1 and 2");
  EXPECT_CONTAINS(errors, " errors; the first 8:");
}

/// Work-item t writes LDS element t; after an optional barrier, reads
/// element (t + 1) % n; then writes it again after a barrier.
void neighbourKernel(Context *ctx, void **args) {
  bool withBarrier = imm32Arg(args, 0) != 0;
  int64_t t = ctx->threadId[0], n = ctx->blockDim[0];
  storeLds(ctx, t, float(t));
  if (withBarrier)
    ctx->barrier(ctx, 0);
  float value = loadLds(ctx, (t + 1) % n);
  ctx->barrier(ctx, 1);
  storeLds(ctx, (t + 1) % n, value + 1);
  // The same work-item re-reading and re-writing is not a race.
  storeLds(ctx, (t + 1) % n, loadLds(ctx, (t + 1) % n) + 1);
}

TEST(EmuTest, RaceReportNamesBothWorkItems) {
  Args clean;
  clean.imm32(1);
  EXPECT_EQ(run("gfx1100", &neighbourKernel, {1, 1, 1}, {8, 1, 1}, 32, clean),
            "");
  Args racy;
  racy.imm32(0);
  std::string errors =
      run("gfx1100", &neighbourKernel, {1, 1, 1}, {8, 1, 1}, 32, racy);
  // Work-items run in order until they wait: work-item 0 reads element 1
  // before work-item 1 writes it, so the first race is 1's write after
  // 0's read.
  EXPECT_CONTAINS(errors, "kernel 'kernel', workgroup (0,0,0): LDS race: "
                          "write by work-item (1,0,0) after read by "
                          "work-item (0,0,0) at byte offset 4, between "
                          "barriers 0 and 1");
  // And work-item 7 reads element 0 after 0 wrote it.
  EXPECT_CONTAINS(errors, "read by work-item (7,0,0) after write by "
                          "work-item (0,0,0) at byte offset 0");
}

//===----------------------------------------------------------------------===//
// Out-of-bounds reports
//===----------------------------------------------------------------------===//

void outOfBoundsKernel(Context *ctx, void **args) {
  if (ctx->blockId[0] == 1 && ctx->threadId[0] == 37)
    ctx->reportOutOfBounds(ctx, 0, 2, 1030, 1024, 1, 33, 32);
  if (ctx->blockId[0] == 0 && ctx->threadId[0] == 3)
    ctx->reportOutOfBounds(ctx, 1, kLdsBufferBase + 1, 70, 64, -1, 0, 0);
  if (ctx->blockId[0] == 0 && ctx->threadId[0] == 4)
    ctx->reportOutOfBounds(ctx, 1, kPrivateBuffer, 9, 8, 0, 9, 8);
  if (ctx->blockId[0] == 0 && ctx->threadId[0] == 5)
    ctx->ldsAccess(ctx, /*site=*/0, 0, 60, 8); // past the 64-byte LDS
}

TEST(EmuTest, OutOfBoundsReportsSayWhatAndWhere) {
  Args args;
  std::string errors = run("gfx942", &outOfBoundsKernel, {2, 1, 1}, {64, 1, 1},
                           64, args, 2, "oob");
  EXPECT_CONTAINS(errors, "kernel 'oob' (grid 2x1x1, workgroup 64x1x1, 64 "
                          "bytes of LDS, gfx942): 4 errors:");
  EXPECT_CONTAINS(errors,
                  "kernel 'oob', workgroup (1,0,0), work-item (37,0,0) "
                  "(wave 0, lane 37): out-of-bounds load of argument 2: "
                  "element 1030 of 1024 elements; dim 1 index 33 of size 32");
  EXPECT_CONTAINS(errors, "work-item (3,0,0) (wave 0, lane 3): out-of-bounds "
                          "store of LDS buffer 1: element 70 of 64 elements");
  EXPECT_CONTAINS(errors, "out-of-bounds store of a private array: element 9 "
                          "of 8 elements; dim 0 index 9 of size 8");
  EXPECT_CONTAINS(errors, "work-item (5,0,0) (wave 0, lane 5): out-of-bounds "
                          "LDS load of bytes [60, 68) of the 64-byte LDS");
  // Ordered by workgroup.
  EXPECT_LT(errors.find("workgroup (0,0,0)"), errors.find("workgroup (1,0,0)"));
}

void manyReportsKernel(Context *ctx, void **args) {
  for (int i = 0; i < 100; ++i)
    ctx->reportOutOfBounds(ctx, 1, 0, 100 + i, 100, -1, 0, 0);
}

TEST(EmuTest, ManyErrorsAreCountedAndTheFirstShown) {
  Args args;
  std::string errors =
      run("gfx942", &manyReportsKernel, {4, 1, 1}, {64, 1, 1}, 0, args, 2);
  EXPECT_CONTAINS(errors, ": 25600 errors; the first 8:");
  size_t lines = std::count(errors.begin(), errors.end(), '\n');
  EXPECT_EQ(lines, 8u) << errors;
  EXPECT_EQ(errors.find("workgroup (1,0,0)"), std::string::npos) << errors;
}

//===----------------------------------------------------------------------===//
// Divergence and deadlock
//===----------------------------------------------------------------------===//

void earlyReturnKernel(Context *ctx, void **args) {
  int32_t *out = bufferArg<int32_t>(args, 0);
  int64_t t = ctx->threadId[0];
  if (t >= 10)
    return; // Excluded from the barriers below.
  storeLds(ctx, t, float(t));
  ctx->barrier(ctx, 0);
  out[t] = int32_t(loadLds(ctx, 9 - t));
  ctx->barrier(ctx, 1);
}

TEST(EmuTest, ReturnedWorkItemsLeaveBarriers) {
  std::vector<int32_t> out(10, -1);
  Args args;
  args.buffer(out.data());
  ASSERT_EQ(run("gfx942", &earlyReturnKernel, {1, 1, 1}, {100, 1, 1}, 64, args),
            "");
  for (int t = 0; t < 10; ++t)
    EXPECT_EQ(out[t], 9 - t);
}

void divergentBarrierKernel(Context *ctx, void **args) {
  ctx->barrier(ctx, ctx->threadId[0] < 32 ? 0 : 1);
}

TEST(EmuTest, BarrierDivergenceIsReported) {
  Args args;
  std::string errors = run("gfx942", &divergentBarrierKernel, {2, 1, 1},
                           {128, 1, 1}, 0, args, 1, "diverge");
  EXPECT_CONTAINS(errors, "2 errors:");
  EXPECT_CONTAINS(errors, "kernel 'diverge', workgroup (0,0,0): barrier "
                          "divergence: the work-items wait at different "
                          "barriers: work-items 0-31 wait at barrier 0; "
                          "32-127 wait at barrier 1");
}

/// Lane 0 goes to a barrier while the rest of its wave waits at an MMA,
/// which needs the whole wave: neither can complete. (A shuffle would run
/// with the lanes that reached it, as on SIMT hardware.)
void deadlockKernel(Context *ctx, void **args) {
  if (ctx->threadId[0] == 0) {
    ctx->barrier(ctx, 0);
    return;
  }
  uint16_t a[4] = {}, b[4] = {};
  float c[4] = {}, d[4];
  ctx->mma(ctx, kMfma, 16, 16, 16, kMmaF16, 4, 4, a, b, c, d);
  ctx->barrier(ctx, 0);
}

TEST(EmuTest, DeadlockIsReportedNotHung) {
  Args args;
  std::string errors = run("gfx942", &deadlockKernel, {1, 1, 1}, {128, 1, 1}, 0,
                           args, 1, "stuck");
  EXPECT_CONTAINS(errors,
                  "kernel 'stuck', workgroup (0,0,0): deadlock: no work-item "
                  "can continue: work-items 0 wait at barrier 0; 1-63 wait at "
                  "MFMA f16 16x16x16");
  EXPECT_CONTAINS(errors, "64-127 wait at barrier 0");
}

/// Lanes of one wave at different wave operations.
void waveDivergenceKernel(Context *ctx, void **args) {
  int64_t t = ctx->threadId[0];
  ctx->shuffle(ctx, t < 16 ? kShuffleXor : kShuffleDown, 1, 1, 32);
}

TEST(EmuTest, WaveDivergenceIsReported) {
  Args args;
  std::string errors =
      run("gfx1201", &waveDivergenceKernel, {1, 1, 1}, {64, 1, 1}, 0, args);
  EXPECT_CONTAINS(errors, "workgroup (0,0,0), wave 0 (work-items 0-31): the "
                          "lanes wait at different wave operations: "
                          "work-items 0-15 wait at shuffle xor (width 32); "
                          "16-31 wait at shuffle down (width 32)");
}

//===----------------------------------------------------------------------===//
// Shuffles
//===----------------------------------------------------------------------===//

/// out[t] = the butterfly sum over segments of `width` lanes (imm 1) of
/// lane + 1, and whether every step was valid.
void butterflyKernel(Context *ctx, void **args) {
  int32_t *out = bufferArg<int32_t>(args, 0);
  int32_t width = imm32Arg(args, 1);
  int64_t t = linearThreadId(ctx);
  int32_t value = int32_t(t % 64) + 1;
  int32_t allValid = 1;
  for (int32_t offset = 1; offset < width; offset *= 2) {
    int64_t packed = ctx->shuffle(ctx, kShuffleXor, value, offset, width);
    value += int32_t(packed);
    allValid &= int32_t(packed >> 32);
  }
  out[2 * t] = value;
  out[2 * t + 1] = allValid;
}

TEST(EmuTest, ShuffleXorButterflySum) {
  struct Case {
    const char *chip;
    int32_t wave, width;
  };
  for (Case c : {Case{"gfx942", 64, 64}, Case{"gfx942", 64, 16},
                 Case{"gfx1100", 32, 32}, Case{"gfx1201", 32, 8}}) {
    const int64_t items = 128;
    std::vector<int32_t> out(2 * items, -1);
    Args args;
    args.buffer(out.data()).imm32(c.width);
    ASSERT_EQ(run(c.chip, &butterflyKernel, {1, 1, 1}, {8, 16, 1}, 0, args), "")
        << c.chip << " width " << c.width;
    for (int64_t t = 0; t < items; ++t) {
      // The work-items of t's segment of `width` lanes.
      int64_t first = t - t % c.wave + (t % c.wave) / c.width * c.width;
      int32_t expected = 0;
      for (int64_t u = first; u < first + c.width; ++u)
        expected += int32_t(u % 64) + 1;
      EXPECT_EQ(out[2 * t], expected)
          << c.chip << " width " << c.width << " work-item " << t;
      EXPECT_EQ(out[2 * t + 1], 1);
    }
  }
}

/// out[t] = shuffle(mode imm 1, value 100 + lane, offset imm 2, width imm 3).
void shuffleModeKernel(Context *ctx, void **args) {
  int64_t *out = bufferArg<int64_t>(args, 0);
  int64_t t = ctx->threadId[0];
  out[t] = ctx->shuffle(ctx, imm32Arg(args, 1), int32_t(100 + t),
                        imm32Arg(args, 2), imm32Arg(args, 3));
}

TEST(EmuTest, ShuffleModesAndValidity) {
  const int64_t valid = int64_t(1) << 32;
  struct Case {
    int32_t mode, offset, width;
    /// The source lane of lanes 0, 5, 15, 16, 31, or -1: invalid.
    int64_t sources[5];
  };
  const int lanes[5] = {0, 5, 15, 16, 31};
  for (const Case &c : {Case{kShuffleXor, 1, 32, {1, 4, 14, 17, 30}},
                        Case{kShuffleXor, 16, 16, {-1, -1, -1, -1, -1}},
                        Case{kShuffleDown, 1, 16, {1, 6, -1, 17, -1}},
                        Case{kShuffleDown, 4, 32, {4, 9, 19, 20, -1}},
                        Case{kShuffleUp, 1, 16, {-1, 4, 14, -1, 30}},
                        Case{kShuffleUp, 20, 32, {-1, -1, -1, -1, 11}},
                        Case{kShuffleIdx, 3, 32, {3, 3, 3, 3, 3}},
                        Case{kShuffleIdx, 3, 16, {3, 3, 3, -1, -1}}}) {
    std::vector<int64_t> out(32, -1);
    Args args;
    args.buffer(out.data()).imm32(c.mode).imm32(c.offset).imm32(c.width);
    ASSERT_EQ(
        run("gfx1100", &shuffleModeKernel, {1, 1, 1}, {32, 1, 1}, 0, args), "");
    for (int i = 0; i < 5; ++i) {
      int64_t expected =
          c.sources[i] < 0 ? 100 + lanes[i] : (100 + c.sources[i]) | valid;
      EXPECT_EQ(out[lanes[i]], expected)
          << "mode " << c.mode << " offset " << c.offset << " width " << c.width
          << " lane " << lanes[i];
    }
  }
}

void shuffleFromReturnedKernel(Context *ctx, void **args) {
  if (ctx->threadId[0] == 7)
    return;
  ctx->shuffle(ctx, kShuffleXor, 1, 1, 64);
}

TEST(EmuTest, ShuffleReadingAReturnedLaneIsAnError) {
  Args args;
  std::string errors =
      run("gfx942", &shuffleFromReturnedKernel, {1, 1, 1}, {64, 1, 1}, 0, args);
  EXPECT_CONTAINS(errors, "wave 0 (work-items 0-63): shuffle: lane 6 reads "
                          "lane 7, which is not active (it has returned or waits elsewhere)");
}

TEST(EmuTest, UnknownChipAndOversizedLaunches) {
  Args args;
  std::string errors;
  EXPECT_FALSE(runKernel("gfx000", &divergentBarrierKernel, {}, {}, 0,
                         args.get(), errors));
  EXPECT_EQ(errors, "unknown chip 'gfx000'; the emulator supports gfx90a, "
                    "gfx942, gfx950, gfx1100, gfx1201");
  EXPECT_CONTAINS(run("gfx942", &idsKernel, {1, 1, 1}, {1025, 1, 1}, 0, args),
                  "a workgroup of 1025 work-items is more than the 1024");
  EXPECT_CONTAINS(
      run("gfx1100", &idsKernel, {1, 1, 1}, {1, 1, 1}, 65537, args),
      "65537 bytes of LDS is more than gfx1100's 65536 per workgroup");
}

//===----------------------------------------------------------------------===//
// Fibers
//===----------------------------------------------------------------------===//

struct PingPong {
  FiberContext thread, fiber;
  int roundingInFiber = -1;
  bool aligned = false;
};

void pingPongFiber(void *arg) {
  auto &state = *static_cast<PingPong *>(arg);
  // The SysV stack alignment holds at the entry, so the compiler does not
  // realign for a 16-byte aligned local.
  alignas(16) volatile char local[16] = {};
  state.aligned = reinterpret_cast<uintptr_t>(local) % 16 == 0;
  fesetround(FE_UPWARD);
  switchFiber(state.fiber, state.thread);
  state.roundingInFiber = fegetround();
  switchFiber(state.fiber, state.thread);
  abort(); // Never resumed.
}

TEST(EmuFiberTest, FloatingPointControlIsPerFiber) {
  ASSERT_EQ(fegetround(), FE_TONEAREST);
  FiberStack stack;
  ASSERT_TRUE(stack.allocate());
  PingPong state;
  initFiber(state.fiber, stack, &pingPongFiber, &state);
  switchFiber(state.thread, state.fiber);
  EXPECT_TRUE(state.aligned);
  // The fiber's rounding mode stays with the fiber.
  EXPECT_EQ(fegetround(), FE_TONEAREST);
  switchFiber(state.thread, state.fiber);
  EXPECT_EQ(state.roundingInFiber, FE_UPWARD);
  EXPECT_EQ(fegetround(), FE_TONEAREST);
}

//===----------------------------------------------------------------------===//
// Cost
//===----------------------------------------------------------------------===//

void barrierLoopKernel(Context *ctx, void **args) {
  int32_t iterations = imm32Arg(args, 0);
  for (int32_t i = 0; i < iterations; ++i)
    ctx->barrier(ctx, 0);
}

TEST(EmuTest, FiberSwitchCost) {
  // Every barrier switches once per work-item.
  const int32_t iterations = 4000, items = 256;
  Args args;
  args.imm32(iterations);
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(run("gfx942", &barrierLoopKernel, {1, 1, 1},
                {uint32_t(items), 1, 1}, 0, args),
            "");
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  double perSwitch = seconds / (double(iterations) * items) * 1e9;
  printf("[ emu      ] %.1f ns per barrier wait (one fiber switch)\n",
         perSwitch);
#ifndef BOO_EMU_UCONTEXT_FIBERS
  // The assembly switch takes tens of nanoseconds; swapcontext, with its
  // system call, about a microsecond.
  EXPECT_LT(perSwitch, 1000.0);
#endif
}

} // namespace
