//===- ROCDLPipeline.cpp - The boo-to-rocdl pipeline ----------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Boo ops (or linalg on tensors) to `gpu.binary` ops holding HSACO code
// objects for one AMD GPU, and host functions made of `gpu.launch_func`.
// Each stage names the boo-opt command that replays it; docs/GPUPipeline.md
// has the IR contract of every stage.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/Passes.h"
#include "Boo/Codegen/Common/PipelineStages.h"
#include "Boo/Codegen/GPU/Passes.h"
#include "Boo/Codegen/GPU/Pipelines.h"
#include "Boo/Dialect/Boo/Transforms/Passes.h"
#include "Boo/Target/ChipInfo.h"
#include "Boo/Target/ROCDL/Passes.h"
#include "Boo/Target/ROCDL/ROCDLSerialize.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// Whether the diagnostics of a failed boo-to-rocdl say that a kernel did
/// not fit the registers (VerifyROCDLContract.cpp's messages).
static bool isRegisterFitFailure(StringRef diagnostics) {
  return diagnostics.contains("bytes of scratch memory per thread") ||
         diagnostics.contains("(vgpr_spill_count)");
}

FailureOr<int64_t> mlir::boo::compileWithTileShrinks(
    function_ref<LogicalResult(int64_t, std::string &)> compile,
    std::string &diagnostics) {
  for (int64_t shrink = 0;; ++shrink) {
    diagnostics.clear();
    if (succeeded(compile(shrink, diagnostics)))
      return shrink;
    if (shrink == kMaxTileShrinks || !isRegisterFitFailure(diagnostics))
      return failure();
  }
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::boo::compileForROCDL(ModuleOp source, StringRef chip,
                           StringRef tuningSpec,
                           const ROCDLSerializeHooks &hooks,
                           std::string &diagnostics, int64_t *shrinkTiles) {
  MLIRContext *ctx = source.getContext();
  OwningOpRef<ModuleOp> module;
  FailureOr<int64_t> shrink = compileWithTileShrinks(
      [&](int64_t shrink, std::string &text) {
        module = source.clone();
        ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
          text += diag.str() + "\n";
          return success();
        });
        PassManager pm(ctx);
        ROCDLPipelineOptions options;
        options.chip = chip.str();
        options.tuningSpec = tuningSpec.str();
        options.shrinkTiles = shrink;
        buildROCDLPipeline(pm, options, hooks);
        return pm.run(*module);
      },
      diagnostics);
  if (failed(shrink))
    return failure();
  if (shrinkTiles)
    *shrinkTiles = *shrink;
  return module;
}

void mlir::boo::addGPUKernelStages(OpPassManager &pm, StringRef chip,
                                   StringRef tuningSpec, int64_t shrinkTiles) {
  // 0. The chip, recorded once as the module's #boo.target: every pass
  //    below reads it from there.
  //    boo-opt --boo-set-target=chip=gfx942
  BooSetTargetOptions targetOptions;
  targetOptions.chip = chip.str();
  pm.addPass(createBooSetTarget(targetOptions));

  // 1. Boo to linalg on tensors, with a #boo.lowering_config on every kernel
  //    (tuning spec or heuristic); element-wise epilogue generics fuse.
  //    boo-opt --boo-form-fusions --boo-select-lowering-config="tuning-spec="
  //            --boo-convert-to-linalg --linalg-generalize-named-ops
  //            --canonicalize --boo-fuse-elementwise --canonicalize
  pm.addNestedPass<func::FuncOp>(createBooFormFusions());
  BooSelectLoweringConfigOptions configOptions;
  configOptions.tuningSpec = tuningSpec.str();
  configOptions.shrinkTiles = shrinkTiles;
  pm.addPass(createBooSelectLoweringConfig(configOptions));
  addBooToLinalgStage(pm);

  // 2. Workgroup and thread tiles (scf.forall), producers fused into them.
  //    boo-opt --boo-gpu-distribute --canonicalize --cse
  pm.addPass(createBooGPUDistribute());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // 3. Bufferize. Results become out-params: the caller owns every buffer.
  //    boo-opt --eliminate-empty-tensors --one-shot-bufferize="
  //      bufferize-function-boundaries
  //      function-boundary-type-conversion=identity-layout-map"
  //      --cse --canonicalize --buffer-results-to-out-params="
  //      hoist-static-allocs modify-public-functions" --canonicalize
  //      --convert-bufferization-to-memref
  addBufferizationStage(pm, /*deallocate=*/false,
                        /*forwardResultReshapes=*/false);

  // 3b. MMA kernels (left whole by boo-gpu-distribute): LDS-staged
  //     implicit GEMM on amdgpu.mfma / amdgpu.wmma.
  //     boo-opt --boo-gpu-mma-kernels --canonicalize --cse
  pm.addPass(createBooGPUMMAKernels());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // 3c. Row-reduction kernels (left whole by boo-gpu-distribute): a
  //     workgroup per row, gpu.all_reduce across its threads.
  //     boo-opt --boo-gpu-row-reductions --canonicalize --cse
  pm.addPass(createBooGPURowReductions());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // 3d. The thread tiles of the other kernels (FMA convolutions,
  //     element-wise ops) as vectors along their output's contiguous loop.
  //     boo-opt --boo-gpu-vectorize-thread-tiles --canonicalize --cse
  pm.addNestedPass<func::FuncOp>(createBooGPUVectorizeThreadTiles());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // 4. scf.forall nests to gpu.launch; then outline the kernels.
  //    boo-opt --boo-gpu-forall-to-launch --cse --canonicalize
  //      --gpu-launch-sink-index-computations --gpu-kernel-outlining
  //      --canonicalize
  pm.addPass(createBooGPUForallToLaunch());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  // Outlining does not sink constants any more: without this they would
  // become kernel arguments.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::boo::buildROCDLPipeline(OpPassManager &pm,
                                   const ROCDLPipelineOptions &options) {
  buildROCDLPipeline(pm, options, ROCDLSerializeHooks());
}

void mlir::boo::buildROCDLPipeline(OpPassManager &pm,
                                   const ROCDLPipelineOptions &options,
                                   const ROCDLSerializeHooks &hooks) {
  const std::string &chip = options.chip;
  // The wave size comes from the architecture table; an unknown chip is
  // reported by boo-select-lowering-config (and boo-gpu-distribute), which
  // check the same table.
  const ChipInfo *chipInfo = lookupChip(chip);

  // 1.-4. Boo to outlined gpu.module kernels (shared with boo-to-emu).
  addGPUKernelStages(pm, chip, options.tuningSpec, options.shrinkTiles);
  // 4 (end). The ROCDL target.
  //    boo-opt --rocdl-attach-target="chip=gfx942 O=3 wave64=true"
  //    (wave64 is the chip's wave size == 64: false on gfx11/gfx12)
  GpuROCDLAttachTargetOptions targetOptions;
  targetOptions.chip = chip;
  targetOptions.optLevel = options.optLevel;
  // The device-library control variable; the ISA's wave size itself is the
  // chip's default.
  targetOptions.wave64Flag = !chipInfo || chipInfo->waveSize == 64;
  pm.addPass(createGpuROCDLAttachTarget(targetOptions));

  // 5. Kernels to the ROCDL/LLVM dialects.
  //    boo-opt --pass-pipeline="builtin.module(gpu.module(
  //      boo-gpu-lower-all-reduce, convert-linalg-to-loops,
  //      boo-gpu-limit-unroll, boo-gpu-count-ops, convert-scf-to-cf,
  //      boo-expand-math, expand-strided-metadata, lower-affine,
  //      convert-amdgpu-to-rocdl{chipset=gfx942},
  //      convert-gpu-to-rocdl{chipset=gfx942 runtime=HIP
  //        use-bare-ptr-memref-call-conv=true},
  //      reconcile-unrealized-casts, canonicalize, cse))"
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createBooGPULowerAllReduce());
  kernels.addPass(createConvertLinalgToLoopsPass());
  kernels.addPass(createBooGPULimitUnroll());
  kernels.addPass(createBooGPUCountOps());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createBooExpandMath());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  // No separate convert-vector-to-llvm: its type converter does not know
  // the GPU address spaces (LDS fragments are vector.loads from workgroup
  // memory); convert-gpu-to-rocdl applies the same vector patterns with
  // the address-space mapping.
  ConvertAMDGPUToROCDLPassOptions amdgpuOptions;
  amdgpuOptions.chipset = chip;
  kernels.addPass(createConvertAMDGPUToROCDLPass(amdgpuOptions));
  ConvertGpuOpsToROCDLOpsOptions rocdlOptions;
  rocdlOptions.chipset = chip;
  rocdlOptions.runtime = gpu::amd::Runtime::HIP;
  // One pointer per buffer argument (see the kernel ABI in
  // docs/GPUPipeline.md); every kernel argument is a static, identity-layout
  // memref by construction (boo-gpu-forall-to-launch).
  rocdlOptions.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToROCDLOps(rocdlOptions));
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());

  // 6. LLVM's AMDGPU backend, the in-process assembler and ld.lld: each
  //    gpu.module becomes a gpu.binary holding an HSACO code object.
  //    boo-opt --boo-rocdl-serialize
  pm.addPass(
      createBooROCDLSerializeWithHooks(BooROCDLSerializeOptions(), hooks));

  // 7. The contract: HSACO for `chip`, no scratch, host code of launches.
  //    boo-opt --boo-verify-rocdl-contract  (allow-scratch=true at
  //    opt-level=0)
  BooVerifyROCDLContractOptions contractOptions;
  // Without LLVM's optimizations (SROA), per-thread temporaries stay in
  // scratch memory: at opt-level=0 (for debugging) that is expected.
  contractOptions.allowScratch = options.optLevel == 0;
  pm.addPass(createBooVerifyROCDLContract(contractOptions));
}

void mlir::boo::registerBooGPUPipelines() {
  PassPipelineRegistration<ROCDLPipelineOptions>(
      "boo-to-rocdl",
      "Compile Boo kernels to HSACO code objects for an AMD GPU chip, ending "
      "with boo-verify-rocdl-contract",
      [](OpPassManager &pm, const ROCDLPipelineOptions &options) {
        buildROCDLPipeline(pm, options);
      });
}
