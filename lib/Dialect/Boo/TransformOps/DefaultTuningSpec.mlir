// The tuning spec compiled into Boo (docs/TuningSpec.md). It is used by
// boo-select-lowering-config when neither the `tuning-spec` option nor
// BOO_TUNING_SPEC_PATH names a spec. Kernels no rule matches get the
// heuristic config.
//
// Rules here are for problems whose best config differs from the heuristic.
// Each rule is a matcher (transform.boo.match.problem on the kernel's problem
// signature and chip) and an action (transform.annotate with the config).

module attributes {transform.with_named_sequence} {

  // The bf16 1x1 conv of IREE BOO's tuning example (N=128, 24x48, C=128,
  // K=384, NHWC). The heuristic puts M on ow (48, a 64-wide tile wastes a
  // quarter); on the batch instead M and N tile evenly by 128 with 32x32
  // MFMA. The intrinsic's M is on k, along which the output is contiguous:
  // each lane's runs of 4 accumulator rows are vector stores.
  transform.named_sequence @match_conv_1x1_128x24x48x128_k384_bf16_cdna(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op,
        "conv_2d_bfloat16_forward_128x24x48x128_nhwc_384x1x1x128_fhwc_nhwf_1x1s_0x0p_1x1d_1g"
        chip "{gfx942,gfx950}" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @config_conv_1x1_128x24x48x128_k384_bf16_cdna(
      %op: !transform.any_op {transform.readonly}) {
    %config = transform.param.constant #boo.lowering_config<
        workgroup = [128, 128, 1, 1, 0, 0, 0],
        reduction = [0, 0, 0, 0, 32, 1, 1],
        subgroup = [64, 64, 1, 1, 0, 0, 0],
        workgroup_size = [256, 1, 1], subgroup_size = 64,
        mma = "MFMA_F32_32x32x8_BF16", mma_loops = [1, 0, 4],
        promote_operands = [0, 1], pipeline_depth = 2> -> !transform.any_param
    transform.annotate %op "boo.lowering_config" = %config
        : !transform.any_op, !transform.any_param
    transform.yield
  }

  // The same problem on RDNA3/4: wave32, 16x16x16 WMMA, 2x2 subgroups.
  transform.named_sequence @match_conv_1x1_128x24x48x128_k384_bf16_rdna(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op,
        "conv_2d_bfloat16_forward_128x24x48x128_nhwc_384x1x1x128_fhwc_nhwf_1x1s_0x0p_1x1d_1g"
        chip "gfx1[12]*" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @config_conv_1x1_128x24x48x128_k384_bf16_rdna(
      %op: !transform.any_op {transform.readonly}) {
    %config = transform.param.constant #boo.lowering_config<
        workgroup = [64, 64, 1, 1, 0, 0, 0],
        reduction = [0, 0, 0, 0, 32, 1, 1],
        subgroup = [32, 32, 1, 1, 0, 0, 0],
        workgroup_size = [128, 1, 1], subgroup_size = 32,
        mma = "WMMA_F32_16x16x16_BF16", mma_loops = [0, 1, 4],
        promote_operands = [0, 1], pipeline_depth = 2> -> !transform.any_param
    transform.annotate %op "boo.lowering_config" = %config
        : !transform.any_op, !transform.any_param
    transform.yield
  }

  // The entry point: the first matching rule wins for each kernel.
  transform.named_sequence @__boo_kernel_config(
      %root: !transform.any_op {transform.consumed}) -> !transform.any_op {
    %res = transform.foreach_match in %root
        @match_conv_1x1_128x24x48x128_k384_bf16_cdna
          -> @config_conv_1x1_128x24x48x128_k384_bf16_cdna,
        @match_conv_1x1_128x24x48x128_k384_bf16_rdna
          -> @config_conv_1x1_128x24x48x128_k384_bf16_rdna
        : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
