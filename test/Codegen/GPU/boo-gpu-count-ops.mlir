// RUN: boo-opt %s --pass-pipeline="builtin.module(gpu.module(boo-gpu-count-ops))" | FileCheck %s

// What one thread executes, counted by hand: 4 iterations of a 16-byte
// global load, a 16-byte LDS write, a barrier, an 8-byte LDS read and a
// 16x16x16 MFMA (2*16*16*16 = 8192 FLOPs of its wave); a private load
// (registers, not counted); then a guarded store whose else branch stores
// twice (the larger branch counts: 2 stores of 4 bytes). The other ops
// (the thread id and the compare) are `ops`; constants, terminators, the
// private load and the loops themselves are not.
// CHECK-LABEL: gpu.func @kernel(
// CHECK-SAME:    boo.op_counts = {approximate = 0 : i64, barriers = 4 : i64,
// CHECK-SAME:    global_load_bytes = 64 : i64, global_loads = 4 : i64,
// CHECK-SAME:    global_store_bytes = 8 : i64, global_stores = 2 : i64,
// CHECK-SAME:    lds_read_bytes = 32 : i64, lds_reads = 4 : i64,
// CHECK-SAME:    lds_write_bytes = 64 : i64, lds_writes = 4 : i64,
// CHECK-SAME:    mma = 4 : i64, mma_flops = 32768 : i64, ops = 2 : i64}
// A loop with a dynamic bound counts once and marks the counts approximate.
// CHECK-LABEL: gpu.func @dynamic(
// CHECK-SAME:    approximate = 1 : i64
// CHECK-SAME:    global_loads = 1 : i64
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kernel(%g: memref<64xf16>, %o: memref<64xf32>)
        workgroup(%lds : memref<64xf16, #gpu.address_space<workgroup>>)
        private(%p : memref<4xf32, #gpu.address_space<private>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %f = arith.constant 1.0 : f32
      %acc = arith.constant dense<0.0> : vector<4xf32>
      %tid = gpu.thread_id x
      scf.for %i = %c0 to %c4 step %c1 {
        %v = vector.load %g[%c0] : memref<64xf16>, vector<8xf16>
        vector.store %v, %lds[%c0] : memref<64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
        gpu.barrier
        %a = vector.load %lds[%c0] : memref<64xf16, #gpu.address_space<workgroup>>, vector<4xf16>
        %d = amdgpu.mfma 16x16x16 %a * %a + %acc blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
        %s = memref.load %p[%c0] : memref<4xf32, #gpu.address_space<private>>
      }
      %cond = arith.cmpi ult, %tid, %c4 : index
      scf.if %cond {
        memref.store %f, %o[%c0] : memref<64xf32>
      } else {
        memref.store %f, %o[%c0] : memref<64xf32>
        memref.store %f, %o[%c1] : memref<64xf32>
      }
      gpu.return
    }
    gpu.func @dynamic(%g: memref<64xf16>, %n: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        %v = memref.load %g[%i] : memref<64xf16>
      }
      gpu.return
    }
  }
}
