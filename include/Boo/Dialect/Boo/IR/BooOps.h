//===- BooOps.h - Boo operations --------------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_BOOOPS_H
#define BOO_DIALECT_BOO_IR_BOOOPS_H

#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "Boo/Dialect/Boo/IR/ConvGeometry.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Boo/Dialect/Boo/IR/BooEnums.h.inc"

namespace mlir::boo {
/// The sizes of a boo.matmul: `batch` (1 for 2-D operands), M, N and K.
struct MatmulSizes {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// Whether the operands are 3-D (a batched product).
  bool batched = false;
};
} // namespace mlir::boo

#define GET_OP_CLASSES
#include "Boo/Dialect/Boo/IR/BooOps.h.inc"

namespace mlir::boo {

/// True for the ops a boo.fusion is built around: convolutions, matrix
/// products and layer norms, forward and backward.
bool isFusionAnchor(Operation *op);

/// The sizes of a boo.matmul read off its operand types and transposes.
/// Safe on ops that are not verified yet: fails when the operands are not
/// static 2-D or 3-D tensors or their K (or batch) sizes differ.
FailureOr<MatmulSizes> getMatmulSizes(Operation *op);

/// How an arg-reduction (boo.argmax, boo.argmin) is computed: over its
/// input viewed as `shape`, the dims marked `reduced` reduced by a first
/// pass. Where few elements are kept (at most kArgReduceMaxSplitRows) and
/// the reduced extent R is large (kArgReduceMinSplitExtent or more), R is
/// viewed as (R / groups, groups), dims `groupDim - 1` and `groupDim` of
/// `shape` (the input flattened where every dim is reduced): the first
/// pass reduces the outer one, keeping each group's best and its index in
/// the input (a GPU's threads read the groups side by side), and a second
/// reduces the groups. Otherwise `shape` is the input's, `groups` 1 and
/// `groupDim` -1. Fails on ops that are not verified.
struct ArgReduceForm {
  SmallVector<int64_t> shape;
  SmallVector<bool> reduced;
  int64_t groups = 1;
  int64_t groupDim = -1;
};
FailureOr<ArgReduceForm> getArgReduceForm(Operation *op);

/// True for the element-wise epilogue ops (activation, add, mul).
bool isElementwiseEpilogue(Operation *op);

/// The three tensors of a convolution problem, whichever of conv,
/// conv_bwd_data and conv_bwd_weight holds them.
struct ConvTensors {
  RankedTensorType input, filter, output;
};

/// The tensors of a convolution op. Safe on ops that are not verified yet
/// (e.g. from a module-level attribute verifier): fails instead of
/// asserting when the op is not a convolution or a type is not a ranked
/// tensor.
FailureOr<ConvTensors> getConvTensors(Operation *op);

/// The geometry of a convolution op from its input and filter types and its
/// attributes; as safe as getConvTensors. Does not check the third tensor.
FailureOr<ConvGeometry> getConvGeometry(Operation *op, std::string &error);

} // namespace mlir::boo

#endif // BOO_DIALECT_BOO_IR_BOOOPS_H
