//===- RunEstimate.cpp - boo-driver --estimate ----------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "RunEstimate.h"
#include "Report.h"

#include "Boo/Harness/CachedCompile.h"
#include "Boo/Harness/Estimate.h"
#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"
#include "Boo/Runner/RuntimeSession.h"
#include "Boo/Target/ChipInfo.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>

using namespace mlir;
using namespace mlir::boo;

namespace {

/// RFC 4180: quoted when it holds a comma, a quote or a line break.
std::string csvField(llvm::StringRef s) {
  if (!s.contains(',') && !s.contains('"') && !s.contains('\n'))
    return s.str();
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

/// One CSV row: the estimate's totals over the command's kernels.
void writeRow(llvm::raw_ostream &csv, int64_t index, llvm::StringRef command,
              llvm::StringRef chip, const harness::CommandEstimate *e,
              llvm::StringRef error) {
  csv << index << ',' << csvField(command) << ',' << chip << ','
      << (e ? "ok" : "failed") << ',';
  if (e) {
    double mma = 0, memory = 0, cache = 0, lds = 0, issue = 0;
    double cycles = 0, conflictFree = 0;
    int64_t waves = 1 << 30, vgprs = 0;
    bool emulated = e->isEmulated();
    for (const KernelEstimate &k : e->kernels) {
      mma += k.mmaSeconds, memory += k.memorySeconds, cache += k.cacheSeconds;
      lds += k.ldsSeconds, issue += k.issueSeconds;
      waves = std::min(waves, k.wavesPerSimd);
      vgprs = std::max(vgprs, k.vgprs + k.agprs);
      cycles += k.ldsCycles, conflictFree += k.ldsConflictFreeCycles;
    }
    csv << llvm::format(
        "%.3f,%s,%.1f,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%lld,%lld,%d,",
        e->seconds * 1e6, e->bound.c_str(), e->fractionOfPeak * 100,
        e->kernels.size(), mma * 1e6, memory * 1e6, cache * 1e6, lds * 1e6,
        issue * 1e6, static_cast<long long>(waves),
        static_cast<long long>(vgprs), emulated ? 1 : 0);
    if (emulated && conflictFree > 0)
      csv << llvm::format("%.1f", 100 * (cycles / conflictFree - 1));
  } else {
    csv << ",,,,,,,,,,,,";
  }
  csv << ',' << csvField(error) << '\n';
}

} // namespace

/// Runs commands on the chips' emulators, profiled, for the estimate's
/// dynamic counts (docs/Emulator.md, "Profile").
class harness::EmulatorProfiler {
public:
  EmulatorProfiler(const EstimateOptions &options, KernelCache *cache)
      : options(options), cache(cache) {}

  /// Compiles `source` for emu:<chip>, runs a sample of each launch's
  /// workgroups and puts the emulator's counts into `estimate`'s kernels.
  /// False, with `error`, when it cannot (the estimate is then unchanged).
  bool apply(ModuleOp source, const ChipInfo &chip,
             harness::CommandEstimate &estimate, std::string &error);

private:
  RuntimeSession *getSession(const ChipInfo &chip, std::string &error);

  const EstimateOptions &options;
  KernelCache *cache;
  std::map<std::string, std::unique_ptr<RuntimeSession>> sessions;
};

RuntimeSession *harness::EmulatorProfiler::getSession(const ChipInfo &chip,
                                                      std::string &error) {
  std::unique_ptr<RuntimeSession> &session = sessions[chip.name.str()];
  if (!session)
    session = RuntimeSession::open("emu:" + chip.name.str(), error);
  return session.get();
}

bool harness::EmulatorProfiler::apply(ModuleOp source, const ChipInfo &chip,
                                      harness::CommandEstimate &estimate,
                                      std::string &error) {
  OwningOpRef<ModuleOp> module = source.clone();
  ArtifactOptions artifact;
  artifact.targets = {"emu:" + chip.name.str()};
  artifact.tuningSpec = options.tuningSpec;
  artifact.producer = "boo-driver --estimate";
  harness::CompileResult compiled;
  if (!harness::compileCached(*module, artifact, cache, compiled, error))
    return false;
  RuntimeSession *session = getSession(chip, error);
  if (!session || !session->load(compiled.bytes, "", error))
    return false;
  // The counts do not depend on the values.
  std::vector<HostTensor> inputs;
  for (const TensorSignature &t : session->getInputs())
    inputs.push_back(HostTensor::zeros(t.shape, t.type));
  std::vector<RuntimeSession::LaunchProfile> profiles;
  if (!session->setInputs(inputs, error) ||
      !session->invokeProfiled(uint64_t(options.sampleWorkgroups), profiles,
                               error))
    return false;
  if (profiles.size() != estimate.kernels.size()) {
    error = "the emulator ran " + std::to_string(profiles.size()) +
            " launches, the GPU code has " +
            std::to_string(estimate.kernels.size());
    return false;
  }
  for (auto [k, p] : llvm::zip_equal(estimate.kernels, profiles)) {
    const boo_launch_profile_t &c = p.counts;
    if (p.kernel != k.kernel || int64_t(c.workgroups) != k.workgroups) {
      error = "the emulator's kernel '" + p.kernel + "' (" +
              std::to_string(c.workgroups) + " workgroups) is not the GPU's '" +
              k.kernel + "' (" + std::to_string(k.workgroups) + ")";
      return false;
    }
  }
  for (auto [k, p] : llvm::zip_equal(estimate.kernels, profiles)) {
    const boo_launch_profile_t &c = p.counts;
    EmulatedCounts counts;
    counts.workgroups = double(c.workgroups);
    counts.profiledWorkgroups = double(c.profiled_workgroups);
    counts.mmaInstructions = double(c.mma_instructions);
    counts.mmaFlops = double(c.mma_flops);
    counts.globalInstructions =
        double(c.global_load_instructions + c.global_store_instructions);
    counts.globalBytes = double(c.global_load_bytes + c.global_store_bytes);
    counts.globalLines = double(c.global_lines);
    counts.ldsInstructions =
        double(c.lds_load_instructions + c.lds_store_instructions);
    counts.ldsBytes = double(c.lds_bytes);
    counts.ldsCycles = double(c.lds_cycles);
    counts.ldsConflictFreeCycles = double(c.lds_conflict_free_cycles);
    applyEmulatedCounts(chip, counts, k);
  }
  harness::summarizeEstimate(chip, estimate);
  return true;
}

harness::CommandEstimator::CommandEstimator(EstimateOptions options,
                                            KernelCache *cache)
    : options(std::move(options)) {
  profiler = std::make_unique<EmulatorProfiler>(this->options, cache);
}

harness::CommandEstimator::~CommandEstimator() = default;

FailureOr<harness::CommandEstimate>
harness::CommandEstimator::estimate(ModuleOp source, const ChipInfo &chip,
                                    std::string &error,
                                    std::string &emulatorNote) {
  emulatorNote.clear();
  FailureOr<CommandEstimate> e =
      estimateOnChip(source, chip, options.tuningSpec, error);
  if (succeeded(e) && options.emulate() &&
      !profiler->apply(source, chip, *e, emulatorNote) && emulatorNote.empty())
    emulatorNote = "unknown error";
  return e;
}

const ChipInfo *harness::getTargetChip(llvm::StringRef target) {
  target.consume_front("emu:");
  return lookupChip(target);
}

void harness::addRowEstimate(CommandEstimator &estimator, MLIRContext &ctx,
                             const MIOpenProblem &problem,
                             llvm::StringRef target, CommandRow &row) {
  const ChipInfo *chip = getTargetChip(target);
  if (!chip)
    return;
  std::string error, note;
  FailureOr<OwningOpRef<ModuleOp>> module =
      buildMIOpenModule(&ctx, problem, error);
  FailureOr<CommandEstimate> e =
      failed(module) ? FailureOr<CommandEstimate>(failure())
                     : estimator.estimate(**module, *chip, error, note);
  if (failed(e)) {
    llvm::outs() << "boo-driver: warning: no estimate for " << chip->name
                 << ": " << error << "\n";
    return;
  }
  row.estimate = CommandRow::Estimate{chip->name.str(), e->seconds * 1e6,
                                      e->bound, e->fractionOfPeak * 100,
                                      e->isEmulated() ? "emulator" : "ir"};
  llvm::outs() << llvm::format(
      "boo-driver: ESTIMATE on %s: %.2f us, %s-bound, %.1f%% of MMA peak "
      "(%s counts; an estimate, not a measurement: docs/PerfModel.md)\n",
      chip->name.data(), row.estimate->us, e->bound.c_str(),
      row.estimate->peakPct, row.estimate->counts.c_str());
  if (!note.empty())
    llvm::outs() << "boo-driver: warning: no emulator counts: " << note << "\n";
}

int harness::runEstimate(const std::vector<CommandLine> &commands,
                         const EstimateOptions &options, KernelCache *cache) {
  std::vector<const ChipInfo *> chips;
  for (const std::string &name : options.chips) {
    const ChipInfo *chip = lookupChip(name);
    if (!chip) {
      llvm::errs() << "boo-driver: error: --estimate --targets: "
                   << getUnsupportedChipMessage(name) << "\n";
      return 2;
    }
    chips.push_back(chip);
  }
  std::string csvText;
  llvm::raw_string_ostream csv(csvText);
  csv << "index,command,chip,status,est_us,bound,peak_pct,kernels,mma_us,"
         "mem_us,cache_us,lds_us,issue_us,min_waves_per_simd,max_vgprs,"
         "emulated,lds_conflict_pct,error\n";
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  int failures = 0;
  CommandEstimator estimator(options, cache);
  llvm::outs() << "ESTIMATES: rooflines of Boo's compiled code, not "
                  "measurements (docs/PerfModel.md)\n";
  for (const CommandLine &line : commands) {
    int64_t index = line.lineNumber ? line.lineNumber : 1;
    llvm::outs() << "[" << index << "] " << line.command << "\n";
    std::string error;
    FailureOr<OwningOpRef<ModuleOp>> module =
        importMIOpenCommand(&ctx, line.command, error);
    for (const ChipInfo *chip : chips) {
      std::string emulatorError;
      FailureOr<CommandEstimate> e =
          failed(module)
              ? FailureOr<CommandEstimate>(failure())
              : estimator.estimate(**module, *chip, error, emulatorError);
      if (failed(e)) {
        ++failures;
        llvm::outs() << "  " << chip->name << ": FAILED: " << error << "\n";
        writeRow(csv, index, line.command, chip->name, nullptr, error);
        continue;
      }
      bool emulated = e->isEmulated();
      llvm::outs() << llvm::format(
          "  %-8s estimate %10.2f us  %-12s %5.1f%% of MMA peak  "
          "(%zu kernel%s%s)\n",
          chip->name.data(), e->seconds * 1e6, (e->bound + "-bound").c_str(),
          e->fractionOfPeak * 100, e->kernels.size(),
          e->kernels.size() == 1 ? "" : "s",
          emulated ? ", emulator counts" : ", IR counts");
      if (!emulatorError.empty())
        llvm::outs() << "    no emulator counts: " << emulatorError << "\n";
      if (options.details)
        printPerfReport(llvm::outs(), *chip, e->kernels);
      writeRow(csv, index, line.command, chip->name, &*e, "");
    }
  }
  if (!options.csvFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream file(options.csvFile, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      llvm::errs() << "boo-driver: error: --csv " << options.csvFile << ": "
                   << ec.message() << "\n";
      return 2;
    }
    file << csvText;
  }
  return failures ? 1 : 0;
}
