//===- ArtifactTargets.h - A compiled module, target by target --*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Artifact. compileModuleArtifact (ModuleArtifact.cpp) reads
// the public functions' signatures, then each target compiles its own clone
// of the module into the manifest: CPUTarget.cpp (boo-to-llvm-cpu, one host
// shared object), ROCDLTarget.cpp (boo-to-rocdl, HSACO per kernel) and
// EmuTarget.cpp (boo-to-emu, one host shared object). GPU and emulator
// launches are read from boo-to-rocdl's host functions
// (HostFunctionReader.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_ARTIFACT_ARTIFACTTARGETS_H
#define BOO_LIB_ARTIFACT_ARTIFACTTARGETS_H

#include "Boo/Artifact/ModuleArtifact.h"
#include "boo/ModuleFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace mlir::boo {
namespace rt = ::boo::runtime;

/// A public function's tensor signature, read before lowering.
struct FunctionSignature {
  std::string name;
  std::vector<rt::TensorDesc> inputs, results;
};

/// Runs `pm` (configured by `options.configurePassManager`) on `module`; on
/// failure sets `error` to `what` and the diagnostics.
LogicalResult runPipeline(PassManager &pm, ModuleOp module, const Twine &what,
                          const ArtifactOptions &options, std::string &error);

/// LLVM dialect `module` to an ELF shared object for the host (-O3, with
/// LLVM's loop unrolling where `unrollLoops`, linked with `ld -shared`: GNU
/// ld, else ld.lld); `what` prefixes errors. Sets `tm` to the target machine
/// used.
std::optional<SmallVector<char, 0>>
compileHostSharedObject(ModuleOp module, StringRef what, bool unrollLoops,
                        std::unique_ptr<llvm::TargetMachine> &tm,
                        std::string &error);

/// Reads host function `func` of boo-to-rocdl (its gpu.launch_func ops and
/// buffers) into `functionImpl`. Launches name the code object of their
/// gpu.binary (`codeObjects`), or, with `emuCodeObject`, that one shared
/// object and the emulated kernel's host symbol (getEmuKernelSymbol).
LogicalResult readHostFunction(func::FuncOp func,
                               const FunctionSignature &signature,
                               const llvm::StringMap<uint32_t> &codeObjects,
                               std::optional<uint32_t> emuCodeObject,
                               rt::FunctionImpl &functionImpl,
                               std::string &error);

/// Each target's compile of a clone of `source` into `desc`: its target,
/// code objects and one implementation per function of `signatures`.
LogicalResult compileForCPU(ModuleOp source,
                            ArrayRef<FunctionSignature> signatures,
                            const ArtifactOptions &options,
                            rt::ModuleDesc &desc, std::string &error);
LogicalResult compileForChip(ModuleOp source, StringRef chip,
                             ArrayRef<FunctionSignature> signatures,
                             const ArtifactOptions &options,
                             rt::ModuleDesc &desc, std::string &error);
LogicalResult compileForEmu(ModuleOp source, StringRef chip,
                            ArrayRef<FunctionSignature> signatures,
                            const ArtifactOptions &options,
                            rt::ModuleDesc &desc, std::string &error);

} // namespace mlir::boo

#endif // BOO_LIB_ARTIFACT_ARTIFACTTARGETS_H
