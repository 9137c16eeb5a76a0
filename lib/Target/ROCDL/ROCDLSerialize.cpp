//===- ROCDLSerialize.cpp - ROCDL gpu.module -> HSACO gpu.binary ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-rocdl-serialize` compiles every `gpu.module` that carries a
// `#rocdl.target` into an HSACO code object, with nothing but LLVM:
//
//   1. the target's `serializeToObject` in `Assembly` mode: MLIR -> LLVM IR,
//      the LLVM optimization pipeline at the target's O level, and the AMDGPU
//      backend down to ISA text;
//   2. `ROCDL::assembleIsa`: the in-process MC assembler, ISA -> relocatable
//      ELF object;
//   3. `ld.lld -shared`: object -> code object (what HIP's module loader
//      takes). LLVM's own ld.lld is used (found at build time, see
//      findDefaultLLD), so no ROCm toolkit directory is needed.
//
// Upstream `gpu-module-to-binary format=bin` does the same three steps but
// insists on `<toolkit>/llvm/bin/ld.lld`; doing step 3 here avoids faking a
// ROCm tree and gives tools the ISA of each kernel for free (hooks).
//
//===----------------------------------------------------------------------===//

#include "Boo/Target/ROCDL/ROCDLSerialize.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOROCDLSERIALIZE
#include "Boo/Target/ROCDL/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

void mlir::boo::registerROCDLSerializationInterfaces(
    DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, ROCDL::ROCDLDialect, LLVM::LLVMDialect>();
  ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

std::string mlir::boo::findDefaultLLD() {
#ifdef BOO_LLD_PATH
  // The ld.lld of the LLVM installation Boo was configured against: it
  // understands exactly the objects this LLVM's assembler writes.
  if (llvm::sys::fs::can_execute(BOO_LLD_PATH))
    return BOO_LLD_PATH;
#endif
  if (llvm::ErrorOr<std::string> onPath =
          llvm::sys::findProgramByName("ld.lld"))
    return *onPath;
  return "";
}

LogicalResult mlir::boo::disassembleCodeObject(StringRef codeObject,
                                               StringRef chip,
                                               llvm::raw_ostream &os,
                                               std::string &error) {
  using namespace llvm;
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllDisassemblers();
  Expected<std::unique_ptr<object::ObjectFile>> file =
      object::ObjectFile::createObjectFile(
          MemoryBufferRef(codeObject, "code object"));
  if (!file) {
    error = toString(file.takeError());
    return failure();
  }
  auto *elf = dyn_cast<object::ELFObjectFileBase>(file->get());
  if (!elf || elf->getArch() != Triple::amdgcn) {
    error = "not an AMDGPU ELF code object";
    return failure();
  }
  Triple triple("amdgcn-amd-amdhsa");
  const Target *target = TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return failure();
  MCTargetOptions mcOptions;
  std::unique_ptr<MCRegisterInfo> mri(target->createMCRegInfo(triple));
  std::unique_ptr<MCAsmInfo> mai(
      target->createMCAsmInfo(*mri, triple, mcOptions));
  std::unique_ptr<MCSubtargetInfo> sti(
      target->createMCSubtargetInfo(triple, chip, ""));
  std::unique_ptr<MCInstrInfo> mii(target->createMCInstrInfo());
  if (!mri || !mai || !sti || !mii) {
    error = "LLVM has no AMDGPU MC layer for '" + chip.str() + "'";
    return failure();
  }
  MCContext ctx(triple, mai.get(), mri.get(), sti.get());
  std::unique_ptr<MCDisassembler> disassembler(
      target->createMCDisassembler(*sti, ctx));
  std::unique_ptr<MCInstPrinter> printer(target->createMCInstPrinter(
      triple, mai->getAssemblerDialect(), *mai, *mii, *mri));
  if (!disassembler || !printer) {
    error = "LLVM has no AMDGPU disassembler";
    return failure();
  }

  for (const object::SectionRef &section : elf->sections()) {
    if (!section.isText())
      continue;
    Expected<StringRef> contents = section.getContents();
    if (!contents) {
      error = toString(contents.takeError());
      return failure();
    }
    // Function symbols of this section, by address.
    SmallVector<std::pair<uint64_t, std::string>> symbols;
    for (const object::ELFSymbolRef &symbol : elf->symbols()) {
      Expected<object::section_iterator> in = symbol.getSection();
      Expected<StringRef> name = symbol.getName();
      Expected<uint64_t> address = symbol.getAddress();
      if (!in || !name || !address || *in != section ||
          symbol.getELFType() != ELF::STT_FUNC) {
        consumeError(in.takeError());
        consumeError(name.takeError());
        consumeError(address.takeError());
        continue;
      }
      symbols.push_back({*address, name->str()});
    }
    llvm::sort(symbols);
    ArrayRef<uint8_t> bytes(reinterpret_cast<const uint8_t *>(contents->data()),
                            contents->size());
    uint64_t base = section.getAddress();
    size_t nextSymbol = 0;
    for (uint64_t offset = 0; offset < bytes.size();) {
      uint64_t address = base + offset;
      for (;
           nextSymbol < symbols.size() && symbols[nextSymbol].first <= address;
           ++nextSymbol)
        os << symbols[nextSymbol].second << ":\n";
      MCInst inst;
      uint64_t size = 0;
      MCDisassembler::DecodeStatus status = disassembler->getInstruction(
          inst, size, bytes.slice(offset), address, nulls());
      if (status == MCDisassembler::Fail || size == 0) {
        os << "\t; " << format_hex(address, 10) << ": undecodable\n";
        offset += 4;
        continue;
      }
      os << "\t";
      printer->printInst(&inst, address, "", *sti, os);
      os << "\n";
      offset += size;
    }
  }
  return success();
}

namespace {

/// A temporary file removed when this goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  std::optional<llvm::FileRemover> remover;

  LogicalResult create(StringRef prefix, StringRef suffix, int &fd) {
    if (llvm::sys::fs::createTemporaryFile(prefix, suffix, fd, path))
      return failure();
    remover.emplace(path);
    return success();
  }
};

} // namespace

std::optional<SmallVector<char, 0>>
mlir::boo::linkSharedObject(StringRef lld, ArrayRef<char> object,
                            ArrayRef<StringRef> extraArgs, std::string &error) {
  if (lld.empty()) {
    error = "no ld.lld found (looked next to LLVM's tools and on PATH)";
    return std::nullopt;
  }
  TempFile objectFile, sharedObjectFile, errorFile;
  int objectFd = -1, sharedObjectFd = -1, errorFd = -1;
  if (failed(objectFile.create("boo-code", "o", objectFd)) ||
      failed(sharedObjectFile.create("boo-code", "so", sharedObjectFd)) ||
      failed(errorFile.create("boo-code", "log", errorFd))) {
    error = "cannot create temporary files for linking";
    return std::nullopt;
  }
  {
    llvm::raw_fd_ostream os(objectFd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
  }
  llvm::sys::Process::SafelyCloseFileDescriptor(sharedObjectFd);
  llvm::sys::Process::SafelyCloseFileDescriptor(errorFd);

  SmallVector<StringRef> args = {"ld.lld", "-shared", objectFile.path, "-o",
                                 sharedObjectFile.path};
  args.append(extraArgs.begin(), extraArgs.end());
  std::optional<StringRef> redirects[] = {std::nullopt, errorFile.path,
                                          errorFile.path};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(lld, args, /*Env=*/std::nullopt, redirects,
                                     /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &message);
  if (rc != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(errorFile.path))
      log = (*buffer)->getBuffer().trim().str();
    error = "'" + lld.str() + " -shared' failed (exit code " +
            std::to_string(rc) + ")" + (message.empty() ? "" : ": " + message) +
            (log.empty() ? "" : "\n" + log);
    return std::nullopt;
  }
  auto buffer = llvm::MemoryBuffer::getFile(sharedObjectFile.path);
  if (!buffer) {
    error = "cannot read the linked shared object";
    return std::nullopt;
  }
  StringRef bytes = (*buffer)->getBuffer();
  return SmallVector<char, 0>(bytes.begin(), bytes.end());
}

namespace {

struct BooROCDLSerializePass
    : public mlir::boo::impl::BooROCDLSerializeBase<BooROCDLSerializePass> {
  using Base::Base;
  BooROCDLSerializePass(const mlir::boo::BooROCDLSerializeOptions &options,
                        mlir::boo::ROCDLSerializeHooks hooks)
      : Base(options), hooks(std::move(hooks)) {}

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    mlir::boo::registerROCDLSerializationInterfaces(registry);
  }

  void runOnOperation() override {
    std::string lldPath =
        lld.empty() ? mlir::boo::findDefaultLLD() : lld.getValue();
    SmallVector<gpu::GPUModuleOp> kernels(
        getOperation().getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp kernel : kernels)
      if (failed(serialize(kernel, lldPath)))
        return signalPassFailure();
    recordKernelABI();
  }

  /// Attaches `boo.kernel_abi` to every launch of a serialized kernel: what
  /// a runtime needs to launch it without looking at the IR again (see
  /// docs/GPUPipeline.md, "Kernel ABI").
  void recordKernelABI() {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Builder b(ctx);
    for (auto func : module.getOps<func::FuncOp>()) {
      DenseMap<Value, int64_t> temporaries;
      func.walk([&](gpu::AllocOp alloc) {
        temporaries.try_emplace(alloc.getMemref(), temporaries.size());
      });
      func.walk([&](gpu::LaunchFuncOp launch) {
        auto binary =
            module.lookupSymbol<gpu::BinaryOp>(launch.getKernelModuleName());
        if (!binary)
          return;
        SmallVector<Attribute> args;
        for (Value operand : launch.getKernelOperands()) {
          std::string name = "?";
          if (auto arg = dyn_cast<BlockArgument>(operand);
              arg && arg.getOwner()->getParentOp() == func)
            name = "arg" + std::to_string(arg.getArgNumber());
          else if (temporaries.count(operand))
            name = "tmp" + std::to_string(temporaries.lookup(operand));
          args.push_back(b.getStringAttr(name));
        }
        auto sizes = [&](gpu::KernelDim3 dims) -> Attribute {
          SmallVector<int64_t> values;
          for (Value v : {dims.x, dims.y, dims.z})
            values.push_back(getConstantIntValue(v).value_or(-1));
          return b.getDenseI64ArrayAttr(values);
        };
        int64_t dynamicLDS = 0;
        if (Value lds = launch.getDynamicSharedMemorySize())
          dynamicLDS = getConstantIntValue(lds).value_or(-1);
        NamedAttrList abi;
        abi.append("args", b.getArrayAttr(args));
        abi.append("grid", sizes(launch.getGridSizeOperandValues()));
        abi.append("workgroup", sizes(launch.getBlockSizeOperandValues()));
        abi.append("dynamic_lds_bytes", b.getI64IntegerAttr(dynamicLDS));
        for (Attribute attr : binary.getObjects()) {
          auto object = cast<gpu::ObjectAttr>(attr);
          gpu::KernelMetadataAttr kernel =
              object.getKernels()
                  ? object.getKernels().lookup(launch.getKernelName())
                  : gpu::KernelMetadataAttr();
          DictionaryAttr md = kernel ? kernel.getMetadata() : DictionaryAttr();
          if (!md)
            continue;
          if (auto lds = md.getAs<IntegerAttr>("group_segment_fixed_size"))
            abi.append("static_lds_bytes", lds);
          if (auto kernarg = md.getAs<IntegerAttr>("kernarg_segment_size"))
            abi.append("kernarg_bytes", kernarg);
        }
        launch->setAttr("boo.kernel_abi", abi.getDictionary(ctx));
      });
    }
  }

  /// The optimized LLVM IR, as the serializer's offload format (bitcode
  /// after the LLVM pipeline) gives it. (The serializer does not forward
  /// TargetOptions' IR callbacks on this path, so this compiles twice; only
  /// tools that asked for the IR pay for it.)
  LogicalResult reportLLVMIR(gpu::GPUModuleOp kernel,
                             gpu::TargetAttrInterface serializer,
                             ROCDL::ROCDLTargetAttr target,
                             function_ref<SymbolTable *()> symbolTable) {
    gpu::TargetOptions options(
        /*toolkitPath=*/{}, /*librariesToLink=*/{}, /*cmdOptions=*/{},
        /*elfSection=*/{}, gpu::CompilationTarget::Offload, symbolTable);
    std::optional<SmallVector<char, 0>> bitcode =
        serializer.serializeToObject(kernel, options);
    if (!bitcode)
      return kernel.emitError() << "boo-rocdl-serialize: cannot produce the "
                                   "LLVM IR of the kernel module";
    llvm::LLVMContext context;
    llvm::Expected<std::unique_ptr<llvm::Module>> module =
        llvm::parseBitcodeFile(
            llvm::MemoryBufferRef(StringRef(bitcode->data(), bitcode->size()),
                                  kernel.getName()),
            context);
    if (!module)
      return kernel.emitError()
             << "boo-rocdl-serialize: " << llvm::toString(module.takeError());
    std::string text;
    llvm::raw_string_ostream os(text);
    (*module)->print(os, /*AAW=*/nullptr);
    hooks.onLLVMIR(kernel.getName(), target.getChip(), text);
    return success();
  }

  LogicalResult serialize(gpu::GPUModuleOp kernel, StringRef lldPath) {
    ArrayAttr targets = kernel.getTargetsAttr();
    if (!targets || targets.empty())
      return kernel.emitError() << "boo-rocdl-serialize: the gpu.module has "
                                   "no target; run rocdl-attach-target first";
    MLIRContext *ctx = kernel.getContext();
    std::optional<SymbolTable> parentTable;
    auto symbolTable = [&]() -> SymbolTable * {
      if (!parentTable)
        parentTable.emplace(getOperation());
      return &*parentTable;
    };

    SmallVector<Attribute> objects;
    for (Attribute target : targets) {
      auto rocdlTarget = dyn_cast<ROCDL::ROCDLTargetAttr>(target);
      auto serializer = dyn_cast<gpu::TargetAttrInterface>(target);
      if (!rocdlTarget || !serializer)
        return kernel.emitError()
               << "boo-rocdl-serialize: unsupported target " << target;

      gpu::TargetOptions options(
          /*toolkitPath=*/{}, /*librariesToLink=*/{}, /*cmdOptions=*/{},
          /*elfSection=*/{}, gpu::CompilationTarget::Assembly, symbolTable);
      std::optional<SmallVector<char, 0>> isa =
          serializer.serializeToObject(kernel, options);
      if (!isa)
        return kernel.emitError()
               << "boo-rocdl-serialize: LLVM could not compile the kernel "
                  "module for "
               << rocdlTarget.getChip();
      if (hooks.onLLVMIR &&
          failed(reportLLVMIR(kernel, serializer, rocdlTarget, symbolTable)))
        return failure();
      StringRef isaText(isa->data(), isa->size());
      if (hooks.onISA)
        hooks.onISA(kernel.getName(), rocdlTarget.getChip(), isaText);

      FailureOr<SmallVector<char, 0>> object = ROCDL::assembleIsa(
          isaText, rocdlTarget.getTriple(), rocdlTarget.getChip(),
          rocdlTarget.getFeatures(), [&]() { return kernel.emitError(); });
      if (failed(object))
        return failure();
      // `ld.lld -shared`: the link HIP's code objects get.
      std::string linkError;
      std::optional<SmallVector<char, 0>> codeObject =
          mlir::boo::linkSharedObject(lldPath, *object, {}, linkError);
      if (!codeObject)
        return kernel.emitError()
               << "boo-rocdl-serialize: " << linkError
               << (lldPath.empty() ? "; pass lld=<path>" : "");

      // The kernel table carries the amdhsa.kernels metadata (register and
      // scratch use, spills) that boo-verify-rocdl-contract checks.
      gpu::KernelTableAttr table =
          ROCDL::getKernelMetadata(kernel, *codeObject);
      // boo-gpu-count-ops' counts travel with each kernel's metadata (the
      // performance estimate reads them there).
      if (table) {
        SmallVector<gpu::KernelMetadataAttr> kernels;
        for (gpu::KernelMetadataAttr md : table) {
          // The kernel is an llvm.func by now; it kept the attribute.
          Operation *func = kernel.lookupSymbol(md.getName());
          Attribute counts = func ? func->getAttr("boo.op_counts") : nullptr;
          kernels.push_back(
              counts ? md.appendMetadata({NamedAttribute(
                           StringAttr::get(ctx, "boo.op_counts"), counts)})
                     : md);
        }
        table = gpu::KernelTableAttr::get(ctx, kernels);
      }
      objects.push_back(gpu::ObjectAttr::get(
          ctx, target, gpu::CompilationTarget::Binary,
          StringAttr::get(ctx,
                          StringRef(codeObject->data(), codeObject->size())),
          /*properties=*/nullptr, table));
    }

    OpBuilder builder(kernel);
    gpu::BinaryOp::create(builder, kernel.getLoc(), kernel.getName(),
                          /*offloadingHandler=*/nullptr, objects);
    kernel.erase();
    return success();
  }

  mlir::boo::ROCDLSerializeHooks hooks;
};

} // namespace

std::unique_ptr<Pass> mlir::boo::createBooROCDLSerializeWithHooks(
    const BooROCDLSerializeOptions &options, ROCDLSerializeHooks hooks) {
  return std::make_unique<BooROCDLSerializePass>(options, std::move(hooks));
}
