// A tuning spec whose config is fine on its own but wrong for gfx942
// (wave32), for boo-select-lowering-config-spec.mlir (not a test).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.boo.match.problem %op, "layer_norm_*" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @config(%op: !transform.any_op {transform.readonly}) {
    %c = transform.param.constant #boo.lowering_config<
        workgroup = [1, 0], reduction = [0, 1024], thread = [0, 8],
        workgroup_size = [128, 1, 1], subgroup_size = 32> -> !transform.any_param
    transform.annotate %op "boo.lowering_config" = %c : !transform.any_op, !transform.any_param
    transform.yield
  }
  transform.named_sequence @__boo_kernel_config(%root: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %res = transform.foreach_match in %root @match -> @config
        : (!transform.any_op) -> !transform.any_op
    transform.yield %res : !transform.any_op
  }
}
