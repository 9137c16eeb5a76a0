//===- VerifyReference.cpp - The float64 reference of a problem -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// computeReference: a problem's results for given inputs, computed in
// double by the independent reference (Boo/Reference/Reference.h), which
// gets its own view of the problem (sizes from the parse, layouts as the
// command spells them) and whose shapes are checked against the importer's.
//
//===----------------------------------------------------------------------===//

#include "VerifyInternal.h"

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::harness;
using namespace mlir::boo::harness::detail;

namespace {

/// The reference's view of the problem: sizes from the parse, layouts as
/// the command spells them (the reference parses them itself).
LogicalResult getRefConvProblem(const MIOpenConvProblem &p,
                                ref::ConvProblem &rp, std::string &error) {
  const ConvGeometry &g = p.geometry;
  rp.spatialRank = static_cast<int>(g.spatialRank);
  rp.batch = g.batch;
  rp.inChannels = g.inChannels;
  rp.outChannels = g.outChannels;
  rp.groups = g.groups;
  rp.inSpatial = toVector(g.inSpatial);
  rp.filterSpatial = toVector(g.filterSpatial);
  rp.strides = toVector(g.strides);
  rp.dilations = toVector(g.dilations);
  rp.padLow = toVector(g.padLow);
  rp.padHigh = toVector(g.padHigh);
  rp.inputLayout = p.inputLayout;
  rp.filterLayout = p.filterLayout;
  rp.outputLayout = p.outputLayout;
  if (!rp.validate(error)) {
    error = "the reference rejects the convolution: " + error;
    return failure();
  }
  // The importer and the reference lay out the tensors independently.
  auto check = [&](const char *what, const std::vector<int64_t> &refShape,
                   ArrayRef<int64_t> importShape) {
    if (refShape == toVector(importShape))
      return true;
    error = std::string("the reference and the importer disagree on the ") +
            what + " shape: " + formatShape(refShape) + " vs " +
            formatShape(toVector(importShape));
    return false;
  };
  if (!check("input", rp.inputShape(), g.inputShape()) ||
      !check("filter", rp.filterShape(), g.filterShape()) ||
      !check("output", rp.outputShape(), g.outputShape()))
    return failure();
  return success();
}

LogicalResult computeConv(const MIOpenConvProblem &p,
                          const std::vector<Tensor> &args,
                          std::vector<Tensor> &results, std::string &error) {
  ref::ConvProblem rp;
  if (failed(getRefConvProblem(p, rp, error)))
    return failure();
  if (p.direction == 1) {
    results.push_back(
        ref::convForward(rp, args[0], args[1], p.bias ? &args[2] : nullptr));
    return success();
  }
  const Tensor &gradOutput = args[0];
  if (p.direction & 2)
    results.push_back(ref::convBackwardData(rp, gradOutput, args.back()));
  if (p.direction & 4)
    results.push_back(ref::convBackwardWeight(rp, gradOutput, args[1]));
  if (p.bias) {
    std::vector<int> perm;
    if (!ref::parseLayout(rp.outputLayout, ref::LayoutRole::Activation,
                          rp.spatialRank, perm, error))
      return failure();
    results.push_back(ref::convBackwardBias(gradOutput, perm[1]));
  }
  return success();
}

void computeLayerNorm(const MIOpenLayerNormProblem &p,
                      const std::vector<TensorSpec> &specs,
                      const std::vector<Tensor> &args,
                      std::vector<Tensor> &results) {
  int normalizedRank = static_cast<int>(p.getNormalizedRank());
  const Tensor *weight = findArgument(specs, args, "weight");
  if (p.direction == 1) {
    ref::LayerNormResult r =
        ref::layerNormForward(args[0], normalizedRank, weight,
                              findArgument(specs, args, "bias"), p.epsilon);
    results = {r.y, r.mean, r.rstd};
    return;
  }
  // The backward reads weight only for dx (-F 2 and 14 with -m 1): only
  // then is it an argument.
  ref::LayerNormGrads g;
  if (p.direction == 8) {
    // dbias sums dy over the rows; x and the statistics do not enter.
    LayerNormShapes s = getShapes(p);
    g = ref::layerNormBackward(args[0], Tensor(s.x), Tensor(s.stat),
                               Tensor(s.stat, 1.0), nullptr, normalizedRank);
  } else {
    g = ref::layerNormBackward(args[0], args[1], args[args.size() - 2],
                               args.back(), weight, normalizedRank);
  }
  for (const TensorSpec &spec : getProblemSignature(p).results)
    results.push_back(spec.name == "dx"        ? g.dx
                      : spec.name == "dweight" ? g.dweight
                                               : g.dbias);
}

/// The forward's results by name; the backward's from the given statistics,
/// or (without --save) from those of x, which the reference forward takes.
LogicalResult computeBatchNorm(const MIOpenBatchNormProblem &p,
                               const std::vector<TensorSpec> &specs,
                               const std::vector<Tensor> &args,
                               std::vector<Tensor> &results,
                               std::string &error) {
  using Direction = MIOpenBatchNormProblem::Direction;
  BatchNormShapes s = getShapes(p);
  // The importer and the harness find the feature dims independently.
  if (s.stat != toVector(p.getStatShape())) {
    error = "the reference and the importer disagree on the statistics' "
            "shape: " +
            formatShape(s.stat) + " vs " +
            formatShape(toVector(p.getStatShape()));
    return failure();
  }
  const Tensor &x = *findArgument(specs, args, "x");
  const Tensor &weight = *findArgument(specs, args, "weight");
  // The problem's epsilon and momentum are floats: a kernel sees those.
  double epsilon = p.epsilon, momentum = p.momentum;
  std::vector<TensorSpec> resultSpecs = getProblemSignature(p).results;
  if (p.direction == Direction::Backward) {
    const Tensor *mean = findArgument(specs, args, "mean");
    const Tensor *rstd = findArgument(specs, args, "rstd");
    ref::BatchNormResult batch;
    if (!mean) {
      Tensor zeros(s.stat);
      batch =
          ref::batchNormForward(x, s.featureDims, weight, zeros, nullptr,
                                nullptr, /*training=*/true, epsilon, momentum);
      mean = &batch.mean;
      rstd = &batch.rstd;
    }
    ref::BatchNormGrads g =
        ref::batchNormBackward(*findArgument(specs, args, "dy"), x, *mean,
                               *rstd, weight, s.featureDims);
    for (const TensorSpec &spec : resultSpecs)
      results.push_back(spec.name == "dx"        ? g.dx
                        : spec.name == "dweight" ? g.dweight
                                                 : g.dbias);
    return success();
  }
  ref::BatchNormResult r = ref::batchNormForward(
      x, s.featureDims, weight, *findArgument(specs, args, "bias"),
      findArgument(specs, args, "running_mean"),
      findArgument(specs, args, "running_var"),
      p.direction == Direction::Training, epsilon, momentum);
  for (const TensorSpec &spec : resultSpecs)
    results.push_back(spec.name == "y"                  ? r.y
                      : spec.name == "mean"             ? r.mean
                      : spec.name == "rstd"             ? r.rstd
                      : spec.name == "new_running_mean" ? r.newRunningMean
                                                        : r.newRunningVar);
  return success();
}

/// argmax or argmin along the problem's dim (all of self without one); the
/// reference finds the result's shape itself.
LogicalResult computeArgReduce(const MIOpenArgReduceProblem &p,
                               const std::vector<Tensor> &args,
                               std::vector<Tensor> &results,
                               std::string &error) {
  std::optional<int> dim;
  if (p.dim)
    dim = static_cast<int>(*p.dim);
  Tensor indices = ref::argReduce(args[0], dim, p.keepdim, p.isMax);
  if (indices.shape != toVector(p.getResultShape())) {
    error = "the reference and the importer disagree on the output shape: " +
            formatShape(indices.shape) + " vs " +
            formatShape(toVector(p.getResultShape()));
    return failure();
  }
  results.push_back(std::move(indices));
  return success();
}

/// The transpose of the last two dims of `t` (2-D or 3-D).
Tensor transposeMatrices(const Tensor &t) {
  size_t rank = t.shape.size();
  int64_t rows = t.shape[rank - 2], cols = t.shape[rank - 1];
  int64_t batch = t.size() / (rows * cols);
  std::vector<int64_t> shape = t.shape;
  std::swap(shape[rank - 2], shape[rank - 1]);
  Tensor out(shape);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        out.data[(b * cols + j) * rows + i] = t.data[(b * rows + i) * cols + j];
  return out;
}

/// The tensor of `shape` a strided aten operand reads from its storage
/// (`storage` itself when it has no strides).
Tensor readStrided(const Tensor &storage, const SmallVector<int64_t> &shape,
                   ArrayRef<int64_t> strides) {
  if (strides.empty())
    return storage;
  Tensor view(std::vector<int64_t>(shape.begin(), shape.end()));
  for (int64_t i = 0; i < view.size(); ++i) {
    int64_t rest = i, at = 0;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      at += rest % shape[d] * strides[d];
      rest /= shape[d];
    }
    view.data[i] = storage.data[at];
  }
  return view;
}

/// The product and its gradients from their definitions: op(X) is
/// materialized, dA = dC op(B)^T and dB = op(A)^T dC are plain products of
/// materialized transposes, transposed back when A (B) is stored transposed.
void computeGemm(const MIOpenGemmProblem &p,
                 const std::vector<TensorSpec> &specs,
                 const std::vector<Tensor> &args,
                 std::vector<Tensor> &results) {
  auto op = [](const Tensor &x, bool transposed) {
    return transposed ? transposeMatrices(x) : x;
  };
  if (p.direction == 1) {
    Tensor a = readStrided(*findArgument(specs, args, p.getNameA()),
                           p.getShapeA(), p.stridesA);
    Tensor b = readStrided(*findArgument(specs, args, p.getNameB()),
                           p.getShapeB(), p.stridesB);
    const Tensor *c =
        p.hasInputC() ? findArgument(specs, args, p.getNameC()) : nullptr;
    results.push_back(ref::matmul(op(a, p.transposeA), op(b, p.transposeB),
                                  false, false, p.alpha, c, p.beta));
    return;
  }
  const Tensor &dc = args[0];
  if (p.direction == 2) {
    Tensor opBT = transposeMatrices(op(args[1], p.transposeB));
    results.push_back(op(ref::matmul(dc, opBT, false, false, 1.0, nullptr, 0.0),
                         p.transposeA));
    return;
  }
  Tensor opAT = transposeMatrices(op(args[1], p.transposeA));
  results.push_back(op(ref::matmul(opAT, dc, false, false, 1.0, nullptr, 0.0),
                       p.transposeB));
}

} // namespace

LogicalResult mlir::boo::harness::computeReference(
    const MIOpenProblem &problem, const std::vector<HostTensor> &inputs,
    std::vector<Tensor> &results, std::string &error) {
  std::vector<TensorSpec> specs = getProblemSignature(problem).arguments;
  if (inputs.size() != specs.size()) {
    error = "expected " + std::to_string(specs.size()) + " inputs, got " +
            std::to_string(inputs.size());
    return failure();
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string mismatch = describeMismatch(specs[i], inputs[i]);
    if (!mismatch.empty()) {
      error = "input " + std::to_string(i) + " (" + specs[i].name +
              "): " + mismatch;
      return failure();
    }
  }
  std::vector<Tensor> args;
  for (const HostTensor &t : inputs)
    args.push_back(decodeTensor(t));
  results.clear();
  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem)) {
    if (failed(computeConv(*conv, args, results, error)))
      return failure();
  } else if (auto *gemm = std::get_if<MIOpenGemmProblem>(&problem)) {
    computeGemm(*gemm, specs, args, results);
  } else if (auto *bnorm = std::get_if<MIOpenBatchNormProblem>(&problem)) {
    if (failed(computeBatchNorm(*bnorm, specs, args, results, error)))
      return failure();
  } else if (auto *arg = std::get_if<MIOpenArgReduceProblem>(&problem)) {
    if (failed(computeArgReduce(*arg, args, results, error)))
      return failure();
  } else {
    computeLayerNorm(std::get<MIOpenLayerNormProblem>(problem), specs, args,
                     results);
  }
  std::vector<TensorSpec> resultSpecs = getProblemSignature(problem).results;
  for (size_t i = 0; i < results.size(); ++i)
    if (i >= resultSpecs.size() || results[i].shape != resultSpecs[i].shape) {
      error = "internal error: reference result " + std::to_string(i) +
              " does not match the function's results";
      return failure();
    }
  return success();
}
