//===- MIOpenImport.h - MIOpenDriver command lines to Boo MLIR --*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Turns one MIOpenDriver command line (as MIOpen logs it and as IREE BOO's
// driver reads it), e.g.
//
//   MIOpenDriver convbfp16 -n 2 -c 8 -H 9 -W 9 -k 16 -y 3 -x 3 -p 1 -q 1
//                -u 2 -v 2 -g 2 -F 1 --in_layout NHWC --fil_layout NHWC
//                --out_layout NHWC
//
// into a module holding one public func.func that computes that problem with
// Boo ops. Parsing (the flag tables, MIOpen's defaults and checks) and MLIR
// building are separate steps so that tools which need the problem but not
// the IR (benchmarks, numerics references) can reuse the parser.
//
// See docs/MIOpenImport.md for the flags, the function names and the argument
// order.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_IMPORT_MIOPENIMPORT_H
#define BOO_IMPORT_MIOPENIMPORT_H

#include "Boo/Dialect/Boo/IR/ConvGeometry.h"
#include "Boo/ElementType.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <variant>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlir::boo {

/// A convolution problem (base args `conv`, `convfp16`, `convbfp16`).
struct MIOpenConvProblem {
  /// The element type MIOpenDriver's base argument selects: `conv` f32,
  /// `convfp16` f16, `convbfp16` bf16.
  ElementType dataType = ElementType::F32;
  /// Sizes, strides, dilations, (symmetric) padding and layout permutations,
  /// with the padding that `--pad_mode` implies already applied.
  ConvGeometry geometry;
  /// The layouts as the command spells them (upper-cased, MIOpen's defaults
  /// filled in). Filter layouts use MIOpen's activation letters, e.g. "NHWC"
  /// for K, Y, X, C.
  std::string inputLayout, filterLayout, outputLayout;
  /// MIOpen's `-F` bits: 1 forward, 2 backward data, 4 backward weight,
  /// 6 backward data and weight. Nothing else is accepted by the parser.
  int64_t direction = 1;
  /// `-b`: a bias operand (forward) or a bias gradient result (backward).
  bool bias = false;
};

/// A layer normalization problem (base args `layernorm`, `layernormfp16`,
/// `layernormbfp16`).
struct MIOpenLayerNormProblem {
  /// `layernorm` f32, `layernormfp16` f16, `layernormbfp16` bf16.
  ElementType dataType = ElementType::F32;
  /// `--input`/`-X`, outermost dim first.
  SmallVector<int64_t> shape;
  /// `--normalized_dim`/`-o`: dims from this index on are normalized.
  int64_t normalizedDim = 0;
  float epsilon = 1e-5f;
  /// `--mode`/`-m` 1 (MIOPEN_WEIGHT_BIAS): learnable weight and bias. Mode 0
  /// (MIOPEN_ELEMENTWISE_AFFINE) means weight 1 and bias 0, i.e. none.
  bool weightAndBias = false;
  /// `-F` as IREE BOO defines it: 1 forward, 2 input gradient, 4 weight
  /// gradient, 8 bias gradient, 14 all three.
  int64_t direction = 1;

  int64_t getNormalizedRank() const {
    return static_cast<int64_t>(shape.size()) - normalizedDim;
  }
};

/// A matrix product (base args `gemm`, `gemmfp16` and Boo's `gemmbfp16`),
/// with MIOpenDriver's meaning of the flags (driver/gemm_driver.hpp):
/// `C = alpha * op(A) op(B) + beta * C` with op(A) M x K, op(B) K x N. IREE
/// BOO's `aten::mm`, `aten::bmm` and `aten::addmm` commands are products
/// too (AtenCommand.cpp).
struct MIOpenGemmProblem {
  /// `gemm` f32, `gemmfp16` f16, `gemmbfp16` bf16.
  ElementType dataType = ElementType::F32;
  /// `--batch_count`/`-b`: above 1, that many independent products of
  /// packed consecutive matrices (3-D tensors, as `aten::bmm`'s always are).
  int64_t batch = 1;
  bool batched = false;
  /// `--a_h`/`-m`, `--b_w`/`-n` and `--a_w`/`-k`.
  int64_t m = 256, n = 256, k = 256;
  /// `--transA`/`-u`, `--transB`/`-v`: A is stored K x M, B is stored N x K.
  bool transposeA = false, transposeB = false;
  /// `--alpha`/`-A` and `--beta`/`-B`; a non-zero beta makes C an input.
  double alpha = 1.0, beta = 0.0;
  /// `-F` as IREE BOO defines it: 1 the product, 2 the gradient of A
  /// (from C's gradient and B), 3 the gradient of B (from C's and A).
  int64_t direction = 1;
  /// The `aten::` op this came from ("mm", "bmm", "addmm"), or empty for a
  /// gemm command. An aten op's arguments are named and ordered as its
  /// schema: (self, mat2), and addmm's (self, mat1, mat2) with self as C.
  std::string atenOp;
  /// addmm's `self` as given, which broadcasts to C (NumPy's rules); unset:
  /// C's own shape.
  std::optional<SmallVector<int64_t>> cShape;
  /// An aten operand (A or B) with strides that are neither row- nor
  /// column-major (gaps, overlaps, a padded leading dim): its strides, in
  /// elements. Its argument is then the storage the strides reach from the
  /// first element (getStorageSize elements), read through boo.as_strided;
  /// empty for a dense operand.
  SmallVector<int64_t> stridesA, stridesB;

  bool isBatched() const { return batched; }
  /// Whether C is an argument: a non-zero beta, or addmm's self (which a
  /// zero beta ignores, NaNs included, as PyTorch does).
  bool hasInputC() const {
    return direction == 1 && (atenOp == "addmm" || beta != 0.0);
  }
  /// The signature's names of A, B and C: a, b, c, or aten's.
  StringRef getNameA() const;
  StringRef getNameB() const;
  StringRef getNameC() const;
  /// The one product the function computes, in the stored layouts: its
  /// result (row-major) is `lhs` times `rhs`, each transposed or not, both
  /// named by the signature's argument names. The gradients are products
  /// too: dA = dC op(B)^T (stored transposed: op(B) dC^T) and
  /// dB = op(A)^T dC (stored transposed: dC^T op(A)).
  struct Product {
    StringRef lhs, rhs;
    bool transposeLhs, transposeRhs;
  };
  Product getProduct() const;
  /// The shapes of A, B and C as stored ([batch,] rows, columns); C's is
  /// that of the result (an input C may be `cShape`).
  SmallVector<int64_t> getShapeA() const;
  SmallVector<int64_t> getShapeB() const;
  SmallVector<int64_t> getShapeC() const;
};

/// The elements a tensor of `shape` with `strides` reaches from its first:
/// 1 + sum((shape[i] - 1) * strides[i]).
int64_t getStorageSize(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides);

/// A batch normalization problem (base args `bnorm`, `bnormfp16`,
/// `bnormfp16fp32`, `bnormbfp16fp32` and IREE BOO's `bnormbfp16`), with
/// MIOpenDriver's meaning of the flags (driver/bn_driver.hpp). The
/// statistics are PyTorch's: epsilon 1e-5, momentum 0.1, running variance
/// unbiased (docs/MIOpenImport.md says where MIOpenDriver's test harness
/// differs).
struct MIOpenBatchNormProblem {
  /// The element type of x, y, dy and dx.
  ElementType dataType = ElementType::F32;
  /// The type of weight, bias and their gradients (MIOpenDriver's Tgpu,
  /// except IREE BOO's `bnormbfp16`, whose parameters are f32).
  ElementType paramType = ElementType::F32;
  /// The type of the running and saved statistics (MIOpenDriver's Tmix).
  ElementType statType = ElementType::F32;
  /// x as stored, outermost first (the layout's order), e.g. N, H, W, C.
  SmallVector<int64_t> shape;
  /// `--layout`/`-L`, upper-cased: NCHW, NHWC, NCDHW or NDHWC.
  std::string layout;
  /// `--mode`/`-m`: 1 spatial (statistics per channel, over N and the
  /// spatial dims), 0 per-activation (per element of a sample, over N).
  bool spatial = false;
  /// `--forw`/`-F` 1 training, 2 inference; `--back`/`-b` 1 backward.
  enum class Direction { Training, Inference, Backward };
  Direction direction = Direction::Training;
  /// `--save`/`-s`: training returns the batch mean and inverse standard
  /// deviation; backward takes them (without it, recomputes them from x).
  bool save = false;
  /// `--run`/`-r`: training takes and returns the running mean and
  /// variance; inference normalizes with them (without it, with the
  /// batch's statistics).
  bool run = false;
  float epsilon = 1e-5f;
  float momentum = 0.1f;

  /// The dims of x the statistics keep (the channel, or all but N), in
  /// x's order; every other dim is reduced.
  SmallVector<int64_t> getFeatureDims() const;
  /// x's shape at the feature dims: the shape of weight, bias and the
  /// statistics.
  SmallVector<int64_t> getStatShape() const;
  /// The number of values each statistic is taken over.
  int64_t getReductionSize() const;
  /// Whether the normalization uses the batch's statistics.
  bool usesBatchStats() const {
    return direction != Direction::Inference || !run;
  }
};

/// IREE BOO's `aten::argmax` and `aten::argmin` (AtenCommand.cpp): the
/// index (i64) of the maximum (minimum) of `self` along `dim`, or of all of
/// it (row-major), ties to the first index, as PyTorch's.
struct MIOpenArgReduceProblem {
  ElementType dataType = ElementType::F32;
  /// self's shape (dense, row-major).
  SmallVector<int64_t> shape;
  /// In [0, rank); unset: over all of self.
  std::optional<int64_t> dim;
  bool keepdim = false;
  /// argmax (true) or argmin.
  bool isMax = true;

  /// The result's shape: self's without the reduced dims (1s under
  /// keepdim).
  SmallVector<int64_t> getResultShape() const;
};

using MIOpenProblem =
    std::variant<MIOpenConvProblem, MIOpenLayerNormProblem, MIOpenGemmProblem,
                 MIOpenBatchNormProblem, MIOpenArgReduceProblem>;

/// Parses one MIOpenDriver command line. The leading `MIOpenDriver` word (or
/// any path whose file name is `MIOpenDriver`) is optional; quotes are
/// respected. On failure returns failure and sets `error` to one message that
/// names the offending flag, e.g.
/// "--in_channels (-c): expected an integer, got 'abc'".
FailureOr<MIOpenProblem> parseMIOpenCommand(StringRef command,
                                            std::string &error);

/// Builds and verifies the module for a parsed problem.
FailureOr<OwningOpRef<ModuleOp>> buildMIOpenModule(MLIRContext *ctx,
                                                   const MIOpenProblem &problem,
                                                   std::string &error);

/// parseMIOpenCommand followed by buildMIOpenModule.
FailureOr<OwningOpRef<ModuleOp>>
importMIOpenCommand(MLIRContext *ctx, StringRef command, std::string &error);

} // namespace mlir::boo

#endif // BOO_IMPORT_MIOPENIMPORT_H
