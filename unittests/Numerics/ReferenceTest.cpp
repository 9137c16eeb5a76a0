//===- ReferenceTest.cpp - Sanity checks of the numerics reference --------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The reference is only worth something if it is right, so it is checked two
// ways: tiny cases whose expected values are worked out by hand in the
// comments, and identities on random data that tie the ops together (the
// backward convolutions are the adjoints of the forward one; the layer-norm
// gradients match finite differences of the forward).
//
//===----------------------------------------------------------------------===//

#include "Boo/Reference/Reference.h"
#include "Tolerance.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace boo::ref;
using boo::ElementType;

namespace {

Tensor makeTensor(std::vector<int64_t> shape, std::vector<double> values) {
  Tensor t(std::move(shape));
  EXPECT_EQ(t.size(), static_cast<int64_t>(values.size()));
  t.data = std::move(values);
  return t;
}

void expectValues(const Tensor &t, const std::vector<double> &expected,
                  double tol = 1e-12) {
  ASSERT_EQ(t.size(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(t.data[i], expected[i], tol) << "at index " << i;
}

ConvProblem conv1D(int64_t c, int64_t k, int64_t w, int64_t x) {
  ConvProblem p = ConvProblem::withDefaults(1);
  p.inChannels = c;
  p.outChannels = k;
  p.inSpatial = {w};
  p.filterSpatial = {x};
  return p;
}

//===----------------------------------------------------------------------===//
// Storage types
//===----------------------------------------------------------------------===//

TEST(ReferenceDType, Rounding) {
  // bf16 has 8 significant bits: around 1 the spacing is 2^-7.
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even
  // significand, 1.
  EXPECT_EQ(roundTo(1.0 + std::ldexp(1, -8), ElementType::BF16), 1.0);
  // 1 + 3*2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(roundTo(1.0 + 3 * std::ldexp(1, -8), ElementType::BF16),
            1.0 + std::ldexp(1, -6));
  // Just above the tie rounds up.
  EXPECT_EQ(roundTo(1.0 + std::ldexp(1, -8) + 1e-9, ElementType::BF16),
            1.0 + std::ldexp(1, -7));
  // f16: spacing 2^-10 around 1; 1 + 2^-11 ties to 1.
  EXPECT_EQ(roundTo(1.0 + std::ldexp(1, -11), ElementType::F16), 1.0);
  EXPECT_EQ(roundTo(-3.14159, ElementType::F16), -3.140625); // 3 + 144/1024
  // f16 max is 65504; 65520 is the midpoint to 65536 and rounds (to even)
  // to infinity.
  EXPECT_EQ(roundTo(65504.0, ElementType::F16), 65504.0);
  EXPECT_TRUE(std::isinf(roundTo(65520.0, ElementType::F16)));
  EXPECT_EQ(roundTo(65519.0, ElementType::F16), 65504.0);
  // f16 subnormals are multiples of 2^-24: 1.4 * 2^-24 rounds to 2^-24,
  // 0.5 * 2^-24 ties to 0.
  EXPECT_EQ(roundTo(1.4 * std::ldexp(1, -24), ElementType::F16),
            std::ldexp(1, -24));
  EXPECT_EQ(roundTo(0.5 * std::ldexp(1, -24), ElementType::F16), 0.0);
  // f32 agrees with the hardware conversion.
  EXPECT_EQ(roundTo(0.1, ElementType::F32), static_cast<double>(0.1f));
}

TEST(ReferenceDType, Encoding) {
  EXPECT_EQ(encode(1.0, ElementType::BF16), 0x3F80u);
  EXPECT_EQ(encode(-2.0, ElementType::BF16), 0xC000u);
  EXPECT_EQ(encode(1.0, ElementType::F16), 0x3C00u);
  EXPECT_EQ(encode(-2.0, ElementType::F16), 0xC000u);
  EXPECT_EQ(encode(65504.0, ElementType::F16), 0x7BFFu);
  EXPECT_EQ(encode(std::ldexp(1, -24), ElementType::F16), 0x0001u);
  EXPECT_EQ(encode(std::ldexp(1, -14), ElementType::F16), 0x0400u);
  EXPECT_EQ(encode(1.0, ElementType::F32), 0x3F800000u);
  EXPECT_EQ(encode(1.0, ElementType::F64), 0x3FF0000000000000u);
  EXPECT_EQ(encode(-0.1, ElementType::F64), 0xBFB999999999999Au);
  // Round trips over random values of every type.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-100, 100);
  for (ElementType t : {ElementType::F32, ElementType::F16, ElementType::BF16,
                        ElementType::F64})
    for (int i = 0; i < 1000; ++i) {
      double v = roundTo(dist(rng) * std::ldexp(1, i % 20 - 10), t);
      EXPECT_EQ(decode(encode(v, t), t), v) << getElementTypeName(t);
    }
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

std::vector<int> parse(const std::string &layout, LayoutRole role, int rank) {
  std::vector<int> perm;
  std::string error;
  EXPECT_TRUE(parseLayout(layout, role, rank, perm, error)) << error;
  return perm;
}

TEST(ReferenceLayout, Parse) {
  // perm[canonical dim] = position; canonical is (N, C, spatial...).
  EXPECT_EQ(parse("NCHW", LayoutRole::Activation, 2),
            (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(parse("NHWC", LayoutRole::Activation, 2),
            (std::vector<int>{0, 3, 1, 2}));
  EXPECT_EQ(parse("HCWN", LayoutRole::Activation, 2),
            (std::vector<int>{3, 1, 0, 2}));
  EXPECT_EQ(parse("NDHWC", LayoutRole::Activation, 3),
            (std::vector<int>{0, 4, 1, 2, 3}));
  EXPECT_EQ(parse("NWC", LayoutRole::Activation, 1),
            (std::vector<int>{0, 2, 1}));
  // Filters: (K, C, spatial...). MIOpen spells filters with activation
  // letters: "NHWC" is K, Y, X, C.
  EXPECT_EQ(parse("NHWC", LayoutRole::Filter, 2),
            (std::vector<int>{0, 3, 1, 2}));
  EXPECT_EQ(parse("KYXC", LayoutRole::Filter, 2),
            (std::vector<int>{0, 3, 1, 2}));
  EXPECT_EQ(parse("YCXK", LayoutRole::Filter, 2),
            (std::vector<int>{3, 1, 0, 2}));
  EXPECT_EQ(parse("FCX", LayoutRole::Filter, 1), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parse("NCDHW", LayoutRole::Filter, 3),
            (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(parse("ZYXCK", LayoutRole::Filter, 3),
            (std::vector<int>{4, 3, 0, 1, 2}));

  std::vector<int> perm;
  std::string error;
  EXPECT_FALSE(parseLayout("NCHW", LayoutRole::Activation, 1, perm, error));
  EXPECT_FALSE(parseLayout("NCXW", LayoutRole::Activation, 2, perm, error));
  EXPECT_FALSE(parseLayout("NCHH", LayoutRole::Activation, 2, perm, error));
  EXPECT_FALSE(parseLayout("KCDW", LayoutRole::Filter, 2, perm, error));
  EXPECT_EQ(defaultLayout(LayoutRole::Activation, 1), "NCW");
  EXPECT_EQ(defaultLayout(LayoutRole::Filter, 3), "KCZYX");
}

//===----------------------------------------------------------------------===//
// Convolution by hand
//===----------------------------------------------------------------------===//

TEST(ReferenceConv, Forward1D) {
  // [1 2 3] (*) [1 1]: out W = (3 - 1*(2-1) - 1)/1 + 1 = 2.
  //   y0 = 1*1 + 2*1 = 3, y1 = 2*1 + 3*1 = 5.
  ConvProblem p = conv1D(1, 1, 3, 2);
  Tensor x = makeTensor({1, 1, 3}, {1, 2, 3});
  Tensor w = makeTensor({1, 1, 2}, {1, 1});
  expectValues(convForward(p, x, w, nullptr), {3, 5});

  // With bias 0.5: [3.5 5.5].
  Tensor b = makeTensor({1}, {0.5});
  expectValues(convForward(p, x, w, &b), {3.5, 5.5});

  // Padding 1 on both sides reads [0 1 2 3 0]; out W = (3+2-1-1)/1+1 = 4:
  //   [0+1, 1+2, 2+3, 3+0] = [1 3 5 3].
  p.padLow = {1};
  p.padHigh = {1};
  expectValues(convForward(p, x, w, nullptr), {1, 3, 5, 3});

  // Asymmetric: padLow 2, padHigh 0 reads [0 0 1 2 3]; out W = 4:
  //   [0, 1, 3, 5].
  p.padLow = {2};
  p.padHigh = {0};
  expectValues(convForward(p, x, w, nullptr), {0, 1, 3, 5});
}

TEST(ReferenceConv, StrideDilation1D) {
  // x = [1 2 3 4 5], w = [1 10], dilation 2: y[o] = x[o] + 10 x[o+2],
  // out W = (5 - 2*1 - 1)/1 + 1 = 3: [1+30, 2+40, 3+50] = [31 42 53].
  ConvProblem p = conv1D(1, 1, 5, 2);
  p.dilations = {2};
  Tensor x = makeTensor({1, 1, 5}, {1, 2, 3, 4, 5});
  Tensor w = makeTensor({1, 1, 2}, {1, 10});
  expectValues(convForward(p, x, w, nullptr), {31, 42, 53});
  // Stride 2: out W = (5-2-1)/2 + 1 = 2, positions 0 and 2: [31 53].
  p.strides = {2};
  expectValues(convForward(p, x, w, nullptr), {31, 53});
  // Stride 3 > kernel extent 3... with dilation 1 and a 1-tap kernel
  // [2]: out W = (5-0-1)/3+1 = 2, positions 0 and 3: [2 8].
  ConvProblem q = conv1D(1, 1, 5, 1);
  q.strides = {3};
  expectValues(convForward(q, x, makeTensor({1, 1, 1}, {2}), nullptr), {2, 8});
}

TEST(ReferenceConv, Groups) {
  // 2 groups, C = K = 2, one channel per group, 1-tap filters [2] and [3]:
  // y[k=0] = 2 x[c=0], y[k=1] = 3 x[c=1].
  ConvProblem p = conv1D(2, 2, 2, 1);
  p.groups = 2;
  Tensor x = makeTensor({1, 2, 2}, {1, 2, 10, 20});
  Tensor w = makeTensor({2, 1, 1}, {2, 3});
  expectValues(convForward(p, x, w, nullptr), {2, 4, 30, 60});

  // 2 groups, C = 4, K = 2: k=0 sees c=0,1 and k=1 sees c=2,3.
  // Filters (K=2, C/G=2, X=1): k0 = [1 10], k1 = [100 1000].
  // x channels (W=1): [1 2 3 4] -> y0 = 1 + 20 = 21, y1 = 300 + 4000 = 4300.
  ConvProblem q = conv1D(4, 2, 1, 1);
  q.groups = 2;
  expectValues(convForward(q, makeTensor({1, 4, 1}, {1, 2, 3, 4}),
                           makeTensor({2, 2, 1}, {1, 10, 100, 1000}), nullptr),
               {21, 4300});
}

TEST(ReferenceConv, LayoutNHWC) {
  // N=1, C=2, H=W=2, K=1, 1x1 filter [1 10] over C: y = x_c0 + 10 x_c1.
  // x stored NHWC (C fastest): pixel (0,0) = (1,2), (0,1) = (3,4),
  // (1,0) = (5,6), (1,1) = (7,8) -> y = [21 43 65 87] (NHWC, C=1).
  ConvProblem p = ConvProblem::withDefaults(2);
  p.inChannels = 2;
  p.outChannels = 1;
  p.inSpatial = {2, 2};
  p.filterSpatial = {1, 1};
  p.inputLayout = p.outputLayout = "NHWC";
  p.filterLayout = "KYXC";
  EXPECT_EQ(p.inputShape(), (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_EQ(p.filterShape(), (std::vector<int64_t>{1, 1, 1, 2}));
  Tensor x = makeTensor({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor w = makeTensor({1, 1, 1, 2}, {1, 10});
  expectValues(convForward(p, x, w, nullptr), {21, 43, 65, 87});
}

TEST(ReferenceConv, Backward1D) {
  // Forward: y0 = x0 + x1, y1 = x1 + x2 (w = [1 1]).
  // bwd-data with dy = [1 1]: dx0 = dy0, dx1 = dy0 + dy1, dx2 = dy1 = [1 2 1].
  ConvProblem p = conv1D(1, 1, 3, 2);
  Tensor w = makeTensor({1, 1, 2}, {1, 1});
  expectValues(convBackwardData(p, makeTensor({1, 1, 2}, {1, 1}), w),
               {1, 2, 1});
  // bwd-weight with x = [1 2 3], dy = [1 1]:
  //   dw0 = dy0 x0 + dy1 x1 = 3, dw1 = dy0 x1 + dy1 x2 = 5.
  expectValues(convBackwardWeight(p, makeTensor({1, 1, 2}, {1, 1}),
                                  makeTensor({1, 1, 3}, {1, 2, 3})),
               {3, 5});
  // Stride 2 over W = 4 with a 2-tap kernel [1 2]: out W = (4-1-1)/2+1 = 2,
  // y0 = x0 + 2 x1, y1 = x2 + 2 x3. dy = [1 10]:
  //   dx = [1, 2, 10, 20].
  ConvProblem q = conv1D(1, 1, 4, 2);
  q.strides = {2};
  expectValues(convBackwardData(q, makeTensor({1, 1, 2}, {1, 10}),
                                makeTensor({1, 1, 2}, {1, 2})),
               {1, 2, 10, 20});
  // Stride 2 over W = 3: out W = 1, y0 = x0 + 2 x1; x2 is never read,
  // so dx2 = 0: dy = [5] -> dx = [5 10 0].
  ConvProblem r = conv1D(1, 1, 3, 2);
  r.strides = {2};
  expectValues(convBackwardData(r, makeTensor({1, 1, 1}, {5}),
                                makeTensor({1, 1, 2}, {1, 2})),
               {5, 10, 0});
  // Padding 1 and stride 2 over W = 3, kernel [1 2]: padded input
  // [0 x0 x1 x2 0], out W = (3+2-1-1)/2+1 = 2: y0 = 0 + 2 x0,
  // y1 = x1 + 2 x2. dy = [1 10]: dx = [2, 10, 20].
  ConvProblem s = conv1D(1, 1, 3, 2);
  s.strides = {2};
  s.padLow = s.padHigh = {1};
  expectValues(convBackwardData(s, makeTensor({1, 1, 2}, {1, 10}),
                                makeTensor({1, 1, 2}, {1, 2})),
               {2, 10, 20});
}

TEST(ReferenceConv, BackwardBias) {
  // dy (N=2, C=2, W=2) = [[1 2][3 4]] [[5 6][7 8]]:
  //   db0 = 1+2+5+6 = 14, db1 = 3+4+7+8 = 22.
  Tensor dy = makeTensor({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  expectValues(convBackwardBias(dy, 1), {14, 22});
  // Same data read as NWC (channels last): db0 = 1+3+5+7 = 16, db1 = 20.
  expectValues(convBackwardBias(dy, 2), {16, 20});
}

//===----------------------------------------------------------------------===//
// Convolution identities on random problems
//===----------------------------------------------------------------------===//

Tensor randomTensor(std::vector<int64_t> shape, std::mt19937_64 &rng) {
  Tensor t(std::move(shape));
  std::uniform_real_distribution<double> dist(-1, 1);
  for (double &v : t.data)
    v = dist(rng);
  return t;
}

double dot(const Tensor &a, const Tensor &b) {
  EXPECT_EQ(a.shape, b.shape);
  double s = 0;
  for (int64_t i = 0; i < a.size(); ++i)
    s += a.data[i] * b.data[i];
  return s;
}

/// Copies `t`, stored in layout `from`, into layout `to` (both spelled for
/// `role`), by explicit index arithmetic with hand-written permutations.
Tensor relayout(const Tensor &t, const std::vector<int> &fromPerm,
                const std::vector<int> &toPerm) {
  size_t rank = t.shape.size();
  std::vector<int64_t> canonical(rank), toShape(rank);
  for (size_t i = 0; i < rank; ++i)
    canonical[i] = t.shape[fromPerm[i]];
  for (size_t i = 0; i < rank; ++i)
    toShape[toPerm[i]] = canonical[i];
  Tensor out(toShape);
  std::vector<int64_t> idx(rank, 0); // canonical index
  for (int64_t lin = 0; lin < out.size(); ++lin) {
    int64_t src = 0, dst = 0;
    for (size_t i = 0; i < rank; ++i) {
      // Row-major offsets, computed dim by dim.
      int64_t srcStride = 1, dstStride = 1;
      for (size_t j = fromPerm[i] + 1; j < rank; ++j)
        srcStride *= t.shape[j];
      for (size_t j = toPerm[i] + 1; j < rank; ++j)
        dstStride *= toShape[j];
      src += idx[i] * srcStride;
      dst += idx[i] * dstStride;
    }
    out.data[dst] = t.data[src];
    for (int i = static_cast<int>(rank) - 1; i >= 0; --i) {
      if (++idx[i] < canonical[i])
        break;
      idx[i] = 0;
    }
  }
  return out;
}

TEST(ReferenceConv, LayoutsArePermutations) {
  // A 2-D grouped, strided, padded problem computed in NCHW/KCYX and in
  // HCWN/YCXK/WHNC must agree element for element after relayout.
  std::mt19937_64 rng(11);
  ConvProblem p = ConvProblem::withDefaults(2);
  p.batch = 2;
  p.inChannels = 4;
  p.outChannels = 6;
  p.groups = 2;
  p.inSpatial = {5, 6};
  p.filterSpatial = {3, 2};
  p.strides = {2, 1};
  p.dilations = {1, 2};
  p.padLow = {1, 0};
  p.padHigh = {0, 2};
  std::string error;
  ASSERT_TRUE(p.validate(error)) << error;
  Tensor x = randomTensor(p.inputShape(), rng);
  Tensor w = randomTensor(p.filterShape(), rng);
  Tensor y = convForward(p, x, w, nullptr);

  ConvProblem q = p;
  q.inputLayout = "HCWN";  // N->3, C->1, H->0, W->2
  q.filterLayout = "YCXK"; // K->3, C->1, Y->0, X->2
  q.outputLayout = "WHNC"; // N->2, C->3, H->1, W->0
  std::vector<int> identity = {0, 1, 2, 3};
  Tensor xq = relayout(x, identity, {3, 1, 0, 2});
  Tensor wq = relayout(w, identity, {3, 1, 0, 2});
  Tensor yq = convForward(q, xq, wq, nullptr);
  Tensor expected = relayout(y, identity, {2, 3, 1, 0});
  ASSERT_EQ(yq.shape, expected.shape);
  for (int64_t i = 0; i < yq.size(); ++i)
    EXPECT_EQ(yq.data[i], expected.data[i]) << i;
}

TEST(ReferenceConv, AdjointIdentity) {
  // <conv(x, w), dy> = <x, bwd_data(dy, w)> = <w, bwd_weight(dy, x)>: the
  // forward is bilinear, and the backward ops are its two adjoints.
  std::mt19937_64 rng(1234);
  const char *act2[] = {"NCHW", "NHWC", "HCWN", "CHWN"};
  const char *fil2[] = {"KCYX", "KYXC", "YCXK", "NHWC"};
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::uniform_int_distribution<int> pick(0, 1 << 20);
    auto r = [&](int lo, int hi) { return lo + pick(rng) % (hi - lo + 1); };
    int rank = r(1, 3);
    ConvProblem p = ConvProblem::withDefaults(rank);
    p.groups = r(1, 3);
    p.inChannels = p.groups * r(1, 3);
    p.outChannels = p.groups * r(1, 3);
    p.batch = r(1, 2);
    for (int d = 0; d < rank; ++d) {
      p.inSpatial[d] = r(1, rank == 3 ? 5 : 8);
      p.filterSpatial[d] = r(1, 3);
      p.strides[d] = r(1, 3);
      p.dilations[d] = r(1, 2);
      p.padLow[d] = r(0, 2);
      p.padHigh[d] = r(0, 2);
    }
    if (rank == 2) {
      p.inputLayout = act2[r(0, 3)];
      p.filterLayout = fil2[r(0, 3)];
      p.outputLayout = act2[r(0, 3)];
    } else if (rank == 1 && r(0, 1)) {
      p.inputLayout = p.outputLayout = "NWC";
      p.filterLayout = "XCK";
    }
    std::string error;
    if (!p.validate(error))
      continue;
    Tensor x = randomTensor(p.inputShape(), rng);
    Tensor w = randomTensor(p.filterShape(), rng);
    Tensor dy = randomTensor(p.outputShape(), rng);
    double a = dot(convForward(p, x, w, nullptr), dy);
    double b = dot(x, convBackwardData(p, dy, w));
    double c = dot(w, convBackwardWeight(p, dy, x));
    double scale = 1 + std::fabs(a);
    EXPECT_NEAR(a, b, 1e-12 * scale) << p.describe();
    EXPECT_NEAR(a, c, 1e-12 * scale) << p.describe();
    // The bias gradient is the adjoint of the bias term: <1_k, ...>.
    Tensor bias = randomTensor({p.outChannels}, rng);
    Tensor zeroIn(p.inputShape());
    std::vector<int> perm;
    parseLayout(p.outputLayout, LayoutRole::Activation, rank, perm, error);
    double d = dot(convForward(p, zeroIn, w, &bias), dy);
    double e = dot(bias, convBackwardBias(dy, perm[1]));
    EXPECT_NEAR(d, e, 1e-12 * (1 + std::fabs(d))) << p.describe();
    ++checked;
  }
  EXPECT_GT(checked, 100);
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

TEST(ReferenceMatmul, ByHand) {
  // A = [1 2 3; 4 5 6] (2x3), B = [1 0; 0 1; 1 1] (3x2):
  //   A B = [1+3, 2+3; 4+6, 5+6] = [4 5; 10 11].
  Tensor a = makeTensor({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = makeTensor({3, 2}, {1, 0, 0, 1, 1, 1});
  expectValues(matmul(a, b, false, false, 1.0, nullptr, 1.0), {4, 5, 10, 11});

  // The same operands stored transposed: A^T is 3x2, B^T is 2x3.
  Tensor at = makeTensor({3, 2}, {1, 4, 2, 5, 3, 6});
  Tensor bt = makeTensor({2, 3}, {1, 0, 1, 0, 1, 1});
  expectValues(matmul(at, bt, true, true, 1.0, nullptr, 1.0), {4, 5, 10, 11});

  // alpha 2 and a row bias [10 20] scaled by beta 0.5:
  //   2 [4 5; 10 11] + [5 10; 5 10] = [13 20; 25 32].
  Tensor row = makeTensor({2}, {10, 20});
  expectValues(matmul(a, b, false, false, 2.0, &row, 0.5), {13, 20, 25, 32});

  // A column bias [[1]; [2]] (2x1) adds 1 to row 0 and 2 to row 1.
  Tensor col = makeTensor({2, 1}, {1, 2});
  expectValues(matmul(a, b, false, false, 1.0, &col, 1.0), {5, 6, 12, 13});

  // Batched: batch 1 is batch 0's A times -1: its product is negated.
  Tensor a2 = makeTensor({2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6});
  Tensor b2 = makeTensor({2, 3, 2}, {1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1});
  expectValues(matmul(a2, b2, false, false, 1.0, nullptr, 1.0),
               {4, 5, 10, 11, -4, -5, -10, -11});
}

TEST(ReferenceLayerNorm, ByHand) {
  // x = [1 2 3 6]: mean = 12/4 = 3, var = (4 + 1 + 0 + 9)/4 = 3.5,
  // rstd = 1/sqrt(3.5) = 0.5345224838248488 (epsilon 0),
  // xhat = [-2 -1 0 3] * rstd.
  Tensor x = makeTensor({1, 4}, {1, 2, 3, 6});
  LayerNormResult r = layerNormForward(x, 1, nullptr, nullptr, 0.0);
  const double rs = 0.5345224838248488;
  expectValues(r.mean, {3});
  expectValues(r.rstd, {rs});
  expectValues(r.y, {-2 * rs, -rs, 0, 3 * rs});
  // weight [1 2 1 1], bias [0 0 1 0]: y = [-2rs, -2rs, 1, 3rs].
  Tensor w = makeTensor({4}, {1, 2, 1, 1});
  Tensor b = makeTensor({4}, {0, 0, 1, 0});
  expectValues(layerNormForward(x, 1, &w, &b, 0.0).y,
               {-2 * rs, -2 * rs, 1, 3 * rs});
  // epsilon 0.5: rstd = 1/sqrt(4) = 0.5.
  expectValues(layerNormForward(x, 1, nullptr, nullptr, 0.5).rstd, {0.5});
  // normalized_rank 2 on 2x2: one row [1 2 3 6], same statistics.
  Tensor x2 = makeTensor({2, 2}, {1, 2, 3, 6});
  LayerNormResult r2 = layerNormForward(x2, 2, nullptr, nullptr, 0.0);
  EXPECT_EQ(r2.mean.shape, std::vector<int64_t>{});
  expectValues(r2.mean, {3});

  // Backward with dy = [1 1 1 1] and no weight: g = 1, mean(g) = 1,
  // mean(g xhat) = 0 (xhat sums to 0) -> dx = rstd (1 - 1 - 0) = 0.
  // dbias = dy = [1 1 1 1], dweight = xhat.
  LayerNormGrads gr = layerNormBackward(makeTensor({1, 4}, {1, 1, 1, 1}), x,
                                        r.mean, r.rstd, nullptr, 1);
  expectValues(gr.dx, {0, 0, 0, 0});
  expectValues(gr.dbias, {1, 1, 1, 1});
  expectValues(gr.dweight, {-2 * rs, -rs, 0, 3 * rs});
}

TEST(ReferenceLayerNorm, BackwardMatchesFiniteDifferences) {
  // L(x, w, b) = <layer_norm(x; w, b), dy>. The backward ops must give its
  // gradients, including the paths through mean and rstd.
  std::mt19937_64 rng(99);
  for (bool withWeight : {false, true})
    for (int nr : {1, 2}) {
      Tensor x = randomTensor({3, 2, 5}, rng);
      Tensor w = randomTensor(
          nr == 1 ? std::vector<int64_t>{5} : std::vector<int64_t>{2, 5}, rng);
      Tensor b = randomTensor(w.shape, rng);
      Tensor dy = randomTensor(x.shape, rng);
      const double eps = 1e-3;
      const Tensor *wp = withWeight ? &w : nullptr;
      auto loss = [&](const Tensor &xv, const Tensor &wv, const Tensor &bv) {
        return dot(
            layerNormForward(xv, nr, withWeight ? &wv : nullptr, &bv, eps).y,
            dy);
      };
      LayerNormResult fwd = layerNormForward(x, nr, wp, &b, eps);
      LayerNormGrads g = layerNormBackward(dy, x, fwd.mean, fwd.rstd, wp, nr);
      const double h = 1e-6;
      auto fd = [&](Tensor &t, int64_t i) {
        double saved = t.data[i];
        t.data[i] = saved + h;
        double up = loss(x, w, b);
        t.data[i] = saved - h;
        double down = loss(x, w, b);
        t.data[i] = saved;
        return (up - down) / (2 * h);
      };
      for (int64_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(g.dx.data[i], fd(x, i), 1e-6) << "dx " << i;
      for (int64_t i = 0; i < b.size(); ++i)
        EXPECT_NEAR(g.dbias.data[i], fd(b, i), 1e-6) << "dbias " << i;
      if (withWeight)
        for (int64_t i = 0; i < w.size(); ++i)
          EXPECT_NEAR(g.dweight.data[i], fd(w, i), 1e-6) << "dweight " << i;
    }
}

//===----------------------------------------------------------------------===//
// Batch norm
//===----------------------------------------------------------------------===//

TEST(ReferenceBatchNorm, SpatialByHand) {
  // NCHW 2x2x1x2, statistics per channel (dim 1), epsilon 0:
  //   channel 0 = [1 3 | 5 7]: mean 4, squares 9+1+1+9 = 20, var 5,
  //   channel 1 = [2 2 | 0 4]: mean 2, squares 0+0+4+4 = 8, var 2.
  Tensor x = makeTensor({2, 2, 1, 2}, {1, 3, 2, 2, 5, 7, 0, 4});
  Tensor w = makeTensor({2}, {2, 1}), b = makeTensor({2}, {0.5, -1});
  const double r0 = 0.4472135954999579; // 1/sqrt(5)
  const double r1 = 0.7071067811865476; // 1/sqrt(2)
  BatchNormResult r =
      batchNormForward(x, {1}, w, b, nullptr, nullptr, true, 0.0, 0.1);
  expectValues(r.mean, {4, 2});
  expectValues(r.rstd, {r0, r1});
  // y = (x - mean) rstd w + b: channel 0 (x - 4) 2 r0 + 0.5, channel 1
  // (x - 2) r1 - 1.
  expectValues(r.y, {-6 * r0 + 0.5, -2 * r0 + 0.5, -1, -1, 2 * r0 + 0.5,
                     6 * r0 + 0.5, -2 * r1 - 1, 2 * r1 - 1});
  EXPECT_EQ(r.newRunningMean.size(), 0);
  // Inference without running statistics normalizes with the batch's.
  expectValues(
      batchNormForward(x, {1}, w, b, nullptr, nullptr, false, 0.0, 0.1).y,
      r.y.data);
  // epsilon 4: rstd = 1/sqrt(5 + 4) = 1/3 and 1/sqrt(6).
  expectValues(
      batchNormForward(x, {1}, w, b, nullptr, nullptr, true, 4.0, 0.1).rstd,
      {1.0 / 3, 0.4082482904638630});

  // Running mean [1 0], variance [2 4], momentum 0.1. Training: y as above;
  // new mean = 0.9 [1 0] + 0.1 [4 2] = [1.3 0.2], new variance with the
  // unbiased batch variance (20/3, 8/3): 0.9 [2 4] + 0.1 [20/3 8/3].
  Tensor rm = makeTensor({2}, {1, 0}), rv = makeTensor({2}, {2, 4});
  BatchNormResult t = batchNormForward(x, {1}, w, b, &rm, &rv, true, 0.0, 0.1);
  expectValues(t.y, r.y.data);
  expectValues(t.newRunningMean, {1.3, 0.2});
  expectValues(t.newRunningVar, {2.4666666666666667, 3.8666666666666667});
  // Inference: mean [1 0], rstd [1/sqrt(2) 1/2]; channel 0 (x - 1) 2 r1 +
  // 0.5, channel 1 x / 2 - 1.
  BatchNormResult inf =
      batchNormForward(x, {1}, w, b, &rm, &rv, false, 0.0, 0.1);
  expectValues(inf.rstd, {r1, 0.5});
  expectValues(inf.y,
               {0.5, 4 * r1 + 0.5, 0, 0, 8 * r1 + 0.5, 12 * r1 + 0.5, -1, 1});
  EXPECT_EQ(inf.newRunningVar.size(), 0);

  // Backward, dy = [1 0 | 0 1 | 0 0 | 1 1] (n0c0 | n0c1 | n1c0 | n1c1), M 4.
  // Channel 0: xhat = [-3 -1 1 3] r0, dbias = 1, dweight = -3 r0;
  //   dy - 1/4 - xhat dweight / 4 = dy - 0.25 + 0.15 [-3 -1 1 3]
  //   = [0.3 -0.4 -0.1 0.2], dx = 2 r0 times that.
  // Channel 1: xhat = [0 0 -2 2] r1, dbias = 3, dweight = 0;
  //   dx = r1 (dy - 0.75) = r1 [-0.75 0.25 0.25 0.25].
  Tensor dy = makeTensor(x.shape, {1, 0, 0, 1, 0, 0, 1, 1});
  BatchNormGrads g = batchNormBackward(dy, x, r.mean, r.rstd, w, {1});
  expectValues(g.dbias, {1, 3});
  expectValues(g.dweight, {-3 * r0, 0});
  expectValues(g.dx, {0.6 * r0, -0.8 * r0, -0.75 * r1, 0.25 * r1, -0.2 * r0,
                      0.4 * r0, 0.25 * r1, 0.25 * r1});
}

TEST(ReferenceBatchNorm, PerActivationByHand) {
  // NCHW 2x2x1x2 per activation (dims 1, 2, 3 kept, N reduced, M = 2):
  // features [1 3], [2 6], [3 5], [4 0]: means [2 4 4 2], variances
  // [1 4 1 4], rstd [1 .5 1 .5] (epsilon 0).
  Tensor x = makeTensor({2, 2, 1, 2}, {1, 2, 3, 4, 3, 6, 5, 0});
  Tensor ones({2, 1, 2}, 1.0), zeros({2, 1, 2});
  BatchNormResult r =
      batchNormForward(x, {1, 2, 3}, ones, zeros, &zeros, &zeros, true, 0, 0.1);
  EXPECT_EQ(r.mean.shape, (std::vector<int64_t>{2, 1, 2}));
  expectValues(r.mean, {2, 4, 4, 2});
  expectValues(r.rstd, {1, 0.5, 1, 0.5});
  expectValues(r.y, {-1, -1, -1, 1, 1, 1, 1, -1});
  // From zero: 0.1 mean and 0.1 * 2/1 * variance.
  expectValues(r.newRunningMean, {0.2, 0.4, 0.4, 0.2});
  expectValues(r.newRunningVar, {0.2, 0.8, 0.2, 0.8});

  // M = 1: the variance is 0, and the running one takes the biased 0.
  Tensor x1 = makeTensor({1, 3}, {1, 2, 3});
  Tensor rv = makeTensor({3}, {1, 1, 1}), w3({3}, 1.0), b3({3});
  BatchNormResult one =
      batchNormForward(x1, {1}, w3, b3, &b3, &rv, true, 1.0, 0.1);
  expectValues(one.y, {0, 0, 0});
  expectValues(one.newRunningMean, {0.1, 0.2, 0.3});
  expectValues(one.newRunningVar, {0.9, 0.9, 0.9});
}

TEST(ReferenceBatchNorm, BackwardMatchesFiniteDifferences) {
  // L(x, w, b) = <batch_norm(x; w, b), dy> in training: the backward's
  // gradients, through the batch mean and rstd, for channels-last spatial
  // and per-activation statistics.
  std::mt19937_64 rng(7);
  struct Shape {
    std::vector<int64_t> x;
    std::vector<int> featureDims;
  };
  for (const Shape &s : {Shape{{2, 3, 2, 4}, {3}}, Shape{{3, 2, 2}, {1, 2}}}) {
    Tensor x = randomTensor(s.x, rng), dy = randomTensor(s.x, rng);
    std::vector<int64_t> stat;
    for (int d : s.featureDims)
      stat.push_back(s.x[d]);
    Tensor w = randomTensor(stat, rng), b = randomTensor(stat, rng);
    const double eps = 1e-3;
    auto loss = [&] {
      return dot(batchNormForward(x, s.featureDims, w, b, nullptr, nullptr,
                                  true, eps, 0.1)
                     .y,
                 dy);
    };
    BatchNormResult fwd = batchNormForward(x, s.featureDims, w, b, nullptr,
                                           nullptr, true, eps, 0.1);
    BatchNormGrads g =
        batchNormBackward(dy, x, fwd.mean, fwd.rstd, w, s.featureDims);
    const double h = 1e-6;
    auto fd = [&](Tensor &t, int64_t i) {
      double saved = t.data[i];
      t.data[i] = saved + h;
      double up = loss();
      t.data[i] = saved - h;
      double down = loss();
      t.data[i] = saved;
      return (up - down) / (2 * h);
    };
    for (int64_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(g.dx.data[i], fd(x, i), 1e-6) << "dx " << i;
    for (int64_t i = 0; i < w.size(); ++i) {
      EXPECT_NEAR(g.dweight.data[i], fd(w, i), 1e-6) << "dweight " << i;
      EXPECT_NEAR(g.dbias.data[i], fd(b, i), 1e-6) << "dbias " << i;
    }
  }
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

TEST(ReferenceElementwise, Activations) {
  ActivationParams p;
  EXPECT_EQ(applyActivation(Activation::Relu, -1.5, p), 0.0);
  EXPECT_EQ(applyActivation(Activation::Relu, 2.5, p), 2.5);
  EXPECT_EQ(applyActivation(Activation::Sigmoid, 0.0, p), 0.5);
  // sigmoid(1) = 1/(1 + e^-1) = 0.7310585786300049; silu(1) is the same.
  EXPECT_NEAR(applyActivation(Activation::Sigmoid, 1.0, p), 0.7310585786300049,
              1e-15);
  EXPECT_NEAR(applyActivation(Activation::Silu, 1.0, p), 0.7310585786300049,
              1e-15);
  // silu(-2) = -2 / (1 + e^2) = -2 / 8.38905609893065 = -0.2384058440442351.
  EXPECT_NEAR(applyActivation(Activation::Silu, -2.0, p), -0.2384058440442351,
              1e-15);
  // tanh(0.5) = (e - 1)/(e + 1) = 0.46211715726000974.
  EXPECT_NEAR(applyActivation(Activation::Tanh, 0.5, p), 0.46211715726000974,
              1e-15);
  // gelu(1) = Phi(1), the standard normal CDF at 1: 0.8413447460685429.
  EXPECT_NEAR(applyActivation(Activation::Gelu, 1.0, p), 0.8413447460685429,
              1e-15);
  EXPECT_EQ(applyActivation(Activation::Gelu, 0.0, p), 0.0);
  // gelu_tanh(1) = 0.5 (1 + tanh(sqrt(2/pi) * 1.044715))
  //             = 0.5 (1 + tanh(0.833562...)) = 0.8411919906082768.
  EXPECT_NEAR(applyActivation(Activation::GeluTanh, 1.0, p), 0.8411919906082768,
              1e-15);
  p.alpha = 0.1;
  EXPECT_NEAR(applyActivation(Activation::LeakyRelu, -2.0, p), -0.2, 1e-15);
  EXPECT_EQ(applyActivation(Activation::LeakyRelu, 3.0, p), 3.0);
  p.min = -1;
  p.max = 2;
  EXPECT_EQ(applyActivation(Activation::Clamp, 5.0, p), 2.0);
  EXPECT_EQ(applyActivation(Activation::Clamp, -5.0, p), -1.0);
  EXPECT_EQ(applyActivation(Activation::Clamp, 0.25, p), 0.25);
  EXPECT_STREQ(activationName(Activation::GeluTanh), "gelu_tanh");
}

TEST(ReferenceElementwise, Broadcast) {
  // lhs 2x3, rhs [10 20 30] along dim 1: add -> [11 22 33 14 25 36].
  Tensor lhs = makeTensor({2, 3}, {1, 2, 3, 4, 5, 6});
  expectValues(binary(BinaryKind::Add, lhs, makeTensor({3}, {10, 20, 30}), 1),
               {11, 22, 33, 14, 25, 36});
  // rhs [10 100] along dim 0, mul -> [10 20 30 400 500 600].
  expectValues(binary(BinaryKind::Mul, lhs, makeTensor({2}, {10, 100}), 0),
               {10, 20, 30, 400, 500, 600});
  // Same shape.
  expectValues(binary(BinaryKind::Add, lhs, lhs, -1), {2, 4, 6, 8, 10, 12});
}

//===----------------------------------------------------------------------===//
// The tolerance model
//===----------------------------------------------------------------------===//

/// Dot products of `n` random values of `type`, accumulated the way a kernel
/// may: in f32 in a random order (then rounded once to `type`), or, with
/// `lowPrecision`, rounding to `type` after every step. Returns how many of
/// `trials` results fall outside boundReduction's bound.
int countOutsideBound(ElementType type, int64_t n, bool lowPrecision,
                      int trials, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> dist(-1, 1);
  int outside = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a(n), b(n);
    for (int64_t i = 0; i < n; ++i) {
      a[i] = roundTo(dist(rng), type);
      b[i] = roundTo(dist(rng), type);
    }
    double exactSum = 0, absSum = 0;
    for (int64_t i = 0; i < n; ++i) {
      exactSum += a[i] * b[i];
      absSum += std::fabs(a[i] * b[i]);
    }
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    float acc = 0;
    for (int64_t i : order) {
      acc += static_cast<float>(a[i]) * static_cast<float>(b[i]);
      if (lowPrecision)
        acc = static_cast<float>(roundTo(acc, type));
    }
    double got = roundTo(acc, type);
    Bounded r =
        boundReduction(Tensor({1}, exactSum), Tensor({1}, absSum), n, type);
    if (!(std::fabs(got - exactSum) <= r.bound.data[0]))
      ++outside;
  }
  return outside;
}

TEST(ReferenceTolerance, F32AccumulationIsWithinBound) {
  // The bound is rigorous: no order of f32 accumulation may exceed it.
  std::mt19937_64 rng(5);
  for (ElementType t : {ElementType::F32, ElementType::F16, ElementType::BF16})
    for (int64_t n : {1, 7, 64, 1000, 5000})
      EXPECT_EQ(countOutsideBound(t, n, /*lowPrecision=*/false, 200, rng), 0)
          << getElementTypeName(t) << " n=" << n;
}

TEST(ReferenceTolerance, LowPrecisionAccumulationIsCaught) {
  // Accumulating in the storage type instead of f32 (a real bug) must
  // fail the bound for most long reductions.
  std::mt19937_64 rng(6);
  EXPECT_GT(countOutsideBound(ElementType::BF16, 512, /*lowPrecision=*/true,
                              100, rng),
            50);
  EXPECT_GT(
      countOutsideBound(ElementType::F16, 512, /*lowPrecision=*/true, 100, rng),
      50);
}

TEST(ReferenceTolerance, OneUlpIsCaught) {
  // A bf16 result one ulp off is outside the bound of a short reduction:
  // 1.5 = 1 * 1.5 exactly; the next bf16 up is 1.5 + 2^-7.
  Bounded r =
      boundReduction(Tensor({1}, 1.5), Tensor({1}, 1.5), 1, ElementType::BF16);
  EXPECT_LT(r.bound.data[0], std::ldexp(1, -7));
  EXPECT_GE(r.bound.data[0], 0.0);
}

} // namespace
