//===- EmuMma.cpp - Wave-collective matrix instructions -------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The per-lane layouts (lane l, item i of the lane's fragment), from the
// CDNA3/CDNA4 and RDNA3/RDNA4 instruction set references; docs/Emulator.md
// has the same table.
//
//   CDNA MFMA (wave64), MxNxK with aItems A/B items per lane:
//     A[l % M][(l / M) * aItems + i]       B[(l / N) * aItems + i][l % N]
//     D, M = N = 16 (4 items):  D[4 * (l / 16) + i][l % 16]
//     D, M = N = 32 (16 items): D[8 * (i / 4) + 4 * (l / 32) + i % 4][l % 32]
//   RDNA3 WMMA (wave32) 16x16x16, 16 A/B items, 8 C items:
//     A[l % 16][i]   B[i][l % 16]   D[2 * i + l / 16][l % 16]
//     lanes 16-31 must hold the same A and B as lanes 0-15.
//   RDNA4 WMMA (wave32) 16x16x16, 8 A/B items, 8 C items:
//     A[l % 16][8 * (l / 16) + i]   B[8 * (l / 16) + i][l % 16]
//     D[8 * (l / 16) + i][l % 16]
//
// C has D's layout. A is MxK, B is KxN, D and C are MxN, all row-major
// here.
//
//===----------------------------------------------------------------------===//

#include "EmuMma.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace boo::emu;

namespace {

/// Where one fragment item lies in its matrix.
struct Element {
  int32_t row, col;
};

Element getAElement(MmaLayout layout, const MmaShape &shape, int32_t lane,
                    int32_t item) {
  switch (layout) {
  case MmaLayout::Cdna:
    return {lane % shape.m, (lane / shape.m) * shape.aItems + item};
  case MmaLayout::Rdna3:
    return {lane % 16, item};
  case MmaLayout::Rdna4:
    return {lane % 16, 8 * (lane / 16) + item};
  }
  return {0, 0};
}

Element getBElement(MmaLayout layout, const MmaShape &shape, int32_t lane,
                    int32_t item) {
  switch (layout) {
  case MmaLayout::Cdna:
    return {(lane / shape.n) * shape.aItems + item, lane % shape.n};
  case MmaLayout::Rdna3:
    return {item, lane % 16};
  case MmaLayout::Rdna4:
    return {8 * (lane / 16) + item, lane % 16};
  }
  return {0, 0};
}

/// C and D.
Element getCElement(MmaLayout layout, const MmaShape &shape, int32_t lane,
                    int32_t item) {
  switch (layout) {
  case MmaLayout::Cdna:
    if (shape.m == 16)
      return {4 * (lane / 16) + item, lane % 16};
    return {8 * (item / 4) + 4 * (lane / 32) + item % 4, lane % 32};
  case MmaLayout::Rdna3:
    return {2 * item + lane / 16, lane % 16};
  case MmaLayout::Rdna4:
    return {8 * (lane / 16) + item, lane % 16};
  }
  return {0, 0};
}

const char *getInputTypeName(int32_t inputType) {
  switch (inputType) {
  case kMmaF16:
    return "f16";
  case kMmaBF16:
    return "bf16";
  }
  return "unknown-type";
}

std::string describeShape(const MmaShape &shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.n) + "x" +
         std::to_string(shape.k) + " (" + std::to_string(shape.aItems) +
         " A/B items, " + std::to_string(shape.cItems) + " C items per lane)";
}

std::string hex16(uint16_t value) {
  char text[8];
  snprintf(text, sizeof(text), "0x%04x", value);
  return text;
}

/// The chip's shape for `op`, or null.
const MmaShape *findShape(const ChipInfo &chip, const MmaOp &op) {
  if (op.family != chip.mmaFamily ||
      (op.inputType != kMmaF16 && op.inputType != kMmaBF16))
    return nullptr;
  for (int32_t i = 0; i < chip.mmaShapeCount; ++i) {
    const MmaShape &shape = chip.mmaShapes[i];
    if (shape.m == op.m && shape.n == op.n && shape.k == op.k &&
        shape.aItems == op.aItems && shape.cItems == op.cItems)
      return &shape;
  }
  return nullptr;
}

/// RDNA3 reads A and B from lanes 0-15 only; lanes 16-31 must repeat them.
std::string checkRdna3Halves(const MmaOp &op, const MmaLane *lanes) {
  for (int32_t lane = 16; lane < 32; ++lane) {
    const MmaLane &high = lanes[lane], &low = lanes[lane - 16];
    if (!high.a || !low.a)
      continue;
    for (int operand = 0; operand < 2; ++operand) {
      const uint16_t *h = operand ? high.b : high.a;
      const uint16_t *l = operand ? low.b : low.a;
      for (int32_t item = 0; item < op.aItems; ++item)
        if (h[item] != l[item])
          return "lane " + std::to_string(lane) + "'s " +
                 (operand ? "B" : "A") + " fragment differs from lane " +
                 std::to_string(lane - 16) + "'s (item " +
                 std::to_string(item) + ": " + hex16(h[item]) + " vs " +
                 hex16(l[item]) +
                 "); RDNA3 WMMA needs lanes 16-31 to hold the same A and B "
                 "as lanes 0-15";
    }
  }
  return {};
}

/// The row-major index in A, B and C/D of every (lane, item): looking
/// elements up per lane and item would otherwise dominate an MMA. Built per
/// thread for the last layout and shape used (a kernel uses one or two).
struct LayoutIndex {
  MmaLayout layout;
  MmaShape shape = {0, 0, 0, 0, 0};
  int32_t waveSize = 0;
  // At most 64 lanes x 8 items or 32 lanes x 16 for A and B, 64 x 16 for C.
  uint16_t a[512], b[512], c[1024];
};

const LayoutIndex &getLayoutIndex(const ChipInfo &chip, const MmaShape &shape) {
  thread_local LayoutIndex index;
  if (index.layout == chip.mmaLayout && index.waveSize == chip.waveSize &&
      index.shape.m == shape.m && index.shape.n == shape.n &&
      index.shape.k == shape.k && index.shape.aItems == shape.aItems &&
      index.shape.cItems == shape.cItems)
    return index;
  index.layout = chip.mmaLayout;
  index.shape = shape;
  index.waveSize = chip.waveSize;
  for (int32_t lane = 0; lane < chip.waveSize; ++lane) {
    for (int32_t item = 0; item < shape.aItems; ++item) {
      Element ae = getAElement(chip.mmaLayout, shape, lane, item);
      index.a[lane * shape.aItems + item] = uint16_t(ae.row * shape.k + ae.col);
      Element be = getBElement(chip.mmaLayout, shape, lane, item);
      index.b[lane * shape.aItems + item] = uint16_t(be.row * shape.n + be.col);
    }
    for (int32_t item = 0; item < shape.cItems; ++item) {
      Element ce = getCElement(chip.mmaLayout, shape, lane, item);
      index.c[lane * shape.cItems + item] = uint16_t(ce.row * shape.n + ce.col);
    }
  }
  return index;
}

/// d (m x n) += a (m x k) * b (k x n): for each element one f32 fma per k
/// step in ascending k. The column loop is innermost so that it vectorizes;
/// each element still sees the same sequence of fmas.
[[gnu::always_inline]] inline void multiplyBody(int32_t m, int32_t n, int32_t k,
                                                const float *a, const float *b,
                                                float *d) {
  for (int32_t row = 0; row < m; ++row)
    for (int32_t kk = 0; kk < k; ++kk) {
      float scale = a[row * k + kk];
      for (int32_t col = 0; col < n; ++col)
        d[row * n + col] =
            __builtin_fmaf(scale, b[kk * n + col], d[row * n + col]);
    }
}

#if defined(__x86_64__)
/// Compiled for FMA hardware, where each fma is an instruction rather than a
/// libm call; chosen at run time.
__attribute__((target("avx2,fma"))) void multiplyFma(int32_t m, int32_t n,
                                                     int32_t k, const float *a,
                                                     const float *b, float *d) {
  multiplyBody(m, n, k, a, b, d);
}
#endif

void multiply(int32_t m, int32_t n, int32_t k, const float *a, const float *b,
              float *d) {
#if defined(__x86_64__)
  static const bool hasFma =
      __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  if (hasFma)
    return multiplyFma(m, n, k, a, b, d);
#endif
  multiplyBody(m, n, k, a, b, d);
}

} // namespace

float boo::emu::halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits >> 15) << 31;
  uint32_t exponent = (bits >> 10) & 0x1F;
  uint32_t mantissa = bits & 0x3FF;
  uint32_t result;
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in f32.
    float magnitude = std::ldexp(float(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1F)
    result = sign | 0x7F800000u | mantissa << 13; // Inf, or NaN w/ payload
  else
    result = sign | (exponent - 15 + 127) << 23 | mantissa << 13;
  float value;
  memcpy(&value, &result, sizeof(value));
  return value;
}

float boo::emu::bfloat16ToFloat(uint16_t bits) {
  uint32_t result = uint32_t(bits) << 16;
  float value;
  memcpy(&value, &result, sizeof(value));
  return value;
}

std::string boo::emu::describeMma(const MmaOp &op) {
  return std::string(getMmaFamilyName(MmaFamily(op.family))) + " " +
         getInputTypeName(op.inputType) + " " +
         describeShape({op.m, op.n, op.k, op.aItems, op.cItems});
}

std::string boo::emu::runMma(const ChipInfo &chip, const MmaOp &op,
                             const MmaLane *lanes) {
  const MmaShape *shape = findShape(chip, op);
  if (!shape) {
    for (int32_t lane = 0; lane < chip.waveSize; ++lane)
      if (lanes[lane].a)
        memcpy(lanes[lane].d, lanes[lane].c, sizeof(float) * op.cItems);
    std::string shapes;
    for (int32_t i = 0; i < chip.mmaShapeCount; ++i)
      shapes += (i ? ", " : "") + describeShape(chip.mmaShapes[i]);
    return std::string(chip.name) + " has no " + describeMma(op) + "; its " +
           getMmaFamilyName(chip.mmaFamily) +
           " shapes (f16 or bf16 inputs) are " + shapes;
  }
  std::string problem;
  if (chip.mmaLayout == MmaLayout::Rdna3)
    problem = checkRdna3Halves(op, lanes);

  // Gather. The largest shapes have 32x32 C and 32x16 A / 16x32 B; the
  // layouts cover every element, so only a partial wave needs zeros.
  constexpr int32_t kMaxElements = 32 * 32;
  float a[kMaxElements], b[kMaxElements], c[kMaxElements];
  int32_t m = shape->m, n = shape->n, k = shape->k;
  for (int32_t lane = 0; lane < chip.waveSize; ++lane) {
    if (!lanes[lane].a) {
      std::fill_n(a, m * k, 0.0f);
      std::fill_n(b, k * n, 0.0f);
      std::fill_n(c, m * n, 0.0f);
      break;
    }
  }
  const LayoutIndex &index = getLayoutIndex(chip, *shape);
  bool isF16 = op.inputType == kMmaF16;
  // RDNA3's high half-wave repeats the low one: lanes 0-15 define A and B.
  int32_t abLanes = chip.mmaLayout == MmaLayout::Rdna3 ? 16 : chip.waveSize;
  for (int32_t lane = 0; lane < chip.waveSize; ++lane) {
    const MmaLane &fragments = lanes[lane];
    if (!fragments.a)
      continue;
    if (lane < abLanes) {
      const uint16_t *aAt = index.a + lane * shape->aItems;
      const uint16_t *bAt = index.b + lane * shape->aItems;
      for (int32_t item = 0; item < shape->aItems; ++item) {
        a[aAt[item]] = isF16 ? halfToFloat(fragments.a[item])
                             : bfloat16ToFloat(fragments.a[item]);
        b[bAt[item]] = isF16 ? halfToFloat(fragments.b[item])
                             : bfloat16ToFloat(fragments.b[item]);
      }
    }
    const uint16_t *cAt = index.c + lane * shape->cItems;
    for (int32_t item = 0; item < shape->cItems; ++item)
      c[cAt[item]] = fragments.c[item];
  }

  // D = C + A * B, in place in `c`.
  multiply(m, n, k, a, b, c);

  // Scatter.
  for (int32_t lane = 0; lane < chip.waveSize; ++lane) {
    const MmaLane &fragments = lanes[lane];
    if (!fragments.a)
      continue;
    const uint16_t *dAt = index.c + lane * shape->cItems;
    for (int32_t item = 0; item < shape->cItems; ++item)
      fragments.d[item] = c[dAt[item]];
  }
  return problem;
}
