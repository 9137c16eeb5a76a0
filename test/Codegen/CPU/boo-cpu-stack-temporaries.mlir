// RUN: boo-opt %s -split-input-file -boo-cpu-stack-temporaries -verify-diagnostics | FileCheck %s

// A tile's temporary (allocated in a parallel loop's body, never freed)
// goes on the stack, released at the end of each iteration; a temporary
// outside the loop, or one that is freed, is left as it is.
// CHECK-LABEL: func.func @tile_temporary
// CHECK:         %[[OUTER:.+]] = memref.alloc() : memref<64xf32>
// CHECK:         scf.forall
// CHECK-NEXT:      %[[SP:.+]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT:      %[[T:.+]] = memref.alloca() {alignment = 64 : i64} : memref<2x32xf32>
// CHECK-NEXT:      %[[FREED:.+]] = memref.alloc() : memref<8xf32>
// CHECK:           memref.copy %[[T]]
// CHECK:           memref.dealloc %[[FREED]]
// CHECK-NEXT:      llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT:    }
// CHECK:         memref.dealloc %[[OUTER]]
func.func @tile_temporary(%out: memref<128x2x32xf32>) {
  %outer = memref.alloc() : memref<64xf32>
  scf.forall (%i) in (128) {
    %t = memref.alloc() {alignment = 64 : i64} : memref<2x32xf32>
    %freed = memref.alloc() : memref<8xf32>
    %dst = memref.subview %out[%i, 0, 0] [1, 2, 32] [1, 1, 1] : memref<128x2x32xf32> to memref<2x32xf32, strided<[32, 1], offset: ?>>
    memref.copy %t, %dst : memref<2x32xf32> to memref<2x32xf32, strided<[32, 1], offset: ?>>
    memref.dealloc %freed : memref<8xf32>
  }
  memref.dealloc %outer : memref<64xf32>
  return
}

// -----

// Too large for the stack (max-bytes, 65536 by default): it stays on the
// heap (through the runtime's allocation cache) and is freed at the end of
// the iteration, after its last use (a block of a filter packed per
// iteration, boo-cpu-tile-and-vectorize's pack-min-bytes).
// CHECK-LABEL: func.func @too_large
// CHECK:         scf.forall
// CHECK-NEXT:      %[[T:.+]] = memref.alloc() : memref<32768xf32>
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      memref.copy %[[T]]
// CHECK-NEXT:      memref.dealloc %[[T]] : memref<32768xf32>
// CHECK-NEXT:    }
func.func @too_large(%out: memref<4x32768xf32>) {
  scf.forall (%i) in (4) {
    %t = memref.alloc() : memref<32768xf32>
    %dst = memref.subview %out[%i, 0] [1, 32768] [1, 1] : memref<4x32768xf32> to memref<32768xf32, strided<[1], offset: ?>>
    memref.copy %t, %dst : memref<32768xf32> to memref<32768xf32, strided<[1], offset: ?>>
  }
  return
}

// -----

// Dynamic: an error too.
func.func @dynamic(%n: index) {
  scf.forall (%i) in (4) {
    // expected-error @below {{it would leak}}
    %t = memref.alloc(%n) : memref<?xf32>
  }
  return
}

// -----

// Nested in a sequential loop of the body, the stack would grow with each
// of its iterations: an error.
func.func @in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.forall (%i) in (4) {
    scf.for %j = %c0 to %n step %c1 {
      // expected-error @below {{it would leak}}
      %t = memref.alloc() : memref<4xf32>
    }
  }
  return
}
