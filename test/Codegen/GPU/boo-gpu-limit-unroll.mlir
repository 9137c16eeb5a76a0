// RUN: boo-opt %s --boo-gpu-limit-unroll | FileCheck %s
// RUN: boo-opt %s --boo-gpu-limit-unroll=max-unrolled-iterations=1000 | FileCheck %s --check-prefix=BIG

// A thread's reduction over 2 x 14 x 14 positions (backward weight) around a
// 4-element register tile: the tile loop (4) and the innermost position loop
// (14 x 4 = 56 copies) may still be unrolled; the outer ones may not. The
// annotation is the llvm.br property the latch branch gets after
// convert-scf-to-cf and convert-cf-to-llvm.
// CHECK:       #[[NOUNROLL:.+]] = #llvm.loop_annotation<unroll = #{{.+}}>
// CHECK-LABEL: func.func @reduction(
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:               }
// CHECK-NOT:         loop_annotation
// CHECK:             }
// CHECK-NOT:         loop_annotation
// CHECK:           } {loop_annotation = #[[NOUNROLL]]}
// CHECK:         } {loop_annotation = #[[NOUNROLL]]}
// BIG-LABEL: func.func @reduction(
// BIG:           } {loop_annotation = #{{.+}}}
// BIG-NOT:       loop_annotation
func.func @reduction(%x: memref<2x14x14x4xf32>, %acc: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c14 = arith.constant 14 : index
  scf.for %b = %c0 to %c2 step %c1 {
    scf.for %h = %c0 to %c14 step %c1 {
      scf.for %w = %c0 to %c14 step %c1 {
        scf.for %k = %c0 to %c4 step %c1 {
          %v = memref.load %x[%b, %h, %w, %k] : memref<2x14x14x4xf32>
          %a = memref.load %acc[%k] : memref<4xf32>
          %s = arith.addf %a, %v : f32
          memref.store %s, %acc[%k] : memref<4xf32>
        }
      }
    }
  }
  // A dynamic trip count is left to LLVM (it does not fully unroll it).
  // CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step
  // CHECK-NOT: loop_annotation
  // CHECK: return
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %acc[%c0] : memref<4xf32>
    memref.store %a, %acc[%c1] : memref<4xf32>
  }
  return
}

// A loop that synchronizes the workgroup (an MMA kernel's step loop) stays a
// loop even with 4 iterations; the small loop inside it still unrolls.
// CHECK-LABEL: func.func @steps(
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:           }
// CHECK-NOT:       loop_annotation
// CHECK:           gpu.barrier
// CHECK:         } {loop_annotation = #[[NOUNROLL]]}
// BIG-LABEL: func.func @steps(
// BIG:           gpu.barrier
// BIG:         } {loop_annotation = #{{.+}}}
func.func @steps(%x: memref<4x4xf32>, %lds: memref<4xf32, #gpu.address_space<workgroup>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %s = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %x[%s, %k] : memref<4x4xf32>
      memref.store %v, %lds[%k] : memref<4xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
  }
  return
}

// A vector op counts as its elements: 14 steps of a vector<8xf32> tile (a
// thread tile boo-gpu-vectorize-thread-tiles made) are 112 > 64 copies, as
// the 14 x 8 scalar loops were. In a kernel on the matrix cores a vector
// is one fragment: 32 steps around 4-element fragments and an MFMA (128
// copies if the vectors counted) still unroll.
// CHECK-LABEL: func.func @vector_tile(
// CHECK:         scf.for
// CHECK:         } {loop_annotation = #[[NOUNROLL]]}
// CHECK-LABEL: func.func @mma_fragments(
// CHECK:         scf.for
// CHECK-NOT:     loop_annotation
// CHECK:         return
func.func @vector_tile(%x: memref<14x8xf32>, %acc: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %w = %c0 to %c32 step %c1 {
    %v = vector.load %x[%w, %c0] : memref<14x8xf32>, vector<8xf32>
    %a = vector.load %acc[%c0] : memref<8xf32>, vector<8xf32>
    %s = arith.addf %a, %v : vector<8xf32>
    vector.store %s, %acc[%c0] : memref<8xf32>, vector<8xf32>
  }
  return
}
func.func @mma_fragments(%a: memref<32x4xbf16>, %acc: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %k = %c0 to %c32 step %c1 {
    %f = vector.load %a[%k, %c0] : memref<32x4xbf16>, vector<4xbf16>
    %c = vector.load %acc[%c0] : memref<4xf32>, vector<4xf32>
    %d = amdgpu.mfma 16x16x16 %f * %f + %c blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
    vector.store %d, %acc[%c0] : memref<4xf32>, vector<4xf32>
  }
  return
}
