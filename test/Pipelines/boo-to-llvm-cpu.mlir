// RUN: boo-opt %s -split-input-file --boo-to-llvm-cpu="parallel-min-work=0" | FileCheck %s
// RUN: boo-opt %s -split-input-file --boo-to-llvm-cpu="vectorize=false" | FileCheck %s --check-prefix=SCALAR
// RUN: boo-opt %s -split-input-file --boo-to-llvm-cpu="parallel=false" | FileCheck %s --check-prefix=SEQ

// conv + bias + relu becomes one LLVM function whose result is a trailing
// out-param memref (descriptor fields expanded); the 3x3 conv's tiles are
// 32-lane FMAs; nothing but LLVM dialect is left. Each tiled op's parallel
// loop (the filter reorder, the conv with its zero fill fused, the
// epilogue, in this order) is an outlined body
// `void body(ptr ctx, i64 begin, i64 end)` called through the
// zero-initialized external hook @__boo_parallel_for when a loader set it,
// else directly over [0, n). (These loops are small: outlined here with
// parallel-min-work=0; by default they would stay sequential.) The
// temporaries are allocated and freed through the __boo_alloc/__boo_free
// hooks (boo-cpu-hook-allocations).
// CHECK-DAG:   llvm.mlir.global external @__boo_alloc()
// CHECK-DAG:   llvm.mlir.global external @__boo_free()
// CHECK-DAG:   llvm.func internal @_mlir_memref_to_llvm_alloc(
// CHECK-DAG:   llvm.func internal @_mlir_memref_to_llvm_free(
// CHECK-LABEL: llvm.mlir.global external @__boo_parallel_for() {{.*}} : !llvm.ptr
// CHECK-NEXT:    %[[ZERO:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    llvm.return %[[ZERO]] : !llvm.ptr
// CHECK-LABEL: llvm.func @conv_bias_relu(
// CHECK-SAME:    %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64
// CHECK-DAG:     %[[BODY:.+]] = llvm.mlir.addressof @[[OUTLINED:conv_bias_relu_parallel_[0-9]+]] : !llvm.ptr
// CHECK-DAG:     %[[HOOK:.+]] = llvm.mlir.addressof @__boo_parallel_for : !llvm.ptr
// CHECK-DAG:     %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[CTX:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)>, struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)>)>
// CHECK:         llvm.store %{{.+}}, %{{.+}} : !llvm.struct<(ptr, ptr, i64, array<4 x i64>, array<4 x i64>)>, !llvm.ptr
// CHECK:         %[[DISPATCH:.+]] = llvm.load %[[HOOK]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[SET:.+]] = llvm.icmp "ne" %[[DISPATCH]], %[[NULL]] : !llvm.ptr
// CHECK:         llvm.cond_br %[[SET]], ^[[THREADED:.+]], ^[[DIRECT:[^ ]+]]
// CHECK:       ^[[THREADED]]:
// CHECK-NEXT:    llvm.call %[[DISPATCH]](%[[BODY]], %[[CTX]], %{{.+}}) : !llvm.ptr, (!llvm.ptr, !llvm.ptr, i64) -> ()
// CHECK:       ^[[DIRECT]]:
// CHECK-NEXT:    llvm.call @[[OUTLINED]](%[[CTX]], %{{.+}}, %{{.+}}) : (!llvm.ptr, i64, i64) -> ()
// CHECK:         llvm.call @_mlir_memref_to_llvm_free(
// CHECK:       llvm.func internal @conv_bias_relu_parallel_{{[0-9]+}}(%{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64)
// CHECK:         llvm.intr.fmuladd(%{{.+}}, %{{.+}}, %{{.+}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// CHECK:       llvm.func internal @conv_bias_relu_parallel_{{[0-9]+}}(%{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64)
// CHECK:         llvm.fcmp
// CHECK:         llvm.select
// CHECK-NOT:     {{(boo|linalg|tensor|memref|vector|scf|func)\.}}
// SEQ-NOT:     __boo_parallel_for
// SEQ-NOT:     _parallel_
// SEQ-LABEL:   llvm.func @conv_bias_relu(
// SEQ:           llvm.intr.fmuladd(%{{.+}}, %{{.+}}, %{{.+}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// SEQ-NOT:       _parallel_
// SCALAR-LABEL: llvm.func @conv_bias_relu(
// SCALAR-NOT:    vector<
// SCALAR:        llvm.fmul %{{.+}}, %{{.+}} : f32
func.func @conv_bias_relu(%x: tensor<1x10x10x16xf32>, %w: tensor<32x3x3x16xf32>, %b: tensor<32xf32>) -> tensor<1x8x8x32xf32> {
  %c = boo.conv %x, %w {input_layout = "NHWC", filter_layout = "KYXC", output_layout = "NHWC"} : tensor<1x10x10x16xf32>, tensor<32x3x3x16xf32> -> tensor<1x8x8x32xf32>
  %a = boo.add %c, %b {channel_dim = 3 : i64} : tensor<1x8x8x32xf32>, tensor<32xf32>
  %r = boo.activation relu %a : tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

// -----

// Every op kind lowers (layer norm, backward convolutions, bf16, gelu).
// CHECK-LABEL: llvm.func @everything
// CHECK:         llvm.call @erff
// CHECK-NOT:     {{(boo|linalg|tensor|memref|vector|scf|func)\.}}
func.func @everything(%x: tensor<2x8xbf16>, %dy: tensor<1x4x4x4xf16>, %w: tensor<4x3x3x3xf16>, %xi: tensor<1x3x9x9xf16>) -> (tensor<2x8xbf16>, tensor<2xf32>, tensor<1x3x9x9xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>) {
  %y, %m, %r = boo.layer_norm %x : tensor<2x8xbf16> -> tensor<2x8xbf16>, tensor<2xf32>, tensor<2xf32>
  %g = boo.activation gelu %y : tensor<2x8xbf16>
  %dx = boo.conv_bwd_data %dy, %w {strides = array<i64: 2, 2>} : tensor<1x4x4x4xf16>, tensor<4x3x3x3xf16> -> tensor<1x3x9x9xf16>
  %dw = boo.conv_bwd_weight %dy, %xi {strides = array<i64: 2, 2>} : tensor<1x4x4x4xf16>, tensor<1x3x9x9xf16> -> tensor<4x3x3x3xf16>
  %db = boo.conv_bwd_bias %dy : tensor<1x4x4x4xf16> -> tensor<4xf16>
  return %g, %m, %dx, %dw, %db : tensor<2x8xbf16>, tensor<2xf32>, tensor<1x3x9x9xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>
}

// -----

// A strided copy (here: a result that is a window of an input) becomes
// vector loads and stores of its rows (a small tile with contiguous rows),
// not a call to memrefCopy from MLIR's runner library: the compiled code
// calls nothing but libc and libm.
// CHECK-NOT:     memrefCopy
// CHECK-LABEL: llvm.func @strided_copy(
// CHECK:         llvm.load %{{.+}} : !llvm.ptr -> vector<4xf32>
// CHECK:         llvm.store %{{.+}}, %{{.+}} : vector<4xf32>, !llvm.ptr
// CHECK-NOT:     memrefCopy
func.func @strided_copy(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %s = tensor.extract_slice %x[0, 2] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
