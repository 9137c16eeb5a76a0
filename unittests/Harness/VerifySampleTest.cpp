//===- VerifySampleTest.cpp - Checks of a sample, and of f64 products -----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-driver --verify-workgroups compares only the result elements a sample
// of workgroups wrote: getWrittenElements finds them, and the checks ignore
// the others but still fail on a wrong element among them. f64 products
// are judged with f64 accumulation: an f32 accumulation's error fails them.
// The reference reads a strided aten operand from its storage.
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
using ::boo::ref::Tensor;

namespace {

/// Random inputs of `command` and the reference's results.
struct Case {
  MIOpenProblem problem;
  std::vector<HostTensor> inputs;
  std::vector<Tensor> expected;
};

Case makeCase(const char *command) {
  Case c;
  std::string error;
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(command, error);
  EXPECT_TRUE(succeeded(problem)) << error;
  c.problem = *problem;
  EXPECT_TRUE(succeeded(
      makeInputs(c.problem, InputFill::Random, 1, 0, c.inputs, error)))
      << error;
  EXPECT_TRUE(
      succeeded(computeReference(c.problem, c.inputs, c.expected, error)))
      << error;
  return c;
}

/// `values` rounded to the result's type, as a correct kernel stores them.
HostTensor toDevice(const Case &c, const std::vector<double> &values) {
  TensorSpec spec = getProblemSignature(c.problem).results[0];
  return HostTensor::fromDoubles(spec.shape, spec.type, values);
}

const CheckResult *findCheck(const std::vector<CheckResult> &checks,
                             const std::string &name) {
  for (const CheckResult &check : checks)
    if (check.name == name)
      return &check;
  return nullptr;
}

TEST(VerifySample, WrittenElementsDifferFromTheFill) {
  HostTensor t = HostTensor::zeros({4}, ElementType::BF16);
  std::fill(t.data.begin(), t.data.end(), 0xFF);
  t.setFromDouble(1, 0.0);  // 0x0000
  t.data[5] = 0x7F;         // element 2: one byte differs
  CheckedElements written = getWrittenElements({t}, 0xFF);
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0], (std::vector<bool>{false, true, true, false}));
}

TEST(VerifySample, ChecksCompareTheWrittenElementsOnly) {
  Case c = makeCase("gemm -m 64 -k 40 -n 48");
  int64_t n = c.expected[0].size();
  // A sample wrote the first half; the rest holds the fill (NaN).
  CheckedElements written(1, std::vector<bool>(n, false));
  std::vector<double> values = c.expected[0].data;
  for (int64_t i = 0; i < n; ++i) {
    written[0][i] = i < n / 2;
    if (!written[0][i])
      values[i] = std::numeric_limits<double>::quiet_NaN();
  }
  std::vector<CheckResult> checks =
      checkStatistics(c.problem, {toDevice(c, values)}, c.expected, &written);
  for (const CheckResult &check : checks) {
    EXPECT_TRUE(check.passed) << check.name << ": " << check.details;
    EXPECT_NE(check.details.find("a sample: 1536 of 3072 elements written"),
              std::string::npos)
        << check.details;
  }
  // Without the mask the fill is seen; with it, a wrong written element is.
  EXPECT_FALSE(findCheck(checkStatistics(c.problem, {toDevice(c, values)},
                                         c.expected),
                         "output: finite")
                   ->passed);
  values[7] += 100;
  checks =
      checkStatistics(c.problem, {toDevice(c, values)}, c.expected, &written);
  EXPECT_FALSE(findCheck(checks, "output: stddev")->passed);
}

TEST(VerifySample, Float64ProductsAccumulateInFloat64) {
  Case c = makeCase("aten::mm \"[[48, 300], [300, 40]]\" "
                    "\"['double', 'double']\" \"[[300, 1], [40, 1]]\" "
                    "\"['', '']\"");
  // Rounded to f64 once: passes.
  std::vector<CheckResult> checks = checkStatistics(
      c.problem, {toDevice(c, c.expected[0].data)}, c.expected);
  for (const CheckResult &check : checks)
    EXPECT_TRUE(check.passed) << check.name << ": " << check.details;
  // What an f32 accumulation of K = 300 terms would add: fails.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0x1p-24 * std::sqrt(300 / 6.0));
  std::vector<double> values = c.expected[0].data;
  for (double &v : values)
    v *= 1 + noise(rng);
  checks = checkStatistics(c.problem, {toDevice(c, values)}, c.expected);
  EXPECT_FALSE(findCheck(checks, "output: stddev")->passed);
}

TEST(VerifySample, StridedOperandsAreReadFromTheirStorage) {
  // self: 2x2 rows 3 apart in a storage of 5 (0 1 _ 3 4); mat2: identity.
  std::string error;
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(
      "aten::mm \"[[2, 2], [2, 2]]\" \"['double', 'double']\" "
      "\"[[3, 1], [2, 1]]\" \"['', '']\"",
      error);
  ASSERT_TRUE(succeeded(problem)) << error;
  std::vector<TensorSpec> specs = getProblemSignature(*problem).arguments;
  ASSERT_EQ(specs[0].shape, (std::vector<int64_t>{5}));
  std::vector<HostTensor> inputs = {
      HostTensor::fromDoubles({5}, ElementType::F64, {0, 1, 2, 3, 4}),
      HostTensor::fromDoubles({2, 2}, ElementType::F64, {1, 0, 0, 1})};
  std::vector<Tensor> expected;
  ASSERT_TRUE(succeeded(computeReference(*problem, inputs, expected, error)))
      << error;
  EXPECT_EQ(expected[0].data, (std::vector<double>{0, 1, 3, 4}));
}

} // namespace
