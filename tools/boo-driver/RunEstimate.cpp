//===- RunEstimate.cpp - boo-driver --estimate ----------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "RunEstimate.h"

#include "Boo/Harness/Estimate.h"
#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"
#include "Boo/Target/ChipInfo.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

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
    int64_t waves = 1 << 30, vgprs = 0;
    for (const KernelEstimate &k : e->kernels) {
      mma += k.mmaSeconds, memory += k.memorySeconds, cache += k.cacheSeconds;
      lds += k.ldsSeconds, issue += k.issueSeconds;
      waves = std::min(waves, k.wavesPerSimd);
      vgprs = std::max(vgprs, k.vgprs + k.agprs);
    }
    csv << llvm::format(
        "%.3f,%s,%.1f,%zu,%.3f,%.3f,%.3f,%.3f,%.3f,%lld,%lld", e->seconds * 1e6,
        e->bound.c_str(), e->fractionOfPeak * 100, e->kernels.size(), mma * 1e6,
        memory * 1e6, cache * 1e6, lds * 1e6, issue * 1e6,
        static_cast<long long>(waves), static_cast<long long>(vgprs));
  } else {
    csv << ",,,,,,,,,,";
  }
  csv << ',' << csvField(error) << '\n';
}

} // namespace

int harness::runEstimate(const std::vector<CommandLine> &commands,
                         const EstimateOptions &options) {
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
         "error\n";
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  int failures = 0;
  llvm::outs() << "ESTIMATES: rooflines of Boo's compiled code, not "
                  "measurements (docs/PerfModel.md)\n";
  for (const CommandLine &line : commands) {
    int64_t index = line.lineNumber ? line.lineNumber : 1;
    llvm::outs() << "[" << index << "] " << line.command << "\n";
    std::string error;
    FailureOr<OwningOpRef<ModuleOp>> module =
        importMIOpenCommand(&ctx, line.command, error);
    for (const ChipInfo *chip : chips) {
      FailureOr<CommandEstimate> e =
          failed(module)
              ? FailureOr<CommandEstimate>(failure())
              : estimateOnChip(**module, *chip, options.tuningSpec, error);
      if (failed(e)) {
        ++failures;
        llvm::outs() << "  " << chip->name << ": FAILED: " << error << "\n";
        writeRow(csv, index, line.command, chip->name, nullptr, error);
        continue;
      }
      llvm::outs() << llvm::format(
          "  %-8s estimate %10.2f us  %-12s %5.1f%% of MMA peak  "
          "(%zu kernel%s)\n",
          chip->name.data(), e->seconds * 1e6, (e->bound + "-bound").c_str(),
          e->fractionOfPeak * 100, e->kernels.size(),
          e->kernels.size() == 1 ? "" : "s");
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
