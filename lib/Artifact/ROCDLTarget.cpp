//===- ROCDLTarget.cpp - The AMD GPU targets of a compiled module ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "ArtifactTargets.h"

#include "Boo/Target/ROCDL/ROCDLSerialize.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::boo;

LogicalResult mlir::boo::compileForChip(ModuleOp source, StringRef chip,
                                        ArrayRef<FunctionSignature> signatures,
                                        const ArtifactOptions &options,
                                        rt::ModuleDesc &desc,
                                        std::string &error) {
  MLIRContext *ctx = source.getContext();
  DialectRegistry registry;
  registerROCDLSerializationInterfaces(registry);
  ctx->appendDialectRegistry(registry);

  // A kernel that does not fit the registers is compiled again with smaller
  // tiles (kMaxTileShrinks).
  OwningOpRef<ModuleOp> module;
  auto compile = [&](int64_t shrink, std::string &diagnostics) {
    module = source.clone();
    // The chip comes from the option; a target recorded in the source is
    // for another compile.
    (*module)->removeAttr("boo.target");
    PassManager pm(ctx);
    pm.addPass(createSymbolDCEPass());
    ROCDLPipelineOptions pipelineOptions;
    pipelineOptions.chip = chip.str();
    pipelineOptions.tuningSpec = options.tuningSpec;
    pipelineOptions.optLevel = options.gpuOptLevel;
    pipelineOptions.shrinkTiles = shrink;
    buildROCDLPipeline(pm, pipelineOptions);
    return runPipeline(pm, *module, chip + ": boo-to-rocdl failed", options,
                       diagnostics);
  };
  if (failed(compileWithTileShrinks(compile, error)))
    return failure();

  rt::TargetDesc target;
  target.kind = rt::TargetKind::HIP;
  target.name = chip.str();
  uint32_t targetIndex = desc.targets.size();
  desc.targets.push_back(std::move(target));

  llvm::StringMap<uint32_t> codeObjects;
  for (auto binary : module->getOps<gpu::BinaryOp>()) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      auto rocdl = object ? dyn_cast<ROCDL::ROCDLTargetAttr>(object.getTarget())
                          : nullptr;
      if (!rocdl || rocdl.getChip() != chip ||
          object.getFormat() != gpu::CompilationTarget::Binary)
        continue;
      codeObjects[binary.getName()] = desc.codeObjects.size();
      desc.codeObjects.push_back(object.getObject().str());
    }
  }
  for (const FunctionSignature &signature : signatures) {
    auto func = module->lookupSymbol<func::FuncOp>(signature.name);
    if (!func) {
      error = chip.str() + ": @" + signature.name +
              " is missing after boo-to-rocdl";
      return failure();
    }
    rt::FunctionImpl functionImpl;
    functionImpl.target = targetIndex;
    if (failed(readHostFunction(func, signature, codeObjects, std::nullopt,
                                functionImpl, error))) {
      error = chip.str() + ": " + error;
      return failure();
    }
    desc.functions[&signature - signatures.data()].impls.push_back(
        std::move(functionImpl));
  }
  return success();
}
