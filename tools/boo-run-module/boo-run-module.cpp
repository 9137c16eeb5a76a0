//===- boo-run-module.cpp - Compile and run one function ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The iree-run-module of Boo: runs a function of a compiled module
// (boo-translate --emit-module) or of an MLIR module compiled for the device
// on tensors given on the command line or in .npy files, and prints, saves
// or checks its results.
//
//   boo-run-module --module=add.mlir --function=add --device=cpu \
//     --input="2x3xf32=[1 2 3][4 5 6]" --input=@b.npy \
//     --output=@sum.npy --expected_output="2x3xf32=2"
//   boo-run-module --module=conv.boomod --device=hip:0 --input=@x.npy ...
//
// MLIR is compiled in memory for the device's target, as boo-translate
// --emit-module would (lib/Artifact); every module then runs through the
// runtime's C API (RuntimeSession), on the CPU as on the emulator and GPUs.
//
// See docs/RunModule.md.
//
//===----------------------------------------------------------------------===//

#include "Boo/Artifact/ModuleArtifact.h"
#include "Boo/InitAll.h"
#include "Boo/Runner/RuntimeSession.h"
#include "Boo/Runner/TensorIO.h"
#include "Boo/Target/ROCDL/ROCDLSerialize.h"
#include "boo/ModuleFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

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

llvm::cl::opt<std::string> moduleFile(
    "module",
    llvm::cl::desc("Module to run: a compiled module (boo-translate "
                   "--emit-module) or MLIR, compiled for the device ('-': "
                   "stdin)"),
    llvm::cl::value_desc("FILE"), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> functionName(
    "function",
    llvm::cl::desc("Public function to run (may be omitted when the module "
                   "has only one)"),
    llvm::cl::value_desc("NAME"), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> device(
    "device",
    llvm::cl::desc("Device to run on: cpu, cpu:THREADS, emu:CHIP, hip or "
                   "hip:INDEX"),
    llvm::cl::init("cpu"), llvm::cl::cat(runCategory));
llvm::cl::opt<unsigned> benchmark(
    "benchmark",
    llvm::cl::desc("After one warm-up call, time N calls and print min, "
                   "median, max and mean per call (device events on GPUs, "
                   "a steady clock on the CPU)"),
    llvm::cl::init(0), llvm::cl::value_desc("N"), llvm::cl::cat(runCategory));
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
llvm::cl::opt<bool> cpuLoopUnrolling(
    "cpu-loop-unrolling",
    llvm::cl::desc("Run LLVM's loop unrolling on the cpu target's code "
                   "(default: off, as boo-translate)"),
    llvm::cl::init(false), llvm::cl::cat(runCategory));
llvm::cl::opt<bool> printTiming(
    "print-timing",
    llvm::cl::desc("Print the compile time and the run time to stderr"),
    llvm::cl::cat(runCategory));
llvm::cl::opt<unsigned> repeat(
    "repeat",
    llvm::cl::desc("Run the function N times (for --print-timing: the "
                   "fastest and the median run); results are from the last"),
    llvm::cl::init(1), llvm::cl::value_desc("N"), llvm::cl::cat(runCategory));
llvm::cl::opt<std::string> dumpObjectFile(
    "dump-object-file",
    llvm::cl::desc("Write the host code object (an ELF shared object) to "
                   "FILE (for objdump)"),
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

/// Parses `--cpu-pipeline-options` into `options`.
LogicalResult parseCPUPipelineOptions(CPUPipelineOptions &options,
                                      std::string &error) {
  if (!pipelineOptions.empty() &&
      failed(options.parseFromString(pipelineOptions))) {
    error = "invalid --cpu-pipeline-options '" + pipelineOptions + "'";
    return failure();
  }
  return success();
}

/// Writes the host code object of the compiled module `bytes` (an ELF
/// shared object) to --dump-object-file.
LogicalResult dumpHostCodeObject(StringRef bytes, std::string &error) {
  ::boo::runtime::ModuleDesc desc;
  if (!::boo::runtime::parseModule(bytes.data(), bytes.size(), desc, error))
    return failure();
  for (const ::boo::runtime::FunctionDesc &function : desc.functions) {
    for (const ::boo::runtime::FunctionImpl &impl : function.impls) {
      if (desc.targets[impl.target].kind != ::boo::runtime::TargetKind::CPU ||
          impl.launches.empty())
        continue;
      std::string &object = desc.codeObjects[impl.launches[0].codeObject];
      std::error_code ec;
      llvm::raw_fd_ostream os(dumpObjectFile, ec);
      if (ec) {
        error = "--dump-object-file: cannot write '" + dumpObjectFile +
                "': " + ec.message();
        return failure();
      }
      os << object;
      return success();
    }
  }
  error = "--dump-object-file: the module has no host code object";
  return failure();
}

/// Compiles the MLIR module `mlir` for the device `session` opened into the
/// bytes of a compiled module, exactly as boo-translate --emit-module does:
/// every CPU run goes through the code the runtime ships.
LogicalResult compileForDevice(ModuleOp mlir, RuntimeSession &session,
                               bool onCPU, std::string &compiled,
                               std::string &error) {
  ArtifactOptions options;
  // The emulator runs emu:<chip> code; a GPU its chip's.
  options.targets = {onCPU ? std::string("cpu")
                     : StringRef(device).starts_with("emu:")
                         ? "emu:" + session.getTarget()
                         : session.getTarget()};
  options.producer = "boo-run-module";
  if (failed(parseCPUPipelineOptions(options.cpu, error)))
    return failure();
  options.cpuLoopUnrolling = cpuLoopUnrolling;
  options.configurePassManager = [](PassManager &pm) {
    applyDefaultTimingPassManagerCLOptions(pm);
    return applyPassManagerCLOptions(pm);
  };
  auto start = std::chrono::steady_clock::now();
  if (!compileModuleArtifact(mlir, options, compiled, error))
    return failure();
  if (printTiming)
    llvm::errs() << llvm::format("boo-run-module: compiled for %s in %.1f ms\n",
                                 options.targets.front().c_str(),
                                 std::chrono::duration<double, std::milli>(
                                     std::chrono::steady_clock::now() - start)
                                     .count());
  return success();
}

/// Opens the device and loads the compiled module `bytes` on it; an MLIR
/// module (`mlir` non-null) is compiled for the device's target first.
std::unique_ptr<RuntimeSession> loadOnDevice(StringRef bytes, ModuleOp mlir,
                                             std::string &error) {
  // The device first: no compile for a device that is not there.
  std::unique_ptr<RuntimeSession> session = RuntimeSession::open(device, error);
  if (!session) {
    error = "--device=" + device + ": " + error;
    return nullptr;
  }
  bool onCPU = StringRef(device).starts_with("cpu");
  if ((!pipelineOptions.empty() || !dumpObjectFile.empty()) &&
      (!mlir || !onCPU)) {
    error = "--cpu-pipeline-options and --dump-object-file apply to MLIR "
            "run on a cpu device";
    return nullptr;
  }
  std::string compiled;
  if (mlir) {
    if (failed(compileForDevice(mlir, *session, onCPU, compiled, error)))
      return nullptr;
    bytes = compiled;
    if (!dumpObjectFile.empty() && failed(dumpHostCodeObject(bytes, error)))
      return nullptr;
  }
  if (!session->load(bytes.str(), functionName, error)) {
    error = "'" + moduleFile + "': " + error;
    return nullptr;
  }
  return session;
}

/// Parses the MLIR module in `file`, checks --function against its public
/// functions and compiles only that one for the device.
std::unique_ptr<RuntimeSession>
compileAndLoad(std::unique_ptr<llvm::MemoryBuffer> file, MLIRContext &context,
               std::string &error) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module;
  {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module) {
    error = "cannot parse '" + moduleFile + "'";
    return nullptr;
  }
  std::vector<std::string> publicNames = getPublicFunctionNames(*module);
  std::string names;
  for (const std::string &name : publicNames)
    names += (names.empty() ? "@" : ", @") + name;
  if (publicNames.empty()) {
    error = "'" + moduleFile + "' has no public function to run";
    return nullptr;
  }
  if (functionName.empty() && publicNames.size() != 1) {
    error = "'" + moduleFile + "' has " + std::to_string(publicNames.size()) +
            " public functions (" + names + "); pick one with --function=NAME";
    return nullptr;
  }
  if (!functionName.empty() && !llvm::is_contained(publicNames, functionName)) {
    error = "no public function @" + functionName +
            " with a body in the module; public functions: " + names;
    return nullptr;
  }
  // Only the chosen function is compiled.
  if (!functionName.empty())
    for (auto func : module->getOps<func::FuncOp>())
      if (func.getSymName() != functionName && func.isPublic())
        func.setPrivate();
  return loadOnDevice("", *module, error);
}

/// Prints min/median/max/mean of `milliseconds`.
void printBenchmark(StringRef name, StringRef clock,
                    std::vector<double> milliseconds) {
  llvm::sort(milliseconds);
  double sum = 0;
  for (double ms : milliseconds)
    sum += ms;
  size_t n = milliseconds.size();
  double median = n % 2 ? milliseconds[n / 2]
                        : (milliseconds[n / 2 - 1] + milliseconds[n / 2]) / 2;
  llvm::outs() << llvm::format(
      "BENCHMARK @%s on %s: %zu calls (%s), per call: min %.4f ms, median "
      "%.4f ms, max %.4f ms, mean %.4f ms\n",
      name.str().c_str(), device.getValue().c_str(), n, clock.str().c_str(),
      milliseconds.front(), median, milliseconds.back(), sum / n);
}

int run() {
  if (moduleFile.empty())
    return fail("--module=FILE is required");
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

  auto file = openInputFile(moduleFile, &errorMessage);
  if (!file)
    return fail("cannot read '" + moduleFile + "': " + errorMessage);
  bool isCompiled = file->getBuffer().starts_with(
      StringRef(::boo::runtime::kModuleMagic, sizeof(::boo::runtime::kModuleMagic)));

  DialectRegistry registry;
  registerAllDialects(registry);
  registerROCDLSerializationInterfaces(registry);
  MLIRContext context(registry);
  std::unique_ptr<RuntimeSession> runner =
      isCompiled ? loadOnDevice(file->getBuffer(), nullptr, errorMessage)
                 : compileAndLoad(std::move(file), context, errorMessage);
  if (!runner)
    return fail(errorMessage);
  const std::string &name = runner->getFunctionName();

  // Match the flags with the signature.
  const std::vector<TensorSignature> &signature = runner->getInputs();
  const std::vector<TensorSignature> &resultSignature = runner->getResults();
  if (args.size() != signature.size())
    return fail("@" + name + " takes " + std::to_string(signature.size()) +
                " input(s) (" + listSignatures(signature) + "), got " +
                std::to_string(args.size()) + " --input");
  for (auto [i, arg] : llvm::enumerate(args))
    arg = adaptNpy(std::move(arg), inputs[i], signature[i]);
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
  if (!runner->setInputs(args, errorMessage))
    return fail(errorMessage);

  llvm::outs() << "EXEC @" << name << "\n";
  std::vector<double> runMilliseconds;
  for (unsigned i = 0; i < repeat; ++i) {
    double ms = 0;
    if (!runner->invoke(ms, errorMessage))
      return fail(errorMessage);
    runMilliseconds.push_back(ms);
  }
  if (printTiming) {
    llvm::sort(runMilliseconds);
    llvm::errs() << llvm::format(
        "boo-run-module: ran @%s in %.3f ms (fastest of %u; median %.3f "
        "ms)\n",
        name.c_str(), runMilliseconds.front(), repeat.getValue(),
        runMilliseconds[runMilliseconds.size() / 2]);
  }
  if (benchmark) {
    std::vector<double> milliseconds;
    for (unsigned i = 0; i < benchmark; ++i) {
      double ms = 0;
      if (!runner->invoke(ms, errorMessage))
        return fail(errorMessage);
      milliseconds.push_back(ms);
    }
    // The runtime times host devices (cpu, emu) with a steady clock and GPUs
    // with device events.
    bool onHost = StringRef(device).starts_with("cpu") ||
                  StringRef(device).starts_with("emu:");
    printBenchmark(name, onHost ? "steady clock" : "device events",
                   std::move(milliseconds));
  }
  std::vector<HostTensor> results;
  if (!runner->readResults(results, errorMessage))
    return fail(errorMessage);

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
