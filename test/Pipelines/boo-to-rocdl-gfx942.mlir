// RUN: boo-opt %s -split-input-file --boo-to-rocdl=chip=gfx942 | FileCheck %s
// RUN: boo-translate --emit-isa --targets=gfx942 %s | FileCheck %s --check-prefix=ISA
// RUN: rm -rf %t && boo-translate --emit-hsaco=%t --targets=gfx942 %s
// RUN: llvm-readelf -h %t/conv_bias_relu_k0.hsaco | FileCheck %s --check-prefix=ELF
// RUN: llvm-readelf -h %t/layer_norm_k0.hsaco | FileCheck %s --check-prefix=ELF

// The whole boo-to-rocdl pipeline for gfx942 (wave64): a conv + bias +
// relu fusion is exactly one kernel; its code object is an AMDGPU shared
// object for gfx942, uses no scratch, spills nothing, and its 3x3 conv
// accumulates with FMAs (CDNA: packed, two channels per instruction).

// CHECK-LABEL: func.func @conv_bias_relu(
// CHECK-SAME:    %[[X:.+]]: memref<1x10x10x16xf32>, %[[W:.+]]: memref<32x3x3x16xf32>, %[[B:.+]]: memref<32xf32>, %[[Y:.+]]: memref<1x10x10x32xf32>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @conv_bias_relu_k0::@conv_bias_relu_k0 blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%{{.+}}, %{{.+}}, %{{.+}}) args(
// CHECK-SAME:    boo.kernel_abi = {args = [{{.*}}"arg3"{{.*}}], dynamic_lds_bytes = 0 : i64, grid = array<i64: {{[0-9]+}}, 1, 1>, static_lds_bytes = 0 : i64, workgroup = array<i64: {{[0-9]+}}, 1, 1>}
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// CHECK:       gpu.binary @conv_bias_relu_k0 [#gpu.object<#rocdl.target<O = 3, chip = "gfx942">
// CHECK-SAME:    #gpu.kernel_metadata<"conv_bias_relu_k0"
// CHECK-SAME:    private_segment_fixed_size = 0 : i64
// CHECK-SAME:    sgpr_spill_count = 0 : i64
// CHECK-SAME:    vgpr_spill_count = 0 : i64, wavefront_size = 64 : i64
// CHECK-SAME:    bin = "\7FELF
// CHECK-NOT:   gpu.binary

// ISA-LABEL: ; ---- kernel module @conv_bias_relu_k0 (gfx942)
// ISA:         .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// ISA:       conv_bias_relu_k0:
// ISA:         {{v_fmac?_f32|v_pk_fma_f32}}
// ISA:         s_endpgm
// ISA:         .amdhsa_private_segment_fixed_size 0
// ISA:         .sgpr_spill_count: 0
// ISA:         .vgpr_spill_count: 0
// ISA:         .wavefront_size: 64

// ELF: Class: ELF64
// ELF: Type: DYN (Shared object file)
// ELF: Machine: EM_AMDGPU
// ELF: Flags: 0x{{[0-9a-f]+}}, gfx942, xnack, sramecc{{$}}
func.func @conv_bias_relu(%x: tensor<1x10x10x16xf32>, %w: tensor<32x3x3x16xf32>, %b: tensor<32xf32>) -> tensor<1x10x10x32xf32> {
  %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC", padding_low = array<i64: 1, 1>, padding_high = array<i64: 1, 1>} : tensor<1x10x10x16xf32>, tensor<32x3x3x16xf32> -> tensor<1x10x10x32xf32>
  %a = boo.add %c, %b {channel_dim = 3 : i64} : tensor<1x10x10x32xf32>, tensor<32xf32>
  %r = boo.activation relu %a : tensor<1x10x10x32xf32>
  return %r : tensor<1x10x10x32xf32>
}

// -----

// A layer norm is one kernel too: each thread normalizes whole rows and
// also stores their mean and rstd.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-NOT:     gpu.launch_func
// CHECK:         gpu.launch_func @layer_norm_k0::@layer_norm_k0
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.binary @layer_norm_k0
// CHECK-SAME:    private_segment_fixed_size = 0 : i64

// ISA-LABEL: ; ---- kernel module @layer_norm_k0 (gfx942)
// ISA:         .amdhsa_private_segment_fixed_size 0
func.func @layer_norm(%x: tensor<4x8x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) -> (tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %y, %m, %r = boo.layer_norm %x weight(%w : tensor<64xbf16>) bias(%b : tensor<64xbf16>) : tensor<4x8x64xbf16> -> tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8xf32>
  return %y, %m, %r : tensor<4x8x64xbf16>, tensor<4x8xf32>, tensor<4x8xf32>
}
