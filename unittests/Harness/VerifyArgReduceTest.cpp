//===- VerifyArgReduceTest.cpp - --verify's arg-reductions ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// argmax and argmin under --verify: their random inputs tie, hold signed
// zeros, NaNs and infinities; an f32 kernel written here as Boo's lowering
// computes it passes the one exact check on random and structured inputs,
// and kernels that take the last tie or let NaN lose fail it, with the
// first mismatch named; the problem's description and work.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/CommandCompiler.h"
#include "Boo/Harness/ProblemStats.h"
#include "Boo/Harness/Verify.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
using ::boo::ref::Tensor;

namespace {

/// aten::<op> of a dense `shape` (strides row-major) of `dtype` along `dim`
/// ("None": all of it).
std::string atenCommand(const char *op, std::vector<int64_t> shape,
                        const char *dtype, const char *dim, bool keepdim) {
  auto list = [](const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i)
      s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return std::string("aten::") + op + " \"[" + list(shape) +
         ", [], []]\" \"['" + dtype + "', 'Scalar', 'Scalar']\" \"[" +
         list(strides) + ", [], []]\" \"['', '" + dim + "', '" +
         (keepdim ? "True" : "False") + "']\"";
}

/// Every dim and none, keepdim or not, f32, f16 and bf16, both ops.
std::vector<std::string> getCommands() {
  std::vector<std::string> commands;
  const char *dtypes[] = {"float", "c10::Half", "c10::BFloat16"};
  const char *dims[] = {"0", "1", "-1", "None"};
  for (int i = 0; i < 8; ++i)
    commands.push_back(atenCommand(i % 2 ? "argmin" : "argmax", {4, 8, 16},
                                   dtypes[i % 3], dims[i % 4], i / 4));
  commands.push_back(atenCommand("argmax", {64, 256}, "float", "1", false));
  commands.push_back(atenCommand("argmin", {300, 7}, "c10::Half", "0", true));
  commands.push_back(atenCommand("argmax", {5000}, "c10::BFloat16", "None",
                                 false));
  return commands;
}

struct Case {
  MIOpenProblem problem;
  std::vector<HostTensor> inputs;
  std::vector<Tensor> expected;
};

Case makeCase(const std::string &command, InputFill fill = InputFill::Random,
              uint64_t seed = 1) {
  Case run;
  std::string error;
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(command, error);
  EXPECT_TRUE(succeeded(problem)) << command << ": " << error;
  if (failed(problem))
    return run;
  run.problem = *problem;
  EXPECT_TRUE(
      succeeded(makeInputs(run.problem, fill, seed, 0.5, run.inputs, error)))
      << error;
  EXPECT_TRUE(
      succeeded(computeReference(run.problem, run.inputs, run.expected, error)))
      << error;
  return run;
}

/// `self` as [outer, n, inner] slices: slice (o, i) holds element
/// (o * n + j) * inner + i for j in [0, n).
struct Slices {
  int64_t outer = 1, n = 1, inner = 1;
};

Slices getSlices(const MIOpenArgReduceProblem &p) {
  Slices s;
  for (size_t d = 0; d < p.shape.size(); ++d) {
    if (!p.dim)
      s.n *= p.shape[d];
    else if (static_cast<int64_t>(d) < *p.dim)
      s.outer *= p.shape[d];
    else if (static_cast<int64_t>(d) == *p.dim)
      s.n = p.shape[d];
    else
      s.inner *= p.shape[d];
  }
  return s;
}

enum class Kernel { Correct, LastTie, NaNLoses };

/// The indices as Boo's lowering computes them (f32 values, the best from
/// -inf or +inf and index 0, replaced when strictly better or NaN while
/// the best is not), or as two wrong kernels do.
std::vector<HostTensor> argReduceF32(const Case &run, Kernel kernel) {
  const auto &p = std::get<MIOpenArgReduceProblem>(run.problem);
  Slices s = getSlices(p);
  const HostTensor &self = run.inputs[0];
  HostTensor out = HostTensor::zeros(run.expected[0].shape, ElementType::I64);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      float best = p.isMax ? -INFINITY : INFINITY;
      int64_t index = 0;
      for (int64_t j = 0; j < s.n; ++j) {
        float v =
            static_cast<float>(self.getAsDouble((o * s.n + j) * s.inner + i));
        bool better = p.isMax ? v > best : v < best;
        if (kernel == Kernel::LastTie)
          better = p.isMax ? v >= best : v <= best;
        bool nanWins = std::isnan(v) && !std::isnan(best);
        if (better || (kernel != Kernel::NaNLoses && nanWins)) {
          best = v;
          index = j;
        }
      }
      out.setFromDouble(o * s.inner + i, static_cast<double>(index));
    }
  }
  return {out};
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// How a fill's slices look: with a tied best value, a NaN, an infinity,
/// a -0.
struct SliceCounts {
  int64_t slices = 0, tied = 0, nan = 0, posInf = 0, negInf = 0;
  int64_t negZeros = 0, offGrid = 0, planted = 0;
};

SliceCounts countSlices(const Case &run) {
  const auto &p = std::get<MIOpenArgReduceProblem>(run.problem);
  Slices s = getSlices(p);
  SliceCounts c;
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      double best = p.isMax ? -INFINITY : INFINITY;
      int64_t count = 0;
      bool nan = false, posInf = false, negInf = false;
      int64_t plus = 0, minus = 0;
      for (int64_t j = 0; j < s.n; ++j) {
        double v = run.inputs[0].getAsDouble((o * s.n + j) * s.inner + i);
        nan |= std::isnan(v);
        posInf |= v == INFINITY;
        negInf |= v == -INFINITY;
        c.negZeros += v == 0 && std::signbit(v);
        plus += v == 1.5;
        minus += v == -1.5;
        // Levels are multiples of 2 / 256 in [-1, 1); or the planted 1.5s.
        c.offGrid += std::isfinite(v) && std::fabs(v) != 1.5 &&
                     (v < -1 || v >= 1 || std::fmod(v * 128, 1.0) != 0);
        if (std::isnan(v))
          continue;
        if (v == best) {
          ++count;
        } else if (p.isMax ? v > best : v < best) {
          best = v;
          count = 1;
        }
      }
      ++c.slices;
      // One +1.5 and one -1.5, or neither.
      EXPECT_EQ(plus, minus);
      EXPECT_LE(plus, 1);
      c.planted += plus;
      c.tied += !nan && count > 1;
      c.nan += nan;
      c.posInf += posInf;
      c.negInf += negInf;
    }
  }
  return c;
}

TEST(VerifyArgReduce, RandomInputsTieAndHoldSpecials) {
  // 64 slices of 8 (4 levels) and of 256 (64 levels), 16 * 8 slices of 4
  // (2 levels).
  for (const std::string &command :
       {atenCommand("argmax", {4, 8, 16}, "float", "1", false),
        atenCommand("argmin", {64, 256}, "c10::BFloat16", "1", false),
        atenCommand("argmax", {4, 8, 16}, "c10::Half", "0", false)}) {
    SCOPED_TRACE(command);
    Case run = makeCase(command);
    SliceCounts c = countSlices(run);
    EXPECT_EQ(c.offGrid, 0);
    EXPECT_GT(c.negZeros, 0);
    // About one slice in eight of each special; most others tie.
    EXPECT_GT(c.nan, 0);
    EXPECT_LT(c.nan, c.slices / 3);
    EXPECT_GT(c.posInf + c.negInf, 0);
    EXPECT_LT(c.posInf + c.negInf, c.slices / 2);
    EXPECT_GT(c.tied, c.slices / 4);
    EXPECT_LT(c.tied, c.slices);
    // One slice in four.
    EXPECT_GT(c.planted, c.slices / 8);
    EXPECT_LT(c.planted, c.slices / 2);
  }
  // Slices of 2048 (256 levels): the planted values put some answers in
  // the second half.
  Case run = makeCase(atenCommand("argmax", {16, 2048}, "float", "1", false));
  EXPECT_GT(*std::max_element(run.expected[0].data.begin(),
                              run.expected[0].data.end()),
            1024);
  // The seed changes them; the same seed does not.
  std::string command = atenCommand("argmax", {64, 256}, "float", "1", false);
  Case a = makeCase(command, InputFill::Random, 1);
  Case b = makeCase(command, InputFill::Random, 1);
  Case c = makeCase(command, InputFill::Random, 2);
  EXPECT_EQ(a.inputs[0].data, b.inputs[0].data);
  EXPECT_NE(a.inputs[0].data, c.inputs[0].data);
}

TEST(VerifyArgReduce, StructuredInputsAreTheBlock) {
  // Ones where both coordinates are in the leading half, else zeros. The
  // argmin of a row is its first zero: 2 in the block's rows, 0 below. The
  // argmax of a column is 0: its first one, or its first zero.
  Case run = makeCase(atenCommand("argmin", {4, 4}, "float", "1", false),
                      InputFill::Structured);
  EXPECT_EQ(run.expected[0].data, (std::vector<double>{2, 2, 0, 0}));
  Case max = makeCase(atenCommand("argmax", {4, 4}, "float", "0", true),
                      InputFill::Structured);
  EXPECT_EQ(max.expected[0].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(max.expected[0].data, (std::vector<double>{0, 0, 0, 0}));
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

TEST(VerifyArgReduce, F32KernelPassesTheExactCheck) {
  for (const std::string &command : getCommands()) {
    SCOPED_TRACE(command);
    Case run = makeCase(command);
    std::vector<CheckResult> checks = checkStatistics(
        run.problem, argReduceF32(run, Kernel::Correct), run.expected);
    // One exact check, no statistics.
    ASSERT_EQ(checks.size(), 1u);
    EXPECT_EQ(checks[0].name, "output: exact");
    EXPECT_TRUE(checks[0].passed) << checks[0].details;
    EXPECT_EQ(checks[0].details.rfind("0 of ", 0), 0u) << checks[0].details;
    Case structured = makeCase(command, InputFill::Structured);
    CheckResult check =
        checkStructured(structured.problem,
                        argReduceF32(structured, Kernel::Correct),
                        structured.expected);
    EXPECT_EQ(check.name, "structured: exact");
    EXPECT_TRUE(check.passed) << check.details;
  }
}

TEST(VerifyArgReduce, WrongKernelsFail) {
  // Many slices of 8 tie (4 levels), and about one in eight holds a NaN.
  for (const char *op : {"argmax", "argmin"}) {
    Case run = makeCase(atenCommand(op, {4, 8, 16}, "c10::Half", "1", false));
    for (Kernel kernel : {Kernel::LastTie, Kernel::NaNLoses}) {
      std::vector<CheckResult> checks =
          checkStatistics(run.problem, argReduceF32(run, kernel), run.expected);
      ASSERT_EQ(checks.size(), 1u);
      EXPECT_FALSE(checks[0].passed) << op;
      EXPECT_GT(checks[0].measured, 0);
    }
    // On the block, the last tie is wrong too.
    Case block = makeCase(atenCommand(op, {4, 8, 16}, "float", "1", false),
                          InputFill::Structured);
    EXPECT_FALSE(checkStructured(block.problem,
                                 argReduceF32(block, Kernel::LastTie),
                                 block.expected)
                     .passed);
  }
}

TEST(VerifyArgReduce, MismatchIsNamed) {
  Case run = makeCase(atenCommand("argmax", {4, 8, 16}, "float", "1", false));
  std::vector<HostTensor> actual = argReduceF32(run, Kernel::Correct);
  // Output (1, 3) is element 19; make it and element 40 wrong.
  double e19 = run.expected[0].data[19], e40 = run.expected[0].data[40];
  actual[0].setFromDouble(19, e19 == 7 ? 6 : e19 + 1);
  actual[0].setFromDouble(40, e40 == 0 ? 1 : e40 - 1);
  std::vector<CheckResult> checks =
      checkStatistics(run.problem, actual, run.expected);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].measured, 2);
  auto integer = [](double v) { return std::to_string(int64_t(v)); };
  EXPECT_EQ(checks[0].details,
            "2 of 64 i64 values differ; the first at 19 (1, 3): " +
                integer(actual[0].getAsDouble(19)) + ", expected " +
                integer(e19));
  // Index 2^40 and a negative index are read as the integers they are.
  actual[0].setFromDouble(19, 0x1p40);
  actual[0].setFromDouble(40, -3);
  checks = checkStatistics(run.problem, actual, run.expected);
  EXPECT_NE(checks[0].details.find(": 1099511627776, expected"),
            std::string::npos)
      << checks[0].details;
  run.expected[0].data[19] = 0x1p40;
  run.expected[0].data[40] = -3;
  EXPECT_TRUE(checkStatistics(run.problem, actual, run.expected)[0].passed);
}

//===----------------------------------------------------------------------===//
// Description and work
//===----------------------------------------------------------------------===//

TEST(VerifyArgReduce, DescriptionAndStats) {
  std::string dim1 = atenCommand("argmax", {4, 8, 16}, "float", "1", false);
  std::string all = atenCommand("argmin", {4, 8, 16}, "c10::Half", "None",
                                true);
  CommandSignature s;
  std::string error;
  ASSERT_TRUE(describeCommand(dim1, s, error)) << error;
  EXPECT_EQ(s.kind, "argreduce");
  EXPECT_EQ(s.parameters["dim"], std::vector<int64_t>{1});
  EXPECT_EQ(s.parameters["keepdim"], std::vector<int64_t>{0});
  EXPECT_EQ(s.parameters["is_max"], std::vector<int64_t>{1});
  ASSERT_EQ(s.arguments.size(), 1u);
  EXPECT_EQ(s.arguments[0].name, "self");
  ASSERT_EQ(s.results.size(), 1u);
  EXPECT_EQ(s.results[0].shape, (std::vector<int64_t>{4, 16}));
  EXPECT_EQ(s.results[0].type, ElementType::I64);
  ASSERT_TRUE(describeCommand(all, s, error)) << error;
  EXPECT_EQ(s.parameters["dim"], std::vector<int64_t>{});
  EXPECT_EQ(s.parameters["keepdim"], std::vector<int64_t>{1});
  EXPECT_EQ(s.parameters["is_max"], std::vector<int64_t>{0});
  EXPECT_EQ(s.results[0].shape, (std::vector<int64_t>{1, 1, 1}));

  auto problem = [](const std::string &command) {
    std::string error;
    return *parseMIOpenCommand(command, error);
  };
  // One comparison per element; each index chosen among 8 or 512 values.
  EXPECT_EQ(getProblemFlops(problem(dim1)), 512.0);
  EXPECT_EQ(getProblemKind(problem(dim1)), "argmax");
  EXPECT_EQ(getProblemKind(problem(all)), "argmin");
  EXPECT_EQ(getReductionLength(problem(dim1), 0), 8);
  EXPECT_EQ(getReductionLength(problem(all), 0), 512);
  EXPECT_EQ(getReductionLength(problem(all), 1), 0);
}

} // namespace
