//===- BooAttrs.h - Boo attributes ------------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// #boo.target, #boo.lowering_config and #boo.stride_phases, the loop nest
// a lowering config's tile sizes refer to, and the chip-dependent config
// check.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_BOOATTRS_H
#define BOO_DIALECT_BOO_IR_BOOATTRS_H

#include "Boo/Target/ChipInfo.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::boo {

/// `[1, 2, 3]` (possibly empty) for the list parameters of Boo attributes.
FailureOr<SmallVector<int64_t>> parseI64List(AsmParser &parser);
void printI64List(AsmPrinter &printer, ArrayRef<int64_t> values);

} // namespace mlir::boo

#define GET_ATTRDEF_CLASSES
#include "Boo/Dialect/Boo/IR/BooAttrs.h.inc"

namespace mlir::boo {

/// The discardable attribute names.
constexpr StringLiteral kTargetAttrName = "boo.target";
constexpr StringLiteral kLoweringConfigAttrName = "boo.lowering_config";
constexpr StringLiteral kStridePhasesAttrName = "boo.stride_phases";

/// The chip `op` is compiled for: the `#boo.target` of `op` or of the
/// nearest ancestor that has one (boo-set-target puts it on the module).
/// Emits an error at `op` naming `passName` and returns null when there is
/// none.
const ChipInfo *resolveChip(Operation *op, StringRef passName);

//===----------------------------------------------------------------------===//
// Kernels and their loop nests
//===----------------------------------------------------------------------===//

/// True for the ops that become one GPU kernel each: a `boo.fusion`, and an
/// anchor or element-wise Boo op that is not inside a fusion.
bool isKernel(Operation *op);

/// The op whose root linalg.generic a kernel's config describes: the anchor
/// of a fusion, else the op itself. Null for a fusion without an anchor.
Operation *getKernelRootOp(Operation *kernel);

/// What a loop of the root generic is, for a contraction's implicit GEMM.
enum class LoopRole : uint8_t {
  None,  // element-wise dims, layer-norm rows and normalized dims, bias grad
  Group, // `g`, a matmul's batch `b`: parallel in every operand
  M,     // parallel, in the first input and the output
  N,     // parallel, in the second input and the output
  K,     // reduction, in both inputs (channels, batch/output positions)
  Tap,   // reduction over filter taps (`f...` of forward/backward data)
};

/// One loop of the root generic.
struct KernelLoop {
  std::string name; // "n", "g", "k", "oh", "c", "fw", "d0", "m", ...
  int64_t extent;
  bool isReduction;
  LoopRole role;
  /// Backward data's input positions with stride s: s phases, each reading
  /// only its own taps (#boo.stride_phases); an MMA kernel gives each phase
  /// its own workgroups along M. 1 elsewhere.
  int64_t phases = 1;
};

/// One dim of an input of the root generic: it is indexed by
/// `sum(coefficient * loop)` and has `size` elements.
struct KernelOperandDim {
  SmallVector<std::pair<int64_t, int64_t>, 2> terms; // (loop, coefficient)
  int64_t size;
};

/// One input (`ins` operand) of the root generic.
struct KernelOperand {
  std::string name; // "input", "filter", "grad_output", "x", ...
  Type elementType;
  SmallVector<KernelOperandDim> dims;
};

/// The loop nest of a kernel's root linalg.generic: the one description of
/// its loop order, from which boo-convert-to-linalg allocates the generic's
/// loops (ConvLowering.cpp) and to which the tile sizes of a
/// #boo.lowering_config refer.
struct KernelLoopNest {
  SmallVector<KernelLoop> loops;
  SmallVector<KernelOperand> inputs;
  /// A convolution's multiply-accumulate (inputs 0 and 1 are A and B).
  bool isContraction = false;
  /// The loop along which the kernel's output is contiguous in memory (the
  /// loop of its innermost dim), or -1 when not known.
  int64_t outputInnerLoop = -1;

  int64_t getNumLoops() const { return loops.size(); }
};

/// The loop nest of `kernel` (see isKernel), or failure when the op is not a
/// Boo kernel or is itself invalid (its own verifier reports that).
FailureOr<KernelLoopNest> getKernelLoopNest(Operation *kernel);

/// The loop nest of the root generic of one Boo op (a convolution, a norm or
/// an element-wise op), inside a fusion or not; failure for other ops and
/// for invalid ones.
FailureOr<KernelLoopNest> getOpLoopNest(Operation *op);

//===----------------------------------------------------------------------===//
// Config checks
//===----------------------------------------------------------------------===//

/// LDS bytes the promoted inputs of `config` occupy: each promoted input's
/// tile footprint (from its index expressions and the workgroup/reduction
/// tiles, clamped to the tensor) times its element size, times
/// `pipeline_depth`. Invalid promote indices are ignored.
int64_t estimateLDSBytes(const KernelLoopNest &nest, LoweringConfigAttr config);

/// Creates the diagnostic a check streams its message into.
using ConfigErrorFn = function_ref<InFlightDiagnostic()>;

/// The checks of `config` that need the kernel but not the chip: tile count,
/// loop kinds, MMA loop roles and input types, promoted operand indices.
/// Succeeds without checks when `kernelOp` is not a Boo kernel (e.g. the
/// linalg.generic the config was copied onto). The overload without
/// `emitError` reports with `kernelOp->emitOpError()`.
LogicalResult verifyLoweringConfigForKernel(ConfigErrorFn emitError,
                                            Operation *kernelOp,
                                            LoweringConfigAttr config);
LogicalResult verifyLoweringConfigForKernel(Operation *kernelOp,
                                            LoweringConfigAttr config);

/// Everything verifyLoweringConfigForKernel checks, plus the chip: the MMA
/// intrinsic exists on `chip`, `subgroup_size` is its wave size, the
/// workgroup fits, and the promoted tiles fit in its LDS.
LogicalResult verifyLoweringConfig(ConfigErrorFn emitError, Operation *kernelOp,
                                   LoweringConfigAttr config,
                                   const ChipInfo &chip);
LogicalResult verifyLoweringConfig(Operation *kernelOp,
                                   LoweringConfigAttr config,
                                   const ChipInfo &chip);

} // namespace mlir::boo

#endif // BOO_DIALECT_BOO_IR_BOOATTRS_H
