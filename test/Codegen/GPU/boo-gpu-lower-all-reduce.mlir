// RUN: boo-opt %s -split-input-file -verify-diagnostics --pass-pipeline="builtin.module(gpu.module(boo-gpu-lower-all-reduce))" | FileCheck %s

// A workgroup-wide sum in a kernel of 128 threads (two waves of 64): a
// butterfly of xor shuffles in each subgroup, one value per subgroup in a
// new workgroup attribution, a barrier, and a final reduction. The workgroup
// size the rewrite reads is the kernel's known_block_size (gpu.block_dim
// would become a call of ROCm's __ockl_get_local_size).
// CHECK-LABEL: gpu.func @row_sum(
// CHECK-SAME:    workgroup(%[[LDS:.+]] : memref<32xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:     gpu.block_dim
// CHECK-NOT:     gpu.all_reduce
// CHECK:         gpu.shuffle xor
// CHECK:         memref.store %{{.+}}, %[[LDS]]
// CHECK:         gpu.barrier
// CHECK:         memref.load %[[LDS]]
// CHECK:         gpu.shuffle xor
// CHECK-NOT:     gpu.block_dim
// CHECK:         gpu.return
gpu.module @kernels {
  gpu.func @row_sum(%in: memref<128xf32>, %out: memref<1xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %v = memref.load %in[%tid] : memref<128xf32>
    %sum = gpu.all_reduce add %v uniform {} : (f32) -> f32
    %c0 = arith.constant 0 : index
    memref.store %sum, %out[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

// A non-uniform gpu.all_reduce (not every thread reaches it) has no safe
// rewrite; the pass reports it rather than leaving it to the ROCDL lowering.
gpu.module @kernels {
  gpu.func @divergent(%in: memref<128xf32>, %out: memref<1xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %v = memref.load %in[%tid] : memref<128xf32>
    // expected-error@+1 {{boo-gpu-lower-all-reduce: cannot lower this gpu.all_reduce (it must be uniform and in a gpu.func kernel)}}
    %sum = gpu.all_reduce add %v {} : (f32) -> f32
    %c0 = arith.constant 0 : index
    memref.store %sum, %out[%c0] : memref<1xf32>
    gpu.return
  }
}
