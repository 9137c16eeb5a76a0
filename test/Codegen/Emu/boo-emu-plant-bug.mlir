// RUN: boo-opt %s -split-input-file --boo-emu-plant-bug="bug=missing-barrier" | FileCheck %s --check-prefix=BARRIER
// RUN: boo-opt %s -split-input-file --boo-emu-plant-bug="bug=off-by-one" | FileCheck %s --check-prefix=OFF
// RUN: boo-opt %s -split-input-file --boo-emu-plant-bug="bug=mma-layout" | FileCheck %s --check-prefix=MMA
// RUN: not boo-opt %s -split-input-file --boo-emu-plant-bug="bug=typo" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: echo "module {}" | not boo-opt --boo-emu-plant-bug="bug=mma-layout" 2>&1 | FileCheck %s --check-prefix=NOPLACE

// Each bug is planted in every kernel (gpu.func with `kernel`), never in a
// device function; the rest of the kernel is unchanged.

// UNKNOWN: error: boo-emu-plant-bug: unknown bug 'typo'; expected missing-barrier, off-by-one or mma-layout
// NOPLACE: error: boo-emu-plant-bug: no kernel has a place for bug 'mma-layout'

// missing-barrier drops the first barrier only; off-by-one shifts the last
// index of stores to kernel arguments, not of stores to LDS.
// BARRIER-LABEL: gpu.func @reverse(
// BARRIER:         memref.store %{{.+}}, %{{.+}}[%[[TID:.+]]] : memref<64xf32, #gpu.address_space<workgroup>>
// BARRIER-NOT:     gpu.barrier
// BARRIER:         memref.load
// BARRIER:         gpu.barrier
// BARRIER:         memref.store
// BARRIER-NOT:     gpu.barrier
// BARRIER:         gpu.return

// OFF-LABEL: gpu.func @reverse(
// OFF-SAME:      %[[IN:[^:]+]]: memref<64xf32>, %[[OUT:[^:]+]]: memref<64xf32>)
// OFF:         %[[TID:.+]] = gpu.thread_id x
// OFF:         memref.store %{{.+}}, %{{.+}}[%[[TID]]] : memref<64xf32, #gpu.address_space<workgroup>>
// OFF:         gpu.barrier
// OFF:         %[[NEXT:.+]] = arith.addi %[[TID]], %{{.+}} : index
// OFF:         memref.store %{{.+}}, %[[OUT]][%[[NEXT]]] : memref<64xf32>

// MMA-LABEL: gpu.func @reverse(
// MMA-NOT:     vector.shuffle
// MMA:         gpu.return
// BARRIER-LABEL: gpu.func @mfma(
// BARRIER-NOT:     gpu.barrier
// BARRIER:         gpu.return
// OFF-LABEL:     gpu.func @mfma(
// OFF:             %[[ONE:.+]] = arith.addi %{{.+}}, %{{.+}} : index
// OFF:             memref.store %{{.+}}, %{{.+}}[%[[ONE]]] : memref<4xf32>
// mma-layout reverses each MMA's A fragment (operand 0), not B or C, in
// kernels only.
// MMA-LABEL:     gpu.func @mfma(
// MMA-SAME:        %[[A:[^:]+]]: vector<4xf16>, %[[B:[^:]+]]: vector<4xf16>, %[[C:[^:]+]]: vector<4xf32>
// MMA:           %[[R:.+]] = vector.shuffle %[[A]], %[[A]] [3, 2, 1, 0] : vector<4xf16>, vector<4xf16>
// MMA:           amdgpu.mfma 16x16x16 %[[R]] * %[[B]] + %[[C]]
// MMA-NOT:       vector.shuffle
// MMA:           gpu.func @helper(
// MMA-NOT:       vector.shuffle
// MMA:           gpu.return

module attributes {gpu.container_module} {
  gpu.module @reverse {
    gpu.func @reverse(%in: memref<64xf32>, %out: memref<64xf32>)
        workgroup(%tile: memref<64xf32, #gpu.address_space<workgroup>>)
        kernel {
      %tid = gpu.thread_id x
      %v = memref.load %in[%tid] : memref<64xf32>
      memref.store %v, %tile[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c63 = arith.constant 63 : index
      %r = arith.subi %c63, %tid : index
      %w = memref.load %tile[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %w, %out[%tid] : memref<64xf32>
      gpu.return
    }
  }
  gpu.module @mfma {
    gpu.func @mfma(%a: vector<4xf16>, %b: vector<4xf16>, %c: vector<4xf32>, %out: memref<4xf32>) kernel {
      %d = amdgpu.mfma 16x16x16 %a * %b + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      %c0 = arith.constant 0 : index
      %e = vector.extract %d[0] : f32 from vector<4xf32>
      memref.store %e, %out[%c0] : memref<4xf32>
      gpu.barrier
      gpu.return
    }
    gpu.func @helper(%a: vector<4xf16>, %c: vector<4xf32>) -> vector<4xf32> {
      %d = amdgpu.mfma 16x16x16 %a * %a + %c blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      gpu.return %d : vector<4xf32>
    }
  }
}
