// RUN: boo-opt %s -split-input-file -verify-diagnostics

// Every message of the #boo.stride_phases verifier.

// expected-error@+1 {{input_loops, tap_loops, strides, dilations and offsets must have one entry each per spatial dim}}
#p = #boo.stride_phases<input_loops = [2, 3], tap_loops = [5], strides = [2, 2], dilations = [1, 1], offsets = [1, 1]>

// -----

// expected-error@+1 {{entry 1: strides and dilations must be >= 1}}
#p = #boo.stride_phases<input_loops = [2, 3], tap_loops = [5, 6], strides = [2, 0], dilations = [1, 1], offsets = [1, 1]>

// -----

// expected-error@+1 {{entry 0: loop 5 is negative or named twice}}
#p = #boo.stride_phases<input_loops = [5], tap_loops = [5], strides = [2], dilations = [1], offsets = [0]>

// -----

// expected-error@+1 {{entry 0: loop -1 is negative or named twice}}
#p = #boo.stride_phases<input_loops = [-1], tap_loops = [5], strides = [2], dilations = [1], offsets = [0]>
