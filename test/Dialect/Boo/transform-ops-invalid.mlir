// RUN: boo-opt %s -split-input-file -verify-diagnostics

// Every message of transform.boo.match.problem's verifier.

module attributes {transform.with_named_sequence} {
  transform.named_sequence @bad_pattern(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    // expected-error@+1 {{'transform.boo.match.problem' op invalid pattern 'conv_[a-': }}
    transform.boo.match.problem %op, "conv_[a-" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
}

// -----

module attributes {transform.with_named_sequence} {
  transform.named_sequence @bad_chip(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    // expected-error@+1 {{'transform.boo.match.problem' op invalid chip pattern 'gfx{942': }}
    transform.boo.match.problem %op, "*" chip "gfx{942" : !transform.any_op
    transform.yield %op : !transform.any_op
  }
}
