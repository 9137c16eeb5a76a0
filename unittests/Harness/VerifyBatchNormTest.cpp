//===- VerifyBatchNormTest.cpp - --verify's batch norms ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// What VerifyTest.cpp's commands do not show for batch norms: the inputs
// (a positive running variance, a backward's saved statistics taken from
// its x), an f32 batch norm written here as a kernel computes it (two
// passes) passing every check on random and structured inputs, kernels
// with the wrong statistics failing them, and the problem's description
// and work.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/CommandCompiler.h"
#include "Boo/Harness/ProblemStats.h"
#include "Boo/Harness/Verify.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
using ::boo::ref::Tensor;

namespace {

using Direction = MIOpenBatchNormProblem::Direction;

const char *const kCommands[] = {
    "bnorm -n 4 -c 8 -H 8 -W 8 -m 1 -F 1 -s 1 -r 1",
    "bnormbfp16 -n 2 -c 16 -H 6 -W 6 -m 1 -F 1 -s 1 --layout NHWC",
    "bnormfp16 -n 8 -c 4 -H 4 -W 8 -m 0 -F 1 -s 1 -r 1",
    "bnormfp16fp32 -n 2 -c 8 -H 8 -W 8 -m 1 -F 2 -r 1",
    "bnorm -n 4 -c 8 -H 6 -W 6 -m 1 -F 2 --layout NHWC",
    "bnormbfp16fp32 -n 4 -c 8 -H 6 -W 6 -m 1 -b 1 -s 1",
    "bnorm -n 4 -c 8 -D 3 -H 5 -W 6 -m 1 -b 1 --layout NDHWC",
    "bnormfp16 -n 32 -c 3 -H 4 -W 4 -m 0 -b 1 -s 1",
};

struct Case {
  MIOpenProblem problem;
  std::vector<HostTensor> inputs;
  std::vector<Tensor> expected;
};

Case makeCase(const char *command, InputFill fill = InputFill::Random,
              double splat = 0.5) {
  Case run;
  std::string error;
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(command, error);
  EXPECT_TRUE(succeeded(problem)) << command << ": " << error;
  if (failed(problem))
    return run;
  run.problem = *problem;
  EXPECT_TRUE(
      succeeded(makeInputs(run.problem, fill, 3, splat, run.inputs, error)))
      << error;
  EXPECT_TRUE(
      succeeded(computeReference(run.problem, run.inputs, run.expected, error)))
      << error;
  return run;
}

const HostTensor *find(const MIOpenProblem &problem,
                       const std::vector<HostTensor> &inputs,
                       const char *name) {
  int64_t i = getProblemSignature(problem).findArgument(name);
  return i < 0 ? nullptr : &inputs[i];
}

std::vector<HostTensor> toDevice(const MIOpenProblem &problem,
                                 const std::vector<Tensor> &values) {
  std::vector<HostTensor> out;
  std::vector<TensorSpec> specs = getProblemSignature(problem).results;
  for (size_t r = 0; r < specs.size(); ++r)
    out.push_back(
        HostTensor::fromDoubles(specs[r].shape, specs[r].type, values[r].data));
  return out;
}

//===----------------------------------------------------------------------===//
// A batch norm in f32, as a kernel computes it
//===----------------------------------------------------------------------===//

/// The feature of every element of x: its coordinates at the dims that
/// MIOpen's mode keeps (C, or all but N), row-major.
std::vector<int64_t> featureOf(const MIOpenBatchNormProblem &p,
                               int64_t &features) {
  std::vector<int64_t> shape(p.shape.begin(), p.shape.end());
  int64_t size = 1;
  for (int64_t e : shape)
    size *= e;
  std::vector<int64_t> feature(size);
  for (int64_t i = 0; i < size; ++i) {
    int64_t rest = i, f = 0, stride = 1;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      char dim = p.layout[d];
      if (dim != 'N' && (!p.spatial || dim == 'C')) {
        f += rest % shape[d] * stride;
        stride *= shape[d];
      }
      rest /= shape[d];
    }
    feature[i] = f;
    features = stride;
  }
  return feature;
}

std::vector<Tensor> batchNormF32(const MIOpenProblem &problem,
                                 const std::vector<HostTensor> &inputs,
                                 bool biasedRunningVar = false,
                                 bool ignoreRunningStats = false) {
  const auto &p = std::get<MIOpenBatchNormProblem>(problem);
  int64_t nf = 0;
  std::vector<int64_t> feature = featureOf(p, nf);
  auto at = [&](const char *name, int64_t i) {
    return static_cast<float>(find(problem, inputs, name)->getAsDouble(i));
  };
  int64_t size = static_cast<int64_t>(feature.size());
  float m = static_cast<float>(size / nf), eps = p.epsilon, mo = p.momentum;
  std::vector<float> mean(nf, 0), var(nf, 0), rstd(nf), y(size), dx(size),
      dweight(nf, 0), dbias(nf, 0), newMean(nf), newVar(nf);
  bool given =
      (p.direction == Direction::Inference && p.run && !ignoreRunningStats) ||
      (p.direction == Direction::Backward && p.save);
  const char *meanName =
      p.direction == Direction::Backward ? "mean" : "running_mean";
  for (int64_t i = 0; i < size; ++i)
    mean[feature[i]] += at("x", i);
  for (int64_t i = 0; i < size; ++i) {
    float d = at("x", i) - mean[feature[i]] / m;
    var[feature[i]] += d * d;
  }
  for (int64_t f = 0; f < nf; ++f) {
    mean[f] /= m;
    var[f] /= m;
    rstd[f] = 1.0f / std::sqrt(var[f] + eps);
    if (p.run && p.direction == Direction::Training) {
      float unbias = m > 1 && !biasedRunningVar ? m / (m - 1) : 1.0f;
      newMean[f] = (1 - mo) * at("running_mean", f) + mo * mean[f];
      newVar[f] = (1 - mo) * at("running_var", f) + mo * var[f] * unbias;
    }
  }
  std::vector<float> batchMean = mean, batchRstd = rstd;
  for (int64_t f = 0; given && f < nf; ++f) {
    mean[f] = at(meanName, f);
    rstd[f] = p.direction == Direction::Backward
                  ? at("rstd", f)
                  : 1.0f / std::sqrt(at("running_var", f) + eps);
  }
  auto xhat = [&](int64_t i) {
    return (at("x", i) - mean[feature[i]]) * rstd[feature[i]];
  };
  if (p.direction == Direction::Backward) {
    for (int64_t i = 0; i < size; ++i) {
      dbias[feature[i]] += at("dy", i);
      dweight[feature[i]] += at("dy", i) * xhat(i);
    }
    for (int64_t i = 0; i < size; ++i) {
      int64_t f = feature[i];
      dx[i] = at("weight", f) * rstd[f] *
              (at("dy", i) - dbias[f] / m - xhat(i) * (dweight[f] / m));
    }
  } else {
    for (int64_t i = 0; i < size; ++i)
      y[i] = xhat(i) * at("weight", feature[i]) + at("bias", feature[i]);
  }
  std::vector<Tensor> out;
  for (const TensorSpec &spec : getProblemSignature(problem).results) {
    const std::vector<float> &v = spec.name == "y"                  ? y
                                  : spec.name == "mean"             ? batchMean
                                  : spec.name == "rstd"             ? batchRstd
                                  : spec.name == "new_running_mean" ? newMean
                                  : spec.name == "new_running_var"  ? newVar
                                  : spec.name == "dx"               ? dx
                                  : spec.name == "dweight"          ? dweight
                                                                    : dbias;
    Tensor t(spec.shape);
    t.data.assign(v.begin(), v.end());
    out.push_back(std::move(t));
  }
  return out;
}

TEST(VerifyBatchNorm, F32BatchNormPasses) {
  for (const char *command : kCommands) {
    SCOPED_TRACE(command);
    for (InputFill fill : {InputFill::Random, InputFill::Structured}) {
      Case run = makeCase(command, fill);
      std::vector<HostTensor> actual =
          toDevice(run.problem, batchNormF32(run.problem, run.inputs));
      if (fill == InputFill::Random) {
        for (const CheckResult &c :
             checkStatistics(run.problem, actual, run.expected))
          EXPECT_TRUE(c.passed) << c.name << ": " << c.details;
        continue;
      }
      CheckResult check = checkStructured(run.problem, actual, run.expected);
      EXPECT_TRUE(check.passed) << check.details;
    }
  }
}

TEST(VerifyBatchNorm, WrongStatisticsFail) {
  // The biased running variance (M = 256: 0.4% of the batch's share).
  Case train = makeCase(kCommands[0]);
  std::vector<HostTensor> actual =
      toDevice(train.problem, batchNormF32(train.problem, train.inputs, true));
  for (const CheckResult &c :
       checkStatistics(train.problem, actual, train.expected)) {
    if (c.name == "new_running_var: bias")
      EXPECT_FALSE(c.passed) << c.details;
    else if (c.name != "new_running_var: stddev")
      EXPECT_TRUE(c.passed) << c.name << ": " << c.details;
  }

  // An inference that normalizes with the batch's statistics, not the
  // running ones.
  Case infer = makeCase(kCommands[3]);
  actual = toDevice(infer.problem,
                    batchNormF32(infer.problem, infer.inputs, false, true));
  for (const CheckResult &c :
       checkStatistics(infer.problem, actual, infer.expected))
    if (c.name == "y: stddev")
      EXPECT_FALSE(c.passed) << c.details;
  EXPECT_FALSE(checkStructured(infer.problem, actual, infer.expected).passed);
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

TEST(VerifyBatchNorm, RunningVarianceIsPositive) {
  // 0.5 + |v| for the fill's v: Random in [0.5, 1.5], a splat of -1 gives
  // 1.5, Structured 0.5 or 1.5.
  for (InputFill fill :
       {InputFill::Random, InputFill::Splat, InputFill::Structured}) {
    Case run = makeCase(kCommands[2], fill, -1.0); // f16 statistics
    const HostTensor *var = find(run.problem, run.inputs, "running_var");
    ASSERT_TRUE(var);
    EXPECT_EQ(var->type, ElementType::F16);
    double lo = 2, hi = 0;
    for (int64_t i = 0; i < var->numElements(); ++i) {
      lo = std::min(lo, var->getAsDouble(i));
      hi = std::max(hi, var->getAsDouble(i));
    }
    EXPECT_GE(lo, 0.5);
    EXPECT_LE(hi, 1.5);
    if (fill == InputFill::Splat)
      EXPECT_EQ(lo, 1.5);
    if (fill == InputFill::Structured)
      EXPECT_EQ(lo, 0.5);
    // The running mean is filled as any input.
    const HostTensor *mean = find(run.problem, run.inputs, "running_mean");
    if (fill == InputFill::Splat)
      EXPECT_EQ(mean->getAsDouble(0), -1.0);
  }
}

TEST(VerifyBatchNorm, SavedStatisticsComeFromX) {
  // Spatial NCHW with f32 statistics; per-activation with f16 ones.
  for (const char *command : {kCommands[5], kCommands[7]}) {
    SCOPED_TRACE(command);
    Case run = makeCase(command);
    const auto &p = std::get<MIOpenBatchNormProblem>(run.problem);
    int64_t nf = 0;
    std::vector<int64_t> feature = featureOf(p, nf);
    const HostTensor &x = *find(run.problem, run.inputs, "x");
    std::vector<double> sum(nf), sq(nf);
    for (size_t i = 0; i < feature.size(); ++i)
      sum[feature[i]] += x.getAsDouble(i);
    double m = static_cast<double>(feature.size() / nf);
    for (size_t i = 0; i < feature.size(); ++i)
      sq[feature[i]] += std::pow(x.getAsDouble(i) - sum[feature[i]] / m, 2);
    const HostTensor &mean = *find(run.problem, run.inputs, "mean");
    const HostTensor &rstd = *find(run.problem, run.inputs, "rstd");
    EXPECT_EQ(mean.type, p.statType);
    double u = ::boo::ref::unitRoundoff(p.statType);
    for (int64_t f = 0; f < nf; ++f) {
      double expectedRstd = 1 / std::sqrt(sq[f] / m + 1e-5);
      EXPECT_NEAR(mean.getAsDouble(f), sum[f] / m, u * 2) << f;
      EXPECT_NEAR(rstd.getAsDouble(f), expectedRstd, u * expectedRstd) << f;
    }
  }
}

//===----------------------------------------------------------------------===//
// Description and work
//===----------------------------------------------------------------------===//

TEST(VerifyBatchNorm, DescriptionAndStats) {
  CommandSignature s;
  std::string error;
  ASSERT_TRUE(describeCommand(kCommands[1], s, error)) << error;
  EXPECT_EQ(s.kind, "bnorm");
  EXPECT_EQ(s.layouts["layout"], "NHWC");
  EXPECT_EQ(s.parameters["direction"], std::vector<int64_t>{0});
  EXPECT_EQ(s.parameters["spatial"], std::vector<int64_t>{1});
  EXPECT_EQ(s.parameters["save"], std::vector<int64_t>{1});
  EXPECT_EQ(s.parameters["run"], std::vector<int64_t>{0});
  EXPECT_FLOAT_EQ(s.epsilon, 1e-5f);
  EXPECT_FLOAT_EQ(s.momentum, 0.1f);
  ASSERT_EQ(s.arguments.size(), 3u);
  EXPECT_EQ(s.arguments[0].shape, (std::vector<int64_t>{2, 6, 6, 16}));
  EXPECT_EQ(s.results.size(), 3u);

  auto problem = [](const char *command) {
    std::string error;
    return *parseMIOpenCommand(command, error);
  };
  // 4 * 8 * 8 * 8 = 2048 elements, 8 features: statistics 4, normalize 3,
  // running statistics 7 per feature.
  EXPECT_EQ(getProblemFlops(problem(kCommands[0])), 7.0 * 2048 + 7.0 * 8);
  EXPECT_EQ(getProblemKind(problem(kCommands[0])), "bnorm-train");
  // Inference with running statistics: normalize only.
  EXPECT_EQ(getProblemFlops(problem(kCommands[3])), 3.0 * 1024);
  EXPECT_EQ(getProblemKind(problem(kCommands[3])), "bnorm-infer");
  // Backward: 13 per element, 4 more without saved statistics.
  EXPECT_EQ(getProblemFlops(problem(kCommands[5])), 13.0 * 1152);
  EXPECT_EQ(getProblemFlops(problem(kCommands[6])), 17.0 * 2880);
  EXPECT_EQ(getProblemKind(problem(kCommands[6])), "bnorm-bwd");
}

} // namespace
