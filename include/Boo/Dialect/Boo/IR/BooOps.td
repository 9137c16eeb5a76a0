//===- BooOps.td - Boo operations --------------------------*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_BOOOPS_TD
#define BOO_DIALECT_BOO_IR_BOOOPS_TD

include "Boo/Dialect/Boo/IR/BooBase.td"
include "Boo/Dialect/Boo/IR/BooAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// Attributes shared by the three convolution ops. Absent strides/dilations
/// mean 1, absent padding means 0, absent layouts mean MIOpen's defaults
/// (NCHW activations, KCYX filters; NCW/NCDHW for 1-D/3-D).
defvar Boo_ConvAttrs = (ins
  OptionalAttr<DenseI64ArrayAttr>:$strides,
  OptionalAttr<DenseI64ArrayAttr>:$dilations,
  OptionalAttr<DenseI64ArrayAttr>:$padding_low,
  OptionalAttr<DenseI64ArrayAttr>:$padding_high,
  DefaultValuedAttr<I64Attr, "1">:$groups,
  OptionalAttr<StrAttr>:$input_layout,
  OptionalAttr<StrAttr>:$filter_layout,
  OptionalAttr<StrAttr>:$output_layout
);

class Boo_ConvLikeOp<string mnemonic, list<Trait> traits = []>
    : Boo_Op<mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
  code convExtraDecls = [{
    /// The problem geometry (sizes, strides, layouts) of this convolution.
    /// Only valid on a verified op.
    ::mlir::boo::ConvGeometry getGeometry();
  }];
}

def Boo_ConvOp : Boo_ConvLikeOp<"conv"> {
  let summary = "forward convolution, 1-D/2-D/3-D, grouped, any layout";
  let description = [{
    Computes, for every batch `n`, group `g`, output channel `k` of that group
    and output position `o` (one index per spatial dim):

    ```
    out[n, g*K/G + k, o] = bias[g*K/G + k]
        + sum_{c < C/G, f} in[n, g*C/G + c, o*stride + f*dilation - pad_low]
                           * filter[g*K/G + k, c, f]
    ```

    where out-of-range input positions read zero. The layouts name the order
    of the dimensions of each tensor: activations use `N`, `C` and `D`,`H`,`W`
    (`W` only for 1-D, `H`,`W` for 2-D); filters use `K` (also spelled `F` or
    `N`, as MIOpen does), `C` and `Z`,`Y`,`X` (also spelled `D`,`H`,`W`). The
    filter's `C` extent is the channels per group. The result type is fully
    determined by the operands and attributes and is verified.

    Example (NHWC, 3x3, stride 2, padding 1):

    ```mlir
    %y = boo.conv %x, %w bias(%b : tensor<16xf32>) {
           strides = array<i64: 2, 2>, padding_low = array<i64: 1, 1>,
           padding_high = array<i64: 1, 1>, input_layout = "NHWC",
           filter_layout = "KYXC", output_layout = "NHWC"}
         : tensor<2x9x9x8xf32>, tensor<16x3x3x8xf32> -> tensor<2x5x5x16xf32>
    ```
  }];
  let arguments = !con((ins Boo_FloatTensor:$input, Boo_FloatTensor:$filter,
                            Optional<Boo_FloatTensor>:$bias), Boo_ConvAttrs);
  let results = (outs Boo_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $filter (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict
    `:` type($input) `,` type($filter) `->` type($output)
  }];
  let extraClassDeclaration = convExtraDecls;
}

def Boo_ConvBwdDataOp : Boo_ConvLikeOp<"conv_bwd_data"> {
  let summary = "gradient of a convolution with respect to its input";
  let description = [{
    Given the gradient of a forward `boo.conv`'s output and its filter,
    computes the gradient with respect to the input. All attributes mean
    exactly what they mean on the forward op it differentiates. The result
    type (the forward input's shape) is not determined by the operands when
    stride > 1, so it is spelled out and verified against the operands.

    ```mlir
    %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>}
          : tensor<1x4x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x9x9xf32>
    ```
  }];
  let arguments = !con((ins Boo_FloatTensor:$grad_output,
                            Boo_FloatTensor:$filter), Boo_ConvAttrs);
  let results = (outs Boo_FloatTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $filter attr-dict
    `:` type($grad_output) `,` type($filter) `->` type($grad_input)
  }];
  let extraClassDeclaration = convExtraDecls;
}

def Boo_ConvBwdWeightOp : Boo_ConvLikeOp<"conv_bwd_weight"> {
  let summary = "gradient of a convolution with respect to its filter";
  let description = [{
    Given the gradient of a forward `boo.conv`'s output and its input,
    computes the gradient with respect to the filter (in `filter_layout`).

    ```mlir
    %dw = boo.conv_bwd_weight %dy, %x {input_layout = "NHWC",
            filter_layout = "KYXC", output_layout = "NHWC"}
          : tensor<2x7x7x16xf32>, tensor<2x9x9x8xf32> -> tensor<16x3x3x8xf32>
    ```
  }];
  let arguments = !con((ins Boo_FloatTensor:$grad_output,
                            Boo_FloatTensor:$input), Boo_ConvAttrs);
  let results = (outs Boo_FloatTensor:$grad_filter);
  let assemblyFormat = [{
    $grad_output `,` $input attr-dict
    `:` type($grad_output) `,` type($input) `->` type($grad_filter)
  }];
  let extraClassDeclaration = convExtraDecls;
}

def Boo_ConvBwdBiasOp : Boo_Op<"conv_bwd_bias", [Pure]> {
  let summary = "gradient of a convolution's bias: sum over all but channels";
  let description = [{
    `grad_bias[k] = sum_{n, o} grad_output[n, k, o]`, where `output_layout`
    (default `NCHW`-style, i.e. channels second) says which dim is `K`.

    ```mlir
    %db = boo.conv_bwd_bias %dy {output_layout = "NHWC"}
          : tensor<2x7x7x16xbf16> -> tensor<16xbf16>
    ```
  }];
  let arguments = (ins Boo_FloatTensor:$grad_output,
                       OptionalAttr<StrAttr>:$output_layout);
  let results = (outs Boo_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_output attr-dict `:` type($grad_output) `->` type($grad_bias)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Position of the channel dim in `grad_output`. Only valid when verified.
    int64_t getChannelDim();
  }];
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

def Boo_LayerNormOp : Boo_Op<"layer_norm", [Pure, AttrSizedOperandSegments]> {
  let summary = "layer normalization over the trailing dims";
  let description = [{
    Normalizes `x` over its trailing `normalized_rank` dims. With `M` the
    number of normalized elements of a row:

    ```
    mean = sum(x) / M
    rstd = 1 / sqrt(sum((x - mean)^2) / M + epsilon)
    y    = (x - mean) * rstd * weight + bias
    ```

    `weight` and `bias` are optional and have the shape of the normalized
    dims; `mean` and `rstd` have the shape of the leading dims and the element
    type of `x` or f32. Statistics are computed in f32 (two passes).

    ```mlir
    %y, %mean, %rstd = boo.layer_norm %x weight(%w : tensor<64xf16>)
        bias(%b : tensor<64xf16>) {normalized_rank = 1 : i64,
        epsilon = 1.0e-05 : f32}
        : tensor<8x64xf16> -> tensor<8x64xf16>, tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Boo_FloatTensor:$x,
                       Optional<Boo_FloatTensor>:$weight,
                       Optional<Boo_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Boo_FloatTensor:$y, Boo_FloatTensor:$mean,
                      Boo_FloatTensor:$rstd);
  let assemblyFormat = [{
    $x (`weight` `(` $weight^ `:` type($weight) `)`)?
       (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict
    `:` type($x) `->` type($y) `,` type($mean) `,` type($rstd)
  }];
  let hasVerifier = 1;
}

def Boo_LayerNormBwdOp : Boo_Op<"layer_norm_bwd", [Pure]> {
  let summary = "gradients of a layer norm w.r.t. input, weight and bias";
  let description = [{
    Given `dy`, the forward input `x` and the forward `mean`/`rstd`, with
    `xhat = (x - mean) * rstd` and `g = dy * weight` (`weight` = 1 if absent):

    ```
    dx      = rstd * (g - mean_row(g) - xhat * mean_row(g * xhat))
    dweight = sum over rows of dy * xhat
    dbias   = sum over rows of dy
    ```

    The three results are independent computations: a function that returns
    only some of them computes only those once lowered (unused ones are
    erased as dead code).

    ```mlir
    %dx, %dw, %db = boo.layer_norm_bwd %dy, %x, %mean, %rstd
        weight(%w : tensor<64xf32>) {normalized_rank = 1 : i64}
        : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8xf32>, tensor<8xf32>
        -> tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Boo_FloatTensor:$dy, Boo_FloatTensor:$x,
                       Boo_FloatTensor:$mean, Boo_FloatTensor:$rstd,
                       Optional<Boo_FloatTensor>:$weight,
                       DefaultValuedAttr<I64Attr, "1">:$normalized_rank);
  let results = (outs Boo_FloatTensor:$dx, Boo_FloatTensor:$dweight,
                      Boo_FloatTensor:$dbias);
  let assemblyFormat = [{
    $dy `,` $x `,` $mean `,` $rstd (`weight` `(` $weight^ `:` type($weight) `)`)?
    attr-dict `:` type($dy) `,` type($x) `,` type($mean) `,` type($rstd)
    `->` type($dx) `,` type($dweight) `,` type($dbias)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Batch normalization
//===----------------------------------------------------------------------===//

def Boo_BatchNormOp : Boo_Op<"batch_norm",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "batch normalization, training or inference";
  let description = [{
    Normalizes `x` per feature: the features are the dims of `x` listed in
    `feature_dims` (the channel dim for a per-channel, "spatial", batch norm;
    every dim but the batch for MIOpen's per-activation mode), and each
    statistic is taken over the other dims, `M` values. With `s` the shape
    of `x` at the feature dims, `weight`, `bias`, `running_mean`,
    `running_var`, `mean` and `rstd` all have shape `s`.

    In training mode (`training`), the batch's statistics:

    ```
    mean = sum(x) / M
    var  = sum((x - mean)^2) / M
    rstd = 1 / sqrt(var + epsilon)
    y    = (x - mean) * rstd * weight + bias
    ```

    and, when the running statistics are given, two more results, their
    update with `momentum` (PyTorch's rule, the variance unbiased; MIOpen's
    biased one for M = 1):

    ```
    new_running_mean = (1 - momentum) * running_mean + momentum * mean
    new_running_var  = (1 - momentum) * running_var
                     + momentum * var * M / (M - 1)
    ```

    In inference mode, `mean` is `running_mean` and `rstd` is
    `1 / sqrt(running_var + epsilon)`, which both modes return. `weight` and
    `bias` are optional (1 and 0). Statistics are computed in f32 (two
    passes); the stat operands and results may have any float type.

    ```mlir
    %y, %mean, %rstd, %rm, %rv = boo.batch_norm %x weight(%w : tensor<64xf32>)
        bias(%b : tensor<64xf32>) running(%m0, %v0 : tensor<64xf32>,
        tensor<64xf32>) {feature_dims = array<i64: 3>, training}
        : tensor<8x56x56x64xbf16> -> tensor<8x56x56x64xbf16>, tensor<64xf32>,
          tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Boo_FloatTensor:$x,
                       Optional<Boo_FloatTensor>:$weight,
                       Optional<Boo_FloatTensor>:$bias,
                       Optional<Boo_FloatTensor>:$running_mean,
                       Optional<Boo_FloatTensor>:$running_var,
                       DenseI64ArrayAttr:$feature_dims,
                       UnitAttr:$training,
                       DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon,
                       DefaultValuedAttr<F32Attr, "0.1f">:$momentum);
  let results = (outs Boo_FloatTensor:$y, Boo_FloatTensor:$mean,
                      Boo_FloatTensor:$rstd,
                      Variadic<Boo_FloatTensor>:$new_running);
  let assemblyFormat = [{
    $x (`weight` `(` $weight^ `:` type($weight) `)`)?
       (`bias` `(` $bias^ `:` type($bias) `)`)?
       (`running` `(` $running_mean^ `,` $running_var `:`
        type($running_mean) `,` type($running_var) `)`)? attr-dict
    `:` type($x) `->` type($y) `,` type($mean) `,` type($rstd)
    (`,` type($new_running)^)?
  }];
  let hasVerifier = 1;
}

def Boo_BatchNormBwdOp : Boo_Op<"batch_norm_bwd", [Pure]> {
  let summary = "gradients of a training-mode batch norm";
  let description = [{
    Given `dy`, the forward input `x` and the forward batch statistics
    `mean`/`rstd` (shape `s`, `x` at `feature_dims`), with
    `xhat = (x - mean) * rstd` and sums over the non-feature dims (`M`
    values each):

    ```
    dbias   = sum(dy)
    dweight = sum(dy * xhat)
    dx      = weight * rstd * (dy - dbias / M - xhat * dweight / M)
    ```

    `weight` is optional (1). The three results are independent: unused
    ones are erased as dead code once lowered.

    ```mlir
    %dx, %dw, %db = boo.batch_norm_bwd %dy, %x, %mean, %rstd
        weight(%w : tensor<16xf32>) {feature_dims = array<i64: 1>}
        : tensor<4x16x8x8xf32>, tensor<4x16x8x8xf32>, tensor<16xf32>,
          tensor<16xf32> -> tensor<4x16x8x8xf32>, tensor<16xf32>,
          tensor<16xf32>
    ```
  }];
  let arguments = (ins Boo_FloatTensor:$dy, Boo_FloatTensor:$x,
                       Boo_FloatTensor:$mean, Boo_FloatTensor:$rstd,
                       Optional<Boo_FloatTensor>:$weight,
                       DenseI64ArrayAttr:$feature_dims);
  let results = (outs Boo_FloatTensor:$dx, Boo_FloatTensor:$dweight,
                      Boo_FloatTensor:$dbias);
  let assemblyFormat = [{
    $dy `,` $x `,` $mean `,` $rstd (`weight` `(` $weight^ `:` type($weight) `)`)?
    attr-dict `:` type($dy) `,` type($x) `,` type($mean) `,` type($rstd)
    `->` type($dx) `,` type($dweight) `,` type($dbias)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Arg-reductions
//===----------------------------------------------------------------------===//

class Boo_ArgReduceOp<string mnemonic, string which, string compare>
    : Boo_Op<mnemonic, [Pure]> {
  let summary = "the index of the " # which # " along a dim, or of all";
  let description = [{
    The index (i64) of the }] # which # [{ of `input` along `dim`, or, without
    `dim`, of the flattened `input` (row-major). Ties go to the first index,
    as PyTorch's; a NaN counts as the }] # which # [{ (the first NaN's index).
    The result drops the reduced dim (all dims without `dim`) or, under
    `keepdim`, keeps it as a dim of 1. Values are compared in f32 (exact
    for f16 and bf16): an element replaces the current one when it is
    `}] # compare # [{` it, or NaN and the current one is not.

    ```mlir
    %i = boo.}] # mnemonic # [{ %x {dim = 1 : i64}
         : tensor<4x8x16xf32> -> tensor<4x16xi64>
    ```
  }];
  let arguments = (ins Boo_FloatTensor:$input, OptionalAttr<I64Attr>:$dim,
                       UnitAttr:$keepdim);
  let results = (outs TensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Boo_ArgMaxOp : Boo_ArgReduceOp<"argmax", "maximum", ">">;
def Boo_ArgMinOp : Boo_ArgReduceOp<"argmin", "minimum", "<">;

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

def Boo_AsStridedOp : Boo_Op<"as_strided", [Pure]> {
  let summary = "a tensor read from its storage through strides";
  let description = [{
    The view PyTorch's `as_strided` makes, from offset 0: element
    `(i0, i1, ...)` of the result is element `sum(i_d * strides[d])` of the
    1-D `storage`. Strides may leave gaps (a slice of a larger matrix),
    repeat elements (a stride of 0, an expanded dim) or run in any order
    (a transposed view). Every element read must lie in the storage. It is
    how an `aten::` product operand with other than row- or column-major
    strides is read.

    ```mlir
    %a = boo.as_strided %s {strides = array<i64: 16, 1, 4>}
         : tensor<35xf32> -> tensor<3x3x3xf32>
    ```
  }];
  let arguments = (ins Boo_MatmulTensor:$storage,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Boo_MatmulTensor:$output);
  let assemblyFormat = [{
    $storage attr-dict `:` type($storage) `->` type($output)
  }];
  let hasVerifier = 1;
}

def Boo_MatmulOp : Boo_Op<"matmul", [Pure]> {
  let summary = "matrix product, 2-D or batched, with an optional bias";
  let description = [{
    With `A` = `lhs` (or its transpose, under `transpose_lhs`) of shape
    `[B,] M, K` and `B` = `rhs` (or its transpose, under `transpose_rhs`) of
    shape `[B,] K, N`, computes for every batch `b`, row `m` and column `n`:

    ```
    out[b, m, n] = alpha * sum_{k < K} A[b, m, k] * B[b, k, n]
                 + beta * bias[b, m, n]
    ```

    The operands are both 2-D (`mm`, `addmm`) or both 3-D with the same batch
    (`bmm`). `bias` is optional; it broadcasts to the result the way NumPy
    and PyTorch broadcast (trailing dims aligned, each of its dims 1 or the
    result's), so `[N]` adds a row to every row, `[M, 1]` a column to every
    column and `[M, N]` is `addmm`'s `input`. `beta` needs a bias. Products
    are accumulated in f32 (f64 for f64 operands); the result is rounded to
    the storage type once. `alpha` and `beta` are f64 attributes (PyTorch's
    Python floats), rounded to the accumulator's type.

    ```mlir
    %y = boo.matmul %a, %w bias(%b : tensor<64xbf16>) {transpose_rhs}
         : tensor<32x128xbf16>, tensor<64x128xbf16> -> tensor<32x64xbf16>
    ```
  }];
  let arguments = (ins Boo_MatmulTensor:$lhs, Boo_MatmulTensor:$rhs,
                       Optional<Boo_MatmulTensor>:$bias,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta);
  let results = (outs Boo_MatmulTensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` `(` $bias^ `:` type($bias) `)`)? attr-dict
    `:` type($lhs) `,` type($rhs) `->` type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The sizes of the product: batch (1 when 2-D), M, N and K. Only valid
    /// on a verified op.
    ::mlir::boo::MatmulSizes getSizes();
  }];
}

//===----------------------------------------------------------------------===//
// Element-wise epilogues
//===----------------------------------------------------------------------===//

def Boo_ActivationOp : Boo_Op<"activation",
    [Pure, SameOperandsAndResultType]> {
  let summary = "element-wise activation function";
  let description = [{
    Applies an activation to every element, computing in f32:

    | kind         | definition                                          |
    |--------------|-----------------------------------------------------|
    | `relu`       | `max(x, 0)`                                         |
    | `sigmoid`    | `1 / (1 + exp(-x))`                                 |
    | `tanh`       | `tanh(x)`                                           |
    | `gelu`       | `0.5 x (1 + erf(x / sqrt(2)))`                      |
    | `gelu_tanh`  | `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`   |
    | `silu`       | `x * sigmoid(x)`                                    |
    | `leaky_relu` | `x >= 0 ? x : alpha * x` (needs `alpha`)            |
    | `clamp`      | `min(max(x, min), max)` (needs `min` and `max`)     |

    ```mlir
    %y = boo.activation leaky_relu %x {alpha = 0.1 : f32} : tensor<4x8xf16>
    ```
  }];
  let arguments = (ins Boo_ActivationKind:$kind, Boo_FloatTensor:$input,
                       OptionalAttr<F32Attr>:$alpha,
                       OptionalAttr<F32Attr>:$min,
                       OptionalAttr<F32Attr>:$max);
  let results = (outs Boo_FloatTensor:$output);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

class Boo_BinaryOp<string mnemonic, string operation>
    : Boo_Op<mnemonic, [Pure, AllTypesMatch<["lhs", "output"]>]> {
  let summary = "element-wise " # operation # " with per-channel broadcasting";
  let description = [{
    Element-wise }] # operation # [{ of `lhs` and `rhs`, computed in f32. `rhs`
    either has the type of `lhs`, or is a 1-D per-channel vector whose size is
    that of `lhs`'s dim `channel_dim` (the attribute is required then), which
    is broadcast along every other dim.

    ```mlir
    %y = boo.}] # mnemonic # [{ %x, %b {channel_dim = 3 : i64}
         : tensor<2x7x7x16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Boo_FloatTensor:$lhs, Boo_FloatTensor:$rhs,
                       OptionalAttr<I64Attr>:$channel_dim);
  let results = (outs Boo_FloatTensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
  let hasVerifier = 1;
}

def Boo_AddOp : Boo_BinaryOp<"add", "addition">;
def Boo_MulOp : Boo_BinaryOp<"mul", "multiplication">;

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def Boo_FusionOp : Boo_Op<"fusion", [
    SingleBlock, RecursiveMemoryEffects]> {
  let summary = "one anchor op and its element-wise epilogue, one kernel";
  let description = [{
    Groups exactly one anchor op (a convolution, a matrix product or a layer
    norm, forward or backward) with a chain of element-wise Boo ops that
    consume it. By definition a `boo.fusion` becomes exactly one kernel: the
    epilogue is applied to the anchor's results before they are stored. The
    region may use values defined above it; its `boo.yield` gives the
    results.

    Numerics: inside a fusion, intermediate values are kept in f32 (the
    anchor's f32 accumulator flows through the epilogue) and rounded to the
    storage type once, at `boo.yield`. The same ops outside a fusion round
    each op's result to its storage type, as separate kernels would. For f32
    the two are identical; for f16/bf16 the fused form is more accurate.

    ```mlir
    %r = boo.fusion -> tensor<1x8x8x16xf32> {
      %c = boo.conv %x, %w bias(%b : tensor<16xf32>) {input_layout = "NHWC",
             filter_layout = "KYXC", output_layout = "NHWC"}
           : tensor<1x8x8x4xf32>, tensor<16x1x1x4xf32> -> tensor<1x8x8x16xf32>
      %a = boo.activation relu %c : tensor<1x8x8x16xf32>
      boo.yield %a : tensor<1x8x8x16xf32>
    }
    ```
  }];
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`->` type($results)^)? $body attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The single convolution, matrix product or layer norm op in the body.
    ::mlir::Operation *getAnchor();
  }];
}

def Boo_YieldOp : Boo_Op<"yield", [Pure, Terminator, ReturnLike,
                                   HasParent<"FusionOp">]> {
  let summary = "returns values from a boo.fusion";
  let description = [{
    ```mlir
    boo.yield %a : tensor<1x8x8x16xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // BOO_DIALECT_BOO_IR_BOOOPS_TD
