// The general schedule's checks (CHECK, CHAIN, PEEL, PACK) turn off
// depthwise-rows, which would take the channels-last depthwise cases; the
// DWROWS run checks it at the default options.
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="depthwise-rows=false" -canonicalize -cse | FileCheck %s
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="vectorize=false" | FileCheck %s --check-prefix=NOVEC
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="row-chain-bytes=1024 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=CHAIN
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="peel-min-input-bytes=0 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=PEEL
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="stream-min-bytes=3000" | FileCheck %s --check-prefix=STREAM
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="pack-min-bytes=16384 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=PACK
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="plane-convs=false" -canonicalize -cse | FileCheck %s --check-prefix=NOPLANE
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize -canonicalize -cse | FileCheck %s --check-prefix=DWROWS
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="clip-padded-windows=false depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=NOCLIP
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="split-vector-loops=false" -canonicalize -cse | FileCheck %s --check-prefix=NOSPLIT
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="overlap-merged-tails=false depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=NOOVERLAP
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="l2-cache-bytes=8192 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=ORDER
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="l2-cache-bytes=98304 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=ORDER
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="l2-cache-bytes=2048 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=ORDER
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="l2-cache-bytes=131072 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=ORDERHALF
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="accumulator-lanes=96 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=ACC96
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="accumulator-lanes=48 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=ACC48
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="accumulator-lanes=96 split-row-loops=false depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=NOSPLITROWS
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="peel-min-input-bytes=8000 depthwise-rows=false" -canonicalize -cse | FileCheck %s --check-prefix=PEEL16
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize -canonicalize -cse | FileCheck %s --check-prefix=DOT
// RUN: boo-opt %s -split-input-file -boo-cpu-tile-and-vectorize="dot-max-rows=0" -canonicalize -cse | FileCheck %s --check-prefix=NODOT

#in = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#fil = affine_map<(n, oh, ow, k, c, kh, kw) -> (k, kh, kw, c)>
#out = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh, ow, k)>

// A 3x3 NHWC/KYXC convolution (as boo-convert-to-linalg emits it): bf16
// inputs are promoted to f32 once, the filter is reordered so K is
// contiguous (these copies are tiled and vectorized too: the reorder in
// 16x16 squares transposed in registers; the filter's promotion is fused
// into its reorder, one pass over it, extended before it is transposed),
// window loops (kh, kw) and the
// batch/row loops get extent 1,
// and each tile is an 8(ow) x 16(c) x 32(k) vector.contract. The parallel
// tiles (output rows) form an scf.forall, the reduction tiles scf.for
// loops inside it.
// CHECK-LABEL: func.func @conv_nhwc_bf16
// CHECK-SAME:    %{{.+}}: tensor<1x10x10x16xbf16>, %[[W:.+]]: tensor<32x3x3x16xbf16>, %[[ACC:.+]]: tensor<1x8x8x32xf32>
// CHECK:         %[[XF:.+]] = scf.forall {{.*}} -> (tensor<1x10x10x16xf32>)
// CHECK:           arith.extf %{{.+}} : vector<5x16xbf16> to vector<5x16xf32>
// CHECK-NOT:     -> (tensor<32x3x3x16xf32>)
// CHECK:         %[[WT:.+]] = scf.forall {{.*}} -> (tensor<3x3x16x32xf32>)
// CHECK:           tensor.extract_slice %[[W]]
// CHECK:           vector.transfer_read {{.*}} : tensor<16x16xbf16>, vector<16x16xbf16>
// CHECK:           arith.extf %{{.+}} : vector<16x16xbf16> to vector<16x16xf32>
// CHECK:           vector.transpose %{{.+}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK:         scf.forall (%[[OH:.+]]) in (8) shared_outs(%[[OUT:.+]] = %[[ACC]])
// CHECK:           %[[XROWS:.+]] = tensor.extract_slice %[[XF]][0, %[[OH]], 0, 0] [1, 3, 10, 16] [1, 1, 1, 1]
// CHECK:           %[[TILE:.+]] = scf.for %[[KH:.+]] = %c0 to %c3 step %c1
// CHECK:             scf.for %[[KW:.+]] = %c0 to %c3 step %c1
// CHECK:               tensor.extract_slice %[[XROWS]][0, %[[KH]], %[[KW]], 0] [1, 1, 8, 16] [1, 1, 1, 1]
// CHECK:               tensor.extract_slice %[[WT]][%[[KH]], %[[KW]], 0, 0] [1, 1, 16, 32] [1, 1, 1, 1]
// CHECK:               vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// CHECK:           scf.forall.in_parallel
// CHECK-NEXT:        tensor.parallel_insert_slice %[[TILE]] into %[[OUT]][0, %[[OH]], 0, 0] [1, 1, 8, 32] [1, 1, 1, 1]
// NOVEC-LABEL: func.func @conv_nhwc_bf16
// NOVEC-NOT:     vector.
// NOVEC:         scf.forall
// NOVEC:         linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<1x1x8x16xbf16>, tensor<32x1x1x16xbf16>) outs(%{{.+}} : tensor<1x1x8x32xf32>)
func.func @conv_nhwc_bf16(%x: tensor<1x10x10x16xbf16>, %w: tensor<32x3x3x16xbf16>, %acc: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #fil, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x10x10x16xbf16>, tensor<32x3x3x16xbf16>) outs(%acc : tensor<1x8x8x32xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ea = arith.extf %a : bf16 to f32
    %eb = arith.extf %b : bf16 to f32
    %m = arith.mulf %ea, %eb : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// -----

#in = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#fil = affine_map<(n, oh, ow, k, c, kh, kw) -> (kh, kw, c, k)>
#out = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh, ow, k)>

// Stride 2: the window becomes a strided slice (stride 2 along W), so the
// tile is again a plain contraction.
// CHECK-LABEL: func.func @conv_stride2
// CHECK:         tensor.extract_slice %{{.+}}[0, 0, 0, 0] [1, 1, 8, 16] [1, 1, 2, 1] : tensor<1x1x15x16xf32> to tensor<8x16xf32>
// CHECK:         vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
func.func @conv_stride2(%x: tensor<1x17x17x16xf32>, %w: tensor<3x3x16x32xf32>, %acc: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #fil, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x17x17x16xf32>, tensor<3x3x16x32xf32>) outs(%acc : tensor<1x8x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// -----

// Extents with no useful divisor (7 x 35) still give static tiles: 7 rows
// and a 7-lane vector dim (35 = 5 x 7), never a partial tile.
// CHECK-LABEL: func.func @odd_elementwise
// CHECK:         scf.forall (%{{.+}}) = (0) to (35) step (7)
// CHECK:           vector.transfer_read {{.*}} : tensor<7x7xf32>, vector<7x7xf32>
// CHECK:           math.tanh %{{.+}} : vector<7x7xf32>
func.func @odd_elementwise(%x: tensor<7x35xf32>) -> tensor<7x35xf32> {
  %e = tensor.empty() : tensor<7x35xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<7x35xf32>) outs(%e : tensor<7x35xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<7x35xf32>
  return %0 : tensor<7x35xf32>
}

// -----

// Dynamic shapes are not candidates: left for the loop lowering.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT:     scf.for
// CHECK-NOT:     scf.forall
// CHECK-NOT:     vector.
// CHECK:         linalg.generic
func.func @dynamic(%x: tensor<?xf32>, %e: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A depthwise NHWC convolution (48 groups of 1 channel, as
// boo-convert-to-linalg emits it): the output's innermost dim (the one
// channel of a group) has extent 1, so the vector loop is the group loop.
// Its tile is 16, not 24 (the largest divisor of 48 up to 32): whole
// registers. The filter is made contiguous along the groups (not in
// blocks: every input has the group loop); the loops are put in the
// output's order, so the forall walks rows, then columns, then groups, and
// the tile's multiply-add needs no transposes. The multiply and the add
// become one vector.fma.
#dw_in = affine_map<(n, g, k, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, g, c)>
#dw_fil = affine_map<(n, g, k, oh, ow, c, kh, kw) -> (g, k, kh, kw, c)>
#dw_out = affine_map<(n, g, k, oh, ow, c, kh, kw) -> (n, oh, ow, g, k)>
// CHECK-LABEL: func.func @depthwise
// CHECK:         scf.forall {{.*}} -> (tensor<1x3x3x1x48xf32>)
// CHECK:         scf.forall (%[[OH:.+]], %[[G:.+]]) = (0, 0) to (8, 48) step (1, 16)
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK-NOT:           vector.transpose
// CHECK:               vector.transfer_read {{.*}} : tensor<8x16xf32>, vector<8x16xf32>
// CHECK:               vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<8x16xf32>
// CHECK-NOT:           arith.mulf
func.func @depthwise(%x: tensor<1x10x10x48x1xf32>, %w: tensor<48x1x3x3x1xf32>, %acc: tensor<1x8x8x48x1xf32>) -> tensor<1x8x8x48x1xf32> {
  %r = linalg.generic {indexing_maps = [#dw_in, #dw_fil, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x10x10x48x1xf32>, tensor<48x1x3x3x1xf32>) outs(%acc : tensor<1x8x8x48x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x48x1xf32>
  return %r : tensor<1x8x8x48x1xf32>
}

// -----

// An NCHW convolution: its output's innermost loop (ow) slides in the
// input's window, so it is repacked to compute channels-last. The input is
// transposed to NHWC before it is padded, and the pad is made of fills of
// its border (two rows, then two columns) and the transpose, which writes
// the interior directly; the filter is transposed to CYXK (K innermost,
// the new vector loop), the zero fill is made in NHWC, fused into each
// tile of the contraction's forall (the NCHW fill is dead), the tiles are the NHWC convolution's 8 (ow) x 16 (c) x 32 (k)
// contractions, and a last copy transposes the NHWC result back to NCHW.
// The window rows (kh) of output row oh read padded rows oh + kh, of
// which rows 1 to 8 are the image: the loop over kh runs from
// max(1 - oh, 0) to min(9 - oh, 3) (clip-padded-windows), skipping the
// top and bottom rows of padding. kw reads a row of 8 columns at once,
// padded columns kw to kw + 7, of which 1 - kw lie before the image and
// kw - 1 after it: the contraction becomes an scf.index_switch on
// (before, capped at 2) * 3 + (after, capped at 2), whose cases leave
// out the first position (case 3) or the last (case 1), and whose
// default is the whole row (no padding, or padding at both ends: a tile
// wider than the image). The maps are printed before the
// function.
// CHECK:         #[[FIRST:.+]] = affine_map<()[s0] -> (-s0 + 1, 0)>
// CHECK:         #[[END:.+]] = affine_map<()[s0] -> (-s0 + 9, 3)>
// CHECK:         #[[CAP:.+]] = affine_map<(d0) -> (2, d0)>
// CHECK:         #[[AFTER:.+]] = affine_map<()[s0] -> (0, s0 - 1)>
// CHECK:         #[[CASE:.+]] = affine_map<(d0, d1) -> (d0 * 3 + d1)>
// CHECK-LABEL: func.func @conv_nchw
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x8x8xf32>, %[[W:.+]]: tensor<32x16x3x3xf32>
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         tensor.empty() : tensor<1x10x10x16xf32>
// CHECK:         scf.forall {{.*}} -> (tensor<1x1x10x16xf32>)
// CHECK:         tensor.insert_slice %{{.+}}[0, 0, 0, 0] [1, 1, 10, 16]
// CHECK:         scf.forall {{.*}} -> (tensor<1x1x10x16xf32>)
// CHECK:         tensor.insert_slice %{{.+}}[0, 9, 0, 0] [1, 1, 10, 16]
// CHECK:         vector.transfer_write %{{.+}} : vector<8x16xf32>, tensor<8x16xf32>
// CHECK:         tensor.insert_slice %{{.+}}[0, 1, 0, 0] [1, 8, 1, 16]
// CHECK:         vector.transfer_write %{{.+}} : vector<8x16xf32>, tensor<8x16xf32>
// CHECK:         %[[BORDER:.+]] = tensor.insert_slice %{{.+}}[0, 1, 9, 0] [1, 8, 1, 16]
// CHECK:         %[[INNER:.+]] = tensor.extract_slice %[[BORDER]][0, 1, 1, 0] [1, 8, 8, 16]
// CHECK:         %[[XT:.+]] = scf.forall {{.*}} shared_outs(%{{.+}} = %[[INNER]]) -> (tensor<1x8x8x16xf32>)
// CHECK:           vector.transpose %{{.+}}, [1, 0] : vector<16x8xf32> to vector<8x16xf32>
// CHECK:         %[[XP:.+]] = tensor.insert_slice %[[XT]] into %[[BORDER]][0, 1, 1, 0] [1, 8, 8, 16]
// CHECK-DAG:     %[[INIT:.+]] = tensor.empty() : tensor<1x8x8x32xf32>
// CHECK-DAG:     %[[WT:.+]] = scf.forall {{.*}} -> (tensor<16x3x3x32xf32>)
// CHECK:         %[[CONV:.+]] = scf.forall (%[[OH:.+]]) in (8) shared_outs(%{{.+}} = %[[INIT]]) -> (tensor<1x8x8x32xf32>)
// CHECK:           tensor.extract_slice %[[XP]]
// CHECK:           vector.transfer_write %[[ZERO]], %{{.+}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK:           %[[KH0:.+]] = affine.max #[[FIRST]]()[%[[OH]]]
// CHECK:           %[[KH1:.+]] = affine.min #[[END]]()[%[[OH]]]
// CHECK:           scf.for %{{.+}} = %[[KH0]] to %[[KH1]] step %c1
// CHECK:             scf.for %[[KW:.+]] = %c0 to %c3 step %c1
// CHECK:               %[[ACC:.+]] = vector.transfer_read
// CHECK:               %[[L:.+]] = affine.max #[[FIRST]]()[%[[KW]]]
// CHECK:               %[[LC:.+]] = affine.min #[[CAP]](%[[L]])
// CHECK:               %[[R:.+]] = affine.max #[[AFTER]]()[%[[KW]]]
// CHECK:               %[[RC:.+]] = affine.min #[[CAP]](%[[R]])
// CHECK:               %[[CASEIDX:.+]] = affine.apply #[[CASE]](%[[LC]], %[[RC]])
// CHECK:               scf.index_switch %[[CASEIDX]] -> vector<8x32xf32>
// CHECK-NEXT:          case 1 {
// CHECK:                 vector.extract_strided_slice %{{.+}} {offsets = [0], sizes = [7], strides = [1]} : vector<8x16xf32> to vector<7x16xf32>
// CHECK:                 vector.extract_strided_slice %[[ACC]] {offsets = [0], sizes = [7], strides = [1]} : vector<8x32xf32> to vector<7x32xf32>
// CHECK:                 vector.contract {{.*}} : vector<7x16xf32>, vector<16x32xf32> into vector<7x32xf32>
// CHECK:                 vector.insert_strided_slice %{{.+}}, %[[ACC]] {offsets = [0, 0], strides = [1, 1]} : vector<7x32xf32> into vector<8x32xf32>
// CHECK:               case 3 {
// CHECK:                 vector.extract_strided_slice %{{.+}} {offsets = [1], sizes = [7], strides = [1]} : vector<8x16xf32> to vector<7x16xf32>
// CHECK:                 vector.insert_strided_slice %{{.+}}, %[[ACC]] {offsets = [1, 0], strides = [1, 1]} : vector<7x32xf32> into vector<8x32xf32>
// CHECK-NOT:           case
// CHECK:               default {
// CHECK:                 vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// The copy back writes rows of 8 floats, less than a cache line: it walks
// its tiles in the output's order (k, then h), not in its input's (h, k).
// CHECK:         %[[BACK:.+]] = scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (32, 8) step (16, 1) {{.*}} -> (tensor<1x32x8x8xf32>)
// CHECK:           tensor.extract_slice %[[CONV]]
// CHECK:           vector.transpose %{{.+}}, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
// CHECK:         return %[[BACK]]
// Unclipped, kh runs from 0 to 3 in every output row, and every kw
// multiplies the whole row.
// NOCLIP-LABEL: func.func @conv_nchw
// NOCLIP-NOT:     affine.max
// NOCLIP:         scf.for %{{.+}} = %c0 to %c3 step %c1
// NOCLIP-NEXT:      scf.for %{{.+}} = %c0 to %c3 step %c1
// NOCLIP-NOT:         scf.index_switch
// NOCLIP:             vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// NOCLIP-NOT:         scf.index_switch
// NOCLIP:           scf.forall.in_parallel
#nchw_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#nchw_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#nchw_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw(%x0: tensor<1x16x8x8xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<1x32x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %x = tensor.pad %x0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %acc = linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x32x8x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x32x8x8xf32>
  %r = linalg.generic {indexing_maps = [#nchw_in, #nchw_fil, #nchw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x10x10xf32>, tensor<32x16x3x3xf32>) outs(%acc : tensor<1x32x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x8x8xf32>
  return %r : tensor<1x32x8x8xf32>
}

// -----

// A pad of a value no generic of its own makes: the border fills (rows,
// then the two columns of the interior rows), then a copy of the source
// into the interior, tiled like the other copies (the channels are the
// vector loop). The vectorized tile copy folds into a slice copy, which
// boo-cpu-lower-strided-copies makes vector loads and stores again.
// CHECK-LABEL: func.func @pad_copy
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x16x64xf32>
// CHECK-NOT:     tensor.pad
// CHECK:         tensor.empty() : tensor<1x18x18x64xf32>
// CHECK:         tensor.insert_slice %{{.+}}[0, 0, 0, 0] [1, 1, 18, 64]
// CHECK:         tensor.insert_slice %{{.+}}[0, 17, 0, 0] [1, 1, 18, 64]
// CHECK:         tensor.insert_slice %{{.+}}[0, 1, 0, 0] [1, 16, 1, 64]
// CHECK:         %[[BORDER:.+]] = tensor.insert_slice %{{.+}}[0, 1, 17, 0] [1, 16, 1, 64]
// CHECK:         %[[INNER:.+]] = tensor.extract_slice %[[BORDER]][0, 1, 1, 0] [1, 16, 16, 64]
// CHECK:         %[[COPY:.+]] = scf.forall {{.*}} to (16, 16, 64) step (1, 8, 32) shared_outs(%{{.+}} = %[[INNER]]) -> (tensor<1x16x16x64xf32>)
// CHECK:           %[[TILE:.+]] = tensor.extract_slice %[[X]]
// CHECK:           %[[ROWS:.+]] = tensor.extract_slice %[[TILE]]{{.*}} to tensor<8x32xf32>
// CHECK:           tensor.insert_slice %[[ROWS]]
// CHECK:         %[[PADDED:.+]] = tensor.insert_slice %[[COPY]] into %[[BORDER]][0, 1, 1, 0] [1, 16, 16, 64]
// CHECK:         return %[[PADDED]]
// NOVEC-LABEL: func.func @pad_copy
// NOVEC:         tensor.pad
func.func @pad_copy(%x: tensor<1x16x16x64xf32>) -> tensor<1x18x18x64xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x16x64xf32> to tensor<1x18x18x64xf32>
  return %p : tensor<1x18x18x64xf32>
}

// -----

// A convolution with more output channels (64) than its vector tile (32),
// whose KYXC filter must be reordered anyway, gets blocked output channels
// (blockVectorLoop): k is split into 2 blocks of 32; the filter becomes
// [K/32][Y][X][C][32], so that each block reads one contiguous slab; the
// zero fill is made in the expanded 1x8x8x2x32 shape and fused into the
// tiles; the forall walks the blocks, then the rows; the result is
// collapsed back to 1x8x8x64. The filter's reorder walks its 16x16 squares
// in the filter's own order (k, then y, x): the next square reads on
// along the same 16 rows of the filter.
#bk_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#bk_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, kh, kw, c)>
#bk_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, oh, ow, k)>
#bk_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_blocked
// CHECK-SAME:    %[[X:.+]]: tensor<1x10x10x16xf32>, %[[W:.+]]: tensor<64x3x3x16xf32>
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// CHECK-DAG:     %[[WX:.+]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 32, 3, 3, 16]
// CHECK-DAG:     %[[INIT:.+]] = tensor.empty() : tensor<1x8x8x2x32xf32>
// CHECK:         %[[WB:.+]] = scf.forall (%[[B:.+]], %[[K:.+]], %[[Y:.+]], %[[XX:.+]]) = (0, 0, 0, 0) to (2, 32, 3, 3) step (1, 16, 1, 1) {{.*}} -> (tensor<2x3x3x16x32xf32>)
// CHECK:           tensor.extract_slice %[[WX]][%[[B]], %[[K]], %[[Y]], %[[XX]], 0] [1, 16, 1, 1, 16]
// CHECK:           vector.transpose %{{.+}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK:         %[[CONV:.+]] = scf.forall (%[[KB:.+]], %[[OH:.+]]) in (2, 8) shared_outs(%{{.+}} = %[[INIT]]) -> (tensor<1x8x8x2x32xf32>)
// CHECK:           tensor.extract_slice %[[WB]][%[[KB]], 0, 0, 0, 0] [1, 3, 3, 16, 32]
// CHECK:           vector.transfer_write %[[ZERO]], %{{.+}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// CHECK:         %[[OUT:.+]] = tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x8x8x2x32xf32> into tensor<1x8x8x64xf32>
// CHECK:         return %[[OUT]]
func.func @conv_blocked(%x: tensor<1x10x10x16xf32>, %w: tensor<64x3x3x16xf32>) -> tensor<1x8x8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x64xf32>
  %acc = linalg.generic {indexing_maps = [#bk_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x8x8x64xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x8x8x64xf32>
  %0 = linalg.generic {indexing_maps = [#bk_in, #bk_fil, #bk_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x10x10x16xf32>, tensor<64x3x3x16xf32>) outs(%acc : tensor<1x8x8x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x64xf32>
  return %0 : tensor<1x8x8x64xf32>
}

// -----

// An NCHW convolution with 64 output channels: repacked to compute
// channels-last (the input transposed to NHWC before its pad), and its
// KCYX filter, left to blockVectorLoop by the repacking, reordered into
// blocks [K/32][C][Y][X][32]; the result is collapsed from the blocked
// NHWC shape and transposed back to NCHW.
#bn_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#bn_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#bn_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#bn_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_nchw_blocked
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x8x8xf32>, %[[W:.+]]: tensor<64x16x3x3xf32>
// CHECK-DAG:     %[[WX:.+]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 32, 16, 3, 3]
// CHECK:         %[[WB:.+]] = scf.forall {{.*}} -> (tensor<2x16x3x3x32xf32>)
// CHECK:           tensor.extract_slice %[[WX]]
// CHECK:         %[[CONV:.+]] = scf.forall {{.*}} -> (tensor<1x8x8x2x32xf32>)
// CHECK:           tensor.extract_slice %[[WB]]
// CHECK:           vector.contract {{.*}} into vector<8x32xf32>
// CHECK:         %[[NHWC:.+]] = tensor.collapse_shape %[[CONV]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x8x8x2x32xf32> into tensor<1x8x8x64xf32>
// CHECK:         %[[BACK:.+]] = scf.forall {{.*}} -> (tensor<1x64x8x8xf32>)
// CHECK:           tensor.extract_slice %[[NHWC]]
// CHECK:         return %[[BACK]]
func.func @conv_nchw_blocked(%x0: tensor<1x16x8x8xf32>, %w: tensor<64x16x3x3xf32>) -> tensor<1x64x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %x = tensor.pad %x0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x8x8xf32> to tensor<1x16x10x10xf32>
  %e = tensor.empty() : tensor<1x64x8x8xf32>
  %acc = linalg.generic {indexing_maps = [#bn_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x64x8x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x64x8x8xf32>
  %r = linalg.generic {indexing_maps = [#bn_in, #bn_fil, #bn_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x10x10xf32>, tensor<64x16x3x3xf32>) outs(%acc : tensor<1x64x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x64x8x8xf32>
  return %r : tensor<1x64x8x8xf32>
}

// -----

#x = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
#col = affine_map<(r, c) -> (c)>
#id = affine_map<(r) -> (r)>

// A row chain, as a layer norm's lowering emits it: row sums of x, their
// mean (also a result), and an element-wise result that reads x and the
// mean. The chain is computed one tile of rows at a time (row-chain-bytes
// =1024: two rows of x and y, 2 x 64 x 4 bytes each), so x is read from
// cache by the second pass. Inside a tile, the row sum is split into 32
// partial sums along the row (vectors of 32 lanes, accumulated over the
// row's two chunks), combined by a vector.reduction that may reassociate.
// CHAIN-LABEL: func.func @row_chain
// CHAIN-SAME:    %[[X:.+]]: tensor<8x64xf32>, %[[W:.+]]: tensor<64xf32>
// CHAIN:         %[[R:.+]]:2 = scf.forall (%[[I:.+]]) = (0) to (8) step (2) shared_outs(%[[MEAN:.+]] = %{{.+}}, %[[Y:.+]] = %{{.+}}) -> (tensor<8xf32>, tensor<8x64xf32>)
// CHAIN:           %[[XT:.+]] = tensor.extract_slice %[[X]][%[[I]], 0] [2, 64] [1, 1]
// CHAIN:           %[[XE:.+]] = tensor.expand_shape %[[XT]] {{\[}}[0], [1, 2]] output_shape [2, 2, 32]
// CHAIN:           %[[PARTIALS:.+]] = scf.forall {{.*}} -> (tensor<2x32xf32>)
// CHAIN:             tensor.extract_slice %[[XE]]
// CHAIN:             scf.for {{.*}} -> (tensor<1x32xf32>)
// CHAIN:               arith.addf {{.*}} : vector<32xf32>
// CHAIN:           %[[SUMS:.+]] = scf.forall {{.*}} -> (tensor<2xf32>)
// CHAIN:             tensor.extract_slice %[[PARTIALS]]
// CHAIN:             vector.reduction <add>, %{{.+}}, %{{.+}} fastmath<reassoc> : vector<32xf32> into f32
// CHAIN:           vector.transfer_read %[[SUMS]]
// CHAIN:           %[[M:.+]] = arith.mulf {{.*}} : vector<2xf32>
// CHAIN:           %[[MT:.+]] = vector.transfer_write %[[M]], {{.*}} : vector<2xf32>, tensor<2xf32>
// CHAIN:           %[[YT:.+]] = scf.forall {{.*}} -> (tensor<2x64xf32>)
// CHAIN:             tensor.extract_slice %[[XT]]
// CHAIN:             arith.subf {{.*}} : vector<2x32xf32>
// CHAIN:           tensor.parallel_insert_slice %[[MT]] into %[[MEAN]][%[[I]]] [2] [1]
// CHAIN-NEXT:      tensor.parallel_insert_slice %[[YT]] into %[[Y]][%[[I]], 0] [2, 64] [1, 1]
// CHAIN:         return %[[R]]#1, %[[R]]#0
func.func @row_chain(%x: tensor<8x64xf32>, %w: tensor<64xf32>) -> (tensor<8x64xf32>, tensor<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.015625 : f32
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x64xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%sum : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %e3 = tensor.empty() : tensor<8x64xf32>
  %y = linalg.generic {indexing_maps = [#x, #row, #col, #x], iterator_types = ["parallel", "parallel"]} ins(%x, %mean, %w : tensor<8x64xf32>, tensor<8xf32>, tensor<64xf32>) outs(%e3 : tensor<8x64xf32>) {
  ^bb0(%a: f32, %m: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %v = arith.mulf %d, %b : f32
    linalg.yield %v : f32
  } -> tensor<8x64xf32>
  return %y, %mean : tensor<8x64xf32>, tensor<8xf32>
}

// -----

#x = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
#col = affine_map<(r, c) -> (c)>
#id = affine_map<(r) -> (r)>

// A layer norm backward's shape: a row chain (dx, from two row sums: of
// dy, and of dy * x) and, after it, sums over the rows of what it reads
// (the weight and bias gradients, one generic with two results). The
// column sums are computed in the chain's pass: its forall runs over 4
// chunks of 4 rows (one row per tile at row-chain-bytes=1024: dy, x and dx
// are 768 bytes a row, so an scf.for over the chunk's 4 tiles), each chunk
// summing its rows into its own row of 4x64 partial sums, zeroed first; a
// generic after the forall adds up the 4 partials. The passes over a row
// that do not depend on each other are fused (fuseChainPasses): the two
// zero fills, the two row sums (one scf.for with two accumulators), and
// dx with the column sums (one scf.forall, whose reads of dy and x CSE
// merges).
// CHAIN-LABEL: func.func @row_chain_column_sums
// CHAIN:         %[[R:.+]]:3 = scf.forall (%[[I:.+]]) = (0) to (16) step (4) shared_outs(%[[DX:.+]] = %{{.+}}, %[[P0:.+]] = %[[E:.+]], %[[P1:.+]] = %[[E]]) -> (tensor<16x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>)
// CHAIN:           %[[DXC:.+]] = tensor.extract_slice %[[DX]][%[[I]], 0] [4, 64] [1, 1]
// CHAIN:           %[[C:.+]] = arith.divui %[[I]], %{{.+}} : index
// CHAIN:           %[[P0C:.+]] = tensor.extract_slice %[[P0]][%[[C]], 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
// CHAIN:           %[[P1C:.+]] = tensor.extract_slice %[[P1]][%[[C]], 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
// CHAIN:           %[[Z:.+]]:2 = scf.forall {{.*}} shared_outs(%{{.+}} = %[[P0C]], %{{.+}} = %[[P1C]])
// CHAIN-NOT:       scf.forall (
// CHAIN:           %[[L:.+]]:3 = scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[DXC]], %{{.+}} = %[[Z]]#0, %{{.+}} = %[[Z]]#1) -> (tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>)
// CHAIN:             %[[ROW:.+]] = arith.addi %[[I]], %[[T]] : index
// CHAIN:             tensor.extract_slice %{{.+}}[%[[ROW]], 0] [1, 64] [1, 1] : tensor<16x64xf32> to tensor<1x64xf32>
// CHAIN:             %[[SUMS:.+]]:2 = scf.for {{.*}} -> (tensor<1x32xf32>, tensor<1x32xf32>)
// CHAIN-NOT:         scf.for %
// CHAIN:             vector.reduction <add>
// CHAIN:             vector.reduction <add>
// CHAIN:             %[[F:.+]]:3 = scf.forall {{.*}} -> (tensor<1x64xf32>, tensor<64xf32>, tensor<64xf32>)
// CHAIN-COUNT-2:       vector.transfer_read %{{.+}}[%{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<32xf32>, vector<32xf32>
// CHAIN-NOT:           vector.transfer_read %{{.+}}[%{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<32xf32>, vector<32xf32>
// CHAIN:               vector.transfer_write
// CHAIN:               vector.transfer_read %{{.+}}[], %{{.+}} : tensor<f32>, vector<f32>
// CHAIN-COUNT-2:       vector.transfer_read %{{.+}}[%{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<32xf32>, vector<32xf32>
// CHAIN-NOT:           vector.transfer_read
// CHAIN:               arith.addf {{.*}} : vector<32xf32>
// CHAIN:             tensor.insert_slice %[[F]]#0 into %{{.+}}[%[[T]], 0] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<4x64xf32>
// CHAIN:             scf.yield
// CHAIN:           tensor.parallel_insert_slice %[[L]]#0 into %[[DX]][%[[I]], 0] [4, 64] [1, 1]
// CHAIN-NEXT:      tensor.parallel_insert_slice %[[L]]#1 into %[[P0]][%[[C]], 0] [1, 64] [1, 1] : tensor<64xf32> into tensor<4x64xf32>
// CHAIN-NEXT:      tensor.parallel_insert_slice %[[L]]#2 into %[[P1]][%[[C]], 0] [1, 64] [1, 1] : tensor<64xf32> into tensor<4x64xf32>
// CHAIN:         %[[S:.+]]:2 = scf.forall {{.*}} -> (tensor<64xf32>, tensor<64xf32>)
// CHAIN:           tensor.extract_slice %[[R]]#1[0, %{{.+}}] [4, 32] [1, 1]
// CHAIN:           tensor.extract_slice %[[R]]#2[0, %{{.+}}] [4, 32] [1, 1]
// CHAIN:         return %[[R]]#0, %[[S]]#0, %[[S]]#1
func.func @row_chain_column_sums(%dy: tensor<16x64xf32>, %x: tensor<16x64xf32>, %mean: tensor<16xf32>) -> (tensor<16x64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<16xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%dy : tensor<16x64xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %sum2 = linalg.generic {indexing_maps = [#x, #x, #row], iterator_types = ["parallel", "reduction"]} ins(%dy, %x : tensor<16x64xf32>, tensor<16x64xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%g: f32, %a: f32, %o: f32):
    %p = arith.mulf %g, %a : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16x64xf32>
  %dx = linalg.generic {indexing_maps = [#x, #x, #row, #row, #x], iterator_types = ["parallel", "parallel"]} ins(%dy, %x, %sum, %sum2 : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16x64xf32>) {
  ^bb0(%g: f32, %a: f32, %s: f32, %s2: f32, %o: f32):
    %d = arith.subf %g, %s : f32
    %v = arith.mulf %d, %a : f32
    %w = arith.subf %v, %s2 : f32
    linalg.yield %w : f32
  } -> tensor<16x64xf32>
  %e4 = tensor.empty() : tensor<64xf32>
  %init4 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e4 : tensor<64xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<64xf32>
  %cs:2 = linalg.generic {indexing_maps = [#x, #x, #row, #col, #col], iterator_types = ["reduction", "parallel"]} ins(%dy, %x, %mean : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16xf32>) outs(%init4, %init4 : tensor<64xf32>, tensor<64xf32>) {
  ^bb0(%g: f32, %a: f32, %m: f32, %o1: f32, %o2: f32):
    %d = arith.subf %a, %m : f32
    %p = arith.mulf %g, %d : f32
    %s1 = arith.addf %o1, %p : f32
    %s2 = arith.addf %o2, %g : f32
    linalg.yield %s1, %s2 : f32, f32
  } -> (tensor<64xf32>, tensor<64xf32>)
  return %dx, %cs#0, %cs#1 : tensor<16x64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

#x = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
#id = affine_map<(r) -> (r)>

// 12 rows make 3 chunks of 4, too few to share among threads: the column
// sum stays a generic of its own, after the chain's forall over its tiles
// (of two rows: dy and dx are 512 bytes a row). With stream-min-bytes=3000,
// dx (3072 bytes) is marked for boo-cpu-stream-stores, as is the 4096-byte
// dx of @row_chain_column_sums; the 2048-byte y of @row_chain is not. At
// the default row-chain-bytes, 4 rows of @row_chain_column_sums would fit
// a tile, but a chain with column sums takes one row a tile: its chunks of
// 4 rows are loops over 4 tiles of one row.
// STREAM-LABEL: func.func @row_chain(
// STREAM-NOT:     boo.stream_stores
// STREAM-LABEL: func.func @row_chain_column_sums
// STREAM:         scf.for %{{.+}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (tensor<4x64xf32>, tensor<64xf32>, tensor<64xf32>)
// STREAM:           scf.forall {{.*}} -> (tensor<1x64xf32>, tensor<64xf32>, tensor<64xf32>)
// STREAM:         } {boo.stream_stores}
// STREAM-LABEL: func.func @row_chain_few_chunks
// STREAM:         scf.forall {{.*}} -> (tensor<12x64xf32>)
// STREAM:         } {boo.stream_stores}
// CHAIN-LABEL: func.func @row_chain_few_chunks
// CHAIN:         scf.forall (%{{.+}}) = (0) to (12) step (2) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<12x64xf32>)
// CHAIN-NOT:       tensor<3x64xf32>
// CHAIN:         scf.forall {{.*}} -> (tensor<64xf32>)
// CHAIN:           scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args({{.*}}) -> (tensor<32xf32>)
func.func @row_chain_few_chunks(%dy: tensor<12x64xf32>) -> (tensor<12x64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12xf32>
  %init = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<12xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<12xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%dy : tensor<12x64xf32>) outs(%init : tensor<12xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<12xf32>
  %e3 = tensor.empty() : tensor<12x64xf32>
  %dx = linalg.generic {indexing_maps = [#x, #row, #x], iterator_types = ["parallel", "parallel"]} ins(%dy, %sum : tensor<12x64xf32>, tensor<12xf32>) outs(%e3 : tensor<12x64xf32>) {
  ^bb0(%g: f32, %s: f32, %o: f32):
    %d = arith.subf %g, %s : f32
    linalg.yield %d : f32
  } -> tensor<12x64xf32>
  %e4 = tensor.empty() : tensor<64xf32>
  %init4 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e4 : tensor<64xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<64xf32>
  %cs = linalg.generic {indexing_maps = [#x, affine_map<(r, c) -> (c)>], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<12x64xf32>) outs(%init4 : tensor<64xf32>) {
  ^bb0(%g: f32, %o: f32):
    %s = arith.addf %o, %g : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %dx, %cs : tensor<12x64xf32>, tensor<64xf32>
}

// -----

#x3 = affine_map<(r, c, h, w) -> (r, c, h, w)>
#r3 = affine_map<(r, c, h, w) -> (r)>

// A row reduction over three contiguous dims (a layer norm over C, H and
// W) is collapsed to one reduction loop, then split: no transposed copy
// of x, 32 partials per row.
// CHAIN-LABEL: func.func @row_sum_3d
// CHAIN:         tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2, 3]] : tensor<4x4x8x8xf32> into tensor<4x256xf32>
// CHAIN:         tensor.expand_shape {{.*}} output_shape [4, 8, 32]
// CHAIN:         scf.for {{.*}} -> (tensor<1x32xf32>)
// CHAIN:           arith.addf {{.*}} : vector<32xf32>
// CHAIN:         vector.reduction <add>, {{.*}} fastmath<reassoc> : vector<32xf32> into f32
// CHAIN-NOT:     vector.transpose
func.func @row_sum_3d(%x: tensor<4x4x8x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %sum = linalg.generic {indexing_maps = [#x3, #r3], iterator_types = ["parallel", "reduction", "reduction", "reduction"]} ins(%x : tensor<4x4x8x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}

// -----

#dw_in = affine_map<(n, oh, ow, g, kh, kw) -> (n, oh + kh, ow + kw, g)>
#dw_fil = affine_map<(n, oh, ow, g, kh, kw) -> (kh, kw, g)>
#dw_out = affine_map<(n, oh, ow, g, kh, kw) -> (n, oh, ow, g)>
#dw_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A channels-last depthwise convolution of a zero-padded input, with a
// small filter (peel-filter-bytes; its input is below the default
// peel-min-input-bytes, which the PEEL run sets to 0): split into border pieces (the first
// and last output row, then the first and last column of the rows
// between), which read small padded copies of the input rows they need,
// and the interior, which reads the input itself. No copy of the whole
// padded input is made; each piece starts from its own zeros, and the
// pieces are inserted into one result.
// PEEL-LABEL: func.func @depthwise_padded
// PEEL-SAME:    %[[X:.+]]: tensor<1x8x8x32xf32>
// PEEL-NOT:     tensor.pad
// PEEL:         %[[TOP_IN:.+]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 2, 8, 32]
// PEEL:         %[[TOP:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0, 0] [1, 1, 8, 32] [1, 1, 1, 1] : tensor<1x1x8x32xf32> into tensor<1x8x8x32xf32>
// PEEL:         tensor.extract_slice %[[X]][0, 6, 0, 0] [1, 2, 8, 32]
// PEEL:         %[[BOTTOM:.+]] = tensor.insert_slice %{{.+}} into %[[TOP]][0, 7, 0, 0] [1, 1, 8, 32]
// PEEL:         tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 8, 2, 32]
// PEEL:         %[[LEFT:.+]] = tensor.insert_slice %{{.+}} into %[[BOTTOM]][0, 1, 0, 0] [1, 6, 1, 32]
// PEEL:         tensor.extract_slice %[[X]][0, 0, 6, 0] [1, 8, 2, 32]
// PEEL:         %[[RIGHT:.+]] = tensor.insert_slice %{{.+}} into %[[LEFT]][0, 1, 7, 0] [1, 6, 1, 32]
// PEEL:         %[[INNER:.+]] = scf.forall (%[[R:.+]]) in (6) {{.*}} -> (tensor<1x6x6x32xf32>)
// PEEL-NEXT:      tensor.extract_slice %[[X]][0, %[[R]], 0, 0] [1, 3, 8, 32]
// PEEL:         %[[ALL:.+]] = tensor.insert_slice %[[INNER]] into %[[RIGHT]][0, 1, 1, 0] [1, 6, 6, 32]
// PEEL:         return %[[ALL]]
// With the default peel-min-input-bytes (1 MiB), this small input keeps
// its padded copy.
// CHECK-LABEL: func.func @depthwise_padded
// CHECK:         tensor.empty() : tensor<1x10x10x32xf32>
// At the default options, depthwise-rows computes it row by row: one
// forall iteration per register of 16 channels (2: the 32 channels fill
// registers of two vectors' width), slices of the output,
// the unpadded image and the filter for those channels, the 9 weight
// vectors read once, then one scf.for iteration per output row with its 8
// positions in registers. Window row 0 is skipped in output row 0 (an
// scf.if); in it, position 0 has no column -1: its first multiply-add is
// column 0 times the middle weight, then column 1 times the right one.
// No pad, fill, peeled piece or transpose is left.
// DWROWS-LABEL: func.func @depthwise_padded(
// DWROWS-SAME: %[[X:[a-z0-9]+]]: tensor<1x8x8x32xf32>, %[[W:[a-z0-9]+]]: tensor<3x3x32xf32>
// DWROWS-NOT: tensor.pad
// DWROWS-NOT: linalg.generic
// DWROWS: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// DWROWS: scf.forall (%[[R:.+]]) in (2)
// DWROWS: %[[C0:.+]] = arith.muli %[[R]], %c16
// DWROWS: %[[OUT:.+]] = tensor.extract_slice %{{.+}}[0, 0, 0, %[[C0]]] [1, 8, 8, 16] [1, 1, 1, 1] : tensor<1x8x8x32xf32> to tensor<1x8x8x16xf32>
// DWROWS: %[[IMG:.+]] = tensor.extract_slice %[[X]][0, 0, 0, %[[C0]]] [1, 8, 8, 16] [1, 1, 1, 1] : tensor<1x8x8x32xf32> to tensor<1x8x8x16xf32>
// DWROWS: %[[FIL:.+]] = tensor.extract_slice %[[W]][0, 0, %[[C0]]] [3, 3, 16] [1, 1, 1] : tensor<3x3x32xf32> to tensor<3x3x16xf32>
// DWROWS: vector.transfer_read %[[FIL]][%c0, %c0, %c0]
// DWROWS: %[[W01:.+]] = vector.transfer_read %[[FIL]][%c0, %c1, %c0]
// DWROWS: %[[W02:.+]] = vector.transfer_read %[[FIL]][%c0, %c2, %c0]
// DWROWS: scf.for %[[OH:.+]] = %c0 to %c8 step %c1 iter_args(%[[PLANE:.+]] = %[[OUT]])
// DWROWS:   %[[UP:.+]] = arith.addi %[[OH]], %c-1
// DWROWS:   %[[INSIDE:.+]] = arith.cmpi sge, %[[OH]], %c1
// DWROWS:   scf.if %[[INSIDE]] -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// DWROWS:     %[[COL0:.+]] = vector.transfer_read %[[IMG]][%c0, %[[UP]], %c0, %c0]
// DWROWS:     %[[P0:.+]] = vector.fma %[[COL0]], %[[W01]], %[[ZERO]]
// DWROWS:     %[[COL1:.+]] = vector.transfer_read %[[IMG]][%c0, %[[UP]], %c1, %c0]
// DWROWS:     vector.fma %[[COL1]], %[[W02]], %[[P0]]
// DWROWS:   } else {
// DWROWS:     scf.yield %[[ZERO]], %[[ZERO]]
// DWROWS:   vector.transfer_write %{{.+}}, %{{.+}}[%c0, %[[OH]], %c7, %c0] {in_bounds = [true]} : vector<16xf32>, tensor<1x8x8x16xf32>
// DWROWS: tensor.parallel_insert_slice
// DWROWS-NOT: vector.transpose
// DWROWS: return
func.func @depthwise_padded(%x: tensor<1x8x8x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x32xf32> to tensor<1x10x10x32xf32>
  %e = tensor.empty() : tensor<1x8x8x32xf32>
  %acc = linalg.generic {indexing_maps = [#dw_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x8x8x32xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x8x8x32xf32>
  %r = linalg.generic {indexing_maps = [#dw_in, #dw_fil, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%p, %w : tensor<1x10x10x32xf32>, tensor<3x3x32xf32>) outs(%acc : tensor<1x8x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

// -----

// A backward-data convolution reads its filter reversed along the window
// (a copy with maps `2 - y`, `2 - x` that cannot be tiled). Its tiles step
// one window position at a time, so each tile reads the filter itself at
// the mirrored position: no copy is left.
// CHECK-DAG: #[[MIRROR:.*]] = affine_map<(d0) -> (-d0 + 2)>
// CHECK-LABEL: func.func @bwd_data_nhwc
// CHAIN-LABEL: func.func @bwd_data_nhwc
// CHECK-SAME: %[[DY:.*]]: tensor<1x6x10x16xf32>, %[[W:.*]]: tensor<16x3x3x32xf32>
// CHECK-NOT: linalg.generic
// CHECK: scf.forall
// CHECK: scf.for %[[Y:.*]] = %c0 to %c3
// CHECK: scf.for %[[X:.*]] = %c0 to %c3
// CHECK-DAG: %[[MY:.*]] = affine.apply #[[MIRROR]](%[[Y]])
// CHECK-DAG: %[[MX:.*]] = affine.apply #[[MIRROR]](%[[X]])
// CHECK: tensor.extract_slice %[[W]][0, %[[MY]], %[[MX]], 0] [16, 1, 1, 32]
// CHECK: vector.contract
// CHECK-NOT: linalg.generic
#rev = affine_map<(d0, d1, d2, d3) -> (d0, -d1 + 2, -d2 + 2, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2 + d5, d3 + d6, d4)>
#fil = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d2, d3, d1)>
func.func @bwd_data_nhwc(%dy: tensor<1x6x10x16xf32>, %w: tensor<16x3x3x32xf32>, %acc: tensor<1x4x8x32xf32>) -> tensor<1x4x8x32xf32> {
  %e = tensor.empty() : tensor<16x3x3x32xf32>
  %flip = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<16x3x3x32xf32>) outs(%e : tensor<16x3x3x32xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<16x3x3x32xf32>
  %r = linalg.generic {indexing_maps = [#in, #fil, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%dy, %flip : tensor<1x6x10x16xf32>, tensor<16x3x3x32xf32>) outs(%acc : tensor<1x4x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x32xf32>
  return %r : tensor<1x4x8x32xf32>
}

// -----

// Channels-first: the reversal moves past the filter's transposing copy,
// which reads the caller's filter, and the tiles read the copy mirrored.
// A reversal that is returned stays.
// CHECK-LABEL: func.func @bwd_data_nchw
// CHECK-SAME: %[[DY:.*]]: tensor<1x16x6x10xf32>, %[[W:.*]]: tensor<16x32x3x3xf32>
// CHECK: %[[KEPT:.*]] = linalg.generic {{.*}} ins(%[[W]] :
// CHECK: %[[REORDERED:.*]] = scf.forall {{.*}} -> (tensor<16x3x3x32xf32>)
// CHECK: tensor.extract_slice %[[W]]
// CHECK: vector.transpose
// CHECK: scf.forall
// CHECK: scf.for %[[Y:.*]] = %c0 to %c3
// CHECK: scf.for %[[X:.*]] = %c0 to %c3
// CHECK-DAG: %[[MY:.*]] = affine.apply #{{.*}}(%[[Y]])
// CHECK-DAG: %[[MX:.*]] = affine.apply #{{.*}}(%[[X]])
// CHECK: tensor.extract_slice %[[REORDERED]][0, %[[MY]], %[[MX]], 0] [16, 1, 1, 32]
// CHECK: vector.contract
// CHECK: return %{{.*}}, %[[KEPT]]
#rev = affine_map<(d0, d1, d2, d3) -> (d0, d1, -d2 + 2, -d3 + 2)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#in = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 + d5, d3 + d6)>
#fil = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5, d6)>
#out = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
func.func @bwd_data_nchw(%dy: tensor<1x16x6x10xf32>, %w: tensor<16x32x3x3xf32>, %acc: tensor<1x32x4x8xf32>) -> (tensor<1x32x4x8xf32>, tensor<16x32x3x3xf32>) {
  %e = tensor.empty() : tensor<16x32x3x3xf32>
  %flip = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<16x32x3x3xf32>) outs(%e : tensor<16x32x3x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<16x32x3x3xf32>
  %r = linalg.generic {indexing_maps = [#in, #fil, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%dy, %flip : tensor<1x16x6x10xf32>, tensor<16x32x3x3xf32>) outs(%acc : tensor<1x32x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x4x8xf32>
  return %r, %flip : tensor<1x32x4x8xf32>, tensor<16x32x3x3xf32>
}

// -----

// A stride-1 1x1 NCHW convolution: oh and ow are merged into one loop of
// 64 positions (the image collapsed to 1x16x64, the zero fill made
// collapsed and fused into the tiles), and the convolution is a matrix
// product with no copies: the filter's 8x16 tile gives the rows
// (broadcast scalars), 32 positions of the image the vectors.
// CHECK-LABEL: func.func @conv_nchw_1x1
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x8x8xf32>, %[[W:.+]]: tensor<32x16x1x1xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[XC:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1], [2, 3]] : tensor<1x16x8x8xf32> into tensor<1x16x64xf32>
// CHECK:         %[[R:.+]] = scf.forall (%[[K:.+]], %[[P:.+]]) = (0, 0) to (32, 64) step (8, 32)
// CHECK-DAG:       tensor.extract_slice %[[XC]][0, 0, %[[P]]] [1, 16, 32]
// CHECK-DAG:       tensor.extract_slice %[[W]][%[[K]], 0, 0, 0] [8, 16, 1, 1]
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// CHECK:         %[[OUT:.+]] = tensor.expand_shape %[[R]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 8, 8]
// CHECK:         return %[[OUT]]
#m_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#m_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#m_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#m_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw_1x1(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %acc = linalg.generic {indexing_maps = [#m_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x32x8x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x32x8x8xf32>
  %0 = linalg.generic {indexing_maps = [#m_in, #m_fil, #m_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) outs(%acc : tensor<1x32x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// -----

// The tiles of output channels each read the whole image again (64 KiB):
// with an L2 cache of 1 MiB (the default) it stays there, and the forall
// keeps the loop order (channels, then positions); so with one of 128 KiB
// (ORDERHALF), of which it takes no more than half. With one of 8 KiB or
// 96 KiB (ORDER), the positions' tiles go first: each strip of 32
// positions is read once, and the filter (2 KiB, at most half the cache)
// by every strip. So too with one of 2 KiB, where neither input fits in
// half of it: the 32 strips of positions re-read the filter (64 KiB in
// all), the 4 tiles of output channels would re-read the image (256 KiB).
// CHECK-LABEL: func.func @conv_nchw_1x1_large_image
// CHECK:         scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (32, 1024) step (8, 32)
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// ORDERHALF-LABEL: func.func @conv_nchw_1x1_large_image
// ORDERHALF:         scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (32, 1024) step (8, 32)
// ORDER-LABEL: func.func @conv_nchw_1x1_large_image
// ORDER-SAME:    %[[X:.+]]: tensor<1x16x32x32xf32>, %[[W:.+]]: tensor<32x16x1x1xf32>
// ORDER:         %[[XC:.+]] = tensor.collapse_shape %[[X]]
// ORDER:         scf.forall (%[[P:.+]], %[[K:.+]]) = (0, 0) to (1024, 32) step (32, 8)
// ORDER-DAG:       tensor.extract_slice %[[XC]][0, 0, %[[P]]] [1, 16, 32]
// ORDER-DAG:       tensor.extract_slice %[[W]][%[[K]], 0, 0, 0] [8, 16, 1, 1]
// ORDER:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
#m_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#m_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#m_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#m_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw_1x1_large_image(%x: tensor<1x16x32x32xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %acc = linalg.generic {indexing_maps = [#m_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x32x32x32xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x32x32x32xf32>
  %0 = linalg.generic {indexing_maps = [#m_in, #m_fil, #m_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x32x32xf32>, tensor<32x16x1x1xf32>) outs(%acc : tensor<1x32x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x32x32xf32>
  return %0 : tensor<1x32x32x32xf32>
}

// -----

// 7x9 = 63 positions, no multiple of 32: the leading 32 positions are
// computed by one contraction and the last 32 (31 to 62) by a second, each
// from its own fill and reading a slice of the collapsed image in place;
// the second result is inserted after the first, over position 31, which
// both compute the same way. Nothing is copied. Both take the full vector
// tile of 32 positions and 8 rows of output channels.
// CHECK-LABEL: func.func @conv_nchw_1x1_63_positions
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x7x9xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[XC:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1], [2, 3]] : tensor<1x16x7x9xf32> into tensor<1x16x63xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<1x32x63xf32>
// CHECK:         %[[XL:.+]] = tensor.extract_slice %[[XC]][0, 0, 0] [1, 16, 32] [1, 1, 1]
// CHECK:         %[[L:.+]] = scf.forall (%{{.+}}) = (0) to (32) step (8)
// CHECK:           tensor.extract_slice %[[XL]][0, 0, 0] [1, 16, 32]
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// CHECK:         %[[RL:.+]] = tensor.insert_slice %[[L]] into %[[E]][0, 0, 0] [1, 32, 32] [1, 1, 1]
// CHECK:         %[[XT:.+]] = tensor.extract_slice %[[XC]][0, 0, 31] [1, 16, 32] [1, 1, 1]
// CHECK:         %[[T:.+]] = scf.forall (%{{.+}}) = (0) to (32) step (8)
// CHECK:           tensor.extract_slice %[[XT]][0, 0, 0] [1, 16, 32]
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// CHECK:         %[[RT:.+]] = tensor.insert_slice %[[T]] into %[[RL]][0, 0, 31] [1, 32, 32] [1, 1, 1]
// CHECK:         %[[OUT:.+]] = tensor.expand_shape %[[RT]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 7, 9]
// CHECK:         return %[[OUT]]
// With overlap-merged-tails=false they are padded to 64 (two vectors of
// 32): the image is copied into a 1x16x64 tensor whose last column is
// zero, and the result is copied out of the first 63 columns of a 1x32x64
// one.
// NOOVERLAP-LABEL: func.func @conv_nchw_1x1_63_positions
// NOOVERLAP-SAME:    %[[X:.+]]: tensor<1x16x7x9xf32>
// NOOVERLAP:         %[[XC:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1], [2, 3]] : tensor<1x16x7x9xf32> into tensor<1x16x63xf32>
// NOOVERLAP:         scf.forall {{.*}} -> (tensor<1x16x63xf32>)
// NOOVERLAP:           tensor.extract_slice %[[XC]]
// NOOVERLAP:         %[[R:.+]] = scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (32, 64) step (8, 32)
// NOOVERLAP:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// NOOVERLAP:         %[[LEAD:.+]] = tensor.extract_slice %[[R]][0, 0, 0] [1, 32, 63] [1, 1, 1]
// NOOVERLAP:         %[[C:.+]] = scf.forall {{.*}} -> (tensor<1x32x63xf32>)
// NOOVERLAP:           tensor.extract_slice %[[LEAD]]
// NOOVERLAP:         %[[OUT:.+]] = tensor.expand_shape %[[C]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 7, 9]
// NOOVERLAP:         return %[[OUT]]
// With an AVX2 host's 96 accumulator lanes, the register tile is 6 rows
// of 16 lanes (split-row-loops), and 6 rows do not divide 32 output
// channels: each piece of positions is computed as output channels 0-29
// and 26-31, and the four pieces are inserted into the result directly
// (flattenNestedPieces), not into a tensor of each piece of positions.
// ACC96-LABEL: func.func @conv_nchw_1x1_63_positions
// ACC96-SAME:    %[[X:.+]]: tensor<1x16x7x9xf32>, %[[W:.+]]: tensor<32x16x1x1xf32>
// ACC96:         %[[E:.+]] = tensor.empty() : tensor<1x32x63xf32>
// ACC96:         tensor.extract_slice %[[W]][0, 0, 0, 0] [30, 16, 1, 1]
// ACC96:         %[[A:.+]] = scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (30, 32) step (6, 16)
// ACC96:           vector.contract {{.*}} : vector<6x16xf32>, vector<16x16xf32> into vector<6x16xf32>
// ACC96:         tensor.extract_slice %[[W]][26, 0, 0, 0] [6, 16, 1, 1]
// ACC96:         %[[B:.+]] = scf.forall (%{{.+}}) = (0) to (32) step (16)
// ACC96:           vector.contract {{.*}} : vector<6x16xf32>, vector<16x16xf32> into vector<6x16xf32>
// ACC96:         %[[R1:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0] [1, 30, 32]
// ACC96:         %[[R2:.+]] = tensor.insert_slice %[[B]] into %[[R1]][0, 26, 0] [1, 6, 32]
// ACC96:         %[[C:.+]] = scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (30, 32) step (6, 16)
// ACC96:         %[[D:.+]] = scf.forall (%{{.+}}) = (0) to (32) step (16)
// ACC96:         %[[R3:.+]] = tensor.insert_slice %[[C]] into %[[R2]][0, 0, 31] [1, 30, 32]
// ACC96:         %[[R4:.+]] = tensor.insert_slice %[[D]] into %[[R3]][0, 26, 31] [1, 6, 32]
// ACC96:         tensor.expand_shape %[[R4]]
// Without, the tile keeps to rows that divide 32: 2 of 32 lanes.
// NOSPLITROWS-LABEL: func.func @conv_nchw_1x1_63_positions
// NOSPLITROWS:         scf.forall (%{{.+}}) = (0) to (32) step (2)
// NOSPLITROWS:           vector.contract {{.*}} : vector<2x16xf32>, vector<16x32xf32> into vector<2x32xf32>
// NOSPLITROWS:         scf.forall (%{{.+}}) = (0) to (32) step (2)
// NOSPLITROWS:           vector.contract {{.*}} : vector<2x16xf32>, vector<16x32xf32> into vector<2x32xf32>
// NOSPLITROWS:         return
#m_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#m_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#m_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#m_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw_1x1_63_positions(%x: tensor<1x16x7x9xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x7x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x7x9xf32>
  %acc = linalg.generic {indexing_maps = [#m_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x32x7x9xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x32x7x9xf32>
  %0 = linalg.generic {indexing_maps = [#m_in, #m_fil, #m_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x7x9xf32>, tensor<32x16x1x1xf32>) outs(%acc : tensor<1x32x7x9xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x7x9xf32>
  return %0 : tensor<1x32x7x9xf32>
}

// -----

// 6x8 = 48 positions, an odd multiple of 16: the leading 32 take the full
// vector tile (8 rows), the last 16 (32 to 47, no overlap) a tile of 16
// positions and 16 rows of output channels (twice 8), as many
// accumulators.
// CHECK-LABEL: func.func @conv_nchw_1x1_48_positions
// CHECK:         %[[XC:.+]] = tensor.collapse_shape
// CHECK:         %[[XL:.+]] = tensor.extract_slice %[[XC]][0, 0, 0] [1, 16, 32] [1, 1, 1]
// CHECK:         %[[L:.+]] = scf.forall (%{{.+}}) = (0) to (32) step (8)
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// CHECK:         %[[RL:.+]] = tensor.insert_slice %[[L]] into %{{.+}}[0, 0, 0] [1, 32, 32] [1, 1, 1]
// CHECK:         %[[XT:.+]] = tensor.extract_slice %[[XC]][0, 0, 32] [1, 16, 16] [1, 1, 1]
// CHECK:         %[[T:.+]] = scf.forall (%{{.+}}) = (0) to (32) step (16)
// CHECK:           vector.contract {{.*}} : vector<16x16xf32>, vector<16x16xf32> into vector<16x16xf32>
// CHECK:         tensor.insert_slice %[[T]] into %[[RL]][0, 0, 32] [1, 32, 16] [1, 1, 1]
// With overlap-merged-tails=false, 48 is a multiple of 16: one
// contraction, tiles of 16 positions and 16 rows.
// NOOVERLAP-LABEL: func.func @conv_nchw_1x1_48_positions
// NOOVERLAP:         scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (32, 48) step (16, 16)
// NOOVERLAP:           vector.contract {{.*}} : vector<16x16xf32>, vector<16x16xf32> into vector<16x16xf32>
// NOOVERLAP-NOT:     scf.forall (
// NOOVERLAP:         return
#m_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#m_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#m_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#m_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw_1x1_48_positions(%x: tensor<1x16x6x8xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x6x8xf32>
  %acc = linalg.generic {indexing_maps = [#m_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x32x6x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x32x6x8xf32>
  %0 = linalg.generic {indexing_maps = [#m_in, #m_fil, #m_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x6x8xf32>, tensor<32x16x1x1xf32>) outs(%acc : tensor<1x32x6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x6x8xf32>
  return %0 : tensor<1x32x6x8xf32>
}

// -----

// The same with 1024 input channels: the filter's rows (the output
// channels the tiles broadcast from) are 4 KiB apart, all in one set of
// the L1 cache, and 16 of them would take more than 8 lines of a set: the
// last 16 positions' tiles keep 8 rows (crowdsCacheSet).
// CHECK-LABEL: func.func @conv_nchw_1x1_48_positions_wide
// CHECK:         scf.forall (%{{.+}}) = (0) to (32) step (8)
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// CHECK:         scf.forall (%{{.+}}) = (0) to (32) step (8)
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x16xf32> into vector<8x16xf32>
#m_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#m_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#m_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#m_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw_1x1_48_positions_wide(%x: tensor<1x1024x6x8xf32>, %w: tensor<32x1024x1x1xf32>) -> tensor<1x32x6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x6x8xf32>
  %acc = linalg.generic {indexing_maps = [#m_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x32x6x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x32x6x8xf32>
  %0 = linalg.generic {indexing_maps = [#m_in, #m_fil, #m_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x1024x6x8xf32>, tensor<32x1024x1x1xf32>) outs(%acc : tensor<1x32x6x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x6x8xf32>
  return %0 : tensor<1x32x6x8xf32>
}

// -----

// A stride-2 1x1 NCHW convolution (a ResNet downsampling layer, with an
// odd input width: 15 columns give 8): the image is first subsampled by a
// copy that reads every other row and column (a strided slice per
// channel), then oh and ow are merged as for stride 1.
// CHECK-LABEL: func.func @conv_nchw_1x1_stride2
// CHECK-SAME:    %[[X:.+]]: tensor<1x16x16x15xf32>, %[[W:.+]]: tensor<32x16x1x1xf32>
// CHECK:         %[[S:.+]] = scf.forall (%[[C:.+]]) in (16) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<1x16x8x8xf32>)
// CHECK:           tensor.extract_slice %{{.+}}[0, 0, 0, 0] [1, 1, 8, 8] [1, 1, 2, 2] : tensor<1x1x15x15xf32> to tensor<8x8xf32>
// CHECK:         %[[SC:.+]] = tensor.collapse_shape %[[S]] {{\[\[}}0], [1], [2, 3]] : tensor<1x16x8x8xf32> into tensor<1x16x64xf32>
// CHECK:         %[[R:.+]] = scf.forall (%[[K:.+]], %[[P:.+]]) = (0, 0) to (32, 64) step (8, 32)
// CHECK:           tensor.extract_slice %[[SC]][0, 0, %[[P]]] [1, 16, 32]
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// CHECK:         tensor.expand_shape %[[R]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 8, 8]
#s_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, 2 * oh + kh, 2 * ow + kw)>
#s_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#s_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#s_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw_1x1_stride2(%x: tensor<1x16x16x15xf32>, %w: tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x8x8xf32>
  %acc = linalg.generic {indexing_maps = [#s_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x32x8x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x32x8x8xf32>
  %0 = linalg.generic {indexing_maps = [#s_in, #s_fil, #s_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x16x15xf32>, tensor<32x16x1x1xf32>) outs(%acc : tensor<1x32x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x32x8x8xf32>
  return %0 : tensor<1x32x8x8xf32>
}

// -----

#x = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
#col = affine_map<(r, c) -> (c)>
#id = affine_map<(r) -> (r)>

// The column sums may come before the chain's root (as the bf16 backward's
// lowering emits them) when their results are used only after it: they are
// computed in the chain's pass too, and their partials added up after the
// chain's forall.
// CHAIN-LABEL: func.func @row_chain_column_sums_first
// CHAIN-NOT:     scf.forall {{.*}} -> (tensor<64xf32>)
// CHAIN:         %[[R:.+]]:2 = scf.forall (%{{.+}}) = (0) to (16) step (4) shared_outs({{.*}}) -> (tensor<16x64xf32>, tensor<4x64xf32>)
// CHAIN:           tensor.extract_slice %[[R]]#1[0, %{{.+}}] [4, 32] [1, 1]
// CHAIN:         return %[[R]]#0, %{{.+}} : tensor<16x64xf32>, tensor<64xf32>
func.func @row_chain_column_sums_first(%dy: tensor<16x64xf32>, %x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<64xf32>
  %init4 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e4 : tensor<64xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<64xf32>
  %cs = linalg.generic {indexing_maps = [#x, #col], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<16x64xf32>) outs(%init4 : tensor<64xf32>) {
  ^bb0(%g: f32, %o: f32):
    %s = arith.addf %o, %g : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<16xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%dy : tensor<16x64xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16x64xf32>
  %dx = linalg.generic {indexing_maps = [#x, #x, #row, #x], iterator_types = ["parallel", "parallel"]} ins(%dy, %x, %sum : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16xf32>) outs(%e3 : tensor<16x64xf32>) {
  ^bb0(%g: f32, %a: f32, %s: f32, %o: f32):
    %d = arith.subf %g, %s : f32
    %v = arith.mulf %d, %a : f32
    linalg.yield %v : f32
  } -> tensor<16x64xf32>
  return %dx, %cs : tensor<16x64xf32>, tensor<64xf32>
}

// -----

#x = affine_map<(r, c) -> (r, c)>
#row = affine_map<(r, c) -> (r)>
#col = affine_map<(r, c) -> (c)>
#id = affine_map<(r) -> (r)>

// A column sum before the root whose result is also used before the root
// (here by a generic that doubles it) stays a generic of its own, before
// the chain's forall: the chain's loop, built at the root, would come after
// that use.
// CHAIN-LABEL: func.func @row_chain_column_sums_used_before
// CHAIN:         scf.forall {{.*}} -> (tensor<64xf32>)
// CHAIN:         scf.forall {{.*}} -> (tensor<64xf32>)
// CHAIN:         scf.forall (%{{.+}}) in (16) shared_outs({{.*}}) -> (tensor<16x64xf32>)
func.func @row_chain_column_sums_used_before(%dy: tensor<16x64xf32>, %x: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<64xf32>
  %init4 = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e4 : tensor<64xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<64xf32>
  %cs = linalg.generic {indexing_maps = [#x, #col], iterator_types = ["reduction", "parallel"]} ins(%dy : tensor<16x64xf32>) outs(%init4 : tensor<64xf32>) {
  ^bb0(%g: f32, %o: f32):
    %s = arith.addf %o, %g : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e5 = tensor.empty() : tensor<64xf32>
  %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%cs : tensor<64xf32>) outs(%e5 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %a : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%e : tensor<16xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#x, #row], iterator_types = ["parallel", "reduction"]} ins(%dy : tensor<16x64xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16x64xf32>
  %dx = linalg.generic {indexing_maps = [#x, #x, #row, #x], iterator_types = ["parallel", "parallel"]} ins(%dy, %x, %sum : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16xf32>) outs(%e3 : tensor<16x64xf32>) {
  ^bb0(%g: f32, %a: f32, %s: f32, %o: f32):
    %d = arith.subf %g, %s : f32
    %v = arith.mulf %d, %a : f32
    linalg.yield %v : f32
  } -> tensor<16x64xf32>
  return %dx, %twice : tensor<16x64xf32>, tensor<64xf32>
}

// -----

#pk_in = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#pk_fil = affine_map<(n, oh, ow, k, c, kh, kw) -> (k, kh, kw, c)>
#pk_out = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh, ow, k)>
#pk_id = affine_map<(n, oh, ow, k) -> (n, oh, ow, k)>
// A filter reordered into 8 blocks of 32 output channels (147 KiB), each
// block read by the 4 output rows. Below pack-min-bytes (1 MiB by
// default), the reorder is a forall of its own, before the convolution's.
// CHECK-LABEL: func.func @conv_packed
// CHECK:         scf.forall {{.*}} -> (tensor<8x3x3x16x32xf32>)
// CHECK:           vector.transpose
// CHECK:         scf.forall (%{{.+}}, %{{.+}}) in (4, 8)
// CHECK:           vector.contract
// At or above it (the PACK run sets 16 KiB), the convolution's forall
// runs over the blocks only: each iteration reorders its block (into a
// slice of the reorder's empty tensor: a temporary of the iteration once
// bufferized), then computes the block's output rows one at a time from it.
// PACK-LABEL: func.func @conv_packed
// PACK-SAME:    %[[X:.+]]: tensor<1x6x6x16xf32>, %[[W:.+]]: tensor<256x3x3x16xf32>
// PACK-NOT:      scf.forall {{.*}} -> (tensor<8x3x3x16x32xf32>)
// PACK:          %[[WB:.+]] = tensor.expand_shape %[[W]] {{.*}} into tensor<8x32x3x3x16xf32>
// PACK:          %[[EMPTY:.+]] = tensor.empty() : tensor<8x3x3x16x32xf32>
// PACK:          scf.forall (%[[B:.+]]) in (8) shared_outs(%[[OUT:.+]] = %{{.+}}) -> (tensor<1x4x4x8x32xf32>)
// PACK-NEXT:       %[[SRC:.+]] = tensor.extract_slice %[[WB]][%[[B]], 0, 0, 0, 0] [1, 32, 3, 3, 16]
// PACK-NEXT:       %[[INIT:.+]] = tensor.extract_slice %[[EMPTY]][%[[B]], 0, 0, 0, 0] [1, 3, 3, 16, 32]
// PACK-NEXT:       %[[BLOCK:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[INIT]]) -> (tensor<1x3x3x16x32xf32>)
// PACK:              tensor.extract_slice %[[SRC]]
// PACK:              vector.transpose %{{.+}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// PACK:            %[[ROWS:.+]] = scf.for %[[OH:.+]] = %c0 to %c4 step %c1
// PACK:              tensor.extract_slice %[[X]][0, %[[OH]], 0, 0] [1, 3, 6, 16]
// PACK:              tensor.extract_slice %[[BLOCK]][0, %{{.+}}, %{{.+}}, 0, 0] [1, 1, 1, 16, 32]
// PACK:              vector.contract {{.*}} : vector<4x16xf32>, vector<16x32xf32> into vector<4x32xf32>
// PACK:            scf.forall.in_parallel
// PACK-NEXT:         tensor.parallel_insert_slice %[[ROWS]] into %[[OUT]][0, 0, 0, %[[B]], 0] [1, 4, 4, 1, 32]
func.func @conv_packed(%x: tensor<1x6x6x16xf32>, %w: tensor<256x3x3x16xf32>) -> tensor<1x4x4x256xf32> {
  %e = tensor.empty() : tensor<1x4x4x256xf32>
  %zero = arith.constant 0.0 : f32
  %acc = linalg.generic {indexing_maps = [#pk_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x4x4x256xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x4x4x256xf32>
  %0 = linalg.generic {indexing_maps = [#pk_in, #pk_fil, #pk_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x6x16xf32>, tensor<256x3x3x16xf32>) outs(%acc : tensor<1x4x4x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x256xf32>
  return %0 : tensor<1x4x4x256xf32>
}

// -----

#bb_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#bb_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, kh, kw, c)>
#bb_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, oh, ow, k)>
// A bf16 filter in blocks of 32 output channels (conv_blocked's): its
// promotion to f32 is read by the reorder through the blocks'
// expand_shape; the promotion is expanded too and fused into the reorder,
// one pass over the bf16 filter (extended before it is transposed), with
// no f32 copy of the whole filter.
// CHECK-LABEL: func.func @conv_blocked_bf16
// CHECK-SAME:    %{{.+}}: tensor<1x10x10x16xbf16>, %[[W:.+]]: tensor<64x3x3x16xbf16>
// CHECK-NOT:     -> (tensor<64x3x3x16xf32>)
// CHECK:         %[[WX:.+]] = tensor.expand_shape %[[W]] {{.*}} into tensor<2x32x3x3x16xbf16>
// CHECK-NOT:     -> (tensor<2x32x3x3x16xf32>)
// CHECK:         scf.forall {{.*}} -> (tensor<2x3x3x16x32xf32>)
// CHECK:           tensor.extract_slice %[[WX]]
// CHECK:           arith.extf %{{.+}} : vector<16x16xbf16> to vector<16x16xf32>
// CHECK:           vector.transpose %{{.+}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK:         scf.forall {{.*}} -> (tensor<1x8x8x2x32xf32>)
func.func @conv_blocked_bf16(%x: tensor<1x10x10x16xbf16>, %w: tensor<64x3x3x16xbf16>, %acc: tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32> {
  %0 = linalg.generic {indexing_maps = [#bb_in, #bb_fil, #bb_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x10x10x16xbf16>, tensor<64x3x3x16xbf16>) outs(%acc : tensor<1x8x8x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ea = arith.extf %a : bf16 to f32
    %eb = arith.extf %b : bf16 to f32
    %m = arith.mulf %ea, %eb : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x64xf32>
  return %0 : tensor<1x8x8x64xf32>
}

// -----

#ds_in = affine_map<(n, oh, ow, g, kh, kw) -> (n, oh * 2 + kh, ow * 2 + kw, g)>
#ds_fil = affine_map<(n, oh, ow, g, kh, kw) -> (kh, kw, g)>
#ds_out = affine_map<(n, oh, ow, g, kh, kw) -> (n, oh, ow, g)>
#ds_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// depthwise_padded at stride 2: 9 taps over a quarter of the positions,
// about 1.4 multiply-adds per element of the padded input (fewer than 16).
// Its padded copy would cost more than its arithmetic, so it is peeled at
// the default peel-min-input-bytes too. Only the first output row and
// column read the padding (the last window ends inside the input): two
// border pieces and the interior.
// CHECK-LABEL: func.func @depthwise_strided
// CHECK-SAME:    %[[X:.+]]: tensor<1x8x8x32xf32>
// CHECK-NOT:     tensor.empty() : tensor<1x10x10x32xf32>
// CHECK:         tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 2, 8, 32]
// CHECK:         %[[TOP:.+]] = tensor.insert_slice %{{.+}} into %{{.+}}[0, 0, 0, 0] [1, 1, 4, 32] [1, 1, 1, 1] : tensor<1x1x4x32xf32> into tensor<1x4x4x32xf32>
// CHECK:         tensor.extract_slice %[[X]][0, 1, 0, 0] [1, 7, 2, 32]
// CHECK:         %[[LEFT:.+]] = tensor.insert_slice %{{.+}} into %[[TOP]][0, 1, 0, 0] [1, 3, 1, 32]
// CHECK:         tensor.extract_slice %[[X]][0, 1, 1, 0] [1, 7, 7, 32]
// CHECK:         %[[INNER:.+]] = scf.forall {{.*}} -> (tensor<1x3x3x32xf32>)
// CHECK:         %[[ALL:.+]] = tensor.insert_slice %[[INNER]] into %[[LEFT]][0, 1, 1, 0] [1, 3, 3, 32]
// CHECK:         return %[[ALL]]
func.func @depthwise_strided(%x: tensor<1x8x8x32xf32>, %w: tensor<3x3x32xf32>) -> tensor<1x4x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x32xf32> to tensor<1x10x10x32xf32>
  %e = tensor.empty() : tensor<1x4x4x32xf32>
  %acc = linalg.generic {indexing_maps = [#ds_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x4x4x32xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x4x4x32xf32>
  %r = linalg.generic {indexing_maps = [#ds_in, #ds_fil, #ds_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%p, %w : tensor<1x10x10x32xf32>, tensor<3x3x32xf32>) outs(%acc : tensor<1x4x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x32xf32>
  return %r : tensor<1x4x4x32xf32>
}

// -----

#bp_rev = affine_map<(d0, d1, d2, d3) -> (d0, d1, -d2 + 2, -d3 + 2)>
#bp_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bp_in = affine_map<(n, c, oh, ow, k, kh, kw) -> (n, k, oh + kh, ow + kw)>
#bp_fil = affine_map<(n, c, oh, ow, k, kh, kw) -> (k, c, kh, kw)>
#bp_out = affine_map<(n, c, oh, ow, k, kh, kw) -> (n, c, oh, ow)>
// An NCHW backward-data convolution (as boo-convert-to-linalg emits it) of
// 256 input channels: its reversed KCYX filter is reordered into 8 blocks
// of 32 input channels, and the tiles read the reorder at mirrored
// positions (the reversal folded into their slices), one slice in the
// reduction loops with no slice of the forall's own. The block of an
// iteration is sliced along the forall's induction variable (the block
// dim; the others whole) and packed there, as for a forward convolution.
// PACK-LABEL: func.func @conv_bwd_data_packed
// PACK-SAME:    %{{.+}}: tensor<1x16x4x4xf32>, %[[W:.+]]: tensor<16x256x3x3xf32>
// PACK-NOT:      scf.forall {{.*}} -> (tensor<16x8x3x3x32xf32>)
// PACK:          %[[WB:.+]] = tensor.expand_shape %[[W]] {{.*}} into tensor<16x8x32x3x3xf32>
// PACK:          %[[EMPTY:.+]] = tensor.empty() : tensor<16x8x3x3x32xf32>
// PACK:          scf.forall (%[[B:.+]]) in (8) shared_outs
// PACK-NEXT:       %[[SRC:.+]] = tensor.extract_slice %[[WB]][0, %[[B]], 0, 0, 0] [16, 1, 32, 3, 3]
// PACK-NEXT:       %[[INIT:.+]] = tensor.extract_slice %[[EMPTY]][0, %[[B]], 0, 0, 0] [16, 1, 3, 3, 32]
// PACK-NEXT:       %[[BLOCK:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[INIT]]) -> (tensor<16x1x3x3x32xf32>)
// PACK:              tensor.extract_slice %[[SRC]]
// PACK:              vector.transpose
// PACK:            scf.for %{{.+}} = %c0 to %c4 step %c1
// PACK:              %[[KH:.+]] = affine.apply #{{.+}}(%{{.+}})
// PACK:              %[[KW:.+]] = affine.apply #{{.+}}(%{{.+}})
// PACK:              tensor.extract_slice %[[BLOCK]][0, 0, %[[KH]], %[[KW]], 0] [16, 1, 1, 1, 32]
// PACK:              vector.contract {{.*}} : vector<4x16xf32>, vector<16x32xf32> into vector<4x32xf32>
func.func @conv_bwd_data_packed(%dy: tensor<1x16x4x4xf32>, %w: tensor<16x256x3x3xf32>) -> tensor<1x256x4x4xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %dy low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x16x4x4xf32> to tensor<1x16x6x6xf32>
  %e0 = tensor.empty() : tensor<16x256x3x3xf32>
  %rev = linalg.generic {indexing_maps = [#bp_rev, #bp_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<16x256x3x3xf32>) outs(%e0 : tensor<16x256x3x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x256x3x3xf32>
  %e1 = tensor.empty() : tensor<1x256x4x4xf32>
  %acc = linalg.generic {indexing_maps = [#bp_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e1 : tensor<1x256x4x4xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<1x256x4x4xf32>
  %dx = linalg.generic {indexing_maps = [#bp_in, #bp_fil, #bp_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %rev : tensor<1x16x6x6xf32>, tensor<16x256x3x3xf32>) outs(%acc : tensor<1x256x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x256x4x4xf32>
  return %dx : tensor<1x256x4x4xf32>
}

// -----

// An NHWC backward-data convolution reads its KYXC filter along C, its
// innermost dim: a tile of 32 input channels reads 128 bytes of each
// filter row of K, Y*X*C floats apart. Above pack-min-bytes, the filter
// is a slab: blocked along C (expand_shape, 8 blocks of 32) and copied
// blocks outermost, [C/32][K][Y][X][32], each block packed in the forall
// iteration that reads it (the reversal folded into the tiles' slices);
// below, the tiles read the filter in place (CHECK).
// PACK-LABEL: func.func @conv_bwd_data_nhwc_slab
// PACK-SAME:    %{{.+}}: tensor<1x4x4x16xf32>, %[[W:.+]]: tensor<16x3x3x256xf32>
// PACK:          %[[WB:.+]] = tensor.expand_shape %[[W]] {{.*}} into tensor<16x3x3x8x32xf32>
// PACK:          tensor.empty() : tensor<8x16x3x3x32xf32>
// PACK:          scf.forall (%[[B:.+]]) in (8) shared_outs
// PACK-NEXT:       tensor.extract_slice %[[WB]][0, 0, 0, %[[B]], 0] [16, 3, 3, 1, 32]
// PACK:            %[[BLOCK:.+]] = scf.for {{.*}} -> (tensor<1x16x3x3x32xf32>)
// PACK:            scf.for %{{.+}} = %c0 to %c4 step %c1
// PACK:              tensor.extract_slice %[[BLOCK]]
// PACK:              vector.contract {{.*}} : vector<4x16xf32>, vector<16x32xf32> into vector<4x32xf32>
// PACK:          tensor.collapse_shape %{{.+}} {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x4x4x8x32xf32> into tensor<1x4x4x256xf32>
// CHECK-LABEL: func.func @conv_bwd_data_nhwc_slab
// CHECK-SAME:    %{{.+}}: tensor<1x4x4x16xf32>, %[[W:.+]]: tensor<16x3x3x256xf32>
// CHECK-NOT:     tensor.expand_shape %[[W]]
// CHECK:         scf.forall (%{{.+}}, %[[C:.+]]) = (0, 0) to (4, 256) step (1, 32)
// CHECK:           tensor.extract_slice %[[W]][0, %{{.+}}, %{{.+}}, %[[C]]] [16, 1, 1, 32]
#bn_rev = affine_map<(d0, d1, d2, d3) -> (d0, -d1 + 2, -d2 + 2, d3)>
#bn_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bn_in = affine_map<(n, oh, ow, c, k, kh, kw) -> (n, oh + kh, ow + kw, k)>
#bn_fil = affine_map<(n, oh, ow, c, k, kh, kw) -> (k, kh, kw, c)>
#bn_out = affine_map<(n, oh, ow, c, k, kh, kw) -> (n, oh, ow, c)>
func.func @conv_bwd_data_nhwc_slab(%dy: tensor<1x4x4x16xf32>, %w: tensor<16x3x3x256xf32>) -> tensor<1x4x4x256xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %dy low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x16xf32> to tensor<1x6x6x16xf32>
  %e0 = tensor.empty() : tensor<16x3x3x256xf32>
  %rev = linalg.generic {indexing_maps = [#bn_rev, #bn_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%w : tensor<16x3x3x256xf32>) outs(%e0 : tensor<16x3x3x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x3x3x256xf32>
  %e1 = tensor.empty() : tensor<1x4x4x256xf32>
  %acc = linalg.generic {indexing_maps = [#bn_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e1 : tensor<1x4x4x256xf32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  } -> tensor<1x4x4x256xf32>
  %dx = linalg.generic {indexing_maps = [#bn_in, #bn_fil, #bn_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %rev : tensor<1x6x6x16xf32>, tensor<16x3x3x256xf32>) outs(%acc : tensor<1x4x4x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x256xf32>
  return %dx : tensor<1x4x4x256xf32>
}

// -----

// A channels-first depthwise convolution (groups expanded, the image
// zero-padded, a zero fill as the initial value, as boo-convert-to-linalg
// emits it) is computed plane by plane: one forall iteration per output
// plane, the rows of the plane one at a time, each in one vector of 8
// lanes. The image is read unpadded: the first and last output rows (whose
// top or bottom window row is padding) skip that window row; each image
// row is one register, whose left and right taps are it shifted by a lane
// between zero registers (the padding). The interior rows are one scf.for that carries the taps of
// the two image rows the next row reads again (6 registers) and reads one
// new image row per iteration. The taps add to 3 sets of partial sums (tap
// t to set t % 3), summed before the row is written. No pad, fill or
// transpose is left.
// CHECK-LABEL: func.func @depthwise_nchw(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x4x1x6x8xf32>, %[[W:[a-z0-9]+]]: tensor<4x1x1x3x3xf32>
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.generic
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: scf.forall (%[[G:.+]]) in (4)
// CHECK: tensor.extract %[[W]][%[[G]], %c0, %c0, %c0, %c0]
// CHECK: %[[W00:.+]] = vector.broadcast
// CHECK: %[[W01:.+]] = vector.broadcast
// CHECK: %[[W02:.+]] = vector.broadcast
// CHECK: %[[W10:.+]] = vector.broadcast
// Output row 0: image rows 0 and 1 (window rows 1 and 2).
// CHECK: %[[R0:.+]] = vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c0, %c0], %{{.+}} {in_bounds = [true]}
// CHECK: %[[R0L:.+]] = vector.shuffle %[[ZERO]], %[[R0]] [7, 8, 9, 10, 11, 12, 13, 14]
// CHECK: %[[R0R:.+]] = vector.shuffle %[[R0]], %[[ZERO]] [1, 2, 3, 4, 5, 6, 7, 8]
// CHECK: vector.fma %[[R0L]], %[[W10]], %[[ZERO]]
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c1, %c0]
// CHECK: %[[FIRST:.+]] = vector.transfer_write %{{.+}}[%c0, %c0, %c0, %c0, %c0] {in_bounds = [true]}
// Rows 1-4: the taps of image rows oh-1 and oh come from the last
// iteration.
// CHECK: scf.for %[[OH:.+]] = %c1 to %c5 step %c1 iter_args(%[[PLANE:.+]] = %[[FIRST]], %[[T0:.+]] = %{{.+}}, %[[T1:.+]] = %{{.+}}, %[[T2:.+]] = %{{.+}}, %[[T3:.+]] = %{{.+}}, %[[T4:.+]] = %{{.+}}, %[[T5:.+]] = %{{.+}})
// CHECK:   %[[S0:.+]] = vector.fma %[[T0]], %[[W00]], %[[ZERO]]
// CHECK:   %[[S1:.+]] = vector.fma %[[T1]], %[[W01]], %[[ZERO]]
// CHECK:   %[[S2:.+]] = vector.fma %[[T2]], %[[W02]], %[[ZERO]]
// CHECK:   vector.fma %[[T3]], %[[W10]], %[[S0]]
// CHECK:   %[[DOWN:.+]] = arith.addi %[[OH]], %c1
// CHECK:   %[[N0:.+]] = vector.transfer_read %[[X]][%c0, %[[G]], %c0, %[[DOWN]], %c0]
// CHECK:   %[[N0L:.+]] = vector.shuffle %[[ZERO]], %[[N0]] [7, 8, 9, 10, 11, 12, 13, 14]
// CHECK:   %[[N0R:.+]] = vector.shuffle %[[N0]], %[[ZERO]] [1, 2, 3, 4, 5, 6, 7, 8]
// CHECK:   %[[SUM:.+]] = arith.addf
// CHECK:   %[[ROW:.+]] = arith.addf %[[SUM]],
// CHECK:   %[[WRITTEN:.+]] = vector.transfer_write %[[ROW]], %[[PLANE]][%c0, %c0, %c0, %[[OH]], %c0] {in_bounds = [true]}
// CHECK:   scf.yield %[[WRITTEN]], %[[T3]], %[[T4]], %[[T5]], %[[N0L]], %[[N0]], %[[N0R]]
// Output row 5: image rows 4 and 5 (window rows 0 and 1).
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c4, %c0]
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c5, %c0]
// CHECK: vector.transfer_write %{{.+}}[%c0, %c0, %c0, %c5, %c0] {in_bounds = [true]}
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: vector.transpose
// NOPLANE-LABEL: func.func @depthwise_nchw(
// NOPLANE: vector.transpose

#dw_in = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, c, oh + kh, ow + kw)>
#dw_fil = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (g, m, c, kh, kw)>
#dw_out = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>
#dw_id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

func.func @depthwise_nchw(%x: tensor<1x4x1x6x8xf32>, %w: tensor<4x1x1x3x3xf32>) -> tensor<1x4x1x6x8xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x4x1x6x8xf32> to tensor<1x4x1x8x10xf32>
  %empty = tensor.empty() : tensor<1x4x1x6x8xf32>
  %fill = linalg.generic {indexing_maps = [#dw_id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%empty : tensor<1x4x1x6x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x4x1x6x8xf32>
  %r = linalg.generic {indexing_maps = [#dw_in, #dw_fil, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x4x1x8x10xf32>, tensor<4x1x1x3x3xf32>) outs(%fill : tensor<1x4x1x6x8xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x1x6x8xf32>
  return %r : tensor<1x4x1x6x8xf32>
}

// -----

// The same layer in bf16: its padded input (10x10x32) is 6400 bytes, but
// it is promoted to f32 (12800 bytes) before the contraction reads it, so
// it counts as 12800 against peel-min-input-bytes (8000 in the PEEL16
// run) and is peeled: the pieces read slices of the bf16 input, and no
// padded copy of it is made.
// PEEL16-LABEL: func.func @depthwise_padded_bf16
// PEEL16-SAME:    %[[X:.+]]: tensor<1x8x8x32xbf16>
// PEEL16-NOT:     tensor.pad
// PEEL16:         tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 2, 8, 32]
// PEEL16:         tensor.extract_slice %[[X]][0, 6, 0, 0] [1, 2, 8, 32]
// PEEL16:         scf.forall
// PEEL16:         return

#dwb_in = affine_map<(n, oh, ow, g, kh, kw) -> (n, oh + kh, ow + kw, g)>
#dwb_fil = affine_map<(n, oh, ow, g, kh, kw) -> (kh, kw, g)>
#dwb_out = affine_map<(n, oh, ow, g, kh, kw) -> (n, oh, ow, g)>
#dwb_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

func.func @depthwise_padded_bf16(%x: tensor<1x8x8x32xbf16>, %w: tensor<3x3x32xbf16>) -> tensor<1x8x8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zb : bf16
  } : tensor<1x8x8x32xbf16> to tensor<1x10x10x32xbf16>
  %empty = tensor.empty() : tensor<1x8x8x32xf32>
  %fill = linalg.generic {indexing_maps = [#dwb_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%empty : tensor<1x8x8x32xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x8x8x32xf32>
  %r = linalg.generic {indexing_maps = [#dwb_in, #dwb_fil, #dwb_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%padded, %w : tensor<1x10x10x32xbf16>, tensor<3x3x32xbf16>) outs(%fill : tensor<1x8x8x32xf32>) {
  ^bb0(%i: bf16, %f: bf16, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %fe = arith.extf %f : bf16 to f32
    %m = arith.mulf %ie, %fe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x8x8x32xf32>
  return %r : tensor<1x8x8x32xf32>
}

// -----

// Output rows of 28 would be 4 registers of 8 lanes, whose 24 taps of the
// two image rows the next row reads again are too many to carry; in 2
// registers of 16 lanes (no more register halves) they are 12 and are
// carried: the interior rows' scf.for passes 12 taps on and reads one new
// image row per row, as 2 registers at columns 0 and 16 (the second
// masked); the taps left and right of them are two registers shuffled
// (a zero register left and right of the row), not reads at unaligned
// columns (the 56x56x144 layer went from 0.082 to 0.062 ms on `cpu:1`).
// CHECK-LABEL: func.func @depthwise_nchw_wide_rows(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x1x4x28xf32>
// CHECK: scf.forall (%[[G:.+]]) in (2)
// CHECK: %[[R:.+]] = vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c0, %c0], %{{.+}} {in_bounds = [true]} : tensor<1x2x1x4x28xf32>, vector<16xf32>
// CHECK: vector.shuffle %{{.+}}, %[[R]] [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]
// CHECK: %[[R16:.+]] = vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c0, %c16], %{{.+}} : tensor<1x2x1x4x28xf32>, vector<16xf32>
// CHECK: vector.shuffle %[[R]], %[[R16]] [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
// CHECK: vector.shuffle %[[R]], %[[R16]] [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]
// CHECK: vector.shuffle %[[R16]], %{{.+}} [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
// CHECK: scf.for %[[OH:.+]] = %c1 to %c3 step %c1 iter_args(%[[PLANE:[a-z0-9]+]] = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}}, %{{[a-z0-9]+}} = %{{[a-z0-9]+}})
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %{{.+}}, %c0], %{{.+}} {in_bounds = [true]} : tensor<1x2x1x4x28xf32>, vector<16xf32>
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %{{.+}}, %c16], %{{.+}} : tensor<1x2x1x4x28xf32>, vector<16xf32>
// CHECK-NOT: vector.transfer_read %[[X]]
// CHECK: vector.transfer_write %{{.+}}, %[[PLANE]][%c0, %c0, %c0, %[[OH]], %c0] {in_bounds = [true]} : vector<16xf32>
// CHECK: scf.yield
// With 96 accumulator lanes the 12 taps (192 lanes) are more than half
// of them: the interior rows read their three image rows each.
// ACC96-LABEL: func.func @depthwise_nchw_wide_rows(
// ACC96: scf.for %{{.+}} = %c1 to %c3 step %c1 iter_args(%{{[a-z0-9]+}} = %{{[a-z0-9]+}}) -> (tensor<1x1x1x4x28xf32>)
// ACC96-COUNT-6: vector.transfer_read
// ACC96: vector.transfer_write

#dw_in = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, c, oh + kh, ow + kw)>
#dw_fil = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (g, m, c, kh, kw)>
#dw_out = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>
#dw_id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

func.func @depthwise_nchw_wide_rows(%x: tensor<1x2x1x4x28xf32>, %w: tensor<2x1x1x3x3xf32>) -> tensor<1x2x1x4x28xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x2x1x4x28xf32> to tensor<1x2x1x6x30xf32>
  %empty = tensor.empty() : tensor<1x2x1x4x28xf32>
  %fill = linalg.generic {indexing_maps = [#dw_id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%empty : tensor<1x2x1x4x28xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x2x1x4x28xf32>
  %r = linalg.generic {indexing_maps = [#dw_in, #dw_fil, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x2x1x6x30xf32>, tensor<2x1x1x3x3xf32>) outs(%fill : tensor<1x2x1x4x28xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x1x4x28xf32>
  return %r : tensor<1x2x1x4x28xf32>
}

// -----

// Output rows of 40 are 3 registers of 16 lanes, whose 18 taps of the two
// image rows the next row reads again are too many to carry: each output
// row adds shifted sums instead. Every window column's products with the
// image rows' registers at columns 0, 16 and 32 are summed over the window
// rows (a multiply for the first, multiply-adds after; 9 sums); each
// output register adds its initial value, the left column's sums shifted
// a lane right (a zero register left of the row), the middle column's and
// the right column's shifted a lane left (a zero register right of it):
// 6 shuffles per output row rather than 18 shuffled taps. No taps are
// carried.
// CHECK-LABEL: func.func @depthwise_nchw_shifted_sums(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x1x4x40xf32>
// CHECK: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: scf.forall (%[[G:.+]]) in (2)
// CHECK: scf.for %[[OH:.+]] = %c1 to %c3 step %c1 iter_args(%[[PLANE:[a-z0-9]+]] = %{{[a-z0-9]+}}) -> (tensor<1x1x1x4x40xf32>) {
// CHECK: %[[UP:.+]] = arith.addi %[[OH]], %c-1
// CHECK: %[[U0:.+]] = vector.transfer_read %[[X]][%c0, %[[G]], %c0, %[[UP]], %c0], %{{.+}} {in_bounds = [true]}
// CHECK: arith.mulf %[[U0]],
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %[[UP]], %c16], %{{.+}} {in_bounds = [true]}
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %[[UP]], %c32], %{{[a-z0-9_]+}} :
// CHECK-COUNT-7: arith.mulf
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %[[OH]], %c0]
// CHECK-COUNT-9: vector.fma
// CHECK: %[[DOWN:.+]] = arith.addi %[[OH]], %c1
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %[[DOWN]], %c0]
// CHECK: %[[L0:.+]] = vector.fma
// CHECK: %[[L1:.+]] = vector.fma
// CHECK: %[[L2:.+]] = vector.fma
// CHECK: %[[M0:.+]] = vector.fma
// CHECK: %[[M1:.+]] = vector.fma
// CHECK: %[[M2:.+]] = vector.fma
// CHECK: %[[R0:.+]] = vector.fma
// CHECK: %[[R1:.+]] = vector.fma
// CHECK: %[[R2:.+]] = vector.fma
// CHECK-NOT: vector.fma
// CHECK: %[[SL0:.+]] = vector.shuffle %[[ZERO]], %[[L0]] [15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30]
// CHECK: %[[I0:.+]] = arith.addf %[[SL0]], %[[ZERO]]
// CHECK: %[[C0:.+]] = arith.addf %[[I0]], %[[M0]]
// CHECK: %[[SR0:.+]] = vector.shuffle %[[R0]], %[[R1]] [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
// CHECK: %[[OUT0:.+]] = arith.addf %[[C0]], %[[SR0]]
// CHECK: vector.shuffle %[[L0]], %[[L1]] [15,
// CHECK: vector.shuffle %[[R1]], %[[R2]] [1,
// CHECK: vector.shuffle %[[L1]], %[[L2]] [15,
// CHECK: vector.shuffle %[[R2]], %[[ZERO]] [1,
// CHECK: %[[W0:.+]] = vector.transfer_write %[[OUT0]], %[[PLANE]][%c0, %c0, %c0, %[[OH]], %c0] {in_bounds = [true]}
// CHECK: %[[W1:.+]] = vector.transfer_write %{{.+}}, %[[W0]][%c0, %c0, %c0, %[[OH]], %c16] {in_bounds = [true]}
// CHECK: vector.transfer_write %{{.+}}, %[[W1]][%c0, %c0, %c0, %[[OH]], %c32] : vector<16xf32>
// CHECK: scf.yield

#dw_in = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, c, oh + kh, ow + kw)>
#dw_fil = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (g, m, c, kh, kw)>
#dw_out = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>
#dw_id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

func.func @depthwise_nchw_shifted_sums(%x: tensor<1x2x1x4x40xf32>, %w: tensor<2x1x1x3x3xf32>) -> tensor<1x2x1x4x40xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x2x1x4x40xf32> to tensor<1x2x1x6x42xf32>
  %empty = tensor.empty() : tensor<1x2x1x4x40xf32>
  %fill = linalg.generic {indexing_maps = [#dw_id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%empty : tensor<1x2x1x4x40xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x2x1x4x40xf32>
  %r = linalg.generic {indexing_maps = [#dw_in, #dw_fil, #dw_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x2x1x6x42xf32>, tensor<2x1x1x3x3xf32>) outs(%fill : tensor<1x2x1x4x40xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x1x4x40xf32>
  return %r : tensor<1x2x1x4x40xf32>
}

// -----

// Stride-1 output rows longer than a register of 8 (14 here, as in
// MobileNetV2's 14x14 layers) are computed in one register of 16 lanes,
// not in two of 8: every image read and every row written is 16 lanes.
// CHECK-LABEL: func.func @depthwise_nchw_14_wide(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x1x4x14xf32>
// CHECK: scf.forall (%{{.+}}) in (2)
// CHECK-NOT: vector<8xf32>
// CHECK: vector.transfer_read %[[X]]{{.*}} : tensor<1x2x1x4x14xf32>, vector<16xf32>
// CHECK-NOT: vector<8xf32>
// CHECK: vector.transfer_write %{{.+}} : vector<16xf32>
// CHECK-NOT: vector<8xf32>
// CHECK: return
func.func @depthwise_nchw_14_wide(%x: tensor<1x2x1x4x14xf32>, %w: tensor<2x1x1x3x3xf32>) -> tensor<1x2x1x4x14xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x2x1x4x14xf32> to tensor<1x2x1x6x16xf32>
  %empty = tensor.empty() : tensor<1x2x1x4x14xf32>
  %fill = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%empty : tensor<1x2x1x4x14xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x2x1x4x14xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, c, oh + kh, ow + kw)>, affine_map<(n, g, m, oh, ow, c, kh, kw) -> (g, m, c, kh, kw)>, affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x2x1x6x16xf32>, tensor<2x1x1x3x3xf32>) outs(%fill : tensor<1x2x1x4x14xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x1x4x14xf32>
  return %r : tensor<1x2x1x4x14xf32>
}

// -----

// Stride-2 output rows longer than a register of 8 (14 here) are computed
// in registers of 16 lanes, each tap one shuffle of two registers of the
// image row (its even or odd columns), and the taps add to one chain of
// multiply-adds, without the sets of partial sums of 8-lane rows.
// CHECK-LABEL: func.func @depthwise_nchw_strided_wide(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x1x8x28xf32>
// CHECK: scf.for %[[OH:.+]] = %c1 to %c4 step %c1 iter_args(%[[PLANE:[a-z0-9]+]] = %{{[a-z0-9]+}}, %[[T0:[a-z0-9]+]] = %{{[a-z0-9]+}}, %[[T1:[a-z0-9]+]] = %{{[a-z0-9]+}}, %[[T2:[a-z0-9]+]] = %{{[a-z0-9]+}})
// CHECK:   %[[S0:.+]] = vector.fma %[[T0]], %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK:   %[[S1:.+]] = vector.fma %[[T1]], %{{.+}}, %[[S0]]
// CHECK:   %[[S2:.+]] = vector.fma %[[T2]], %{{.+}}, %[[S1]]
// CHECK:   %[[LO:.+]] = vector.transfer_read %[[X]][%c0, %{{.+}}, %c0, %{{.+}}, %c0], {{.+}} : tensor<1x2x1x8x28xf32>, vector<16xf32>
// CHECK:   %[[HI:.+]] = vector.transfer_read %[[X]][%c0, %{{.+}}, %c0, %{{.+}}, %c16], {{.+}} : tensor<1x2x1x8x28xf32>, vector<16xf32>
// CHECK:   vector.shuffle %[[LO]], %[[HI]] [0, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29]
// CHECK:   vector.shuffle %[[LO]], %[[HI]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK:   vector.shuffle %[[LO]], %[[HI]] [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]
// CHECK:   vector.fma %{{.+}}, %{{.+}}, %[[S2]] : vector<16xf32>
// CHECK-NOT: arith.addf
// CHECK:   vector.transfer_write %{{.+}}, %[[PLANE]][%c0, %c0, %c0, %[[OH]], %c0] : vector<16xf32>
// CHECK:   scf.yield

#dws_in = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, c, oh * 2 + kh, ow * 2 + kw)>
#dws_fil = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (g, m, c, kh, kw)>
#dws_out = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>
#dw_id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

func.func @depthwise_nchw_strided_wide(%x: tensor<1x2x1x8x28xf32>, %w: tensor<2x1x1x3x3xf32>) -> tensor<1x2x1x4x14xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x2x1x8x28xf32> to tensor<1x2x1x9x29xf32>
  %empty = tensor.empty() : tensor<1x2x1x4x14xf32>
  %fill = linalg.generic {indexing_maps = [#dw_id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%empty : tensor<1x2x1x4x14xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x2x1x4x14xf32>
  %r = linalg.generic {indexing_maps = [#dws_in, #dws_fil, #dws_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x2x1x9x29xf32>, tensor<2x1x1x3x3xf32>) outs(%fill : tensor<1x2x1x4x14xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x1x4x14xf32>
  return %r : tensor<1x2x1x4x14xf32>
}

// -----

// A channels-first convolution with 3 input channels (a stem: 3x3, stride
// 2) is computed in its own layout, one output row of a block of 16
// output channels per forall iteration (the batch and the one block fold
// away), in registers of 16 lanes: 16 accumulators per register of the
// row. Loops over the input channels and the window rows; each window row
// inside the image (an scf.if on the image row, which is outside for the
// first output row) adds its 3 taps, each a shuffle of the even columns
// of two registers of the image row, multiplied by each output channel's
// broadcast weight. The first register of the row reads the left
// padding: its first tap's lane 0 is zero (a select). Registers 1 and 2
// read inside the row and are one scf.for; register 3 (reading past the
// row's end) is unrolled again. No pad, no transposes.
// CHECK-LABEL: func.func @stem_nchw(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x3x128x128xf32>, %[[W:[a-z0-9]+]]: tensor<16x3x3x3xf32>
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.generic
// CHECK: scf.forall (%[[OH:.+]]) in (64)
// CHECK: %[[SUMS:.+]]:16 = scf.for %[[C:.+]] = %c0 to %c3 step %c1
// CHECK:   scf.for %[[KY:.+]] = %c0 to %c3 step %c1
// CHECK:     arith.cmpi sge, %[[ROW:.+]], %c0
// CHECK:     arith.cmpi slt, %[[ROW]], %c128
// CHECK:     scf.if
// CHECK:       %[[A:.+]] = vector.transfer_read %[[X]][%c0, %[[C]], %[[ROW]], %c1]
// CHECK:       %[[B:.+]] = vector.transfer_read %[[X]][%c0, %[[C]], %[[ROW]], %c17]
// CHECK:       %[[T0:.+]] = vector.shuffle %[[A]], %[[B]] [0, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28]
// CHECK:       %[[T0Z:.+]] = arith.select %{{.+}}, %[[T0]], %{{.+}} : vector<16xi1>, vector<16xf32>
// CHECK:       tensor.extract %[[W]][%c0, %[[C]], %[[KY]], %c0]
// CHECK:       vector.fma %[[T0Z]], %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK:       tensor.extract %[[W]][%c15, %[[C]], %[[KY]], %c0]
// CHECK:       vector.shuffle %{{.+}}, %{{.+}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK:       tensor.extract %[[W]][%c0, %[[C]], %[[KY]], %c1]
// CHECK: vector.transfer_write %[[SUMS]]#0, %{{.+}}[%c0, %c0, %c0, %c0] {in_bounds = [true]} : vector<16xf32>, tensor<1x16x1x64xf32>
// CHECK: vector.transfer_write %[[SUMS]]#15, %{{.+}}[%c0, %c15, %c0, %c0]
// CHECK: scf.for %[[J:.+]] = %c1 to %c3 step %c1
// CHECK: vector.transfer_write %{{.+}}[%c0, %c0, %c0, %c48] {in_bounds = [true]}
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: vector.transpose
// NOPLANE-LABEL: func.func @stem_nchw(
// NOPLANE: vector.transpose
// With 96 accumulator lanes (an AVX2 host's budget) 16 channels of 16
// lanes do not fit: blocks of 8 channels in registers of 8 lanes (4 of 16
// would hold as many lanes, with fewer multiply-adds per tap).
// ACC96-LABEL: func.func @stem_nchw(
// ACC96: scf.forall (%{{.+}}, %{{.+}}) in (2, 64)
// ACC96: scf.for {{.+}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// ACC96: vector.transfer_write %{{.+}}, %{{.+}}[%c0, %c7, %c0, %c0] {in_bounds = [true]} : vector<8xf32>, tensor<1x8x1x64xf32>

#st_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, 2 * oh + kh, 2 * ow + kw)>
#st_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#st_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#st_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @stem_nchw(%x: tensor<1x3x128x128xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x128x128xf32> to tensor<1x3x130x130xf32>
  %empty = tensor.empty() : tensor<1x16x64x64xf32>
  %fill = linalg.generic {indexing_maps = [#st_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%empty : tensor<1x16x64x64xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x16x64x64xf32>
  %r = linalg.generic {indexing_maps = [#st_in, #st_fil, #st_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x3x130x130xf32>, tensor<16x3x3x3xf32>) outs(%fill : tensor<1x16x64x64xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x64x64xf32>
  return %r : tensor<1x16x64x64xf32>
}

// -----

// A stride-2 one (bf16 operands, an initial value that is no fill): each
// window row reads two registers of 4 columns (extended to f32 once), and
// each tap's 4 lanes are one two-register shuffle of them (odd columns
// with lane 0 zeroed for the left padding, even columns, odd columns).
// The first set of partial sums starts at the initial value. Output row 0
// skips the padding row; rows 1-3 carry the taps of image row 2*oh + 1 to
// the next row, whose window row 0 it is.
// CHECK-LABEL: func.func @depthwise_nchw_strided(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x4x1x8x8xbf16>
// CHECK: %[[KEEP:.+]] = arith.constant dense<[false, true, true, true]> : vector<4xi1>
// CHECK: scf.forall (%[[G:.+]]) in (4)
// CHECK: %[[SLICE:.+]] = tensor.extract_slice
// CHECK: %[[INIT0:.+]] = vector.transfer_read %[[SLICE]][%c0, %c0, %c0, %c0, %c0]
// CHECK: %[[LO:.+]] = vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c0, %c0]{{.+}} : tensor<1x4x1x8x8xbf16>, vector<4xbf16>
// CHECK: %[[LOF:.+]] = arith.extf %[[LO]] : vector<4xbf16> to vector<4xf32>
// CHECK: %[[HI:.+]] = vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c0, %c4]{{.+}} : tensor<1x4x1x8x8xbf16>, vector<4xbf16>
// CHECK: %[[HIF:.+]] = arith.extf %[[HI]] : vector<4xbf16> to vector<4xf32>
// CHECK: %[[ODD:.+]] = vector.shuffle %[[LOF]], %[[HIF]] [0, 1, 3, 5]
// CHECK: %[[T0:.+]] = arith.select %[[KEEP]], %[[ODD]], %{{.+}}
// CHECK: vector.shuffle %[[LOF]], %[[HIF]] [0, 2, 4, 6]
// CHECK: vector.shuffle %[[LOF]], %[[HIF]] [1, 3, 5, 7]
// CHECK: vector.fma %[[T0]], %{{.+}}, %[[INIT0]] : vector<4xf32>
// CHECK: vector.transfer_read %[[X]][%c0, %[[G]], %c0, %c1, %c0]
// CHECK: scf.for %[[OH:.+]] = %c1 to %c4 step %c1 iter_args(%[[PLANE:.+]] = %{{.+}}, %[[C0:.+]] = %{{.+}}, %[[C1:.+]] = %{{.+}}, %[[C2:.+]] = %{{.+}})
// CHECK:   %[[INIT:.+]] = vector.transfer_read %[[PLANE]][%c0, %c0, %c0, %[[OH]], %c0]
// CHECK:   vector.fma %[[C0]], %{{.+}}, %[[INIT]] : vector<4xf32>
// CHECK:   %[[MID:.+]] = arith.muli %[[OH]], %c2
// CHECK:   vector.transfer_read %[[X]][%c0, %[[G]], %c0, %[[MID]], %c0]
// CHECK:   %[[BELOW:.+]] = arith.addi %[[MID]], %c1
// CHECK:   vector.transfer_read %[[X]][%c0, %[[G]], %c0, %[[BELOW]], %c0]
// CHECK:   %[[S:.+]] = vector.shuffle
// CHECK:   %[[N0:.+]] = arith.select %[[KEEP]], %[[S]]
// CHECK:   %[[N1:.+]] = vector.shuffle {{.+}} [0, 2, 4, 6]
// CHECK:   %[[N2:.+]] = vector.shuffle {{.+}} [1, 3, 5, 7]
// CHECK:   %[[W:.+]] = vector.transfer_write {{.+}} : vector<4xf32>, tensor<1x1x1x4x4xf32>
// CHECK:   scf.yield %[[W]], %[[N0]], %[[N1]], %[[N2]]

#dws_in = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, c, oh * 2 + kh, ow * 2 + kw)>
#dws_fil = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (g, m, c, kh, kw)>
#dws_out = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>

func.func @depthwise_nchw_strided(%x: tensor<1x4x1x8x8xbf16>, %w: tensor<4x1x1x3x3xbf16>, %acc: tensor<1x4x1x4x4xf32>) -> tensor<1x4x1x4x4xf32> {
  %zero = arith.constant 0.0 : bf16
  %padded = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : bf16
  } : tensor<1x4x1x8x8xbf16> to tensor<1x4x1x10x10xbf16>
  %r = linalg.generic {indexing_maps = [#dws_in, #dws_fil, #dws_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x4x1x10x10xbf16>, tensor<4x1x1x3x3xbf16>) outs(%acc : tensor<1x4x1x4x4xf32>) {
  ^bb0(%i: bf16, %f: bf16, %o: f32):
    %ie = arith.extf %i : bf16 to f32
    %fe = arith.extf %f : bf16 to f32
    %m = arith.mulf %ie, %fe : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x1x4x4xf32>
  return %r : tensor<1x4x1x4x4xf32>
}

// -----

// A batch-1 channels-first weight gradient has the shape of a plane
// convolution whose window is the output gradient's 6x6 plane and whose
// output planes are 3x3 filters. The window is larger than the output
// plane: it is no filter, and the general schedule (a contraction over
// the rows of the gradient) is kept.
// CHECK-LABEL: func.func @weight_gradient_nchw
// CHECK-NOT: scf.if
// CHECK: vector.contract
// CHECK-NOT: scf.if
// CHECK: return

#wg_x = affine_map<(g, k, c, kh, kw, n, oh, ow) -> (n, g, c, oh + kh, ow + kw)>
#wg_dy = affine_map<(g, k, c, kh, kw, n, oh, ow) -> (n, g, k, oh, ow)>
#wg_dw = affine_map<(g, k, c, kh, kw, n, oh, ow) -> (g, k, c, kh, kw)>

func.func @weight_gradient_nchw(%x: tensor<1x1x16x8x8xf32>, %dy: tensor<1x1x16x6x6xf32>, %acc: tensor<1x16x16x3x3xf32>) -> tensor<1x16x16x3x3xf32> {
  %r = linalg.generic {indexing_maps = [#wg_x, #wg_dy, #wg_dw], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %dy : tensor<1x1x16x8x8xf32>, tensor<1x1x16x6x6xf32>) outs(%acc : tensor<1x16x16x3x3xf32>) {
  ^bb0(%i: f32, %d: f32, %o: f32):
    %m = arith.mulf %i, %d : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x16x16x3x3xf32>
  return %r : tensor<1x16x16x3x3xf32>
}

// -----

// A channels-last depthwise convolution with its channel multiplier (1)
// as a unit dim after the channels, as MIOpen's NHWC layouts give it: the
// 16 channels are one register, and each position's register is written
// as one vector<16> into the row's plane with the unit dim collapsed (a
// write along the channels through the unit dim became a vector<16x1>
// write: 16 scalar stores).
// DWROWS-LABEL: func.func @depthwise_rows_multiplier(
// DWROWS: scf.for %[[OH:.+]] = %c0 to %c4 step %c1 iter_args(%[[PLANE:.+]] =
// DWROWS: %[[FLAT:.+]] = tensor.collapse_shape %[[PLANE]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x4x8x16x1xf32> into tensor<1x4x8x16xf32>
// DWROWS: vector.transfer_write %{{.+}}, %[[FLAT]][%c0, %[[OH]], %c0, %c0] {in_bounds = [true]} : vector<16xf32>, tensor<1x4x8x16xf32>
// DWROWS: %[[LAST:.+]] = vector.transfer_write %{{.+}}[%c0, %[[OH]], %c7, %c0] {in_bounds = [true]} : vector<16xf32>, tensor<1x4x8x16xf32>
// DWROWS: tensor.expand_shape %[[LAST]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 8, 16, 1]
#dwm_in = affine_map<(n, oh, ow, g, m, kh, kw) -> (n, oh + kh, ow + kw, g)>
#dwm_fil = affine_map<(n, oh, ow, g, m, kh, kw) -> (kh, kw, g, m)>
#dwm_out = affine_map<(n, oh, ow, g, m, kh, kw) -> (n, oh, ow, g, m)>
#dwm_id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @depthwise_rows_multiplier(%x: tensor<1x6x10x16xf32>, %w: tensor<3x3x16x1xf32>) -> tensor<1x4x8x16x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x16x1xf32>
  %acc = linalg.generic {indexing_maps = [#dwm_id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x4x8x16x1xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x4x8x16x1xf32>
  %r = linalg.generic {indexing_maps = [#dwm_in, #dwm_fil, #dwm_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x10x16xf32>, tensor<3x3x16x1xf32>) outs(%acc : tensor<1x4x8x16x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x16x1xf32>
  return %r : tensor<1x4x8x16x1xf32>
}

// -----

// MIOpen's NHWC depthwise image has its input channel (1) as a unit dim
// after the groups: the image is collapsed once, and each column read is
// one vector<16> with no permutation map (through the unit dim it was a
// vector<16x1> read: a loop of 16 scalar loads that LLVM unrolled and
// vectorized; the 28x28x192 stride-2 layer compiled in 0.29 s, 0.13 s
// now).
// DWROWS-LABEL: func.func @depthwise_rows_unit_channel(
// DWROWS-SAME: %[[X:[a-z0-9]+]]: tensor<1x6x10x16x1xf32>
// DWROWS: %[[IMAGE:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x6x10x16x1xf32> into tensor<1x6x10x16xf32>
// DWROWS: scf.for
// DWROWS: vector.transfer_read %[[IMAGE]][%c0, %{{.+}}, %c0, %c0], %{{.+}} {in_bounds = [true]} : tensor<1x6x10x16xf32>, vector<16xf32>
// DWROWS-NOT: vector.transfer_read %[[X]]
// DWROWS: scf.yield
#dwu_in = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, oh + kh, ow + kw, g, c)>
#dwu_fil = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (g, m, kh, kw, c)>
#dwu_out = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, oh, ow, g, m)>
#dwu_id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @depthwise_rows_unit_channel(%x: tensor<1x6x10x16x1xf32>, %w: tensor<16x1x3x3x1xf32>) -> tensor<1x4x8x16x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x16x1xf32>
  %acc = linalg.generic {indexing_maps = [#dwu_id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x4x8x16x1xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x4x8x16x1xf32>
  %r = linalg.generic {indexing_maps = [#dwu_in, #dwu_fil, #dwu_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x6x10x16x1xf32>, tensor<16x1x3x3x1xf32>) outs(%acc : tensor<1x4x8x16x1xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x16x1xf32>
  return %r : tensor<1x4x8x16x1xf32>
}

// -----

#dwl_in = affine_map<(n, oh, ow, g, kh, kw) -> (n, oh + kh, ow + kw, g)>
#dwl_fil = affine_map<(n, oh, ow, g, kh, kw) -> (kh, kw, g)>
#dwl_out = affine_map<(n, oh, ow, g, kh, kw) -> (n, oh, ow, g)>
#dwl_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// A channels-last depthwise convolution with rows of 20 positions (over
// 16): depthwise-rows computes each row in two pieces of 10, one after the
// other in the row's loop, each with its 10 positions in registers: the
// first writes columns 0 to 9, the second 10 to 19. Column 9 of the image
// is read by both pieces (positions 8 and 9 of the first, 10 of the
// second).
// DWROWS-LABEL: func.func @depthwise_long_rows(
// DWROWS-NOT: linalg.generic
// DWROWS: scf.for %[[OH:.+]] = %c0 to %c4 step %c1 iter_args(%[[PLANE:.+]] =
// DWROWS: %[[W0:.+]] = vector.transfer_write %{{.+}}, %[[PLANE]][%c0, %[[OH]], %c0, %c0]
// DWROWS: %[[W9:.+]] = vector.transfer_write %{{.+}}, %{{.+}}[%c0, %[[OH]], %c9, %c0]
// DWROWS-NOT: vector.transfer_write
// DWROWS: vector.transfer_read %{{.+}}[%c0, %{{.+}}, %c9, %c0]
// DWROWS: vector.transfer_write %{{.+}}, %[[W9]][%c0, %[[OH]], %c10, %c0]
// DWROWS: %[[W19:.+]] = vector.transfer_write %{{.+}}, %{{.+}}[%c0, %[[OH]], %c19, %c0]
// DWROWS: scf.yield %[[W19]]
func.func @depthwise_long_rows(%x: tensor<1x4x20x8xf32>, %w: tensor<3x3x8xf32>) -> tensor<1x4x20x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x4x20x8xf32> to tensor<1x6x22x8xf32>
  %e = tensor.empty() : tensor<1x4x20x8xf32>
  %acc = linalg.generic {indexing_maps = [#dwl_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x4x20x8xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x4x20x8xf32>
  %r = linalg.generic {indexing_maps = [#dwl_in, #dwl_fil, #dwl_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%p, %w : tensor<1x6x22x8xf32>, tensor<3x3x8xf32>) outs(%acc : tensor<1x4x20x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x20x8xf32>
  return %r : tensor<1x4x20x8xf32>
}

// -----

// A channels-last convolution to 24 output channels (MobileNetV2's
// 96->24): its vector loop, no multiple of 16 lanes, is computed in two
// pieces of 16 (splitVectorLoop), channels 0-15 and 8-23, each from its
// own zeros with its own slice of the filter (reordered so that its
// output channels are contiguous); the second is inserted over the first
// at channel 8. Without the split the vector tile was 8 lanes.
// CHECK-LABEL: func.func @conv_nhwc_24_channels
// CHECK-SAME:    %[[X:.+]]: tensor<1x4x8x32xf32>, %[[W:.+]]: tensor<24x1x1x32xf32>
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<1x4x8x24xf32>
// CHECK:         %[[WL:.+]] = tensor.extract_slice %[[W]][0, 0, 0, 0] [16, 1, 1, 32]
// CHECK:         scf.forall
// CHECK:           tensor.extract_slice %[[WL]]
// CHECK:         %[[L:.+]] = scf.forall (%{{.+}}) in (4) {{.*}} -> (tensor<1x4x8x16xf32>)
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x16xf32> into vector<8x16xf32>
// CHECK:         %[[RL:.+]] = tensor.insert_slice %[[L]] into %[[E]][0, 0, 0, 0] [1, 4, 8, 16] [1, 1, 1, 1]
// CHECK:         %[[WT:.+]] = tensor.extract_slice %[[W]][8, 0, 0, 0] [16, 1, 1, 32]
// CHECK:         scf.forall
// CHECK:           tensor.extract_slice %[[WT]]
// CHECK:         %[[T:.+]] = scf.forall (%{{.+}}) in (4) {{.*}} -> (tensor<1x4x8x16xf32>)
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x16xf32> into vector<8x16xf32>
// CHECK:         %[[RT:.+]] = tensor.insert_slice %[[T]] into %[[RL]][0, 0, 0, 8] [1, 4, 8, 16] [1, 1, 1, 1]
// CHECK:         return %[[RT]]
// With split-vector-loops=false: tiles of 8 output channels, in 3 blocks.
// NOSPLIT-LABEL: func.func @conv_nhwc_24_channels
// NOSPLIT:         scf.forall (%{{.+}}, %{{.+}}) in (4, 3) {{.*}} -> (tensor<1x4x8x3x8xf32>)
// NOSPLIT:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x8xf32> into vector<8x8xf32>
#s_in = affine_map<(n, oh, ow, k, kh, kw, c) -> (n, oh + kh, ow + kw, c)>
#s_fil = affine_map<(n, oh, ow, k, kh, kw, c) -> (k, kh, kw, c)>
#s_out = affine_map<(n, oh, ow, k, kh, kw, c) -> (n, oh, ow, k)>
#s_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nhwc_24_channels(%x: tensor<1x4x8x32xf32>, %w: tensor<24x1x1x32xf32>) -> tensor<1x4x8x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x8x24xf32>
  %acc = linalg.generic {indexing_maps = [#s_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x4x8x24xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x4x8x24xf32>
  %0 = linalg.generic {indexing_maps = [#s_in, #s_fil, #s_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x8x32xf32>, tensor<24x1x1x32xf32>) outs(%acc : tensor<1x4x8x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x4x8x24xf32>
  return %0 : tensor<1x4x8x24xf32>
}

// -----

// Stride-2 output rows of 6 (half a register of 16 lanes) from image rows
// of 12 (one register, with zero lanes to spare) are computed two to a
// register: an scf.for over pairs of output rows (2 pairs of the 5 rows),
// the image rows of both read once each as one 16-lane register (zeros
// outside the image, an scf.if on the row; 5 rows, the first row's last
// window row being the second's first), each tap one shuffle of the
// two (lanes 0-5 from the first row's image row, 8-13 from the second's,
// every other lane lane 15: zero), each multiply-add 16 lanes, and the two
// rows written from the two halves. The last row is computed alone.
// CHECK-LABEL: func.func @depthwise_nchw_row_pairs(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<1x2x1x10x12xf32>
// CHECK: scf.forall (%[[G:.+]]) in (2)
// CHECK: scf.for %[[P:.+]] = %c0 to %c2 step %c1 iter_args(%[[PLANE:.+]] = %{{.+}}) -> (tensor<1x1x1x5x6xf32>)
// CHECK:   %[[OH:.+]] = arith.muli %[[P]], %c2
// CHECK:   %[[A:.+]] = scf.if %{{.+}} -> (vector<16xf32>) {
// CHECK:     vector.transfer_read %[[X]][%c0, %[[G]], %c0, %{{.+}}, %c0], %{{[a-z0-9_]+}} : tensor<1x2x1x10x12xf32>, vector<16xf32>
// CHECK:   %[[B:.+]] = scf.if %{{.+}} -> (vector<16xf32>) {
// CHECK:   %[[T:.+]] = vector.shuffle %[[A]], %[[B]] [15, 1, 3, 5, 7, 9, 15, 15, 15, 17, 19, 21, 23, 25, 15, 15]
// CHECK:   vector.fma %[[T]], %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK:   vector.shuffle %[[A]], %[[B]] [0, 2, 4, 6, 8, 10, 15, 15, 16, 18, 20, 22, 24, 26, 15, 15]
// CHECK:   vector.shuffle %[[A]], %[[B]] [1, 3, 5, 7, 9, 11, 15, 15, 17, 19, 21, 23, 25, 27, 15, 15]
// CHECK-COUNT-2: scf.if %{{.+}} -> (vector<16xf32>)
// CHECK:   vector.shuffle %[[B]], %{{.+}} [15, 1, 3, 5, 7, 9, 15, 15, 15, 17, 19, 21, 23, 25, 15, 15]
// CHECK-COUNT-3: vector.fma {{.+}} : vector<16xf32>
// CHECK:   %[[LOW:.+]] = vector.extract_strided_slice %{{.+}} {offsets = [0], sizes = [8], strides = [1]}
// CHECK:   %[[W0:.+]] = vector.transfer_write %[[LOW]], %[[PLANE]][%c0, %c0, %c0, %[[OH]], %c0] : vector<8xf32>
// CHECK:   %[[HIGH:.+]] = vector.extract_strided_slice %{{.+}} {offsets = [8], sizes = [8], strides = [1]}
// CHECK:   vector.transfer_write %[[HIGH]], %[[W0]][%c0, %c0, %c0, %{{.+}}, %c0] : vector<8xf32>
// CHECK:   scf.yield
// CHECK: vector.extract_strided_slice %{{.+}} {offsets = [0], sizes = [8], strides = [1]}
// CHECK: vector.transfer_write %{{.+}}[%c0, %c0, %c0, %c4, %c0] : vector<8xf32>
// CHECK-NOT: vector.transfer_write
// CHECK: tensor.parallel_insert_slice

#dwp_in = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, c, oh * 2 + kh, ow * 2 + kw)>
#dwp_fil = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (g, m, c, kh, kw)>
#dwp_out = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>
#dwp_id = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

func.func @depthwise_nchw_row_pairs(%x: tensor<1x2x1x10x12xf32>, %w: tensor<2x1x1x3x3xf32>) -> tensor<1x2x1x5x6xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 0, 1, 1] high[0, 0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index, %e: index):
    tensor.yield %zero : f32
  } : tensor<1x2x1x10x12xf32> to tensor<1x2x1x12x14xf32>
  %empty = tensor.empty() : tensor<1x2x1x5x6xf32>
  %fill = linalg.generic {indexing_maps = [#dwp_id], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} outs(%empty : tensor<1x2x1x5x6xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x2x1x5x6xf32>
  %r = linalg.generic {indexing_maps = [#dwp_in, #dwp_fil, #dwp_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %w : tensor<1x2x1x12x14xf32>, tensor<2x1x1x3x3xf32>) outs(%fill : tensor<1x2x1x5x6xf32>) {
  ^bb0(%i: f32, %f: f32, %o: f32):
    %m = arith.mulf %i, %f : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x2x1x5x6xf32>
  return %r : tensor<1x2x1x5x6xf32>
}

// -----

// A weight gradient copied back to KCYX (a transposing copy, contiguous
// along c in its input, along x in its output) is tiled 16 channels at a
// time with the 3x3 taps whole, the output dims after c holding 9
// elements: each tile reads 9 rows of 16 channels and writes 144
// contiguous floats, not 16 runs of 3 taps.
// CHECK-LABEL: func.func @weight_gradient_to_kcyx(
// CHECK: scf.forall (%[[K:.+]], %[[C:.+]]) = (0, 0) to (32, 32) step (1, 16)
// CHECK: %[[T:.+]] = vector.transfer_read %{{.+}} : tensor<3x3x16xf32>, vector<3x3x16xf32>
// CHECK: %[[R:.+]] = vector.transpose %[[T]], [2, 0, 1] : vector<3x3x16xf32> to vector<16x3x3xf32>
// CHECK: vector.transfer_write %[[R]], %{{.+}} : vector<16x3x3xf32>, tensor<16x3x3xf32>
// CHECK: tensor.parallel_insert_slice %{{.+}}[%[[K]], %[[C]], 0, 0] [1, 16, 3, 3]

#kyxc = affine_map<(k, c, y, x) -> (k, y, x, c)>
#kcyx = affine_map<(k, c, y, x) -> (k, c, y, x)>

func.func @weight_gradient_to_kcyx(%g: tensor<32x3x3x32xf32>) -> tensor<32x32x3x3xf32> {
  %e = tensor.empty() : tensor<32x32x3x3xf32>
  %r = linalg.generic {indexing_maps = [#kyxc, #kcyx], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g : tensor<32x3x3x32xf32>) outs(%e : tensor<32x32x3x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<32x32x3x3xf32>
  return %r : tensor<32x32x3x3xf32>
}

// -----

#in = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#fil = affine_map<(n, oh, ow, k, c, kh, kw) -> (kh, kw, c, k)>
#out = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh, ow, k)>

// The register tile fits accumulator-lanes. By default (256) it is 6 rows
// (ow: the largest divisor of 12 up to 8) of 32 output channels. An AVX2
// host's 96 lanes (12 of its 16 registers) take 6 rows of 16: 3 rows of 32
// hold as many and read 7 registers per step instead of 8, but their 12
// accumulators, the 4 registers of a filter row and a broadcast need 17
// registers (the 3x3 256->256 layer at 24x24 took 19 ms so on cpu:1, 7.6-13
// ms in 6 rows of 16). 48 lanes take 6 rows of 8 (3 of 16 would need 10
// registers of the 8 that 48 lanes are three quarters of).
// CHECK-LABEL: func.func @conv_nhwc_accumulator_budget
// CHECK:         vector.contract {{.*}} : vector<6x16xf32>, vector<16x32xf32> into vector<6x32xf32>
// ACC96-LABEL: func.func @conv_nhwc_accumulator_budget
// ACC96:         scf.forall ({{.*}}) = (0, 0, 0) to (12, 12, 64) step (1, 6, 16)
// ACC96:         vector.contract {{.*}} : vector<6x16xf32>, vector<16x16xf32> into vector<6x16xf32>
// ACC48-LABEL: func.func @conv_nhwc_accumulator_budget
// ACC48:         scf.forall ({{.*}}) = (0, 0, 0) to (12, 12, 64) step (1, 6, 8)
// ACC48:         vector.contract {{.*}} : vector<6x16xf32>, vector<16x8xf32> into vector<6x8xf32>
func.func @conv_nhwc_accumulator_budget(%x: tensor<1x14x14x16xf32>, %w: tensor<3x3x16x64xf32>, %acc: tensor<1x12x12x64xf32>) -> tensor<1x12x12x64xf32> {
  %0 = linalg.generic {indexing_maps = [#in, #fil, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x14x14x16xf32>, tensor<3x3x16x64xf32>) outs(%acc : tensor<1x12x12x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x12x12x64xf32>
  return %0 : tensor<1x12x12x64xf32>
}

// -----

// A matrix product's B, [K][N], read along N by 512 rows of M: each block of
// 32 columns is read by 64 row tiles, 128 bytes of each row of K (a power-of-
// two pitch puts them all in a few cache sets). Above pack-min-bytes it is a
// slab like a backward-data filter: blocked along N and copied blocks
// outermost, [N/32][K][32], each block packed in the forall iteration that
// reads it. With 256 rows (@matmul_no_slab below), a block is read by too
// few tiles to repay its copy: the tiles read B in place.
// PACK-LABEL: func.func @matmul_slab
// PACK-SAME:    %{{.+}}: tensor<512x64xf32>, %[[B:.+]]: tensor<64x256xf32>
// PACK:          %[[BB:.+]] = tensor.expand_shape %[[B]] {{.*}} into tensor<64x8x32xf32>
// PACK:          tensor.empty() : tensor<8x64x32xf32>
// PACK:          scf.forall (%[[I:.+]]) in (8) shared_outs
// PACK-NEXT:       tensor.extract_slice %[[BB]][0, %[[I]], 0] [64, 1, 32]
// PACK:            vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
// PACK:          tensor.collapse_shape %{{.+}} {{\[\[}}0], [1, 2]] : tensor<512x8x32xf32> into tensor<512x256xf32>
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_slab(%a: tensor<512x64xf32>, %b: tensor<64x256xf32>) -> tensor<512x256xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<512x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<512x256xf32>) -> tensor<512x256xf32>
  %r = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<512x64xf32>, tensor<64x256xf32>) outs(%acc : tensor<512x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<512x256xf32>
  return %r : tensor<512x256xf32>
}

// -----

// PACK-LABEL: func.func @matmul_no_slab
// PACK-NOT:      tensor.expand_shape
// PACK:          scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (256, 256) step (8, 32)
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_no_slab(%a: tensor<256x64xf32>, %b: tensor<64x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %r = linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<256x64xf32>, tensor<64x256xf32>) outs(%acc : tensor<256x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// A matrix product's A stored transposed, [K][M], read by 512 columns of N:
// each register tile would read 8 floats of every row of K. A is copied
// once, transposed ([M][K], 16x16 vector transposes), and the product reads
// the copy along K.
// CHECK-LABEL: func.func @matmul_transposed_lhs
// CHECK-SAME:    %[[A:.+]]: tensor<64x64xf32>, %{{.+}}: tensor<64x512xf32>
// CHECK:         %[[AT:.+]] = scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (64, 64) step (16, 16)
// CHECK:           vector.transpose %{{.+}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK:         scf.forall (%[[M:.+]], %{{.+}}) = (0, 0) to (64, 512) step (8, 32)
// CHECK:           tensor.extract_slice %[[AT]][%[[M]], 0] [8, 64]
// CHECK:           vector.contract {{.*}} : vector<8x16xf32>, vector<16x32xf32> into vector<8x32xf32>
#mm_at = affine_map<(m, n, k) -> (k, m)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_transposed_lhs(%a: tensor<64x64xf32>, %b: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r = linalg.generic {indexing_maps = [#mm_at, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<64x64xf32>, tensor<64x512xf32>) outs(%acc : tensor<64x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}

// -----

// An f64 product's tiles count f64 lanes: half as many per register as
// f32's. With an AVX2 host's 96 f32 accumulator lanes (12 registers) an
// f32 product takes 6 rows of 16 lanes; an f64 one 6 rows of 8 (the same
// 12 registers of 4 f64 lanes).
// ACC96-LABEL: func.func @matmul_f64
// ACC96:         scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (48, 64) step (6, 8)
// ACC96:           vector.contract {{.*}} : vector<6x16xf64>, vector<16x8xf64> into vector<6x8xf64>
#f64_a = affine_map<(m, n, k) -> (m, k)>
#f64_b = affine_map<(m, n, k) -> (k, n)>
#f64_c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_f64(%a: tensor<48x64xf64>, %b: tensor<64x64xf64>) -> tensor<48x64xf64> {
  %zero = arith.constant 0.000000e+00 : f64
  %e = tensor.empty() : tensor<48x64xf64>
  %acc = linalg.fill ins(%zero : f64) outs(%e : tensor<48x64xf64>) -> tensor<48x64xf64>
  %r = linalg.generic {indexing_maps = [#f64_a, #f64_b, #f64_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<48x64xf64>, tensor<64x64xf64>) outs(%acc : tensor<48x64xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %o, %p : f64
    linalg.yield %s : f64
  } -> tensor<48x64xf64>
  return %r : tensor<48x64xf64>
}

// -----

// An NHWC 1x1 convolution whose 15 positions share each output channel's
// filter row: dot products along the 256 input channels (16 registers),
// the filter read in place. Tiles of 5 rows (a whole output row) by 4
// columns; the forall runs over the 3 column tiles; each row's 4 columns'
// partial sums are added across lanes by shuffles, one vector<4> written.
// DOT-LABEL: func.func @conv_nhwc_1x1_dot
// DOT-NOT:     linalg.generic
// DOT:         scf.forall (%[[K:.+]]) in (3)
// DOT:           %[[K0:.+]] = arith.muli %[[K]], %c4
// DOT:           tensor.extract_slice %{{.+}}[0, 0, 0, %[[K0]]] [1, 3, 5, 4] [1, 1, 1, 1]
// DOT:           scf.for %[[OH:.+]] = %c0 to %c3 step %c1
// DOT:             scf.for %[[C:.+]] = %c0 to %c256 step %c16 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// DOT-COUNT-4:       vector.transfer_read %{{.+}}[{{.+}}, %c0, %c0, %[[C]]]{{.*}} : tensor<12x1x1x256xf32>, vector<16xf32>
// DOT:               vector.transfer_read %{{.+}}[%c0, %[[OH]], %c0, %[[C]]]{{.*}} : tensor<1x3x5x256xf32>, vector<16xf32>
// DOT-COUNT-4:       vector.fma
// DOT:             vector.shuffle
// DOT:             vector.transfer_write %{{.+}}, %{{.+}}[%c0, %[[OH]], %c0, %c0] {in_bounds = [true]} : vector<4xf32>, tensor<1x3x5x4xf32>
// DOT:         tensor.parallel_insert_slice
// DOT-NOT:     vector.contract
// DOT:         return
// Without dot-max-rows: the filter is copied with the output channels
// innermost, and the tiles are vector contractions.
// NODOT-LABEL: func.func @conv_nhwc_1x1_dot
// NODOT-NOT:     vector.shuffle
// NODOT:         vector.contract
#m_in = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#m_fil = affine_map<(n, oh, ow, k, c, kh, kw) -> (k, kh, kw, c)>
#m_out = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh, ow, k)>
#m_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nhwc_1x1_dot(%x: tensor<1x3x5x256xf32>, %w: tensor<12x1x1x256xf32>) -> tensor<1x3x5x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x5x12xf32>
  %acc = linalg.generic {indexing_maps = [#m_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x3x5x12xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x3x5x12xf32>
  %0 = linalg.generic {indexing_maps = [#m_in, #m_fil, #m_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x5x256xf32>, tensor<12x1x1x256xf32>) outs(%acc : tensor<1x3x5x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x5x12xf32>
  return %0 : tensor<1x3x5x12xf32>
}

// -----

// The same channels-first (NCHW image, KCYX filter): the image is copied
// with its channels innermost (a transposing generic, tiled like the
// other copies), the filter's trailing unit dims are collapsed, and the
// sums are added along the rows: one vector<5> per output channel,
// written along the output's rows.
// DOT-LABEL: func.func @conv_nchw_1x1_dot
// DOT:         scf.forall
// DOT:           vector.transfer_read {{.*}} : tensor<16x5xf32>, vector<16x5xf32>
// DOT:           vector.transfer_write {{.*}} : vector<5x16xf32>, tensor<5x16xf32>
// DOT:         tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2, 3]] : tensor<12x256x1x1xf32> into tensor<12x256xf32>
// DOT:         scf.forall (%{{.+}}) in (3)
// DOT:           scf.for %{{.+}} = %c0 to %c256 step %c16
// DOT-COUNT-4:     vector.transfer_read {{.*}} : tensor<12x256xf32>, vector<16xf32>
// DOT:             vector.transfer_read {{.*}} : tensor<1x3x5x256xf32>, vector<16xf32>
// DOT-COUNT-4:       vector.transfer_write %{{.+}}, %{{.+}} {in_bounds = [true]} : vector<5xf32>, tensor<1x4x3x5xf32>
// DOT:         return
#m_in = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#m_fil = affine_map<(n, k, oh, ow, c, kh, kw) -> (k, c, kh, kw)>
#m_out = affine_map<(n, k, oh, ow, c, kh, kw) -> (n, k, oh, ow)>
#m_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nchw_1x1_dot(%x: tensor<1x256x3x5xf32>, %w: tensor<12x256x1x1xf32>) -> tensor<1x12x3x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x12x3x5xf32>
  %acc = linalg.generic {indexing_maps = [#m_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x12x3x5xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x12x3x5xf32>
  %0 = linalg.generic {indexing_maps = [#m_in, #m_fil, #m_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x256x3x5xf32>, tensor<12x256x1x1xf32>) outs(%acc : tensor<1x12x3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x12x3x5xf32>
  return %0 : tensor<1x12x3x5xf32>
}

// -----

// A product A * B^T (B stored [N][K], a linear layer's weight) of 6 rows
// accumulating into its argument: each tile reads its outputs' initial
// values and adds the sums to them. Either input reads the reduction
// innermost; B, the larger, is the columns' (read from memory once): 10
// tiles of 4 columns, each 6 rows.
// DOT-LABEL: func.func @matmul_transposed_b_dot
// DOT:         scf.forall (%{{.+}}) in (10)
// DOT:           scf.for %{{.+}} = %c0 to %c512 step %c16
// DOT:           %[[OLD:.+]] = vector.transfer_read {{.*}} : tensor<6x4xf32>, vector<4xf32>
// DOT:           arith.addf %[[OLD]], %{{.+}} : vector<4xf32>
// DOT:         return
#m_a = affine_map<(m, n, k) -> (m, k)>
#m_b = affine_map<(m, n, k) -> (n, k)>
#m_c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_transposed_b_dot(%a: tensor<6x512xf32>, %b: tensor<40x512xf32>, %c: tensor<6x40xf32>) -> tensor<6x40xf32> {
  %0 = linalg.generic {indexing_maps = [#m_a, #m_b, #m_c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<6x512xf32>, tensor<40x512xf32>) outs(%c : tensor<6x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<6x40xf32>
  return %0 : tensor<6x40xf32>
}

// -----

// 128 input channels are 8 registers: the lanes' additions would cost
// more than the filter's copy saves; the general schedule.
// DOT-LABEL: func.func @conv_nhwc_1x1_shallow
// DOT-NOT:     vector.shuffle
// DOT:         vector.contract
// DOT:         return
#m_in = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh + kh, ow + kw, c)>
#m_fil = affine_map<(n, oh, ow, k, c, kh, kw) -> (k, kh, kw, c)>
#m_out = affine_map<(n, oh, ow, k, c, kh, kw) -> (n, oh, ow, k)>
#m_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_nhwc_1x1_shallow(%x: tensor<1x3x5x128xf32>, %w: tensor<12x1x1x128xf32>) -> tensor<1x3x5x12xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x5x12xf32>
  %acc = linalg.generic {indexing_maps = [#m_id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e : tensor<1x3x5x12xf32>) {
  ^bb0(%o: f32):
    linalg.yield %zero : f32
  } -> tensor<1x3x5x12xf32>
  %0 = linalg.generic {indexing_maps = [#m_in, #m_fil, #m_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x3x5x128xf32>, tensor<12x1x1x128xf32>) outs(%acc : tensor<1x3x5x12xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x3x5x12xf32>
  return %0 : tensor<1x3x5x12xf32>
}
