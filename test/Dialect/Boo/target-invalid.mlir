// RUN: boo-opt %s -split-input-file -verify-diagnostics

// Every message of the #boo.target verifier and of the dialect's check of
// the `boo.target` module attribute.

// expected-error@+1 {{unsupported chip 'gfx000'; supported: gfx90a, gfx942, gfx950, gfx1100, gfx1201}}
#t = #boo.target<chip = "gfx000">

// -----

// expected-error@+1 {{'builtin.module' op 'boo.target' must be a #boo.target, got "gfx942"}}
module attributes {boo.target = "gfx942"} {
}

// -----

// expected-error@+1 {{'func.func' op 'boo.target' belongs on a builtin.module}}
func.func @target_on_func() attributes {boo.target = #boo.target<chip = "gfx942">} {
  return
}

// -----

// A nested module with a chip of its own is checked against its own chip,
// so an unsupported name there is still an error.
module attributes {boo.target = #boo.target<chip = "gfx942">} {
  // expected-error@+1 {{unsupported chip 'gfx9000'; supported: gfx90a, gfx942, gfx950, gfx1100, gfx1201}}
  module attributes {boo.target = #boo.target<chip = "gfx9000">} {
  }
}
