//===- ProblemSignature.cpp - The function an MIOpen problem is -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Import/ProblemSignature.h"

#include "Boo/Dialect/Boo/IR/ProblemNames.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

std::vector<int64_t> toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

int64_t find(const std::vector<TensorSpec> &specs, StringRef name) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name)
      return static_cast<int64_t>(i);
  return -1;
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// IREE BOO's conv mode names, from the gradients requested.
StringRef getConvModeName(const MIOpenConvProblem &p) {
  bool input = p.direction & 2, weight = p.direction & 4;
  if (p.direction == 1)
    return "forward";
  if (!p.bias)
    return input && weight ? "input_weight_backward"
           : input         ? "input_backward"
                           : "weight_backward";
  return input && weight ? "all_backward"
         : input         ? "input_bias_backward"
                         : "weight_bias_backward";
}

/// Forward: (input, filter[, bias]) -> output. Backward: (grad_output[,
/// input][, filter]) -> ([grad_input][, grad_filter][, grad_bias]), with
/// `input` when the filter gradient is asked for and `filter` when the input
/// gradient is.
ProblemSignature getConvSignature(const MIOpenConvProblem &p) {
  ElementType t = p.dataType;
  const ConvGeometry &g = p.geometry;
  ProblemSignature s;
  s.functionName = getConvProblemName(t, g, p.inputLayout, p.filterLayout,
                                      p.outputLayout, getConvModeName(p),
                                      /*bias=*/p.bias && p.direction == 1);
  TensorSpec input{"input", toVector(g.inputShape()), t};
  TensorSpec filter{"filter", toVector(g.filterShape()), t};
  if (p.direction == 1) {
    s.arguments = {input, filter};
    if (p.bias)
      s.arguments.push_back({"bias", {g.outChannels}, t});
    s.results = {{"output", toVector(g.outputShape()), t}};
    return s;
  }
  s.arguments = {{"grad_output", toVector(g.outputShape()), t}};
  if (p.direction & 4)
    s.arguments.push_back(input);
  if (p.direction & 2)
    s.arguments.push_back(filter);
  if (p.direction & 2)
    s.results.push_back({"grad_input", input.shape, t});
  if (p.direction & 4)
    s.results.push_back({"grad_filter", filter.shape, t});
  // MIOpenDriver computes the bias gradient too when -b is set.
  if (p.bias)
    s.results.push_back({"grad_bias", {g.outChannels}, t});
  return s;
}

//===----------------------------------------------------------------------===//
// Layer norms
//===----------------------------------------------------------------------===//

StringRef getLayerNormModeName(const MIOpenLayerNormProblem &p) {
  switch (p.direction) {
  case 1:
    return "forward";
  case 2:
    return "input_backward";
  case 4:
    return "weight_backward";
  case 8:
    return "bias_backward";
  default:
    return "full_backward";
  }
}

/// Forward: (x[, weight, bias]) -> (y, mean, rstd). Backward follows IREE
/// BOO's argument lists (op_exports/layer_norm.py, get_sample_args) with
/// Boo's statistics (f32, leading dims only):
///   -F 2:  (dy, x, [weight,] mean, rstd)        -> dx
///   -F 4:  (dy, x, mean, rstd)                  -> dweight
///   -F 8:  (dy)                                 -> dbias
///   -F 14: (dy, x, [weight, bias,] mean, rstd)  -> dx[, dweight, dbias]
/// `bias` in -F 14 is unused, as in ATen's native_layer_norm_backward. With
/// -m 0 there is no weight or bias, so -F 14 has no gradient for them (IREE
/// BOO returns None); -F 4 and -F 8 ask for one explicitly.
ProblemSignature getLayerNormSignature(const MIOpenLayerNormProblem &p) {
  ElementType t = p.dataType;
  std::vector<int64_t> x = toVector(p.shape);
  std::vector<int64_t> stat(x.begin(), x.begin() + p.normalizedDim);
  std::vector<int64_t> param(x.begin() + p.normalizedDim, x.end());
  ProblemSignature s;
  s.functionName = getLayerNormProblemName(t, p.shape, p.getNormalizedRank(),
                                           getLayerNormModeName(p),
                                           p.weightAndBias, p.weightAndBias);
  TensorSpec weight{"weight", param, t}, bias{"bias", param, t};
  TensorSpec mean{"mean", stat, ElementType::F32};
  TensorSpec rstd{"rstd", stat, ElementType::F32};
  if (p.direction == 1) {
    s.arguments = {{"x", x, t}};
    if (p.weightAndBias)
      s.arguments.insert(s.arguments.end(), {weight, bias});
    s.results = {{"y", x, t}, mean, rstd};
    return s;
  }
  s.arguments = {{"dy", x, t}};
  if (p.direction != 8) {
    s.arguments.push_back({"x", x, t});
    if (p.weightAndBias && (p.direction == 2 || p.direction == 14))
      s.arguments.push_back(weight);
    if (p.weightAndBias && p.direction == 14)
      s.arguments.push_back(bias);
    s.arguments.insert(s.arguments.end(), {mean, rstd});
  }
  if (p.direction & 2)
    s.results.push_back({"dx", x, t});
  if (p.direction == 4 || (p.direction == 14 && p.weightAndBias))
    s.results.push_back({"dweight", param, t});
  if (p.direction == 8 || (p.direction == 14 && p.weightAndBias))
    s.results.push_back({"dbias", param, t});
  return s;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// -F 1: (a, b[, c]) -> output, with c when beta is not 0. -F 2: (grad_output,
/// b) -> grad_a. -F 3: (grad_output, a) -> grad_b. Every matrix is stored as
/// MIOpenGemmProblem's shapes say (transposed ones as K x M and N x K).
/// aten:: products take aten's names and order: (self, mat2) for mm and
/// bmm, (self, mat1, mat2) for addmm, whose self is C.
ProblemSignature getGemmSignature(const MIOpenGemmProblem &p) {
  ElementType t = p.dataType;
  static constexpr StringLiteral modes[] = {"forward", "a_backward",
                                            "b_backward"};
  ProblemSignature s;
  // "beta": a C term (MIOpen's non-zero beta, aten::addmm's self), as
  // tuning specs see the boo.matmul's bias.
  std::string name = getGemmProblemName(
      t, modes[p.direction - 1], p.batch, p.m, p.k, p.n, p.transposeA,
      p.transposeB, p.alpha != 1.0, p.hasInputC() && p.beta != 0.0);
  // "aten_addmm_bfloat16_forward_...": the op replaces "gemm".
  s.functionName =
      p.atenOp.empty() ? name : "aten_" + p.atenOp + name.substr(4);
  // A strided operand's argument is its storage: "_<name>strides_9x1x3".
  auto operand = [&](StringRef argName, SmallVector<int64_t> shape,
                     ArrayRef<int64_t> strides) {
    if (strides.empty())
      return TensorSpec{argName.str(), toVector(shape), t};
    s.functionName += "_" + argName.str() + "strides_" + joinShape(strides);
    return TensorSpec{argName.str(), {getStorageSize(shape, strides)}, t};
  };
  TensorSpec a = operand(p.getNameA(), p.getShapeA(), p.stridesA);
  TensorSpec b = operand(p.getNameB(), p.getShapeB(), p.stridesB);
  std::vector<int64_t> c = toVector(p.getShapeC());
  TensorSpec cIn{p.getNameC().str(), p.cShape ? toVector(*p.cShape) : c, t};
  if (p.direction == 1) {
    s.arguments = {a, b};
    if (p.atenOp == "addmm")
      s.arguments.insert(s.arguments.begin(), cIn);
    else if (p.beta != 0.0)
      s.arguments.push_back(cIn);
    s.results = {{"output", c, t}};
  } else if (p.direction == 2) {
    s.arguments = {{"grad_output", c, t}, b};
    s.results = {{"grad_a", a.shape, t}};
  } else {
    s.arguments = {{"grad_output", c, t}, a};
    s.results = {{"grad_b", b.shape, t}};
  }
  return s;
}

//===----------------------------------------------------------------------===//
// Batch norms
//===----------------------------------------------------------------------===//

/// Training:  (x, weight, bias[, running_mean, running_var])
///            -> (y[, mean, rstd][, new_running_mean, new_running_var])
///            with mean and rstd under --save, the running statistics
///            under --run.
/// Inference: (x, weight, bias[, running_mean, running_var]) -> y, with the
///            running statistics under --run (else the batch's).
/// Backward:  (dy, x, weight[, mean, rstd]) -> (dx, dweight, dbias), with
///            the saved statistics under --save (else recomputed from x).
ProblemSignature getBatchNormSignature(const MIOpenBatchNormProblem &p) {
  using Direction = MIOpenBatchNormProblem::Direction;
  static constexpr StringLiteral modes[] = {"training", "inference",
                                            "backward"};
  ElementType t = p.dataType;
  std::vector<int64_t> x = toVector(p.shape);
  std::vector<int64_t> stat = toVector(p.getStatShape());
  ProblemSignature s;
  s.functionName = getBatchNormProblemName(
      t, p.paramType, p.statType, modes[static_cast<int>(p.direction)],
      p.shape, p.layout, p.spatial, p.save, p.run, p.epsilon, p.momentum);
  TensorSpec weight{"weight", stat, p.paramType};
  TensorSpec bias{"bias", stat, p.paramType};
  TensorSpec mean{"mean", stat, p.statType}, rstd{"rstd", stat, p.statType};
  TensorSpec runMean{"running_mean", stat, p.statType};
  TensorSpec runVar{"running_var", stat, p.statType};
  if (p.direction == Direction::Backward) {
    s.arguments = {{"dy", x, t}, {"x", x, t}, weight};
    if (p.save)
      s.arguments.insert(s.arguments.end(), {mean, rstd});
    s.results = {{"dx", x, t},
                 {"dweight", stat, p.paramType},
                 {"dbias", stat, p.paramType}};
    return s;
  }
  s.arguments = {{"x", x, t}, weight, bias};
  if (p.run)
    s.arguments.insert(s.arguments.end(), {runMean, runVar});
  s.results = {{"y", x, t}};
  if (p.direction == Direction::Inference)
    return s;
  if (p.save)
    s.results.insert(s.results.end(), {mean, rstd});
  if (p.run)
    s.results.insert(s.results.end(),
                     {{"new_running_mean", stat, p.statType},
                      {"new_running_var", stat, p.statType}});
  return s;
}

//===----------------------------------------------------------------------===//
// Arg-reductions
//===----------------------------------------------------------------------===//

/// (self) -> output, the i64 indices.
ProblemSignature getArgReduceSignature(const MIOpenArgReduceProblem &p) {
  ProblemSignature s;
  s.functionName = getArgReduceProblemName(p.dataType, p.isMax, p.shape,
                                           p.dim, p.keepdim);
  s.arguments = {{"self", toVector(p.shape), p.dataType}};
  s.results = {{"output", toVector(p.getResultShape()), ElementType::I64}};
  return s;
}

} // namespace

int64_t ProblemSignature::findArgument(StringRef name) const {
  return find(arguments, name);
}

int64_t ProblemSignature::findResult(StringRef name) const {
  return find(results, name);
}

ProblemSignature mlir::boo::getProblemSignature(const MIOpenProblem &problem) {
  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem))
    return getConvSignature(*conv);
  if (auto *gemm = std::get_if<MIOpenGemmProblem>(&problem))
    return getGemmSignature(*gemm);
  if (auto *bnorm = std::get_if<MIOpenBatchNormProblem>(&problem))
    return getBatchNormSignature(*bnorm);
  if (auto *arg = std::get_if<MIOpenArgReduceProblem>(&problem))
    return getArgReduceSignature(*arg);
  return getLayerNormSignature(std::get<MIOpenLayerNormProblem>(problem));
}
