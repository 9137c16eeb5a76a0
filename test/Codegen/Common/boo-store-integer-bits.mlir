// RUN: boo-opt %s -split-input-file -boo-store-integer-bits | FileCheck %s

// A bf16 vector stored (plainly or masked) right after a bitcast from i16
// is stored as the i16 vector, and the bitcast, unused, is erased.
// CHECK-LABEL: llvm.func @rounded_bf16
// CHECK-SAME:    %[[I:.+]]: vector<16xi16>, %[[P:.+]]: !llvm.ptr, %[[M:.+]]: vector<16xi1>
// CHECK-NOT:     llvm.bitcast
// CHECK:         llvm.store %[[I]], %[[P]] {alignment = 2 : i64} : vector<16xi16>, !llvm.ptr
// CHECK-NEXT:    llvm.intr.masked.store %[[I]], %[[P]], %[[M]] {alignment = 2 : i32} : vector<16xi16>, vector<16xi1> into !llvm.ptr
llvm.func @rounded_bf16(%i: vector<16xi16>, %p: !llvm.ptr, %m: vector<16xi1>) {
  %b = llvm.bitcast %i : vector<16xi16> to vector<16xbf16>
  llvm.store %b, %p {alignment = 2 : i64} : vector<16xbf16>, !llvm.ptr
  llvm.intr.masked.store %b, %p, %m {alignment = 2 : i32} : vector<16xbf16>, vector<16xi1> into !llvm.ptr
  llvm.return
}

// -----

// Left alone: a bitcast also used by arithmetic (kept for it, the store
// rewritten), a bitcast from floats, one to integers, and a store of a
// value that is no bitcast.
// CHECK-LABEL: llvm.func @kept
// CHECK:         %[[B:.+]] = llvm.bitcast %{{.+}} : vector<8xi32> to vector<8xf32>
// CHECK:         llvm.store %{{.+}}, %{{.+}} : vector<8xi32>, !llvm.ptr
// CHECK:         llvm.fadd %[[B]], %[[B]]
// CHECK:         %[[F:.+]] = llvm.bitcast %{{.+}} : vector<8xf32> to vector<16xbf16>
// CHECK:         llvm.store %[[F]], %{{.+}} : vector<16xbf16>, !llvm.ptr
// CHECK:         %[[J:.+]] = llvm.bitcast %{{.+}} : vector<8xf32> to vector<8xi32>
// CHECK:         llvm.store %[[J]], %{{.+}} : vector<8xi32>, !llvm.ptr
// CHECK:         llvm.store %{{.+}}, %{{.+}} : vector<8xf32>, !llvm.ptr
llvm.func @kept(%i: vector<8xi32>, %f: vector<8xf32>, %p: !llvm.ptr) -> vector<8xf32> {
  %b = llvm.bitcast %i : vector<8xi32> to vector<8xf32>
  llvm.store %b, %p : vector<8xf32>, !llvm.ptr
  %s = llvm.fadd %b, %b : vector<8xf32>
  %h = llvm.bitcast %f : vector<8xf32> to vector<16xbf16>
  llvm.store %h, %p : vector<16xbf16>, !llvm.ptr
  %j = llvm.bitcast %f : vector<8xf32> to vector<8xi32>
  llvm.store %j, %p : vector<8xi32>, !llvm.ptr
  llvm.store %f, %p : vector<8xf32>, !llvm.ptr
  llvm.return %s : vector<8xf32>
}
