//===- EmuProfileTest.cpp - The emulator's profile, counted on paper ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A hand-written kernel whose wave instructions, bytes, lines, LDS cycles
// and matrix instructions are counted by hand below; the emulator's profile
// must find the same numbers, and a sample of the grid must count only the
// workgroups it runs.
//
//===----------------------------------------------------------------------===//

#include "emu/EmuDevice.h"

#include "gtest/gtest.h"

#include <cstring>
#include <vector>

using namespace boo::emu;

namespace {

/// As compiled kernels do: globalAccess is null when not profiling.
void reportGlobal(Context *ctx, int32_t site, int32_t isStore, int32_t buffer,
                  int64_t byteOffset, int64_t bytes) {
  if (ctx->globalAccess)
    ctx->globalAccess(ctx, site, isStore, buffer, byteOffset, bytes);
}

/// Workgroups of 128 work-items (two waves of 64 on gfx942):
/// site 0: a 16-byte global load per lane, consecutive lanes adjacent;
/// site 1: a 16-byte LDS store per lane, consecutive;
/// barrier;
/// site 2: a 4-byte LDS load at dword 32 * lane: every lane in bank 0;
/// site 3: a 4-byte LDS load of dword 0 by every lane (a broadcast);
/// site 6: a 32-byte LDS load per lane at lane * 32: two 16-byte
///   instructions, as on the GPU;
/// two 16x16x16 MFMAs per wave;
/// site 4: a 4-byte global store per lane, consecutive;
/// site 5: a 4-byte global store by the lanes below 8 only (divergent).
void profiledKernel(Context *ctx, void **args) {
  auto *in = *static_cast<uint8_t **>(args[0]);
  auto *out = *static_cast<float **>(args[1]);
  int64_t t = ctx->threadId[0];
  int64_t g = ctx->blockId[0] * 128 + t;
  auto *lds = static_cast<uint8_t *>(ctx->lds);
  uint8_t staged[16];
  reportGlobal(ctx, 0, 0, 0, g * 16, 16);
  memcpy(staged, in + g * 16, 16);
  memcpy(lds + t * 16, staged, 16);
  ctx->ldsAccess(ctx, 1, 1, t * 16, 16);
  ctx->barrier(ctx, 0);
  ctx->ldsAccess(ctx, 2, 0, 32 * (t % 64) * 4, 4);
  ctx->ldsAccess(ctx, 3, 0, 0, 4);
  ctx->ldsAccess(ctx, 6, 0, (t % 64) * 32, 32);
  uint16_t a[4] = {}, b[4] = {};
  float acc[4] = {};
  for (int i = 0; i < 2; ++i)
    ctx->mma(ctx, kMfma, 16, 16, 16, kMmaF16, 4, 4, a, b, acc, acc);
  reportGlobal(ctx, 4, 1, 1, g * 4, 4);
  out[g] = acc[0];
  if (t < 8)
    reportGlobal(ctx, 5, 1, 1, g * 4, 4);
}

struct Expected {
  uint64_t waves, mma, globalLoads, globalLoadBytes, globalStores,
      globalStoreBytes, globalLines, ldsLoads, ldsStores, ldsBytes, ldsCycles,
      ldsConflictFree;
};

/// Per workgroup of two waves, counted by hand.
Expected perWorkgroup() {
  Expected e{};
  e.waves = 2;
  e.mma = 2 * 2;
  // Site 0: one instruction per wave, 64 x 16 B = 1024 B over 8 lines.
  e.globalLoads = 2;
  e.globalLoadBytes = 2 * 1024;
  // Site 4: 64 x 4 B = 256 B over 2 lines per wave. Site 5: wave 0 only
  // (lanes 0-7, 32 B in 1 line).
  e.globalStores = 2 + 1;
  e.globalStoreBytes = 2 * 256 + 32;
  e.globalLines = 2 * 8 + 2 * 2 + 1;
  // Site 1: 8 lanes of 16 B per cycle, 128 contiguous bytes: 8 cycles a
  // wave, no conflict.
  // Site 2: 32 lanes of 4 B per cycle, all in bank 0 at distinct dwords:
  // 32 cycles per half wave instead of 1.
  // Site 3: every lane reads dword 0: one access per half wave.
  // Site 6: two instructions of 16 bytes per lane (8 lanes a cycle, 8
  // cycles), the first at lane * 32: lanes 0-7 start at dwords 0, 8, ...,
  // 56, so lanes l and l + 4 share banks: 2 cycles a group, 16 an
  // instruction; the second (at + 16) the same.
  e.ldsStores = 2;
  e.ldsLoads = 2 * (2 + 2);
  e.ldsBytes = 2 * (1024 + 256 + 256 + 2048);
  e.ldsCycles = 2 * (8 + 2 * 32 + 2 + 2 * 16);
  e.ldsConflictFree = 2 * (8 + 2 + 2 + 2 * 8);
  return e;
}

void expectCounts(const ProfileCounters &p, const Expected &e,
                  uint64_t groups) {
  EXPECT_EQ(p.waves, e.waves * groups);
  EXPECT_EQ(p.mma_instructions, e.mma * groups);
  EXPECT_EQ(p.mma_flops, e.mma * groups * 2 * 16 * 16 * 16);
  EXPECT_EQ(p.global_load_instructions, e.globalLoads * groups);
  EXPECT_EQ(p.global_load_bytes, e.globalLoadBytes * groups);
  EXPECT_EQ(p.global_store_instructions, e.globalStores * groups);
  EXPECT_EQ(p.global_store_bytes, e.globalStoreBytes * groups);
  EXPECT_EQ(p.global_lines, e.globalLines * groups);
  EXPECT_EQ(p.lds_load_instructions, e.ldsLoads * groups);
  EXPECT_EQ(p.lds_store_instructions, e.ldsStores * groups);
  EXPECT_EQ(p.lds_bytes, e.ldsBytes * groups);
  EXPECT_EQ(p.lds_cycles, e.ldsCycles * groups);
  EXPECT_EQ(p.lds_conflict_free_cycles, e.ldsConflictFree * groups);
}

/// The kernel's buffers for `groups` workgroups: zero input, output -1.
struct Buffers {
  explicit Buffers(uint32_t groups)
      : in(groups * 128 * 16, 0), out(groups * 128, -1.0f),
        slots{reinterpret_cast<int64_t>(in.data()),
              reinterpret_cast<int64_t>(out.data())},
        args{&slots[0], &slots[1]} {}
  std::vector<uint8_t> in;
  std::vector<float> out;
  int64_t slots[2];
  void *args[2];
};

TEST(EmuProfileTest, CountsMatchTheHandCount) {
  const uint32_t groups = 6;
  Buffers buffers(groups);
  void **args = buffers.args;
  for (unsigned threads : {1u, 2u}) {
    ProfileCounters profile{};
    std::string errors;
    ASSERT_TRUE(runKernel("gfx942", &profiledKernel, {groups, 1, 1},
                          {128, 1, 1}, 8192, args, errors, "profiled", threads,
                          &profile))
        << errors;
    EXPECT_EQ(profile.workgroups, groups);
    EXPECT_EQ(profile.profiled_workgroups, groups);
    expectCounts(profile, perWorkgroup(), groups);
  }
}

TEST(EmuProfileTest, ASampleRunsOnlyItsWorkgroups) {
  const uint32_t groups = 6;
  Buffers buffers(groups);
  void **args = buffers.args;
  const std::vector<float> &out = buffers.out;
  ProfileCounters profile{};
  std::string errors;
  ASSERT_TRUE(runKernel("gfx942", &profiledKernel, {groups, 1, 1}, {128, 1, 1},
                        8192, args, errors, "profiled", 1, &profile,
                        /*maxWorkgroups=*/2))
      << errors;
  EXPECT_EQ(profile.workgroups, groups);
  EXPECT_EQ(profile.profiled_workgroups, 2u);
  expectCounts(profile, perWorkgroup(), 2);
  // Workgroups 0 and 3 ran (spread over the grid); the others did not.
  for (uint32_t g = 0; g < groups; ++g)
    EXPECT_EQ(out[g * 128] == 0.0f, g == 0 || g == 3) << g;
}

// Unprofiled, the context's globalAccess is null and the kernel runs as usual.
TEST(EmuProfileTest, RunsWithoutAProfile) {
  Buffers buffers(1);
  void **args = buffers.args;
  const std::vector<float> &out = buffers.out;
  std::string errors;
  ASSERT_TRUE(runKernel("gfx942", &profiledKernel, {1, 1, 1}, {128, 1, 1}, 8192,
                        args, errors))
      << errors;
  EXPECT_EQ(out[0], 0.0f);
}

} // namespace
