//===- Verify.h - Reference results and checks for a driver -----*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// What a driver's `--verify` needs for one MIOpenDriver problem: inputs in
// the compiled function's argument order, the function's results computed
// in double by the independent reference (Boo/Reference/Reference.h), and
// checks of a device's results against them.
//
// Two kinds of checks, for two kinds of inputs:
//
//  * Random inputs: statistical checks per result (checkStatistics). The
//    error `actual - expected` must have no systematic offset ("bias") and a
//    standard deviation no larger than what the final rounding to the
//    result's type and an f32 accumulation explain ("stddev"). These catch
//    what element-wise tolerances miss (a kernel that is slightly but
//    consistently off, or one that accumulates in bf16) and need no
//    per-element bound. VerifyChecks.cpp has the derivation of the limits.
//  * Structured inputs (zeros with one block of ones): convolutions then
//    compute small integers that every type represents, so the results must
//    match exactly (checkStructured); a wrong index shows up as a wrong
//    count at a known place.
//
// Integer results (an arg-reduction's i64 indices) are checked exactly on
// both kinds of inputs: rounding has no part in them.
//
// Argument and result orders are those of docs/MIOpenImport.md.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_HARNESS_VERIFY_H
#define BOO_HARNESS_VERIFY_H

#include "Boo/Import/ProblemSignature.h"
#include "Boo/Reference/Reference.h"
#include "Boo/Runner/HostTensor.h"

#include "mlir/Support/LLVM.h"
#include <cstdint>
#include <string>
#include <vector>

namespace mlir::boo::harness {

/// How makeInputs fills the inputs.
enum class InputFill {
  /// Uniform in [-1, 1), then rounded to the input's type. Input `i` draws
  /// from its own std::mt19937_64, seeded with splitmix64(seed + (i + 1) *
  /// 0x9E3779B97F4A7C15), so inputs do not depend on each other's sizes.
  Random,
  /// Every element is `splatValue` rounded to the input's type.
  Splat,
  /// Zeros, except a block of ones: the elements whose every index lies in
  /// the leading half (rounded up) of its dim. The block is the same for
  /// every seed. A dim of extent 1 is all inside the block.
  Structured,
};

/// Makes the function's inputs for `problem`, in argument order, each with
/// its shape and type (getProblemSignature). Values are encoded with the
/// reference's own codec. The layer-norm backward's `mean` and `rstd`
/// arguments are never filled: whatever the fill, they are computed from `x`
/// by the reference forward (with the problem's epsilon) and rounded to f32,
/// as a forward run would have produced them. Likewise a batch norm
/// backward's `mean` and `rstd` (with --save), rounded to the statistics'
/// type; a batch norm's `running_var` must be positive, and takes 0.5 + |v|
/// for each value v of the fill (Random: in [0.5, 1.5]; Structured: 0.5 or
/// 1.5). An arg-reduction's Random `self` is made for its exact index
/// check instead: values on a coarse grid of levels, so that many slices
/// tie at their best value, with signed zeros, one slice in four holding a
/// single +1.5 and -1.5 at random positions, and about one in eight a NaN,
/// one a +inf and one a -inf (VerifyInputs.cpp).
LogicalResult makeInputs(const MIOpenProblem &problem, InputFill fill,
                         uint64_t seed, double splatValue,
                         std::vector<HostTensor> &inputs, std::string &error);

/// The function's results for `inputs` (in argument order, as makeInputs
/// makes them), computed in double by boo::ref, in result order, each with
/// its shape (getProblemSignature). Fails with a message when an input's count,
/// shape or type is wrong.
LogicalResult computeReference(const MIOpenProblem &problem,
                               const std::vector<HostTensor> &inputs,
                               std::vector<::boo::ref::Tensor> &results,
                               std::string &error);

/// The outcome of one check.
struct CheckResult {
  /// "<result>: <check>", e.g. "output: stddev", "y: bias", "dx: finite".
  std::string name;
  bool passed = false;
  /// The measured value and the limit, in words, e.g. "stddev(error) /
  /// rms(expected) = 1.9e-03 (0.86 u), limit 3.5e-03 (1.6 u); 2048 samples".
  std::string details;
  /// The measured value and its limit, in the units of `details` (0 where
  /// the check has no such numbers).
  double measured = 0, limit = 0;
  /// Fewer than 1000 samples entered the statistics; `details` says so.
  bool fewSamples = false;
};

/// Per result, per element: whether a check compares it.
using CheckedElements = std::vector<std::vector<bool>>;

/// Checks of a device's results (`actual`, in result order) against the
/// reference (`expected`, from computeReference), per result:
///  - "<result>: finite": no NaN or Inf where the expected value rounded to
///    the result's type is finite; fails with the first index.
///  - "<result>: bias": |mean(actual - expected)| / rms(expected) within the
///    sampling noise of an unbiased error, plus a few f32 roundings.
///  - "<result>: stddev": stddev(actual - expected) / rms(expected) within
///    what rounding to the result's type and f32 accumulation over
///    getReductionLength terms explain.
/// Integer results (an arg-reduction's indices) get one check instead,
/// "<result>: exact": every element equals the reference's; `details` gives
/// the count of mismatches and the first (index, coordinates, actual and
/// expected values), `measured` the count.
/// The limits assume Random inputs (independent, zero mean). With Splat
/// inputs the elements' errors are the same, not independent: "bias" fails
/// for a correct kernel unless the splat's products and sums are exact (1.0
/// or 0.5 are; 0.1 is not), so run the statistics on Random inputs. Results
/// with fewer than 1000 elements are checked on what there is, flagged in
/// `details` and `fewSamples`. Wrong shapes or types give one failing
/// "<result>: shape" check, a wrong count one failing "results" check.
/// With `checked` (one flag per element of each result), only the flagged
/// elements are compared (a sampled emulator run's: getWrittenElements);
/// `details` then say how many.
std::vector<CheckResult>
checkStatistics(const MIOpenProblem &problem,
                const std::vector<HostTensor> &actual,
                const std::vector<::boo::ref::Tensor> &expected,
                const CheckedElements *checked = nullptr);

/// The check for Structured inputs, over every result:
///  - convolutions, "structured: exact": every result element equals the
///    expected integer rounded once to the result's type (an f32
///    accumulation computes sums of ones exactly up to 2^24; beyond that,
///    within that accumulation's worst-case bound);
///  - arg-reductions, "structured: exact": every index equals the
///    reference's;
///  - layer and batch norms, "structured: within 1 ulp": |actual -
///    expected| is at most one ulp of the result's type at the expected
///    value plus twice a first-order worst-case bound of the f32
///    computation (which is below an ulp of f16 and bf16 except where terms
///    cancel).
/// `details` gives the mismatch count and the first mismatch (result, index,
/// coordinates, values). The structured inputs are rebuilt here.
CheckResult checkStructured(const MIOpenProblem &problem,
                            const std::vector<HostTensor> &actual,
                            const std::vector<::boo::ref::Tensor> &expected,
                            const CheckedElements *checked = nullptr);

/// For each element of each result, whether its bytes differ from
/// `unwritten` repeated (what RuntimeSession::invokeSampled fills the
/// results with): the elements a sample of workgroups wrote. A kernel that
/// wrote exactly that pattern (an all-ones NaN, or index -1) reads as
/// unwritten.
CheckedElements getWrittenElements(const std::vector<HostTensor> &results,
                                   uint8_t unwritten);

/// The largest |actual - expected| over the rms of expected (1 where that
/// is 0), over every element of every result; infinity if an error is not
/// finite. One number for how far a device is from a reference.
double getMaxRelativeError(const std::vector<HostTensor> &actual,
                           const std::vector<::boo::ref::Tensor> &expected);

/// The number of terms summed into one element of result `resultIndex`
/// (the most over its elements): C/G times the filter size (plus one for a
/// bias) for a convolution's output, K/G times the filter size for
/// grad_input, N times the output size for grad_filter and grad_bias, the
/// normalized size for a layer norm's y, mean, rstd and dx, and the number
/// of rows for its dweight and dbias, the elements per feature (M) for every
/// result of a batch norm but the inference with running statistics (0),
/// and for an arg-reduction the values each index is chosen among (the
/// extent of its dim, or every element). 0 for an index out of range.
int64_t getReductionLength(const MIOpenProblem &problem, unsigned resultIndex);

} // namespace mlir::boo::harness

#endif // BOO_HARNESS_VERIFY_H
