//===- boo-bench-rocdl-compile.cpp - GPU compile time per kernel ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Measures the time from an MIOpenDriver command to HSACO code objects
// (import + boo-to-rocdl) for a set of problem signatures from real networks
// (ResNet-50, VGG, depthwise/grouped, 1x1, 7x7 stride 2, 3-D, backward,
// layer norm), per chip, and prints min / median / max per kernel.
//
//   boo-bench-rocdl-compile [--targets=gfx942,gfx1100] [--reps=N]
//       [--networks] [--random=N] [--realistic=N] [--jobs=N]
//       [--commands-file=F ...] [--check-wide-loads]
//
// Every kernel must pass the pipeline's contract (no scratch, no spills):
// a failure prints the command and the chip, and the exit status is 1.
// With --check-wide-loads, every MMA kernel of a 16-bit, all-channels-last
// problem whose channels per group are multiples of 8 must also load its
// operands 16 bytes at a time and access LDS 8 or 16 bytes at a time in
// its main loop (the ISA's mix, PerfEstimate.h).
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/GPU/Pipelines.h"
#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"
#include "Boo/Target/ChipInfo.h"
#include "Boo/Target/ROCDL/PerfEstimate.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::boo;

namespace {
llvm::cl::opt<std::string>
    chips("targets", llvm::cl::desc("Comma-separated chips (default: all)"),
          llvm::cl::init(""));
llvm::cl::alias chipsAlias("chips", llvm::cl::aliasopt(chips),
                           llvm::cl::desc("Old spelling of --targets"),
                           llvm::cl::Hidden);
llvm::cl::opt<int> reps("reps", llvm::cl::desc("Compiles per problem (the "
                                               "fastest counts)"),
                        llvm::cl::init(1));

const char *kProblems[] = {
    // ResNet-50 (NHWC, bf16), forward and backward.
    "convbfp16 -n 32 -c 3 -H 224 -W 224 -k 64 -y 7 -x 7 -p 3 -q 3 -u 2 -v 2 "
    "-F 1 --in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 32 -c 64 -H 56 -W 56 -k 64 -y 1 -x 1 -F 1 --in_layout NHWC "
    "--fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 32 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1 "
    "--in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 32 -c 256 -H 56 -W 56 -k 128 -y 1 -x 1 -u 2 -v 2 -F 1 "
    "--in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 32 -c 512 -H 7 -W 7 -k 2048 -y 1 -x 1 -F 1 --in_layout NHWC "
    "--fil_layout NHWC --out_layout NHWC -b 1",
    "convbfp16 -n 32 -c 128 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -F 2 "
    "--in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 32 -c 128 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -F 4 "
    "--in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 32 -c 64 -H 56 -W 56 -k 128 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 "
    "-F 2 --in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    // VGG (NCHW, f16 and f32).
    "convfp16 -n 16 -c 64 -H 224 -W 224 -k 64 -y 3 -x 3 -p 1 -q 1 -F 1",
    "conv -n 16 -c 256 -H 56 -W 56 -k 256 -y 3 -x 3 -p 1 -q 1 -F 1",
    // Depthwise and grouped.
    "convfp16 -n 8 -c 144 -H 56 -W 56 -k 144 -y 3 -x 3 -p 1 -q 1 -g 144 -F 1 "
    "--in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    "convbfp16 -n 8 -c 128 -H 28 -W 28 -k 128 -y 3 -x 3 -p 1 -q 1 -g 32 -F 1 "
    "--in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    // Odd shapes.
    "convbfp16 -n 2 -c 35 -H 118 -W 182 -k 3 -y 3 -x 3 -p 1 -q 1 -F 1 "
    "--in_layout NHWC --fil_layout NHWC --out_layout NHWC",
    // 3-D.
    "convbfp16 -n 2 -c 32 --in_d 16 -H 32 -W 32 -k 64 --fil_d 3 -y 3 -x 3 "
    "--pad_d 1 -p 1 -q 1 -_ 3 -F 1 --in_layout NDHWC --fil_layout NDHWC "
    "--out_layout NDHWC",
    // The issue's example.
    "convbfp16 -n 128 -c 128 -H 24 -W 48 -k 384 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 "
    "-l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC "
    "--fil_layout NHWC",
    // Layer norm.
    "layernormbfp16 -X 64x128x768 -o 2 -m 1 -F 1",
    "layernormfp16 -X 32x1024 -o 1 -m 1 -F 14",
};

llvm::cl::opt<int> randomCount(
    "random", llvm::cl::desc("Also compile this many random convolution "
                             "signatures (fixed seed, see --seed)"),
    llvm::cl::init(0));
llvm::cl::opt<unsigned> seed("seed", llvm::cl::desc("Seed of --random"),
                             llvm::cl::init(1));
llvm::cl::opt<bool> networks(
    "networks", llvm::cl::desc("Also compile every convolution layer of "
                               "ResNet-50 (forward, backward data and "
                               "weight), VGG-16 and MobileNetV2's depthwise "
                               "layers"),
    llvm::cl::init(false));
llvm::cl::opt<int> realisticCount(
    "realistic",
    llvm::cl::desc("Also compile this many random signatures with realistic "
                   "sizes (batch 1-256, channels up to 2048, 1x1 to 7x7 "
                   "filters, strides 1-2, NCHW and NHWC, all directions, "
                   "f32/f16/bf16, some grouped, depthwise and 3-D)"),
    llvm::cl::init(0));
llvm::cl::opt<unsigned> jobs("jobs",
                             llvm::cl::desc("Compile threads (default: all "
                                            "cores)"),
                             llvm::cl::init(0));
llvm::cl::list<std::string> commandsFiles(
    "commands-file",
    llvm::cl::desc("Also compile the MIOpenDriver commands of this file (one "
                   "per line, # comments; repeatable)"));
llvm::cl::opt<bool> checkWideLoads(
    "check-wide-loads",
    llvm::cl::desc("Fail MMA kernels of 16-bit channels-last problems with "
                   "channels per group a multiple of 8 whose main loop "
                   "loads global memory in less than 16 bytes or accesses "
                   "LDS in less than 8"),
    llvm::cl::init(false));
llvm::cl::opt<bool> verbose("v", llvm::cl::desc("Print each problem"),
                            llvm::cl::init(false));

std::string nhwc() {
  return " --in_layout NHWC --fil_layout NHWC --out_layout NHWC";
}

/// ResNet-50's distinct convolutions (batch 32, bf16, NHWC) in three
/// directions, VGG-16's (batch 16, f16, NCHW) and MobileNetV2's depthwise
/// layers (batch 8, f16, NHWC).
std::vector<std::string> networkProblems() {
  struct L {
    int c, hw, k, f, s;
  };
  const L resnet[] = {
      {3, 224, 64, 7, 2},    {64, 56, 64, 1, 1},    {64, 56, 64, 3, 1},
      {64, 56, 256, 1, 1},   {256, 56, 64, 1, 1},   {256, 56, 128, 1, 1},
      {128, 56, 128, 3, 2},  {128, 28, 512, 1, 1},  {256, 56, 512, 1, 2},
      {512, 28, 128, 1, 1},  {128, 28, 128, 3, 1},  {512, 28, 256, 1, 1},
      {256, 28, 256, 3, 2},  {256, 14, 1024, 1, 1}, {512, 28, 1024, 1, 2},
      {1024, 14, 256, 1, 1}, {256, 14, 256, 3, 1},  {1024, 14, 512, 1, 1},
      {512, 14, 512, 3, 2},  {512, 7, 2048, 1, 1},  {1024, 14, 2048, 1, 2},
      {2048, 7, 512, 1, 1},  {512, 7, 512, 3, 1}};
  std::vector<std::string> out;
  for (const L &l : resnet)
    for (int dir : {1, 2, 4})
      out.push_back("convbfp16 -n 32 -c " + std::to_string(l.c) + " -H " +
                    std::to_string(l.hw) + " -W " + std::to_string(l.hw) +
                    " -k " + std::to_string(l.k) + " -y " +
                    std::to_string(l.f) + " -x " + std::to_string(l.f) +
                    " -p " + std::to_string(l.f / 2) + " -q " +
                    std::to_string(l.f / 2) + " -u " + std::to_string(l.s) +
                    " -v " + std::to_string(l.s) + " -F " +
                    std::to_string(dir) + nhwc());
  const L vgg[] = {{3, 224, 64, 3, 1},   {64, 224, 64, 3, 1},
                   {64, 112, 128, 3, 1}, {128, 112, 128, 3, 1},
                   {128, 56, 256, 3, 1}, {256, 56, 256, 3, 1},
                   {256, 28, 512, 3, 1}, {512, 28, 512, 3, 1},
                   {512, 14, 512, 3, 1}};
  for (const L &l : vgg)
    out.push_back("convfp16 -n 16 -c " + std::to_string(l.c) + " -H " +
                  std::to_string(l.hw) + " -W " + std::to_string(l.hw) +
                  " -k " + std::to_string(l.k) + " -y 3 -x 3 -p 1 -q 1 -F 1");
  const L mobile[] = {{32, 112, 32, 3, 1},  {96, 112, 96, 3, 2},
                      {144, 56, 144, 3, 1}, {144, 56, 144, 3, 2},
                      {192, 28, 192, 3, 1}, {384, 14, 384, 3, 1},
                      {576, 14, 576, 3, 2}, {960, 7, 960, 3, 1}};
  for (const L &l : mobile)
    out.push_back("convfp16 -n 8 -c " + std::to_string(l.c) + " -H " +
                  std::to_string(l.hw) + " -W " + std::to_string(l.hw) +
                  " -k " + std::to_string(l.k) + " -y 3 -x 3 -p 1 -q 1 -u " +
                  std::to_string(l.s) + " -v " + std::to_string(l.s) +
                  " -g " + std::to_string(l.c) + " -F 1" + nhwc());
  return out;
}

/// `count` random valid convolution signatures: 1-D... 3-D spatial sizes,
/// odd channel counts, strides, padding, dilation, groups, every data
/// type, NCHW or NHWC, forward / backward data / backward weight.
std::vector<std::string> randomProblems(int count, unsigned seedValue) {
  std::mt19937 rng(seedValue);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<std::string> out;
  const char *types[] = {"conv", "convfp16", "convbfp16"};
  while (static_cast<int>(out.size()) < count) {
    bool is3d = pick(0, 5) == 0;
    int g = pick(0, 3) == 0 ? pick(1, 4) : 1;
    int c = g * pick(1, 48), k = g * pick(1, 48);
    int n = pick(1, 4);
    int d = is3d ? pick(1, 12) : 1, h = pick(1, 40), w = pick(1, 64);
    int fd = is3d ? pick(1, 3) : 1, fy = pick(1, 5), fx = pick(1, 5);
    int pd = is3d ? pick(0, 1) : 0, p = pick(0, 2), q = pick(0, 2);
    int sd = is3d ? pick(1, 2) : 1, u = pick(1, 3), v = pick(1, 3);
    int dd = 1, l = pick(0, 4) == 0 ? 2 : 1, j = pick(0, 4) == 0 ? 2 : 1;
    auto outSize = [](int in, int f, int pad, int s, int dil) {
      int span = dil * (f - 1) + 1;
      return in + 2 * pad < span ? 0 : (in + 2 * pad - span) / s + 1;
    };
    if (outSize(d, fd, pd, sd, dd) < 1 || outSize(h, fy, p, u, l) < 1 ||
        outSize(w, fx, q, v, j) < 1)
      continue;
    std::string cmd = types[pick(0, 2)];
    cmd += " -n " + std::to_string(n) + " -c " + std::to_string(c) +
           " -H " + std::to_string(h) + " -W " + std::to_string(w) + " -k " +
           std::to_string(k) + " -y " + std::to_string(fy) + " -x " +
           std::to_string(fx) + " -p " + std::to_string(p) + " -q " +
           std::to_string(q) + " -u " + std::to_string(u) + " -v " +
           std::to_string(v) + " -l " + std::to_string(l) + " -j " +
           std::to_string(j) + " -g " + std::to_string(g) + " -F " +
           std::to_string(std::array<int, 3>{1, 2, 4}[pick(0, 2)]);
    if (is3d)
      cmd += " -_ 3 --in_d " + std::to_string(d) + " --fil_d " +
             std::to_string(fd) + " --pad_d " + std::to_string(pd) +
             " --conv_stride_d " + std::to_string(sd) +
             (pick(0, 1) ? " --in_layout NDHWC --fil_layout NDHWC "
                           "--out_layout NDHWC"
                         : "");
    else if (pick(0, 1))
      cmd += nhwc();
    out.push_back(cmd);
  }
  return out;
}

/// `count` random signatures of the sizes real networks have (see
/// --realistic).
std::vector<std::string> realisticProblems(int count, unsigned seedValue) {
  std::mt19937 rng(seedValue);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto oneOf = [&](auto &values) {
    return values[pick(0, static_cast<int>(std::size(values)) - 1)];
  };
  const int batches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  const int channels[] = {16,  24,  32,  48,   64,   96,   128, 144,
                          160, 192, 256, 320,  384,  512,  576, 640,
                          768, 832, 960, 1024, 1280, 1536, 2048};
  const int sizes[] = {7, 14, 17, 28, 35, 56, 112, 224};
  const int filters[] = {1, 1, 1, 3, 3, 3, 5, 7};
  const char *types[] = {"conv", "convfp16", "convbfp16"};
  std::vector<std::string> out;
  while (static_cast<int>(out.size()) < count) {
    int n = oneOf(batches), c = oneOf(channels), k = oneOf(channels);
    int hw = oneOf(sizes), f = oneOf(filters), s = pick(0, 3) == 0 ? 2 : 1;
    int g = 1, roll = pick(0, 9);
    if (roll == 0) {
      g = c; // depthwise
      k = c;
    } else if (roll == 1) {
      g = std::array<int, 3>{2, 4, 8}[pick(0, 2)];
    }
    if (c == 16 && pick(0, 3) == 0)
      c = 3; // a stem
    if (c % g || k % g)
      continue;
    // The largest activations real networks have at each width.
    if (static_cast<int64_t>(hw) * hw * std::max(c, k) > 224 * 224 * 128)
      continue;
    bool is3d = pick(0, 9) == 0;
    int d = is3d ? std::array<int, 3>{4, 8, 16}[pick(0, 2)] : 1;
    if (is3d &&
        static_cast<int64_t>(d) * hw * hw * std::max(c, k) > 16 * 56 * 56 * 256)
      continue;
    std::string cmd = types[pick(0, 2)];
    auto num = [](int x) { return std::to_string(x); };
    cmd += " -n " + num(n) + " -c " + num(c) + " -H " + num(hw) + " -W " +
           num(hw) + " -k " + num(k) + " -y " + num(f) + " -x " + num(f) +
           " -p " + num(f / 2) + " -q " + num(f / 2) + " -u " + num(s) +
           " -v " + num(s) + " -l 1 -j 1 -g " + num(g) + " -F " +
           num(std::array<int, 3>{1, 2, 4}[pick(0, 2)]);
    bool channelsLast = pick(0, 1);
    if (is3d)
      cmd += " -_ 3 --in_d " + num(d) + " --fil_d " + num(f == 1 ? 1 : 3) +
             " --pad_d " + num(f == 1 ? 0 : 1) + " --conv_stride_d 1" +
             (channelsLast ? " --in_layout NDHWC --fil_layout NDHWC "
                             "--out_layout NDHWC"
                           : "");
    else if (channelsLast)
      cmd += nhwc();
    out.push_back(cmd);
  }
  return out;
}

/// The value of flag `flag` ("-c") in `command`, or `fallback`.
std::string flagValue(StringRef command, StringRef flag, StringRef fallback) {
  SmallVector<StringRef> words;
  command.split(words, ' ', -1, false);
  for (size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == flag)
      return words[i + 1].str();
  return fallback.str();
}

/// Whether --check-wide-loads holds `command`'s MMA kernels to wide loads:
/// f16/bf16, input, filter and output channels-last, channels per group
/// multiples of 8 (so every operand's contiguous dim is).
bool expectsWideLoads(StringRef command) {
  if (!command.starts_with("convfp16 ") && !command.starts_with("convbfp16 "))
    return false;
  for (StringRef flag : {"--in_layout", "--fil_layout", "--out_layout"}) {
    std::string layout = flagValue(command, flag, "NCHW");
    if (layout != "NHWC" && layout != "NDHWC")
      return false;
  }
  int64_t c = 0, k = 0, g = 0;
  if (StringRef(flagValue(command, "-c", "0")).getAsInteger(10, c) ||
      StringRef(flagValue(command, "-k", "0")).getAsInteger(10, k) ||
      StringRef(flagValue(command, "-g", "1")).getAsInteger(10, g) || g < 1)
    return false;
  return c % g == 0 && k % g == 0 && (c / g) % 8 == 0 && (k / g) % 8 == 0;
}

/// Why `mix` (an MMA kernel's main loop) fails --check-wide-loads, or "".
std::string checkWide(const ISAMix &mix) {
  std::string problems;
  auto check = [&](const MemoryMix &m, int64_t least, const char *what) {
    if (m.instructions && m.narrowest < least)
      problems += std::string(problems.empty() ? "" : ", ") + what + " of " +
                  std::to_string(m.narrowest) + " bytes";
  };
  check(mix.globalLoads, 16, "global loads");
  check(mix.ldsReads, 8, "LDS reads");
  check(mix.ldsWrites, 8, "LDS writes");
  return problems;
}

/// Problems from --commands-file files.
bool readCommandFiles(std::vector<std::string> &out) {
  for (const std::string &path : commandsFiles) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!buffer) {
      std::fprintf(stderr, "--commands-file %s: %s\n", path.c_str(),
                   buffer.getError().message().c_str());
      return false;
    }
    SmallVector<StringRef> lines;
    (*buffer)->getBuffer().split(lines, '\n');
    for (StringRef line : lines) {
      line = line.trim();
      if (!line.empty() && !line.starts_with("#"))
        out.push_back(line.str());
    }
  }
  return true;
}

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
struct CompileResult {
  double seconds = 1e30; // the fastest of --reps
  int64_t kernels = 0;
  int64_t shrinks = 0; // register-fit fallbacks taken (kMaxTileShrinks)
  /// --check-wide-loads: MMA kernels checked, and why one failed ("").
  int64_t wideChecked = 0;
  std::string error;
};

/// Imports `command` and compiles it for `chip` --reps times.
CompileResult compileOnce(MLIRContext &ctx, const std::string &command,
                          const std::string &chip) {
  CompileResult result;
  if (verbose)
    std::fprintf(stderr, "%s: %s\n", chip.c_str(), command.c_str());
  for (int r = 0; r < std::max(1, reps.getValue()); ++r) {
    double t0 = seconds();
    FailureOr<OwningOpRef<ModuleOp>> module =
        importMIOpenCommand(&ctx, command, result.error);
    if (failed(module)) {
      result.error = "import failed: " + result.error;
      return result;
    }
    // As the module compiler does: smaller tiles for a kernel that does
    // not fit the registers.
    std::string diagnostics;
    llvm::StringMap<std::string> isaByKernel;
    ROCDLSerializeHooks hooks;
    bool checkIsa = checkWideLoads && expectsWideLoads(command);
    if (checkIsa)
      hooks.onISA = [&](StringRef name, StringRef, StringRef isa) {
        isaByKernel[name] = isa.str();
      };
    FailureOr<OwningOpRef<ModuleOp>> compiled = compileForROCDL(
        **module, chip, /*tuningSpec=*/"", hooks, diagnostics, &result.shrinks);
    if (failed(compiled)) {
      result.error = "boo-to-rocdl failed for " + chip + ":\n" + diagnostics;
      return result;
    }
    result.wideChecked = 0;
    for (const auto &entry : isaByKernel) {
      ISAMix mix = analyzeISA(entry.getValue());
      if (mix.mma == 0)
        continue;
      ++result.wideChecked;
      if (std::string narrow = checkWide(mix); !narrow.empty()) {
        result.error = chip + ": kernel " + entry.getKey().str() +
                       ": narrow accesses in the main loop: " + narrow;
        return result;
      }
    }
    result.seconds = std::min(result.seconds, seconds() - t0);
    result.kernels = 0;
    (**compiled)->walk([&](gpu::BinaryOp) { ++result.kernels; });
  }
  return result;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  llvm::InitializeAllAsmParsers();
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "Boo GPU compile-time benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);

  SmallVector<std::string> chipList;
  if (chips.empty()) {
    for (const ChipInfo &c : getSupportedChips())
      chipList.push_back(c.name.str());
  } else {
    SmallVector<StringRef> parts;
    StringRef(chips).split(parts, ',');
    for (StringRef p : parts)
      chipList.push_back(p.str());
  }

  std::vector<std::string> problems(std::begin(kProblems),
                                    std::end(kProblems));
  if (networks)
    for (std::string &p : networkProblems())
      problems.push_back(std::move(p));
  for (std::string &p : randomProblems(randomCount, seed))
    problems.push_back(std::move(p));
  for (std::string &p : realisticProblems(realisticCount, seed))
    problems.push_back(std::move(p));
  if (!readCommandFiles(problems))
    return 2;

  std::printf("%-8s %8s %8s %10s %10s %10s\n", "chip", "problems", "kernels",
              "min_ms", "median_ms", "max_ms");
  std::fflush(stdout);
  int failures = 0;
  int64_t fallbacks = 0, wideKernels = 0, wideProblems = 0;
  std::mutex mutex;
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobs));
  for (const std::string &chip : chipList) {
    std::vector<double> perKernel;
    int64_t kernels = 0;
    for (const std::string &problem : problems) {
      pool.async([&, problem] {
        // One context per thread: compiles share nothing.
        thread_local std::unique_ptr<MLIRContext> ctx;
        if (!ctx) {
          ctx = std::make_unique<MLIRContext>(registry,
                                              MLIRContext::Threading::DISABLED);
          ctx->loadAllAvailableDialects();
        }
        auto result = compileOnce(*ctx, problem, chip);
        std::lock_guard<std::mutex> lock(mutex);
        if (!result.error.empty()) {
          std::fprintf(stderr, "%s: %s\n", problem.c_str(),
                       result.error.c_str());
          ++failures;
          return;
        }
        kernels += result.kernels;
        wideKernels += result.wideChecked;
        wideProblems += result.wideChecked > 0;
        if (result.shrinks > 0) {
          ++fallbacks;
          if (verbose)
            std::fprintf(stderr, "%s: %s: smaller tiles (shrink-tiles=%lld)\n",
                         chip.c_str(), problem.c_str(),
                         static_cast<long long>(result.shrinks));
        }
        for (int64_t k = 0; k < result.kernels; ++k)
          perKernel.push_back(result.seconds / result.kernels);
      });
    }
    pool.wait();
    if (perKernel.empty())
      continue;
    std::sort(perKernel.begin(), perKernel.end());
    std::printf("%-8s %8zu %8lld %10.1f %10.1f %10.1f\n", chip.c_str(),
                problems.size(), static_cast<long long>(kernels),
                perKernel.front() * 1e3,
                perKernel[perKernel.size() / 2] * 1e3,
                perKernel.back() * 1e3);
    std::fflush(stdout);
  }
  std::printf("register-fit fallbacks (smaller tiles): %lld\n",
              static_cast<long long>(fallbacks));
  if (checkWideLoads)
    std::printf("wide loads: %lld MMA kernels of %lld problem compiles "
                "checked\n",
                static_cast<long long>(wideKernels),
                static_cast<long long>(wideProblems));
  std::printf("failures: %d\n", failures);
  return failures ? 1 : 0;
}
