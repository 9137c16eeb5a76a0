// RUN: boo-opt %s -split-input-file -boo-cpu-hook-allocations | FileCheck %s
// RUN: boo-opt %s -split-input-file -boo-cpu-hook-allocations \
// RUN:   -finalize-memref-to-llvm=use-generic-functions \
// RUN:   | FileCheck %s --check-prefix=LOWERED

// The two hooks (zero-initialized, external so a loader finds them) and the
// two functions finalize-memref-to-llvm's use-generic-functions calls
// (internal), each calling through its hook when set, else malloc/free.
// CHECK-DAG:   llvm.func @malloc(i64) -> !llvm.ptr
// CHECK-DAG:   llvm.func @free(!llvm.ptr)
// CHECK:       llvm.mlir.global external @__boo_alloc() {{.*}} : !llvm.ptr {
// CHECK-NEXT:    %[[Z:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    llvm.return %[[Z]] : !llvm.ptr
// CHECK:       llvm.mlir.global external @__boo_free() {{.*}} : !llvm.ptr {
// CHECK-LABEL: llvm.func internal @_mlir_memref_to_llvm_alloc(
// CHECK-SAME:    %[[SIZE:.+]]: i64) -> !llvm.ptr {
// CHECK:         %[[ADDR:.+]] = llvm.mlir.addressof @__boo_alloc : !llvm.ptr
// CHECK:         %[[HOOK:.+]] = llvm.load %[[ADDR]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[UNSET:.+]] = llvm.icmp "eq" %[[HOOK]], %[[NULL]] : !llvm.ptr
// CHECK:         llvm.cond_br %[[UNSET]], ^[[DIRECT:.+]], ^[[HOOKED:.+]]
// CHECK:       ^[[DIRECT]]:
// CHECK:         %[[P:.+]] = llvm.call @malloc(%[[SIZE]]) : (i64) -> !llvm.ptr
// CHECK:         llvm.return %[[P]] : !llvm.ptr
// CHECK:       ^[[HOOKED]]:
// CHECK:         %[[Q:.+]] = llvm.call %[[HOOK]](%[[SIZE]]) : !llvm.ptr, (i64) -> !llvm.ptr
// CHECK:         llvm.return %[[Q]] : !llvm.ptr
// CHECK-LABEL: llvm.func internal @_mlir_memref_to_llvm_free(
// CHECK-SAME:    %[[PTR:.+]]: !llvm.ptr) {
// CHECK:         llvm.mlir.addressof @__boo_free
// CHECK:         llvm.call @free(%[[PTR]]) : (!llvm.ptr) -> ()
// CHECK:         llvm.call %{{.+}}(%[[PTR]]) : !llvm.ptr, (!llvm.ptr) -> ()
// CHECK-LABEL: func.func @temporary(

// The lowered alloc and dealloc call them, not malloc and free.
// LOWERED-LABEL: func.func @temporary(
// LOWERED:         llvm.call @_mlir_memref_to_llvm_alloc(
// LOWERED:         llvm.call @_mlir_memref_to_llvm_free(
func.func @temporary(%n: index) {
  %m = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %m : memref<?xf32>
  return
}

// -----

// A module that defines the functions already is left as it was.
// CHECK-LABEL: llvm.func @_mlir_memref_to_llvm_alloc(
// CHECK-NOT:   __boo_alloc
llvm.func @_mlir_memref_to_llvm_alloc(%size: i64) -> !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
