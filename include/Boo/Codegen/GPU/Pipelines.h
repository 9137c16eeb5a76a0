//===- Pipelines.h - The boo-to-rocdl pipeline ------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_GPU_PIPELINES_H
#define BOO_CODEGEN_GPU_PIPELINES_H

#include "Boo/Target/ROCDL/ROCDLSerialize.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::boo {

/// Options of the `boo-to-rocdl` pipeline.
struct ROCDLPipelineOptions : public PassPipelineOptions<ROCDLPipelineOptions> {
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
  Option<int64_t> shrinkTiles{
      *this, "shrink-tiles",
      llvm::cl::desc("Halve the heuristic's register tiles this many times "
                     "(boo-select-lowering-config's shrink-tiles)"),
      llvm::cl::init(0)};
};

/// How many times a compile halves the heuristic's register tiles when a
/// kernel does not fit the registers: the compilers of modules (and so
/// boo-driver and the Python package) and boo-bench-rocdl-compile compile
/// again from the source with `shrink-tiles` 1, then 2, rather than fail.
constexpr int64_t kMaxTileShrinks = 2;

/// The register-fit fallback: calls `compile(shrinkTiles, diagnostics)`
/// with shrink-tiles 0, 1, ... kMaxTileShrinks until it succeeds, or fails
/// for another reason than a kernel not fitting the registers (the contract
/// check's scratch or VGPR-spill messages in its diagnostics). Returns the
/// shrink-tiles of the compile that succeeded; on failure `diagnostics`
/// holds the last attempt's.
FailureOr<int64_t> compileWithTileShrinks(
    llvm::function_ref<LogicalResult(int64_t shrinkTiles,
                                     std::string &diagnostics)>
        compile,
    std::string &diagnostics);

/// boo-to-rocdl for `chip` on a clone of `source`, with the register-fit
/// fallback and the serializer's `hooks`. On failure `diagnostics` holds
/// the last attempt's diagnostics; `shrinkTiles` (optional) receives the
/// shrink-tiles of the compile that succeeded.
FailureOr<OwningOpRef<ModuleOp>>
compileForROCDL(ModuleOp source, llvm::StringRef chip,
                llvm::StringRef tuningSpec, const ROCDLSerializeHooks &hooks,
                std::string &diagnostics, int64_t *shrinkTiles = nullptr);

/// Boo to gpu.binary ops holding HSACO code objects for `chip`; ends with
/// boo-verify-rocdl-contract.
void buildROCDLPipeline(OpPassManager &pm, const ROCDLPipelineOptions &options);

/// `boo-to-rocdl` whose serializer reports each kernel through `hooks`.
void buildROCDLPipeline(OpPassManager &pm, const ROCDLPipelineOptions &options,
                        const ROCDLSerializeHooks &hooks);

/// Stages 1-4 of boo-to-rocdl: Boo to linalg with lowering configs for
/// `chip`, workgroup/thread distribution, bufferization, MMA and
/// row-reduction kernels, gpu.launch and outlining. Ends with one
/// `gpu.module` per kernel and host functions of `gpu.launch_func` (no target
/// attached).
void addGPUKernelStages(OpPassManager &pm, llvm::StringRef chip,
                        llvm::StringRef tuningSpec, int64_t shrinkTiles = 0);

/// Registers `boo-to-rocdl` with the pass pipeline registry.
void registerBooGPUPipelines();

} // namespace mlir::boo

#endif // BOO_CODEGEN_GPU_PIPELINES_H
