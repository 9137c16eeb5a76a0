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
//   boo-translate --mlir-to-llvmir in.mlir [-o out.ll]
//     Any translation registered with mlirTranslateMain (file in, file out).
//     Later targets (HSACO, ISA) register here as well.
//
//===----------------------------------------------------------------------===//

#include "Boo/Import/MIOpenImport.h"
#include "Boo/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

constexpr llvm::StringLiteral importFlag = "import-miopen";

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
      boo::importMIOpenCommand(&context, text, error);
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
        boo::registerAllDialects(registry);
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
  }

  registerBooTranslations();
  LogicalResult result = mlirTranslateMain(
      argc, argv,
      "Boo translation driver\n\n"
      "  boo-translate --import-miopen \"<MIOpenDriver command>\" [-o "
      "out.mlir]\n"
      "      imports one MIOpenDriver command line (see "
      "docs/MIOpenImport.md)\n"
      "  boo-translate --<translation> <input> [-o <output>]\n"
      "      runs one of the translations below\n");
  return failed(result) ? 1 : 0;
}
