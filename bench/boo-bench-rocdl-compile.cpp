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
//   boo-bench-rocdl-compile [--chips=gfx942,gfx1100] [--reps=N]
//
//===----------------------------------------------------------------------===//

#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"
#include "Boo/Target/ChipInfo.h"
#include "Boo/Transforms/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace mlir;
using namespace mlir::boo;

namespace {
llvm::cl::opt<std::string>
    chips("chips", llvm::cl::desc("Comma-separated chips (default: all)"),
          llvm::cl::init(""));
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
    // The example.
    "convbfp16 -n 128 -c 128 -H 24 -W 48 -k 384 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 "
    "-l 1 -j 1 -m conv -g 1 -F 1 --in_layout NHWC --out_layout NHWC "
    "--fil_layout NHWC",
    // Layer norm.
    "layernormbfp16 -X 64x128x768 -o 2 -m 1 -F 1",
    "layernormfp16 -X 32x1024 -o 1 -m 1 -F 14",
};

double seconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
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
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();

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

  std::printf("%-8s %8s %8s %10s %10s %10s\n", "chip", "problems", "kernels",
              "min_ms", "median_ms", "max_ms");
  int failures = 0;
  for (const std::string &chip : chipList) {
    std::vector<double> perKernel;
    int64_t kernels = 0;
    for (const char *command : kProblems) {
      double best = 1e30;
      int64_t count = 0;
      for (int r = 0; r < std::max(1, reps.getValue()); ++r) {
        std::string error;
        double t0 = seconds();
        FailureOr<OwningOpRef<ModuleOp>> module =
            importMIOpenCommand(&ctx, command, error);
        if (failed(module)) {
          std::fprintf(stderr, "%s: import failed: %s\n", command,
                       error.c_str());
          ++failures;
          break;
        }
        PassManager pm(&ctx);
        ROCDLPipelineOptions options;
        options.chip = chip;
        buildROCDLPipeline(pm, options);
        if (failed(pm.run(**module))) {
          std::fprintf(stderr, "%s: boo-to-rocdl failed for %s\n", command,
                       chip.c_str());
          ++failures;
          break;
        }
        best = std::min(best, seconds() - t0);
        count = 0;
        (*module)->walk([&](gpu::BinaryOp) { ++count; });
      }
      if (count == 0)
        continue;
      kernels += count;
      for (int64_t k = 0; k < count; ++k)
        perKernel.push_back(best / count);
    }
    if (perKernel.empty())
      continue;
    std::sort(perKernel.begin(), perKernel.end());
    std::printf("%-8s %8zu %8lld %10.1f %10.1f %10.1f\n", chip.c_str(),
                std::size(kProblems), static_cast<long long>(kernels),
                perKernel.front() * 1e3,
                perKernel[perKernel.size() / 2] * 1e3,
                perKernel.back() * 1e3);
  }
  return failures ? 1 : 0;
}
