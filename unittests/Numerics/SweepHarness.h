//===- SweepHarness.h - Randomized numerics sweeps --------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Runs one randomized case: a Boo module in text form, its inputs and the
// reference results with their error bounds. The case is parsed, compiled
// for the device (compileModuleArtifact), run through the runtime, and every
// result compared element by element.
//
// Reproducibility: every case draws from its own generator, seeded from the
// sweep seed, the sweep's name and the case index, so one case can be rerun
// alone:
//
//   BOO_SWEEP_SEED=<seed>   the sweep seed (default kDefaultSweepSeed)
//   BOO_SWEEP_CASES=<n>     cases per sweep (default: each sweep's own)
//   BOO_SWEEP_CASE=<i>      run only case i
//   BOO_SWEEP_VERBOSE=1     print every case's description
//   BOO_SWEEP_CASE_TIMEOUT=<s>  abort (printing the case) after s seconds
//                           in one case (default 120)
//   BOO_SWEEP_DEVICE=emu:<chip>  run on the SIMT emulator of a chip
//                           (boo-to-emu, the GPU kernels) instead of the
//                           runtime's cpu device (default "cpu")
//   BOO_SWEEP_DEFAULT_CASES_PERCENT=<p>  p% of each sweep's default case
//                           count (at least 1), for the emulator's CI runs
//   BOO_SWEEP_VECTORIZE=0|1, BOO_SWEEP_FORM_FUSIONS=0|1
//                           force a pipeline option for every case, to
//                           narrow a failure down
//
//===----------------------------------------------------------------------===//

#ifndef BOO_UNITTESTS_NUMERICS_SWEEPHARNESS_H
#define BOO_UNITTESTS_NUMERICS_SWEEPHARNESS_H

#include "Boo/Reference/Reference.h"
#include "Tolerance.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace boo::sweep {

constexpr uint64_t kDefaultSweepSeed = 20240607;

/// The generator of one case.
class CaseRng {
public:
  explicit CaseRng(uint64_t seed) : engine(seed) {}
  /// Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi);
  double real(double lo, double hi);
  bool coin(double pTrue = 0.5);
  template <typename T> const T &pick(const std::vector<T> &values) {
    return values[range(0, static_cast<int64_t>(values.size()) - 1)];
  }
  std::mt19937_64 &get() { return engine; }

private:
  std::mt19937_64 engine;
};

/// A random tensor with values uniform in [lo, hi], rounded to `type` so
/// that the reference sees what the kernel reads.
ref::Tensor randomTensor(const std::vector<int64_t> &shape, ElementType type,
                         CaseRng &rng, double lo = -1.0, double hi = 1.0);

ElementType randomDType(CaseRng &rng);

/// "tensor<2x3xf16>" (rank 0: "tensor<f16>").
std::string tensorType(const std::vector<int64_t> &shape, ElementType type);
/// "array<i64: 1, 2>".
std::string i64Array(const std::vector<int64_t> &values);
/// An f32 attribute that prints `v` exactly (`v` must be an f32 value).
std::string f32Attr(double v);
/// An f64 attribute that prints `v` exactly.
std::string f64Attr(double v);

/// Builds the text of "func.func @<name>(<args>) -> (<results>) {...}".
class FuncBuilder {
public:
  explicit FuncBuilder(std::string name) : name(std::move(name)) {}
  /// Declares the next argument; returns its SSA name.
  std::string arg(const std::string &type);
  /// A fresh SSA name for a result in the body.
  std::string fresh();
  /// The body so far (one op per line, with its indentation).
  std::ostringstream &body() { return bodyText; }
  /// The function, returning `values` of `types`.
  std::string finish(const std::vector<std::string> &values,
                     const std::vector<std::string> &types) const;

private:
  std::string name;
  std::vector<std::string> argDecls;
  std::ostringstream bodyText;
  int next = 0;
};

/// A random activation with its attribute text. Parameters are f32-exact
/// so that the kernel and the reference use the same ones.
struct RandomActivation {
  ref::Activation kind;
  ref::ActivationParams params;
  std::string attrs; // " {alpha = ...}" or ""
};
RandomActivation randomActivation(CaseRng &rng);

/// "boo.activation <kind> <input> <attrs> : <type>".
std::string activationOp(const RandomActivation &a, const std::string &input,
                         const std::string &type);

/// One function argument.
struct Arg {
  std::string name; // for messages
  ref::Tensor value;
  ElementType type;
};

/// One expected result.
struct Expected {
  std::string name;
  ref::Bounded ref;
  ElementType type;
};

struct Case {
  /// One line: the problem and dtypes.
  std::string description;
  /// A module with one public function.
  std::string mlir;
  std::vector<Arg> args;
  std::vector<Expected> results;
  /// CPU pipeline options.
  bool formFusions = true;
  bool vectorize = true;
  /// The CPU pipeline's stream-min-bytes and pack-min-bytes (0: their
  /// defaults).
  int64_t streamMinBytes = 0;
  int64_t packMinBytes = 0;
  /// The CPU pipeline's overlap-merged-tails.
  bool overlapMergedTails = true;
  /// The CPU pipeline's accumulator-lanes (0: the host's).
  int64_t accumulatorLanes = 0;
  /// The CPU pipeline's prefix-stores (0: the host's choice).
  int64_t prefixStores = 0;
};

/// Sweep settings, from the environment.
struct SweepOptions {
  uint64_t seed;
  int64_t cases;
  int64_t only; // -1: all
  bool verbose;
  int64_t caseTimeoutSeconds;
  /// -1: each case's own choice; 0/1: forced for every case.
  int forceVectorize, forceFormFusions;
  /// "cpu" (the runtime's cpu device) or "emu:<chip>" (its emulator).
  std::string device;
};
SweepOptions getSweepOptions(int64_t defaultCases);

/// The generator of case `index` of sweep `name`.
CaseRng caseRng(const SweepOptions &options, const std::string &name,
                int64_t index);

/// Compiles, runs and checks one case. On failure the message names the
/// seed, the sweep, the case index, the problem, the module and the first
/// mismatching element, and how to rerun the case alone.
testing::AssertionResult runCase(const Case &c, const SweepOptions &options,
                                 const std::string &sweepName, int64_t index);

/// Runs `options.cases` cases of sweep `name` built by `makeCase` (which may
/// return false to skip a draw it cannot use; that draw counts as a case).
/// Reports the first `maxFullFailures` failures in full and later ones in
/// one line. Prints a one-line summary with the time spent compiling and
/// running.
template <typename MakeCase>
void runSweep(const std::string &name, int64_t defaultCases,
              MakeCase &&makeCase, int maxFullFailures = 3);

/// Accumulated timings of the current sweep, for the summary line.
struct SweepStats {
  int64_t cases = 0, skipped = 0, failures = 0;
  /// Emulator runs: cases the GPU code generator refuses as "not supported
  /// yet" (listed one per line, counted, not failed).
  int64_t unsupported = 0;
  double parseSeconds = 0, compileSeconds = 0, runSeconds = 0,
         referenceSeconds = 0;
  /// The largest |got - expected| / bound seen: how close correct results
  /// come to the bound (well below 1 means the bound has slack).
  double maxErrorRatio = 0;
};
SweepStats &currentStats();
void printSweepSummary(const std::string &name, const SweepOptions &options);

template <typename MakeCase>
void runSweep(const std::string &name, int64_t defaultCases,
              MakeCase &&makeCase, int maxFullFailures) {
  SweepOptions options = getSweepOptions(defaultCases);
  currentStats() = SweepStats();
  for (int64_t i = 0; i < options.cases; ++i) {
    if (options.only >= 0 && i != options.only)
      continue;
    CaseRng rng = caseRng(options, name, i);
    Case c;
    auto start = std::chrono::steady_clock::now();
    bool made = makeCase(rng, c);
    currentStats().referenceSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!made) {
      ++currentStats().skipped;
      continue;
    }
    ++currentStats().cases;
    testing::AssertionResult result = runCase(c, options, name, i);
    if (!result) {
      // The first failures in full; after that one line each, so that a
      // common failure does not hide how many cases fail or which others.
      if (++currentStats().failures <= maxFullFailures) {
        ADD_FAILURE() << result.message();
      } else {
        std::string message = result.message();
        size_t error = message.find("error: ");
        ADD_FAILURE() << message.substr(0, message.find('\n'))
                      << (error == std::string::npos
                              ? ""
                              : "\n  " + message.substr(
                                             error,
                                             message.find('\n', error) - error))
                      << "\n  problem: " << c.description;
      }
    }
  }
  printSweepSummary(name, options);
}

} // namespace boo::sweep

#endif // BOO_UNITTESTS_NUMERICS_SWEEPHARNESS_H
