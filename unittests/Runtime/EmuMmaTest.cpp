//===- EmuMmaTest.cpp - The SIMT emulator's matrix instructions -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A kernel fills each lane's MFMA/WMMA fragments from random A, B and C
// matrices through the per-lane layouts of the AMD ISA references (written
// again here, not taken from the emulator), calls the mma callback, and
// scatters D back. The gathered D must match a double-precision matmul; a
// deliberately wrong layout must not, so the comparison can fail.
//
//===----------------------------------------------------------------------===//

#include "emu/EmuMma.h"
#include "emu/EmuDevice.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace boo::emu;

namespace {

enum class Layout { Cdna, Rdna3, Rdna4 };

/// How the kernel builds its fragments.
enum Variant : int32_t {
  kCorrect = 0,
  kReversedAItems = 1, // A's items of a lane in reverse order
  kTransposedA = 2,    // A read as its transpose (square shapes only)
  kSkewedHighHalf = 3, // RDNA3: lanes 16-31 hold the next row of A
};

struct MmaCase {
  const char *chip;
  Layout layout;
  int32_t family, inputType, m, n, k, aItems, cItems, wave;
};

const MmaCase kCases[] = {
    {"gfx942", Layout::Cdna, kMfma, kMmaF16, 16, 16, 16, 4, 4, 64},
    {"gfx942", Layout::Cdna, kMfma, kMmaF16, 32, 32, 8, 4, 16, 64},
    {"gfx942", Layout::Cdna, kMfma, kMmaBF16, 16, 16, 16, 4, 4, 64},
    {"gfx90a", Layout::Cdna, kMfma, kMmaBF16, 32, 32, 8, 4, 16, 64},
    {"gfx950", Layout::Cdna, kMfma, kMmaF16, 16, 16, 32, 8, 4, 64},
    {"gfx950", Layout::Cdna, kMfma, kMmaBF16, 32, 32, 16, 8, 16, 64},
    {"gfx1100", Layout::Rdna3, kWmma, kMmaF16, 16, 16, 16, 16, 8, 32},
    {"gfx1100", Layout::Rdna3, kWmma, kMmaBF16, 16, 16, 16, 16, 8, 32},
    {"gfx1201", Layout::Rdna4, kWmma, kMmaF16, 16, 16, 16, 8, 8, 32},
    {"gfx1201", Layout::Rdna4, kWmma, kMmaBF16, 16, 16, 16, 8, 8, 32},
};

struct Position {
  int32_t row, col;
};

// The layouts, lane `l` and item `i` of its fragment. CDNA: lane l holds
// row l % M of A in K-block l / M (and column l % N of B); D's rows come in
// groups of 4 per lane block. RDNA3: a lane holds a whole row of A (column
// of B), both half-waves the same; D row 2i + l / 16. RDNA4: the half-waves
// split K; D row 8 (l / 16) + i.

Position positionInA(const MmaCase &c, int32_t l, int32_t i) {
  switch (c.layout) {
  case Layout::Cdna:
    return {l % c.m, l / c.m * c.aItems + i};
  case Layout::Rdna3:
    return {l % 16, i};
  case Layout::Rdna4:
    return {l % 16, l / 16 * 8 + i};
  }
  return {};
}

Position positionInB(const MmaCase &c, int32_t l, int32_t i) {
  switch (c.layout) {
  case Layout::Cdna:
    return {l / c.n * c.aItems + i, l % c.n};
  case Layout::Rdna3:
    return {i, l % 16};
  case Layout::Rdna4:
    return {l / 16 * 8 + i, l % 16};
  }
  return {};
}

Position positionInD(const MmaCase &c, int32_t l, int32_t i) {
  switch (c.layout) {
  case Layout::Cdna:
    if (c.m == 16)
      return {l / 16 * 4 + i, l % 16};
    return {i / 4 * 8 + l / 32 * 4 + i % 4, l % 32};
  case Layout::Rdna3:
    return {i * 2 + l / 16, l % 16};
  case Layout::Rdna4:
    return {l / 16 * 8 + i, l % 16};
  }
  return {};
}

template <typename T> T *bufferArg(void **args, int index) {
  return *static_cast<T **>(args[index]);
}

/// args: A (MxK 16-bit), B (KxN 16-bit), C (MxN f32), D (MxN f32), case
/// index, variant.
void mmaKernel(Context *ctx, void **args) {
  const uint16_t *a = bufferArg<uint16_t>(args, 0);
  const uint16_t *b = bufferArg<uint16_t>(args, 1);
  const float *c = bufferArg<float>(args, 2);
  float *d = bufferArg<float>(args, 3);
  const MmaCase &mc = kCases[*static_cast<int32_t *>(args[4])];
  int32_t variant = *static_cast<int32_t *>(args[5]);
  int32_t lane = int32_t(ctx->threadId[0]) % mc.wave;

  uint16_t aFragment[16], bFragment[16];
  float cFragment[16], dFragment[16];
  for (int32_t i = 0; i < mc.aItems; ++i) {
    int32_t item = variant == kReversedAItems ? mc.aItems - 1 - i : i;
    Position pa = positionInA(mc, lane, item);
    if (variant == kTransposedA)
      std::swap(pa.row, pa.col);
    if (variant == kSkewedHighHalf && lane >= 16)
      pa.row = (pa.row + 1) % mc.m;
    aFragment[i] = a[pa.row * mc.k + pa.col];
    Position pb = positionInB(mc, lane, i);
    bFragment[i] = b[pb.row * mc.n + pb.col];
  }
  for (int32_t i = 0; i < mc.cItems; ++i) {
    Position pc = positionInD(mc, lane, i);
    cFragment[i] = c[pc.row * mc.n + pc.col];
  }
  ctx->mma(ctx, mc.family, mc.m, mc.n, mc.k, mc.inputType, mc.aItems, mc.cItems,
           aFragment, bFragment, cFragment, dFragment);
  for (int32_t i = 0; i < mc.cItems; ++i) {
    Position pd = positionInD(mc, lane, i);
    d[pd.row * mc.n + pd.col] = dFragment[i];
  }
}

/// Decodes f16 bits of a normal number (the only ones generated).
double decodeHalf(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1F;
  double magnitude = std::ldexp(1.0 + (bits & 0x3FF) / 1024.0, exponent - 15);
  return bits & 0x8000 ? -magnitude : magnitude;
}

double decodeBFloat16(uint16_t bits) {
  uint32_t word = uint32_t(bits) << 16;
  float value;
  memcpy(&value, &word, sizeof(value));
  return value;
}

struct Outcome {
  std::string errors;
  int mismatches = 0;
  std::string firstMismatch;
};

/// Runs case `index` with `variant` on random matrices (seed `seed`).
Outcome runCase(int32_t index, int32_t variant, uint32_t seed) {
  const MmaCase &mc = kCases[index];
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> sign(0, 1), exponent(13, 16),
      mantissa(0, 1023), bfloatMantissa(0, 127);
  auto randomInput = [&]() -> uint16_t {
    // Magnitudes in [0.25, 4): normal in both f16 and bf16.
    if (mc.inputType == kMmaF16)
      return uint16_t(sign(random) << 15 | exponent(random) << 10 |
                      mantissa(random));
    return uint16_t(sign(random) << 15 | (exponent(random) + 112) << 7 |
                    bfloatMantissa(random));
  };
  std::vector<uint16_t> a(mc.m * mc.k), b(mc.k * mc.n);
  std::vector<float> c(mc.m * mc.n),
      d(mc.m * mc.n, std::numeric_limits<float>::quiet_NaN());
  for (uint16_t &value : a)
    value = randomInput();
  for (uint16_t &value : b)
    value = randomInput();
  std::uniform_real_distribution<float> accumulator(-4.0f, 4.0f);
  for (float &value : c)
    value = accumulator(random);

  int64_t slots[6] = {reinterpret_cast<int64_t>(a.data()),
                      reinterpret_cast<int64_t>(b.data()),
                      reinterpret_cast<int64_t>(c.data()),
                      reinterpret_cast<int64_t>(d.data()),
                      index,
                      variant};
  void *args[6];
  for (int i = 0; i < 6; ++i)
    args[i] = &slots[i];
  Outcome outcome;
  runKernel(mc.chip, &mmaKernel, {1, 1, 1}, {uint32_t(mc.wave), 1, 1}, 0, args,
            outcome.errors, "mma");

  auto decode = mc.inputType == kMmaF16 ? decodeHalf : decodeBFloat16;
  for (int32_t row = 0; row < mc.m; ++row)
    for (int32_t col = 0; col < mc.n; ++col) {
      double expected = c[row * mc.n + col], magnitude = std::fabs(expected);
      for (int32_t kk = 0; kk < mc.k; ++kk) {
        double term = decode(a[row * mc.k + kk]) * decode(b[kk * mc.n + col]);
        expected += term;
        magnitude += std::fabs(term);
      }
      double got = d[row * mc.n + col];
      // f32 accumulation of exact products: at most k roundings.
      if (!(std::fabs(got - expected) <= 1e-5 * magnitude + 1e-6)) {
        if (!outcome.mismatches++)
          outcome.firstMismatch = "D[" + std::to_string(row) + "][" +
                                  std::to_string(col) +
                                  "] = " + std::to_string(got) + ", expected " +
                                  std::to_string(expected);
      }
    }
  return outcome;
}

std::string describeCase(int32_t index) {
  const MmaCase &mc = kCases[index];
  return std::string(mc.chip) + " " + std::to_string(mc.m) + "x" +
         std::to_string(mc.n) + "x" + std::to_string(mc.k) +
         (mc.inputType == kMmaF16 ? " f16" : " bf16");
}

constexpr int32_t kCaseCount = int32_t(sizeof(kCases) / sizeof(kCases[0]));

TEST(EmuMmaTest, LayoutsMatchAReferenceMatmul) {
  for (int32_t index = 0; index < kCaseCount; ++index)
    for (uint32_t seed : {1u, 2u}) {
      Outcome outcome = runCase(index, kCorrect, seed);
      EXPECT_EQ(outcome.errors, "") << describeCase(index);
      EXPECT_EQ(outcome.mismatches, 0) << describeCase(index) << " seed "
                                       << seed << ": " << outcome.firstMismatch;
    }
}

TEST(EmuMmaTest, WrongLayoutsMismatch) {
  for (int32_t index = 0; index < kCaseCount; ++index) {
    Outcome reversed = runCase(index, kReversedAItems, 3);
    EXPECT_GT(reversed.mismatches, 0) << describeCase(index);
    const MmaCase &mc = kCases[index];
    if (mc.m == mc.k) {
      Outcome transposed = runCase(index, kTransposedA, 3);
      EXPECT_GT(transposed.mismatches, 0) << describeCase(index);
    }
  }
}

TEST(EmuMmaTest, Rdna3HalvesMustAgree) {
  Outcome outcome = runCase(6, kSkewedHighHalf, 4);
  ASSERT_STREQ(kCases[6].chip, "gfx1100");
  EXPECT_NE(outcome.errors.find(
                "kernel 'mma', workgroup (0,0,0), wave 0 (work-items 0-31): "
                "lane 16's A fragment differs from lane 0's (item "),
            std::string::npos)
      << outcome.errors;
  EXPECT_NE(outcome.errors.find("RDNA3 WMMA needs lanes 16-31 to hold the "
                                "same A and B as lanes 0-15"),
            std::string::npos);
  // The same skew is legal on RDNA4, where the half-waves hold different
  // K: the result is wrong but there is nothing to report.
  Outcome rdna4 = runCase(8, kSkewedHighHalf, 4);
  EXPECT_EQ(rdna4.errors, "");
  EXPECT_GT(rdna4.mismatches, 0);
}

/// Every lane asks for the MFMA shape in imm 0 (0: 16x16x32 f16 with 8
/// items; 1: WMMA on a CDNA chip).
void unsupportedMmaKernel(Context *ctx, void **args) {
  int32_t which = *static_cast<int32_t *>(args[0]);
  uint16_t a[8] = {}, b[8] = {};
  float c[4] = {1, 2, 3, 4}, d[4] = {};
  if (which == 0)
    ctx->mma(ctx, kMfma, 16, 16, 32, kMmaF16, 8, 4, a, b, c, d);
  else
    ctx->mma(ctx, kWmma, 16, 16, 16, kMmaF16, 8, 4, a, b, c, d);
}

TEST(EmuMmaTest, InstructionsTheChipLacksAreErrors) {
  for (int32_t which : {0, 1}) {
    int64_t slot = which;
    void *args[1] = {&slot};
    std::string errors;
    EXPECT_FALSE(runKernel("gfx942", &unsupportedMmaKernel, {1, 1, 1},
                           {64, 1, 1}, 0, args, errors));
    EXPECT_NE(errors.find(which == 0
                              ? "gfx942 has no MFMA f16 16x16x32 (8 A/B "
                                "items, 4 C items per lane); its MFMA shapes "
                                "(f16 or bf16 inputs) are 16x16x16 (4 A/B "
                                "items, 4 C items per lane), 32x32x8 (4 A/B "
                                "items, 16 C items per lane)"
                              : "gfx942 has no WMMA f16 16x16x16"),
              std::string::npos)
        << errors;
  }
}

/// Lanes 48-63 return before the MFMA.
void partialWaveMmaKernel(Context *ctx, void **args) {
  if (ctx->threadId[0] >= 48)
    return;
  uint16_t a[4] = {}, b[4] = {};
  float c[4] = {}, d[4] = {};
  ctx->mma(ctx, kMfma, 16, 16, 16, kMmaF16, 4, 4, a, b, c, d);
}

TEST(EmuMmaTest, MatrixInstructionsNeedTheWholeWave) {
  std::string errors;
  EXPECT_FALSE(runKernel("gfx942", &partialWaveMmaKernel, {1, 1, 1}, {64, 1, 1},
                         0, nullptr, errors));
  EXPECT_NE(errors.find("wave 0 (work-items 0-63): MFMA f16 16x16x16 (4 A/B "
                        "items, 4 C items per lane): 16 of the 64 lanes have "
                        "returned or do not exist"),
            std::string::npos)
      << errors;
}

TEST(EmuMmaTest, HalfConversion) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0xC000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // subnormal
  EXPECT_EQ(halfToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x8000), 0.0f);
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(halfToFloat(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(halfToFloat(0xFC00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7C01)));
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float value = halfToFloat(uint16_t(bits));
    if (((bits >> 10) & 0x1F) != 0 && ((bits >> 10) & 0x1F) != 0x1F)
      ASSERT_EQ(double(value), decodeHalf(uint16_t(bits))) << bits;
  }
  EXPECT_EQ(bfloat16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0xC040), -3.0f);
}

} // namespace

namespace {

/// A conv-shaped workload: every iteration stages a 64x32 f16 tile in LDS
/// (16 bytes per work-item), waits at a barrier, runs `mmasPerStep` MFMAs
/// per wave with fragments read from LDS, and waits again.
void convShapedKernel(Context *ctx, void **args) {
  float *out = bufferArg<float>(args, 0);
  int32_t steps = *static_cast<int32_t *>(args[1]);
  int32_t mmasPerStep = *static_cast<int32_t *>(args[2]);
  int64_t t = ctx->threadId[0];
  int32_t lane = int32_t(t % 64);
  auto *tile = static_cast<uint16_t *>(ctx->lds);
  float acc[4] = {};
  for (int32_t step = 0; step < steps; ++step) {
    ctx->ldsAccess(ctx, /*site=*/0, 1, t * 16, 16);
    for (int i = 0; i < 8; ++i)
      tile[t * 8 + i] = uint16_t(0x3C00 + ((step + i + t) & 0xFF));
    ctx->barrier(ctx, 0);
    for (int32_t j = 0; j < mmasPerStep; ++j) {
      uint16_t a[4], b[4];
      int64_t row = (lane + j) % 64;
      ctx->ldsAccess(ctx, /*site=*/1, 0, row * 64, 8);
      memcpy(a, tile + row * 32, 8);
      ctx->ldsAccess(ctx, /*site=*/2, 0, row * 64 + 8, 8);
      memcpy(b, tile + row * 32 + 4, 8);
      ctx->mma(ctx, kMfma, 16, 16, 16, kMmaF16, 4, 4, a, b, acc, acc);
    }
    ctx->barrier(ctx, 1);
  }
  out[ctx->blockId[0] * 256 + t] = acc[0] + acc[1] + acc[2] + acc[3];
}

TEST(EmuMmaTest, ConvShapedWorkloadCost) {
  const int64_t groups = 128;
  std::vector<float> out(groups * 256);
  int64_t slots[3] = {reinterpret_cast<int64_t>(out.data()), 32, 10};
  void *args[3] = {&slots[0], &slots[1], &slots[2]};
  std::string errors;
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(runKernel("gfx942", &convShapedKernel, {uint32_t(groups), 1, 1},
                        {256, 1, 1}, 64 * 64, args, errors, "conv", 2))
      << errors;
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  printf("[ emu      ] conv-shaped: %lld workgroups x 256 work-items, 64 "
         "barriers and 320 MFMAs per wave: %.2f s on 2 threads\n",
         (long long)groups, seconds);
}

} // namespace
