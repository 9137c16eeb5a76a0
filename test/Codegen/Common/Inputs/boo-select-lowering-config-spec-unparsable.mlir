// Not a tuning spec: the config has a thread tile that does not divide its
// workgroup tile, which the attribute's parser rejects.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__boo_kernel_config(%root: !transform.any_op {transform.consumed})
      -> !transform.any_op {
    %c = transform.param.constant #boo.lowering_config<
        workgroup = [1, 64], thread = [1, 3], workgroup_size = [64, 1, 1],
        subgroup_size = 64> -> !transform.any_param
    transform.yield %root : !transform.any_op
  }
}
