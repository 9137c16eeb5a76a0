//===- EmitModule.cpp - boo-translate --emit-module -----------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
//   boo-translate --emit-module [--targets=cpu,gfx942,...] in.mlir -o m.boomod
//
// Compiles every public function of a Boo module for each target and writes
// one compiled-module file (docs/ModuleFormat.md) that boo-run-module and
// the runtime (runtime/include/boo_runtime.h) load without a compiler.
//
//===----------------------------------------------------------------------===//

#include "EmitModule.h"

#include "Boo/Artifact/ModuleArtifact.h"
#include "Boo/InitAll.h"
#include "Boo/Target/ROCDL/ROCDLSerialize.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int mlir::boo::emitModuleMain(int argc, char **argv) {
  llvm::cl::OptionCategory category("Compiled module options");
  llvm::cl::opt<bool> emitModule(
      "emit-module",
      llvm::cl::desc("Compile the module's public functions into one "
                     "compiled-module file (docs/ModuleFormat.md)"),
      llvm::cl::cat(category));
  llvm::cl::list<std::string> targets(
      "targets",
      llvm::cl::desc("Targets to compile for, comma-separated: cpu, AMD GPU "
                     "chips, and emu:<chip> for the SIMT emulator of a chip "
                     "(default: cpu)"),
      llvm::cl::CommaSeparated, llvm::cl::value_desc("cpu,gfx942,emu:gfx942"),
      llvm::cl::cat(category));
  llvm::cl::opt<std::string> tuningSpec(
      "tuning-spec", llvm::cl::desc("Tuning spec for the GPU targets"),
      llvm::cl::init(""), llvm::cl::cat(category));
  llvm::cl::opt<int64_t> optLevel(
      "opt-level", llvm::cl::desc("LLVM optimization level for GPU targets"),
      llvm::cl::init(3), llvm::cl::cat(category));
  llvm::cl::opt<bool> cpuLoopUnrolling(
      "cpu-loop-unrolling",
      llvm::cl::desc("cpu target: run LLVM's loop unrolling (off by default: "
                     "the pipeline unrolls what needs it)"),
      llvm::cl::init(false), llvm::cl::cat(category));
  llvm::cl::opt<bool> emuChecks(
      "emu-checks",
      llvm::cl::desc("emu:<chip> targets: guard every memory access and "
                     "report LDS accesses to the race detector"),
      llvm::cl::init(true), llvm::cl::cat(category));
  llvm::cl::opt<std::string> emuPlantBug(
      "emu-plant-bug",
      llvm::cl::desc("Test only: plant a bug in emu:<chip> kernels "
                     "(missing-barrier, off-by-one, mma-layout)"),
      llvm::cl::init(""), llvm::cl::Hidden, llvm::cl::cat(category));
  llvm::cl::opt<std::string> inputFilename(
      llvm::cl::Positional, llvm::cl::desc("<input module>"),
      llvm::cl::init("-"), llvm::cl::cat(category));
  llvm::cl::opt<std::string> outputFilename(
      "o", llvm::cl::desc("Output file (required; conventionally .boomod)"),
      llvm::cl::value_desc("filename"), llvm::cl::cat(category));
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "Boo translation driver: compiled modules\n\n"
      "  boo-translate --emit-module --targets=cpu,gfx942 conv.mlir "
      "-o conv.boomod\n");
  auto fail = [](const llvm::Twine &message) {
    llvm::errs() << "boo-translate: error: " << message << "\n";
    return 1;
  };
  if (outputFilename.empty())
    return fail("--emit-module writes a binary file: pass -o <file>");
  if (optLevel < 0 || optLevel > 3)
    return fail("--opt-level must be 0 to 3");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerROCDLSerializationInterfaces(registry);
  MLIRContext context(registry);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &error);
  if (!input)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  ArtifactOptions options;
  options.targets.assign(targets.begin(), targets.end());
  if (options.targets.empty())
    options.targets.push_back("cpu");
  options.tuningSpec = tuningSpec;
  options.gpuOptLevel = optLevel;
  options.cpuLoopUnrolling = cpuLoopUnrolling;
  options.emuChecks = emuChecks;
  options.emuPlantBug = emuPlantBug;
  options.producer = "boo-translate (LLVM " LLVM_VERSION_STRING ")";
  std::string bytes;
  if (!compileModuleArtifact(*module, options, bytes, error))
    return fail(error);
  std::unique_ptr<llvm::ToolOutputFile> file =
      openOutputFile(outputFilename, &error);
  if (!file)
    return fail(error);
  file->os() << bytes;
  file->os().flush();
  if (file->os().has_error())
    return fail("cannot write '" + outputFilename + "'");
  file->keep();
  return 0;
}
