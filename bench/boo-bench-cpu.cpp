//===- boo-bench-cpu.cpp - CPU convolution throughput ---------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Measures the CPU pipeline's convolution throughput (GFLOP/s) and, in the
// same run, the throughput of the same function compiled without tiling and
// vectorization (scalar loops) as the reference: the printed ratio is what
// boo-cpu-tile-and-vectorize buys. Also prints compile times.
//
//   boo-bench-cpu [--filter=SUBSTRING] [--reps=N] [--no-scalar]
//
//===----------------------------------------------------------------------===//

#include "Boo/Artifact/ModuleArtifact.h"
#include "Boo/InitAll.h"
#include "Boo/Runner/RuntimeSession.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

using namespace mlir;
using namespace mlir::boo;

namespace {
llvm::cl::opt<std::string> filter("filter",
                                  llvm::cl::desc("Run only problems whose "
                                                 "name contains this"),
                                  llvm::cl::init(""));
llvm::cl::opt<int> reps("reps", llvm::cl::desc("Timed repetitions"),
                        llvm::cl::init(10));
llvm::cl::opt<bool> noScalar("no-scalar",
                             llvm::cl::desc("Skip the scalar reference"),
                             llvm::cl::init(false));

struct Problem {
  const char *name;
  const char *mlir; // one public function @f
  double flops;
};

// 2 * N * OH * OW * K * C/G * KH * KW.
const Problem problems[] = {
    {"conv3x3_56x56_64to64_f32_nhwc",
     R"(func.func @f(%x: tensor<1x58x58x64xf32>, %w: tensor<64x3x3x64xf32>) -> tensor<1x56x56x64xf32> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x58x58x64xf32>, tensor<64x3x3x64xf32> -> tensor<1x56x56x64xf32>
  return %y : tensor<1x56x56x64xf32>
})",
     2.0 * 56 * 56 * 64 * 64 * 9},
    {"conv3x3_56x56_64to64_f32_nchw",
     R"(func.func @f(%x: tensor<1x64x58x58xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %y = boo.conv %x, %w : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32> -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
})",
     2.0 * 56 * 56 * 64 * 64 * 9},
    {"conv3x3_56x56_64to64_bf16_nhwc_bias_relu",
     R"(func.func @f(%x: tensor<1x56x56x64xbf16>, %w: tensor<64x3x3x64xbf16>, %b: tensor<64xbf16>) -> tensor<1x56x56x64xbf16> {
  %y = boo.conv %x, %w bias(%b : tensor<64xbf16>) {padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x56x56x64xbf16>, tensor<64x3x3x64xbf16> -> tensor<1x56x56x64xbf16>
  %r = boo.activation relu %y : tensor<1x56x56x64xbf16>
  return %r : tensor<1x56x56x64xbf16>
})",
     2.0 * 56 * 56 * 64 * 64 * 9},
    {"conv1x1_28x28_128to256_f32_nhwc",
     R"(func.func @f(%x: tensor<1x28x28x128xf32>, %w: tensor<256x1x1x128xf32>) -> tensor<1x28x28x256xf32> {
  %y = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x28x28x128xf32>, tensor<256x1x1x128xf32> -> tensor<1x28x28x256xf32>
  return %y : tensor<1x28x28x256xf32>
})",
     2.0 * 28 * 28 * 256 * 128},
    {"conv3x3_s2_28x28_64to64_g4_f32_nhwc_bwd_data",
     R"(func.func @f(%dy: tensor<2x14x14x64xf32>, %w: tensor<64x3x3x16xf32>) -> tensor<2x28x28x64xf32> {
  %y = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>, groups = 4 : i64, input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x14x14x64xf32>, tensor<64x3x3x16xf32> -> tensor<2x28x28x64xf32>
  return %y : tensor<2x28x28x64xf32>
})",
     2.0 * 2 * 14 * 14 * 64 * 16 * 9},
    {"conv3x3_28x28_64to64_f32_nhwc_bwd_weight",
     R"(func.func @f(%dy: tensor<2x28x28x64xf32>, %x: tensor<2x30x30x64xf32>) -> tensor<64x3x3x64xf32> {
  %y = boo.conv_bwd_weight %dy, %x {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<2x28x28x64xf32>, tensor<2x30x30x64xf32> -> tensor<64x3x3x64xf32>
  return %y : tensor<64x3x3x64xf32>
})",
     2.0 * 2 * 28 * 28 * 64 * 64 * 9},
};

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Measurement {
  /// bestSeconds: with the parallel loops on the thread pool (one thread
  /// per core); singleThreadSeconds: the same code on the calling thread.
  double compileSeconds = 0, bestSeconds = 0, singleThreadSeconds = 0;
  bool ok = false;
};

/// The best of `repetitions` calls of the loaded function, in seconds.
double bestOf(RuntimeSession &session, int repetitions) {
  double bestSeconds = 1e30;
  std::string error;
  for (int r = 0; r < repetitions; ++r) {
    double milliseconds = 0;
    if (!session.invoke(milliseconds, error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1e30;
    }
    bestSeconds = std::min(bestSeconds, milliseconds * 1e-3);
  }
  return bestSeconds;
}

/// Loads the compiled module on `device` with random inputs and runs it
/// once (warm-up).
std::unique_ptr<RuntimeSession>
load(const std::string &device, const std::string &bytes, std::string &error) {
  std::unique_ptr<RuntimeSession> session = RuntimeSession::open(device, error);
  if (!session || !session->load(bytes, "f", error))
    return nullptr;
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<HostTensor> args;
  for (const TensorSignature &sig : session->getInputs()) {
    HostTensor t = HostTensor::zeros(sig.shape, sig.type);
    for (int64_t i = 0, e = t.numElements(); i < e; ++i)
      t.setFromDouble(i, dist(rng));
    args.push_back(std::move(t));
  }
  double milliseconds = 0;
  if (!session->setInputs(args, error) || !session->invoke(milliseconds, error))
    return nullptr;
  return session;
}

Measurement measure(MLIRContext &ctx, const Problem &p, bool vectorize,
                    int repetitions) {
  Measurement m;
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(p.mlir, &ctx);
  if (!module) {
    std::fprintf(stderr, "%s: cannot parse\n", p.name);
    return m;
  }
  // The code the runtime ships: a compiled module run on its CPU device.
  ArtifactOptions options;
  options.targets = {"cpu"};
  options.cpu.vectorize = vectorize;
  std::string bytes, error;
  double t0 = seconds();
  bool compiled = compileModuleArtifact(*module, options, bytes, error);
  m.compileSeconds = seconds() - t0;
  if (!compiled) {
    std::fprintf(stderr, "%s: %s\n", p.name, error.c_str());
    return m;
  }
  // All cores (the runtime's default CPU device), then the same code on
  // one thread (cpu:1).
  for (auto [device, result] :
       {std::pair<const char *, double *>{"cpu", &m.bestSeconds},
        {"cpu:1", &m.singleThreadSeconds}}) {
    std::unique_ptr<RuntimeSession> session = load(device, bytes, error);
    if (!session) {
      std::fprintf(stderr, "%s on %s: %s\n", p.name, device, error.c_str());
      return m;
    }
    *result = bestOf(*session, repetitions);
  }
  m.ok = true;
  return m;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "Boo CPU convolution benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

  // GFLOP/s: all cores (the runtime's CPU device); 1-thread: the same code on
  // one thread; scalar: the loop lowering (vectorize=false, one thread);
  // speedup: 1-thread over scalar.
  std::printf("%-46s %9s %9s %10s %9s %10s %8s\n", "problem", "GFLOP/s",
              "1-thread", "compile_s", "scalar", "compile_s", "speedup");
  int failures = 0;
  for (const Problem &p : problems) {
    if (!llvm::StringRef(p.name).contains(filter.getValue()))
      continue;
    Measurement fast = measure(ctx, p, /*vectorize=*/true, reps);
    Measurement slow;
    if (!noScalar)
      slow = measure(ctx, p, /*vectorize=*/false, std::max(1, reps / 5));
    if (!fast.ok || (!noScalar && !slow.ok)) {
      ++failures;
      continue;
    }
    double gf = p.flops / fast.bestSeconds * 1e-9;
    double g1 = p.flops / fast.singleThreadSeconds * 1e-9;
    if (noScalar) {
      std::printf("%-46s %9.1f %9.1f %10.2f %9s %10s %8s\n", p.name, gf, g1,
                  fast.compileSeconds, "-", "-", "-");
      continue;
    }
    double gs = p.flops / slow.bestSeconds * 1e-9;
    std::printf("%-46s %9.1f %9.1f %10.2f %9.2f %10.2f %7.1fx\n", p.name, gf,
                g1, fast.compileSeconds, gs, slow.compileSeconds, g1 / gs);
  }
  return failures ? 1 : 0;
}
