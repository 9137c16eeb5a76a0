// Where configs come from: a config already on a kernel, else the tuning
// spec's first matching rule, else the heuristic. Spec lookup: the
// `tuning-spec` option, else BOO_TUNING_SPEC_PATH (set but empty: no spec),
// else the spec embedded in boo-opt.

// RUN: boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config="tuning-spec=%S/Inputs/boo-select-lowering-config-spec.mlir" | FileCheck %s --check-prefixes=CHECK,SPEC
// RUN: env BOO_TUNING_SPEC_PATH=%S/Inputs/boo-select-lowering-config-spec.mlir boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config | FileCheck %s --check-prefixes=CHECK,SPEC
// The option wins over the environment variable.
// RUN: env BOO_TUNING_SPEC_PATH=%S/Inputs/does-not-exist.mlir boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config="tuning-spec=%S/Inputs/boo-select-lowering-config-spec.mlir" | FileCheck %s --check-prefixes=CHECK,SPEC
// Set but empty: no spec, not even the embedded one.
// RUN: env BOO_TUNING_SPEC_PATH= boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config | FileCheck %s --check-prefixes=CHECK,NOSPEC
// Neither: the embedded default spec, which has a rule for @default_spec.
// RUN: env -u BOO_TUNING_SPEC_PATH boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config | FileCheck %s --check-prefixes=CHECK,DEFAULT
// The spec's rules are for gfx9 chips only. On gfx1100 the config written
// in the input for @preset (wave64) is an error.
// RUN: not boo-opt %s -split-input-file --boo-set-target=chip=gfx1100 --boo-select-lowering-config="tuning-spec=%S/Inputs/boo-select-lowering-config-spec.mlir" 2>%t.err | FileCheck %s --check-prefixes=CHECK,RDNA
// RUN: FileCheck %s --input-file=%t.err --check-prefix=RDNA-ERR
// The signatures the rules match, and each config's source.
// RUN: boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config="tuning-spec=%S/Inputs/boo-select-lowering-config-spec.mlir print-signatures=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// Errors: a spec that cannot be read, parsed or used, and a config from a
// spec that does not suit the chip.
// RUN: not boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config="tuning-spec=%S/Inputs/does-not-exist.mlir" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: env BOO_TUNING_SPEC_PATH=%S/Inputs/does-not-exist.mlir not boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config="tuning-spec=%S/Inputs/boo-select-lowering-config-spec-unparsable.mlir" 2>&1 | FileCheck %s --check-prefix=UNPARSABLE
// RUN: not boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config="tuning-spec=%S/Inputs/boo-select-lowering-config-spec-no-entry.mlir" 2>&1 | FileCheck %s --check-prefix=NOENTRY
// RUN: not boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-select-lowering-config="tuning-spec=%S/Inputs/boo-select-lowering-config-spec-invalid.mlir" 2>&1 | FileCheck %s --check-prefix=INVALID

// MISSING: error: cannot open tuning spec '{{.*}}does-not-exist.mlir': No such file or directory
// UNPARSABLE: boo-select-lowering-config-spec-unparsable.mlir:{{[0-9]+}}:{{[0-9]+}}: error: thread tile 3 of loop 1 does not divide its workgroup tile 64
// UNPARSABLE: error: failed to parse tuning spec '{{.*}}boo-select-lowering-config-spec-unparsable.mlir'
// NOENTRY: error: tuning spec '{{.*}}boo-select-lowering-config-spec-no-entry.mlir' has no transform.named_sequence @__boo_kernel_config
// INVALID: error: 'boo.layer_norm' op invalid lowering config from tuning spec '{{.*}}boo-select-lowering-config-spec-invalid.mlir': subgroup_size 32 is not gfx942's wave size 64

// REMARK: remark: problem 'conv_2d_float16_forward_2x56x56x64_nhwc_64x3x3x64_fhwc_nhwf_1x1s_1x1p_1x1d_1g': config from tuning spec '{{.*}}boo-select-lowering-config-spec.mlir'
// REMARK: remark: problem 'conv_2d_float16_forward_1x56x56x64_nhwc_64x3x3x64_fhwc_nhwf_1x1s_1x1p_1x1d_1g': config from the heuristic
// REMARK: remark: problem 'layer_norm_1d_float16_forward_4096x1024_w_b': config from tuning spec
// REMARK: remark: problem 'layer_norm_1d_float32_forward_4096x1024': config from the heuristic
// REMARK: remark: problem 'conv_2d_float16_forward_1x8x8x4_nhwc_8x3x3x4_fhwc_nhwf_1x1s_1x1p_1x1d_1g+relu': config from tuning spec
// REMARK: remark: problem 'conv_2d_bfloat16_forward_128x24x48x128_nhwc_384x1x1x128_fhwc_nhwf_1x1s_0x0p_1x1d_1g': config from the heuristic
// REMARK: remark: problem 'layer_norm_1d_bfloat16_forward_64x1024': config from the input

// Rule 1 of the spec matches this exact problem (32x32x8 MFMA).
// CHECK-LABEL: func.func @spec_exact
// SPEC:    mma = "MFMA_F32_32x32x8_F16"
// NOSPEC:  mma = "MFMA_F32_16x16x16_F16"
// DEFAULT: mma = "MFMA_F32_16x16x16_F16"
// RDNA:    mma = "WMMA_F32_16x16x16_F16"
func.func @spec_exact(%x: tensor<2x56x56x64xf16>, %w: tensor<64x3x3x64xf16>) -> tensor<2x56x56x64xf16> {
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<2x56x56x64xf16>, tensor<64x3x3x64xf16> -> tensor<2x56x56x64xf16>
  return %0 : tensor<2x56x56x64xf16>
}

// A batch of 1 is another problem: no rule, the heuristic.
// CHECK-LABEL: func.func @spec_other_batch
// SPEC:        mma = "MFMA_F32_16x16x16_F16"
// RDNA:        mma = "WMMA_F32_16x16x16_F16"
func.func @spec_other_batch(%x: tensor<1x56x56x64xf16>, %w: tensor<64x3x3x64xf16>) -> tensor<1x56x56x64xf16> {
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x56x56x64xf16>, tensor<64x3x3x64xf16> -> tensor<1x56x56x64xf16>
  return %0 : tensor<1x56x56x64xf16>
}

// Rule 2 (a glob, gfx94x only) matches the f16 layer norm, not the f32 one.
// CHECK-LABEL: func.func @spec_glob
// SPEC:    boo.layer_norm {{.*}}#boo.lowering_config<workgroup = [1, 0], reduction = [0, 1024], thread = [0, 8], workgroup_size = [128, 1, 1], subgroup_size = 64>
// SPEC:    boo.layer_norm {{.*}}#boo.lowering_config<workgroup = [1024, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>
// NOSPEC:  boo.layer_norm {{.*}}#boo.lowering_config<workgroup = [1024, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [256, 1, 1], subgroup_size = 64>
// RDNA:    boo.layer_norm {{.*}}#boo.lowering_config<workgroup = [1024, 0], reduction = [0, 1], thread = [4, 0], workgroup_size = [256, 1, 1], subgroup_size = 32>
func.func @spec_glob(%x: tensor<4096x1024xf16>, %w: tensor<1024xf16>, %b: tensor<1024xf16>, %x32: tensor<4096x1024xf32>) -> (tensor<4096x1024xf16>, tensor<4096x1024xf32>) {
  %y, %m, %r = boo.layer_norm %x weight(%w : tensor<1024xf16>) bias(%b : tensor<1024xf16>) : tensor<4096x1024xf16> -> tensor<4096x1024xf16>, tensor<4096xf32>, tensor<4096xf32>
  %y32, %m32, %r32 = boo.layer_norm %x32 : tensor<4096x1024xf32> -> tensor<4096x1024xf32>, tensor<4096xf32>, tensor<4096xf32>
  return %y, %y32 : tensor<4096x1024xf16>, tensor<4096x1024xf32>
}

// Rule 3 matches the fusion by its epilogue ("conv_*+relu").
// CHECK-LABEL: func.func @spec_fusion
// CHECK:       boo.yield
// SPEC:        } {boo.lowering_config = #boo.lowering_config<workgroup = [1, 8, 8, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 3, 3], thread = [1, 2, 1, 2, 0, 0, 0], workgroup_size = [128, 1, 1], subgroup_size = 64>}
// NOSPEC:      } {boo.lowering_config = #boo.lowering_config<workgroup = [1, 8, 8, 8, 0, 0, 0]
// RDNA:        } {boo.lowering_config = #boo.lowering_config<workgroup = [1, 8, 8, 8, 0, 0, 0], reduction = [0, 0, 0, 0, 4, 1, 1], thread = [1, 8, 1, 1, 0, 0, 0], workgroup_size = [64, 1, 1], subgroup_size = 32
func.func @spec_fusion(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>) -> tensor<1x8x8x8xf16> {
  %0 = boo.fusion -> tensor<1x8x8x8xf16> {
    %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16> -> tensor<1x8x8x8xf16>
    %r = boo.activation relu %c : tensor<1x8x8x8xf16>
    boo.yield %r : tensor<1x8x8x8xf16>
  }
  return %0 : tensor<1x8x8x8xf16>
}

// The embedded default spec has a rule for this problem (IREE BOO's tuning
// example) on gfx942 and gfx950.
// CHECK-LABEL: func.func @default_spec
// DEFAULT: #boo.lowering_config<workgroup = [128, 128, 1, 1, 0, 0, 0], reduction = [0, 0, 0, 0, 32, 1, 1], subgroup = [64, 64, 1, 1, 0, 0, 0], workgroup_size = [256, 1, 1], subgroup_size = 64, mma = "MFMA_F32_32x32x8_BF16", mma_loops = [1, 0, 4], promote_operands = [0, 1], pipeline_depth = 2>
// NOSPEC:  mma = "MFMA_F32_16x16x16_BF16", mma_loops = [1, 3, 4]
func.func @default_spec(%x: tensor<128x24x48x128xbf16>, %w: tensor<384x1x1x128xbf16>) -> tensor<128x24x48x384xbf16> {
  %0 = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "NHWC", output_layout = "NHWC", strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, padding_low = array<i64: 0, 0>, padding_high = array<i64: 0, 0>} : tensor<128x24x48x128xbf16>, tensor<384x1x1x128xbf16> -> tensor<128x24x48x384xbf16>
  return %0 : tensor<128x24x48x384xbf16>
}

// -----

// A config already on a kernel is kept, even where a rule matches (rule 2
// would match this layer norm).
// On gfx1100 the module's verifier rejects it as soon as boo-set-target
// records the chip.
// RDNA-ERR: error: 'boo.layer_norm' op subgroup_size 64 is not gfx1100's wave size 32
// SPEC-LABEL: func.func @preset
// SPEC:       #boo.lowering_config<workgroup = [2, 0], reduction = [0, 512], thread = [1, 4], workgroup_size = [256, 1, 1], subgroup_size = 64>
func.func @preset(%x: tensor<64x1024xbf16>) -> tensor<64x1024xbf16> {
  %y, %m, %r = boo.layer_norm %x {boo.lowering_config = #boo.lowering_config<workgroup = [2, 0], reduction = [0, 512], thread = [1, 4], workgroup_size = [256, 1, 1], subgroup_size = 64>} : tensor<64x1024xbf16> -> tensor<64x1024xbf16>, tensor<64xf32>, tensor<64xf32>
  return %y : tensor<64x1024xbf16>
}
