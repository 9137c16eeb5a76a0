//===- CPUTarget.cpp - The cpu target of a compiled module ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-to-llvm-cpu, a `boo_entry_<f>(void **args)` wrapper per function, LLVM
// -O3 for this host and `ld -shared`: one ELF shared object, which the
// runtime loads from memory (docs/ModuleFormat.md). The emulator's kernels
// become a host shared object the same way (compileHostSharedObject).
//
//===----------------------------------------------------------------------===//

#include "ArtifactTargets.h"

#include "Boo/Target/ROCDL/ROCDLSerialize.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace mlir;
using namespace mlir::boo;

namespace {

/// The instruction-set features the runtime checks before loading host code
/// (docs/ModuleFormat.md), as LLVM names them.
constexpr StringLiteral kCheckedCPUFeatures[] = {"sse4.2", "avx", "avx2", "fma",
                                                 "avx512f"};

/// Host code may call only what every process has (libc, libm: the loader
/// resolves them when the runtime loads the code object); anything else
/// would fail only then, so it is named now. Declarations are resolved in
/// this process, which links the same C library.
LogicalResult checkExternalSymbols(ModuleOp module, std::string &error) {
  // This process's own symbols (libc, libm and what else it links).
  static bool loaded =
      !llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
  (void)loaded;
  std::string missing;
  for (auto decl : module.getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = decl.getSymName();
    if (decl.isExternal() && !name.starts_with("llvm.") &&
        !llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name.str()))
      missing += (missing.empty() ? "@" : ", @") + name.str();
  }
  if (missing.empty())
    return success();
  error = "cpu: the module calls external function(s) found neither in the "
          "module nor in the C and math libraries: " +
          missing;
  return failure();
}

/// The linker of host shared objects: the system's GNU ld (binutils, which
/// clang-22 depends on) when there is one, else LLVM's ld.lld. Both produce
/// the same loadable object from LLVM's PIC output; GNU ld starts in about
/// 1 ms where ld.lld, which loads libLLVM, takes about 40 ms, and a
/// one-shot run or a numerics sweep links once per module.
std::string getHostLinker() {
  static const std::string linker = [] {
    for (StringRef name : {"ld.bfd", "ld"})
      if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(name))
        return *path;
    return findDefaultLLD();
  }();
  return linker;
}

/// What the host linker adds to a code object: compiler-rt's builtins
/// archive (lib/Artifact/CMakeLists.txt), whose members LLVM's code calls
/// where the host has no instruction (bf16 rounding without AVX512-BF16:
/// __truncsfbf2), when the build found it; only the members called are
/// linked.
SmallVector<StringRef> getHostBuiltins() {
#ifdef BOO_HOST_BUILTINS
  if (llvm::sys::fs::exists(BOO_HOST_BUILTINS))
    return {BOO_HOST_BUILTINS};
#endif
  return {};
}

std::string getEntrySymbol(StringRef function) {
  return ("boo_entry_" + function).str();
}

/// Adds `void boo_entry_<f>(void **args)` calling `_mlir_ciface_<f>` with
/// args[0..n): the fixed-arity ABI the runtime calls.
LogicalResult addEntryWrapper(ModuleOp module, StringRef function,
                              std::string &error) {
  std::string ciface = ("_mlir_ciface_" + function).str();
  auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(ciface);
  if (!callee) {
    error = "the CPU pipeline did not produce @" + ciface;
    return failure();
  }
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = callee.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, getEntrySymbol(function),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptrType}));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  SmallVector<Value> args;
  for (auto [i, type] : llvm::enumerate(callee.getFunctionType().getParams())) {
    if (!isa<LLVM::LLVMPointerType>(type)) {
      error = "@" + ciface + " takes a non-pointer argument";
      return failure();
    }
    Value slot =
        LLVM::GEPOp::create(b, loc, ptrType, ptrType, body->getArgument(0),
                            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    args.push_back(LLVM::LoadOp::create(b, loc, ptrType, slot));
  }
  LLVM::CallOp::create(b, loc, callee, args);
  LLVM::ReturnOp::create(b, loc, ValueRange());
  return success();
}

/// A TargetMachine for this host (its triple, CPU and features), -O3, for
/// position-independent code in a shared object.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createHostTargetMachine() {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError(error);
  llvm::SubtargetFeatures features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.first(), feature.second);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(),
      llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return llvm::createStringError("no TargetMachine for " + triple.str());
  return std::move(machine);
}

/// LLVM's -O3 pipeline for `tm` (with loop and SLP vectorization; loop
/// unrolling where `unrollLoops`).
void optimizeModule(llvm::Module &module, llvm::TargetMachine *tm,
                    bool unrollLoops) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = unrollLoops;
  tuning.LoopInterleaving = true;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder pb(tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
}

/// Has the code generator schedule instructions with LLVM's generic x86
/// model instead of the host's (the `tune-cpu` function attribute; the
/// instructions and features are still the host's). Set after the IR is
/// optimized, so that the optimizer's cost model stays the host's. The
/// host's model can enable the post-RA list scheduler (Zen 4's does),
/// which is quadratic in the size of a basic block: with it, our unrolled
/// tiles spent half their compile time there (0.86 s for MobileNetV2's
/// 96-channel depthwise layer at 112x112, 0.40 s without), and the code
/// ran no faster (the f32 and bf16 convolutions of
/// `boo-bench-onednn.py --threads 1`: geometric mean of the time ratios
/// 0.99-1.00).
void scheduleForGenericCPU(llvm::Module &module) {
  for (llvm::Function &f : module)
    if (!f.isDeclaration())
      f.addFnAttr("tune-cpu", "generic");
}

} // namespace

std::optional<SmallVector<char, 0>> mlir::boo::compileHostSharedObject(
    ModuleOp module, StringRef what, bool unrollLoops,
    std::unique_ptr<llvm::TargetMachine> &tm, std::string &error) {
  static std::once_flag initLLVM;
  std::call_once(initLLVM, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  module.getContext()->appendDialectRegistry(registry);

  auto machine = createHostTargetMachine();
  if (!machine) {
    error = what.str() + ": cannot create a TargetMachine for the host: " +
            llvm::toString(machine.takeError());
    return std::nullopt;
  }
  tm = std::move(*machine);
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, ("boo_" + what).str());
  if (!llvmModule) {
    error = what.str() + ": translation to LLVM IR failed";
    return std::nullopt;
  }
  llvmModule->setTargetTriple(tm->getTargetTriple());
  llvmModule->setDataLayout(tm->createDataLayout());
  optimizeModule(*llvmModule, tm.get(), unrollLoops);
  scheduleForGenericCPU(*llvmModule);
  SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if (tm->addPassesToEmitFile(codegen, os, nullptr,
                                llvm::CodeGenFileType::ObjectFile)) {
      error = what.str() + ": the host target cannot emit object files";
      return std::nullopt;
    }
    codegen.run(*llvmModule);
  }
  std::optional<SmallVector<char, 0>> sharedObject =
      linkSharedObject(getHostLinker(), object, getHostBuiltins(), error);
  if (!sharedObject)
    error = what.str() + ": " + error;
  return sharedObject;
}

LogicalResult mlir::boo::compileForCPU(ModuleOp source,
                                       ArrayRef<FunctionSignature> signatures,
                                       const ArtifactOptions &options,
                                       rt::ModuleDesc &desc,
                                       std::string &error) {
  MLIRContext *ctx = source.getContext();
  OwningOpRef<ModuleOp> module = source.clone();
  // The runtime ABI: inputs are read-only, one descriptor pointer per memref
  // (the C interface), names only for the manifest.
  for (auto func : module->getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      func.removeArgAttr(i, "boo.name");
      func.setArgAttr(i, "bufferization.writable", BoolAttr::get(ctx, false));
    }
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
      func.removeResultAttr(i, StringAttr::get(ctx, "boo.name"));
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  UnitAttr::get(ctx));
  }
  PassManager pm(ctx);
  pm.addPass(createSymbolDCEPass());
  buildCPUPipeline(pm, options.cpu);
  if (failed(runPipeline(pm, *module, "cpu: boo-to-llvm-cpu failed", options,
                         error)) ||
      failed(checkExternalSymbols(*module, error)))
    return failure();
  for (const FunctionSignature &signature : signatures)
    if (failed(addEntryWrapper(*module, signature.name, error)))
      return failure();

  std::unique_ptr<llvm::TargetMachine> tm;
  std::optional<SmallVector<char, 0>> sharedObject = compileHostSharedObject(
      *module, "cpu", options.cpuLoopUnrolling, tm, error);
  if (!sharedObject)
    return failure();

  rt::TargetDesc target;
  target.kind = rt::TargetKind::CPU;
  target.name = llvm::Triple(tm->getTargetTriple()).getArchName().str();
  std::vector<std::string> features;
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  for (StringRef feature : kCheckedCPUFeatures)
    if (hostFeatures.lookup(feature))
      features.push_back(feature.str());
  target.features = llvm::join(features, ",");
  uint32_t targetIndex = desc.targets.size();
  desc.targets.push_back(std::move(target));
  uint32_t codeObject = desc.codeObjects.size();
  desc.codeObjects.emplace_back(sharedObject->data(), sharedObject->size());

  for (const FunctionSignature &signature : signatures) {
    rt::FunctionImpl functionImpl;
    functionImpl.target = targetIndex;
    rt::Launch launch;
    launch.codeObject = codeObject;
    launch.kernel = getEntrySymbol(signature.name);
    for (uint32_t i = 0; i < signature.inputs.size(); ++i)
      launch.args.push_back({rt::ArgKind::Input, i, 0});
    for (uint32_t i = 0; i < signature.results.size(); ++i)
      launch.args.push_back({rt::ArgKind::Result, i, 0});
    functionImpl.launches.push_back(std::move(launch));
    desc.functions[&signature - signatures.data()].impls.push_back(
        std::move(functionImpl));
  }
  return success();
}
