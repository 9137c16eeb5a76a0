//===- BooBase.td - Boo dialect definition -----------------*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_BOOBASE_TD
#define BOO_DIALECT_BOO_IR_BOOBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Boo_Dialect : Dialect {
  let name = "boo";
  let cppNamespace = "::mlir::boo";
  let summary = "Deep-learning kernel ops: convolutions, matrix products, "
                "layer norms, epilogues";
  let description = [{
    The `boo` dialect describes the ops a framework hands to Boo: forward and
    backward convolutions in any layout, matrix products (plain, batched,
    with a bias), layer norm forward and backward,
    element-wise epilogues (activations, bias and residual adds), and
    `boo.fusion`, a region that groups one anchor op with its epilogue and by
    definition becomes exactly one kernel.

    All ops work on ranked tensors of f32, f16 or bf16. Products and sums are
    always accumulated in f32, whatever the storage type; the result is rounded
    to the storage type once, at the end (see docs/Rationale.md).
  }];
  let dependentDialects = [
    "::mlir::tensor::TensorDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  // `boo.target` on a module checks every `boo.lowering_config` inside it
  // against the chip; `boo.lowering_config` on a kernel checks the kernel.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Boo_Op<string mnemonic, list<Trait> traits = []>
    : Op<Boo_Dialect, mnemonic, traits>;

/// Storage types every Boo tensor may have.
def Boo_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;

/// A matrix product's operands: the storage types and f64 (PyTorch's
/// double bmm; accumulated in f64).
def Boo_MatmulTensor : RankedTensorOf<[F32, F16, BF16, F64]>;

#endif // BOO_DIALECT_BOO_IR_BOOBASE_TD
