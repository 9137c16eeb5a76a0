//===- OneDNNBackendTest.cpp - oneDNN reference backend tests
//--------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// oneDNN's results on the inputs of makeInputs against the float64
// reference: every layout, direction, group count and rank the backend
// describes by strides must give the reference's numbers (within the
// rounding of the computation type), or the comparison boo-driver prints
// would be meaningless.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/OneDNNBackend.h"
#include "Boo/Harness/Verify.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;

namespace {

struct Case {
  const char *command;
  /// Bound on getMaxRelativeError: the result type's rounding (a few units of
  /// the unit roundoff at the largest elements) plus f32 accumulation.
  double bound;
};

class OneDNNBackendTest : public testing::TestWithParam<Case> {};

TEST_P(OneDNNBackendTest, MatchesReference) {
  if (!isOneDNNAvailable())
    GTEST_SKIP() << "built without oneDNN (libdnnl-dev not found by CMake)";
  std::string error;
  FailureOr<MIOpenProblem> problem =
      parseMIOpenCommand(GetParam().command, error);
  ASSERT_TRUE(succeeded(problem)) << error;
  std::vector<HostTensor> inputs;
  ASSERT_TRUE(
      succeeded(makeInputs(*problem, InputFill::Random, 7, 0.0, inputs, error)))
      << error;
  std::vector<::boo::ref::Tensor> expected;
  ASSERT_TRUE(succeeded(computeReference(*problem, inputs, expected, error)))
      << error;
  OneDNNRun run;
  ASSERT_TRUE(
      succeeded(runOneDNN(*problem, inputs, 3, /*threads=*/0, run, error)))
      << error;
  EXPECT_EQ(run.milliseconds.size(), 3u);
  std::vector<TensorSpec> specs = getProblemSignature(*problem).results;
  ASSERT_EQ(run.results.size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(run.results[i].shape, specs[i].shape) << specs[i].name;
    EXPECT_EQ(run.results[i].type, specs[i].type) << specs[i].name;
  }
  double err = getMaxRelativeError(run.results, expected);
  EXPECT_LE(err, GetParam().bound) << run.note;
}

// bf16 results: unit roundoff 2^-8, an element up to ~4 rms; f16: 2^-11;
// f32: accumulation only.
INSTANTIATE_TEST_SUITE_P(
    Commands, OneDNNBackendTest,
    testing::Values(
        Case{"conv -n 2 -c 5 -H 9 -W 8 -k 6 -y 3 -x 2 -p 1 -q 0 -u 2 -v 1 "
             "-l 1 -j 2 -F 1",
             1e-5},
        Case{"convbfp16 -n 2 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 "
             "-v 2 -g 2 -F 1 -b 1 --in_layout NHWC --fil_layout NHWC "
             "--out_layout NHWC",
             0.03},
        Case{"convfp16 -n 2 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1 -u 2 -v "
             "2 -g 2 -F 2",
             0.004},
        Case{"convbfp16 -n 2 -c 8 -H 7 -W 7 -k 12 -y 3 -x 3 -p 1 -q 1 -g 4 "
             "-F 4 -b 1 --in_layout NHWC --fil_layout NHWC --out_layout NHWC",
             0.03},
        Case{"conv -n 1 -c 4 -H 6 -W 6 -k 4 -y 3 -x 3 -p 1 -q 1 -F 6", 1e-5},
        Case{"conv --spatial_dim 3 -n 1 -c 3 --in_d 5 -H 6 -W 7 -k 4 --fil_d 3 "
             "-y 3 -x 3 "
             "--pad_d 1 -p 1 -q 1 -F 1",
             1e-5},
        Case{"layernorm -X 4x8x96 -o 2 -e 1e-5 -m 1 -F 1", 1e-5},
        Case{"layernormbfp16 -X 4x8x96 -o 1 -e 1e-5 -m 1 -F 1", 0.03},
        Case{"gemm -b 2 -m 33 -k 70 -n 45 -u 1 -A 2 -B 0.5", 1e-5},
        Case{"gemmbfp16 -m 40 -k 64 -n 24 -v 1", 0.03},
        Case{"gemmfp16 -m 32 -k 64 -n 48 -F 2 -u 1", 0.004},
        Case{"gemm -m 17 -k 9 -n 31 -F 3 -v 1", 1e-5},
        // Batch norms (spatial only): training with both statistics in
        // NCHW and NHWC, inference with and without running statistics,
        // backward with and without saved statistics, 3-D, bf16 and f16.
        Case{"bnorm -n 2 -c 3 -H 4 -W 5 -m 1 -F 1 -s 1 -r 1", 1e-5},
        Case{"bnorm -n 2 -c 3 -H 4 -W 5 -m 1 -F 1 -s 1 -r 1 --layout NHWC",
             1e-5},
        Case{"bnormbfp16 -n 2 -c 8 -H 6 -W 6 -m 1 -F 1 -s 1 --layout NHWC",
             0.03},
        Case{"bnormfp16fp32 -n 2 -c 8 -H 5 -W 5 -m 1 -F 2 -r 1", 0.004},
        Case{"bnorm -n 3 -c 4 -H 5 -W 5 -m 1 -F 2", 1e-5},
        Case{"bnorm -n 2 -c 6 -H 5 -W 7 -m 1 -b 1 -s 1 --layout NHWC", 1e-5},
        Case{"bnormbfp16fp32 -n 2 -c 4 -D 3 -H 4 -W 5 -m 1 -b 1 "
             "--layout NDHWC",
             0.03},
        Case{"bnorm -n 2 -c 4 -D 3 -H 4 -W 5 -m 1 -b 1", 1e-5}));

TEST(OneDNNBackend, LayerNormBackwardIsRefused) {
  std::string error;
  FailureOr<MIOpenProblem> problem =
      parseMIOpenCommand("layernorm -X 4x96 -o 1 -m 1 -F 14", error);
  ASSERT_TRUE(succeeded(problem)) << error;
  std::vector<HostTensor> inputs;
  ASSERT_TRUE(succeeded(
      makeInputs(*problem, InputFill::Random, 7, 0.0, inputs, error)));
  OneDNNRun run;
  EXPECT_TRUE(
      failed(runOneDNN(*problem, inputs, 1, /*threads=*/0, run, error)));
  if (isOneDNNAvailable())
    EXPECT_EQ(error,
              "oneDNN backend: only layer norm forward (-F 1) is compared");
  else
    EXPECT_NE(error.find("built without oneDNN"), std::string::npos);
}

TEST(OneDNNBackend, PerActivationBatchNormIsRefused) {
  std::string error;
  FailureOr<MIOpenProblem> problem =
      parseMIOpenCommand("bnorm -n 2 -c 3 -H 4 -W 5 -m 0 -F 1", error);
  ASSERT_TRUE(succeeded(problem)) << error;
  std::vector<HostTensor> inputs;
  ASSERT_TRUE(succeeded(
      makeInputs(*problem, InputFill::Random, 7, 0.0, inputs, error)));
  OneDNNRun run;
  EXPECT_TRUE(
      failed(runOneDNN(*problem, inputs, 1, /*threads=*/0, run, error)));
  if (isOneDNNAvailable())
    EXPECT_NE(error.find("per activation (-m 0)"), std::string::npos) << error;
  else
    EXPECT_NE(error.find("built without oneDNN"), std::string::npos);
}

TEST(OneDNNBackend, ArgReduceIsRefused) {
  std::string error;
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(
      "aten::argmin \"[[4, 8], [], []]\" \"['float', 'Scalar', 'Scalar']\" "
      "\"[[8, 1], [], []]\" \"['', '1', 'False']\"",
      error);
  ASSERT_TRUE(succeeded(problem)) << error;
  std::vector<HostTensor> inputs;
  ASSERT_TRUE(succeeded(
      makeInputs(*problem, InputFill::Random, 7, 0.0, inputs, error)));
  OneDNNRun run;
  EXPECT_TRUE(
      failed(runOneDNN(*problem, inputs, 1, /*threads=*/0, run, error)));
  if (isOneDNNAvailable())
    EXPECT_EQ(error, "oneDNN backend: argmin has no oneDNN primitive (its "
                     "reductions give values, not indices)");
  else
    EXPECT_NE(error.find("built without oneDNN"), std::string::npos);
}

// The thread count the driver asks for (a cpu:N device's) is the one
// oneDNN runs on, and the default is restored afterwards.
TEST(OneDNNBackend, RunsOnTheThreadsAskedFor) {
  if (!isOneDNNAvailable())
    GTEST_SKIP() << "built without oneDNN";
  std::string error;
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(
      "conv -n 1 -c 4 -H 6 -W 6 -k 4 -y 3 -x 3 -p 1 -q 1 -F 1", error);
  ASSERT_TRUE(succeeded(problem)) << error;
  std::vector<HostTensor> inputs;
  ASSERT_TRUE(succeeded(
      makeInputs(*problem, InputFill::Random, 7, 0.0, inputs, error)));
  OneDNNRun all, one, again;
  ASSERT_TRUE(succeeded(runOneDNN(*problem, inputs, 1, 0, all, error)))
      << error;
  ASSERT_TRUE(succeeded(runOneDNN(*problem, inputs, 1, 1, one, error)))
      << error;
  ASSERT_TRUE(succeeded(runOneDNN(*problem, inputs, 1, 0, again, error)))
      << error;
  EXPECT_EQ(one.threads, 1);
  EXPECT_GE(all.threads, 1);
  EXPECT_EQ(again.threads, all.threads);
}

} // namespace
