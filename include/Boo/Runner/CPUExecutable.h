//===- CPUExecutable.h - Compile and call a Boo function on the CPU -*- C++ -*-===//
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
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNNER_CPUEXECUTABLE_H
#define BOO_RUNNER_CPUEXECUTABLE_H

#include "Boo/Runner/HostTensor.h"
#include "Boo/Transforms/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
namespace boo {

/// The type of one argument or result of a compiled function.
struct TensorSignature {
  std::vector<int64_t> shape;
  ElementType type;
  std::string toString() const; // "2x3xf32"
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

  const std::vector<TensorSignature> &getInputs() const { return inputs; }
  const std::vector<TensorSignature> &getResults() const { return results; }
  const std::string &getFunctionName() const { return functionName; }

  /// Calls the function. Checks the count, shapes and element types of
  /// `args` against the signature (the message names the argument) and
  /// fills `outs` with freshly allocated results.
  LogicalResult invoke(const std::vector<HostTensor> &args,
                       std::vector<HostTensor> &outs, std::string &error);

private:
  CPUExecutable() = default;
  std::unique_ptr<ExecutionEngine> engine;
  std::string functionName;
  std::vector<TensorSignature> inputs, results;
};

} // namespace boo
} // namespace mlir

#endif // BOO_RUNNER_CPUEXECUTABLE_H
