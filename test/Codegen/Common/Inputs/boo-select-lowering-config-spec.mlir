// A tuning spec for boo-select-lowering-config-spec.mlir (not a test).
// Three rules; the entry point tries them in order for every kernel.
module attributes {transform.with_named_sequence} {

  // Rule 1: one exact problem on gfx942: 32x32x8 MFMA instead of the
  // heuristic's 16x16x16. (A config names a wave size and intrinsics, so
  // rules are per chip or family.)
  transform.named_sequence @match_conv_56x56(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.boo.match.problem %op,
        "conv_2d_float16_forward_2x56x56x64_nhwc_64x3x3x64_fhwc_nhwf_1x1s_1x1p_1x1d_1g"
        chip "gfx942" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @config_conv_56x56(%op: !transform.any_op {transform.readonly}) {
    %c = transform.param.constant #boo.lowering_config<
        workgroup = [1, 64, 1, 64, 0, 0, 0], reduction = [0, 0, 0, 0, 16, 1, 1],
        subgroup = [1, 32, 1, 32, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64,
        mma = "MFMA_F32_32x32x8_F16", mma_loops = [3, 1, 4],
        promote_operands = [0, 1], pipeline_depth = 2> -> !transform.any_param
    transform.annotate %op "boo.lowering_config" = %c : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Rule 2: a glob over 16-bit layer norms with 1024-wide rows, only on
  // gfx94x: 8 elements per thread.
  transform.named_sequence @match_ln_1024(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.boo.match.problem %op, "layer_norm_1d_*float16_forward_*x1024*" chip "gfx94*"
        : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @config_ln_1024(%op: !transform.any_op {transform.readonly}) {
    %c = transform.param.constant #boo.lowering_config<
        workgroup = [1, 0], reduction = [0, 1024], thread = [0, 8],
        workgroup_size = [128, 1, 1], subgroup_size = 64> -> !transform.any_param
    transform.annotate %op "boo.lowering_config" = %c : !transform.any_op, !transform.any_param
    transform.yield
  }

  // Rule 3: any conv fused with a relu (on CDNA: wave64).
  transform.named_sequence @match_conv_relu(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.boo.match.problem %op, "conv_*+relu" chip "gfx9*" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @config_conv_relu(%op: !transform.any_op {transform.readonly}) {
    %c = transform.param.constant #boo.lowering_config<
        workgroup = [1, 8, 8, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 3, 3],
        thread = [1, 2, 1, 2, 0, 0, 0], workgroup_size = [128, 1, 1],
        subgroup_size = 64> -> !transform.any_param
    transform.annotate %op "boo.lowering_config" = %c : !transform.any_op, !transform.any_param
    transform.yield
  }

  transform.named_sequence @__boo_kernel_config(%root: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %res = transform.foreach_match in %root
        @match_conv_56x56 -> @config_conv_56x56,
        @match_ln_1024 -> @config_ln_1024,
        @match_conv_relu -> @config_conv_relu
        : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
