// RUN: boo-opt %s -split-input-file -verify-diagnostics

// Every verifier message of the boo dialect has a case here.

func.func @conv_rank(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) {
  // expected-error@+1 {{input must have rank 3, 4 or 5 (1-D, 2-D or 3-D convolution), got rank 2}}
  %0 = boo.conv %x, %w : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3xf32>) {
  // expected-error@+1 {{filter rank 3 does not match input rank 4}}
  %0 = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @conv_dynamic(%x: tensor<?x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{all dims must be static and positive}}
  %0 = boo.conv %x, %w : tensor<?x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @layout_length(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{activation layout 'NHW' has 3 letters, expected 4 (e.g. 'NCHW')}}
  %0 = boo.conv %x, %w {input_layout = "NHW"} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @layout_letter(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{filter layout 'KCYQ' has unexpected letter 'Q' (expected a permutation of 'KCYX')}}
  %0 = boo.conv %x, %w {filter_layout = "KCYQ"} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @layout_twice(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{activation layout 'NCHH' names a dim twice (expected a permutation of 'NCHW')}}
  %0 = boo.conv %x, %w {output_layout = "NCHH"} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @strides_count(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{'strides' has 1 values, expected 2 (one per spatial dim)}}
  %0 = boo.conv %x, %w {strides = array<i64: 1>} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @strides_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{'strides' must be positive, got 0}}
  %0 = boo.conv %x, %w {strides = array<i64: 1, 0>} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @padding_negative(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{'padding_low' must be non-negative, got -1}}
  %0 = boo.conv %x, %w {padding_low = array<i64: -1, 0>} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @groups_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{'groups' must be positive, got 0}}
  %0 = boo.conv %x, %w {groups = 0 : i64} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @groups_in_channels(%x: tensor<1x5x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error@+1 {{input channels (5) are not divisible by groups (2)}}
  %0 = boo.conv %x, %w {groups = 2 : i64} : tensor<1x5x8x8xf32>, tensor<4x2x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @groups_out_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<3x2x3x3xf32>) {
  // expected-error@+1 {{output channels (3) are not divisible by groups (2)}}
  %0 = boo.conv %x, %w {groups = 2 : i64} : tensor<1x4x8x8xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x6x6xf32>
  return
}

// -----

func.func @filter_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{filter has 4 input channels, expected 2 (input channels / groups)}}
  %0 = boo.conv %x, %w {groups = 2 : i64} : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @empty_output(%x: tensor<1x4x2x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{output spatial dim 0 would be empty: input extent 2 with padding 0+0 is smaller than the dilated filter extent 3}}
  %0 = boo.conv %x, %w : tensor<1x4x2x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x1x6xf32>
  return
}

// -----

func.func @element_types(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf16>) {
  // expected-error@+1 {{requires input, filter and output to have the same element type, got 'f32', 'f16' and 'f32'}}
  %0 = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf16> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @result_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{result shape 1x4x8x8 does not match the shape implied by the input, filter and attributes: 1x4x6x6}}
  %0 = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @bwd_data_shape(%dy: tensor<1x4x4x4xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{grad_output shape 1x4x4x4 does not match the shape implied by the input, filter and attributes: 1x4x7x7}}
  %0 = boo.conv_bwd_data %dy, %w : tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x9x9xf32>
  return
}

// -----

func.func @bias_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{bias must have shape [4] (output channels), got 'tensor<3xf32>'}}
  %0 = boo.conv %x, %w bias(%b : tensor<3xf32>) : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @bias_type(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4xf16>) {
  // expected-error@+1 {{bias element type 'f16' differs from the input element type}}
  %0 = boo.conv %x, %w bias(%b : tensor<4xf16>) : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @bwd_bias_rank(%dy: tensor<4x4xf32>) {
  // expected-error@+1 {{grad_output must have rank 3, 4 or 5, got rank 2}}
  %0 = boo.conv_bwd_bias %dy : tensor<4x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @bwd_bias_layout(%dy: tensor<1x4x8x8xf32>) {
  // expected-error@+1 {{activation layout 'NCHX' has unexpected letter 'X' (expected a permutation of 'NCHW')}}
  %0 = boo.conv_bwd_bias %dy {output_layout = "NCHX"} : tensor<1x4x8x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @bwd_bias_shape(%dy: tensor<1x8x8x4xf32>) {
  // expected-error@+1 {{grad_bias must have shape [4] (the channels of grad_output), got 'tensor<8xf32>'}}
  %0 = boo.conv_bwd_bias %dy {output_layout = "NHWC"} : tensor<1x8x8x4xf32> -> tensor<8xf32>
  return
}

// -----

func.func @bwd_bias_type(%dy: tensor<1x4x8x8xf32>) {
  // expected-error@+1 {{grad_bias element type differs from grad_output's}}
  %0 = boo.conv_bwd_bias %dy : tensor<1x4x8x8xf32> -> tensor<4xbf16>
  return
}

// -----

func.func @norm_rank(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{normalized_rank must be in [1, 2] (the rank of x), got 3}}
  %0:3 = boo.layer_norm %x {normalized_rank = 3 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @norm_dynamic(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{requires static shapes}}
  %0:3 = boo.layer_norm %x : tensor<?x8xf32> -> tensor<?x8xf32>, tensor<?xf32>, tensor<?xf32>
  return
}

// -----

func.func @norm_mean_shape(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{mean must have the shape of x's leading 1 dims, got 'tensor<8xf32>'}}
  %0:3 = boo.layer_norm %x : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>
  return
}

// -----

func.func @norm_rstd_type(%x: tensor<4x8xf16>) {
  // expected-error@+1 {{rstd element type must be f32 or x's element type, got 'bf16'}}
  %0:3 = boo.layer_norm %x : tensor<4x8xf16> -> tensor<4x8xf16>, tensor<4xf32>, tensor<4xbf16>
  return
}

// -----

func.func @norm_weight_shape(%x: tensor<4x8xf32>, %w: tensor<4xf32>) {
  // expected-error@+1 {{weight must have the shape of the normalized dims, got 'tensor<4xf32>'}}
  %0:3 = boo.layer_norm %x weight(%w : tensor<4xf32>) : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @norm_bias_type(%x: tensor<4x8xf32>, %b: tensor<8xf16>) {
  // expected-error@+1 {{bias element type differs from x's}}
  %0:3 = boo.layer_norm %x bias(%b : tensor<8xf16>) : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @norm_y_type(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{result y must have the type of x, got 'tensor<4x8xf16>'}}
  %0:3 = boo.layer_norm %x : tensor<4x8xf32> -> tensor<4x8xf16>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @norm_epsilon(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{epsilon must be non-negative}}
  %0:3 = boo.layer_norm %x {epsilon = -1.0 : f32} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @norm_bwd_types(%dy: tensor<4x8xf16>, %x: tensor<4x8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error@+1 {{dy, x and dx must have the same type}}
  %0:3 = boo.layer_norm_bwd %dy, %x, %m, %r : tensor<4x8xf16>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @norm_bwd_dweight(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error@+1 {{dweight must have the normalized dims' shape and x's element type, got 'tensor<4xf32>'}}
  %0:3 = boo.layer_norm_bwd %dy, %x, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>
  return
}

// -----

func.func @bn_y_type(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{result y must have the type of x, got 'tensor<2x3xf16>'}}
  %0:3 = boo.batch_norm %x {feature_dims = array<i64: 1>, training} : tensor<2x3xf32> -> tensor<2x3xf16>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_eps(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{epsilon must be finite and non-negative}}
  %0:3 = boo.batch_norm %x {feature_dims = array<i64: 1>, training, epsilon = -1.0 : f32} : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_momentum(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{momentum must be in [0, 1], got 2}}
  %0:3 = boo.batch_norm %x {feature_dims = array<i64: 1>, training, momentum = 2.0 : f32} : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_dynamic(%x: tensor<?x3xf32>) {
  // expected-error@+1 {{requires static shapes, got 'tensor<?x3xf32>'}}
  %0:3 = boo.batch_norm %x {feature_dims = array<i64: 1>, training} : tensor<?x3xf32> -> tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_feature_range(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{feature_dims must be dims of x (0 to 1), got 2}}
  %0:3 = boo.batch_norm %x {feature_dims = array<i64: 2>, training} : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_feature_order(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{feature_dims must be strictly increasing}}
  %0:3 = boo.batch_norm %x {feature_dims = array<i64: 2, 1>, training} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>, tensor<4x3xf32>, tensor<4x3xf32>
  return
}

// -----

func.func @bn_stat_shape(%x: tensor<2x3xf32>, %w: tensor<2xf32>) {
  // expected-error@+1 {{weight must have x's shape at the feature dims ('tensor<3xf32>' up to its element type), got 'tensor<2xf32>'}}
  %0:3 = boo.batch_norm %x weight(%w : tensor<2xf32>) {feature_dims = array<i64: 1>, training} : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_running_pair(%x: tensor<2x3xf32>, %m: tensor<3xf32>) {
  // expected-error@+1 {{running_mean and running_var go together}}
  %0:3 = "boo.batch_norm"(%x, %m) {feature_dims = array<i64: 1>, training, operandSegmentSizes = array<i32: 1, 0, 0, 1, 0>} : (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @bn_inference_running(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{inference (no 'training') needs running_mean and running_var}}
  %0:3 = boo.batch_norm %x {feature_dims = array<i64: 1>} : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_updates(%x: tensor<2x3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) {
  // expected-error@+1 {{expected 2 new running statistics (2 in training with running statistics, else 0), got 0}}
  %0:3 = boo.batch_norm %x running(%m, %v : tensor<3xf32>, tensor<3xf32>) {feature_dims = array<i64: 1>, training} : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_update_types(%x: tensor<2x3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) {
  // expected-error@+1 {{the new running statistics must have the types of running_mean and running_var}}
  %0:5 = boo.batch_norm %x running(%m, %v : tensor<3xf32>, tensor<3xf32>) {feature_dims = array<i64: 1>, training} : tensor<2x3xf32> -> tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf16>, tensor<3xf32>
  return
}

// -----

func.func @bn_bwd_types(%dy: tensor<2x3xf16>, %x: tensor<2x3xf32>, %m: tensor<3xf32>, %r: tensor<3xf32>) {
  // expected-error@+1 {{dy, x and dx must have the same type}}
  %0:3 = boo.batch_norm_bwd %dy, %x, %m, %r {feature_dims = array<i64: 1>} : tensor<2x3xf16>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @bn_bwd_dweight(%dy: tensor<2x3xf32>, %x: tensor<2x3xf32>, %m: tensor<3xf32>, %r: tensor<3xf32>) {
  // expected-error@+1 {{dweight must have x's shape at the feature dims ('tensor<3xf32>' up to its element type), got 'tensor<2xf32>'}}
  %0:3 = boo.batch_norm_bwd %dy, %x, %m, %r {feature_dims = array<i64: 1>} : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3xf32>, tensor<2xf32>, tensor<3xf32>
  return
}

// -----

func.func @argmax_rank0(%x: tensor<f32>) {
  // expected-error@+1 {{requires a static input of rank 1 or more, got 'tensor<f32>'}}
  %0 = boo.argmax %x : tensor<f32> -> tensor<i64>
  return
}

// -----

func.func @argmax_dim(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{dim must be in [0, 2) (the rank of the input), got 2}}
  %0 = boo.argmax %x {dim = 2 : i64} : tensor<4x8xf32> -> tensor<4xi64>
  return
}

// -----

func.func @argmin_empty(%x: tensor<4x0xf32>) {
  // expected-error@+1 {{reduces dim 1 of size 0: no element has an index}}
  %0 = boo.argmin %x {dim = 1 : i64} : tensor<4x0xf32> -> tensor<4xi64>
  return
}

// -----

func.func @argmin_result(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{result must be 'tensor<4x1xi64>' (the input's shape without the reduced dims, kept as 1), got 'tensor<4xi64>'}}
  %0 = boo.argmin %x {dim = 1 : i64, keepdim} : tensor<4x8xf32> -> tensor<4xi64>
  return
}

// -----

func.func @leaky_alpha(%x: tensor<4xf32>) {
  // expected-error@+1 {{'alpha' is required for activation 'leaky_relu'}}
  %0 = boo.activation leaky_relu %x : tensor<4xf32>
  return
}

// -----

func.func @relu_alpha(%x: tensor<4xf32>) {
  // expected-error@+1 {{'alpha' is not allowed for activation 'relu'}}
  %0 = boo.activation relu %x {alpha = 0.1 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clamp_range(%x: tensor<4xf32>) {
  // expected-error@+1 {{'min' and 'max' are required for activation 'clamp'}}
  %0 = boo.activation clamp %x {min = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @relu_range(%x: tensor<4xf32>) {
  // expected-error@+1 {{'min' and 'max' are not allowed for activation 'relu'}}
  %0 = boo.activation relu %x {max = 6.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @clamp_order(%x: tensor<4xf32>) {
  // expected-error@+1 {{clamp 'min' must not exceed 'max'}}
  %0 = boo.activation clamp %x {min = 6.0 : f32, max = 0.0 : f32} : tensor<4xf32>
  return
}

// -----

func.func @binary_types(%x: tensor<2x4xf32>, %y: tensor<2x4xf16>) {
  // expected-error@+1 {{operands must have the same element type, got 'f32' and 'f16'}}
  %0 = boo.add %x, %y : tensor<2x4xf32>, tensor<2x4xf16>
  return
}

// -----

func.func @binary_channel_dim_same(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) {
  // expected-error@+1 {{'channel_dim' is only allowed when rhs is a per-channel vector}}
  %0 = boo.mul %x, %y {channel_dim = 1 : i64} : tensor<2x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @binary_rhs_shape(%x: tensor<2x4xf32>, %y: tensor<4x2xf32>) {
  // expected-error@+1 {{rhs must have the type of lhs or be a 1-D per-channel vector, got 'tensor<4x2xf32>'}}
  %0 = boo.add %x, %y : tensor<2x4xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @binary_channel_dim_missing(%x: tensor<2x4xf32>, %y: tensor<4xf32>) {
  // expected-error@+1 {{'channel_dim' is required to broadcast a 1-D rhs}}
  %0 = boo.add %x, %y : tensor<2x4xf32>, tensor<4xf32>
  return
}

// -----

func.func @binary_channel_dim_range(%x: tensor<2x4xf32>, %y: tensor<4xf32>) {
  // expected-error@+1 {{'channel_dim' 2 is out of range for lhs of rank 2}}
  %0 = boo.add %x, %y {channel_dim = 2 : i64} : tensor<2x4xf32>, tensor<4xf32>
  return
}

// -----

func.func @binary_channel_size(%x: tensor<2x4xf32>, %y: tensor<4xf32>) {
  // expected-error@+1 {{rhs has 4 elements but lhs dim 0 has 2}}
  %0 = boo.add %x, %y {channel_dim = 0 : i64} : tensor<2x4xf32>, tensor<4xf32>
  return
}

// -----

func.func @fusion_terminator(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{body must end with 'boo.yield'}}
  boo.fusion {
    %c = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
    llvm.unreachable
  }
  return
}

// -----

func.func @fusion_yield_types(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{yielded types do not match the result types}}
  %0 = boo.fusion -> tensor<1x4x8x8xf32> {
    %c = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
    boo.yield %c : tensor<1x4x6x6xf32>
  }
  return
}

// -----

func.func @fusion_foreign_op(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{body may hold only one convolution, matrix product or layer norm and element-wise boo ops, found 'tensor.empty'}}
  %0 = boo.fusion -> tensor<1x4x6x6xf32> {
    %c = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
    %e = tensor.empty() : tensor<1x4x6x6xf32>
    boo.yield %c : tensor<1x4x6x6xf32>
  }
  return
}

// -----

func.func @fusion_two_anchors(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error@+1 {{body must hold exactly one convolution, matrix product or layer norm (a fusion is one kernel), found 2}}
  %0 = boo.fusion -> tensor<1x4x6x6xf32> {
    %c = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
    %d = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
    %s = boo.add %c, %d : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
    boo.yield %s : tensor<1x4x6x6xf32>
  }
  return
}

// -----

func.func @fusion_no_anchor(%x: tensor<4xf32>) {
  // expected-error@+1 {{body must hold exactly one convolution, matrix product or layer norm (a fusion is one kernel), found 0}}
  %0 = boo.fusion -> tensor<4xf32> {
    %a = boo.activation relu %x : tensor<4xf32>
    boo.yield %a : tensor<4xf32>
  }
  return
}

// -----

func.func @fusion_unrelated_epilogue(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %y: tensor<1x4x6x6xf32>) {
  // expected-error@+1 {{element-wise op 'boo.activation' does not consume the anchor's result (only ops of its epilogue belong in the fusion)}}
  %0 = boo.fusion -> tensor<1x4x6x6xf32> {
    %c = boo.conv %x, %w : tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x6x6xf32>
    %t = boo.activation tanh %y : tensor<1x4x6x6xf32>
    boo.yield %c : tensor<1x4x6x6xf32>
  }
  return
}

// -----

func.func @activation_dynamic(%x: tensor<?x8xf32>) {
  // expected-error@+1 {{requires a static shape, got 'tensor<?x8xf32>'}}
  %0 = boo.activation relu %x : tensor<?x8xf32>
  return
}

// -----

func.func @binary_dynamic(%x: tensor<?x8xf32>, %b: tensor<8xf32>) {
  // expected-error@+1 {{requires a static shape, got 'tensor<?x8xf32>'}}
  %0 = boo.add %x, %b {channel_dim = 1 : i64} : tensor<?x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<2x32x128xf32>, %b: tensor<128x64xf32>) {
  // expected-error@+1 {{lhs and rhs must both be 2-D or both be 3-D, got ranks 3 and 2}}
  %0 = boo.matmul %a, %b : tensor<2x32x128xf32>, tensor<128x64xf32> -> tensor<2x32x64xf32>
  return
}

// -----

func.func @matmul_dynamic(%a: tensor<?x128xf32>, %b: tensor<128x64xf32>) {
  // expected-error@+1 {{requires static shapes, got 'tensor<?x128xf32>'}}
  %0 = boo.matmul %a, %b : tensor<?x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @matmul_types(%a: tensor<32x128xf32>, %b: tensor<128x64xf16>) {
  // expected-error@+1 {{requires lhs, rhs and output to have the same element type, got 'f32', 'f16' and 'f32'}}
  %0 = boo.matmul %a, %b : tensor<32x128xf32>, tensor<128x64xf16> -> tensor<32x64xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x32x128xf32>, %b: tensor<3x128x64xf32>) {
  // expected-error@+1 {{lhs has a batch of 2 but rhs has 3}}
  %0 = boo.matmul %a, %b : tensor<2x32x128xf32>, tensor<3x128x64xf32> -> tensor<2x32x64xf32>
  return
}

// -----

func.func @matmul_k(%a: tensor<32x128xf32>, %b: tensor<128x64xf32>) {
  // expected-error@+1 {{lhs has K = 32 but rhs has K = 128 (the contracted dims must match)}}
  %0 = boo.matmul %a, %b {transpose_lhs} : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<128x64xf32>
  return
}

// -----

func.func @matmul_result(%a: tensor<32x128xf32>, %b: tensor<64x128xf32>) {
  // expected-error@+1 {{result shape 32x128 does not match the shape implied by the operands: 32x64}}
  %0 = boo.matmul %a, %b {transpose_rhs} : tensor<32x128xf32>, tensor<64x128xf32> -> tensor<32x128xf32>
  return
}

// -----

func.func @matmul_bias_type(%a: tensor<32x128xf32>, %b: tensor<128x64xf32>, %c: tensor<64xf16>) {
  // expected-error@+1 {{bias element type 'f16' differs from the operands' 'f32'}}
  %0 = boo.matmul %a, %b bias(%c : tensor<64xf16>) : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @matmul_bias_shape(%a: tensor<32x128xf32>, %b: tensor<128x64xf32>, %c: tensor<32xf32>) {
  // expected-error@+1 {{bias of type 'tensor<32xf32>' does not broadcast to the result shape 32x64}}
  %0 = boo.matmul %a, %b bias(%c : tensor<32xf32>) : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @matmul_beta(%a: tensor<32x128xf32>, %b: tensor<128x64xf32>) {
  // expected-error@+1 {{'beta' scales the bias, but there is no bias}}
  %0 = boo.matmul %a, %b {beta = 0.5} : tensor<32x128xf32>, tensor<128x64xf32> -> tensor<32x64xf32>
  return
}

// -----

func.func @as_strided_rank(%s: tensor<4x4xf32>) {
  // expected-error@+1 {{requires a static 1-D storage, got 'tensor<4x4xf32>'}}
  %0 = boo.as_strided %s {strides = array<i64: 4, 1>} : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @as_strided_type(%s: tensor<16xf32>) {
  // expected-error@+1 {{result element type 'f16' differs from the storage's 'f32'}}
  %0 = boo.as_strided %s {strides = array<i64: 4, 1>} : tensor<16xf32> -> tensor<4x4xf16>
  return
}

// -----

func.func @as_strided_shape(%s: tensor<16xf32>) {
  // expected-error@+1 {{requires a static result shape of positive sizes, got 'tensor<4x?xf32>'}}
  %0 = boo.as_strided %s {strides = array<i64: 4, 1>} : tensor<16xf32> -> tensor<4x?xf32>
  return
}

// -----

func.func @as_strided_count(%s: tensor<16xf32>) {
  // expected-error@+1 {{has 1 strides for a rank-2 result}}
  %0 = boo.as_strided %s {strides = array<i64: 4>} : tensor<16xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @as_strided_negative(%s: tensor<16xf32>) {
  // expected-error@+1 {{strides must be non-negative, got 4x-1}}
  %0 = boo.as_strided %s {strides = array<i64: 4, -1>} : tensor<16xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @as_strided_bounds(%s: tensor<16xf32>) {
  // expected-error@+1 {{reads element 18 of a storage of 16 elements (result 4x4, strides 5x1)}}
  %0 = boo.as_strided %s {strides = array<i64: 5, 1>} : tensor<16xf32> -> tensor<4x4xf32>
  return
}
