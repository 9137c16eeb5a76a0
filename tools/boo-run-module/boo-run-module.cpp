//===- boo-run-module.cpp - Compile and run one function ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The iree-run-module of Boo: compiles a function of an MLIR module for a
// device, runs it on tensors given on the command line or in .npy files, and
// prints, saves or checks its results.
//
//   boo-run-module --module=add.mlir --function=add --device=cpu \
//     --input="2x3xf32=[1 2 3][4 5 6]" --input=@b.npy \
//     --output=@sum.npy --expected_output="2x3xf32=2"
//
// See docs/RunModule.md.
//
//===----------------------------------------------------------------------===//

#include "Boo/InitAll.h"
#include "Boo/Runner/CPUExecutable.h"
#include "Boo/Runner/TensorIO.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::boo;

namespace {
llvm::cl::OptionCategory runCategory("boo-run-module options");

llvm::cl::opt<std::string>
    moduleFile("module", llvm::cl::desc("MLIR file to run ('-': stdin)"),
               llvm::cl::value_desc("FILE"), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> functionName(
    "function",
    llvm::cl::desc("Public function to run (may be omitted when the module "
                   "has only one)"),
    llvm::cl::value_desc("NAME"), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> device("device",
                                  llvm::cl::desc("Device to run on: cpu"),
                                  llvm::cl::init("cpu"),
                                  llvm::cl::cat(runCategory));
llvm::cl::list<std::string>
    inputs("input",
           llvm::cl::desc("An input, in order: SHAPExTYPE=VALUES (e.g. "
                          "\"2x2xf32=[1 2][3 4]\", one value is a splat), "
                          "SHAPExTYPE=@raw.bin or @file.npy"),
           llvm::cl::value_desc("TENSOR"), llvm::cl::cat(runCategory));
llvm::cl::list<std::string>
    outputs("output",
            llvm::cl::desc("What to do with a result, in order: '-' print (the "
                           "default), '' discard, @file.npy save"),
            llvm::cl::value_desc("-|@FILE.npy"), llvm::cl::cat(runCategory));
llvm::cl::list<std::string> expectedOutputs(
    "expected_output",
    llvm::cl::desc("Expected value of a result, in order, in --input syntax; "
                   "a mismatch fails the run"),
    llvm::cl::value_desc("TENSOR"), llvm::cl::cat(runCategory));
llvm::cl::opt<double>
    rtol("rtol", llvm::cl::desc("Relative tolerance of --expected_output"),
         llvm::cl::init(1e-5), llvm::cl::cat(runCategory));
llvm::cl::opt<double>
    atol("atol", llvm::cl::desc("Absolute tolerance of --expected_output"),
         llvm::cl::init(1e-6), llvm::cl::cat(runCategory));
llvm::cl::opt<int64_t> printMaxElements(
    "print_max_element_count",
    llvm::cl::desc("Elements printed per result before eliding with '...'"),
    llvm::cl::init(kDefaultMaxPrintElements), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> pipelineOptions(
    "cpu-pipeline-options",
    llvm::cl::desc("Options of boo-to-llvm-cpu, e.g. \"vectorize=false\""),
    llvm::cl::value_desc("OPTIONS"), llvm::cl::cat(runCategory));
llvm::cl::opt<bool> printTiming(
    "print-timing",
    llvm::cl::desc("Print the compile time (pipeline, JIT) and the run time "
                   "to stderr"),
    llvm::cl::cat(runCategory));
llvm::cl::opt<unsigned> repeat(
    "repeat",
    llvm::cl::desc("Run the function N times (for --print-timing: the "
                   "fastest and the median run); results are from the last"),
    llvm::cl::init(1), llvm::cl::value_desc("N"), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> dumpObjectFile(
    "dump-object-file",
    llvm::cl::desc("Write the compiled object code to FILE (for objdump)"),
    llvm::cl::value_desc("FILE"), llvm::cl::cat(runCategory));

int fail(const Twine &message) {
  llvm::errs() << "boo-run-module: error: " << message << "\n";
  return 1;
}

/// A .npy has no bf16 and f16 data is often produced in f32: an f32 .npy is
/// rounded (to nearest even) for an f16/bf16 signature. Other mismatches are
/// left for the signature checks to report.
HostTensor adaptNpy(HostTensor tensor, StringRef spec,
                    const TensorSignature &signature) {
  if (spec.trim().starts_with("@") && tensor.type == ElementType::F32 &&
      (signature.type == ElementType::BF16 ||
       signature.type == ElementType::F16))
    return tensor.convertTo(signature.type);
  return tensor;
}

std::string listSignatures(ArrayRef<TensorSignature> signatures) {
  std::string result;
  for (const TensorSignature &signature : signatures)
    result += (result.empty() ? "" : ", ") + signature.toString();
  return result;
}

/// Parses each flag value of `specs` (named `flag` in messages).
LogicalResult parseTensors(ArrayRef<std::string> specs, StringRef flag,
                           std::vector<HostTensor> &tensors,
                           std::string &error) {
  for (auto [i, spec] : llvm::enumerate(specs)) {
    FailureOr<HostTensor> tensor = parseTensor(spec, error);
    if (failed(tensor)) {
      error = flag.str() + " #" + std::to_string(i) + ": " + error;
      return failure();
    }
    tensors.push_back(std::move(*tensor));
  }
  return success();
}

int run() {
  if (moduleFile.empty())
    return fail("--module=FILE is required");
  if (device != "cpu")
    return fail("device '" + device + "' is not supported yet; available: cpu");
  if (repeat < 1)
    return fail("--repeat must be at least 1");

  // The flags first: a typo in a value should not wait for a compile.
  std::string errorMessage;
  std::vector<HostTensor> args, expected;
  if (failed(parseTensors(inputs, "--input", args, errorMessage)) ||
      failed(parseTensors(expectedOutputs, "--expected_output", expected,
                          errorMessage)))
    return fail(errorMessage);
  for (auto [i, spec] : llvm::enumerate(outputs))
    if (!spec.empty() && spec != "-" && !StringRef(spec).starts_with("@"))
      return fail("--output #" + std::to_string(i) +
                  ": expected '-' (print), '' (discard) or @FILE.npy, got '" +
                  spec + "'");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  auto file = openInputFile(moduleFile, &errorMessage);
  if (!file)
    return fail("cannot read '" + moduleFile + "': " + errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module;
  {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return fail("cannot parse '" + moduleFile + "'");

  std::vector<std::string> publicNames =
      CPUExecutable::getPublicFunctionNames(*module);
  if (functionName.empty() && publicNames.size() != 1) {
    std::string names;
    for (const std::string &name : publicNames)
      names += (names.empty() ? "@" : ", @") + name;
    if (publicNames.empty())
      return fail("'" + moduleFile + "' has no public function to run");
    return fail("'" + moduleFile + "' has " +
                std::to_string(publicNames.size()) + " public functions (" +
                names + "); pick one with --function=NAME");
  }

  CPUPipelineOptions options;
  if (!pipelineOptions.empty() &&
      failed(options.parseFromString(pipelineOptions)))
    return fail("invalid --cpu-pipeline-options '" + pipelineOptions + "'");
  CPUCompileDebugOptions debugOptions;
  debugOptions.configurePassManager = [](PassManager &pm) {
    applyDefaultTimingPassManagerCLOptions(pm);
    return applyPassManagerCLOptions(pm);
  };
  debugOptions.keepObjectFile = !dumpObjectFile.empty();
  std::unique_ptr<CPUExecutable> executable = CPUExecutable::compile(
      std::move(module), functionName, options, debugOptions, errorMessage);
  if (!executable)
    return fail(errorMessage);
  const std::string &name = executable->getFunctionName();
  if (printTiming) {
    const CPUCompileTimes &times = executable->getCompileTimes();
    llvm::errs() << llvm::format(
        "boo-run-module: compiled @%s in %.1f ms (pipeline %.1f ms, JIT "
        "%.1f ms)\n",
        name.c_str(), (times.pipeline + times.jit) * 1e3, times.pipeline * 1e3,
        times.jit * 1e3);
  }
  if (!dumpObjectFile.empty() &&
      failed(executable->dumpObjectFile(dumpObjectFile, errorMessage)))
    return fail(errorMessage);

  // Match the flags with the signature.
  const std::vector<TensorSignature> &signature = executable->getInputs();
  const std::vector<TensorSignature> &resultSignature =
      executable->getResults();
  if (args.size() != signature.size())
    return fail("@" + name + " takes " + std::to_string(signature.size()) +
                " input(s) (" + listSignatures(signature) + "), got " +
                std::to_string(args.size()) + " --input");
  for (auto [i, arg] : llvm::enumerate(args))
    arg = adaptNpy(std::move(arg), inputs[i], signature[i]);
  if (failed(executable->checkInputs(args, errorMessage)))
    return fail(errorMessage);
  if (outputs.size() > resultSignature.size())
    return fail("@" + name + " has " + std::to_string(resultSignature.size()) +
                " result(s), got " + std::to_string(outputs.size()) +
                " --output");
  if (!expected.empty() && expected.size() != resultSignature.size())
    return fail("@" + name + " has " + std::to_string(resultSignature.size()) +
                " result(s) (" + listSignatures(resultSignature) + "), got " +
                std::to_string(expected.size()) + " --expected_output");
  for (auto [i, value] : llvm::enumerate(expected)) {
    value = adaptNpy(std::move(value), expectedOutputs[i], resultSignature[i]);
    if (value.shape != resultSignature[i].shape ||
        value.type != resultSignature[i].type)
      return fail("--expected_output #" + std::to_string(i) + ": result " +
                  std::to_string(i) + " of @" + name + " is " +
                  resultSignature[i].toString() + ", got " +
                  value.getTypeString());
  }

  llvm::outs() << "EXEC @" << name << "\n";
  std::vector<HostTensor> results;
  std::vector<double> runSeconds;
  for (unsigned i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (failed(executable->invoke(args, results, errorMessage)))
      return fail(errorMessage);
    runSeconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  if (printTiming) {
    llvm::sort(runSeconds);
    llvm::errs() << llvm::format(
        "boo-run-module: ran @%s in %.3f ms (fastest of %u; median %.3f "
        "ms)\n",
        name.c_str(), runSeconds.front() * 1e3, repeat.getValue(),
        runSeconds[runSeconds.size() / 2] * 1e3);
  }

  for (auto [i, result] : llvm::enumerate(results)) {
    StringRef spec = i < outputs.size() ? StringRef(outputs[i]) : "-";
    if (spec == "-") {
      llvm::outs() << "result[" << i << "]: ";
      printTensor(result, llvm::outs(), printMaxElements);
      llvm::outs() << "\n";
    } else if (spec.consume_front("@")) {
      if (failed(writeNpyFile(result, spec, errorMessage)))
        return fail("--output #" + std::to_string(i) + ": " + errorMessage);
    }
  }

  if (expected.empty())
    return 0;
  bool allMatched = true;
  for (auto [i, result] : llvm::enumerate(results)) {
    if (succeeded(
            compareTensors(result, expected[i], rtol, atol, errorMessage)))
      continue;
    allMatched = false;
    llvm::outs() << "[FAILED] result[" << i << "]: " << errorMessage << "\n";
  }
  if (!allMatched)
    return 1;
  llvm::outs() << "[SUCCESS] all function outputs matched their expected "
                  "values.\n";
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // Pass names for --mlir-print-ir-after=... and friends.
  registerAllPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  // libLLVM's hundreds of options would bury ours; --help-hidden lists them.
  llvm::cl::HideUnrelatedOptions(runCategory);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "Boo module runner: compiles one function and runs it on the given "
      "inputs\n\n"
      "MLIR's debugging options (--mlir-print-ir-after-all, --mlir-timing, "
      "--mlir-disable-threading, ...) are accepted too; --help-hidden lists "
      "them.\n");
  int rc = run();
  llvm::outs().flush();
  return rc;
}
