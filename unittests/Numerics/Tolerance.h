//===- Tolerance.h - Error bounds for the numerics sweeps -------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Each reference value is paired with a bound on how far a correct kernel
// may be from it, derived from a forward error analysis of what Boo's ops
// promise (docs/Numerics.md has the derivation):
//
//  * inputs are exact: the sweeps round them to the storage type before the
//    reference sees them;
//  * products and sums are accumulated in f32 in any order. Recursive
//    summation of n terms has |error| <= gamma_n * sum |term| with
//    gamma_n = n u / (1 - n u), u = 2^-24 (Higham, Accuracy and Stability of
//    Numerical Algorithms, 2nd ed., sec. 4.2); pairwise or blocked orders do
//    better;
//  * the result is rounded once to the storage type (unit roundoff u_out:
//    2^-24 f32, 2^-11 f16, 2^-8 bf16), which adds u_out * |value|, and near
//    zero at most half a subnormal spacing;
//  * an op that consumes a rounded intermediate propagates its bound with the
//    op's Lipschitz constant; every intermediate is assumed rounded to its
//    storage type, which bounds a fused kernel (which rounds less) as well.
//
// A bound is per element, so a problem whose terms cancel gets a small bound
// where its value is small, and an accumulation in less than f32 (which
// errs by about sqrt(n) u_out sum |term|) is caught.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_UNITTESTS_NUMERICS_TOLERANCE_H
#define BOO_UNITTESTS_NUMERICS_TOLERANCE_H

#include "Boo/Reference/Reference.h"

namespace boo::ref {

/// A reference value and, per element, the largest |kernel - value| that a
/// correct kernel may produce.
struct Bounded {
  Tensor value;
  Tensor bound;
};

/// A value known exactly (a stored input).
Bounded exact(const Tensor &value);

/// gamma_n for accumulation with unit roundoff `u` (f32 by default).
double accumulationGamma(int64_t n, double u = 0x1p-24);

/// The bound of a reduction whose terms have absolute sum `absSum` per
/// element, reduced over at most `n` terms in f32 and rounded to `out`.
Bounded boundReduction(Tensor value, const Tensor &absSum, int64_t n,
                       ElementType out);

Bounded convForwardBounded(const ConvProblem &p, const Tensor &input,
                           const Tensor &filter, const Tensor *bias,
                           ElementType out);
Bounded convBackwardDataBounded(const ConvProblem &p, const Tensor &gradOutput,
                                const Tensor &filter, ElementType out);
Bounded convBackwardWeightBounded(const ConvProblem &p,
                                  const Tensor &gradOutput, const Tensor &input,
                                  ElementType out);
Bounded convBackwardBiasBounded(const Tensor &gradOutput, int channelDim,
                                ElementType out);

/// A matrix product (ref::matmul) accumulated in f32 (f64 for an f64 `out`):
/// K products, and the scaling by alpha and the addition of beta * bias,
/// each rounded in the accumulator's type.
Bounded matmulBounded(const Tensor &lhs, const Tensor &rhs, bool transposeLhs,
                      bool transposeRhs, double alpha, const Tensor *bias,
                      double beta, ElementType out);

/// Largest |f'(x)| over the reals.
double activationLipschitz(Activation kind, const ActivationParams &p);

Bounded activationBounded(Activation kind, const Bounded &x,
                          const ActivationParams &p, ElementType out);
Bounded binaryBounded(BinaryKind kind, const Bounded &lhs, const Bounded &rhs,
                      int channelDim, ElementType out);

struct LayerNormBounded {
  Bounded y, mean, rstd;
};
/// Inputs are exact; `statType` is the storage type of mean and rstd.
LayerNormBounded layerNormForwardBounded(const Tensor &x, int normalizedRank,
                                         const Tensor *weight,
                                         const Tensor *bias, double epsilon,
                                         ElementType out, ElementType statType);

struct LayerNormGradsBounded {
  Bounded dx, dweight, dbias;
};
/// Inputs (including the given mean and rstd) are exact.
LayerNormGradsBounded
layerNormBackwardBounded(const Tensor &dy, const Tensor &x, const Tensor &mean,
                         const Tensor &rstd, const Tensor *weight,
                         int normalizedRank, ElementType out);

/// The storage types of a batch norm's results.
struct BatchNormTypes {
  ElementType y, mean, rstd, runningMean, runningVar;
};

struct BatchNormBounded {
  Bounded y, mean, rstd;
  /// Training with running statistics; otherwise no elements.
  Bounded newRunningMean, newRunningVar;
};
/// Inputs are exact. `weight` and `bias` may be null (ones, zeros); the
/// running statistics are both null or both given, and given in inference.
BatchNormBounded batchNormForwardBounded(
    const Tensor &x, const std::vector<int> &featureDims, const Tensor *weight,
    const Tensor *bias, const Tensor *runningMean, const Tensor *runningVar,
    bool training, double epsilon, double momentum,
    const BatchNormTypes &types);

struct BatchNormGradsBounded {
  Bounded dx, dweight, dbias;
};
/// Inputs (including the given mean and rstd) are exact; `weight` may be
/// null (ones). dx is stored as `out`, dweight and dbias as `paramOut`.
BatchNormGradsBounded
batchNormBackwardBounded(const Tensor &dy, const Tensor &x, const Tensor &mean,
                         const Tensor &rstd, const Tensor *weight,
                         const std::vector<int> &featureDims, ElementType out,
                         ElementType paramOut);

} // namespace boo::ref

#endif // BOO_UNITTESTS_NUMERICS_TOLERANCE_H
