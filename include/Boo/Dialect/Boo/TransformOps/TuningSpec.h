//===- TuningSpec.h - Tuning specs ------------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A tuning spec is a transform dialect library that annotates kernels with
// `boo.lowering_config` (docs/TuningSpec.md). This header has the kernel
// problem signatures the spec's `transform.boo.match.problem` matches, the
// transform extension that defines that op, and loading/applying a spec.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_TRANSFORMOPS_TUNINGSPEC_H
#define BOO_DIALECT_BOO_TRANSFORMOPS_TUNINGSPEC_H

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "Boo/Dialect/Boo/TransformOps/BooTransformOps.h.inc"

namespace mlir {
class DialectRegistry;
namespace boo {

/// The entry point a tuning spec must define:
/// `transform.named_sequence @__boo_kernel_config(%root: !transform.any_op
/// {transform.consumed}) -> !transform.any_op`.
constexpr StringLiteral kTuningSpecEntryPoint = "__boo_kernel_config";

/// The environment variable naming a tuning spec file ("" disables specs).
constexpr StringLiteral kTuningSpecEnvVar = "BOO_TUNING_SPEC_PATH";

/// The problem signature of a kernel (see isKernel), following IREE BOO's
/// function names, e.g.
/// "conv_2d_bfloat16_forward_2x9x9x8_nhwc_16x3x3x4_fhwc_nhwf_2x2s_1x1p_1x1d_2g".
/// A fusion's signature is its anchor's followed by "+<op>" per epilogue op.
/// Empty for an op that is not a kernel.
std::string getProblemSignature(Operation *kernel);

/// Registers the `transform.boo.*` ops with the transform dialect.
void registerBooTransformExtension(DialectRegistry &registry);

/// A parsed tuning spec and the name it is reported by.
struct TuningSpec {
  OwningOpRef<ModuleOp> module;
  std::string name; // a path, or "<default tuning spec>"
};

/// Resolves and parses the tuning spec: `optionPath` if non-empty, else the
/// file named by BOO_TUNING_SPEC_PATH if set (set but empty: no spec), else
/// the spec embedded in the compiler. Returns a TuningSpec without module
/// when specs are disabled; failure (reported at `loc`) when the file cannot
/// be read or parsed or lacks the entry point.
FailureOr<TuningSpec> loadTuningSpec(MLIRContext *ctx, StringRef optionPath,
                                     Location loc);

/// What identifies the tuning spec the GPU pipelines use for their
/// `tuning-spec` option `optionPath`, resolved as they resolve it (the
/// option, else BOO_TUNING_SPEC_PATH, set but empty meaning none, else the
/// spec embedded in the compiler): "none", "default:<BLAKE3 of the embedded
/// spec>" or "file:<BLAKE3 of the file's bytes>". Kernel caches key on it,
/// so that editing a spec invalidates what was compiled with it. False,
/// with `error`, when the file cannot be read.
bool getTuningSpecIdentity(StringRef optionPath, std::string &identity,
                           std::string &error);

/// Applies the spec's entry point to `payload`; the spec's
/// `transform.annotate` actions set `boo.lowering_config` on the kernels
/// it matches.
LogicalResult applyTuningSpec(ModuleOp payload, const TuningSpec &spec);

} // namespace boo
} // namespace mlir

#endif // BOO_DIALECT_BOO_TRANSFORMOPS_TUNINGSPEC_H
