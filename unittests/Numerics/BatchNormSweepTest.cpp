//===- BatchNormSweepTest.cpp - Randomized batch-norm numerics ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Random batch norms of rank 2 to 5: forward in training (with and without
// running statistics to update) and in inference, and backward. The
// features are usually one channel dim (1, or the last: channels-last),
// sometimes several dims (every dim but the batch: per activation), now
// and then every dim (M = 1) or none; odd extents, reductions of 1 to a few
// thousand values, and now and then hundreds of features of 64 or more
// values each (the GPU's workgroup-per-feature kernels). Weight, bias,
// running and saved statistics each have a type of their own; forward
// cases are sometimes fused with an activation or return only some
// results, backward ones return a non-empty subset of the gradients. See
// docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "SweepHarness.h"

#include <algorithm>
#include <sstream>

using namespace boo;
using namespace boo::sweep;
using ref::Tensor;

namespace {

/// x's shape and the dims its statistics keep.
struct NormShape {
  std::vector<int64_t> x;
  std::vector<int> featureDims;

  std::vector<int64_t> stat() const {
    std::vector<int64_t> s;
    for (int d : featureDims)
      s.push_back(x[d]);
    return s;
  }
  /// M: the values each statistic reduces.
  int64_t reduction() const { return ref::product(x) / ref::product(stat()); }
};

/// Usually one channel dim (1 or the last), sometimes every dim but the
/// batch or a random subset, now and then every dim or none.
std::vector<int> randomFeatureDims(CaseRng &rng, int rank) {
  double p = rng.real(0, 1);
  if (p < 0.42)
    return {1};
  if (p < 0.72)
    return {rank - 1};
  std::vector<int> dims;
  for (int d = 0; d < rank; ++d) {
    bool keep = p < 0.82   ? d > 0       // per activation
                : p < 0.95 ? rng.coin()  // random subset
                : p < 0.98;              // every dim; none
    if (keep)
      dims.push_back(d);
  }
  return dims;
}

/// Small problems: odd extents common, at most 16K elements and 4096
/// values per statistic.
NormShape randomSmallShape(CaseRng &rng) {
  for (;;) {
    NormShape s;
    int rank = static_cast<int>(rng.range(2, 5));
    s.featureDims = randomFeatureDims(rng, rank);
    s.x.assign(rank, 1);
    for (int d = 0; d < rank; ++d) {
      bool feature = std::find(s.featureDims.begin(), s.featureDims.end(),
                               d) != s.featureDims.end();
      s.x[d] = feature ? rng.pick(std::vector<int64_t>{1, 2, 3, 4, 7, 8, 13,
                                                       16, 31, 32, 67})
                       : rng.pick(std::vector<int64_t>{1, 2, 3, 5, 7, 8, 9,
                                                       14, 16, 17, 28, 33});
    }
    if (ref::product(s.x) <= (1 << 14) && s.reduction() <= 4096)
      return s;
  }
}

/// Hundreds of features of 64 to 400 values each, in NCHW, NHWC, NCDHW or
/// per (C, H) of NCHW: one workgroup per feature on the GPU, which takes
/// those of at least 64 values (kMinCooperativeColumns).
NormShape randomWideShape(CaseRng &rng) {
  for (;;) {
    NormShape s;
    int64_t c = rng.pick(std::vector<int64_t>{96, 128, 200, 256, 384});
    int64_t n = rng.range(1, 4), h = rng.range(3, 13), w = rng.range(3, 13);
    int kind = static_cast<int>(rng.range(0, 3));
    if (kind == 0)
      s = {{n, c, h, w}, {1}};
    else if (kind == 1)
      s = {{n, h, w, c}, {3}};
    else if (kind == 2)
      s = {{n, c, 2, h, w}, {1}};
    else
      s = {{n, c / 16, h, 8 * w}, {1, 2}};
    int64_t m = s.reduction();
    if (m >= 64 && m <= 400 && ref::product(s.x) <= 48 * 1024)
      return s;
  }
}

NormShape randomShape(CaseRng &rng) {
  return rng.coin(0.12) ? randomWideShape(rng) : randomSmallShape(rng);
}

/// A parameter's or statistic's type: f32 or x's mostly, else any.
ElementType randomParamType(CaseRng &rng, ElementType t) {
  double p = rng.real(0, 1);
  return p < 0.45 ? ElementType::F32 : p < 0.8 ? t : randomDType(rng);
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

std::string dimsText(const std::vector<int> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

/// "feature_dims = array<i64: ...>" (MLIR spells an empty one array<i64>).
std::string featureDimsAttr(const std::vector<int> &dims) {
  if (dims.empty())
    return "feature_dims = array<i64>";
  return "feature_dims = " +
         i64Array(std::vector<int64_t>(dims.begin(), dims.end()));
}

/// Inputs with an offset and a scale per case, so that the mean is not
/// always near zero and features of the same case differ in variance
/// from case to case.
Tensor randomInput(const std::vector<int64_t> &shape, ElementType t,
                   CaseRng &rng) {
  double offset = rng.coin(0.3) ? 0.0 : rng.real(-4, 4);
  double scale = rng.pick(std::vector<double>{0.05, 0.5, 1, 3});
  return randomTensor(shape, t, rng, offset - scale, offset + scale);
}

std::string typeName(ElementType t) { return getElementTypeName(t); }

//===----------------------------------------------------------------------===//
// Forward
//===----------------------------------------------------------------------===//

/// One forward problem: what the op reads and how it is stored.
struct ForwardProblem {
  NormShape shape;
  ElementType t;
  ref::BatchNormTypes types;
  ElementType weightType, biasType;
  bool training, withWeight, withBias, withRunning;
  double epsilon, momentum;
  Tensor x, weight, bias, runningMean, runningVar;
};

ForwardProblem randomForwardProblem(CaseRng &rng) {
  ForwardProblem p;
  p.shape = randomShape(rng);
  p.t = randomDType(rng);
  p.training = rng.coin(0.65);
  p.withRunning = !p.training || rng.coin(0.6);
  p.withWeight = rng.coin(0.7);
  p.withBias = rng.coin(0.7);
  p.weightType = randomParamType(rng, p.t);
  p.biasType = randomParamType(rng, p.t);
  p.types = {p.t, randomParamType(rng, p.t), randomParamType(rng, p.t),
             randomParamType(rng, p.t), randomParamType(rng, p.t)};
  auto f32 = [](double v) { return ref::roundTo(v, ElementType::F32); };
  p.epsilon = f32(rng.pick(std::vector<double>{1e-5, 1e-5, 1e-3, 1e-6, 0.25}));
  p.momentum = f32(rng.pick(std::vector<double>{0.1, 0.1, 0.01, 0.3, 1, 0}));
  std::vector<int64_t> stat = p.shape.stat();
  p.x = randomInput(p.shape.x, p.t, rng);
  p.weight = randomTensor(stat, p.weightType, rng, -2, 2);
  p.bias = randomTensor(stat, p.biasType, rng, -2, 2);
  p.runningMean = randomTensor(stat, p.types.runningMean, rng, -1, 1);
  p.runningVar = randomTensor(stat, p.types.runningVar, rng, 0.05, 2);
  return p;
}

/// The op's attribute dictionary; default epsilon and momentum are left
/// out half the time.
std::string forwardAttrs(CaseRng &rng, const ForwardProblem &p) {
  std::string attrs = "{" + featureDimsAttr(p.shape.featureDims);
  if (p.training)
    attrs += ", training";
  if (p.epsilon != ref::roundTo(1e-5, ElementType::F32) || rng.coin())
    attrs += ", epsilon = " + f32Attr(p.epsilon);
  bool usesMomentum = p.training && p.withRunning;
  if (p.momentum != ref::roundTo(0.1, ElementType::F32) ||
      (usesMomentum && rng.coin()))
    attrs += ", momentum = " + f32Attr(p.momentum);
  return attrs + "}";
}

/// The results of the op, in order, with their types and references.
struct Results {
  std::vector<std::string> names, types;
  std::vector<Expected> expected;
};

Results forwardResults(const ForwardProblem &p, ref::BatchNormBounded &r) {
  std::vector<int64_t> stat = p.shape.stat();
  const ref::BatchNormTypes &t = p.types;
  Results res;
  res.names = {"y", "mean", "rstd"};
  res.types = {tensorType(p.shape.x, t.y), tensorType(stat, t.mean),
               tensorType(stat, t.rstd)};
  res.expected = {{"y", r.y, t.y},
                  {"mean", r.mean, t.mean},
                  {"rstd", r.rstd, t.rstd}};
  if (p.training && p.withRunning) {
    res.names.push_back("new_running_mean");
    res.names.push_back("new_running_var");
    res.types.push_back(tensorType(stat, t.runningMean));
    res.types.push_back(tensorType(stat, t.runningVar));
    res.expected.push_back({"new_running_mean", r.newRunningMean,
                            t.runningMean});
    res.expected.push_back({"new_running_var", r.newRunningVar,
                            t.runningVar});
  }
  return res;
}

/// Declares the optional operands present; returns their text after x
/// (" weight(...) bias(...) running(...)").
std::string forwardOperands(FuncBuilder &f, const ForwardProblem &p,
                            Case &c) {
  std::vector<int64_t> stat = p.shape.stat();
  std::string text;
  auto operand = [&](const char *name, const Tensor &v, ElementType type) {
    std::string ty = tensorType(stat, type);
    c.args.push_back({name, v, type});
    return std::make_pair(f.arg(ty), ty);
  };
  if (p.withWeight) {
    auto [v, ty] = operand("weight", p.weight, p.weightType);
    text += " weight(" + v + " : " + ty + ")";
  }
  if (p.withBias) {
    auto [v, ty] = operand("bias", p.bias, p.biasType);
    text += " bias(" + v + " : " + ty + ")";
  }
  if (p.withRunning) {
    auto [m, mt] = operand("running_mean", p.runningMean,
                           p.types.runningMean);
    auto [v, vt] = operand("running_var", p.runningVar, p.types.runningVar);
    text += " running(" + m + ", " + v + " : " + mt + ", " + vt + ")";
  }
  return text;
}

/// A non-empty subset of `n` results: all of them (pAll), only the first
/// (pFirst), or a random one.
std::vector<size_t> randomSubset(CaseRng &rng, size_t n, double pAll,
                                 double pFirst) {
  std::vector<size_t> kept;
  double p = rng.real(0, 1);
  for (size_t i = 0; i < n; ++i)
    if (p < pAll || (p < pAll + pFirst ? i == 0 : rng.coin()))
      kept.push_back(i);
  if (kept.empty())
    kept.push_back(rng.range(0, static_cast<int64_t>(n) - 1));
  return kept;
}

/// Emits the batch norm of `operands` (x, weight(...), ...), alone or as
/// the anchor of a boo.fusion whose activation consumes y; sets the case's
/// module and results.
void emitForward(CaseRng &rng, const ForwardProblem &p, FuncBuilder &f,
                 const std::string &operands, Results res, Case &c,
                 std::ostringstream &desc) {
  bool fused = rng.coin(0.25);
  std::string tx = res.types[0], norm = f.fresh(), fusion;
  size_t n = res.names.size();
  std::vector<std::string> values, types;
  // Unfused: all results, only y, or any others. Fused: the activation's
  // result first, then all, none or any of the other results.
  std::vector<size_t> kept = randomSubset(rng, n, 0.65, 0.2);
  if (fused) {
    if (kept[0] != 0)
      kept.insert(kept.begin(), 0);
    fusion = f.fresh();
    f.body() << "  " << fusion << ":" << kept.size() << " = boo.fusion -> ";
    for (size_t k = 0; k < kept.size(); ++k)
      f.body() << (k ? ", " : "") << res.types[kept[k]];
    f.body() << " {\n  ";
  }
  f.body() << "  " << norm << ":" << n << " = boo.batch_norm " << operands
           << " " << forwardAttrs(rng, p) << " : " << tx << " -> ";
  for (size_t i = 0; i < n; ++i)
    f.body() << (i ? ", " : "") << res.types[i];
  f.body() << "\n";
  desc << " results=";
  if (fused) {
    RandomActivation act = randomActivation(rng);
    std::string a = f.fresh();
    f.body() << "    " << a << " = "
             << activationOp(act, norm + "#0", tx) << "\n    boo.yield " << a;
    for (size_t k = 1; k < kept.size(); ++k)
      f.body() << ", " << norm << "#" << kept[k];
    f.body() << " : ";
    for (size_t k = 0; k < kept.size(); ++k)
      f.body() << (k ? ", " : "") << res.types[kept[k]];
    f.body() << "\n  }\n";
    res.expected[0].ref = ref::activationBounded(
        act.kind, res.expected[0].ref, act.params, p.t);
    desc << ref::activationName(act.kind) << "(y)";
  }
  for (size_t k = 0; k < kept.size(); ++k) {
    size_t i = kept[k];
    values.push_back(fused ? fusion + "#" + std::to_string(k)
                           : norm + "#" + std::to_string(i));
    types.push_back(res.types[i]);
    c.results.push_back(res.expected[i]);
    if (!fused || k > 0)
      desc << (k ? "," : "") << res.names[i];
  }
  c.mlir = f.finish(values, types);
}

void describeForward(const ForwardProblem &p, std::ostringstream &desc) {
  auto param = [&](bool present, ElementType t) {
    return present ? typeName(t) : std::string("-");
  };
  desc << "batch_norm " << (p.training ? "training" : "inference") << " "
       << typeName(p.t) << " x=" << shapeText(p.shape.x)
       << " feature_dims=" << dimsText(p.shape.featureDims)
       << " M=" << p.shape.reduction()
       << " weight=" << param(p.withWeight, p.weightType)
       << " bias=" << param(p.withBias, p.biasType) << " running="
       << param(p.withRunning, p.types.runningMean) << "/"
       << param(p.withRunning, p.types.runningVar)
       << " stats=" << typeName(p.types.mean) << "/"
       << typeName(p.types.rstd) << " epsilon=" << p.epsilon
       << " momentum=" << p.momentum;
}

bool makeForward(CaseRng &rng, Case &c) {
  ForwardProblem p = randomForwardProblem(rng);
  ref::BatchNormBounded r = ref::batchNormForwardBounded(
      p.x, p.shape.featureDims, p.withWeight ? &p.weight : nullptr,
      p.withBias ? &p.bias : nullptr,
      p.withRunning ? &p.runningMean : nullptr,
      p.withRunning ? &p.runningVar : nullptr, p.training, p.epsilon,
      p.momentum, p.types);
  FuncBuilder f("batch_norm");
  std::string operands = f.arg(tensorType(p.shape.x, p.t));
  c.args = {{"x", p.x, p.t}};
  operands += forwardOperands(f, p, c);
  std::ostringstream desc;
  describeForward(p, desc);
  emitForward(rng, p, f, operands, forwardResults(p, r), c, desc);
  c.description = desc.str();
  c.vectorize = rng.coin(0.85);
  // Now and then y is written past the caches (boo-cpu-stream-stores), as
  // the CPU pipeline writes results larger than half its last-level cache.
  if (rng.coin(0.3))
    c.streamMinBytes = 1;
  return true;
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

bool makeBackward(CaseRng &rng, Case &c) {
  NormShape s = randomShape(rng);
  ElementType t = randomDType(rng);
  ElementType meanType = randomParamType(rng, t);
  ElementType rstdType = randomParamType(rng, t);
  ElementType weightType = randomParamType(rng, t);
  ElementType paramType = randomParamType(rng, t);
  bool withWeight = rng.coin(0.6);
  double epsilon = ref::roundTo(1e-5, ElementType::F32);
  std::vector<int64_t> stat = s.stat();
  Tensor x = randomInput(s.x, t, rng);
  Tensor dy = randomTensor(s.x, t, rng);
  Tensor w = randomTensor(stat, weightType, rng, -2, 2);
  // The statistics a training forward would have saved, in their types.
  ref::BatchNormResult fwd =
      ref::batchNormForward(x, s.featureDims, Tensor(stat, 1.0),
                            Tensor(stat, 0.0), nullptr, nullptr, true,
                            epsilon, 0.1);
  for (double &v : fwd.mean.data)
    v = ref::roundTo(v, meanType);
  for (double &v : fwd.rstd.data)
    v = ref::roundTo(v, rstdType);
  std::string tx = tensorType(s.x, t), tm = tensorType(stat, meanType),
              tr = tensorType(stat, rstdType),
              tw = tensorType(stat, weightType),
              tp = tensorType(stat, paramType);

  FuncBuilder f("batch_norm_bwd");
  std::string vdy = f.arg(tx), vx = f.arg(tx), vm = f.arg(tm), vr = f.arg(tr);
  c.args = {{"dy", dy, t},
            {"x", x, t},
            {"mean", fwd.mean, meanType},
            {"rstd", fwd.rstd, rstdType}};
  std::string weight;
  if (withWeight) {
    weight = " weight(" + f.arg(tw) + " : " + tw + ")";
    c.args.push_back({"weight", w, weightType});
  }
  std::string g = f.fresh();
  f.body() << "  " << g << ":3 = boo.batch_norm_bwd " << vdy << ", " << vx
           << ", " << vm << ", " << vr << weight << " {"
           << featureDimsAttr(s.featureDims) << "} : " << tx << ", " << tx
           << ", " << tm << ", " << tr << " -> " << tx << ", " << tp << ", "
           << tp << "\n";
  ref::BatchNormGradsBounded r = ref::batchNormBackwardBounded(
      dy, x, fwd.mean, fwd.rstd, withWeight ? &w : nullptr, s.featureDims, t,
      paramType);
  // A non-empty subset of (dx, dweight, dbias); all three half the time.
  int mask = rng.coin() ? 7 : static_cast<int>(rng.range(1, 6));
  std::vector<std::string> values, types;
  const char *names[] = {"dx", "dweight", "dbias"};
  const ref::Bounded *refs[] = {&r.dx, &r.dweight, &r.dbias};
  for (int i = 0; i < 3; ++i)
    if (mask & (1 << i)) {
      values.push_back(g + "#" + std::to_string(i));
      types.push_back(i == 0 ? tx : tp);
      c.results.push_back({names[i], *refs[i], i == 0 ? t : paramType});
    }
  c.mlir = f.finish(values, types);
  std::ostringstream desc;
  desc << "batch_norm_bwd " << typeName(t) << " x=" << shapeText(s.x)
       << " feature_dims=" << dimsText(s.featureDims) << " M=" << s.reduction()
       << " stats=" << typeName(meanType) << "/" << typeName(rstdType)
       << " weight=" << (withWeight ? typeName(weightType) : "-")
       << " grads=" << typeName(paramType) << " results=";
  for (const Expected &e : c.results)
    desc << e.name << ",";
  c.description = desc.str();
  c.vectorize = rng.coin(0.85);
  if (rng.coin(0.3))
    c.streamMinBytes = 1;
  return true;
}

TEST(BatchNormSweep, Forward) {
  runSweep("BatchNormSweep.Forward", 80, makeForward);
}

TEST(BatchNormSweep, Backward) {
  runSweep("BatchNormSweep.Backward", 80, makeBackward);
}

} // namespace
