//===- Pipelines.h - Boo pass pipelines -------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TRANSFORMS_PIPELINES_H
#define BOO_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::boo {

/// What identifies the tuning spec the GPU pipelines use for their
/// `tuning-spec` option `optionPath`, resolved as they resolve it (the
/// option, else BOO_TUNING_SPEC_PATH, set but empty meaning none, else the
/// spec embedded in the compiler): "none", "default:<BLAKE3 of the embedded
/// spec>" or "file:<BLAKE3 of the file's bytes>". Kernel caches key on it,
/// so that editing a spec invalidates what was compiled with it. False,
/// with `error`, when the file cannot be read.
bool getTuningSpecIdentity(StringRef optionPath, std::string &identity,
                           std::string &error);

/// Options of the `boo-to-llvm-cpu` pipeline.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  Option<bool> formFusions{*this, "form-fusions",
                           llvm::cl::desc("Run boo-form-fusions first"),
                           llvm::cl::init(true)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize (false: scalar loops, for "
                     "debugging and as a second reference)"),
      llvm::cl::init(true)};
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of one vector register; the innermost "
                     "parallel tile spans up to 4 registers"),
      llvm::cl::init(8)};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Outline each top-level scf.forall into a body called "
                     "through the __boo_parallel_for hook, so a loader can "
                     "run it multi-threaded (boo-cpu-outline-parallel); "
                     "false: plain sequential loops"),
      llvm::cl::init(true)};
  Option<int64_t> parallelMinWork{
      *this, "parallel-min-work",
      llvm::cl::desc("With parallel=true: loops with less estimated work "
                     "(operations executed) stay sequential "
                     "(boo-cpu-outline-parallel's min-work)"),
      llvm::cl::init(32768)};
};

/// Boo (or linalg on tensors) to the LLVM dialect for the host CPU; ends
/// with boo-verify-llvm-contract.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// Options of the `boo-to-rocdl` pipeline.
struct ROCDLPipelineOptions
    : public PassPipelineOptions<ROCDLPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target chip, e.g. gfx942"),
                           llvm::cl::init("gfx942")};
  Option<std::string> tuningSpec{
      *this, "tuning-spec",
      llvm::cl::desc("Tuning spec path (empty: BOO_TUNING_SPEC_PATH, else "
                     "the embedded default)"),
      llvm::cl::init("")};
  Option<int64_t> optLevel{*this, "opt-level",
                           llvm::cl::desc("LLVM optimization level (0-3)"),
                           llvm::cl::init(3)};
};

/// Boo to gpu.binary ops holding HSACO code objects for `chip`; ends with
/// boo-verify-rocdl-contract. Defined in ROCDLPipeline.cpp.
void buildROCDLPipeline(OpPassManager &pm,
                        const ROCDLPipelineOptions &options);

/// Stages 1-4 of boo-to-rocdl: Boo to linalg with lowering configs for
/// `chip`, workgroup/thread distribution, bufferization, MMA and
/// row-reduction kernels, gpu.launch and outlining. Ends with one
/// `gpu.module` per kernel and host functions of `gpu.launch_func` (no target
/// attached). Defined in ROCDLPipeline.cpp.
void addGPUKernelStages(OpPassManager &pm, llvm::StringRef chip,
                        llvm::StringRef tuningSpec);

/// Options of the `boo-to-emu` pipeline (the SIMT emulator device).
struct EmuPipelineOptions : public PassPipelineOptions<EmuPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Emulated chip, e.g. gfx942"),
                           llvm::cl::init("gfx942")};
  Option<std::string> tuningSpec{
      *this, "tuning-spec",
      llvm::cl::desc("Tuning spec path (empty: BOO_TUNING_SPEC_PATH, else "
                     "the embedded default)"),
      llvm::cl::init("")};
  Option<bool> checks{
      *this, "checks",
      llvm::cl::desc("Guard memory accesses and report LDS accesses to the "
                     "race detector (boo-emu-lower-kernels' checks)"),
      llvm::cl::init(true)};
  Option<std::string> plantBug{
      *this, "plant-bug",
      llvm::cl::desc("Test only: plant a bug in the kernels first "
                     "(boo-emu-plant-bug: missing-barrier, off-by-one, "
                     "mma-layout)"),
      llvm::cl::init("")};
};

/// The kernel half of boo-to-emu, after addGPUKernelStages: each gpu.func
/// kernel becomes a host function of one work-item (boo-emu-lower-kernels).
/// Host functions that launch kernels are dropped (a loader reads the
/// launches before this). Defined in EmuPipeline.cpp.
void addEmuKernelStages(OpPassManager &pm, const EmuPipelineOptions &options);

/// The emulated kernels (after addEmuKernelStages) to the LLVM dialect;
/// ends with boo-verify-llvm-contract.
void addEmuHostLoweringStages(OpPassManager &pm);

/// The host symbol of emulated kernel `kernel` of gpu.module `module`: the
/// kernel's name when the module is named after it (as outlining does),
/// else `<module>__<kernel>`.
std::string getEmuKernelSymbol(llvm::StringRef module, llvm::StringRef kernel);

/// boo-to-emu: addGPUKernelStages, addEmuKernelStages and
/// addEmuHostLoweringStages.
void buildEmuPipeline(OpPassManager &pm, const EmuPipelineOptions &options);

/// The linalg stage both pipelines share: boo-convert-to-linalg, named ops
/// generalized, element-wise epilogue generics fused, canonicalized.
void addBooToLinalgStage(OpPassManager &pm);

/// The bufferization stage both pipelines share: one-shot bufferization of
/// whole functions with identity-layout boundaries, tile self-copies folded
/// (CSE before canonicalize), tensor results turned into trailing out-params
/// that the caller owns. `deallocate` adds the buffer deallocation pipeline
/// (host code; kernels have no heap allocations to free).
void addBufferizationStage(OpPassManager &pm, bool deallocate);

/// Registers `boo-to-llvm-cpu` and `boo-to-rocdl` with the pass pipeline
/// registry.
void registerBooPipelines();

} // namespace mlir::boo

#endif // BOO_TRANSFORMS_PIPELINES_H
