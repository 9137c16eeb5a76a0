//===- boo-driver.cpp - MIOpenDriver-compatible benchmarking
//---------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Runs MIOpenDriver command lines through Boo: each command is imported,
// compiled for the device (through the kernel cache), run with generated
// inputs, and reported as MIOpenDriver does, with timing, FLOP and byte
// rates, numerics checks against the float64 reference, and a reference
// implementation measured in the same run. `--preload` fills the cache for
// a list of commands and chips in parallel instead. docs/Driver.md.
//
//   boo-driver [driver options] <MIOpenDriver command>
//   boo-driver [driver options] --commands-file FILE
//   boo-driver --commands-file FILE -t 1 --iter 100   (IREE BOO's flags)
//   boo-driver --preload --commands-file FILE --targets gfx942,gfx1100
//
//===----------------------------------------------------------------------===//

#include "CommandLine.h"
#include "Preload.h"
#include "Report.h"
#include "RunBackends.h"
#include "RunEstimate.h"

#include "Boo/Cache/KernelCache.h"
#include "Boo/Harness/CachedCompile.h"
#include "Boo/Harness/CommandList.h"
#include "Boo/Harness/OneDNNBackend.h"
#include "Boo/Harness/ProblemStats.h"
#include "Boo/Harness/Verify.h"
#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"
#include "Boo/Runner/RuntimeSession.h"
#include "Boo/Target/ChipInfo.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
namespace harness = mlir::boo::harness;

namespace {

llvm::cl::OptionCategory driverCategory("boo-driver options");

llvm::cl::opt<std::string> deviceFlag(
    "device",
    llvm::cl::desc("cpu, cpu:N (threads), hip, hip:N, emu:CHIP (default: "
                   "the first HIP GPU if there is one, else cpu)"),
    llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> commandsFile(
    "commands-file",
    llvm::cl::desc("Run the MIOpenDriver commands of FILE, one per line ('#' "
                   "comments and blank lines skipped)"),
    llvm::cl::value_desc("FILE"), llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> csvFile(
    "csv", llvm::cl::desc("Write one row per command, every statistic"),
    llvm::cl::value_desc("FILE"), llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> plotFile(
    "emit-plot",
    llvm::cl::desc("Write an SVG of each command's GFLOP/s against the "
                   "reference and the device's roofline"),
    llvm::cl::value_desc("FILE.svg"), llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> fromCsv(
    "from-csv",
    llvm::cl::desc("With --emit-plot: plot the rows of a CSV an earlier "
                   "--csv wrote, instead of running commands"),
    llvm::cl::value_desc("FILE"), llvm::cl::cat(driverCategory));
llvm::cl::opt<double> splatInputValue(
    "splat-input-value",
    llvm::cl::desc("Every input element is this value (default: uniform "
                   "random in [-1, 1) from --seed)"),
    llvm::cl::cat(driverCategory));
llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("Random input seed"),
                             llvm::cl::init(20240607),
                             llvm::cl::cat(driverCategory));
llvm::cl::opt<bool> verify(
    "verify",
    llvm::cl::desc("Check numerics against the float64 reference: "
                   "statistical checks on random inputs and an exact "
                   "structured check (also a command's own -V 1)"),
    llvm::cl::cat(driverCategory));
llvm::cl::alias
    verifyNumerics("verify-numerics",
                   llvm::cl::desc("Alias for --verify (IREE BOO's spelling)"),
                   llvm::cl::aliasopt(verify), llvm::cl::NotHidden,
                   llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> referenceBackend(
    "reference-backend",
    llvm::cl::desc("Also run a reference implementation and report the "
                   "ratios: none, reference (the independent float64 "
                   "reference on the host), onednn (oneDNN on the host), "
                   "memcpy (a host memcpy of the same bytes on the device's "
                   "threads: the ratio is Boo's bandwidth over memcpy's; "
                   "cpu devices only)"),
    llvm::cl::init("none"), llvm::cl::cat(driverCategory));
llvm::cl::opt<bool>
    timeAll("time",
            llvm::cl::desc("Time every command that has no -t of its own (IREE "
                           "BOO's -t/--time 0|1; -t only before the command)"),
            llvm::cl::cat(driverCategory));
llvm::cl::opt<int64_t> iterDefault(
    "iter",
    llvm::cl::desc("Timed iterations of every command that has no --iter of "
                   "its own (IREE BOO's --iter; default 10). Only before the "
                   "command: after it, --iter is the command's"),
    llvm::cl::value_desc("N"), llvm::cl::init(0),
    llvm::cl::cat(driverCategory));
llvm::cl::opt<int64_t> iterationsFlag(
    "iterations",
    llvm::cl::desc("Timed iterations of every command (default: a "
                   "command's own --iter, else the driver's --iter, else "
                   "10)"),
    llvm::cl::init(0), llvm::cl::cat(driverCategory));
llvm::cl::opt<int64_t> warmup("warmup",
                              llvm::cl::desc("Untimed calls before timing"),
                              llvm::cl::init(1),
                              llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> tuningSpec(
    "tuning-spec",
    llvm::cl::desc("GPU tuning spec (default: BOO_TUNING_SPEC_PATH, else "
                   "the embedded spec)"),
    llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> cpuPipelineOptions(
    "cpu-pipeline-options",
    llvm::cl::desc("Options of boo-to-llvm-cpu for --device=cpu[:N], as "
                   "boo-run-module takes them, e.g. \"accumulator-lanes=256\" "
                   "(an A/B run of a schedule's option against its default)"),
    llvm::cl::value_desc("OPTIONS"), llvm::cl::cat(driverCategory));
llvm::cl::opt<bool> preload(
    "preload",
    llvm::cl::desc("Compile every command of --commands-file for every "
                   "--targets target into the cache, in parallel; run nothing"),
    llvm::cl::cat(driverCategory));
llvm::cl::opt<bool> estimate(
    "estimate",
    llvm::cl::desc("Compile every command for every --targets chip "
                   "(default gfx942) and print its performance ESTIMATE (a "
                   "roofline of the compiled code, docs/PerfModel.md); run "
                   "nothing. --csv writes one row per command and chip"),
    llvm::cl::cat(driverCategory));
llvm::cl::opt<int64_t> estimateSample(
    "estimate-sample",
    llvm::cl::desc("Estimates (--estimate, and the estimate columns of a GPU "
                   "target's --csv and --emit-plot): run this many "
                   "workgroups of each kernel on the chip's emulator for its "
                   "dynamic counts (MMAs, bytes, lines, LDS bank conflicts; "
                   "0 runs all, -1 none: the IR's static counts only)"),
    llvm::cl::init(32), llvm::cl::cat(driverCategory));
llvm::cl::opt<int64_t> verifyWorkgroups(
    "verify-workgroups",
    llvm::cl::desc("Emulator devices (--device=emu:CHIP): run at most this "
                   "many workgroups of the kernel, spread over its grid, and "
                   "--verify the result elements they write (0: all). For "
                   "problems too large to emulate whole; functions of one "
                   "kernel only; no timing or reference backend"),
    llvm::cl::init(0), llvm::cl::cat(driverCategory));
/// What --verify-workgroups fills the results with before a sampled call.
constexpr uint8_t kUnwritten = 0xFF;
llvm::cl::opt<bool> estimateDetails(
    "estimate-details",
    llvm::cl::desc("--estimate: print each kernel's report (as boo-translate "
                   "--emit-perf-report, with the emulator's counts)"),
    llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> targets(
    "targets",
    llvm::cl::desc("--preload targets: chips (gfx942), emu:CHIP or cpu, "
                   "comma-separated (as boo-translate --emit-module's); "
                   "--estimate: chips"),
    llvm::cl::cat(driverCategory));
llvm::cl::alias chipsAlias("chips", llvm::cl::aliasopt(targets),
                           llvm::cl::desc("Old spelling of --targets"),
                           llvm::cl::Hidden, llvm::cl::cat(driverCategory));
llvm::cl::opt<unsigned> jobs(
    "jobs", llvm::cl::desc("--preload threads (default: all cores)"),
    llvm::cl::init(0), llvm::cl::cat(driverCategory));
llvm::cl::opt<std::string> failuresFile(
    "failures-file",
    llvm::cl::desc("--preload: write the failed commands and their errors"),
    llvm::cl::value_desc("FILE"), llvm::cl::cat(driverCategory));
llvm::cl::opt<bool> quiet("quiet",
                          llvm::cl::desc("No progress lines on stderr"),
                          llvm::cl::cat(driverCategory));

std::string formatTensorSummary(const HostTensor &t) {
  int64_t n = t.numElements();
  double sum = 0, squares = 0, lo = INFINITY, hi = -INFINITY;
  int64_t nonFinite = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = t.getAsDouble(i);
    if (!std::isfinite(v)) {
      ++nonFinite;
      continue;
    }
    sum += v;
    squares += v * v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  int64_t finite = n - nonFinite;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << t.getTypeString();
  if (finite)
    os << llvm::format(": mean %.6g, rms %.6g, min %.6g, max %.6g",
                       sum / finite, std::sqrt(squares / finite), lo, hi);
  if (nonFinite)
    os << ", " << nonFinite << " NaN/Inf";
  return text;
}

double tensorBytes(const std::vector<HostTensor> &tensors) {
  double bytes = 0;
  for (const HostTensor &t : tensors)
    bytes += static_cast<double>(t.data.size());
  return bytes;
}

/// One command as it runs: its problem, its benchmark settings and the
/// tensors of its first call, shared by the steps of Driver::runOnce.
struct CommandRun {
  MIOpenProblem problem;
  bool timing = false;
  int64_t iterations = 0;
  bool verifying = false;
  /// --splat-input-value was given: the inputs are that value.
  bool splat = false;
  std::vector<HostTensor> inputs, outputs;
};

/// Sets what `run` does from the command's own benchmark flags, else the
/// driver-level ones (IREE BOO's -t/--time and --iter: as if every command
/// carried them), else MIOpenDriver's defaults. --iterations overrides every
/// --iter; --verify verifies every command.
void applyBenchmarkFlags(const BenchmarkFlags &own, CommandRun &run) {
  run.timing = own.time.value_or(timeAll);
  if (iterationsFlag > 0)
    run.iterations = iterationsFlag.getValue();
  else if (own.iterations)
    run.iterations = *own.iterations;
  else
    run.iterations =
        iterDefault.getNumOccurrences() ? iterDefault.getValue() : 10;
  run.verifying = verify || own.verify.value_or(false);
}

class Driver {
public:
  /// With `estimator`, rows of GPU targets get the chip's estimate.
  Driver(MLIRContext &ctx, RuntimeSession &session, std::string target,
         KernelCache *cache, CommandEstimator *estimator)
      : ctx(ctx), session(session), target(std::move(target)), cache(cache),
        estimator(estimator) {}

  /// Runs one command and prints its report; fills `row`.
  void run(const std::string &command, CommandRow &row);

private:
  bool runOnce(const std::string &command, CommandRow &row,
               std::string &error);
  /// Compiles the problem through the kernel cache, says how, and loads it.
  bool compileAndLoad(const MIOpenProblem &problem, CommandRow &row,
                      std::string &error);
  /// Makes the inputs, runs the warm-up calls and prints a summary of each
  /// output.
  bool runFirstCalls(CommandRun &run, CommandRow &row, std::string &error);
  /// Times `run.iterations` calls and prints the times and the rates.
  bool timeCalls(const CommandRun &run, CommandRow &row, std::string &error);
  /// Computes the float64 reference on the run's inputs (three times when
  /// timing it for --reference-backend=reference) and reports it.
  bool runFloat64Reference(const CommandRun &run, bool measure, CommandRow &row,
                           std::vector<::boo::ref::Tensor> &expected,
                           std::string &error);
  /// --verify: the statistical checks (on random inputs) and the structured
  /// check; prints each and fails the command when one fails.
  bool verifyNumerics(CommandRun &run,
                      std::vector<::boo::ref::Tensor> &expected,
                      CommandRow &row, std::string &error);
  bool invoke(const std::vector<HostTensor> &inputs,
              std::vector<HostTensor> &outputs, std::string &error);
  /// One call of the loaded function on the set inputs: whole, or on
  /// --verify-workgroups' sample (`milliseconds` 0).
  bool call(double &milliseconds, std::string &error);

  MLIRContext &ctx;
  RuntimeSession &session;
  std::string target;
  KernelCache *cache;
  CommandEstimator *estimator;
};

bool Driver::call(double &milliseconds, std::string &error) {
  if (verifyWorkgroups == 0)
    return session.invoke(milliseconds, error);
  milliseconds = 0;
  return session.invokeSampled(uint64_t(verifyWorkgroups.getValue()),
                               kUnwritten, error);
}

bool Driver::invoke(const std::vector<HostTensor> &inputs,
                    std::vector<HostTensor> &outputs, std::string &error) {
  double ms;
  return session.setInputs(inputs, error) && call(ms, error) &&
         session.readResults(outputs, error);
}

/// The elements a --verify-workgroups sample wrote, or null.
std::unique_ptr<CheckedElements>
writtenElements(const std::vector<HostTensor> &outputs) {
  if (verifyWorkgroups == 0)
    return nullptr;
  return std::make_unique<CheckedElements>(
      harness::getWrittenElements(outputs, kUnwritten));
}

void Driver::run(const std::string &command, CommandRow &row) {
  row.command = command;
  row.device = session.getDescription();
  // IREE BOO's aten:: commands are not MIOpenDriver's.
  if (!StringRef(command).starts_with("aten::"))
    llvm::outs() << "MIOpenDriver ";
  llvm::outs() << command << "\n";
  std::string error;
  row.ok = runOnce(command, row, error);
  if (!row.ok) {
    row.error = error;
    llvm::outs() << "boo-driver: error: " << error << "\n";
  }
  llvm::outs().flush();
}

bool Driver::runOnce(const std::string &command, CommandRow &row,
                     std::string &error) {
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(command, error);
  if (failed(problem))
    return false;
  CommandRun run;
  run.problem = std::move(*problem);
  row.kind = harness::getProblemKind(run.problem);
  row.dtype = getElementTypeName(
      std::visit([](const auto &p) { return p.dataType; }, run.problem));
  row.flops = harness::getProblemFlops(run.problem);
  applyBenchmarkFlags(readBenchmarkFlags(command), run);
  if (run.timing && run.iterations < 1) {
    error = "--iter must be at least 1";
    return false;
  }
  if (run.timing && verifyWorkgroups > 0) {
    error = "--verify-workgroups runs a sample of the kernel's workgroups: "
            "it cannot time (drop -t/--time)";
    return false;
  }

  if (!compileAndLoad(run.problem, row, error))
    return false;
  if (estimator)
    addRowEstimate(*estimator, ctx, run.problem, target, row);
  if (!runFirstCalls(run, row, error))
    return false;
  if (run.timing && !timeCalls(run, row, error))
    return false;

  // The reference backends, measured in the same run on the same inputs.
  // oneDNN runs on as many host threads as the device (cpu:1 against one
  // oneDNN thread); against a GPU, on all cores.
  if (referenceBackend == "onednn")
    runOneDNNBackend(run.problem, run.inputs, run.outputs,
                     run.timing ? run.iterations : 1, session.getHostThreads(),
                     row);
  if (referenceBackend == "memcpy")
    runMemcpyBackend(row.bytes, run.timing ? run.iterations : 1,
                     std::max(1u, session.getHostThreads()), row);

  // The float64 reference: for --verify and --reference-backend=reference.
  bool measureReference = referenceBackend == "reference";
  if (!run.verifying && !measureReference)
    return true;
  std::vector<::boo::ref::Tensor> expected;
  if (!runFloat64Reference(run, measureReference, row, expected, error))
    return false;
  if (!run.verifying)
    return true;
  return verifyNumerics(run, expected, row, error);
}

bool Driver::compileAndLoad(const MIOpenProblem &problem, CommandRow &row,
                            std::string &error) {
  FailureOr<OwningOpRef<ModuleOp>> module =
      buildMIOpenModule(&ctx, problem, error);
  if (failed(module))
    return false;
  ArtifactOptions options;
  options.targets = {target};
  options.tuningSpec = tuningSpec;
  options.producer = "boo-driver";
  if (!cpuPipelineOptions.empty() &&
      failed(options.cpu.parseFromString(cpuPipelineOptions))) {
    error = "invalid --cpu-pipeline-options '" + cpuPipelineOptions + "'";
    return false;
  }
  harness::CompileResult compiled;
  if (!harness::compileCached(**module, options, cache, compiled, error))
    return false;
  row.compileMs = compiled.seconds * 1e3;
  row.cache = harness::getCacheOutcomeName(compiled.outcome);
  if (compiled.outcome == harness::CacheOutcome::Hit)
    llvm::outs() << llvm::format("boo-driver: %s for %s: from the kernel "
                                 "cache in %.1f ms\n",
                                 row.kind.c_str(), target.c_str(),
                                 row.compileMs);
  else
    llvm::outs() << llvm::format("boo-driver: %s for %s: compiled in %.1f ms "
                                 "(kernel cache: %s)\n",
                                 row.kind.c_str(), target.c_str(),
                                 row.compileMs, row.cache.c_str());
  if (!compiled.cacheNote.empty())
    llvm::outs() << "boo-driver: warning: " << compiled.cacheNote << "\n";
  return session.load(compiled.bytes, "", error);
}

bool Driver::runFirstCalls(CommandRun &run, CommandRow &row,
                           std::string &error) {
  run.splat = splatInputValue.getNumOccurrences() > 0;
  if (failed(harness::makeInputs(run.problem,
                                 run.splat ? harness::InputFill::Splat
                                           : harness::InputFill::Random,
                                 seed, splatInputValue, run.inputs, error)))
    return false;
  if (!session.setInputs(run.inputs, error))
    return false;
  double ms;
  for (int64_t i = 0; i < std::max<int64_t>(warmup, 1); ++i)
    if (!call(ms, error))
      return false;
  if (!session.readResults(run.outputs, error))
    return false;
  row.bytes = tensorBytes(run.inputs) + tensorBytes(run.outputs);
  for (size_t i = 0; i < run.outputs.size(); ++i)
    llvm::outs() << "Output " << i << ": "
                 << formatTensorSummary(run.outputs[i]) << "\n";
  if (verifyWorkgroups > 0)
    llvm::outs() << "boo-driver: --verify-workgroups: at most "
                 << verifyWorkgroups << " workgroups ran; the other elements "
                 << "are unwritten (NaN above) and not checked\n";
  return true;
}

bool Driver::timeCalls(const CommandRun &run, CommandRow &row,
                       std::string &error) {
  std::vector<double> times;
  double ms;
  for (int64_t i = 0; i < run.iterations; ++i) {
    if (!session.invoke(ms, error))
      return false;
    times.push_back(ms);
  }
  row.time = TimingStats::of(times);
  const TimingStats &t = *row.time;
  llvm::outs() << llvm::format(
      "Boo Kernel Time %s: %lld iterations after %lld warm-up: min %.4f "
      "ms, max %.4f ms, mean %.4f ms, median %.4f ms, stddev %.4f ms\n",
      row.kind.c_str(), (long long)t.iterations,
      (long long)std::max<int64_t>(warmup, 1), t.min, t.max, t.mean, t.median,
      t.stddev);
  llvm::outs() << "stats: name, dtype, flopCnt, bytes, GFLOP/s, GB/s, "
                  "timeMs\n";
  llvm::outs() << llvm::format("stats: %s, %s, %.0f, %.0f, %.2f, %.2f, "
                               "%.4f\n",
                               row.kind.c_str(), row.dtype.c_str(), row.flops,
                               row.bytes, row.gflops(), row.gbps(), t.median);
  return true;
}

bool Driver::runFloat64Reference(const CommandRun &run, bool measure,
                                 CommandRow &row,
                                 std::vector<::boo::ref::Tensor> &expected,
                                 std::string &error) {
  std::vector<double> referenceTimes;
  int64_t referenceRuns = measure && run.timing ? 3 : 1;
  for (int64_t i = 0; i < referenceRuns; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (failed(harness::computeReference(run.problem, run.inputs, expected,
                                         error)))
      return false;
    referenceTimes.push_back(std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - start)
                                 .count());
  }
  if (measure)
    reportReference(row, "reference", "float64, 1 thread",
                    TimingStats::of(referenceTimes),
                    harness::getMaxRelativeError(run.outputs, expected));
  return true;
}

bool Driver::verifyNumerics(CommandRun &run,
                            std::vector<::boo::ref::Tensor> &expected,
                            CommandRow &row, std::string &error) {
  const MIOpenProblem &problem = run.problem;
  // The statistics assume independent random inputs: with a splat, every
  // element's rounding is the same, so they get random inputs of their own.
  if (run.splat) {
    if (failed(harness::makeInputs(problem, harness::InputFill::Random, seed,
                                   0.0, run.inputs, error)) ||
        !invoke(run.inputs, run.outputs, error) ||
        failed(harness::computeReference(problem, run.inputs, expected, error)))
      return false;
  }
  std::vector<harness::CheckResult> checks = harness::checkStatistics(
      problem, run.outputs, expected, writtenElements(run.outputs).get());
  // The structured check: zeros but for one block of ones.
  std::vector<HostTensor> structuredInputs, structuredOutputs;
  std::vector<::boo::ref::Tensor> structuredExpected;
  if (failed(harness::makeInputs(problem, harness::InputFill::Structured, seed,
                                 0.0, structuredInputs, error)) ||
      !invoke(structuredInputs, structuredOutputs, error) ||
      failed(harness::computeReference(problem, structuredInputs,
                                       structuredExpected, error)))
    return false;
  checks.push_back(harness::checkStructured(
      problem, structuredOutputs, structuredExpected,
      writtenElements(structuredOutputs).get()));
  bool passed = true;
  std::vector<std::string> details;
  for (const harness::CheckResult &check : checks) {
    passed &= check.passed;
    llvm::outs() << "verify " << check.name << ": "
                 << (check.passed ? "PASS" : "FAIL") << " (" << check.details
                 << ")\n";
    details.push_back(check.name + " " + (check.passed ? "pass" : "FAIL") +
                      " (" + check.details + ")");
  }
  row.verify = passed ? "pass" : "fail";
  row.verifyDetails = llvm::join(details, "; ");
  if (!passed) {
    error = "numerics verification failed";
    return false;
  }
  return true;
}

/// The device to use: --device, else the first HIP GPU, else the CPU.
std::unique_ptr<RuntimeSession> openDevice(std::string &error) {
  if (!deviceFlag.empty())
    return RuntimeSession::open(deviceFlag, error);
  std::string hipError;
  if (auto session = RuntimeSession::open("hip", hipError))
    return session;
  return RuntimeSession::open("cpu", error);
}

int fail(const std::string &message) {
  llvm::errs() << "boo-driver: error: " << message << "\n";
  return 2;
}

/// --emit-plot --from-csv: a CSV of an earlier run to a plot. The roofline
/// is measured here when the rows ran on this host's CPU.
int plotCsv() {
  if (plotFile.empty())
    return fail("--from-csv needs --emit-plot FILE.svg");
  std::vector<CommandRow> rows;
  std::string error;
  if (!readCsv(fromCsv, rows, error))
    return fail(error);
  std::optional<Roofline> roofline;
  std::string device = rows.empty() ? "" : rows.front().device;
  if (llvm::StringRef(device).starts_with("cpu"))
    roofline = measureHostRoofline();
  if (!writePlot(plotFile, rows, roofline, "boo-driver on " + device, error))
    return fail(error);
  return 0;
}

int runDriver(const std::string &command) {
  if (!fromCsv.empty()) {
    if (!command.empty() || !commandsFile.empty())
      return fail("--from-csv plots a CSV; it runs no command");
    return plotCsv();
  }
  if (referenceBackend != "none" && referenceBackend != "reference" &&
      referenceBackend != "onednn" && referenceBackend != "memcpy")
    return fail("--reference-backend=" + referenceBackend +
                ": expected none, reference, onednn or memcpy");
  if (verifyWorkgroups < 0)
    return fail("--verify-workgroups=" +
                std::to_string(verifyWorkgroups.getValue()) +
                ": expected a workgroup count, or 0 (all)");
  if (verifyWorkgroups > 0 && !StringRef(deviceFlag).starts_with("emu:"))
    return fail("--verify-workgroups samples an emulator's workgroups; give "
                "--device=emu:CHIP");
  if (verifyWorkgroups > 0 && referenceBackend != "none")
    return fail("--verify-workgroups leaves most result elements unwritten: "
                "no --reference-backend compares them");
  if (estimateSample < -1)
    return fail("--estimate-sample=" + std::to_string(estimateSample) +
                ": expected a workgroup count, 0 (all) or -1 (none)");
  if (iterDefault.getNumOccurrences() && iterDefault < 1)
    return fail("--iter=" + std::to_string(iterDefault.getValue()) +
                ": the timed iterations must be at least 1");
  if (referenceBackend == "onednn" && !harness::isOneDNNAvailable())
    return fail("--reference-backend=onednn: boo-driver was built without "
                "oneDNN (install libdnnl-dev and reconfigure)");
  if (command.empty() == commandsFile.empty())
    return fail(commandsFile.empty()
                    ? "give an MIOpenDriver command or --commands-file FILE "
                      "(--help for the options)"
                    : "give either an MIOpenDriver command or "
                      "--commands-file, not both");
  std::vector<harness::CommandLine> commands;
  std::string error;
  if (!commandsFile.empty()) {
    if (!harness::readCommandsFile(commandsFile, commands, error))
      return fail(error);
  } else {
    commands.push_back({command, 0});
  }

  KernelCacheOptions cacheOptions;
  if (!KernelCacheOptions::fromEnvironment(cacheOptions, error))
    return fail(error);
  KernelCache cache(cacheOptions);

  if (estimate) {
    if (preload)
      return fail("--estimate and --preload are different modes; pass one");
    EstimateOptions options;
    llvm::SmallVector<llvm::StringRef> chipList;
    llvm::StringRef(targets.empty() ? "gfx942" : targets.getValue())
        .split(chipList, ',', -1, false);
    for (llvm::StringRef chip : chipList)
      options.chips.push_back(chip.trim().str());
    options.tuningSpec = tuningSpec;
    options.csvFile = csvFile;
    options.details = estimateDetails;
    options.sampleWorkgroups = estimateSample;
    return runEstimate(commands, options, &cache);
  }

  if (preload) {
    if (targets.empty())
      return fail("--preload needs --targets (e.g. gfx942,gfx1100,emu:gfx942)");
    PreloadOptions options;
    llvm::SmallVector<llvm::StringRef> chipList;
    llvm::StringRef(targets).split(chipList, ',', -1, false);
    for (llvm::StringRef chip : chipList)
      options.targets.push_back(chip.trim().str());
    options.tuningSpec = tuningSpec;
    options.jobs = jobs;
    options.failuresFile = failuresFile;
    options.progress = !quiet;
    return runPreload(commands, options, cache);
  }

  std::unique_ptr<RuntimeSession> session = openDevice(error);
  if (!session)
    return fail("--device=" + deviceFlag + ": " + error);
  // The artifact target of the device: the emulator runs emu:<chip> code,
  // a GPU its chip's, the host "cpu".
  std::string deviceName = deviceFlag.empty() ? "" : deviceFlag.getValue();
  std::string target = session->getTarget();
  if (llvm::StringRef(deviceName).starts_with("emu:"))
    target = "emu:" + target;
  else if (!llvm::StringRef(target).starts_with("gfx"))
    target = "cpu";
  if (!cpuPipelineOptions.empty()) {
    CPUPipelineOptions parsed;
    if (target != "cpu")
      return fail("--cpu-pipeline-options: --device=" + deviceName +
                  " runs no CPU code (use cpu or cpu:N)");
    if (failed(parsed.parseFromString(cpuPipelineOptions)))
      return fail("invalid --cpu-pipeline-options '" + cpuPipelineOptions +
                  "'");
  }
  if (referenceBackend == "memcpy" && target != "cpu")
    return fail("--reference-backend=memcpy compares against the host's "
                "memory; --device=" +
                deviceName + " is not the host CPU (use cpu or cpu:N)");

  MLIRContext ctx;
  {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  // The CSV and the plot of a GPU target carry the chip's estimate.
  std::unique_ptr<CommandEstimator> estimator;
  if ((!csvFile.empty() || !plotFile.empty()) && getTargetChip(target)) {
    EstimateOptions options;
    options.tuningSpec = tuningSpec;
    options.sampleWorkgroups = estimateSample;
    estimator = std::make_unique<CommandEstimator>(options, &cache);
  }
  Driver driver(ctx, *session, target, &cache, estimator.get());
  std::vector<CommandRow> rows(commands.size());
  Progress progress(commands.size(), "boo-driver",
                    !quiet && commands.size() > 1);
  int failures = 0;
  for (size_t i = 0; i < commands.size(); ++i) {
    if (i)
      llvm::outs() << "\n";
    rows[i].index = commands[i].lineNumber ? commands[i].lineNumber : 1;
    driver.run(commands[i].command, rows[i]);
    failures += !rows[i].ok;
    progress.step(rows[i].ok ? rows[i].kind + " ok"
                             : "FAILED: " + rows[i].error);
  }
  progress.finish();

  if (!csvFile.empty() && !writeCsv(csvFile, rows, error))
    return fail(error);
  if (!plotFile.empty()) {
    std::optional<Roofline> roofline;
    if (target == "cpu")
      roofline = measureHostRoofline();
    if (!writePlot(plotFile, rows, roofline,
                   "boo-driver on " + session->getDescription(), error))
      return fail(error);
  }
  if (commands.size() > 1)
    llvm::outs() << "\nboo-driver: " << commands.size() << " commands, "
                 << commands.size() - failures << " passed, " << failures
                 << " failed\n";
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  CommandLineParts parts;
  std::string error;
  if (!splitCommandLine(argc, argv, driverCategory, parts, error))
    return fail(error);
  llvm::cl::HideUnrelatedOptions(driverCategory);
  llvm::cl::ParseCommandLineOptions(
      static_cast<int>(parts.driverArgs.size()), parts.driverArgs.data(),
      "boo-driver: MIOpenDriver-compatible benchmarking with Boo\n\n"
      "  boo-driver [options] convbfp16 -n 128 -c 128 -H 24 -W 48 ... -t 1\n"
      "  boo-driver [options] --commands-file FILE\n"
      "  boo-driver [options] --commands-file FILE -t 1 --iter 100\n"
      "  boo-driver --preload --commands-file FILE --targets gfx942,gfx1100\n");
  std::string command =
      harness::normalizeCommand(llvm::join(parts.commandWords, " "));
  return runDriver(command);
}
