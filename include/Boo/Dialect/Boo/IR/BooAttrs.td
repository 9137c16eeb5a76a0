//===- BooAttrs.td - Boo enums and attributes --------------*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_BOOATTRS_TD
#define BOO_DIALECT_BOO_IR_BOOATTRS_TD

include "mlir/IR/EnumAttr.td"

def Boo_ActRelu      : I32EnumAttrCase<"relu", 0>;
def Boo_ActSigmoid   : I32EnumAttrCase<"sigmoid", 1>;
def Boo_ActTanh      : I32EnumAttrCase<"tanh", 2>;
def Boo_ActGelu      : I32EnumAttrCase<"gelu", 3>;
def Boo_ActGeluTanh  : I32EnumAttrCase<"gelu_tanh", 4>;
def Boo_ActSilu      : I32EnumAttrCase<"silu", 5>;
def Boo_ActLeakyRelu : I32EnumAttrCase<"leaky_relu", 6>;
def Boo_ActClamp     : I32EnumAttrCase<"clamp", 7>;

def Boo_ActivationKind : I32EnumAttr<"ActivationKind",
    "element-wise activation function",
    [Boo_ActRelu, Boo_ActSigmoid, Boo_ActTanh, Boo_ActGelu, Boo_ActGeluTanh,
     Boo_ActSilu, Boo_ActLeakyRelu, Boo_ActClamp]> {
  let cppNamespace = "::mlir::boo";
}

#endif // BOO_DIALECT_BOO_IR_BOOATTRS_TD
