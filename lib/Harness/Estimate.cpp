//===- Estimate.cpp - Performance estimates of commands -------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/Estimate.h"

#include "Boo/Codegen/GPU/Pipelines.h"
#include "Boo/Target/ChipInfo.h"

using namespace mlir;
using namespace mlir::boo;

FailureOr<harness::CommandEstimate>
harness::estimateOnChip(ModuleOp source, const ChipInfo &chip,
                        StringRef tuningSpec, std::string &error) {
  MLIRContext *ctx = source.getContext();
  DialectRegistry registry;
  registerROCDLSerializationInterfaces(registry);
  ctx->appendDialectRegistry(registry);
  // As the module compiler does: smaller tiles for a kernel that does not
  // fit the registers. A retried attempt's ISA is replaced by the next's.
  llvm::StringMap<std::string> isaByKernel;
  ROCDLSerializeHooks hooks;
  hooks.onISA = [&](StringRef name, StringRef, StringRef isa) {
    isaByKernel[name] = isa.str();
  };
  std::string diagnostics;
  FailureOr<OwningOpRef<ModuleOp>> module =
      compileForROCDL(source, chip.name, tuningSpec, hooks, diagnostics);
  if (failed(module)) {
    error = chip.name.str() + ": boo-to-rocdl failed:\n" + diagnostics;
    return failure();
  }
  FailureOr<std::vector<KernelEstimate>> kernels =
      estimateKernels(**module, chip, isaByKernel, error);
  if (failed(kernels))
    return failure();
  CommandEstimate result;
  result.kernels = std::move(*kernels);
  summarizeEstimate(chip, result);
  return result;
}

void harness::summarizeEstimate(const ChipInfo &chip,
                                CommandEstimate &estimate) {
  estimate.seconds = 0;
  estimate.bound.clear();
  estimate.fractionOfPeak = 0;
  double longest = 0, flops = 0;
  for (const KernelEstimate &k : estimate.kernels) {
    estimate.seconds += k.seconds;
    flops += k.mmaFlops;
    if (k.seconds > longest) {
      longest = k.seconds;
      estimate.bound = k.bound.str();
    }
  }
  if (estimate.seconds > 0)
    estimate.fractionOfPeak =
        flops / estimate.seconds / (chip.peakMatrixTflops * 1e12);
}
