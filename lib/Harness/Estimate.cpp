//===- Estimate.cpp - Performance estimates of commands -------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/Estimate.h"

#include "Boo/Codegen/GPU/Pipelines.h"
#include "Boo/Target/ChipInfo.h"

#include "mlir/Pass/PassManager.h"

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
  // fit the registers (kMaxTileShrinks).
  for (int64_t shrink = 0;; ++shrink) {
    OwningOpRef<ModuleOp> module = source.clone();
    ROCDLPipelineOptions options;
    options.chip = chip.name.str();
    options.tuningSpec = tuningSpec.str();
    options.shrinkTiles = shrink;
    llvm::StringMap<std::string> isaByKernel;
    ROCDLSerializeHooks hooks;
    hooks.onISA = [&](StringRef name, StringRef, StringRef isa) {
      isaByKernel[name] = isa.str();
    };
    std::string diagnostics;
    LogicalResult compiled = failure();
    {
      ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
        diagnostics += diag.str() + "\n";
        return success();
      });
      PassManager pm(ctx);
      buildROCDLPipeline(pm, options, hooks);
      compiled = pm.run(*module);
    }
    if (failed(compiled)) {
      if (shrink < kMaxTileShrinks && isRegisterFitFailure(diagnostics))
        continue;
      error = chip.name.str() + ": boo-to-rocdl failed:\n" + diagnostics;
      return failure();
    }
    FailureOr<std::vector<KernelEstimate>> kernels =
        estimateKernels(*module, chip, isaByKernel, error);
    if (failed(kernels))
      return failure();
    CommandEstimate result;
    result.kernels = std::move(*kernels);
    double longest = 0, flops = 0;
    for (const KernelEstimate &k : result.kernels) {
      result.seconds += k.seconds;
      flops += k.mmaFlops;
      if (k.seconds > longest) {
        longest = k.seconds;
        result.bound = k.bound.str();
      }
    }
    if (result.seconds > 0)
      result.fractionOfPeak =
          flops / result.seconds / (chip.peakMatrixTflops * 1e12);
    return result;
  }
}
