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

#include <cstdio>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::driver;
using namespace mlir::boo::driver::detail;

//===----------------------------------------------------------------------===//
// Types, shapes and the reference's codec
//===----------------------------------------------------------------------===//

FailureOr<DType> mlir::boo::driver::detail::toRefType(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return DType::F32;
  case ElementType::F16:
    return DType::F16;
  case ElementType::BF16:
    return DType::BF16;
  default:
    return failure();
  }
}

DType mlir::boo::driver::detail::refTypeOf(const HostTensor &t) {
  return *toRefType(t.type);
}

std::vector<int64_t>
mlir::boo::driver::detail::toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

std::string
mlir::boo::driver::detail::formatShape(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

std::string mlir::boo::driver::detail::formatDouble(double v,
                                                    const char *format) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

double mlir::boo::driver::detail::readElement(const HostTensor &t, DType type,
                                              int64_t i) {
  int64_t bytes = ref::dtypeBytes(type);
  uint32_t bits = 0;
  for (int64_t b = 0; b < bytes; ++b)
    bits |= static_cast<uint32_t>(t.data[i * bytes + b]) << (8 * b);
  return ref::decode(bits, type);
}

void mlir::boo::driver::detail::writeElement(HostTensor &t, DType type,
                                             int64_t i, double v) {
  int64_t bytes = ref::dtypeBytes(type);
  uint32_t bits = ref::encode(ref::roundTo(v, type), type);
  for (int64_t b = 0; b < bytes; ++b)
    t.data[i * bytes + b] = static_cast<uint8_t>(bits >> (8 * b));
}

Tensor mlir::boo::driver::detail::decodeTensor(const HostTensor &t) {
  Tensor result(t.shape);
  DType type = refTypeOf(t);
  for (int64_t i = 0; i < result.size(); ++i)
    result.data[i] = readElement(t, type, i);
  return result;
}

ElementType mlir::boo::driver::getElementType(MIOpenDataType type) {
  switch (type) {
  case MIOpenDataType::F16:
    return ElementType::F16;
  case MIOpenDataType::BF16:
    return ElementType::BF16;
  case MIOpenDataType::F32:
    return ElementType::F32;
  }
  return ElementType::F32;
}

//===----------------------------------------------------------------------===//
// Signatures (docs/MIOpenImport.md)
//===----------------------------------------------------------------------===//

namespace {

std::vector<TensorSpec> getConvArguments(const MIOpenConvProblem &p) {
  ElementType t = getElementType(p.dataType);
  const ConvGeometry &g = p.geometry;
  TensorSpec input{"input", toVector(g.inputShape()), t};
  TensorSpec filter{"filter", toVector(g.filterShape()), t};
  if (p.direction == 1) {
    std::vector<TensorSpec> args = {input, filter};
    if (p.bias)
      args.push_back({"bias", {g.outChannels}, t});
    return args;
  }
  std::vector<TensorSpec> args = {
      {"grad_output", toVector(g.outputShape()), t}};
  if (p.direction & 4)
    args.push_back(input);
  if (p.direction & 2)
    args.push_back(filter);
  return args;
}

std::vector<TensorSpec> getConvResults(const MIOpenConvProblem &p) {
  ElementType t = getElementType(p.dataType);
  const ConvGeometry &g = p.geometry;
  if (p.direction == 1)
    return {{"output", toVector(g.outputShape()), t}};
  std::vector<TensorSpec> results;
  if (p.direction & 2)
    results.push_back({"grad_input", toVector(g.inputShape()), t});
  if (p.direction & 4)
    results.push_back({"grad_filter", toVector(g.filterShape()), t});
  if (p.bias)
    results.push_back({"grad_bias", {g.outChannels}, t});
  return results;
}

std::vector<TensorSpec> getLayerNormArguments(const MIOpenLayerNormProblem &p) {
  ElementType t = getElementType(p.dataType);
  LayerNormShapes s = getShapes(p);
  TensorSpec weight{"weight", s.param, t}, bias{"bias", s.param, t};
  if (p.direction == 1) {
    std::vector<TensorSpec> args = {{"x", s.x, t}};
    if (p.weightAndBias)
      args.insert(args.end(), {weight, bias});
    return args;
  }
  std::vector<TensorSpec> args = {{"dy", s.x, t}};
  if (p.direction == 8)
    return args;
  args.push_back({"x", s.x, t});
  if (hasWeightArgument(p))
    args.push_back(weight);
  if (p.weightAndBias && p.direction == 14)
    args.push_back(bias);
  args.push_back({"mean", s.stat, ElementType::F32});
  args.push_back({"rstd", s.stat, ElementType::F32});
  return args;
}

} // namespace

LayerNormShapes
mlir::boo::driver::detail::getShapes(const MIOpenLayerNormProblem &p) {
  LayerNormShapes s;
  s.x = toVector(p.shape);
  s.stat.assign(s.x.begin(), s.x.begin() + p.normalizedDim);
  s.param.assign(s.x.begin() + p.normalizedDim, s.x.end());
  s.rows = ref::product(s.stat);
  s.rowSize = ref::product(s.param);
  return s;
}

bool mlir::boo::driver::detail::hasWeightArgument(
    const MIOpenLayerNormProblem &p) {
  return p.weightAndBias && (p.direction == 2 || p.direction == 14);
}

std::vector<TensorSpec> mlir::boo::driver::detail::getLayerNormResults(
    const MIOpenLayerNormProblem &p) {
  ElementType t = getElementType(p.dataType);
  LayerNormShapes s = getShapes(p);
  if (p.direction == 1)
    return {{"y", s.x, t},
            {"mean", s.stat, ElementType::F32},
            {"rstd", s.stat, ElementType::F32}};
  std::vector<TensorSpec> results;
  if (p.direction & 2)
    results.push_back({"dx", s.x, t});
  if (p.direction == 4 || (p.direction == 14 && p.weightAndBias))
    results.push_back({"dweight", s.param, t});
  if (p.direction == 8 || (p.direction == 14 && p.weightAndBias))
    results.push_back({"dbias", s.param, t});
  return results;
}

const Tensor *
mlir::boo::driver::detail::findArgument(const std::vector<TensorSpec> &specs,
                                        const std::vector<Tensor> &args,
                                        StringRef name) {
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == name)
      return &args[i];
  return nullptr;
}

std::string mlir::boo::driver::detail::describeMismatch(const TensorSpec &spec,
                                                        const HostTensor &t) {
  if (t.shape == spec.shape && t.type == spec.type &&
      static_cast<int64_t>(t.data.size()) ==
          t.numElements() * getElementSize(t.type))
    return "";
  return "expected " + formatTensorType(spec.shape, spec.type) + ", got " +
         t.getTypeString() + " (" + std::to_string(t.data.size()) + " bytes)";
}

std::vector<TensorSpec>
mlir::boo::driver::getArgumentSpecs(const MIOpenProblem &problem) {
  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem))
    return getConvArguments(*conv);
  return getLayerNormArguments(std::get<MIOpenLayerNormProblem>(problem));
}

std::vector<TensorSpec>
mlir::boo::driver::getResultSpecs(const MIOpenProblem &problem) {
  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem))
    return getConvResults(*conv);
  return getLayerNormResults(std::get<MIOpenLayerNormProblem>(problem));
}

int64_t mlir::boo::driver::getReductionLength(const MIOpenProblem &problem,
                                              unsigned resultIndex) {
  std::vector<TensorSpec> specs = getResultSpecs(problem);
  if (resultIndex >= specs.size())
    return 0;
  const std::string &name = specs[resultIndex].name;
  if (auto *norm = std::get_if<MIOpenLayerNormProblem>(&problem)) {
    LayerNormShapes s = getShapes(*norm);
    return name == "dweight" || name == "dbias" ? s.rows : s.rowSize;
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
