// RUN: boo-opt %s -split-input-file -boo-cpu-outline-parallel=min-work=0 | FileCheck %s
// RUN: boo-opt %s -split-input-file -boo-cpu-outline-parallel | FileCheck %s --check-prefix=DEFAULT

// A 1-D forall: its body becomes @one_dim_parallel_0(ctx, begin, end), which
// loads both memrefs (as descriptors) from the context and runs iterations
// [begin, end); the call site fills the context, then dispatches through
// the hook if it is set, else calls the body over [0, 16) itself.
// CHECK:       llvm.mlir.global external @__boo_parallel_for() {{.*}} : !llvm.ptr {
// CHECK-NEXT:    %[[ZERO:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    llvm.return %[[ZERO]] : !llvm.ptr
// CHECK-LABEL: func.func @one_dim(
// CHECK-SAME:    %[[IN:.+]]: memref<16xf32>, %[[OUT:.+]]: memref<16xf32>)
// CHECK:         %[[CTX:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>)>
// CHECK:         %[[F0:.+]] = llvm.getelementptr %[[CTX]][0, 0]
// CHECK:         %[[D0:.+]] = builtin.unrealized_conversion_cast %[[IN]] : memref<16xf32> to !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK:         llvm.store %[[D0]], %[[F0]]
// CHECK:         %[[F1:.+]] = llvm.getelementptr %[[CTX]][0, 1]
// CHECK:         %[[D1:.+]] = builtin.unrealized_conversion_cast %[[OUT]]
// CHECK:         llvm.store %[[D1]], %[[F1]]
// CHECK:         %[[N:.+]] = arith.constant 16 : index
// CHECK:         %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[FN:.+]] = constant @one_dim_parallel_0 : (!llvm.ptr, index, index) -> ()
// CHECK:         %[[BODY:.+]] = builtin.unrealized_conversion_cast %[[FN]] : (!llvm.ptr, index, index) -> () to !llvm.ptr
// CHECK:         %[[HOOK:.+]] = llvm.mlir.addressof @__boo_parallel_for : !llvm.ptr
// CHECK:         %[[DISPATCH:.+]] = llvm.load %[[HOOK]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[SET:.+]] = llvm.icmp "ne" %[[DISPATCH]], %[[NULL]] : !llvm.ptr
// CHECK:         scf.if %[[SET]] {
// CHECK-NEXT:      llvm.call %[[DISPATCH]](%[[BODY]], %[[CTX]], %[[N64]]) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:      func.call @one_dim_parallel_0(%[[CTX]], %[[C0]], %[[N]]) : (!llvm.ptr, index, index) -> ()
// CHECK-NEXT:    }
// CHECK-NOT:     scf.forall
// CHECK:         return
// CHECK-LABEL: func.func private @one_dim_parallel_0(
// CHECK-SAME:    %[[BCTX:.+]]: !llvm.ptr, %[[BEGIN:.+]]: index, %[[END:.+]]: index)
// CHECK-SAME:    attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK:         %[[G0:.+]] = llvm.getelementptr %[[BCTX]][0, 0]
// CHECK:         %[[L0:.+]] = llvm.load %[[G0]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK:         %[[M0:.+]] = builtin.unrealized_conversion_cast %[[L0]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<16xf32>
// CHECK:         %[[G1:.+]] = llvm.getelementptr %[[BCTX]][0, 1]
// CHECK:         %[[L1:.+]] = llvm.load %[[G1]]
// CHECK:         %[[M1:.+]] = builtin.unrealized_conversion_cast %[[L1]] {{.*}} to memref<16xf32>
// CHECK:         scf.for %[[I:.+]] = %[[BEGIN]] to %[[END]] step %{{.+}} {
// CHECK-NEXT:      %[[V:.+]] = memref.load %[[M0]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:      memref.store %[[V]], %[[M1]][%[[I]]] : memref<16xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @one_dim(%in: memref<16xf32>, %out: memref<16xf32>) {
  scf.forall (%i) in (16) {
    %v = memref.load %in[%i] : memref<16xf32>
    memref.store %v, %out[%i] : memref<16xf32>
  }
  return
}

// -----

// A 2-D forall with a lower bound and a step, capturing an index (stored as
// i64), an f32 (as itself) and a strided memref (as its descriptor); the
// constant is cloned into the body instead. The linear index is
// delinearized last dim fastest: 8 x 7 iterations.
// CHECK-LABEL: func.func @two_dim(
// CHECK-SAME:    %[[IN:.+]]: memref<8x64xf32>, %[[OUT:.+]]: memref<8x32xf32, strided<[64, 1], offset: ?>>, %[[K:.+]]: index, %[[S:.+]]: f32)
// CHECK:         %[[CTX:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(i64, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, f32, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>)>
// CHECK:         %[[K64:.+]] = arith.index_cast %[[K]] : index to i64
// CHECK:         llvm.store %[[K64]], %{{.+}} : i64, !llvm.ptr
// CHECK:         builtin.unrealized_conversion_cast %[[IN]]
// CHECK:         llvm.store %[[S]], %{{.+}} : f32, !llvm.ptr
// CHECK:         builtin.unrealized_conversion_cast %[[OUT]] : memref<8x32xf32, strided<[64, 1], offset: ?>> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-DAG:     %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG:     %[[C7:.+]] = arith.constant 7 : index
// CHECK:         %[[N:.+]] = arith.muli %[[C8]], %[[C7]] : index
// CHECK:         arith.index_cast %[[N]] : index to i64
// CHECK:         func.call @two_dim_parallel_0(%[[CTX]], %{{.+}}, %[[N]])
// CHECK-LABEL: func.func private @two_dim_parallel_0(
// CHECK-SAME:    %[[BCTX:.+]]: !llvm.ptr, %[[BEGIN:.+]]: index, %[[END:.+]]: index)
// CHECK:         %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK:         %[[LK:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i64
// CHECK:         %[[BK:.+]] = arith.index_cast %[[LK]] : i64 to index
// CHECK:         %[[BIN:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<8x64xf32>
// CHECK:         %[[BS:.+]] = llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK:         %[[BOUT:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<8x32xf32, strided<[64, 1], offset: ?>>
// CHECK:         %[[BC7:.+]] = arith.constant 7 : index
// CHECK:         scf.for %[[IDX:.+]] = %[[BEGIN]] to %[[END]] step %{{.+}} {
// CHECK-NEXT:      %[[JT:.+]] = arith.remui %[[IDX]], %[[BC7]] : index
// CHECK-NEXT:      %[[I:.+]] = arith.divui %[[IDX]], %[[BC7]] : index
// CHECK-NEXT:      %[[JS:.+]] = arith.muli %[[JT]], %c4{{.*}} : index
// CHECK-NEXT:      %[[J:.+]] = arith.addi %c4{{.*}}, %[[JS]] : index
// CHECK-NEXT:      %[[X:.+]] = arith.addi %[[J]], %[[BK]] : index
// CHECK-NEXT:      %[[V:.+]] = memref.load %[[BIN]][%[[I]], %[[X]]]
// CHECK-NEXT:      %[[M:.+]] = arith.mulf %[[V]], %[[BS]] : f32
// CHECK-NEXT:      %[[M2:.+]] = arith.mulf %[[M]], %[[TWO]] : f32
// CHECK-NEXT:      memref.store %[[M2]], %[[BOUT]][%[[I]], %[[J]]]
func.func @two_dim(%in: memref<8x64xf32>, %out: memref<8x32xf32, strided<[64, 1], offset: ?>>, %k: index, %s: f32) {
  %c2 = arith.constant 2.0 : f32
  scf.forall (%i, %j) = (0, 4) to (8, 32) step (1, 4) {
    %x = arith.addi %j, %k : index
    %v = memref.load %in[%i, %x] : memref<8x64xf32>
    %m = arith.mulf %v, %s : f32
    %m2 = arith.mulf %m, %c2 : f32
    memref.store %m2, %out[%i, %j] : memref<8x32xf32, strided<[64, 1], offset: ?>>
  }
  return
}

// -----

// A dynamic bound travels through the context like any other capture; the
// trip count is max(0, ceil((ub - lb) / step)) on both sides.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:    %{{.+}}: memref<?xf32>, %[[UB:.+]]: index)
// CHECK:         %[[UB64:.+]] = arith.index_cast %[[UB]] : index to i64
// CHECK:         llvm.store %[[UB64]]
// CHECK:         %[[EXT:.+]] = arith.subi %[[UB]], %{{.+}} : index
// CHECK:         %[[CEIL:.+]] = arith.ceildivsi %[[EXT]], %{{.+}} : index
// CHECK:         %[[N:.+]] = arith.maxsi %[[CEIL]], %{{.+}} : index
// CHECK:         func.call @dynamic_parallel_0(%{{.+}}, %{{.+}}, %[[N]])
// CHECK-LABEL: func.func private @dynamic_parallel_0(
// CHECK:         llvm.load %{{.+}} : !llvm.ptr -> i64
// CHECK:         scf.for
// CHECK:           memref.store
func.func @dynamic(%out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0.0 : f32
  scf.forall (%i) in (%n) {
    memref.store %c0, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// Only the outer forall is outlined; the inner one stays in the body (and
// later lowers to a sequential loop).
// CHECK-LABEL: func.func @nested(
// CHECK-NOT:     scf.forall
// CHECK:         func.call @nested_parallel_0
// CHECK-NOT:     scf.forall
// CHECK-LABEL: func.func private @nested_parallel_0(
// CHECK:         scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT:      scf.forall (%[[J:.+]]) in (8) {
// CHECK-NEXT:        memref.store %{{.+}}, %{{.+}}[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK-NOT:   func.func private @nested_parallel_1
func.func @nested(%buf: memref<4x8xf32>) {
  %cst = arith.constant 1.0 : f32
  scf.forall (%i) in (4) {
    scf.forall (%j) in (8) {
      memref.store %cst, %buf[%i, %j] : memref<4x8xf32>
    }
  }
  return
}

// -----

// Two loops, two bodies (in loop order), each with its own context.
// CHECK-LABEL: func.func @two_loops(
// CHECK-DAG:     %[[CTX1:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>, struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>)>
// CHECK-DAG:     %[[CTX0:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>)>
// CHECK:         func.call @two_loops_parallel_0(%[[CTX0]],
// CHECK:         func.call @two_loops_parallel_1(%[[CTX1]],
// CHECK-LABEL: func.func private @two_loops_parallel_0(
// CHECK:         memref.store
// CHECK-LABEL: func.func private @two_loops_parallel_1(
// CHECK:         memref.load
// CHECK:         memref.store
func.func @two_loops(%a: memref<16xf32>, %b: memref<16xf32>) {
  %cst = arith.constant 0.0 : f32
  scf.forall (%i) in (16) {
    memref.store %cst, %a[%i] : memref<16xf32>
  }
  scf.forall (%i) in (16) {
    %v = memref.load %a[%i] : memref<16xf32>
    memref.store %v, %b[%i] : memref<16xf32>
  }
  return
}

// -----

// Without a forall the function is unchanged; the module still defines the
// hook (it is part of the ABI).
// CHECK:       llvm.mlir.global external @__boo_parallel_for()
// CHECK-LABEL: func.func @no_forall(
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    arith.constant 16 : index
// CHECK-NEXT:    arith.constant 1 : index
// CHECK-NEXT:    arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    }
// CHECK-NEXT:    return
// CHECK-NOT:   func.func
func.func @no_forall(%a: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %cst, %a[%i] : memref<16xf32>
  }
  return
}

// -----

// With the default min-work (32768 estimated operations), a loop too small
// to pay for waking threads stays a sequential scf.forall, and one with
// enough work (64 iterations of an inner loop of 1024) is outlined. Every
// earlier case is small, so none of them is outlined by default.
// DEFAULT-NOT:   func.func private @{{.*}}_parallel_
// DEFAULT-LABEL: func.func @small_and_large(
// DEFAULT:         scf.forall (%{{.+}}) in (8)
// DEFAULT:         llvm.call
// DEFAULT:         func.call @small_and_large_parallel_0(
// DEFAULT-LABEL: func.func private @small_and_large_parallel_0(
// DEFAULT-NOT:   func.func private @small_and_large_parallel_1(
// CHECK-LABEL: func.func @small_and_large(
// CHECK:         func.call @small_and_large_parallel_0(
// CHECK:         func.call @small_and_large_parallel_1(
func.func @small_and_large(%a: memref<8xf32>, %b: memref<64x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1024 = arith.constant 1024 : index
  %one = arith.constant 1.0 : f32
  scf.forall (%i) in (8) {
    %x = memref.load %a[%i] : memref<8xf32>
    %y = arith.addf %x, %one : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  scf.forall (%i) in (64) {
    scf.for %j = %c0 to %c1024 step %c1 {
      %x = memref.load %b[%i, %j] : memref<64x1024xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %b[%i, %j] : memref<64x1024xf32>
    }
  }
  return
}

// -----

// A vector op counts its elements: 64 iterations of a 64-step loop of
// 32-lane loads, adds and stores (3 x 32 x 64 x 64 = 393216) are outlined by
// default; the same loop over scalars (3 x 64 x 64 = 12288) is not.
// DEFAULT-LABEL: func.func @vector_work(
// DEFAULT:         func.call @vector_work_parallel_0(
// DEFAULT:         scf.forall (%{{.+}}) in (64)
// DEFAULT:           memref.load
// DEFAULT-LABEL: func.func private @vector_work_parallel_0(
// DEFAULT:         vector.load
// DEFAULT-NOT:   func.func private @vector_work_parallel_1(
func.func @vector_work(%a: memref<64x2048xf32>, %b: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c2048 = arith.constant 2048 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant dense<1.0> : vector<32xf32>
  %s = arith.constant 1.0 : f32
  scf.forall (%i) in (64) {
    scf.for %j = %c0 to %c2048 step %c32 {
      %x = vector.load %a[%i, %j] : memref<64x2048xf32>, vector<32xf32>
      %y = arith.addf %x, %one : vector<32xf32>
      vector.store %y, %a[%i, %j] : memref<64x2048xf32>, vector<32xf32>
    }
  }
  scf.forall (%i) in (64) {
    scf.for %j = %c0 to %c64 step %c1 {
      %x = memref.load %b[%i, %j] : memref<64x64xf32>
      %y = arith.addf %x, %s : f32
      memref.store %y, %b[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
