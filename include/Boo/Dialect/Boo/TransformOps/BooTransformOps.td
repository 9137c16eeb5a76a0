//===- BooTransformOps.td - Boo transform extension --------*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The transform ops tuning specs use to match Boo kernels (docs/TuningSpec.md).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TRANSFORMS_BOOTRANSFORMOPS_TD
#define BOO_TRANSFORMS_BOOTRANSFORMOPS_TD

include "mlir/Dialect/Transform/IR/TransformDialect.td"
include "mlir/Dialect/Transform/Interfaces/MatchInterfaces.td"
include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Boo_MatchProblemOp : Op<Transform_Dialect, "boo.match.problem",
    [SingleOpMatcher, MatchOpInterface, MemoryEffectsOpInterface]> {
  let summary = "Matches a Boo kernel by its problem signature";
  let description = [{
    Succeeds if the payload op is a Boo kernel (a `boo.fusion`, or an anchor
    or element-wise op outside a fusion) whose problem signature matches the
    glob `pattern` (`*`, `?`, `[a-z]`, `{a,b}`), and, with `chip`, if the
    chip of the enclosing module's `boo.target` matches that glob. Produces
    a silenceable failure otherwise, so `transform.foreach_match` tries the
    next matcher. The signature follows IREE BOO's function names, e.g.

    ```
    conv_2d_bfloat16_forward_128x24x48x128_nhwc_384x1x1x128_fhwc_nhwf_1x1s_0x0p_1x1d_1g
    layer_norm_1d_float16_forward_8x64_w_b
    conv_2d_float16_forward_b_1x8x8x4_nhwc_8x3x3x4_fhwc_nhwf_1x1s_1x1p_1x1d_1g+relu
    ```

    (the last one is a fusion: `+` and its epilogue ops follow the anchor's
    signature). docs/TuningSpec.md gives the grammar; `boo-opt
    --boo-select-lowering-config=print-signatures=true` prints each kernel's
    signature as a remark.

    ```mlir
    transform.named_sequence @match_conv(%op: !transform.any_op {transform.readonly})
        -> !transform.any_op {
      transform.boo.match.problem %op, "conv_2d_bfloat16_forward_*_1x1s_*" chip "gfx94*"
          : !transform.any_op
      transform.yield %op : !transform.any_op
    }
    ```
  }];
  let arguments = (ins TransformHandleTypeInterface:$operand_handle,
                       StrAttr:$pattern,
                       OptionalAttr<StrAttr>:$chip);
  let assemblyFormat = [{
    $operand_handle `,` $pattern (`chip` $chip^)? attr-dict
    `:` type($operand_handle)
  }];
  let hasVerifier = 1;
  let cppNamespace = "::mlir::boo";
  let extraClassDeclaration = SingleOpMatcher.extraDeclaration;
}

#endif // BOO_TRANSFORMS_BOOTRANSFORMOPS_TD
