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
