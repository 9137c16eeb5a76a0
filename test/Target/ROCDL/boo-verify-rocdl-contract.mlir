// RUN: boo-opt %s -split-input-file -verify-diagnostics --boo-set-target=chip=gfx942 --boo-verify-rocdl-contract
// RUN: not boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-verify-rocdl-contract="allow-scratch=true" 2>&1 | FileCheck %s --check-prefix=SCRATCH

// The contract boo-to-rocdl ends with. The accepted form (a module that the
// whole pipeline produced) is checked by test/Pipelines/boo-to-rocdl-*.mlir;
// here, each way of breaking it. The code objects below are a minimal
// AMDGPU ELF header followed by the HSA target name, enough for the checks.

// A compiled module: a host function that launches one kernel of a binary
// whose code object is for gfx942, uses no scratch and spills nothing.
module attributes {gpu.container_module} {
  func.func @ok(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>) {boo.kernel_abi = {args = ["arg0"], grid = array<i64: 1, 1, 1>, workgroup = array<i64: 1, 1, 1>, dynamic_lds_bytes = 0 : i64}}
    return
  }
  gpu.binary @k [#gpu.object<#rocdl.target<chip = "gfx942">, kernels = <[#gpu.kernel_metadata<"k", !llvm.func<void (ptr)>, metadata = {private_segment_fixed_size = 0 : i64, sgpr_spill_count = 0 : i64, vgpr_spill_count = 0 : i64}>]>, bin = "\7FELF\02\01\01@\04\00\00\00\00\00\00\00\03\00\E0\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00amdgcn-amd-amdhsa--gfx942\00">]
}

// -----

// Nothing was compiled: linalg is left on the host.
// expected-error@+2 {{boo-verify-rocdl-contract: 'builtin.module' the module holds no gpu.binary: no kernel was compiled}}
// expected-error@+1 {{boo-verify-rocdl-contract: 2 violation(s) of the ROCDL output contract}}
module {
  func.func @not_compiled(%x: memref<4xf32>, %c: f32) {
    // expected-error@+1 {{boo-verify-rocdl-contract: 'linalg.fill' is left in host code; host functions may only launch kernels, allocate device buffers and take views}}
    linalg.fill ins(%c : f32) outs(%x : memref<4xf32>)
    return
  }
}

// -----

// expected-error@+1 {{1 violation(s)}}
module attributes {gpu.container_module} {
  // expected-error@+1 {{'gpu.module' a gpu.module was not serialized to a gpu.binary}}
  gpu.module @k [#rocdl.target<chip = "gfx942">] {
  }
  gpu.binary @other [#gpu.object<#rocdl.target<chip = "gfx942">, kernels = <[#gpu.kernel_metadata<"k", !llvm.func<void ()>>]>, bin = "\7FELF\02\01\01@\04\00\00\00\00\00\00\00\03\00\E0\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00amdgcn-amd-amdhsa--gfx942\00">]
}

// -----

// expected-error@+1 {{3 violation(s)}}
module attributes {gpu.container_module} {
  // expected-error@+1 {{'gpu.binary' holds a code object for 'gfx90a', not for 'gfx942'}}
  gpu.binary @wrong_chip [#gpu.object<#rocdl.target<chip = "gfx90a">, bin = "\7FELF\02\01\01@\04\00\00\00\00\00\00\00\03\00\E0\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00amdgcn-amd-amdhsa--gfx942\00">]
  // expected-error@+1 {{'gpu.binary' code object is not an ELF file}}
  gpu.binary @not_elf [#gpu.object<#rocdl.target<chip = "gfx942">, bin = "MZ\00\00">]
  // expected-error@+1 {{'gpu.binary' holds an object that is not a binary code object}}
  gpu.binary @isa [#gpu.object<#rocdl.target<chip = "gfx942">, assembly = "s_endpgm">]
}

// -----

// Scratch and VGPR spills are refused unless allow-scratch. SGPR spills go
// to VGPR lanes (no memory) and are accepted.
// With allow-scratch, the module is accepted (and printed):
// SCRATCH: gpu.binary @k [#gpu.object<#rocdl.target<chip = "gfx942">, kernels = <[#gpu.kernel_metadata<"k", !llvm.func<void ()>, metadata = {private_segment_fixed_size = 16 : i64
// expected-error@+1 {{2 violation(s)}}
module attributes {gpu.container_module} {
  // expected-error@+2 {{'gpu.binary' kernel 'k' uses 16 bytes of scratch memory per thread}}
  // expected-error@+1 {{'gpu.binary' kernel 'k' spills 3 registers (vgpr_spill_count)}}
  gpu.binary @k [#gpu.object<#rocdl.target<chip = "gfx942">, kernels = <[#gpu.kernel_metadata<"k", !llvm.func<void ()>, metadata = {private_segment_fixed_size = 16 : i64, sgpr_spill_count = 2 : i64, vgpr_spill_count = 3 : i64}>]>, bin = "\7FELF\02\01\01@\04\00\00\00\00\00\00\00\03\00\E0\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00amdgcn-amd-amdhsa--gfx942\00">]
  func.func @launch() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) {boo.kernel_abi = {args = [], grid = array<i64: 1, 1, 1>, workgroup = array<i64: 1, 1, 1>, dynamic_lds_bytes = 0 : i64}}
    return
  }
}

// -----

// expected-error@+1 {{2 violation(s)}}
module attributes {gpu.container_module} {
  gpu.binary @k [#gpu.object<#rocdl.target<chip = "gfx942">, kernels = <[#gpu.kernel_metadata<"k", !llvm.func<void ()>>]>, bin = "\7FELF\02\01\01@\04\00\00\00\00\00\00\00\03\00\E0\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00amdgcn-amd-amdhsa--gfx942\00">]
  func.func @launch() {
    %c1 = arith.constant 1 : index
    // expected-error@+1 {{'gpu.launch_func' has no boo.kernel_abi launch record}}
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    // expected-error@+1 {{'gpu.launch_func' launches 'missing', which code object 'k' does not define}}
    gpu.launch_func @k::@missing blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) {boo.kernel_abi = {}}
    return
  }
}
