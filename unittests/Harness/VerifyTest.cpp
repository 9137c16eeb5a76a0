//===- VerifyTest.cpp - Reference results and checks for a driver ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The checks must pass for a correct kernel and fail for wrong ones. A
// correct kernel is simulated by the reference rounded to the result's type,
// with f32 accumulation noise added, and for layer norms by an f32
// implementation written here; wrong ones by a constant offset, noise ten
// times what rounding explains, bf16 accumulation, a NaN and a wrong block.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/Verify.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <random>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
namespace ref = ::boo::ref;
using ref::Tensor;

namespace {

constexpr double kU32 = 0x1p-24;

// Conv forward f32 and bf16 in NHWC, backward data, backward weight with a
// bias gradient, both backward ones (depthwise), 3-D, layer norms, and
// matrix products (batched with alpha and beta * C, bf16, A's gradient),
// batch norms.
const char *const kCommands[] = {
    "conv -n 2 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 -F 1 "
    "--in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 4 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 "
    "-g 2 -F 1 -b 1 --in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convfp16 -n 2 -c 16 -H 10 -W 10 -k 8 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 "
    "-F 2 --in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 4 -c 32 -H 8 -W 8 -k 32 -y 3 -x 3 -p 1 -q 1 -g 4 -F 4 -b 1",
    "conv -n 2 -c 6 -H 12 -W 12 -k 6 -y 3 -x 3 -p 1 -q 1 -g 6 -F 6",
    "conv --spatial_dim 3 -n 1 -c 2 -! 6 -H 7 -W 8 -k 4 -@ 3 -y 2 -x 3 "
    "-$ 1 -p 0 -q 1 -F 1",
    "layernorm -X 32x8x16 -o 1 -m 1 -F 1 --eps 0.001",
    "layernormbfp16 -X 64x48 -o 1 -m 1 -F 1",
    "layernormfp16 -X 16x8x32 -o 2 -m 1 -F 14",
    "layernorm -X 40x50 -o 1 -F 2",
    "layernormbfp16 -X 64x40 -o 1 -m 1 -F 4",
    "layernorm -X 1200x3 -o 1 -F 8",
    "gemm -b 2 -m 33 -k 70 -n 45 -u 1 -A 2 -B 0.5",
    "gemmbfp16 -m 40 -k 64 -n 24 -v 1",
    "gemmfp16 -m 32 -k 64 -n 48 -F 2 -u 1",
    // Batch norms: training (spatial f32 with both statistics, bf16 NHWC,
    // per-activation f16 with f16 statistics), inference with and without
    // running statistics, backward with saved statistics (bf16, f16
    // per-activation) and without (3-D NDHWC).
    "bnorm -n 4 -c 8 -H 8 -W 8 -m 1 -F 1 -s 1 -r 1",
    "bnormbfp16 -n 2 -c 16 -H 6 -W 6 -m 1 -F 1 -s 1 --layout NHWC",
    "bnormfp16 -n 8 -c 4 -H 4 -W 8 -m 0 -F 1 -s 1 -r 1",
    "bnormfp16fp32 -n 2 -c 8 -H 8 -W 8 -m 1 -F 2 -r 1",
    "bnorm -n 4 -c 8 -H 6 -W 6 -m 1 -F 2 --layout NHWC",
    "bnormbfp16fp32 -n 4 -c 8 -H 6 -W 6 -m 1 -b 1 -s 1",
    "bnorm -n 4 -c 8 -D 3 -H 5 -W 6 -m 1 -b 1 --layout NDHWC",
    "bnormfp16 -n 32 -c 3 -H 4 -W 4 -m 0 -b 1 -s 1",
};

MIOpenProblem parse(const char *command) {
  std::string error;
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(command, error);
  EXPECT_TRUE(succeeded(problem)) << command << ": " << error;
  return succeeded(problem) ? *problem : MIOpenProblem();
}

/// Random inputs and the reference results for `command`.
struct Case {
  MIOpenProblem problem;
  std::vector<HostTensor> inputs;
  std::vector<Tensor> expected;
};

Case makeCase(const char *command, InputFill fill = InputFill::Random,
              uint64_t seed = 1) {
  Case run;
  run.problem = parse(command);
  std::string error;
  EXPECT_TRUE(
      succeeded(makeInputs(run.problem, fill, seed, 0.5, run.inputs, error)))
      << error;
  EXPECT_TRUE(
      succeeded(computeReference(run.problem, run.inputs, run.expected, error)))
      << error;
  return run;
}

ElementType refType(ElementType type) {
  return type == ElementType::F16    ? ElementType::F16
         : type == ElementType::BF16 ? ElementType::BF16
                                     : ElementType::F32;
}

double rms(const Tensor &t) {
  double s = 0;
  for (double v : t.data)
    s += v * v;
  return std::sqrt(s / std::max<int64_t>(t.size(), 1));
}

/// A device's results: `values` rounded to each result's type.
std::vector<HostTensor> toDevice(const MIOpenProblem &problem,
                                 const std::vector<Tensor> &values) {
  std::vector<HostTensor> out;
  std::vector<TensorSpec> specs = getProblemSignature(problem).results;
  for (size_t r = 0; r < specs.size(); ++r)
    out.push_back(
        HostTensor::fromDoubles(specs[r].shape, specs[r].type, values[r].data));
  return out;
}

/// A standard normal sample (Box-Muller), the same with every standard
/// library (std::normal_distribution is not).
double normal(std::mt19937_64 &rng) {
  double u1 = (static_cast<double>(rng() >> 11) + 1) * 0x1p-53; // (0, 1]
  double u2 = static_cast<double>(rng() >> 11) * 0x1p-53;
  return std::sqrt(-2 * std::log(u1)) *
         std::cos(2 * 3.14159265358979323846 * u2);
}

/// `expected` plus Gaussian noise of `relStd(r) * rms(expected[r])`.
template <typename Fn>
std::vector<Tensor> addNoise(const std::vector<Tensor> &expected, Fn relStd,
                             uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::vector<Tensor> noisy = expected;
  for (size_t r = 0; r < noisy.size(); ++r) {
    double sigma = relStd(r) * rms(expected[r]);
    for (double &v : noisy[r].data)
      v += sigma * normal(rng);
  }
  return noisy;
}

/// What f32 accumulation in recursive order typically adds, relative to
/// rms(result): u32 sqrt(K / 6).
std::vector<Tensor> withAccumulationNoise(const Case &run) {
  return addNoise(run.expected, [&](size_t r) {
    return kU32 * std::sqrt(getReductionLength(run.problem, r) / 6.0);
  });
}

const CheckResult *findCheck(const std::vector<CheckResult> &checks,
                             const std::string &name) {
  for (const CheckResult &c : checks)
    if (c.name == name)
      return &c;
  return nullptr;
}

void expectAllPass(const std::vector<CheckResult> &checks) {
  EXPECT_FALSE(checks.empty());
  for (const CheckResult &c : checks)
    EXPECT_TRUE(c.passed) << c.name << ": " << c.details;
}

//===----------------------------------------------------------------------===//
// Signatures and inputs
//===----------------------------------------------------------------------===//

void expectSpec(const HostTensor &t, std::vector<int64_t> shape,
                ElementType type) {
  EXPECT_EQ(t.shape, shape);
  EXPECT_EQ(t.type, type);
}

TEST(Verify, InputShapesAndTypes) {
  Case fwd = makeCase(kCommands[1]); // bf16, NHWC, -g 2, -b 1
  ASSERT_EQ(fwd.inputs.size(), 3u);
  expectSpec(fwd.inputs[0], {4, 9, 9, 8}, ElementType::BF16);
  expectSpec(fwd.inputs[1], {16, 3, 3, 4}, ElementType::BF16);
  expectSpec(fwd.inputs[2], {16}, ElementType::BF16);
  ASSERT_EQ(fwd.expected.size(), 1u);
  EXPECT_EQ(fwd.expected[0].shape, (std::vector<int64_t>{4, 5, 5, 16}));

  Case bwdData = makeCase(kCommands[2]); // f16 -F 2: (grad_output, filter)
  ASSERT_EQ(bwdData.inputs.size(), 2u);
  expectSpec(bwdData.inputs[0], {2, 5, 5, 8}, ElementType::F16);
  expectSpec(bwdData.inputs[1], {8, 3, 3, 16}, ElementType::F16);
  ASSERT_EQ(bwdData.expected.size(), 1u);
  EXPECT_EQ(bwdData.expected[0].shape, (std::vector<int64_t>{2, 10, 10, 16}));

  // -F 4 -b 1: (grad_output, input) -> (grad_filter, grad_bias).
  Case bwdWeight = makeCase(kCommands[3]);
  ASSERT_EQ(bwdWeight.inputs.size(), 2u);
  expectSpec(bwdWeight.inputs[0], {4, 32, 8, 8}, ElementType::BF16);
  expectSpec(bwdWeight.inputs[1], {4, 32, 8, 8}, ElementType::BF16);
  ASSERT_EQ(bwdWeight.expected.size(), 2u);
  EXPECT_EQ(bwdWeight.expected[0].shape, (std::vector<int64_t>{32, 8, 3, 3}));
  EXPECT_EQ(bwdWeight.expected[1].shape, (std::vector<int64_t>{32}));

  // -F 6: (grad_output, input, filter) -> (grad_input, grad_filter).
  Case both = makeCase(kCommands[4]);
  ASSERT_EQ(both.inputs.size(), 3u);
  expectSpec(both.inputs[0], {2, 6, 12, 12}, ElementType::F32);
  expectSpec(both.inputs[1], {2, 6, 12, 12}, ElementType::F32);
  expectSpec(both.inputs[2], {6, 1, 3, 3}, ElementType::F32);
  ASSERT_EQ(both.expected.size(), 2u);
  EXPECT_EQ(both.expected[0].shape, (std::vector<int64_t>{2, 6, 12, 12}));
  EXPECT_EQ(both.expected[1].shape, (std::vector<int64_t>{6, 1, 3, 3}));

  // Layer norm forward with -m 1: (x, weight, bias) -> (y, mean, rstd).
  Case norm = makeCase(kCommands[6]);
  ASSERT_EQ(norm.inputs.size(), 3u);
  expectSpec(norm.inputs[0], {32, 8, 16}, ElementType::F32);
  expectSpec(norm.inputs[1], {8, 16}, ElementType::F32);
  expectSpec(norm.inputs[2], {8, 16}, ElementType::F32);
  ASSERT_EQ(norm.expected.size(), 3u);
  EXPECT_EQ(norm.expected[0].shape, (std::vector<int64_t>{32, 8, 16}));
  EXPECT_EQ(norm.expected[1].shape, (std::vector<int64_t>{32}));
  EXPECT_EQ(norm.expected[2].shape, (std::vector<int64_t>{32}));

  // -F 14 f16 with -m 1: (dy, x, weight, bias, mean, rstd), statistics f32.
  Case grads = makeCase(kCommands[8]);
  ASSERT_EQ(grads.inputs.size(), 6u);
  expectSpec(grads.inputs[0], {16, 8, 32}, ElementType::F16);
  expectSpec(grads.inputs[1], {16, 8, 32}, ElementType::F16);
  expectSpec(grads.inputs[2], {32}, ElementType::F16);
  expectSpec(grads.inputs[3], {32}, ElementType::F16);
  expectSpec(grads.inputs[4], {16, 8}, ElementType::F32);
  expectSpec(grads.inputs[5], {16, 8}, ElementType::F32);
  ASSERT_EQ(grads.expected.size(), 3u);
  EXPECT_EQ(grads.expected[0].shape, (std::vector<int64_t>{16, 8, 32}));
  EXPECT_EQ(grads.expected[1].shape, (std::vector<int64_t>{32}));
  EXPECT_EQ(grads.expected[2].shape, (std::vector<int64_t>{32}));

  // -F 8: (dy) -> dbias.
  Case dbias = makeCase(kCommands[11]);
  ASSERT_EQ(dbias.inputs.size(), 1u);
  ASSERT_EQ(dbias.expected.size(), 1u);
  EXPECT_EQ(dbias.expected[0].shape, (std::vector<int64_t>{3}));

  // Every command: the reference's results have the function's shapes.
  for (const char *command : kCommands) {
    SCOPED_TRACE(command);
    Case run = makeCase(command);
    std::vector<TensorSpec> args = getProblemSignature(run.problem).arguments;
    std::vector<TensorSpec> results = getProblemSignature(run.problem).results;
    ASSERT_EQ(run.inputs.size(), args.size());
    for (size_t i = 0; i < args.size(); ++i)
      expectSpec(run.inputs[i], args[i].shape, args[i].type);
    ASSERT_EQ(run.expected.size(), results.size());
    for (size_t r = 0; r < results.size(); ++r)
      EXPECT_EQ(run.expected[r].shape, results[r].shape);
  }
}

TEST(Verify, RandomInputs) {
  Case a = makeCase(kCommands[1], InputFill::Random, 42);
  Case b = makeCase(kCommands[1], InputFill::Random, 42);
  Case c = makeCase(kCommands[1], InputFill::Random, 43);
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    EXPECT_EQ(a.inputs[i].data, b.inputs[i].data);
    EXPECT_NE(a.inputs[i].data, c.inputs[i].data);
  }
  // In [-1, 1] (rounding may reach 1), not constant, roughly zero-mean.
  const HostTensor &x = a.inputs[0];
  double sum = 0, lo = 1, hi = -1;
  for (int64_t i = 0; i < x.numElements(); ++i) {
    double v = x.getAsDouble(i);
    sum += v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LE(hi, 1.0);
  EXPECT_LT(lo, -0.9);
  EXPECT_GT(hi, 0.9);
  EXPECT_LT(std::fabs(sum / x.numElements()), 0.1);
  // Each input has its own stream: the filter does not repeat the input's
  // leading values.
  EXPECT_NE(a.inputs[0].getAsDouble(0), a.inputs[1].getAsDouble(0));
}

TEST(Verify, SplatAndStructuredInputs) {
  // 1x1 filter, every value 0.5: each output sums C = 4 products 0.25.
  MIOpenProblem problem = parse("conv -n 1 -c 4 -H 3 -W 3 -k 2 -y 1 -x 1 -F 1");
  std::vector<HostTensor> inputs;
  std::vector<Tensor> results;
  std::string error;
  ASSERT_TRUE(
      succeeded(makeInputs(problem, InputFill::Splat, 0, 0.5, inputs, error)));
  ASSERT_TRUE(succeeded(computeReference(problem, inputs, results, error)));
  for (double v : results[0].data)
    EXPECT_EQ(v, 1.0);

  // A value that does not fit the type is rejected.
  MIOpenProblem half = parse("convfp16 -n 1 -c 4 -H 3 -W 3 -k 2 -F 1");
  EXPECT_TRUE(
      failed(makeInputs(half, InputFill::Splat, 0, 1e6, inputs, error)));
  EXPECT_NE(error.find("not finite"), std::string::npos) << error;

  // Structured: ones in the leading half (rounded up) of every dim. The
  // 1x4x3x3 input has ones at n < 1, c < 2, h < 2, w < 2.
  ASSERT_TRUE(succeeded(
      makeInputs(problem, InputFill::Structured, 0, 0, inputs, error)));
  const HostTensor &x = inputs[0];
  int64_t ones = 0;
  for (int64_t i = 0; i < x.numElements(); ++i) {
    double v = x.getAsDouble(i);
    EXPECT_TRUE(v == 0.0 || v == 1.0);
    ones += v == 1.0;
  }
  EXPECT_EQ(ones, 2 * 2 * 2);
  EXPECT_EQ(x.getAsDouble(0), 1.0);         // (0, 0, 0, 0)
  EXPECT_EQ(x.getAsDouble(1 * 9 + 4), 1.0); // (0, 1, 1, 1)
  EXPECT_EQ(x.getAsDouble(2 * 9), 0.0);     // (0, 2, 0, 0)
  EXPECT_EQ(x.getAsDouble(2), 0.0);         // (0, 0, 0, 2)
}

TEST(Verify, LayerNormBackwardStatisticsComeFromX) {
  for (InputFill fill :
       {InputFill::Random, InputFill::Splat, InputFill::Structured}) {
    Case run = makeCase(kCommands[8], fill); // -X 16x8x32 -o 2
    const HostTensor &x = run.inputs[1];
    const HostTensor &mean = run.inputs[4], &rstd = run.inputs[5];
    for (int64_t row = 0; row < 16 * 8; ++row) {
      double sum = 0, sq = 0;
      for (int64_t j = 0; j < 32; ++j)
        sum += x.getAsDouble(row * 32 + j);
      double mu = sum / 32;
      for (int64_t j = 0; j < 32; ++j)
        sq += std::pow(x.getAsDouble(row * 32 + j) - mu, 2);
      double expectedRstd = 1 / std::sqrt(sq / 32 + 1e-5);
      EXPECT_NEAR(mean.getAsDouble(row), mu, 1e-6);
      EXPECT_NEAR(rstd.getAsDouble(row), expectedRstd, 1e-6 * expectedRstd);
    }
  }
}

TEST(Verify, ReductionLengths) {
  EXPECT_EQ(getReductionLength(parse(kCommands[0]), 0), 8 * 9);
  EXPECT_EQ(getReductionLength(parse(kCommands[1]), 0), 4 * 9 + 1);
  EXPECT_EQ(getReductionLength(parse(kCommands[2]), 0), 8 * 9);
  MIOpenProblem bwdWeight = parse(kCommands[3]);
  EXPECT_EQ(getReductionLength(bwdWeight, 0), 4 * 8 * 8);
  EXPECT_EQ(getReductionLength(bwdWeight, 1), 4 * 8 * 8);
  EXPECT_EQ(getReductionLength(bwdWeight, 2), 0);
  MIOpenProblem depthwise = parse(kCommands[4]);
  EXPECT_EQ(getReductionLength(depthwise, 0), 1 * 9);
  EXPECT_EQ(getReductionLength(depthwise, 1), 2 * 12 * 12);
  MIOpenProblem norm = parse(kCommands[6]);
  for (unsigned r = 0; r < 3; ++r)
    EXPECT_EQ(getReductionLength(norm, r), 8 * 16);
  MIOpenProblem grads = parse(kCommands[8]);
  EXPECT_EQ(getReductionLength(grads, 0), 32);
  EXPECT_EQ(getReductionLength(grads, 1), 16 * 8);
  EXPECT_EQ(getReductionLength(grads, 2), 16 * 8);
  // Matrix products: K (and C) for the product, N for A's gradient.
  EXPECT_EQ(getReductionLength(parse(kCommands[12]), 0), 70 + 1);
  EXPECT_EQ(getReductionLength(parse(kCommands[13]), 0), 64);
  EXPECT_EQ(getReductionLength(parse(kCommands[14]), 0), 48);
  // Batch norms: M, the elements of a feature, for every result; nothing
  // for an inference with running statistics.
  MIOpenProblem train = parse(kCommands[15]); // y, mean, rstd, new_running_*
  for (unsigned r = 0; r < 5; ++r)
    EXPECT_EQ(getReductionLength(train, r), 4 * 8 * 8);
  EXPECT_EQ(getReductionLength(train, 5), 0);
  EXPECT_EQ(getReductionLength(parse(kCommands[17]), 0), 8);
  EXPECT_EQ(getReductionLength(parse(kCommands[18]), 0), 0);
  EXPECT_EQ(getReductionLength(parse(kCommands[19]), 0), 4 * 6 * 6);
  MIOpenProblem bwd = parse(kCommands[21]); // dx, dweight, dbias
  for (unsigned r = 0; r < 3; ++r)
    EXPECT_EQ(getReductionLength(bwd, r), 4 * 3 * 5 * 6);
}

//===----------------------------------------------------------------------===//
// checkStatistics
//===----------------------------------------------------------------------===//

TEST(Verify, CorrectResultsPass) {
  for (const char *command : kCommands) {
    SCOPED_TRACE(command);
    for (uint64_t seed : {1, 2, 3}) {
      Case run = makeCase(command, InputFill::Random, seed);
      // Exact results rounded once.
      expectAllPass(checkStatistics(
          run.problem, toDevice(run.problem, run.expected), run.expected));
      // With the error of an f32 accumulation.
      std::vector<CheckResult> checks = checkStatistics(
          run.problem, toDevice(run.problem, withAccumulationNoise(run)),
          run.expected);
      expectAllPass(checks);
      // With margin: a correct kernel's deviation stays well inside the
      // limit. (The mean error is a random variable of the inputs; its
      // limit is four of its standard deviations, so no margin there.)
      for (const CheckResult &c : checks)
        if (c.name.find("stddev") != std::string::npos && !c.fewSamples)
          EXPECT_LT(c.measured, 0.8 * c.limit) << c.name << ": " << c.details;
    }
  }
}

TEST(Verify, ConstantOffsetFailsBias) {
  for (const char *command : kCommands) {
    SCOPED_TRACE(command);
    Case run = makeCase(command);
    std::vector<TensorSpec> specs = getProblemSignature(run.problem).results;
    std::vector<Tensor> shifted = run.expected;
    for (size_t r = 0; r < shifted.size(); ++r) {
      // Half a unit roundoff of bf16/f16, or 16 of f32: far below what an
      // element-wise tolerance would notice.
      double u = ref::unitRoundoff(refType(specs[r].type));
      double offset = std::max(0.5 * u, 16 * kU32) * rms(run.expected[r]);
      for (double &v : shifted[r].data)
        v += offset;
    }
    std::vector<CheckResult> checks = checkStatistics(
        run.problem, toDevice(run.problem, shifted), run.expected);
    for (const TensorSpec &spec : specs) {
      const CheckResult *bias = findCheck(checks, spec.name + ": bias");
      const CheckResult *stddev = findCheck(checks, spec.name + ": stddev");
      ASSERT_TRUE(bias && stddev);
      // Too few samples to see half an ulp in a handful of values.
      if (bias->fewSamples)
        continue;
      EXPECT_FALSE(bias->passed) << bias->details;
      EXPECT_TRUE(stddev->passed) << stddev->details;
    }
  }
}

TEST(Verify, NoiseFailsStddev) {
  for (const char *command : kCommands) {
    SCOPED_TRACE(command);
    Case run = makeCase(command);
    std::vector<TensorSpec> specs = getProblemSignature(run.problem).results;
    // Ten times the deviation rounding and f32 accumulation explain:
    // rounding to the type (u / sqrt(3)) and u32 sqrt(K / 3).
    std::vector<Tensor> noisy = addNoise(run.expected, [&](size_t r) {
      double u = ref::unitRoundoff(refType(specs[r].type));
      double k = getReductionLength(run.problem, r) + 16;
      return 10 * std::sqrt(u * u / 3 + k * kU32 * kU32 / 3);
    });
    std::vector<CheckResult> checks = checkStatistics(
        run.problem, toDevice(run.problem, noisy), run.expected);
    for (const TensorSpec &spec : specs) {
      const CheckResult *stddev = findCheck(checks, spec.name + ": stddev");
      ASSERT_TRUE(stddev);
      EXPECT_FALSE(stddev->passed) << stddev->details;
    }
  }
}

TEST(Verify, Bf16AccumulationFailsStddev) {
  // A bf16 kernel that accumulates in bf16: errors near u_bf16 sqrt(K / 6).
  Case run = makeCase(kCommands[3]); // K = 256
  std::vector<Tensor> noisy = addNoise(run.expected, [&](size_t r) {
    return 0x1p-8 * std::sqrt(getReductionLength(run.problem, r) / 6.0);
  });
  std::vector<CheckResult> checks =
      checkStatistics(run.problem, toDevice(run.problem, noisy), run.expected);
  const CheckResult *stddev = findCheck(checks, "grad_filter: stddev");
  ASSERT_TRUE(stddev);
  EXPECT_FALSE(stddev->passed) << stddev->details;
}

TEST(Verify, NaNFailsFinite) {
  for (const char *command : {kCommands[0], kCommands[8]}) {
    SCOPED_TRACE(command);
    Case run = makeCase(command);
    std::vector<HostTensor> actual = toDevice(run.problem, run.expected);
    actual[0].setFromDouble(17, std::numeric_limits<double>::quiet_NaN());
    actual[0].setFromDouble(99, std::numeric_limits<double>::infinity());
    std::vector<CheckResult> checks =
        checkStatistics(run.problem, actual, run.expected);
    std::string name =
        getProblemSignature(run.problem).results[0].name + ": finite";
    const CheckResult *finite = findCheck(checks, name);
    ASSERT_TRUE(finite);
    EXPECT_FALSE(finite->passed);
    EXPECT_NE(finite->details.find("2 non-finite values"), std::string::npos)
        << finite->details;
    EXPECT_NE(finite->details.find("index 17"), std::string::npos)
        << finite->details;
    // The other results are unaffected.
    for (const CheckResult &c : checks)
      if (c.name.rfind(getProblemSignature(run.problem).results[0].name + ":",
                       0) != 0)
        EXPECT_TRUE(c.passed) << c.name << ": " << c.details;
  }
}

TEST(Verify, FewSamplesAreFlagged) {
  Case run = makeCase(kCommands[3]); // grad_bias has 32 elements
  std::vector<CheckResult> checks = checkStatistics(
      run.problem, toDevice(run.problem, run.expected), run.expected);
  const CheckResult *few = findCheck(checks, "grad_bias: stddev");
  const CheckResult *many = findCheck(checks, "grad_filter: stddev");
  ASSERT_TRUE(few && many);
  EXPECT_TRUE(few->passed);
  EXPECT_TRUE(few->fewSamples);
  EXPECT_NE(few->details.find("only 32 samples"), std::string::npos)
      << few->details;
  EXPECT_FALSE(many->fewSamples);
  EXPECT_EQ(many->details.find("only"), std::string::npos) << many->details;
}

TEST(Verify, WrongShapeFails) {
  Case run = makeCase(kCommands[0]);
  std::vector<HostTensor> actual = toDevice(run.problem, run.expected);
  actual[0] = HostTensor::zeros({2, 16, 9, 9}, ElementType::F32);
  std::vector<CheckResult> checks =
      checkStatistics(run.problem, actual, run.expected);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].name, "output: shape");
  EXPECT_FALSE(checks[0].passed);
  EXPECT_FALSE(checkStructured(run.problem, actual, run.expected).passed);

  std::vector<HostTensor> none;
  checks = checkStatistics(run.problem, none, run.expected);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].passed);

  std::string error;
  std::vector<Tensor> results;
  EXPECT_TRUE(failed(computeReference(run.problem, {}, results, error)));
  EXPECT_NE(error.find("expected 2 inputs"), std::string::npos) << error;
}

//===----------------------------------------------------------------------===//
// A layer norm in f32, as a kernel computes it (two passes)
//===----------------------------------------------------------------------===//

std::vector<Tensor> layerNormF32(const MIOpenProblem &problem,
                                 const std::vector<HostTensor> &inputs) {
  const auto &p = std::get<MIOpenLayerNormProblem>(problem);
  std::vector<TensorSpec> args = getProblemSignature(problem).arguments;
  auto find = [&](const char *name) -> const HostTensor * {
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].name == name)
        return &inputs[i];
    return nullptr;
  };
  const HostTensor *x = find("x"), *dy = find("dy"), *w = find("weight"),
                   *b = find("bias");
  int64_t m = 1;
  for (int64_t d = p.normalizedDim; d < static_cast<int64_t>(p.shape.size());
       ++d)
    m *= p.shape[d];
  int64_t rows = (x ? x->numElements() : dy->numElements()) / m;
  float invM = 1.0f / static_cast<float>(m);
  auto at = [](const HostTensor *t, int64_t i) {
    return static_cast<float>(t->getAsDouble(i));
  };
  std::vector<float> y(rows * m), mean(rows), rstd(rows), dx(rows * m),
      dweight(m, 0.0f), dbias(m, 0.0f);
  for (int64_t r = 0; r < rows; ++r) {
    if (p.direction == 1) {
      float sum = 0;
      for (int64_t j = 0; j < m; ++j)
        sum += at(x, r * m + j);
      mean[r] = sum * invM;
      float sq = 0;
      for (int64_t j = 0; j < m; ++j) {
        float d = at(x, r * m + j) - mean[r];
        sq += d * d;
      }
      rstd[r] = 1.0f / std::sqrt(sq * invM + p.epsilon);
      for (int64_t j = 0; j < m; ++j) {
        float v = (at(x, r * m + j) - mean[r]) * rstd[r];
        y[r * m + j] = w ? v * at(w, j) + at(b, j) : v;
      }
      continue;
    }
    float mu = x ? at(find("mean"), r) : 0, rs = x ? at(find("rstd"), r) : 0;
    float sumG = 0, sumGX = 0;
    bool useWeight = w && p.direction != 4;
    for (int64_t j = 0; j < m; ++j) {
      float d = at(dy, r * m + j);
      float xhat = x ? (at(x, r * m + j) - mu) * rs : 0;
      float g = useWeight ? d * at(w, j) : d;
      sumG += g;
      sumGX += g * xhat;
      dweight[j] += d * xhat;
      dbias[j] += d;
    }
    for (int64_t j = 0; j < m; ++j) {
      float xhat = x ? (at(x, r * m + j) - mu) * rs : 0;
      float g = useWeight ? at(dy, r * m + j) * at(w, j) : at(dy, r * m + j);
      dx[r * m + j] = rs * (g - sumG * invM - xhat * (sumGX * invM));
    }
  }
  auto toTensor = [](const std::vector<float> &v, std::vector<int64_t> shape) {
    Tensor t(std::move(shape));
    t.data.assign(v.begin(), v.end());
    return t;
  };
  std::vector<Tensor> out;
  for (const TensorSpec &spec : getProblemSignature(problem).results) {
    const std::vector<float> &v = spec.name == "y"         ? y
                                  : spec.name == "mean"    ? mean
                                  : spec.name == "rstd"    ? rstd
                                  : spec.name == "dx"      ? dx
                                  : spec.name == "dweight" ? dweight
                                                           : dbias;
    out.push_back(toTensor(v, spec.shape));
  }
  return out;
}

TEST(Verify, F32LayerNormPasses) {
  for (const char *command : kCommands) {
    Case run = makeCase(command);
    if (!std::holds_alternative<MIOpenLayerNormProblem>(run.problem))
      continue;
    SCOPED_TRACE(command);
    std::vector<HostTensor> actual =
        toDevice(run.problem, layerNormF32(run.problem, run.inputs));
    expectAllPass(checkStatistics(run.problem, actual, run.expected));

    Case structured = makeCase(command, InputFill::Structured);
    actual = toDevice(run.problem,
                      layerNormF32(structured.problem, structured.inputs));
    CheckResult check =
        checkStructured(structured.problem, actual, structured.expected);
    EXPECT_TRUE(check.passed) << check.details;
  }
}

//===----------------------------------------------------------------------===//
// checkStructured
//===----------------------------------------------------------------------===//

/// Adds 1 to a 2x2 block at the start of `t` (in its trailing two dims), or
/// to up to four leading elements of a 1-D `t`. Returns how many changed.
int64_t spoilBlock(HostTensor &t) {
  std::vector<int64_t> offsets = {0, 1, t.shape.back(), t.shape.back() + 1};
  if (t.shape.size() == 1)
    offsets = {0, 1, 2, 3};
  int64_t changed = 0;
  for (int64_t o : offsets)
    if (o < t.numElements()) {
      t.setFromDouble(o, t.getAsDouble(o) + 1);
      ++changed;
    }
  return changed;
}

TEST(Verify, StructuredConvIsExact) {
  for (const char *command : kCommands) {
    Case run = makeCase(command, InputFill::Structured);
    if (!std::holds_alternative<MIOpenConvProblem>(run.problem))
      continue;
    SCOPED_TRACE(command);
    // The results are small integers, and not all the same.
    for (const Tensor &t : run.expected) {
      double lo = t.data[0], hi = t.data[0];
      for (double v : t.data) {
        EXPECT_EQ(v, std::round(v));
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      EXPECT_LT(lo, hi);
    }
    std::vector<HostTensor> actual = toDevice(run.problem, run.expected);
    CheckResult check = checkStructured(run.problem, actual, run.expected);
    EXPECT_EQ(check.name, "structured: exact");
    EXPECT_TRUE(check.passed) << check.details;

    // One wrong 2x2 block.
    int64_t changed = spoilBlock(actual[0]);
    check = checkStructured(run.problem, actual, run.expected);
    EXPECT_FALSE(check.passed);
    EXPECT_EQ(check.measured, static_cast<double>(changed)) << check.details;
    std::string first =
        getProblemSignature(run.problem).results[0].name + "[0]";
    EXPECT_NE(check.details.find(first), std::string::npos) << check.details;
  }
}

TEST(Verify, StructuredConvCatchesF32Rounding) {
  // An off-by-one-ulp f32 result is not exact.
  Case run = makeCase(kCommands[0], InputFill::Structured);
  std::vector<HostTensor> actual = toDevice(run.problem, run.expected);
  int64_t i = 0;
  while (run.expected[0].data[i] == 0)
    ++i;
  double v = run.expected[0].data[i];
  actual[0].setFromDouble(i, v + v * 0x1p-23);
  CheckResult check = checkStructured(run.problem, actual, run.expected);
  EXPECT_FALSE(check.passed);
  EXPECT_EQ(check.measured, 1.0) << check.details;
}

TEST(Verify, StructuredLayerNorm) {
  for (const char *command : kCommands) {
    Case run = makeCase(command, InputFill::Structured);
    if (!std::holds_alternative<MIOpenLayerNormProblem>(run.problem))
      continue;
    SCOPED_TRACE(command);
    std::vector<HostTensor> actual = toDevice(run.problem, run.expected);
    CheckResult check = checkStructured(run.problem, actual, run.expected);
    EXPECT_EQ(check.name, "structured: within 1 ulp");
    EXPECT_TRUE(check.passed) << check.details;
    int64_t changed = spoilBlock(actual[0]);
    check = checkStructured(run.problem, actual, run.expected);
    EXPECT_FALSE(check.passed);
    EXPECT_EQ(check.measured, static_cast<double>(changed)) << check.details;
  }
}

TEST(Verify, StructuredBatchNorm) {
  for (const char *command : kCommands) {
    Case run = makeCase(command, InputFill::Structured);
    if (!std::holds_alternative<MIOpenBatchNormProblem>(run.problem))
      continue;
    SCOPED_TRACE(command);
    std::vector<HostTensor> actual = toDevice(run.problem, run.expected);
    CheckResult check = checkStructured(run.problem, actual, run.expected);
    EXPECT_EQ(check.name, "structured: within 1 ulp");
    EXPECT_TRUE(check.passed) << check.details;
    for (size_t r = 0; r < actual.size(); ++r) {
      std::vector<HostTensor> spoiled = actual;
      int64_t changed = spoilBlock(spoiled[r]);
      check = checkStructured(run.problem, spoiled, run.expected);
      EXPECT_FALSE(check.passed) << r;
      EXPECT_EQ(check.measured, static_cast<double>(changed)) << check.details;
    }
  }
}

} // namespace
