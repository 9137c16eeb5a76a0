//===- LayerNormSweepTest.cpp - Randomized layer-norm numerics ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Random layer norms, forward (with and without weight and bias, f32 or
// x-typed statistics, now and then fused with an activation) and backward
// (every non-empty subset of the three gradients), normalized_rank 1 up to
// the rank of x, odd row lengths, offset and scaled inputs; and backward
// on many longer rows (BackwardManyRows). See docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "SweepHarness.h"

#include <sstream>

using namespace boo;
using namespace boo::sweep;
using ref::Tensor;

namespace {

/// A random shape of rank 1..4 and a normalized rank, with odd row lengths
/// common and at most 16K elements.
void randomNormShape(CaseRng &rng, std::vector<int64_t> &shape,
                     int &normalizedRank) {
  for (;;) {
    int rank = static_cast<int>(rng.range(1, 4));
    normalizedRank = static_cast<int>(rng.range(1, rank));
    shape.assign(rank, 1);
    for (int d = 0; d < rank; ++d) {
      bool inner = d >= rank - normalizedRank;
      shape[d] = inner ? rng.pick(std::vector<int64_t>{1, 3, 5, 7, 8, 13, 16,
                                                       31, 64, 77, 129, 300})
                       : rng.range(1, 6);
    }
    int64_t rowSize = 1;
    for (int d = rank - normalizedRank; d < rank; ++d)
      rowSize *= shape[d];
    if (ref::product(shape) <= (1 << 14) && rowSize <= 4096)
      return;
  }
}

std::vector<int64_t> leading(const std::vector<int64_t> &shape, int nr) {
  return std::vector<int64_t>(shape.begin(), shape.end() - nr);
}

std::vector<int64_t> trailing(const std::vector<int64_t> &shape, int nr) {
  return std::vector<int64_t>(shape.end() - nr, shape.end());
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "scalar" : s;
}

/// Inputs with an offset and a scale per case, so that the mean is not
/// always near zero and rows have different variances.
Tensor randomRows(const std::vector<int64_t> &shape, ElementType t,
                  CaseRng &rng) {
  double offset = rng.coin(0.3) ? 0.0 : rng.real(-4, 4);
  double scale = rng.pick(std::vector<double>{0.05, 0.5, 1, 3});
  return randomTensor(shape, t, rng, offset - scale, offset + scale);
}

bool makeForward(CaseRng &rng, Case &c) {
  std::vector<int64_t> shape;
  int nr;
  randomNormShape(rng, shape, nr);
  ElementType t = randomDType(rng);
  ElementType statType = rng.coin() ? ElementType::F32 : t;
  bool withWeight = rng.coin(0.6), withBias = rng.coin(0.6);
  bool fused = rng.coin(0.25);
  double epsilon = ref::roundTo(
      rng.pick(std::vector<double>{1e-5, 1e-6, 1e-3, 0.25}), ElementType::F32);
  std::vector<int64_t> inner = trailing(shape, nr), outer = leading(shape, nr);
  Tensor x = randomRows(shape, t, rng);
  Tensor w = randomTensor(inner, t, rng, -2, 2);
  Tensor b = randomTensor(inner, t, rng, -2, 2);
  std::string tx = tensorType(shape, t), tp = tensorType(inner, t),
              ts = tensorType(outer, statType);

  FuncBuilder f("layer_norm");
  c.args = {{"x", x, t}};
  std::string vx = f.arg(tx), params;
  if (withWeight) {
    params += " weight(" + f.arg(tp) + " : " + tp + ")";
    c.args.push_back({"weight", w, t});
  }
  if (withBias) {
    params += " bias(" + f.arg(tp) + " : " + tp + ")";
    c.args.push_back({"bias", b, t});
  }
  std::ostringstream &os = f.body();
  std::string fusion = f.fresh(), norm = f.fresh();
  std::string indent = fused ? "    " : "  ";
  if (fused)
    os << "  " << fusion << ":3 = boo.fusion -> " << tx << ", " << ts << ", "
       << ts << " {\n";
  os << indent << norm << ":3 = boo.layer_norm " << vx << params
     << " {epsilon = " << f32Attr(epsilon) << ", normalized_rank = " << nr
     << " : i64} : " << tx << " -> " << tx << ", " << ts << ", " << ts << "\n";
  ref::LayerNormBounded r = ref::layerNormForwardBounded(
      x, nr, withWeight ? &w : nullptr, withBias ? &b : nullptr, epsilon, t,
      statType);
  std::string y = norm + "#0", mean = norm + "#1", rstd = norm + "#2";
  RandomActivation act = randomActivation(rng);
  if (fused) {
    std::string a = f.fresh();
    os << "    " << a << " = " << activationOp(act, y, tx) << "\n";
    os << "    boo.yield " << a << ", " << mean << ", " << rstd << " : " << tx
       << ", " << ts << ", " << ts << "\n  }\n";
    r.y = ref::activationBounded(act.kind, r.y, act.params, t);
    y = fusion + "#0";
    mean = fusion + "#1";
    rstd = fusion + "#2";
  }
  // Usually all three results; sometimes only y (the statistics are then
  // dead code).
  if (rng.coin(0.75)) {
    c.mlir = f.finish({y, mean, rstd}, {tx, ts, ts});
    c.results = {
        {"y", r.y, t}, {"mean", r.mean, statType}, {"rstd", r.rstd, statType}};
  } else {
    c.mlir = f.finish({y}, {tx});
    c.results = {{"y", r.y, t}};
  }
  std::ostringstream desc;
  desc << (fused ? "fusion{layer_norm -> " +
                       std::string(ref::activationName(act.kind)) + "}"
                 : "layer_norm")
       << " " << getElementTypeName(t) << " x=" << shapeText(shape)
       << " normalized_rank=" << nr << " stats=" << getElementTypeName(statType)
       << " weight=" << withWeight << " bias=" << withBias
       << " epsilon=" << epsilon << " results=" << c.results.size();
  c.description = desc.str();
  c.vectorize = rng.coin(0.85);
  // Now and then y is written past the caches (boo-cpu-stream-stores), as
  // the CPU pipeline writes results larger than half its last-level cache.
  if (rng.coin(0.3))
    c.streamMinBytes = 1;
  return true;
}

/// Many rows, in one or two leading dims (odd and prime counts among
/// them), of 256 to 2048 elements: the CPU computes the weight and bias
/// gradients in the pass over each chunk of rows that computes dx (see
/// docs/CPUPipeline.md), several tiles of rows per chunk at these sizes.
void randomManyRows(CaseRng &rng, std::vector<int64_t> &shape,
                    int &normalizedRank) {
  std::vector<int64_t> rows = {rng.pick(
      std::vector<int64_t>{16, 37, 40, 64, 96, 97, 128, 200, 256, 512})};
  if (rng.coin(0.4))
    rows = {rng.range(2, 6), rng.pick(std::vector<int64_t>{7, 16, 31, 48})};
  int64_t row = rng.pick(std::vector<int64_t>{256, 300, 768, 1024, 2048});
  shape = rows;
  normalizedRank = 1;
  if (row % 16 == 0 && rng.coin(0.3)) {
    shape.push_back(16);
    shape.push_back(row / 16);
    normalizedRank = 2;
  } else {
    shape.push_back(row);
  }
}

/// A layer-norm backward of a shape drawn by `drawShape`.
bool makeBackwardOf(CaseRng &rng, Case &c,
                    void (*drawShape)(CaseRng &, std::vector<int64_t> &,
                                      int &)) {
  std::vector<int64_t> shape;
  int nr;
  drawShape(rng, shape, nr);
  ElementType t = randomDType(rng);
  ElementType statType = rng.coin() ? ElementType::F32 : t;
  bool withWeight = rng.coin(0.6);
  double epsilon = ref::roundTo(1e-5, ElementType::F32);
  std::vector<int64_t> inner = trailing(shape, nr), outer = leading(shape, nr);
  Tensor x = randomRows(shape, t, rng);
  Tensor dy = randomTensor(shape, t, rng);
  Tensor w = randomTensor(inner, t, rng, -2, 2);
  // The statistics a forward pass would have stored, in their storage type.
  ref::LayerNormResult fwd =
      ref::layerNormForward(x, nr, withWeight ? &w : nullptr, nullptr, epsilon);
  for (double &v : fwd.mean.data)
    v = ref::roundTo(v, statType);
  for (double &v : fwd.rstd.data)
    v = ref::roundTo(v, statType);
  std::string tx = tensorType(shape, t), tp = tensorType(inner, t),
              ts = tensorType(outer, statType);

  FuncBuilder f("layer_norm_bwd");
  std::string vdy = f.arg(tx), vx = f.arg(tx), vm = f.arg(ts), vr = f.arg(ts);
  c.args = {{"dy", dy, t},
            {"x", x, t},
            {"mean", fwd.mean, statType},
            {"rstd", fwd.rstd, statType}};
  std::string weight;
  if (withWeight) {
    weight = " weight(" + f.arg(tp) + " : " + tp + ")";
    c.args.push_back({"weight", w, t});
  }
  std::string g = f.fresh();
  f.body() << "  " << g << ":3 = boo.layer_norm_bwd " << vdy << ", " << vx
           << ", " << vm << ", " << vr << weight << " {normalized_rank = " << nr
           << " : i64} : " << tx << ", " << tx << ", " << ts << ", " << ts
           << " -> " << tx << ", " << tp << ", " << tp << "\n";
  ref::LayerNormGradsBounded r = ref::layerNormBackwardBounded(
      dy, x, fwd.mean, fwd.rstd, withWeight ? &w : nullptr, nr, t);
  // A non-empty subset of (dx, dweight, dbias); all three half the time.
  int mask = rng.coin() ? 7 : static_cast<int>(rng.range(1, 6));
  std::vector<std::string> values, types;
  const char *names[] = {"dx", "dweight", "dbias"};
  const ref::Bounded *refs[] = {&r.dx, &r.dweight, &r.dbias};
  for (int i = 0; i < 3; ++i)
    if (mask & (1 << i)) {
      values.push_back(g + "#" + std::to_string(i));
      types.push_back(i == 0 ? tx : tp);
      c.results.push_back({names[i], *refs[i], t});
    }
  c.mlir = f.finish(values, types);
  std::ostringstream desc;
  desc << "layer_norm_bwd " << getElementTypeName(t)
       << " x=" << shapeText(shape) << " normalized_rank=" << nr
       << " stats=" << getElementTypeName(statType) << " weight=" << withWeight
       << " results=";
  for (const Expected &e : c.results)
    desc << e.name << ",";
  c.description = desc.str();
  c.vectorize = rng.coin(0.85);
  return true;
}

bool makeBackward(CaseRng &rng, Case &c) {
  return makeBackwardOf(rng, c, randomNormShape);
}

bool makeBackwardManyRows(CaseRng &rng, Case &c) {
  if (!makeBackwardOf(rng, c, randomManyRows))
    return false;
  c.vectorize = true;
  // Half the time dx is written past the caches (boo-cpu-stream-stores),
  // as the CPU pipeline writes results larger than half its last-level
  // cache, with non-temporal stores where the address is aligned.
  if (rng.coin())
    c.streamMinBytes = 1;
  return true;
}

TEST(LayerNormSweep, Forward) {
  runSweep("LayerNormSweep.Forward", 80, makeForward);
}

TEST(LayerNormSweep, Backward) {
  runSweep("LayerNormSweep.Backward", 80, makeBackward);
}

TEST(LayerNormSweep, BackwardManyRows) {
  runSweep("LayerNormSweep.BackwardManyRows", 24, makeBackwardManyRows);
}

} // namespace
