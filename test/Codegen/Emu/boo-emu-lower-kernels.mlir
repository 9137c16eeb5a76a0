// RUN: boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-emu-lower-kernels --canonicalize --cse | FileCheck %s
// RUN: boo-opt %s -split-input-file --boo-set-target=chip=gfx942 --boo-emu-lower-kernels="checks=false" --canonicalize --cse | FileCheck %s --check-prefix=NOCHECKS

// Slots of the work-item's context (runtime/include/boo/EmuABI.h): 0 thread
// id, 6 block dim, 12 LDS, 14 barrier, 15 reportOutOfBounds, 16 ldsAccess,
// 17 shuffle, 18 mma, 19 globalAccess.

// A kernel named after its gpu.module keeps its name. Its one workgroup
// attribution (64 floats) is the context's LDS; its arguments are read
// through %args. With checks, every access is guarded: in bounds it
// happens and is reported with its site number (0-3 in program order): LDS
// accesses to the race detector and the profile, accesses of arguments to
// the profile when it is set (not null), a load before and a store after. Out of bounds it is
// reported with the buffer's code (argument 0, LDS buffer 0 = 1000,
// argument 1) and skipped, a load giving 0. The barrier and the shuffle
// call the context.
// CHECK-LABEL: func.func @reverse(
// CHECK-SAME:      %[[CTX:[^:]+]]: !llvm.ptr, %[[ARGS:[^:]+]]: !llvm.ptr)
// CHECK-SAME:      attributes {boo.emu_kernel, boo.emu_lds_bytes = 256 : i64}
// CHECK-NOT:     gpu.
// CHECK-DAG:     %[[LDSP:.+]] = llvm.getelementptr %[[CTX]][12]
// CHECK-DAG:     %[[LDSBASE:.+]] = llvm.load %[[LDSP]] : !llvm.ptr -> !llvm.ptr
// CHECK-DAG:     %[[TILE:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<256xi8> to memref<64xf32>
// CHECK-DAG:     %[[IN:.+]] = builtin.unrealized_conversion_cast %{{.+}} to memref<64xf32>
// CHECK:         %[[TIDX:.+]] = llvm.load %[[CTX]] : !llvm.ptr -> i64
// CHECK:         %[[TID:.+]] = arith.index_cast %[[TIDX]] : i64 to index
// CHECK:         %[[OK:.+]] = arith.andi
// CHECK:         %[[V:.+]] = scf.if %{{.+}} -> (f32) {
// CHECK:           %[[GLOBP:.+]] = llvm.getelementptr %[[CTX]][19]
// CHECK:           %[[GLOB:.+]] = llvm.load %[[GLOBP]]
// CHECK:           %[[SET:.+]] = llvm.icmp "ne" %[[GLOB]], %{{.+}} : !llvm.ptr
// CHECK:           scf.if %[[SET]] {
// CHECK:             llvm.call %{{.+}}(%[[CTX]], %c0_i32, %c0_i32, %c0_i32, %{{.+}}, %c4_i64)
// CHECK:           %[[L:.+]] = memref.load %[[IN]][%[[TID]]] : memref<64xf32>
// CHECK:           scf.yield %[[L]] : f32
// CHECK:         } else {
// CHECK:           %[[OOB:.+]] = llvm.getelementptr %[[CTX]][15]
// CHECK:           %[[REPORT:.+]] = llvm.load %[[OOB]]
// CHECK:           llvm.call %[[REPORT]](%[[CTX]], %c0_i32, %c0_i32, %[[TIDX]], %c64_i64,
// CHECK:           scf.yield %cst : f32
// CHECK:         }
// CHECK:         scf.if %{{.+}} {
// CHECK:           memref.store %[[V]], %[[TILE]][%[[TID]]] : memref<64xf32>
// CHECK:           %[[ACCESS:.+]] = llvm.getelementptr %[[CTX]][16]
// CHECK:           %[[LDSACC:.+]] = llvm.load %[[ACCESS]]
// CHECK:           llvm.call %[[LDSACC]](%[[CTX]], %c1_i32, %c1_i32, %{{.+}}, %c4_i64)
// CHECK:         } else {
// CHECK:           llvm.call %{{.+}}(%[[CTX]], %c1_i32, %c1000_i32, %[[TIDX]], %c64_i64,
// CHECK:         }
// CHECK:         %[[BARP:.+]] = llvm.getelementptr %[[CTX]][14]
// CHECK:         %[[BAR:.+]] = llvm.load %[[BARP]]
// CHECK:         llvm.call %[[BAR]](%[[CTX]], %c0_i32) : !llvm.ptr, (!llvm.ptr, i32) -> ()
// CHECK:         scf.if %{{.+}} -> (f32) {
// CHECK:           llvm.call %{{.+}}(%[[CTX]], %c2_i32, %c0_i32, %{{.+}}, %c4_i64)
// CHECK:           memref.load %[[TILE]]
// CHECK:         %[[SHUFP:.+]] = llvm.getelementptr %[[CTX]][17]
// CHECK:         %[[SHUF:.+]] = llvm.load %[[SHUFP]]
// CHECK:         %[[PACKED:.+]] = llvm.call %[[SHUF]](%[[CTX]], %c0_i32, %{{.+}}, %c1_i32, %c32_i32) : !llvm.ptr, (!llvm.ptr, i32, i32, i32, i32) -> i64
// CHECK:         %[[BITS:.+]] = arith.trunci %[[PACKED]] : i64 to i32
// CHECK:         %[[S:.+]] = arith.bitcast %[[BITS]] : i32 to f32
// CHECK:         scf.if
// CHECK:           memref.store %[[S]]
// CHECK:           llvm.getelementptr %[[CTX]][19]
// CHECK:           llvm.call %{{.+}}(%[[CTX]], %c3_i32, %c1_i32, %c1_i32, %{{.+}}, %c4_i64)
// CHECK:         } else {
// CHECK:           llvm.call %{{.+}}(%[[CTX]], %c1_i32, %c1_i32, %[[TIDX]], %c64_i64,
// CHECK:         }
// CHECK:         return
// CHECK-NOT:   gpu.module

// Without checks, the accesses are plain and nothing reports them.
// NOCHECKS-LABEL: func.func @reverse(
// NOCHECKS-NOT:     scf.if
// NOCHECKS-NOT:     getelementptr %{{.+}}[15]
// NOCHECKS-NOT:     getelementptr %{{.+}}[16]
// NOCHECKS-NOT:     getelementptr %{{.+}}[19]
// NOCHECKS:         return
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
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %s, %ok = gpu.shuffle xor %w, %c1, %c32 : f32
      memref.store %s, %out[%tid] : memref<64xf32>
      gpu.return
    }
  }
}

// -----

// A kernel of another name is @<module>__<kernel>; the host function that
// launched it is erased (the loader has read it). The lane id is the linear
// thread id modulo the wave (64 on gfx942). An MFMA passes the lane's A, B
// (as 16-bit items) and C fragments through private arrays to the
// context's mma with family 0 (MFMA), 16x16x16, input type 1 (f16), 4
// items of A and 4 of C, and reads D back.
// CHECK-NOT:   func.func @host
// CHECK-LABEL: func.func @m__mma(
// CHECK-SAME:      %[[CTX:[^:]+]]: !llvm.ptr, %{{[^:]+}}: !llvm.ptr)
// CHECK-DAG:     %[[A:.+]] = memref.alloca() : memref<4xi16>
// CHECK-DAG:     %[[B:.+]] = memref.alloca() : memref<4xi16>
// CHECK-DAG:     %[[C:.+]] = memref.alloca() : memref<4xf32>
// CHECK-DAG:     %[[D:.+]] = memref.alloca() : memref<4xf32>
// CHECK:         arith.remui %{{.+}}, %c64 : index
// CHECK:         vector.bitcast %{{.+}} : vector<4xf16> to vector<4xi16>
// CHECK:         vector.store %{{.+}}, %[[A]][%c0]
// CHECK:         vector.store %{{.+}}, %[[B]][%c0]
// CHECK:         vector.store %{{.+}}, %[[C]][%c0]
// CHECK:         %[[MMAP:.+]] = llvm.getelementptr %[[CTX]][18]
// CHECK:         %[[MMA:.+]] = llvm.load %[[MMAP]]
// CHECK:         llvm.call %[[MMA]](%[[CTX]], %c0_i32, %c16_i32, %c16_i32, %c16_i32, %c1_i32, %c4_i32, %c4_i32,
// CHECK:         vector.load %[[D]][%c0] : memref<4xf32>, vector<4xf32>
// CHECK-NOT:     amdgpu.mfma
// CHECK:         return
module attributes {gpu.container_module} {
  func.func @host(%a: memref<64xf16>, %b: memref<64xf16>, %c: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @m::@mma blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%a : memref<64xf16>, %b : memref<64xf16>, %c : memref<4xf32>)
    return
  }
  gpu.module @m {
    gpu.func @mma(%a: memref<64xf16>, %b: memref<64xf16>, %c: memref<4xf32>) kernel {
      %lane = gpu.lane_id
      %c4 = arith.constant 4 : index
      %i = arith.muli %lane, %c4 : index
      %va = vector.load %a[%i] : memref<64xf16>, vector<4xf16>
      %vb = vector.load %b[%i] : memref<64xf16>, vector<4xf16>
      %c0 = arith.constant 0 : index
      %vc = vector.load %c[%c0] : memref<4xf32>, vector<4xf32>
      %d = amdgpu.mfma 16x16x16 %va * %vb + %vc blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
      vector.store %d, %c[%c0] : memref<4xf32>, vector<4xf32>
      gpu.return
    }
  }
}

// -----

// A subview's accesses are checked against the view (each index: row 1 is
// in, and the thread id must be below 16) and against the buffer it comes
// from (the linear element offset, the subview's offset from its strided
// metadata plus 1 * 16 plus the thread id, must be below 8 * 16).
// CHECK-LABEL: func.func @sub(
// CHECK:         %[[SV:.+]] = memref.subview
// CHECK:         %[[TIDX:.+]] = llvm.load %{{.+}} : !llvm.ptr -> i64
// CHECK:         %[[TID:.+]] = arith.index_cast %[[TIDX]]
// CHECK:         %{{.+}}, %[[OFF:.+]], %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[SV]]
// CHECK:         %[[ROW:.+]] = arith.addi %[[OFF]], %c16 : index
// CHECK:         arith.cmpi slt, %[[TID]], %c16 : index
// CHECK:         %[[LIN:.+]] = arith.addi %[[ROW]], %[[TID]] : index
// CHECK:         arith.cmpi slt, %[[LIN]], %c128 : index
// CHECK:         scf.if
// CHECK:           memref.store %{{.+}}, %[[SV]][%c1, %[[TID]]]
module attributes {gpu.container_module} {
  gpu.module @sub {
    gpu.func @sub(%x: memref<8x16xf32>, %i: index) kernel {
      %sv = memref.subview %x[%i, 0] [2, 16] [1, 1] : memref<8x16xf32> to memref<2x16xf32, strided<[16, 1], offset: ?>>
      %tid = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %sv[%c1, %tid] : memref<2x16xf32, strided<[16, 1], offset: ?>>
      gpu.return
    }
  }
}
