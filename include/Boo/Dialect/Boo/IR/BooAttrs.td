//===- BooAttrs.td - Boo enums and attributes --------------*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_BOOATTRS_TD
#define BOO_DIALECT_BOO_IR_BOOATTRS_TD

include "Boo/Dialect/Boo/IR/BooBase.td"
include "mlir/IR/AttrTypeBase.td"
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

//===----------------------------------------------------------------------===//
// Code generation attributes
//===----------------------------------------------------------------------===//

class Boo_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Boo_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

/// A list of integers, one per loop (or per dim), printed `[1, 64, 0]`.
class Boo_I64ListParameter<string desc>
    : OptionalArrayRefParameter<"int64_t", desc> {
  let parser = [{ ::mlir::boo::parseI64List($_parser) }];
  let printer = [{ ::mlir::boo::printI64List($_printer, $_self) }];
}

def Boo_TargetAttr : Boo_Attr<"Target", "target"> {
  let summary = "the AMD GPU a module is compiled for";
  let description = [{
    Recorded on the module, as `boo.target`, by `boo-select-lowering-config`.
    `chip` is an LLVM processor name from Boo's architecture table
    (`include/Boo/Target/ChipInfo.h`, docs/Targets.md); any other name is
    rejected with the list of supported chips.

    While a module carries `boo.target`, the verifier checks every
    `boo.lowering_config` in it against the chip: MMA availability, wave
    size, workgroup size and LDS use (`verifyLoweringConfig`).

    ```mlir
    module attributes {boo.target = #boo.target<chip = "gfx942">} { ... }
    ```
  }];
  let parameters = (ins StringRefParameter<"LLVM processor name">:$chip);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The table entry of `chip`. Only valid on a verified attribute.
    const ::mlir::boo::ChipInfo &getChipInfo() const;
  }];
}

def Boo_LoweringConfigAttr : Boo_Attr<"LoweringConfig", "lowering_config"> {
  let summary = "per-kernel code generation decisions: tiles, threads, MMA";
  let description = [{
    Attached, as `boo.lowering_config`, to every kernel by
    `boo-select-lowering-config`: to each `boo.fusion`, and to each anchor
    op (convolution, layer norm) or element-wise op outside a fusion.
    `boo-convert-to-linalg` copies it onto the kernel's **root
    `linalg.generic`**, and every tile list below has one entry per loop of
    that generic, in its loop order (`d0, d1, ...`, docs/Lowering.md):

    | kernel (for a fusion: its anchor) | root generic | loops |
    |---|---|---|
    | `boo.conv` | the accumulation | `n, [g,] k, o..., c, f...` |
    | `boo.conv_bwd_data` | the accumulation | `n, [g,] c, i..., k, f...` |
    | `boo.conv_bwd_weight` | the accumulation | `[g,] k, c, f..., n, o...` |
    | `boo.conv_bwd_bias` | the reduction | `dy`'s dims in `dy`'s layout |
    | `boo.layer_norm`, `_bwd` | the row reductions | `x`'s dims: rows, then normalized |
    | `boo.activation/add/mul` | the element-wise generic | result dims |

    `g` exists only when `groups > 1`; `o...`, `i...` and `f...` are the
    output, input and filter spatial dims (D, H, W order). For layer norms
    every row reduction (sum, centered sum of squares, the backward `Σg` and
    `Σg·xhat`) and the element-wise `y`/`dx` generic share this loop nest;
    the backward column sums (`dweight`, `dbias`) are derived by the code
    generator.

    Fields:

    - `workgroup`: the tile of each **parallel** loop one workgroup
      computes. 0 on reduction loops. 0 on a parallel loop means untiled
      (the whole extent).
    - `reduction`: the step of each **reduction** loop (the K slab staged
      per iteration). 0 on parallel loops; 0 on a reduction loop means the
      whole extent in one step.
    - `thread` (FMA path): the elements of each loop one thread computes;
      0 means the loop is not distributed over threads. A loop with a
      thread tile is distributed over `tile / thread` threads, where `tile`
      is its workgroup tile (parallel) or reduction tile (reduction: the
      threads then combine partial sums). The threads of all distributed
      loops must make exactly `workgroup_size`.
    - `subgroup` (MMA path): the same for subgroups (waves): the parallel
      tile each subgroup computes with MMA intrinsics. The subgroups of all
      distributed loops times `subgroup_size` make `workgroup_size`.
    - `workgroup_size = [x, y, z]`: threads per workgroup, at most 1024 in
      total, a multiple of `subgroup_size`.
    - `subgroup_size`: the wave size the kernel is compiled for (the
      chip's: 64 on CDNA, 32 on RDNA).
    - `mma`: an intrinsic of the architecture table (e.g.
      `"MFMA_F32_16x16x16_F16"`), or absent for the FMA (scalar/vector ALU)
      path.
    - `mma_loops = [m, n, k]`: the loops that map onto the intrinsic's M, N
      and K dims (with `mma`): one M and one N loop of the implicit GEMM, in
      either order (a loop split by stride phase only as the intrinsic's
      M), and a K loop. Their workgroup (M, N) and reduction (K)
      tiles, and the subgroup tiles on M and N, are multiples of the
      intrinsic's M, N, K; every other loop of the subgroup tile is looped
      over by the subgroup.
    - `promote_operands`: indices of the root generic's inputs (`ins`)
      whose tiles are staged through LDS (shared memory); MMA path only
      (input 0 is A, input 1 is B; an unstaged one is read from global
      memory straight into fragments). FMA kernels read their operands
      from global memory, so an FMA config with it is rejected.
    - `pipeline_depth`: 1 = single-buffered LDS copies, 2 = double-buffered
      (the next reduction step's copy overlaps the current step's math).
    - `split_k` (MMA path, default 1): split the reduction steps over this
      many workgroups per output tile (split-K, for problems with too few
      output tiles to fill the chip: weight gradients above all). Each
      writes its f32 partial sums to a device temporary, and a second
      kernel adds them in split order (deterministic) and runs the
      epilogue.

    **Tiles need not divide the problem.** The code generator masks
    partial tiles at the boundary (loads outside the problem read zero,
    stores outside are dropped), so a 64-wide tile of a 35-wide loop is one
    partial tile. Distribution tiles (thread, subgroup) must divide their
    workgroup/reduction tiles, and MMA tiles must be multiples of the
    intrinsic's shape.

    Checked without a chip by this attribute's verifier; checked against
    the kernel op and `boo.target`'s chip by `verifyLoweringConfig` (tile
    count = the root generic's loop count, reduction tiles only on
    reduction loops, MMA input types, MMA availability on the chip, wave
    size, LDS bytes of the promoted tiles times `pipeline_depth`).

    ```mlir
    // bf16 NHWC conv, loops (n, k, oh, ow, c, fh, fw), on gfx942: 64x64
    // output tiles of ow x k by 4 waves of 32x32, K slabs of 32 channels.
    #boo.lowering_config<workgroup = [1, 64, 1, 64, 0, 0, 0],
        reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [1, 32, 1, 32, 0, 0, 0],
        workgroup_size = [256, 1, 1], subgroup_size = 64,
        mma = "MFMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4],
        promote_operands = [0, 1], pipeline_depth = 2>
    ```
  }];
  let parameters = (ins
    Boo_I64ListParameter<"workgroup tile per loop">:$workgroup,
    Boo_I64ListParameter<"reduction tile per loop">:$reduction,
    Boo_I64ListParameter<"thread tile per loop (FMA path)">:$thread,
    Boo_I64ListParameter<"subgroup tile per loop (MMA path)">:$subgroup,
    Boo_I64ListParameter<"threads per workgroup, [x, y, z]">:$workgroup_size,
    "int64_t":$subgroup_size,
    StringRefParameter<"MMA intrinsic name, empty for FMA", [{""}]>:$mma,
    Boo_I64ListParameter<"loops mapped to the MMA's M, N, K">:$mma_loops,
    Boo_I64ListParameter<"root-generic inputs staged in LDS">:$promote_operands,
    DefaultValuedParameter<"int64_t", "1",
                           "1 single-, 2 double-buffered">:$pipeline_depth,
    DefaultValuedParameter<"int64_t", "1",
                           "workgroups sharing one output tile's reduction">:$split_k
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of loops of the root generic (the length of `workgroup`).
    int64_t getNumLoops() const { return getWorkgroup().size(); }
    /// The tile of loop `i` at the workgroup level: its workgroup tile if
    /// non-zero, else its reduction tile (0: untiled).
    int64_t getLevelTile(int64_t i) const;
    /// Total threads per workgroup.
    int64_t getNumThreads() const;
    /// True on the MMA path.
    bool hasMma() const { return !getMma().empty(); }
  }];
}

def Boo_StridePhasesAttr : Boo_Attr<"StridePhases", "stride_phases"> {
  let summary = "which filter taps of a strided backward data are zero";
  let description = [{
    Attached, as `boo.stride_phases`, by `boo-convert-to-linalg` to the
    accumulation generic of a `boo.conv_bwd_data` with a stride > 1. That
    generic reads the gradient through a zero-stuffed, padded view, so for
    entry `j` the product at output-position loop `input_loops[j]` (value
    `i`) and filter-tap loop `tap_loops[j]` (value `f`) is zero unless

        (i + dilations[j] * f - offsets[j]) mod strides[j] == 0

    Code generators use it to visit only the taps that can contribute
    (stride-phase decomposition, docs/GPUPipeline.md): for each `i` those
    taps are `f = r(i) + (s / gcd(s, d)) * u`, about `1 / s` of them. It is
    a fact the lowering states about the generic; a generic without it is
    computed as written, taps of zeros included.

    ```mlir
    // 3x3 stride-2 backward data, loops (n, c, ih, iw, k, fh, fw).
    #boo.stride_phases<input_loops = [2, 3], tap_loops = [5, 6],
                       strides = [2, 2], dilations = [1, 1], offsets = [1, 1]>
    ```
  }];
  let parameters = (ins
    Boo_I64ListParameter<"output-position loop per entry">:$input_loops,
    Boo_I64ListParameter<"filter-tap loop per entry">:$tap_loops,
    Boo_I64ListParameter<"stride per entry (>= 1)">:$strides,
    Boo_I64ListParameter<"dilation per entry (>= 1)">:$dilations,
    Boo_I64ListParameter<"offset of the stuffed gradient per entry">:$offsets
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // BOO_DIALECT_BOO_IR_BOOATTRS_TD
