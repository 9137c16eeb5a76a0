//===- CommandCompiler.h - Commands compiled in-process --------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The compiler as a library for callers that do not speak MLIR: the Python
// package's extension (python/src). One MIOpenDriver command
// (docs/MIOpenImport.md) gives the signature of the function it compiles
// to, and a compiled module (docs/ModuleFormat.md) for one target, built in
// this process through the kernel cache (CachedCompile.h) that BOO_CACHE_ON,
// BOO_CACHE_DIR and BOO_CACHE_MAX_BYTES configure; the GPU pipelines read
// BOO_TUNING_SPEC_PATH. Boo MLIR text (fused kernels) compiles the same way.
//
// No MLIR or LLVM type appears here, so that code compiled with exceptions
// and RTTI (nanobind) includes it safely. Every function is thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_HARNESS_COMMANDCOMPILER_H
#define BOO_HARNESS_COMMANDCOMPILER_H

#include "boo/ElementType.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlir::boo::harness {

/// One argument or result of a command's function (ProblemSignature.h's
/// TensorSpec, without MLIR types).
struct CommandTensor {
  std::string name;
  std::vector<int64_t> shape;
  ::boo::ElementType type = ::boo::ElementType::F32;
};

struct CommandSignature {
  /// "conv", "layernorm", "gemm", "bnorm" or "argreduce" (aten::argmax
  /// and aten::argmin).
  std::string kind;
  /// IREE BOO's name of the function.
  std::string functionName;
  std::vector<CommandTensor> arguments, results;
  /// The problem's parameters as the importer read them (defaults and
  /// --pad_mode applied). Convolutions: "stride", "padding_low",
  /// "padding_high", "dilation" (one value per spatial dim), "groups",
  /// "direction" (-F), "bias" (0 or 1). Layer norms: "normalized_dim",
  /// "direction", "affine" (-m). Matrix products: "batch", "m", "n", "k",
  /// "transpose_a", "transpose_b", "direction". Batch norms: "direction"
  /// (0 training, 1 inference, 2 backward), "spatial" (-m), "save" (-s),
  /// "run" (-r). Arg-reductions: "dim" (no value: over all of self),
  /// "keepdim", "is_max" (1 argmax, 0 argmin).
  std::map<std::string, std::vector<int64_t>> parameters;
  /// Convolutions: "input_layout", "kernel_layout", "output_layout". Batch
  /// norms: "layout" (x's, upper-cased).
  std::map<std::string, std::string> layouts;
  /// Layer norms: -e. Batch norms: the epsilon they normalize with.
  double epsilon = 0.0;
  /// Batch norms: the running statistics' momentum.
  double momentum = 0.0;
};

/// Parses `command` and returns its function's signature; false, with the
/// importer's message naming the flag, if the command is not valid.
bool describeCommand(const std::string &command, CommandSignature &signature,
                     std::string &error);

struct CompiledCommand {
  /// The compiled module's bytes.
  std::string bytes;
  /// "off", "hit", "miss" or "corrupt" (CachedCompile.h).
  std::string cacheOutcome;
  /// Why the cache did not serve or store as planned, else empty.
  std::string cacheNote;
  double seconds = 0.0;
};

/// Compiles `command` for `target` ("cpu", a chip such as "gfx942", or
/// "emu:gfx942"); `producer` goes into the module's manifest. False, with
/// the compiler's diagnostics, on failure.
bool compileCommand(const std::string &command, const std::string &target,
                    const std::string &producer, CompiledCommand &compiled,
                    std::string &error);

/// Compiles Boo MLIR `source` (a module of public functions, as the Python
/// package's fusion writes them) for `target`; `sourceName` names it in
/// diagnostics. False, with the parser's, verifier's or compiler's
/// diagnostics, on failure.
bool compileSource(const std::string &source, const std::string &sourceName,
                   const std::string &target, const std::string &producer,
                   CompiledCommand &compiled, std::string &error);

} // namespace mlir::boo::harness

#endif // BOO_HARNESS_COMMANDCOMPILER_H
