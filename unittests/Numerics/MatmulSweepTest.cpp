//===- MatmulSweepTest.cpp - Randomized matrix-product numerics -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo.matmul in f32/f16/bf16/f64: 2-D and batched, either operand transposed,
// sizes that no tile divides next to ones the MMA intrinsics take, alpha,
// and a bias of every broadcast shape scaled by beta, alone or followed by
// an activation (which the pipeline fuses; not in f64); and products wide enough for
// the CPU's operand copies (B packed per block of columns, a transposed A
// copied back). See docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "SweepHarness.h"

#include <algorithm>
#include <optional>
#include <sstream>

using namespace boo;
using namespace boo::sweep;
using ref::Tensor;

namespace {

/// A size: small and odd ones, and multiples of the MMA tiles.
int64_t randomSize(CaseRng &rng) {
  return rng.pick(std::vector<int64_t>{1, 2, 3, 5, 7, 13, 16, 17, 32, 33, 48,
                                       64, 70});
}

/// A bias shape that broadcasts to `out` (rank 0 to out's rank, each dim 1
/// or out's).
std::vector<int64_t> randomBiasShape(CaseRng &rng,
                                     const std::vector<int64_t> &out) {
  int64_t rank = rng.range(0, static_cast<int64_t>(out.size()));
  std::vector<int64_t> shape(out.end() - rank, out.end());
  for (int64_t &d : shape)
    if (rng.coin(0.3))
      d = 1;
  return shape;
}

/// Scales: 1, powers of two, and values that round; f32 values, but for
/// f64 products, whose alpha and beta are f64 (0.1, 1/3).
double randomScale(CaseRng &rng, ElementType t) {
  if (t == ElementType::F64 && rng.coin())
    return rng.pick(std::vector<double>{0.1, 1.0 / 3, -2.7});
  return rng.pick(std::vector<double>{1.0, 2.0, 0.5, -1.25,
                                      static_cast<float>(0.3),
                                      static_cast<float>(-0.7)});
}

/// The sizes of one product: batch (0: 2-D), M, N, K.
struct Sizes {
  int64_t batch, m, n, k;
};

/// Small products: sizes no tile divides and the MMA intrinsics' sizes.
std::optional<Sizes> randomSmallSizes(CaseRng &rng) {
  bool batched = rng.coin(0.3);
  Sizes s{batched ? rng.range(1, 3) : 0, randomSize(rng), randomSize(rng),
          randomSize(rng)};
  if (std::max<int64_t>(s.batch, 1) * s.m * s.n * s.k > 150000)
    return std::nullopt;
  return s;
}

/// Products whose M or N reaches the 512 rows (columns) for which the CPU
/// packs B in blocks of columns (a slab) or copies a transposed A back
/// (kMinSingleReductionSlabReaders), with few K and the other size small.
std::optional<Sizes> randomWideSizes(CaseRng &rng) {
  int64_t wide = rng.pick(std::vector<int64_t>{512, 544, 640, 1000});
  int64_t narrow = rng.pick(std::vector<int64_t>{1, 5, 40, 64, 96, 128});
  bool wideM = rng.coin();
  return Sizes{rng.coin(0.2) ? 2 : 0, wideM ? wide : narrow,
               wideM ? narrow : wide,
               rng.pick(std::vector<int64_t>{3, 16, 48, 72})};
}

/// Products with at most 64 rows and 256 to 624 reductions (16 to 39
/// registers): where B is stored [N][K] (transpose_rhs), or both inputs
/// are, the CPU computes them as dot products along K (computeDotTiles).
std::optional<Sizes> randomDotSizes(CaseRng &rng) {
  return Sizes{rng.coin(0.3) ? rng.range(1, 3) : 0, rng.range(1, 64),
               rng.range(1, 100), 16 * rng.range(16, 39)};
}

bool makeMatmulOf(CaseRng &rng, Case &c,
                  std::optional<Sizes> (*randomSizes)(CaseRng &)) {
  std::optional<Sizes> sizes = randomSizes(rng);
  if (!sizes)
    return false;
  bool batched = sizes->batch > 0;
  int64_t batch = sizes->batch, m = sizes->m, n = sizes->n, k = sizes->k;
  bool ta = rng.coin(), tb = rng.coin();
  // f64 (PyTorch's double bmm) accumulates in f64 and takes no activation.
  ElementType t = rng.coin(0.2) ? ElementType::F64 : randomDType(rng);
  auto matrix = [&](int64_t rows, int64_t cols, bool transposed) {
    std::vector<int64_t> shape = {transposed ? cols : rows,
                                  transposed ? rows : cols};
    if (batched)
      shape.insert(shape.begin(), batch);
    return shape;
  };
  std::vector<int64_t> sa = matrix(m, k, ta), sb = matrix(k, n, tb),
                       so = matrix(m, n, false);
  Tensor a = randomTensor(sa, t, rng), b = randomTensor(sb, t, rng);
  bool withBias = rng.coin();
  std::vector<int64_t> sbias = withBias ? randomBiasShape(rng, so)
                                        : std::vector<int64_t>{};
  Tensor bias = withBias ? randomTensor(sbias, t, rng) : Tensor();
  double alpha = rng.coin() ? 1.0 : randomScale(rng, t);
  double beta = withBias && rng.coin() ? randomScale(rng, t) : 1.0;

  FuncBuilder f("matmul");
  std::string va = f.arg(tensorType(sa, t)), vb = f.arg(tensorType(sb, t));
  std::string vbias = withBias ? f.arg(tensorType(sbias, t)) : "";
  std::string y = f.fresh(), to = tensorType(so, t);
  std::vector<std::string> attrs;
  if (ta)
    attrs.push_back("transpose_lhs");
  if (tb)
    attrs.push_back("transpose_rhs");
  if (alpha != 1.0)
    attrs.push_back("alpha = " + f64Attr(alpha));
  if (beta != 1.0)
    attrs.push_back("beta = " + f64Attr(beta));
  std::ostringstream attrText;
  for (size_t i = 0; i < attrs.size(); ++i)
    attrText << (i ? ", " : " {") << attrs[i]
             << (i + 1 == attrs.size() ? "}" : "");
  f.body() << "  " << y << " = boo.matmul " << va << ", " << vb;
  if (withBias)
    f.body() << " bias(" << vbias << " : " << tensorType(sbias, t) << ")";
  f.body() << attrText.str() << " : " << tensorType(sa, t) << ", "
           << tensorType(sb, t) << " -> " << to << "\n";
  ref::Bounded value = ref::matmulBounded(a, b, ta, tb, alpha,
                                          withBias ? &bias : nullptr, beta, t);
  c.args = {{"lhs", a, t}, {"rhs", b, t}};
  if (withBias)
    c.args.push_back({"bias", bias, t});

  std::ostringstream desc;
  desc << "matmul " << tensorType(sa, t) << " x " << tensorType(sb, t)
       << attrText.str();
  if (withBias)
    desc << " bias " << tensorType(sbias, t);
  std::string result = y;
  if (t != ElementType::F64 && rng.coin(0.3)) {
    RandomActivation act = randomActivation(rng);
    result = f.fresh();
    f.body() << "  " << result << " = " << activationOp(act, y, to) << "\n";
    value = ref::activationBounded(act.kind, value, act.params, t);
    desc << " + " << ref::activationName(act.kind);
  }
  c.mlir = f.finish({result}, {to});
  c.results = {{"output", value, t}};
  c.description = desc.str();
  c.vectorize = rng.coin(0.85);
  return true;
}

bool makeMatmul(CaseRng &rng, Case &c) {
  return makeMatmulOf(rng, c, randomSmallSizes);
}

/// Wide products at pack-min-bytes=1, so that every slab is packed per
/// block (a 1 MiB B is the default's threshold).
bool makeWideMatmul(CaseRng &rng, Case &c) {
  if (!makeMatmulOf(rng, c, randomWideSizes))
    return false;
  c.vectorize = true;
  c.packMinBytes = 1;
  return true;
}

TEST(MatmulSweep, Products) {
  runSweep("MatmulSweep.Products", 60, makeMatmul);
}

/// Dot-product products: B mostly stored [N][K], every register budget.
bool makeDotMatmul(CaseRng &rng, Case &c) {
  if (!makeMatmulOf(rng, c, randomDotSizes))
    return false;
  c.vectorize = true;
  c.accumulatorLanes = rng.pick(std::vector<int64_t>{0, 0, 96, 48});
  return true;
}

TEST(MatmulSweep, DotTiles) {
  if (getSweepOptions(0).device != "cpu")
    GTEST_SKIP() << "dot tiles are a CPU schedule";
  runSweep("MatmulSweep.DotTiles", 40, makeDotMatmul);
}

TEST(MatmulSweep, WideOperandCopies) {
  if (getSweepOptions(0).device != "cpu")
    GTEST_SKIP() << "the operand copies are a CPU schedule's";
  runSweep("MatmulSweep.WideOperandCopies", 30, makeWideMatmul);
}

} // namespace
