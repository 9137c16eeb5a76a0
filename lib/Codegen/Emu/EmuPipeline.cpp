//===- EmuPipeline.cpp - The boo-to-emu pipeline --------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The SIMT emulator device runs the very kernels boo-to-rocdl compiles for
// an AMD GPU, on the host: stages 1-4 are boo-to-rocdl's (tiling, LDS
// buffers, barriers, launch sizes), then each gpu.func becomes a host
// function run once per work-item (boo-emu-lower-kernels) and is lowered
// to LLVM like the CPU pipeline's scalar code. docs/Emulator.md; the ABI
// is runtime/include/boo/EmuABI.h.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/Passes.h"
#include "Boo/Codegen/Common/PipelineStages.h"
#include "Boo/Codegen/Emu/Passes.h"
#include "Boo/Codegen/Emu/Pipelines.h"
#include "Boo/Codegen/GPU/Passes.h"
#include "Boo/Codegen/GPU/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

std::string mlir::boo::getEmuKernelSymbol(StringRef module, StringRef kernel) {
  if (module == kernel)
    return kernel.str();
  return (module + "__" + kernel).str();
}

void mlir::boo::addEmuKernelStages(OpPassManager &pm,
                                   const EmuPipelineOptions &options) {
  // 5. The kernels' own lowering, as in boo-to-rocdl's stage 5: the same
  //    all-reduce rewrite (shuffles and LDS) and math expansions, so that
  //    the code and the numbers are the GPU's. A test may then plant a bug
  //    (in loops, where every store is explicit).
  //    boo-opt --pass-pipeline="builtin.module(gpu.module(
  //      boo-gpu-lower-all-reduce, convert-linalg-to-loops,
  //      boo-expand-math, lower-affine))"
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createBooGPULowerAllReduce());
  kernels.addPass(createConvertLinalgToLoopsPass());
  kernels.addPass(createBooExpandMath());
  kernels.addPass(createLowerAffinePass());
  if (!options.plantBug.empty()) {
    BooEmuPlantBugOptions bugOptions;
    bugOptions.bug = options.plantBug;
    pm.addPass(createBooEmuPlantBug(bugOptions));
  }

  // 6. Kernels to host functions of one work-item, accesses guarded.
  //    boo-opt --boo-emu-lower-kernels=checks=true --canonicalize --cse
  BooEmuLowerKernelsOptions lowerOptions;
  lowerOptions.checks = options.checks;
  pm.addPass(createBooEmuLowerKernels(lowerOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::boo::addEmuHostLoweringStages(OpPassManager &pm) {
  // 7. Scalar host lowering to LLVM (kernels take two pointers: the
  //    context and the argument array).
  //    boo-opt --convert-vector-to-scf --convert-scf-to-cf
  //      --expand-strided-metadata --lower-affine
  //      --arith-emulate-unsupported-floats="source-types=bf16
  //        target-type=f32" --arith-expand=include-bf16
  //      --convert-math-to-libm --convert-vector-to-llvm
  //      --finalize-memref-to-llvm --convert-math-to-llvm
  //      --convert-arith-to-llvm --convert-index-to-llvm --convert-ub-to-llvm
  //      --convert-cf-to-llvm
  //      --convert-func-to-llvm
  //      --reconcile-unrealized-casts --canonicalize --boo-store-integer-bits
  pm.addPass(createConvertVectorToSCFPass());
  // 8. The contract: nothing but LLVM dialect is left (the last pass of
  //    the LLVM tail the CPU pipeline shares).
  //    boo-opt --boo-verify-llvm-contract
  addLLVMLoweringStage(pm, vector::VectorContractLowering::Dot);
}

void mlir::boo::buildEmuPipeline(OpPassManager &pm,
                                 const EmuPipelineOptions &options) {
  // 1.-4. boo-to-rocdl's stages: the kernels the GPU would run.
  //    boo-opt --boo-set-target=chip=gfx942 --boo-form-fusions
  //      --boo-select-lowering-config ... --gpu-kernel-outlining
  //      --canonicalize  (docs/GPUPipeline.md)
  addGPUKernelStages(pm, options.chip, options.tuningSpec);
  addEmuKernelStages(pm, options);
  addEmuHostLoweringStages(pm);
}

void mlir::boo::registerBooEmuPipelines() {
  PassPipelineRegistration<EmuPipelineOptions>(
      "boo-to-emu",
      "Compile Boo kernels for the SIMT emulator device: boo-to-rocdl's "
      "kernels for a chip as host functions of one work-item, ending with "
      "boo-verify-llvm-contract",
      buildEmuPipeline);
}
