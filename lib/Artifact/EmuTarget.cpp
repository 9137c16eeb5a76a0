//===- EmuTarget.cpp - The emu:<chip> targets of a compiled module --------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "ArtifactTargets.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::boo;

/// boo-to-emu for `chip`: the kernels of boo-to-rocdl as host functions of
/// one work-item (runtime/include/boo/EmuABI.h), in one shared object; the
/// launches are read from the host functions as for a GPU.
LogicalResult mlir::boo::compileForEmu(ModuleOp source, StringRef chip,
                                       ArrayRef<FunctionSignature> signatures,
                                       const ArtifactOptions &options,
                                       rt::ModuleDesc &desc,
                                       std::string &error) {
  MLIRContext *ctx = source.getContext();
  std::string what = ("emu:" + chip).str();
  OwningOpRef<ModuleOp> module = source.clone();
  (*module)->removeAttr("boo.target");
  PassManager kernelStages(ctx);
  kernelStages.addPass(createSymbolDCEPass());
  addGPUKernelStages(kernelStages, chip, options.tuningSpec);
  if (failed(runPipeline(kernelStages, *module,
                         what + ": boo-to-emu (kernels) failed", options,
                         error)))
    return failure();

  rt::TargetDesc target;
  target.kind = rt::TargetKind::Emu;
  target.name = chip.str();
  uint32_t targetIndex = desc.targets.size();
  uint32_t codeObject = desc.codeObjects.size();
  llvm::StringMap<uint32_t> noBinaries;
  std::vector<rt::FunctionImpl> impls;
  for (const FunctionSignature &signature : signatures) {
    auto func = module->lookupSymbol<func::FuncOp>(signature.name);
    if (!func) {
      error = what + ": @" + signature.name + " is missing after boo-to-emu";
      return failure();
    }
    rt::FunctionImpl functionImpl;
    functionImpl.target = targetIndex;
    if (failed(readHostFunction(func, signature, noBinaries, codeObject,
                                functionImpl, error))) {
      error = what + ": " + error;
      return failure();
    }
    impls.push_back(std::move(functionImpl));
  }

  PassManager lowerKernels(ctx);
  EmuPipelineOptions emuOptions;
  emuOptions.chip = chip.str();
  emuOptions.checks = options.emuChecks;
  emuOptions.plantBug = options.emuPlantBug;
  addEmuKernelStages(lowerKernels, emuOptions);
  if (failed(runPipeline(lowerKernels, *module,
                         what + ": boo-emu-lower-kernels failed", options,
                         error)))
    return failure();
  // All of an emulated kernel's LDS comes from the runtime: the manifest's
  // LDS bytes are the kernel's total (docs/ModuleFormat.md).
  llvm::StringMap<int64_t> ldsBytes;
  for (auto func : module->getOps<func::FuncOp>())
    if (auto bytes = func->getAttrOfType<IntegerAttr>("boo.emu_lds_bytes"))
      ldsBytes[func.getSymName()] = bytes.getInt();
  for (rt::FunctionImpl &impl : impls) {
    for (rt::Launch &launch : impl.launches) {
      auto it = ldsBytes.find(launch.kernel);
      if (it == ldsBytes.end()) {
        error = what + ": kernel " + launch.kernel + " was not emulated";
        return failure();
      }
      launch.dynamicLdsBytes += it->second;
    }
  }

  PassManager hostLowering(ctx);
  addEmuHostLoweringStages(hostLowering);
  if (failed(runPipeline(hostLowering, *module,
                         what + ": boo-to-emu (host lowering) failed", options,
                         error)))
    return failure();
  std::unique_ptr<llvm::TargetMachine> tm;
  std::optional<SmallVector<char, 0>> sharedObject =
      compileHostSharedObject(*module, what, /*unrollLoops=*/true, tm, error);
  if (!sharedObject)
    return failure();

  desc.targets.push_back(std::move(target));
  desc.codeObjects.emplace_back(sharedObject->data(), sharedObject->size());
  for (auto [i, impl] : llvm::enumerate(impls))
    desc.functions[i].impls.push_back(std::move(impl));
  return success();
}
