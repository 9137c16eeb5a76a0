//===- boo-bench-cache.cpp - Kernel cache hit latency ----------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// What a kernel cache hit costs boo-driver, against compiling in the same
// run: for a few MIOpenDriver commands and targets, a cold compile (miss,
// stored), then repeated hits, each split into its steps:
//
//   import  MIOpen command -> Boo MLIR module (needed to compute the key)
//   key     BLAKE3 of the printed module, options and tuning spec
//   lookup  read the entry, check its header, key and checksum
//   load    boo_module_load + function lookup on the device (cpu and emu
//           targets: the code object is dlopen'ed from memory), i.e. ready
//           to launch
//
// The cache lives in a fresh temporary directory.
//
//   boo-bench-cache [--hits=N]
//
//===----------------------------------------------------------------------===//

#include "Boo/Cache/KernelCache.h"
#include "Boo/Harness/CachedCompile.h"
#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"
#include "Boo/Runner/RuntimeSession.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::boo;

namespace {

llvm::cl::opt<unsigned> hits("hits", llvm::cl::desc("Cache hits per case"),
                             llvm::cl::init(200));

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = std::min(v.size() - 1, size_t(p * (v.size() - 1) + 0.5));
  return v[i];
}

struct Case {
  const char *command;
  const char *target; // artifact target
  const char *device; // where to load it; "" = no device here
};

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "boo-bench-cache\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  llvm::SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("boo-bench-cache", dir)) {
    llvm::errs() << "cannot create a temporary directory: " << ec.message()
                 << "\n";
    return 1;
  }
  KernelCacheOptions options;
  options.directory = dir.str().str();
  KernelCache cache(options);

  const Case cases[] = {
      {"convbfp16 -n 128 -c 128 -H 24 -W 48 -k 384 -y 1 -x 1 -p 0 -q 0 -u 1 "
       "-v 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC "
       "--fil_layout NHWC",
       "cpu", "cpu"},
      {"conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 "
       "-j 1 -m conv -g 1 -F 1",
       "cpu", "cpu"},
      {"conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 "
       "-j 1 -m conv -g 1 -F 1",
       "emu:gfx942", "emu:gfx942"},
      {"convbfp16 -n 128 -c 128 -H 24 -W 48 -k 384 -y 1 -x 1 -p 0 -q 0 -u 1 "
       "-v 1 -l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC "
       "--fil_layout NHWC",
       "gfx942", ""},
      {"layernorm -X 32x128x768 -o 2 -m 1 -F 1", "cpu", "cpu"},
  };

  llvm::outs() << "boo-bench-cache: " << hits << " hits per case, cache in "
               << dir << "\n";
  llvm::outs() << llvm::format("%-10s %9s %9s | %8s %8s %8s %8s %9s %9s %8s  %s\n",
                               "target", "entry KB", "miss ms", "import",
                               "key", "lookup", "load", "hit ms", "hit p90",
                               "miss/hit", "command");
  bool allUnderMs = true;
  for (const Case &c : cases) {
    std::string error;
    ArtifactOptions artifactOptions;
    artifactOptions.targets = {c.target};
    artifactOptions.producer = "boo-bench-cache";

    // The miss: import, compile, store.
    auto start = Clock::now();
    FailureOr<OwningOpRef<ModuleOp>> module =
        importMIOpenCommand(&ctx, c.command, error);
    if (failed(module)) {
      llvm::errs() << c.command << ": " << error << "\n";
      return 1;
    }
    harness::CompileResult compiled;
    if (!harness::compileCached(**module, artifactOptions, &cache, compiled,
                                error) ||
        compiled.outcome != harness::CacheOutcome::Miss) {
      llvm::errs() << c.command << ": cold compile failed: " << error << "\n";
      return 1;
    }
    double missMs = msSince(start);

    std::unique_ptr<RuntimeSession> session;
    if (*c.device) {
      session = RuntimeSession::open(c.device, error);
      if (!session) {
        llvm::errs() << c.device << ": " << error << "\n";
        return 1;
      }
    }
    std::vector<double> importMs, keyMs, lookupMs, loadMs, totalMs;
    for (unsigned i = 0; i < hits; ++i) {
      auto t0 = Clock::now();
      FailureOr<OwningOpRef<ModuleOp>> again =
          importMIOpenCommand(&ctx, c.command, error);
      auto t1 = Clock::now();
      std::string key;
      if (failed(again) || !harness::computeArtifactCacheKey(
                               **again, artifactOptions, key, error)) {
        llvm::errs() << c.command << ": " << error << "\n";
        return 1;
      }
      auto t2 = Clock::now();
      std::string bytes;
      if (cache.lookup(key, bytes, error) != KernelCache::LookupStatus::Hit) {
        llvm::errs() << c.command << ": expected a cache hit: " << error
                     << "\n";
        return 1;
      }
      auto t3 = Clock::now();
      if (session && !session->load(bytes, "", error)) {
        llvm::errs() << c.command << ": load: " << error << "\n";
        return 1;
      }
      auto t4 = Clock::now();
      auto ms = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
      };
      importMs.push_back(ms(t0, t1));
      keyMs.push_back(ms(t1, t2));
      lookupMs.push_back(ms(t2, t3));
      loadMs.push_back(ms(t3, t4));
      totalMs.push_back(ms(t0, t4));
    }
    double hitMs = median(totalMs);
    allUnderMs &= hitMs <= 1.0;
    llvm::outs() << llvm::format(
        "%-10s %9.1f %9.1f | %8.3f %8.3f %8.3f %8s %9.3f %9.3f %8.0f  %s\n",
        c.target, compiled.bytes.size() / 1024.0, missMs, median(importMs),
        median(keyMs), median(lookupMs),
        session ? llvm::formatv("{0:F3}", median(loadMs)).str().c_str()
                : "n/a",
        hitMs, percentile(totalMs, 0.9), missMs / hitMs, c.command);
  }
  llvm::outs() << "hit = import + key + lookup + load (medians of each step "
                  "and of the total); gfx942 has no device here, so its "
                  "hit stops at the verified bytes\n";
  llvm::outs() << (allUnderMs ? "every median hit is within 1 ms\n"
                              : "some median hit is over 1 ms\n");
  std::string error;
  (void)cache.clear(error);
  llvm::sys::fs::remove_directories(dir);
  return 0;
}
