//===- CPUExecutable.cpp - Compile and call a Boo function on the CPU -----===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Runner/CPUExecutable.h"
#include "boo/ModuleFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>

using namespace mlir;
using namespace mlir::boo;

using ::boo::runtime::kParallelForSymbol;

std::string TensorSignature::toString() const {
  return formatTensorType(shape, type);
}

CPUExecutable::~CPUExecutable() = default;

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Collects diagnostics as "file:line:col: error: message" lines.
class DiagnosticCollector : public ScopedDiagnosticHandler {
public:
  DiagnosticCollector(MLIRContext *ctx) : ScopedDiagnosticHandler(ctx) {
    setHandler([this](Diagnostic &diag) {
      append(diag);
      for (Diagnostic &note : diag.getNotes())
        append(note);
      return success();
    });
  }
  /// The diagnostics, one per line, without the final newline.
  std::string str() const { return StringRef(text).rtrim().str(); }

private:
  void append(Diagnostic &diag) {
    llvm::raw_string_ostream os(text);
    if (auto fileLoc = diag.getLocation()->findInstanceOf<FileLineColLoc>())
      os << fileLoc.getFilename().getValue() << ':' << fileLoc.getLine() << ':'
         << fileLoc.getColumn() << ": ";
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << diag.str() << '\n';
  }
  std::string text;
};
} // namespace

static std::optional<ElementType> getElementType(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF64())
    return ElementType::F64;
  if (type.isSignlessInteger(32))
    return ElementType::I32;
  if (type.isSignlessInteger(8))
    return ElementType::I8;
  return std::nullopt;
}

/// Reads the signature of one argument or result; the runner only passes
/// statically shaped tensors (as identity-layout memrefs).
static LogicalResult getSignature(Type type, StringRef what,
                                  TensorSignature &signature,
                                  std::string &error) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  std::optional<ElementType> elementType;
  if (tensorType)
    elementType = getElementType(tensorType.getElementType());
  if (!tensorType || !tensorType.hasStaticShape() || !elementType ||
      tensorType.getEncoding()) {
    std::string typeText;
    llvm::raw_string_ostream os(typeText);
    os << type;
    error = what.str() + " has type " + typeText +
            "; the CPU runner supports statically shaped tensors of f32, "
            "f16, bf16, f64, i32 or i8";
    return failure();
  }
  signature.shape.assign(tensorType.getShape().begin(),
                         tensorType.getShape().end());
  signature.type = *elementType;
  return success();
}

static std::string describe(StringRef kind, size_t index,
                            const TensorSignature &signature) {
  std::string result = kind.str() + " " + std::to_string(index);
  if (!signature.name.empty())
    result += " (" + signature.name + ")";
  return result;
}

static std::string joinNames(ArrayRef<std::string> names) {
  if (names.empty())
    return "none";
  std::string result;
  for (const std::string &name : names)
    result += (result.empty() ? "@" : ", @") + name;
  return result;
}

/// A TargetMachine for the host's CPU name and features (AVX2, FMA, ...).
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostTargetMachine() {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return builder->createTargetMachine();
}

/// ORC reports a missing symbol as "Failed to materialize symbols" and logs
/// the name to stderr; name it in the error instead. The JIT resolves
/// declarations from the process and the loaded runner library.
static LogicalResult checkExternalSymbols(ModuleOp module, StringRef function,
                                          std::string &error) {
  std::vector<std::string> missing;
  for (auto decl : module.getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = decl.getSymName();
    if (decl.isExternal() && !name.starts_with("llvm.") &&
        !llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(name.str()))
      missing.push_back(name.str());
  }
  if (missing.empty())
    return success();
  error = "JIT compilation of @" + function.str() +
          " failed: the module calls external function(s) found neither in "
          "the module nor in the process: " +
          joinNames(missing);
  return failure();
}

std::vector<std::string>
CPUExecutable::getPublicFunctionNames(ModuleOp module) {
  std::vector<std::string> names;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      names.push_back(func.getSymName().str());
  return names;
}

std::unique_ptr<CPUExecutable>
CPUExecutable::compile(OwningOpRef<ModuleOp> module, StringRef function,
                       const CPUPipelineOptions &options, std::string &error) {
  return compile(std::move(module), function, options, {}, error);
}

std::unique_ptr<CPUExecutable>
CPUExecutable::compile(OwningOpRef<ModuleOp> module, StringRef function,
                       const CPUPipelineOptions &options,
                       const CPUCompileDebugOptions &debugOptions,
                       std::string &error) {
  static std::once_flag initLLVM;
  std::call_once(initLLVM, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // Make the process's own symbols (malloc, libm, ...) searchable for
    // checkExternalSymbols, as the JIT's generator sees them.
    llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
  });

  error.clear();
  if (!module) {
    error = "no module to compile";
    return nullptr;
  }
  MLIRContext *ctx = module->getContext();
  // Translation to LLVM IR is the runner's business, whoever made the
  // context.
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  ctx->appendDialectRegistry(registry);

  // Pick the function.
  std::vector<std::string> publicNames = getPublicFunctionNames(*module);
  if (function.empty()) {
    if (publicNames.size() != 1) {
      error = "the module has " + std::to_string(publicNames.size()) +
              " public functions (" + joinNames(publicNames) +
              "); name the one to run";
      return nullptr;
    }
    function = publicNames.front();
  }
  auto func = module->lookupSymbol<func::FuncOp>(function);
  if (!func || !func.isPublic() || func.isExternal()) {
    error = "no public function @" + function.str() +
            " with a body in the module; public functions: " +
            joinNames(publicNames);
    return nullptr;
  }

  std::unique_ptr<CPUExecutable> executable(new CPUExecutable());
  executable->functionName = function.str();

  // Record the tensor signature before lowering turns it into memrefs.
  FunctionType type = func.getFunctionType();
  for (auto [i, input] : llvm::enumerate(type.getInputs())) {
    TensorSignature signature;
    if (auto name = func.getArgAttrOfType<StringAttr>(i, "boo.name"))
      signature.name = name.str();
    else if (auto nameLoc = dyn_cast<NameLoc>(func.getArgument(i).getLoc()))
      signature.name = nameLoc.getName().str();
    if (failed(getSignature(
            input, "input " + std::to_string(i) + " of @" + function.str(),
            signature, error)))
      return nullptr;
    executable->inputs.push_back(std::move(signature));
  }
  for (auto [i, result] : llvm::enumerate(type.getResults())) {
    TensorSignature signature;
    if (auto name = func.getResultAttrOfType<StringAttr>(i, "boo.name"))
      signature.name = name.str();
    if (failed(getSignature(
            result, "result " + std::to_string(i) + " of @" + function.str(),
            signature, error)))
      return nullptr;
    executable->results.push_back(std::move(signature));
  }

  // The ABI. Inputs are read-only (the caller's buffers must not change, so
  // bufferization copies rather than writing in place), names are only for
  // messages, and the C interface wrapper takes one descriptor pointer per
  // memref.
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    func.removeArgAttr(i, "boo.name");
    func.setArgAttr(i, "bufferization.writable", BoolAttr::get(ctx, false));
  }
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    func.removeResultAttr(i, StringAttr::get(ctx, "boo.name"));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(ctx));
  // Compile `function` and what it calls only: the other public functions
  // become private, and symbol-dce drops them unless used. This saves their
  // compile time and keeps their problems (say, an undefined external) from
  // failing this function.
  for (auto other : module->getOps<func::FuncOp>())
    if (other != func && other.isPublic())
      other.setPrivate();

  DiagnosticCollector diagnostics(ctx);
  // A failing pass's "see current operation" note can hold the whole module
  // (thousands of lines once lowered); --mlir-print-ir-after-failure shows
  // it on request.
  bool printOpOnDiagnostic = ctx->shouldPrintOpOnDiagnostic();
  ctx->printOpOnDiagnostic(false);
  llvm::scope_exit restorePrintOp(
      [&] { ctx->printOpOnDiagnostic(printOpOnDiagnostic); });
  auto start = Clock::now();
  PassManager pm(ctx);
  pm.addPass(createSymbolDCEPass());
  buildCPUPipeline(pm, options);
  if (debugOptions.configurePassManager &&
      failed(debugOptions.configurePassManager(pm))) {
    error = "invalid pass manager options\n" + diagnostics.str();
    return nullptr;
  }
  if (failed(pm.run(*module))) {
    error = "failed to lower @" + function.str() + " to the LLVM dialect:\n" +
            diagnostics.str();
    return nullptr;
  }
  executable->compileTimes.pipeline = secondsSince(start);

  // JIT: -O3 on the LLVM IR with the host's cost model, then codegen at
  // CodeGenOptLevel::Aggressive for the host CPU. ExecutionEngine would
  // detect the host itself, but it ignores jitCodeGenOptLevel when it makes
  // the TargetMachine, so both are made here.
  start = Clock::now();
  // The optimizer gets its own TargetMachine: the engine takes ownership of
  // the one it compiles with.
  auto tm = createHostTargetMachine();
  if (!tm) {
    error = "cannot create a TargetMachine for the host: " +
            llvm::toString(tm.takeError());
    return nullptr;
  }
  auto optTM = createHostTargetMachine();
  if (!optTM) {
    error = "cannot create a TargetMachine for the host: " +
            llvm::toString(optTM.takeError());
    return nullptr;
  }
  auto transformer = makeOptimizingTransformer(
      /*optLevel=*/3, /*sizeLevel=*/0, optTM->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.enableObjectDump = debugOptions.keepObjectFile;
  // No runtime libraries: like a loaded code object, the code may only call
  // what the process has (libc, libm); checkExternalSymbols names anything
  // else.
  if (failed(checkExternalSymbols(*module, function, error)))
    return nullptr;
  bool hasParallelFor =
      module->lookupSymbol<LLVM::GlobalOp>(kParallelForSymbol) != nullptr;
  auto engine = ExecutionEngine::create(*module, engineOptions, std::move(*tm));
  if (!engine) {
    // Translation to LLVM IR reports through diagnostics.
    error = "JIT compilation of @" + function.str() +
            " failed: " + llvm::toString(engine.takeError());
    if (!diagnostics.str().empty())
      error += "\n" + diagnostics.str();
    return nullptr;
  }
  executable->engine = std::move(*engine);
  // The lookup compiles the module; do it now so that compile() pays for it
  // and reports its errors.
  auto packed =
      executable->engine->lookupPacked("_mlir_ciface_" + function.str());
  if (!packed) {
    error = "JIT compilation of @" + function.str() +
            " failed: " + llvm::toString(packed.takeError());
    return nullptr;
  }
  executable->engine->initialize();
  executable->packedFunction = *packed;
  if (hasParallelFor) {
    auto slot = executable->engine->lookup(kParallelForSymbol);
    if (!slot) {
      error = "JIT compilation of @" + function.str() +
              " failed: " + llvm::toString(slot.takeError());
      return nullptr;
    }
    executable->parallelForSlot = static_cast<void **>(*slot);
    executable->setParallelFor(threadPoolParallelFor);
  }
  executable->keepsObjectFile = debugOptions.keepObjectFile;
  executable->compileTimes.jit = secondsSince(start);
  return executable;
}

void CPUExecutable::setParallelFor(ParallelForFn dispatcher) {
  if (parallelForSlot)
    *parallelForSlot = reinterpret_cast<void *>(dispatcher);
}

LogicalResult CPUExecutable::dumpObjectFile(StringRef path,
                                            std::string &error) {
  if (!keepsObjectFile) {
    error = "compile() was not asked to keep the object file";
    return failure();
  }
  engine->dumpToObjectFile(path);
  if (!llvm::sys::fs::exists(path)) {
    error = "cannot write '" + path.str() + "'";
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Parallel loops
//===----------------------------------------------------------------------===//

namespace {
/// One threadPoolParallelFor call: contiguous chunks (sizes differ by at
/// most one) claimed from a counter by the caller and by helper tasks.
struct ParallelForCall {
  ParallelBodyFn body;
  void *ctx;
  int64_t n, chunks;
  std::atomic<int64_t> next{0}, done{0};
  std::mutex mutex;
  std::condition_variable finished;

  /// Runs chunks until none is left.
  void run() {
    for (int64_t c; (c = next.fetch_add(1)) < chunks;) {
      body(ctx, c * n / chunks, (c + 1) * n / chunks);
      if (done.fetch_add(1) + 1 == chunks) {
        std::lock_guard<std::mutex> lock(mutex);
        finished.notify_all();
      }
    }
  }
};
} // namespace

void mlir::boo::threadPoolParallelFor(ParallelBodyFn body, void *ctx,
                                      int64_t n) {
  if (n <= 0)
    return;
  // Created on first use; one worker per core.
  static llvm::DefaultThreadPool pool;
  int64_t chunks = std::min<int64_t>(n, pool.getMaxConcurrency());
  if (chunks <= 1)
    return body(ctx, 0, n);
  // The caller works too and returns once every chunk ran: it never waits
  // for a worker to wake up just to find nothing left (such a late helper
  // only touches the shared call state), and a call from inside a worker
  // cannot deadlock on a busy pool.
  auto call = std::make_shared<ParallelForCall>();
  call->body = body;
  call->ctx = ctx;
  call->n = n;
  call->chunks = chunks;
  for (int64_t helper = 1; helper < chunks; ++helper)
    pool.async([call] { call->run(); });
  call->run();
  std::unique_lock<std::mutex> lock(call->mutex);
  call->finished.wait(lock, [&] { return call->done.load() == chunks; });
}

//===----------------------------------------------------------------------===//
// Invocation
//===----------------------------------------------------------------------===//

namespace {
/// A memref descriptor as the C interface lays it out:
///   { T *allocated; T *aligned; int64_t offset;
///     int64_t sizes[rank]; int64_t strides[rank]; }
/// stored as int64 words (pointers are 64-bit on every supported host).
struct MemRefDescriptor {
  static_assert(sizeof(void *) == sizeof(int64_t), "64-bit hosts only");

  MemRefDescriptor(void *data, ArrayRef<int64_t> shape)
      : words(3 + 2 * shape.size()) {
    std::memcpy(&words[0], &data, sizeof(data));
    std::memcpy(&words[1], &data, sizeof(data));
    words[2] = 0;
    int64_t stride = 1;
    size_t rank = shape.size();
    for (size_t d = rank; d-- > 0;) {
      words[3 + d] = shape[d];
      words[3 + rank + d] = stride;
      stride *= shape[d];
    }
  }
  void *get() { return words.data(); }

  std::vector<int64_t> words;
};
} // namespace

LogicalResult CPUExecutable::checkInputs(const std::vector<HostTensor> &args,
                                         std::string &error) const {
  error.clear();
  if (args.size() != inputs.size()) {
    error = "@" + functionName + " takes " + std::to_string(inputs.size()) +
            " input(s), got " + std::to_string(args.size());
    return failure();
  }
  for (auto [i, arg] : llvm::enumerate(args)) {
    const TensorSignature &signature = inputs[i];
    if (arg.shape != signature.shape || arg.type != signature.type) {
      error = describe("input", i, signature) + ": expected " +
              signature.toString() + ", got " + arg.getTypeString();
      return failure();
    }
    size_t bytes = arg.numElements() * getElementSize(arg.type);
    if (arg.data.size() != bytes) {
      error = describe("input", i, signature) + ": " + arg.getTypeString() +
              " needs " + std::to_string(bytes) + " bytes, the tensor holds " +
              std::to_string(arg.data.size());
      return failure();
    }
  }
  return success();
}

LogicalResult CPUExecutable::invoke(const std::vector<HostTensor> &args,
                                    std::vector<HostTensor> &outs,
                                    std::string &error) {
  if (failed(checkInputs(args, error)))
    return failure();

  outs.clear();
  for (const TensorSignature &signature : results)
    outs.push_back(HostTensor::zeros(signature.shape, signature.type));

  // _mlir_ciface_f(desc *in0, ..., desc *out0, ...): the packed wrapper
  // takes the address of each of those pointers.
  std::vector<MemRefDescriptor> descriptors;
  descriptors.reserve(args.size() + outs.size());
  for (const HostTensor &arg : args) {
    // The compiled code does not write inputs (bufferization.writable =
    // false); the descriptor has no const.
    void *data = const_cast<uint8_t *>(arg.data.data());
    descriptors.emplace_back(data, arg.shape);
  }
  for (HostTensor &out : outs)
    descriptors.emplace_back(out.data.data(), out.shape);
  std::vector<void *> descriptorPointers;
  for (MemRefDescriptor &descriptor : descriptors)
    descriptorPointers.push_back(descriptor.get());
  std::vector<void *> packedArgs;
  for (void *&pointer : descriptorPointers)
    packedArgs.push_back(&pointer);

  packedFunction(packedArgs.data());
  return success();
}
