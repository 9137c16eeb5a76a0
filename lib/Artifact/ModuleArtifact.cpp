//===- ModuleArtifact.cpp - Compile a module into one artifact ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Each target compiles its own clone of the module:
//
//   cpu     boo-to-llvm-cpu, an entry wrapper per function
//           (`void boo_entry_<f>(void **args)`), LLVM IR at -O3 for the host
//           CPU, an object file, `ld.lld -shared` -> one shared object;
//   gfxNNN  boo-to-rocdl -> gpu.binary code objects (one per kernel) and
//           host functions made of gpu.alloc, views and gpu.launch_func,
//           which become the manifest's scratch buffers and launches.
//
// The code objects and the manifest are written with the runtime's own
// serializer (runtime/include/boo/ModuleFormat.h).
//
//===----------------------------------------------------------------------===//

#include "Boo/Artifact/ModuleArtifact.h"
#include "Boo/Target/ChipInfo.h"
#include "Boo/Target/ROCDL/ROCDLSerialize.h"
#include "boo/ModuleFormat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>
#include <set>

using namespace mlir;
using namespace mlir::boo;
namespace rt = ::boo::runtime;

namespace {

/// Collects diagnostics as "loc: error: message" lines.
class DiagnosticCollector : public ScopedDiagnosticHandler {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : ScopedDiagnosticHandler(ctx) {
    setHandler([this](Diagnostic &diag) {
      llvm::raw_string_ostream os(text);
      os << diag.getLocation() << ": " << diag.str() << "\n";
      for (Diagnostic &note : diag.getNotes())
        os << note.getLocation() << ": note: " << note.str() << "\n";
      return success();
    });
  }
  std::string str() const { return StringRef(text).rtrim().str(); }

private:
  std::string text;
};

std::optional<rt::DType> getDType(Type type) {
  if (type.isF32())
    return rt::DType::F32;
  if (type.isF16())
    return rt::DType::F16;
  if (type.isBF16())
    return rt::DType::BF16;
  if (type.isF64())
    return rt::DType::F64;
  if (type.isSignlessInteger(32))
    return rt::DType::I32;
  if (type.isSignlessInteger(8))
    return rt::DType::I8;
  return std::nullopt;
}

/// A public function's tensor signature, read before lowering.
struct FunctionSignature {
  std::string name;
  std::vector<rt::TensorDesc> inputs, results;
};

LogicalResult getTensorDesc(Type type, std::string name, const Twine &what,
                            rt::TensorDesc &desc, std::string &error) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  std::optional<rt::DType> dtype;
  if (tensorType)
    dtype = getDType(tensorType.getElementType());
  if (!tensorType || !tensorType.hasStaticShape() || !dtype ||
      tensorType.getEncoding()) {
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    os << type;
    error = what.str() + " has type " + typeText +
            "; compiled modules take statically shaped tensors of f32, f16, "
            "bf16, f64, i32 or i8";
    return failure();
  }
  desc.name = std::move(name);
  desc.dtype = *dtype;
  desc.dims.assign(tensorType.getShape().begin(), tensorType.getShape().end());
  return success();
}

LogicalResult getSignatures(ModuleOp module,
                            std::vector<FunctionSignature> &signatures,
                            std::string &error) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    FunctionSignature signature;
    signature.name = func.getSymName().str();
    FunctionType type = func.getFunctionType();
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      std::string name;
      if (auto attr = func.getArgAttrOfType<StringAttr>(i, "boo.name"))
        name = attr.str();
      else if (auto loc = dyn_cast<NameLoc>(func.getArgument(i).getLoc()))
        name = loc.getName().str();
      rt::TensorDesc desc;
      if (failed(getTensorDesc(input, name,
                               "input " + Twine(i) + " of @" + signature.name,
                               desc, error)))
        return failure();
      signature.inputs.push_back(std::move(desc));
    }
    for (auto [i, result] : llvm::enumerate(type.getResults())) {
      std::string name;
      if (auto attr = func.getResultAttrOfType<StringAttr>(i, "boo.name"))
        name = attr.str();
      rt::TensorDesc desc;
      if (failed(getTensorDesc(result, name,
                               "result " + Twine(i) + " of @" + signature.name,
                               desc, error)))
        return failure();
      signature.results.push_back(std::move(desc));
    }
    signatures.push_back(std::move(signature));
  }
  if (signatures.empty()) {
    error = "the module has no public function with a body";
    return failure();
  }
  return success();
}

/// Runs `pm` on `module`; on failure sets `error` to `what` and the
/// diagnostics.
LogicalResult runPipeline(PassManager &pm, ModuleOp module, const Twine &what,
                          std::string &error) {
  MLIRContext *ctx = module.getContext();
  DiagnosticCollector diagnostics(ctx);
  // A failing pass's "see current operation" note can hold the whole module.
  bool printOp = ctx->shouldPrintOpOnDiagnostic();
  ctx->printOpOnDiagnostic(false);
  LogicalResult result = pm.run(module);
  ctx->printOpOnDiagnostic(printOp);
  if (failed(result))
    error = what.str() + ":\n" + diagnostics.str();
  return result;
}

//===----------------------------------------------------------------------===//
// CPU
//===----------------------------------------------------------------------===//

/// The instruction-set features the runtime checks before loading host code
/// (docs/ModuleFormat.md), as LLVM names them.
constexpr StringLiteral kCheckedCPUFeatures[] = {"sse4.2", "avx", "avx2",
                                                 "fma", "avx512f"};

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
  for (auto [i, type] :
       llvm::enumerate(callee.getFunctionType().getParams())) {
    if (!isa<LLVM::LLVMPointerType>(type)) {
      error = "@" + ciface + " takes a non-pointer argument";
      return failure();
    }
    Value slot = LLVM::GEPOp::create(
        b, loc, ptrType, ptrType, body->getArgument(0),
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
    args.push_back(LLVM::LoadOp::create(b, loc, ptrType, slot));
  }
  LLVM::CallOp::create(b, loc, callee, args);
  LLVM::ReturnOp::create(b, loc, ValueRange());
  return success();
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine() {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  builder->setRelocationModel(llvm::Reloc::PIC_);
  return builder->createTargetMachine();
}

/// LLVM dialect `module` to an ELF shared object for the host (-O3, linked
/// with `ld.lld -shared`); `what` prefixes errors. Sets `tm` to the target
/// machine used.
std::optional<SmallVector<char, 0>>
compileHostSharedObject(ModuleOp module, StringRef what,
                        std::unique_ptr<llvm::TargetMachine> &tm,
                        std::string &error) {
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
  auto optimize = makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0,
                                            tm.get());
  if (llvm::Error err = optimize(llvmModule.get())) {
    error = what.str() + ": LLVM optimization failed: " +
            llvm::toString(std::move(err));
    return std::nullopt;
  }
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
      linkSharedObject(findDefaultLLD(), object, {}, error);
  if (!sharedObject)
    error = what.str() + ": " + error;
  return sharedObject;
}

LogicalResult compileForCPU(ModuleOp source,
                            ArrayRef<FunctionSignature> signatures,
                            const ArtifactOptions &options,
                            rt::ModuleDesc &desc, std::string &error) {
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
  if (failed(runPipeline(pm, *module, "cpu: boo-to-llvm-cpu failed", error)))
    return failure();
  for (const FunctionSignature &signature : signatures)
    if (failed(addEntryWrapper(*module, signature.name, error)))
      return failure();

  std::unique_ptr<llvm::TargetMachine> tm;
  std::optional<SmallVector<char, 0>> sharedObject =
      compileHostSharedObject(*module, "cpu", tm, error);
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

//===----------------------------------------------------------------------===//
// AMD GPU
//===----------------------------------------------------------------------===//

/// A host value's buffer: which manifest buffer and the byte offset in it.
struct BufferRef {
  rt::ArgKind kind;
  uint32_t index;
  uint64_t offset;
};

/// Reads the manifest form of one host function made by boo-to-rocdl.
class HostFunctionReader {
public:
  /// Launches name the code object of their gpu.binary (`codeObjects`),
  /// or, with `emuCodeObject`, that one shared object and the emulated
  /// kernel's host symbol (getEmuKernelSymbol).
  HostFunctionReader(const FunctionSignature &signature,
                     const llvm::StringMap<uint32_t> &codeObjects,
                     std::optional<uint32_t> emuCodeObject = std::nullopt)
      : signature(signature), codeObjects(codeObjects),
        emuCodeObject(emuCodeObject) {}

  LogicalResult read(func::FuncOp func, rt::FunctionImpl &functionImpl,
                     std::string &error) {
    size_t numInputs = signature.inputs.size();
    if (func.getNumArguments() != numInputs + signature.results.size()) {
      error = "@" + signature.name + " has " +
              std::to_string(func.getNumArguments()) +
              " arguments after boo-to-rocdl; expected inputs + results";
      return failure();
    }
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      if (i < numInputs)
        buffers[arg] = {rt::ArgKind::Input, static_cast<uint32_t>(i), 0};
      else
        buffers[arg] = {rt::ArgKind::Result,
                        static_cast<uint32_t>(i - numInputs), 0};
    }
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (failed(readOp(op, functionImpl, error)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

private:
  LogicalResult readOp(Operation *op, rt::FunctionImpl &functionImpl,
                       std::string &error) {
    if (isa<func::FuncOp, func::ReturnOp, arith::ConstantOp, gpu::DeallocOp>(
            op))
      return success();
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return fail(op, "allocates a dynamic or strided buffer", error);
      uint64_t bytes =
          type.getNumElements() * type.getElementTypeBitWidth() / 8;
      buffers[alloc.getMemref()] = {
          rt::ArgKind::Scratch,
          static_cast<uint32_t>(functionImpl.scratchBytes.size()), 0};
      functionImpl.scratchBytes.push_back(bytes);
      return success();
    }
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
            memref::SubViewOp, memref::ReinterpretCastOp>(op)) {
      auto it = buffers.find(op->getOperand(0));
      if (it == buffers.end())
        return fail(op, "takes a view of an unknown buffer", error);
      BufferRef ref = it->second;
      auto source = cast<MemRefType>(op->getOperand(0).getType());
      auto result = cast<MemRefType>(op->getResult(0).getType());
      SmallVector<int64_t> strides;
      int64_t sourceOffset = 0, resultOffset = 0;
      if (failed(source.getStridesAndOffset(strides, sourceOffset)) ||
          failed(result.getStridesAndOffset(strides, resultOffset)) ||
          ShapedType::isDynamic(sourceOffset) ||
          ShapedType::isDynamic(resultOffset))
        return fail(op, "has a dynamic offset", error);
      // Offsets are in elements of the underlying buffer, relative to its
      // base; the descriptor's base pointer stays the root's.
      ref.offset += (resultOffset - sourceOffset) *
                    result.getElementTypeBitWidth() / 8;
      buffers[op->getResult(0)] = ref;
      return success();
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      return readLaunch(launch, functionImpl, error);
    return fail(op, "is not a kernel launch, allocation or view", error);
  }

  LogicalResult readLaunch(gpu::LaunchFuncOp launchOp, rt::FunctionImpl &functionImpl,
                           std::string &error) {
    rt::Launch launch;
    if (emuCodeObject) {
      launch.codeObject = *emuCodeObject;
      launch.kernel = getEmuKernelSymbol(
          launchOp.getKernelModuleName().getValue(),
          launchOp.getKernelName().getValue());
    } else {
      auto codeObject = codeObjects.find(launchOp.getKernelModuleName());
      if (codeObject == codeObjects.end())
        return fail(launchOp, "launches a kernel of an unknown gpu.binary",
                    error);
      launch.codeObject = codeObject->second;
      launch.kernel = launchOp.getKernelName().str();
    }
    gpu::KernelDim3 grid = launchOp.getGridSizeOperandValues();
    gpu::KernelDim3 block = launchOp.getBlockSizeOperandValues();
    Value sizes[] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    for (auto [i, size] : llvm::enumerate(sizes)) {
      std::optional<int64_t> value = getConstantIntValue(size);
      if (!value || *value <= 0 || *value > UINT32_MAX)
        return fail(launchOp, "has a non-constant or out-of-range launch size",
                    error);
      (i < 3 ? launch.grid[i] : launch.workgroup[i - 3]) = *value;
    }
    if (Value lds = launchOp.getDynamicSharedMemorySize()) {
      std::optional<int64_t> value = getConstantIntValue(lds);
      if (!value || *value < 0 || *value > UINT32_MAX)
        return fail(launchOp, "has a non-constant dynamic LDS size", error);
      launch.dynamicLdsBytes = *value;
    }
    for (Value operand : launchOp.getKernelOperands()) {
      if (auto type = dyn_cast<MemRefType>(operand.getType())) {
        // Bare-pointer kernel arguments: the kernel adds nothing to the
        // pointer, so the view's offset must be in it (BufferRef::offset).
        if (!type.getLayout().isIdentity())
          return fail(launchOp, "passes a non-identity-layout buffer", error);
        auto it = buffers.find(operand);
        if (it == buffers.end())
          return fail(launchOp, "passes a buffer the reader cannot trace",
                      error);
        launch.args.push_back(
            {it->second.kind, it->second.index, it->second.offset});
        continue;
      }
      std::optional<int64_t> value = getConstantIntValue(operand);
      unsigned width = operand.getType().isIndex()
                           ? 64
                           : operand.getType().getIntOrFloatBitWidth();
      if (!value || (width != 64 && width != 32))
        return fail(launchOp, "passes a non-constant scalar argument", error);
      launch.args.push_back({width == 64 ? rt::ArgKind::Imm64
                                         : rt::ArgKind::Imm32,
                             0, static_cast<uint64_t>(*value)});
    }
    functionImpl.launches.push_back(std::move(launch));
    return success();
  }

  LogicalResult fail(Operation *op, const Twine &message,
                     std::string &error) {
    error = "@" + signature.name + ": '" + op->getName().getStringRef().str() +
            "' " + message.str();
    return failure();
  }

  const FunctionSignature &signature;
  const llvm::StringMap<uint32_t> &codeObjects;
  std::optional<uint32_t> emuCodeObject;
  DenseMap<Value, BufferRef> buffers;
};

LogicalResult compileForChip(ModuleOp source, StringRef chip,
                             ArrayRef<FunctionSignature> signatures,
                             const ArtifactOptions &options,
                             rt::ModuleDesc &desc, std::string &error) {
  MLIRContext *ctx = source.getContext();
  DialectRegistry registry;
  registerROCDLSerializationInterfaces(registry);
  ctx->appendDialectRegistry(registry);

  OwningOpRef<ModuleOp> module = source.clone();
  // The chip comes from the option; a target recorded in the source is for
  // another compile.
  (*module)->removeAttr("boo.target");
  PassManager pm(ctx);
  pm.addPass(createSymbolDCEPass());
  ROCDLPipelineOptions pipelineOptions;
  pipelineOptions.chip = chip.str();
  pipelineOptions.tuningSpec = options.tuningSpec;
  pipelineOptions.optLevel = options.gpuOptLevel;
  buildROCDLPipeline(pm, pipelineOptions);
  if (failed(runPipeline(pm, *module, chip + ": boo-to-rocdl failed", error)))
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
      auto rocdl =
          object ? dyn_cast<ROCDL::ROCDLTargetAttr>(object.getTarget())
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
    HostFunctionReader reader(signature, codeObjects);
    if (failed(reader.read(func, functionImpl, error))) {
      error = chip.str() + ": " + error;
      return failure();
    }
    desc.functions[&signature - signatures.data()].impls.push_back(
        std::move(functionImpl));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SIMT emulator
//===----------------------------------------------------------------------===//

/// boo-to-emu for `chip`: the kernels of boo-to-rocdl as host functions of
/// one work-item (runtime/include/boo/EmuABI.h), in one shared object; the
/// launches are read from the host functions as for a GPU.
LogicalResult compileForEmu(ModuleOp source, StringRef chip,
                            ArrayRef<FunctionSignature> signatures,
                            const ArtifactOptions &options,
                            rt::ModuleDesc &desc, std::string &error) {
  MLIRContext *ctx = source.getContext();
  std::string what = ("emu:" + chip).str();
  OwningOpRef<ModuleOp> module = source.clone();
  (*module)->removeAttr("boo.target");
  PassManager kernelStages(ctx);
  kernelStages.addPass(createSymbolDCEPass());
  addGPUKernelStages(kernelStages, chip, options.tuningSpec);
  if (failed(runPipeline(kernelStages, *module,
                         what + ": boo-to-emu (kernels) failed", error)))
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
    HostFunctionReader reader(signature, noBinaries, codeObject);
    if (failed(reader.read(func, functionImpl, error))) {
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
                         what + ": boo-emu-lower-kernels failed", error)))
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
                         what + ": boo-to-emu (host lowering) failed", error)))
    return failure();
  std::unique_ptr<llvm::TargetMachine> tm;
  std::optional<SmallVector<char, 0>> sharedObject =
      compileHostSharedObject(*module, what, tm, error);
  if (!sharedObject)
    return failure();

  desc.targets.push_back(std::move(target));
  desc.codeObjects.emplace_back(sharedObject->data(), sharedObject->size());
  for (auto [i, impl] : llvm::enumerate(impls))
    desc.functions[i].impls.push_back(std::move(impl));
  return success();
}

} // namespace

std::vector<std::string> mlir::boo::getArtifactTargetNames() {
  std::vector<std::string> names = {"cpu"};
  for (const ChipInfo &chip : getSupportedChips())
    names.push_back(chip.name.str());
  for (const ChipInfo &chip : getSupportedChips())
    names.push_back(("emu:" + chip.name).str());
  return names;
}

bool mlir::boo::compileModuleArtifact(ModuleOp module, const ArtifactOptions &options,
                                std::string &bytes, std::string &error) {
  error.clear();
  if (options.targets.empty()) {
    error = "no target given; targets: " +
            llvm::join(getArtifactTargetNames(), ", ");
    return false;
  }
  std::set<std::string> seen;
  for (const std::string &target : options.targets) {
    if (!seen.insert(target).second) {
      error = "target '" + target + "' is given twice";
      return false;
    }
    StringRef chip = StringRef(target);
    chip.consume_front("emu:");
    if (target != "cpu" && !lookupChip(chip)) {
      error = "unknown target '" + target +
              "'; targets: " + llvm::join(getArtifactTargetNames(), ", ");
      return false;
    }
  }

  std::vector<FunctionSignature> signatures;
  if (failed(getSignatures(module, signatures, error)))
    return false;
  rt::ModuleDesc desc;
  desc.producer = options.producer;
  for (const FunctionSignature &signature : signatures) {
    rt::FunctionDesc function;
    function.name = signature.name;
    function.inputs = signature.inputs;
    function.results = signature.results;
    desc.functions.push_back(std::move(function));
  }
  for (const std::string &target : options.targets) {
    StringRef chip = target;
    LogicalResult result =
        target == "cpu"
            ? compileForCPU(module, signatures, options, desc, error)
        : chip.consume_front("emu:")
            ? compileForEmu(module, chip, signatures, options, desc, error)
            : compileForChip(module, target, signatures, options, desc, error);
    if (failed(result))
      return false;
  }
  if (!rt::serializeModule(desc, bytes, error)) {
    error = "cannot write the module: " + error;
    return false;
  }
  return true;
}
