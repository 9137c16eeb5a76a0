//===- CommandCompiler.cpp - MIOpenDriver commands, compiled in-process ---===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/CommandCompiler.h"

#include "Boo/Harness/CachedCompile.h"
#include "Boo/Import/ProblemSignature.h"
#include "Boo/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *created = new DialectRegistry;
    registerAllDialects(*created);
    return created;
  }();
  return *registry;
}

std::vector<harness::CommandTensor>
toCommandTensors(const std::vector<TensorSpec> &specs) {
  std::vector<harness::CommandTensor> tensors;
  for (const TensorSpec &spec : specs)
    tensors.push_back({spec.name, spec.shape, spec.type});
  return tensors;
}

std::vector<int64_t> toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

void describeParameters(const MIOpenConvProblem &conv,
                        harness::CommandSignature &signature) {
  const ConvGeometry &geometry = conv.geometry;
  signature.parameters = {
      {"stride", toVector(geometry.strides)},
      {"padding_low", toVector(geometry.padLow)},
      {"padding_high", toVector(geometry.padHigh)},
      {"dilation", toVector(geometry.dilations)},
      {"groups", {geometry.groups}},
      {"direction", {conv.direction}},
      {"bias", {conv.bias ? 1 : 0}},
  };
  signature.layouts = {{"input_layout", conv.inputLayout},
                       {"kernel_layout", conv.filterLayout},
                       {"output_layout", conv.outputLayout}};
}

void describeParameters(const MIOpenLayerNormProblem &norm,
                        harness::CommandSignature &signature) {
  signature.parameters = {{"normalized_dim", {norm.normalizedDim}},
                          {"direction", {norm.direction}},
                          {"affine", {norm.weightAndBias ? 1 : 0}}};
  signature.epsilon = norm.epsilon;
}

void describeParameters(const MIOpenGemmProblem &gemm,
                        harness::CommandSignature &signature) {
  signature.parameters = {{"batch", {gemm.batch}},
                          {"m", {gemm.m}},
                          {"n", {gemm.n}},
                          {"k", {gemm.k}},
                          {"transpose_a", {gemm.transposeA ? 1 : 0}},
                          {"transpose_b", {gemm.transposeB ? 1 : 0}},
                          {"direction", {gemm.direction}}};
}

void describeParameters(const MIOpenBatchNormProblem &norm,
                        harness::CommandSignature &signature) {
  signature.parameters = {{"direction", {static_cast<int64_t>(norm.direction)}},
                          {"spatial", {norm.spatial ? 1 : 0}},
                          {"save", {norm.save ? 1 : 0}},
                          {"run", {norm.run ? 1 : 0}}};
  signature.layouts = {{"layout", norm.layout}};
  signature.epsilon = norm.epsilon;
  signature.momentum = norm.momentum;
}

/// "dim" is empty for an arg-reduction over all of self.
void describeParameters(const MIOpenArgReduceProblem &arg,
                        harness::CommandSignature &signature) {
  std::vector<int64_t> dim;
  if (arg.dim)
    dim.push_back(*arg.dim);
  signature.parameters = {{"dim", dim},
                          {"keepdim", {arg.keepdim ? 1 : 0}},
                          {"is_max", {arg.isMax ? 1 : 0}}};
}

/// "conv", "layernorm", "gemm", "bnorm" or "argreduce".
const char *getKind(const MIOpenProblem &problem) {
  static const char *const kinds[] = {"conv", "layernorm", "gemm", "bnorm",
                                      "argreduce"};
  static_assert(std::variant_size_v<MIOpenProblem> == 5,
                "a kind for each problem");
  return kinds[problem.index()];
}

} // namespace

bool harness::describeCommand(const std::string &command,
                              CommandSignature &signature, std::string &error) {
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(command, error);
  if (failed(problem))
    return false;
  ProblemSignature problemSignature = getProblemSignature(*problem);
  signature.kind = getKind(*problem);
  signature.functionName = problemSignature.functionName;
  signature.arguments = toCommandTensors(problemSignature.arguments);
  signature.results = toCommandTensors(problemSignature.results);
  std::visit([&](const auto &p) { describeParameters(p, signature); },
             *problem);
  return true;
}

namespace {

/// Compiles `module` for `target` through the kernel cache of the
/// environment.
bool compileModule(ModuleOp module, const std::string &target,
                   const std::string &producer,
                   harness::CompiledCommand &compiled, std::string &error) {
  KernelCacheOptions cacheOptions;
  if (!KernelCacheOptions::fromEnvironment(cacheOptions, error))
    return false;
  KernelCache cache(cacheOptions);
  ArtifactOptions options;
  options.targets = {target};
  options.producer = producer;
  harness::CompileResult result;
  if (!harness::compileCached(module, options, &cache, result, error))
    return false;
  compiled.bytes = std::move(result.bytes);
  compiled.cacheOutcome = harness::getCacheOutcomeName(result.outcome);
  compiled.cacheNote = std::move(result.cacheNote);
  compiled.seconds = result.seconds;
  return true;
}

} // namespace

bool harness::compileCommand(const std::string &command,
                             const std::string &target,
                             const std::string &producer,
                             CompiledCommand &compiled, std::string &error) {
  // One context per compilation, single-threaded: callers compile from
  // several threads at once, and the contexts share nothing.
  MLIRContext ctx(getRegistry(), MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  FailureOr<OwningOpRef<ModuleOp>> module =
      importMIOpenCommand(&ctx, command, error);
  if (failed(module))
    return false;
  return compileModule(**module, target, producer, compiled, error);
}

bool harness::compileSource(const std::string &source,
                            const std::string &sourceName,
                            const std::string &target,
                            const std::string &producer,
                            CompiledCommand &compiled, std::string &error) {
  MLIRContext ctx(getRegistry(), MLIRContext::Threading::DISABLED);
  ctx.loadAllAvailableDialects();
  std::string diagnostics;
  OwningOpRef<ModuleOp> module;
  {
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      llvm::raw_string_ostream os(diagnostics);
      os << (diagnostics.empty() ? "" : "\n") << diag.getLocation() << ": "
         << diag;
      return success();
    });
    module =
        parseSourceString<ModuleOp>(source, ParserConfig(&ctx), sourceName);
  }
  if (!module) {
    error = sourceName + ": " + diagnostics;
    return false;
  }
  return compileModule(*module, target, producer, compiled, error);
}
