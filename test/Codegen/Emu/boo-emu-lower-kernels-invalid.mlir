// RUN: boo-opt %s -split-input-file -verify-diagnostics --boo-set-target=chip=gfx942 --boo-emu-lower-kernels
// RUN: not boo-opt %s --boo-emu-lower-kernels 2>&1 | FileCheck %s --check-prefix=NOTARGET

// Every error of boo-emu-lower-kernels: the pass lowers only what it can
// emulate and check, and names the first operation it cannot.

// NOTARGET: error: boo-emu-lower-kernels: no #boo.target on the module (run boo-set-target with chip=<chip>, or a pipeline with chip=, first)

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<64xf16>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<64xf16>
      %c1 = arith.constant 1 : i32
      %c64 = arith.constant 64 : i32
      // expected-error @+1 {{'gpu.shuffle' op emu: shuffles of 'f16' are not emulated (32-bit values only)}}
      %s, %ok = gpu.shuffle xor %v, %c1, %c64 : f16
      memref.store %s, %x[%tid] : memref<64xf16>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<64xf32>) kernel {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<64xf32>
      // expected-error @+1 {{'gpu.subgroup_reduce' op emu: 'gpu.subgroup_reduce' is not emulated}}
      %s = gpu.subgroup_reduce add %v : (f32) -> f32
      memref.store %s, %x[%tid] : memref<64xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%in: memref<4xf16>, %out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %a = vector.load %in[%c0] : memref<4xf16>, vector<4xf16>
      %c = vector.load %out[%c0] : memref<4xf32>, vector<4xf32>
      // expected-error @+1 {{'amdgpu.mfma' op emu: only single-block MFMAs without broadcast, permutation, negation or reduced precision are emulated}}
      %d = amdgpu.mfma 16x16x16 %a * %a + %c {cbsz = 1 : i32} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      vector.store %d, %out[%c0] : memref<4xf32>, vector<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%in: memref<16xi8>, %out: memref<8xi32>) kernel {
      %c0 = arith.constant 0 : index
      %a = vector.load %in[%c0] : memref<16xi8>, vector<16xi8>
      %c = vector.load %out[%c0] : memref<8xi32>, vector<8xi32>
      // expected-error @+1 {{'amdgpu.wmma' op emu: only WMMAs without subword offset, unsigned or clamp flags are emulated}}
      %d = amdgpu.wmma 16x16x16 %a * %a + %c {unsignedA} : vector<16xi8>, vector<16xi8>, vector<8xi32>
      vector.store %d, %out[%c0] : memref<8xi32>, vector<8xi32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: f32, %out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c = vector.load %out[%c0] : memref<4xf32>, vector<4xf32>
      // expected-error @+1 {{'amdgpu.mfma' op emu: only MMAs of f16 or bf16 vectors with an f32 vector accumulator are emulated}}
      %d = amdgpu.mfma 16x16x4 %x * %x + %c blgp = none : f32, f32, vector<4xf32>
      vector.store %d, %out[%c0] : memref<4xf32>, vector<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{'gpu.func' op emu: argument 0 of type 'memref<?xf32>' is not a static identity-layout buffer}}
    gpu.func @k(%x: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{'gpu.func' op emu: argument 0 of type 'memref<4xf32, strided<[2]>>' is not a static identity-layout buffer}}
    gpu.func @k(%x: memref<4xf32, strided<[2]>>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{'gpu.func' op emu: argument 1 of type 'i16' is not supported}}
    gpu.func @k(%x: memref<4xf32>, %n: i16) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    // expected-error @+1 {{'gpu.func' op emu: workgroup buffer of type 'memref<?xf32, #gpu.address_space<workgroup>>' is not static and dense}}
    gpu.func @k(%x: memref<4xf32>, %n: index) kernel {
      %lds = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func private @m__k()
  gpu.module @m {
    // expected-error @+1 {{'gpu.func' op emu: symbol @m__k already exists}}
    gpu.func @k(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{'gpu.func' op emu: device functions are not emulated}}
    gpu.func @helper(%x: memref<4xf32>) {
      gpu.return
    }
    gpu.func @k(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<4xf32>, %y: memref<4xf32>) kernel {
      // expected-error @+1 {{'memref.copy' op emu: memory access of 'memref.copy' is not emulated (only loads and stores of memref and vector can be checked)}}
      memref.copy %x, %y : memref<4xf32> to memref<4xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%x: memref<4xf32>) kernel {
      // expected-error @+1 {{'amdgpu.lds_barrier' op emu: 'amdgpu.lds_barrier' is not emulated}}
      amdgpu.lds_barrier
      gpu.return
    }
  }
}
