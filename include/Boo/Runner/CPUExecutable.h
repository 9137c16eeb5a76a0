//===- CPUExecutable.h - Compile and call a function on the CPU -*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Compiles a module with the boo-to-llvm-cpu pipeline, JITs it with MLIR's
// ExecutionEngine (-O3, host CPU features) and calls one public function.
//
// ABI: the pipeline turns every tensor result into a trailing out-param
// memref (buffer-results-to-out-params), so the compiled function takes
// (inputs..., outputs...) as identity-layout memrefs and returns nothing;
// the caller owns every buffer.
//
// Parallel loops call through the module's `__boo_parallel_for` hook
// (docs/ModuleFormat.md); compile() points it at a thread-pool dispatcher,
// so calls are multi-threaded unless setParallelFor(nullptr) is called.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNNER_CPUEXECUTABLE_H
#define BOO_RUNNER_CPUEXECUTABLE_H

#include "Boo/Runner/HostTensor.h"
#include "Boo/Codegen/CPU/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
class PassManager;
namespace boo {

/// The type of one argument or result of a compiled function.
struct TensorSignature {
  std::vector<int64_t> shape;
  ElementType type;
  std::string toString() const; // "2x3xf32"
  /// Optional name for messages: the argument's (result's) `boo.name`
  /// string attribute, else the block argument's NameLoc; may be empty.
  std::string name;
};

/// A body of a parallel loop: runs the loop's iterations [begin, end).
using ParallelBodyFn = void (*)(void *ctx, int64_t begin, int64_t end);
/// A `__boo_parallel_for` dispatcher: runs `body` over [0, n), in chunks,
/// possibly on several threads; returns when all are done.
using ParallelForFn = void (*)(ParallelBodyFn body, void *ctx, int64_t n);

/// The dispatcher compile() installs: splits [0, n) into one contiguous
/// chunk per thread of a process-wide llvm::DefaultThreadPool (one thread
/// per core); the calling thread runs chunks too.
void threadPoolParallelFor(ParallelBodyFn body, void *ctx, int64_t n);

/// Debugging knobs of CPUExecutable::compile.
struct CPUCompileDebugOptions {
  /// Called on the pass manager after the pipeline was added and before it
  /// runs, e.g. to apply MLIR's command-line pass manager options.
  std::function<LogicalResult(PassManager &)> configurePassManager;
  /// Keep the JIT's object code so that dumpObjectFile() can write it.
  bool keepObjectFile = false;
};

/// Wall-clock seconds spent in each compile stage.
struct CPUCompileTimes {
  double pipeline = 0; // buildCPUPipeline's passes
  double jit = 0;      // LLVM IR translation, -O3 optimization, codegen
};

class CPUExecutable {
public:
  ~CPUExecutable();

  /// Compiles `function` (empty: the module's only public function) of
  /// `module`, which is consumed. On failure returns nullptr and sets
  /// `error` (pipeline diagnostics included).
  static std::unique_ptr<CPUExecutable>
  compile(OwningOpRef<ModuleOp> module, StringRef function,
          const CPUPipelineOptions &options, std::string &error);
  static std::unique_ptr<CPUExecutable>
  compile(OwningOpRef<ModuleOp> module, StringRef function,
          const CPUPipelineOptions &options,
          const CPUCompileDebugOptions &debugOptions, std::string &error);

  /// The public functions with a body, in module order: the candidates for
  /// `function`.
  static std::vector<std::string> getPublicFunctionNames(ModuleOp module);

  const std::vector<TensorSignature> &getInputs() const { return inputs; }
  const std::vector<TensorSignature> &getResults() const { return results; }
  const std::string &getFunctionName() const { return functionName; }
  const CPUCompileTimes &getCompileTimes() const { return compileTimes; }

  /// Calls the function. Checks the count, shapes and element types of
  /// `args` against the signature (the message names the argument) and
  /// fills `outs` with freshly allocated results.
  LogicalResult invoke(const std::vector<HostTensor> &args,
                       std::vector<HostTensor> &outs, std::string &error);
  /// The checks invoke() makes on `args`, without calling.
  LogicalResult checkInputs(const std::vector<HostTensor> &args,
                            std::string &error) const;

  /// Writes the compiled object code (needs `keepObjectFile`), e.g. to
  /// check the instructions with objdump.
  LogicalResult dumpObjectFile(StringRef path, std::string &error);

  /// Whether the compiled code has the `__boo_parallel_for` hook (the
  /// pipeline's `parallel` option).
  bool hasParallelFor() const { return parallelForSlot != nullptr; }
  /// Sets the dispatcher the compiled code calls for its parallel loops
  /// (default: threadPoolParallelFor); nullptr runs them sequentially on the
  /// calling thread. Does nothing without the hook. Not to be called while
  /// invoke() runs.
  void setParallelFor(ParallelForFn dispatcher);

private:
  CPUExecutable() = default;
  std::unique_ptr<ExecutionEngine> engine;
  /// `_mlir_ciface_<functionName>`'s packed wrapper: takes an array of
  /// pointers to the arguments, each a pointer to a memref descriptor.
  void (*packedFunction)(void **) = nullptr;
  /// The address of the JITed `__boo_parallel_for` global, if any.
  void **parallelForSlot = nullptr;
  bool keepsObjectFile = false;
  std::string functionName;
  std::vector<TensorSignature> inputs, results;
  CPUCompileTimes compileTimes;
};

} // namespace boo
} // namespace mlir

#endif // BOO_RUNNER_CPUEXECUTABLE_H
