// Non-default configs for the 2x32x32x64 -> 64 3x3 bf16 NHWC convolution
// (loops n, oh, ow, f, c, kh, kw), used by tuning-configs.test. The
// heuristic picks 16x16 tiles, one subgroup, a 32-wide K step, two stages.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_cdna(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op,
        "conv_2d_bfloat16_forward_2x32x32x64_nhwc_64x3x3x64_fhwc_nhwf_1x1s_1x1p_1x1d_1g"
        chip "gfx942" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  // 32x32x8 MFMA, two subgroups along f, a 16-wide K step, one stage.
  transform.named_sequence @config_cdna(
      %op: !transform.any_op {transform.readonly}) {
    %config = transform.param.constant #boo.lowering_config<
        workgroup = [1, 32, 1, 64, 0, 0, 0],
        reduction = [0, 0, 0, 0, 16, 1, 1],
        subgroup = [1, 32, 1, 32, 0, 0, 0],
        workgroup_size = [128, 1, 1], subgroup_size = 64,
        mma = "MFMA_F32_32x32x8_BF16", mma_loops = [3, 1, 4],
        promote_operands = [0, 1], pipeline_depth = 1> -> !transform.any_param
    transform.annotate %op "boo.lowering_config" = %config
        : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @match_rdna(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op,
        "conv_2d_bfloat16_forward_2x32x32x64_nhwc_64x3x3x64_fhwc_nhwf_1x1s_1x1p_1x1d_1g"
        chip "gfx1100" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  // WMMA, 2x2 subgroups of 16x32, a 16-wide K step, one stage.
  transform.named_sequence @config_rdna(
      %op: !transform.any_op {transform.readonly}) {
    %config = transform.param.constant #boo.lowering_config<
        workgroup = [1, 32, 1, 64, 0, 0, 0],
        reduction = [0, 0, 0, 0, 16, 1, 1],
        subgroup = [1, 16, 1, 32, 0, 0, 0],
        workgroup_size = [128, 1, 1], subgroup_size = 32,
        mma = "WMMA_F32_16x16x16_BF16", mma_loops = [3, 1, 4],
        promote_operands = [0, 1], pipeline_depth = 1> -> !transform.any_param
    transform.annotate %op "boo.lowering_config" = %config
        : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @__boo_kernel_config(
      %root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %res = transform.foreach_match in %root
        @match_cdna -> @config_cdna, @match_rdna -> @config_rdna
        : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
