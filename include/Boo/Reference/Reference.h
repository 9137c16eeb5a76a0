//===- Reference.h - Independent numerics reference -------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A plain C++ reference for every Boo op, used to check the compiler's
// numerics: by the numerics sweeps (unittests/Numerics) and by the drivers'
// `--verify` (Boo/Harness/Verify.h). It deliberately depends on nothing in Boo
// or MLIR, only on the C++ standard library: it parses layout strings
// itself, computes in double with naive loops, and encodes f16/bf16 itself.
// If it shared code with the compiler (ConvGeometry, the runner's HostTensor
// conversions), a bug in that code would cancel out.
//
// The backward convolutions are written as the adjoint (scatter) of the
// forward definition, not as transposed convolutions: for every term
// `in[i] * filter[f]` that contributes to `out[o]`, bwd-data accumulates
// `dout[o] * filter[f]` into `din[i]` and bwd-weight accumulates
// `dout[o] * in[i]` into `dfilter[f]`.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_REFERENCE_REFERENCE_H
#define BOO_REFERENCE_REFERENCE_H

#include "boo/ElementType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace boo::ref {

//===----------------------------------------------------------------------===//
// Tensors and storage types
//===----------------------------------------------------------------------===//

int64_t product(const std::vector<int64_t> &values);

/// A dense, row-major tensor of doubles.
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> data;

  Tensor() = default;
  explicit Tensor(std::vector<int64_t> shape, double fill = 0.0);
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

// The storage types are boo::ElementType's float types (boo/ElementType.h);
// the functions below take f32, f16, bf16 and f64, and assert on the integer
// types.

/// Unit roundoff u = 2^-p of round-to-nearest (p = 24, 11, 8, 53): a rounded
/// normal value is within u * |v| of v.
double unitRoundoff(ElementType type);
/// Half the spacing of the subnormals: the absolute error of rounding a
/// value near zero.
double subnormalHalfSpacing(ElementType type);
/// Rounds `v` to the nearest value of `type` (ties to even), overflowing to
/// infinity as IEEE does.
double roundTo(double v, ElementType type);
/// The little-endian bit pattern of `v`, which must be representable in
/// `type` (call roundTo first), in the low getElementSize(type) bytes. bf16
/// is the upper half of an IEEE f32.
uint64_t encode(double v, ElementType type);
/// Inverse of `encode`.
double decode(uint64_t bits, ElementType type);

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

enum class LayoutRole { Activation, Filter };

/// Parses a layout string for a tensor with `spatialRank` spatial dims. On
/// success fills `perm`, where `perm[i]` is the position in the tensor of
/// canonical dim `i`. Canonical order is (N, C, spatial...) for activations
/// and (K, C, spatial...) for filters, spatial dims outermost first
/// (D, H, W). Activations spell their dims N, C, D, H, W (1-D: W; 2-D: H W);
/// filters spell them K (or F, or N as MIOpen does), C, and Z/Y/X (or D/H/W).
bool parseLayout(const std::string &layout, LayoutRole role, int spatialRank,
                 std::vector<int> &perm, std::string &error);

/// NCW / NCHW / NCDHW, or KCX / KCYX / KCZYX.
std::string defaultLayout(LayoutRole role, int spatialRank);

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// A convolution problem. Sizes are given in canonical order; the layout
/// strings only say how each tensor is stored.
struct ConvProblem {
  int spatialRank = 2;
  int64_t batch = 1;
  int64_t inChannels = 1;  // C, over all groups
  int64_t outChannels = 1; // K, over all groups
  int64_t groups = 1;
  std::vector<int64_t> inSpatial;     // (D,) (H,) W
  std::vector<int64_t> filterSpatial; // (Z,) (Y,) X
  std::vector<int64_t> strides, dilations, padLow, padHigh;
  std::string inputLayout, filterLayout, outputLayout;

  /// A problem with the given spatial rank and every attribute at its
  /// default (stride 1, dilation 1, no padding, NC.../KC... layouts).
  static ConvProblem withDefaults(int spatialRank);

  /// (in + padLow + padHigh - dilation * (filter - 1) - 1) / stride + 1.
  std::vector<int64_t> outSpatial() const;
  /// Shapes in the layouts of this problem.
  std::vector<int64_t> inputShape() const;
  std::vector<int64_t> filterShape() const;
  std::vector<int64_t> outputShape() const;
  /// Checks sizes, divisibility by groups, layouts and that the output is
  /// non-empty.
  bool validate(std::string &error) const;
  /// One line, e.g. "2-D N=2 C=8 K=16 G=2 in=9x9 fil=3x3 ...".
  std::string describe() const;
};

/// out[n, k, o] = bias[k] + sum_{c, f} in[n, g*C/G + c, o*s + f*d - padLow]
///                                     * filter[k, c, f]
/// with out-of-range input positions reading zero. `bias` may be null.
Tensor convForward(const ConvProblem &p, const Tensor &input,
                   const Tensor &filter, const Tensor *bias);
/// The adjoint of convForward with respect to `input`.
Tensor convBackwardData(const ConvProblem &p, const Tensor &gradOutput,
                        const Tensor &filter);
/// The adjoint of convForward with respect to `filter`.
Tensor convBackwardWeight(const ConvProblem &p, const Tensor &gradOutput,
                          const Tensor &input);
/// grad_bias[k] = sum of gradOutput over every dim but `channelDim`.
Tensor convBackwardBias(const Tensor &gradOutput, int channelDim);

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

struct LayerNormResult {
  Tensor y, mean, rstd;
};

/// Normalizes over the trailing `normalizedRank` dims of `x`; `weight` and
/// `bias` (shape of those dims) may be null.
LayerNormResult layerNormForward(const Tensor &x, int normalizedRank,
                                 const Tensor *weight, const Tensor *bias,
                                 double epsilon);

struct LayerNormGrads {
  Tensor dx, dweight, dbias;
};

/// The gradients of layerNormForward, given the forward's `mean` and `rstd`
/// (used as given, not recomputed). `weight` may be null (ones).
LayerNormGrads layerNormBackward(const Tensor &dy, const Tensor &x,
                                 const Tensor &mean, const Tensor &rstd,
                                 const Tensor *weight, int normalizedRank);

//===----------------------------------------------------------------------===//
// Batch norm
//===----------------------------------------------------------------------===//

// A batch norm keeps the dims `featureDims` of x (ascending; e.g. {1} for
// the channel of NCHW, {1, 2, 3} for an NCHW per-activation norm) and
// reduces every other dim. Weight, bias and the statistics have the shape of
// x at the feature dims; M is the number of elements each feature reduces.

struct BatchNormResult {
  /// y, and the mean and rstd = 1 / sqrt(var + epsilon) it normalized with.
  Tensor y, mean, rstd;
  /// Training with running statistics: (1 - momentum) * running +
  /// momentum * batch, the variance unbiased (var * M / (M - 1); the biased
  /// one when M is 1). Otherwise default-constructed (no elements).
  Tensor newRunningMean, newRunningVar;
};

/// PyTorch's batch_norm. Training, or inference without running statistics:
/// the batch's mean and biased variance (two passes, in double). Inference
/// with running statistics: `runningMean` and `runningVar`. Then
/// y = (x - mean) * rstd * weight + bias. `runningMean` and `runningVar` are
/// both null or both given.
BatchNormResult batchNormForward(const Tensor &x,
                                 const std::vector<int> &featureDims,
                                 const Tensor &weight, const Tensor &bias,
                                 const Tensor *runningMean,
                                 const Tensor *runningVar, bool training,
                                 double epsilon, double momentum);

struct BatchNormGrads {
  Tensor dx, dweight, dbias;
};

/// The gradients of a training batchNormForward, given the forward's `mean`
/// and `rstd` (used as given, not recomputed): with xhat = (x - mean) *
/// rstd, dbias = sum(dy), dweight = sum(dy * xhat) and dx = weight * rstd *
/// (dy - dbias / M - xhat * dweight / M).
BatchNormGrads batchNormBackward(const Tensor &dy, const Tensor &x,
                                 const Tensor &mean, const Tensor &rstd,
                                 const Tensor &weight,
                                 const std::vector<int> &featureDims);

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// out[b, m, n] = alpha * sum_k A[b, m, k] * B[b, k, n] + beta * bias[...]
/// for 2-D (no b) or 3-D operands of one batch, where A is `lhs` ([B,] M, K)
/// or, with `transposeLhs`, its transpose (`lhs` is [B,] K, M), and B is
/// `rhs` ([B,] K, N) or its transpose. `bias` may be null; otherwise it
/// broadcasts to the result NumPy-style (trailing dims aligned, each of its
/// dims 1 or the result's).
Tensor matmul(const Tensor &lhs, const Tensor &rhs, bool transposeLhs,
              bool transposeRhs, double alpha, const Tensor *bias,
              double beta);

//===----------------------------------------------------------------------===//
// Arg-reductions
//===----------------------------------------------------------------------===//

/// PyTorch's argmax (`isMax`) or argmin: for each slice of `x` along `dim`
/// (or, with no dim, the whole of `x` read row-major), the index in that
/// slice of its largest (smallest) value, as a double. Ties give the first
/// index; NaN beats every number for both (the first NaN's index wins);
/// -0 and +0 tie. The result has x's shape without `dim` (every dim when
/// unset), or with a 1 in its place under `keepdim`.
Tensor argReduce(const Tensor &x, std::optional<int> dim, bool keepdim,
                 bool isMax);

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

enum class Activation {
  Relu,
  Sigmoid,
  Tanh,
  Gelu,
  GeluTanh,
  Silu,
  LeakyRelu,
  Clamp
};
constexpr int kNumActivations = 8;

/// The Boo spelling: "relu", ..., "leaky_relu", "clamp".
const char *activationName(Activation kind);

struct ActivationParams {
  double alpha = 0.0;          // leaky_relu
  double min = 0.0, max = 0.0; // clamp
};

double applyActivation(Activation kind, double x, const ActivationParams &p);
Tensor activation(Activation kind, const Tensor &x, const ActivationParams &p);

enum class BinaryKind { Add, Mul };

/// Element-wise lhs (op) rhs. With `channelDim` < 0, `rhs` has the shape of
/// `lhs`; otherwise `rhs` is 1-D, indexed by lhs's dim `channelDim`.
Tensor binary(BinaryKind kind, const Tensor &lhs, const Tensor &rhs,
              int channelDim);

} // namespace boo::ref

#endif // BOO_REFERENCE_REFERENCE_H
