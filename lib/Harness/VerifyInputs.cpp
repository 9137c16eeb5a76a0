//===- VerifyInputs.cpp - The inputs of --verify's checks -----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// makeInputs: random (seeded, the same on every platform), splat and
// structured inputs in the function's argument order, written with the
// reference's codec.
//
//===----------------------------------------------------------------------===//

#include "VerifyInternal.h"

#include "llvm/Support/ErrorHandling.h"
#include <algorithm>
#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
using namespace mlir::boo::harness::detail;

namespace {

uint64_t splitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Whether every coordinate of row-major `index` lies in the leading half
/// (rounded up) of its dim.
bool isInBlock(const std::vector<int64_t> &shape, int64_t index) {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (index % shape[d] >= (shape[d] + 1) / 2)
      return false;
    index /= shape[d];
  }
  return true;
}

/// A batch norm's running variance must be positive: it takes 0.5 + |v|
/// for each value v of the fill. A backward's mean and rstd are those of
/// its x, as a training forward has stored them (in the statistics' type).
LogicalResult fillBatchNormStatistics(const MIOpenBatchNormProblem &p,
                                      const std::vector<TensorSpec> &specs,
                                      std::vector<HostTensor> &inputs,
                                      std::string &error) {
  BatchNormShapes s = getShapes(p);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].shape != s.x && specs[i].shape != s.stat) {
      error = "the harness and the importer disagree on the statistics' "
              "shape: " +
              formatShape(s.stat) + " vs " + formatShape(specs[i].shape);
      return failure();
    }
    if (specs[i].name != "running_var")
      continue;
    for (int64_t j = 0; j < inputs[i].numElements(); ++j)
      writeElement(inputs[i], specs[i].type, j,
                   0.5 + std::fabs(readElement(inputs[i], specs[i].type, j)));
  }
  using Direction = MIOpenBatchNormProblem::Direction;
  if (p.direction != Direction::Backward || !p.save)
    return success();
  auto find = [&](StringRef name) -> HostTensor & {
    for (size_t i = 0; i < specs.size(); ++i)
      if (specs[i].name == name)
        return inputs[i];
    llvm_unreachable("a batch norm backward with --save has x, mean, rstd");
  };
  ref::BatchNormResult fwd =
      ref::batchNormForward(decodeTensor(find("x")), s.featureDims,
                            Tensor(s.stat, 1.0), Tensor(s.stat), nullptr,
                            nullptr, /*training=*/true, p.epsilon, p.momentum);
  HostTensor &mean = find("mean"), &rstd = find("rstd");
  for (int64_t j = 0; j < fwd.mean.size(); ++j) {
    writeElement(mean, p.statType, j, fwd.mean.data[j]);
    writeElement(rstd, p.statType, j, fwd.rstd.data[j]);
  }
  return success();
}

/// 53 random bits: uniform in [0, 1), the same on every platform
/// (std::uniform_real_distribution is not).
double drawUnit(std::mt19937_64 &rng) {
  return static_cast<double>(rng() >> 11) * 0x1p-53;
}

/// An arg-reduction's random `self`, made for its one check, the exact
/// comparison of indices (no statistic reads it, and no check asks for
/// finite values). With L values per slice, each is one of k = 2..256
/// levels (-1 + 2j / k, the largest power of two k <= L / 2: exact in
/// every type, and about two values of a slice share each level, so that
/// the slice's best value is tied in many slices and unique in others); a
/// zero level is +0 or -0 (they tie). One slice in four also gets a
/// single +1.5 and a single -1.5, beyond every level, at two random
/// positions, so that its answer can lie anywhere in it (past L = 512 the
/// top level first shows up early). One value in 8L is NaN, one in 8L
/// +inf and one in 8L -inf: about one slice in eight holds a NaN (its
/// first NaN's index is the answer) and one in eight an infinity of each
/// sign.
void fillArgReduceSelf(const MIOpenArgReduceProblem &p, uint64_t seed,
                       HostTensor &self) {
  int64_t size = self.numElements();
  // Slice (o, i) holds the elements (o * length + j) * inner + i.
  int64_t length = size, inner = 1;
  if (p.dim) {
    length = p.shape[*p.dim];
    for (size_t d = *p.dim + 1; d < p.shape.size(); ++d)
      inner *= p.shape[d];
  }
  int64_t levels = 2;
  while (levels < 256 && levels * 4 <= length)
    levels *= 2;
  double special = 1.0 / (8.0 * static_cast<double>(length));
  std::vector<double> values(size);
  std::mt19937_64 rng(splitMix64(seed + 0x9E3779B97F4A7C15ull));
  auto drawIndex = [&](int64_t n) {
    return std::min(static_cast<int64_t>(drawUnit(rng) * n), n - 1);
  };
  for (double &v : values) {
    int64_t j = drawIndex(levels);
    double kind = drawUnit(rng);
    v = static_cast<double>(2 * j - levels) / levels;
    if (v == 0 && kind >= 0.5)
      v = -0.0;
    if (kind < special)
      v = NAN;
    else if (kind < 2 * special)
      v = INFINITY;
    else if (kind < 3 * special)
      v = -INFINITY;
  }
  for (int64_t slice = 0; length > 1 && slice < size / length; ++slice) {
    if (drawUnit(rng) >= 0.25)
      continue;
    int64_t base = slice / inner * length * inner + slice % inner;
    int64_t top = drawIndex(length), bottom = drawIndex(length - 1);
    bottom += bottom >= top; // any other position
    values[base + top * inner] = 1.5;
    values[base + bottom * inner] = -1.5;
  }
  for (int64_t i = 0; i < size; ++i)
    writeElement(self, p.dataType, i, values[i]);
}

} // namespace

LogicalResult mlir::boo::harness::makeInputs(const MIOpenProblem &problem,
                                             InputFill fill, uint64_t seed,
                                             double splatValue,
                                             std::vector<HostTensor> &inputs,
                                             std::string &error) {
  std::vector<TensorSpec> specs = getProblemSignature(problem).arguments;
  inputs.clear();
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec &spec = specs[i];
    ElementType type = spec.type;
    HostTensor t = HostTensor::zeros(spec.shape, spec.type);
    int64_t n = t.numElements();
    switch (fill) {
    case InputFill::Random: {
      std::mt19937_64 rng(splitMix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull));
      for (int64_t j = 0; j < n; ++j)
        writeElement(t, type, j, 2 * drawUnit(rng) - 1);
      break;
    }
    case InputFill::Splat:
      if (!std::isfinite(ref::roundTo(splatValue, type))) {
        error = "splat value " + formatDouble(splatValue) +
                " is not finite in " + getElementTypeName(type);
        return failure();
      }
      for (int64_t j = 0; j < n; ++j)
        writeElement(t, type, j, splatValue);
      break;
    case InputFill::Structured:
      for (int64_t j = 0; j < n; ++j)
        writeElement(t, type, j, isInBlock(spec.shape, j) ? 1.0 : 0.0);
      break;
    }
    inputs.push_back(std::move(t));
  }

  if (auto *bnorm = std::get_if<MIOpenBatchNormProblem>(&problem))
    return fillBatchNormStatistics(*bnorm, specs, inputs, error);
  if (auto *arg = std::get_if<MIOpenArgReduceProblem>(&problem)) {
    if (fill == InputFill::Random)
      fillArgReduceSelf(*arg, seed, inputs[0]);
    return success();
  }
  // A layer-norm backward reads the statistics of its x, as a forward run
  // has stored them (f32).
  auto *norm = std::get_if<MIOpenLayerNormProblem>(&problem);
  if (!norm || norm->direction == 1 || norm->direction == 8)
    return success();
  ref::LayerNormResult fwd = ref::layerNormForward(
      decodeTensor(inputs[1]), static_cast<int>(norm->getNormalizedRank()),
      nullptr, nullptr, norm->epsilon);
  HostTensor &mean = inputs[inputs.size() - 2], &rstd = inputs.back();
  for (int64_t j = 0; j < fwd.mean.size(); ++j) {
    writeElement(mean, ElementType::F32, j, fwd.mean.data[j]);
    writeElement(rstd, ElementType::F32, j, fwd.rstd.data[j]);
  }
  return success();
}
