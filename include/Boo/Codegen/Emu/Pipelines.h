//===- Pipelines.h - The boo-to-emu pipeline --------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_EMU_PIPELINES_H
#define BOO_CODEGEN_EMU_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::boo {

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
/// launches before this).
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

/// Registers `boo-to-emu` with the pass pipeline registry.
void registerBooEmuPipelines();

} // namespace mlir::boo

#endif // BOO_CODEGEN_EMU_PIPELINES_H
