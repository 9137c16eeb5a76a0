//===- VerifySignatures.cpp - A problem's arguments, results, codec -------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The function a problem compiles to, as the checks see it: its arguments
// and results in the orders of docs/MIOpenImport.md, the reference length
// of each result, and the reference's own types and codec for host tensors.
//
//===----------------------------------------------------------------------===//

#include "VerifyInternal.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
using namespace mlir::boo::harness::detail;

//===----------------------------------------------------------------------===//
// Types, shapes and the reference's codec
//===----------------------------------------------------------------------===//

std::vector<int64_t>
mlir::boo::harness::detail::toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

std::string
mlir::boo::harness::detail::formatShape(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

std::string mlir::boo::harness::detail::formatDouble(double v,
                                                     const char *format) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

double mlir::boo::harness::detail::readElement(const HostTensor &t,
                                               ElementType type, int64_t i) {
  int64_t bytes = getElementSize(type);
  uint64_t bits = 0;
  for (int64_t b = 0; b < bytes; ++b)
    bits |= static_cast<uint64_t>(t.data[i * bytes + b]) << (8 * b);
  if (isFloatType(type))
    return ref::decode(bits, type);
  // Integers (i8, i32, i64 indices): two's complement, sign-extended.
  int shift = 64 - 8 * static_cast<int>(bytes);
  return static_cast<double>(static_cast<int64_t>(bits << shift) >> shift);
}

void mlir::boo::harness::detail::writeElement(HostTensor &t, ElementType type,
                                              int64_t i, double v) {
  int64_t bytes = getElementSize(type);
  uint64_t bits =
      isFloatType(type)
          ? ref::encode(ref::roundTo(v, type), type)
          : static_cast<uint64_t>(static_cast<int64_t>(std::llround(v)));
  for (int64_t b = 0; b < bytes; ++b)
    t.data[i * bytes + b] = static_cast<uint8_t>(bits >> (8 * b));
}

Tensor mlir::boo::harness::detail::decodeTensor(const HostTensor &t) {
  Tensor result(t.shape);
  ElementType type = t.type;
  for (int64_t i = 0; i < result.size(); ++i)
    result.data[i] = readElement(t, type, i);
  return result;
}

//===----------------------------------------------------------------------===//
// Signatures (Boo/Import/ProblemSignature.h)
//===----------------------------------------------------------------------===//

LayerNormShapes
mlir::boo::harness::detail::getShapes(const MIOpenLayerNormProblem &p) {
  LayerNormShapes s;
  s.x = toVector(p.shape);
  s.stat.assign(s.x.begin(), s.x.begin() + p.normalizedDim);
  s.param.assign(s.x.begin() + p.normalizedDim, s.x.end());
  s.rows = ref::product(s.stat);
  s.rowSize = ref::product(s.param);
  return s;
}

BatchNormShapes
mlir::boo::harness::detail::getShapes(const MIOpenBatchNormProblem &p) {
  BatchNormShapes s;
  s.x = toVector(p.shape);
  // MIOpen's modes: spatial keeps C; per-activation every dim but N.
  int rank = static_cast<int>(p.layout.size());
  std::vector<int64_t> featureStride(rank, 0);
  for (int d = 0; d < rank; ++d)
    if (p.layout[d] != 'N' && (!p.spatial || p.layout[d] == 'C'))
      s.featureDims.push_back(d);
  int64_t features = 1;
  for (int k = static_cast<int>(s.featureDims.size()) - 1; k >= 0; --k) {
    featureStride[s.featureDims[k]] = features;
    features *= s.x[s.featureDims[k]];
  }
  for (int d : s.featureDims)
    s.stat.push_back(s.x[d]);
  int64_t size = ref::product(s.x);
  s.reduction = size / features;
  s.featureOf.reserve(size);
  for (int64_t i = 0; i < size; ++i) {
    int64_t f = 0, rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      f += rest % s.x[d] * featureStride[d];
      rest /= s.x[d];
    }
    s.featureOf.push_back(f);
  }
  return s;
}

const Tensor *
mlir::boo::harness::detail::findArgument(const std::vector<TensorSpec> &specs,
                                         const std::vector<Tensor> &args,
                                         StringRef name) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name)
      return &args[i];
  return nullptr;
}

std::string mlir::boo::harness::detail::describeMismatch(const TensorSpec &spec,
                                                         const HostTensor &t) {
  if (t.shape == spec.shape && t.type == spec.type &&
      static_cast<int64_t>(t.data.size()) ==
          t.numElements() * getElementSize(t.type))
    return "";
  return "expected " + formatTensorType(spec.shape, spec.type) + ", got " +
         t.getTypeString() + " (" + std::to_string(t.data.size()) + " bytes)";
}

int64_t mlir::boo::harness::getReductionLength(const MIOpenProblem &problem,
                                               unsigned resultIndex) {
  std::vector<TensorSpec> specs = getProblemSignature(problem).results;
  if (resultIndex >= specs.size())
    return 0;
  const std::string &name = specs[resultIndex].name;
  if (auto *norm = std::get_if<MIOpenLayerNormProblem>(&problem)) {
    LayerNormShapes s = getShapes(*norm);
    return name == "dweight" || name == "dbias" ? s.rows : s.rowSize;
  }
  if (auto *bnorm = std::get_if<MIOpenBatchNormProblem>(&problem)) {
    // Every result sums over the M elements of a feature, but the inference
    // with running statistics, which sums nothing.
    using Direction = MIOpenBatchNormProblem::Direction;
    if (bnorm->direction == Direction::Inference && bnorm->run)
      return 0;
    return ref::product(toVector(bnorm->shape)) /
           ref::product(toVector(bnorm->getStatShape()));
  }
  if (auto *arg = std::get_if<MIOpenArgReduceProblem>(&problem)) {
    // The values each index is chosen among.
    return arg->dim ? arg->shape[*arg->dim]
                    : ref::product(toVector(arg->shape));
  }
  if (auto *gemm = std::get_if<MIOpenGemmProblem>(&problem)) {
    // output: K products and C; grad_a sums over N, grad_b over M.
    if (name == "output")
      return gemm->k + (gemm->beta != 0.0 ? 1 : 0);
    return name == "grad_a" ? gemm->n : gemm->m;
  }
  const auto &p = std::get<MIOpenConvProblem>(problem);
  const ConvGeometry &g = p.geometry;
  int64_t filterSize = ref::product(toVector(g.filterSpatial));
  if (name == "output")
    return g.inChannelsPerGroup() * filterSize + (p.bias ? 1 : 0);
  if (name == "grad_input")
    return g.outChannelsPerGroup() * filterSize;
  // grad_filter and grad_bias sum over the batch and the output positions.
  return g.batch * ref::product(toVector(g.outSpatial));
}
