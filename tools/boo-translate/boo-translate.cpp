//===- boo-translate.cpp - Boo translation driver -------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Two kinds of translation:
//
//   boo-translate --import-miopen "convbfp16 -n 2 -c 8 ..." [-o out.mlir]
//     Imports one MIOpenDriver command line. Unlike the translations below,
//     the positional argument is the command itself, not a file ('-' or no
//     argument: read the command from stdin), so it is handled here before
//     mlirTranslateMain sees the arguments.
//
//   boo-translate --emit-module [--targets=cpu,gfx942] in.mlir -o m.boomod
//     Compiles the module for each target into one compiled-module file
//     (EmitModule.cpp, docs/ModuleFormat.md).
//
//   boo-translate --mlir-to-llvmir in.mlir [-o out.ll]
//     Any translation registered with mlirTranslateMain (file in, file out).
//
//   boo-translate --emit-hsaco=<dir|file.hsaco> [--targets=gfx942] in.mlir
//   boo-translate --emit-isa    [--targets=gfx942] in.mlir [-o out.s]
//   boo-translate --emit-llvmir [--targets=gfx942] in.mlir [-o out.ll]
//     The AMD GPU outputs of a module (docs/GPUPipeline.md). A module that
//     boo-to-rocdl has compiled (it holds gpu.binary ops) gives its code
//     objects, and its ISA by disassembly. Any other module (Boo ops, linalg)
//     is compiled with boo-to-rocdl first; the ISA is then the compiler's
//     (with the .amdhsa_* directives) and the LLVM IR is available.
//
//===----------------------------------------------------------------------===//

#include "EmitModule.h"

#include "Boo/Codegen/GPU/Pipelines.h"
#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"
#include "Boo/Target/ChipInfo.h"
#include "Boo/Target/ROCDL/PerfEstimate.h"
#include "Boo/Target/ROCDL/ROCDLSerialize.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

constexpr llvm::StringLiteral importFlag = "import-miopen";
constexpr llvm::StringLiteral emitFlags[] = {"emit-hsaco", "emit-isa",
                                             "emit-llvmir", "emit-perf-report"};

int reportError(const llvm::Twine &message) {
  llvm::errs() << "boo-translate: error: " << message << "\n";
  return 1;
}

/// `boo-translate --import-miopen [command | -] [-o file]`.
int importMIOpenMain(int argc, char **argv) {
  // These options exist only in this mode, so they never clash with the ones
  // mlirTranslateMain registers.
  llvm::cl::OptionCategory category("MIOpen import options");
  llvm::cl::opt<bool> import(
      "import-miopen",
      llvm::cl::desc("Import one MIOpenDriver command line as Boo MLIR"),
      llvm::cl::cat(category));
  llvm::cl::opt<std::string> command(
      llvm::cl::Positional,
      llvm::cl::desc("<MIOpenDriver command, quoted as one argument; '-' or "
                     "absent: read it from stdin>"),
      llvm::cl::init("-"), llvm::cl::cat(category));
  llvm::cl::opt<std::string> outputFilename(
      "o", llvm::cl::desc("Output filename (default: stdout)"),
      llvm::cl::value_desc("filename"), llvm::cl::init("-"),
      llvm::cl::cat(category));
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "Boo translation driver: MIOpenDriver command line -> Boo MLIR\n\n"
      "  boo-translate --import-miopen \"convbfp16 -n 2 -c 8 -H 9 -W 9 -k 16 "
      "-F 1\" -o conv.mlir\n");

  std::string text = command;
  if (command == "-") {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> input =
        llvm::MemoryBuffer::getSTDIN();
    if (std::error_code ec = input.getError())
      return reportError("cannot read the command from stdin: " + ec.message());
    text = (*input)->getBuffer().str();
  }

  MLIRContext context;
  std::string error;
  FailureOr<OwningOpRef<ModuleOp>> module =
      mlir::boo::importMIOpenCommand(&context, text, error);
  if (failed(module))
    return reportError(error);

  std::string fileError;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &fileError);
  if (!output)
    return reportError(fileError);
  (*module)->print(output->os());
  output->keep();
  return 0;
}

/// One kernel's outputs, in pipeline order.
struct KernelOutput {
  std::string module, chip, llvmIR, isa;
  std::string codeObject;
};

/// Writes `contents` to `path`.
LogicalResult writeFile(StringRef path, StringRef contents) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file) {
    reportError(error);
    return failure();
  }
  file->os() << contents;
  file->keep();
  return success();
}

/// Runs boo-to-rocdl for `chip` on `module`, keeping each kernel's LLVM IR
/// and ISA in `kernels` on the way.
LogicalResult compileKeepingKernels(ModuleOp module, StringRef chip,
                                    int64_t optLevel, StringRef tuningSpec,
                                    std::vector<KernelOutput> &kernels) {
  mlir::boo::ROCDLPipelineOptions options;
  options.chip = chip.str();
  options.optLevel = optLevel;
  options.tuningSpec = tuningSpec.str();
  mlir::boo::ROCDLSerializeHooks hooks;
  auto kernelFor = [&](StringRef name) -> KernelOutput & {
    if (kernels.empty() || kernels.back().module != name)
      kernels.push_back({name.str(), chip.str(), "", "", ""});
    return kernels.back();
  };
  hooks.onLLVMIR = [&](StringRef name, StringRef, StringRef ir) {
    kernelFor(name).llvmIR = ir.str();
  };
  hooks.onISA = [&](StringRef name, StringRef, StringRef isa) {
    kernelFor(name).isa = isa.str();
  };
  PassManager pm(module.getContext());
  mlir::boo::buildROCDLPipeline(pm, options, hooks);
  return pm.run(module);
}

/// `boo-translate --emit-{hsaco,isa,llvmir}`.
int emitMain(int argc, char **argv) {
  llvm::cl::OptionCategory category("AMD GPU output options");
  llvm::cl::opt<std::string> emitHsaco(
      "emit-hsaco",
      llvm::cl::desc("Write each kernel's HSACO code object: into this "
                     "directory as <kernel>.hsaco, or to this file when it "
                     "ends in .hsaco (one kernel only)"),
      llvm::cl::value_desc("dir|file.hsaco"), llvm::cl::cat(category));
  llvm::cl::opt<bool> emitIsa(
      "emit-isa", llvm::cl::desc("Print each kernel's ISA (AMDGPU assembly)"),
      llvm::cl::cat(category));
  llvm::cl::opt<bool> emitPerfReport(
      "emit-perf-report",
      llvm::cl::desc("Print each kernel's performance ESTIMATE on the chip "
                     "(a roofline of the compiled code; docs/PerfModel.md)"),
      llvm::cl::cat(category));
  llvm::cl::opt<bool> emitLLVMIR(
      "emit-llvmir",
      llvm::cl::desc("Print each kernel's optimized LLVM IR (needs a module "
                     "that is not compiled yet)"),
      llvm::cl::cat(category));
  // --targets, as for --emit-module (one AMD GPU chip here); --chip is the
  // old spelling.
  llvm::cl::list<std::string> targets(
      "targets",
      llvm::cl::desc("The AMD GPU chip to compile for (boo-to-rocdl "
                     "chip=; default gfx942)"),
      llvm::cl::CommaSeparated, llvm::cl::value_desc("gfx942"),
      llvm::cl::cat(category));
  llvm::cl::alias chipAlias("chip", llvm::cl::aliasopt(targets),
                            llvm::cl::desc("Old spelling of --targets"),
                            llvm::cl::Hidden);
  llvm::cl::opt<int64_t> optLevel(
      "opt-level", llvm::cl::desc("LLVM optimization level when compiling"),
      llvm::cl::init(3), llvm::cl::cat(category));
  llvm::cl::opt<std::string> tuningSpec(
      "tuning-spec", llvm::cl::desc("Tuning spec when compiling"),
      llvm::cl::init(""), llvm::cl::cat(category));
  llvm::cl::opt<std::string> inputFilename(
      llvm::cl::Positional, llvm::cl::desc("<input module>"),
      llvm::cl::init("-"), llvm::cl::cat(category));
  llvm::cl::opt<std::string> outputFilename(
      "o",
      llvm::cl::desc("Output file for --emit-isa/--emit-llvmir "
                     "(default: stdout)"),
      llvm::cl::value_desc("filename"), llvm::cl::init("-"),
      llvm::cl::cat(category));
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "Boo translation driver: AMD GPU code objects, ISA and LLVM IR\n\n"
      "  boo-translate --emit-hsaco=out/ --targets=gfx942 conv.mlir\n"
      "  boo-opt conv.mlir --boo-to-rocdl | boo-translate --emit-isa\n");
  if (int(emitIsa) + int(emitLLVMIR) + int(emitPerfReport) > 1)
    return reportError("--emit-isa, --emit-llvmir and --emit-perf-report "
                       "print to the same output; pass one of them");
  if (targets.size() > 1)
    return reportError("--targets: --emit-hsaco, --emit-isa and --emit-llvmir "
                       "compile for one AMD GPU chip, got " +
                       std::to_string(targets.size()) +
                       " targets (--emit-module takes several)");
  std::string chip = targets.empty() ? "gfx942" : targets.front();

  DialectRegistry registry;
  mlir::boo::registerAllDialects(registry);
  mlir::boo::registerROCDLSerializationInterfaces(registry);
  MLIRContext context(registry);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input)
    return reportError(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  // Not compiled yet: run boo-to-rocdl, keeping each kernel's LLVM IR and
  // ISA on the way.
  std::vector<KernelOutput> kernels;
  bool compiled = !module->getOps<gpu::BinaryOp>().empty();
  if (!compiled) {
    if (failed(compileKeepingKernels(*module, chip, optLevel, tuningSpec,
                                     kernels)))
      return 1;
  } else if (emitLLVMIR) {
    return reportError("the module is already compiled (it holds "
                       "gpu.binary ops); --emit-llvmir needs the module "
                       "before boo-to-rocdl, e.g. the Boo source");
  }

  // The code objects, in the order of the module's binaries.
  size_t next = 0;
  for (auto binary : module->getOps<gpu::BinaryOp>()) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      auto target = object
                        ? dyn_cast<ROCDL::ROCDLTargetAttr>(object.getTarget())
                        : ROCDL::ROCDLTargetAttr();
      if (!target || object.getFormat() != gpu::CompilationTarget::Binary)
        continue;
      if (next == kernels.size())
        kernels.push_back(
            {binary.getName().str(), target.getChip().str(), "", "", ""});
      KernelOutput &kernel = kernels[next++];
      kernel.codeObject = object.getObject().getValue().str();
      if (compiled && (emitIsa || emitPerfReport)) {
        llvm::raw_string_ostream os(kernel.isa);
        if (failed(mlir::boo::disassembleCodeObject(kernel.codeObject,
                                                    kernel.chip, os, error)))
          return reportError("cannot disassemble '" + kernel.module +
                             "': " + error);
      }
    }
  }
  if (kernels.empty())
    return reportError("the module has no kernel");

  if (!emitHsaco.empty()) {
    bool toFile = StringRef(emitHsaco).ends_with(".hsaco");
    if (toFile && kernels.size() != 1)
      return reportError("--emit-hsaco=" + emitHsaco +
                         " names one file, but "
                         "the module has " +
                         Twine(kernels.size()) + " kernels; pass a directory");
    if (!toFile)
      if (std::error_code ec = llvm::sys::fs::create_directories(emitHsaco))
        return reportError("cannot create '" + emitHsaco +
                           "': " + ec.message());
    for (const KernelOutput &kernel : kernels) {
      llvm::SmallString<128> path(emitHsaco);
      if (!toFile)
        llvm::sys::path::append(path, kernel.module + ".hsaco");
      if (failed(writeFile(path, kernel.codeObject)))
        return 1;
      llvm::outs() << path << "\n";
    }
  }
  if (emitPerfReport) {
    const mlir::boo::ChipInfo *chipInfo =
        mlir::boo::lookupChip(kernels.front().chip);
    if (!chipInfo)
      return reportError(
          mlir::boo::getUnsupportedChipMessage(kernels.front().chip));
    llvm::StringMap<std::string> isaByKernel;
    for (const KernelOutput &kernel : kernels)
      isaByKernel[kernel.module] = kernel.isa;
    FailureOr<std::vector<mlir::boo::KernelEstimate>> estimates =
        mlir::boo::estimateKernels(*module, *chipInfo, isaByKernel, error);
    if (failed(estimates))
      return reportError(error);
    std::string text;
    llvm::raw_string_ostream os(text);
    mlir::boo::printPerfReport(os, *chipInfo, *estimates);
    if (failed(writeFile(outputFilename, text)))
      return 1;
  }
  if (emitIsa || emitLLVMIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    // ';' starts a comment in both AMDGPU assembly and LLVM IR.
    for (const KernelOutput &kernel : kernels)
      os << "; ---- kernel module @" << kernel.module << " (" << kernel.chip
         << ")\n"
         << (emitIsa ? kernel.isa : kernel.llvmIR) << "\n";
    if (failed(writeFile(outputFilename, text)))
      return 1;
  }
  return 0;
}

/// Translations run through mlirTranslateMain.
void registerBooTranslations() {
  // Like upstream's registerToLLVMIRTranslation, but the input may use any
  // dialect the Boo pipelines produce.
  static TranslateFromMLIRRegistration toLLVMIR(
      "mlir-to-llvmir", "Translate an LLVM-dialect module to LLVM IR",
      [](Operation *op, llvm::raw_ostream &output) {
        llvm::LLVMContext llvmContext;
        std::unique_ptr<llvm::Module> llvmModule =
            translateModuleToLLVMIR(op, llvmContext);
        if (!llvmModule)
          return failure();
        llvmModule->print(output, nullptr);
        return success();
      },
      [](DialectRegistry &registry) {
        mlir::boo::registerAllDialects(registry);
        mlir::boo::registerROCDLSerializationInterfaces(registry);
        registerAllToLLVMIRTranslations(registry);
      });
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--") // Everything after is positional.
      break;
    if (arg.ltrim('-') == importFlag && arg.starts_with("-"))
      return importMIOpenMain(argc, argv);
    StringRef flag = arg.ltrim('-').split('=').first;
    if (arg.starts_with("-") && llvm::is_contained(emitFlags, flag))
      return emitMain(argc, argv);
    if (arg.starts_with("-") && flag == "emit-module")
      return mlir::boo::emitModuleMain(argc, argv);
  }

  registerBooTranslations();
  LogicalResult result = mlirTranslateMain(
      argc, argv,
      "Boo translation driver\n\n"
      "  boo-translate --import-miopen \"<MIOpenDriver command>\" [-o "
      "out.mlir]\n"
      "      imports one MIOpenDriver command line (see "
      "docs/MIOpenImport.md)\n"
      "  boo-translate --emit-hsaco=<dir> | --emit-isa | --emit-llvmir "
      "[--targets=gfx942] <input>\n"
      "      AMD GPU code objects, ISA or LLVM IR (see docs/GPUPipeline.md)\n"
      "  boo-translate --emit-module [--targets=cpu,gfx942] <input> -o "
      "m.boomod\n"
      "      one compiled-module file for the runtime (see "
      "docs/ModuleFormat.md)\n"
      "  boo-translate --<translation> <input> [-o <output>]\n"
      "      runs one of the translations below\n");
  return failed(result) ? 1 : 0;
}
