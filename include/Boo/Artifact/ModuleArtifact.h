//===- ModuleArtifact.h - Compile a module into one artifact ----*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Compiles the public functions of a Boo module for one or more targets
// (the host CPU, AMD GPU chips) and packs the code objects with a manifest
// into one compiled-module file (docs/ModuleFormat.md), which the runtime
// (runtime/boo_runtime.h) loads without a compiler.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_ARTIFACT_MODULEARTIFACT_H
#define BOO_ARTIFACT_MODULEARTIFACT_H

#include "Boo/Codegen/CPU/Pipelines.h"
#include "Boo/Codegen/Emu/Pipelines.h"
#include "Boo/Codegen/GPU/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
namespace boo {

struct ArtifactOptions {
  /// "cpu" (the host), AMD GPU chips ("gfx942", ...) and/or the SIMT
  /// emulator of a chip ("emu:gfx942"); at least one, no duplicates.
  std::vector<std::string> targets;
  /// The CPU pipeline's options.
  CPUPipelineOptions cpu;
  /// LLVM's loop unrolling in the cpu target's -O3 pipeline. Off: the
  /// pipeline unrolls what needs it (register tiles, taps, strided lanes),
  /// and LLVM's unrolling of the rest took a sixth of the compile time
  /// (docs/CPUPipeline.md). The emulator's code always has it.
  bool cpuLoopUnrolling = false;
  /// boo-to-rocdl's tuning-spec option (empty: BOO_TUNING_SPEC_PATH or the
  /// embedded default spec) and LLVM optimization level.
  std::string tuningSpec;
  unsigned gpuOptLevel = 3;
  /// boo-to-emu: guard memory accesses and report LDS accesses (checks),
  /// and, in tests only, a bug to plant (boo-emu-plant-bug).
  bool emuChecks = true;
  std::string emuPlantBug;
  /// Written into the manifest's producer field.
  std::string producer = "boo";
  /// Called on every pass manager before it runs, e.g. to apply MLIR's
  /// command-line pass manager options (--mlir-print-ir-after-all, ...).
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

/// The public functions with a body, in module order: what
/// compileModuleArtifact compiles.
std::vector<std::string> getPublicFunctionNames(ModuleOp module);

/// The target names accepted in ArtifactOptions::targets, for messages:
/// "cpu", the chips of the architecture table, and "emu:<chip>" for each.
std::vector<std::string> getArtifactTargetNames();

/// Compiles every public function of `module` for every target and returns
/// the file's bytes. The module is not modified (each target compiles a
/// clone). On failure returns false and sets `error`, which names the
/// target and function and carries the compiler's diagnostics.
bool compileModuleArtifact(ModuleOp module, const ArtifactOptions &options,
                           std::string &bytes, std::string &error);

} // namespace boo
} // namespace mlir

#endif // BOO_ARTIFACT_MODULEARTIFACT_H
