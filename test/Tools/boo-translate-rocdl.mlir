// From the source module: boo-translate runs boo-to-rocdl and keeps each
// kernel's ISA (as the compiler wrote it, with the .amdhsa directives) and
// optimized LLVM IR.
// RUN: boo-translate --emit-isa --targets=gfx1100 %s | FileCheck %s --check-prefix=ISA
// RUN: boo-translate --emit-llvmir --targets=gfx942 %s -o %t.ll
// RUN: FileCheck %s --check-prefix=LLVMIR < %t.ll
// --chip is the old spelling of --targets; these outputs take one chip.
// RUN: boo-translate --emit-isa --chip=gfx1100 %s | FileCheck %s --check-prefix=ISA
// RUN: not boo-translate --emit-isa --targets=gfx942,gfx1100 %s 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: boo-translate: error: --targets: --emit-hsaco, --emit-isa and --emit-llvmir compile for one AMD GPU chip, got 2 targets (--emit-module takes several)

// From a compiled module (boo-opt --boo-to-rocdl output): the code objects,
// and the ISA by disassembling them.
// RUN: boo-opt %s --boo-to-rocdl=chip=gfx942 -o %t.rocdl.mlir
// RUN: rm -rf %t.dir && boo-translate --emit-hsaco=%t.dir %t.rocdl.mlir | FileCheck %s --check-prefix=PATHS
// RUN: llvm-readelf -h %t.dir/conv_relu_k0.hsaco | FileCheck %s --check-prefix=ELF
// RUN: llvm-readelf --notes %t.dir/conv_relu_k0.hsaco | FileCheck %s --check-prefix=NOTES
// RUN: boo-translate --emit-isa %t.rocdl.mlir | FileCheck %s --check-prefix=DISASM
// RUN: not boo-translate --emit-llvmir %t.rocdl.mlir 2>&1 | FileCheck %s --check-prefix=COMPILED
// RUN: not boo-translate --emit-hsaco=%t.one.hsaco %t.rocdl.mlir 2>&1 | FileCheck %s --check-prefix=ONEFILE

// ISA: ; ---- kernel module @conv_relu_k0 (gfx1100)
// ISA:   .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
// ISA: conv_relu_k0:
// ISA:   {{v_fma_mix_f32|v_fmac_f32}}
// ISA:   .amdhsa_kernel conv_relu_k0
// ISA:   .amdhsa_private_segment_fixed_size 0
// ISA:   .amdhsa_wavefront_size32 1
// ISA: ; ---- kernel module @layer_norm_k0 (gfx1100)

// LLVMIR: ; ---- kernel module @conv_relu_k0 (gfx942)
// LLVMIR: define amdgpu_kernel void @conv_relu_k0(ptr {{.*}}, ptr {{.*}}, ptr {{.*}})
// LLVMIR:   call {{.*}}@llvm.fma.{{(v[0-9]+)?}}f32(
// LLVMIR: ; ---- kernel module @layer_norm_k0 (gfx942)
// LLVMIR: define amdgpu_kernel void @layer_norm_k0(

// PATHS: {{.*}}conv_relu_k0.hsaco
// PATHS: {{.*}}layer_norm_k0.hsaco

// ELF: Type: DYN (Shared object file)
// ELF: Machine: EM_AMDGPU
// ELF: Flags: 0x{{[0-9a-f]+}}, gfx942, xnack, sramecc

// NOTES: .address_space: generic
// NOTES: .value_kind: global_buffer
// NOTES: .private_segment_fixed_size: 0
// NOTES: .vgpr_spill_count: 0
// NOTES: amdhsa.target: amdgcn-amd-amdhsa--gfx942

// DISASM: ; ---- kernel module @conv_relu_k0 (gfx942)
// DISASM: conv_relu_k0:
// DISASM:   {{v_fma_mix_f32|v_fmac_f32}}
// DISASM:   s_endpgm

// COMPILED: boo-translate: error: the module is already compiled (it holds gpu.binary ops); --emit-llvmir needs the module before boo-to-rocdl, e.g. the Boo source
// ONEFILE: boo-translate: error: --emit-hsaco={{.*}}.one.hsaco names one file, but the module has 2 kernels; pass a directory

func.func @conv_relu(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>) -> tensor<1x6x6x8xf16> {
  %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16> -> tensor<1x6x6x8xf16>
  %r = boo.activation relu %c : tensor<1x6x6x8xf16>
  return %r : tensor<1x6x6x8xf16>
}

func.func @layer_norm(%x: tensor<16x32xf32>) -> (tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>) {
  %y, %m, %r = boo.layer_norm %x : tensor<16x32xf32> -> tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>
  return %y, %m, %r : tensor<16x32xf32>, tensor<16xf32>, tensor<16xf32>
}
