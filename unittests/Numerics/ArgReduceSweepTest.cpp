//===- ArgReduceSweepTest.cpp - Randomized argmax/argmin numerics ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo.argmax and boo.argmin of rank 1 to 4 in f32/f16/bf16, along one dim
// (negative dims are the importer's) or over all, with and without
// keepdim, checked exactly against the reference (every index). The
// values sit on a coarse grid, so most slices tie (the first index must
// win), and a case in four plants a NaN, +inf or -inf in a few places
// (NaN wins both ways; the first one). A case in five is a large
// reduction with few outputs, which the lowering runs in groups
// (getArgReduceForm: 2^14 or more elements, at most 64 outputs), the
// planted values landing in groups out of their indices' order. See
// docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "SweepHarness.h"

#include <cmath>
#include <limits>
#include <sstream>

using namespace boo;
using namespace boo::sweep;
using ref::Tensor;

namespace {

/// A small shape: rank 1 to 4 of odd and even extents, at most 16K
/// elements.
std::vector<int64_t> randomSmallShape(CaseRng &rng) {
  for (;;) {
    std::vector<int64_t> shape(rng.range(1, 4));
    for (int64_t &d : shape)
      d = rng.pick(std::vector<int64_t>{1, 2, 3, 5, 7, 8, 16, 17, 33, 70});
    if (ref::product(shape) <= (1 << 14))
      return shape;
  }
}

/// A large reduction with few outputs: the reduced extent 2^14 to 2^16
/// (a multiple of 8 and of a few odd factors) and at most 3 kept, at most
/// 64K elements in all.
std::vector<int64_t> randomLargeShape(CaseRng &rng, std::optional<int> &dim) {
  int64_t extent = rng.pick(std::vector<int64_t>{1 << 14, 3 << 14, 5 << 13,
                                                 1 << 16, 9 << 12});
  int64_t kept = rng.pick(std::vector<int64_t>{1, 2, 3});
  while (extent * kept > (1 << 16))
    --kept;
  if (rng.coin(0.3)) {
    dim.reset(); // over all of an input of `extent` elements
    return rng.coin() ? std::vector<int64_t>{extent}
                      : std::vector<int64_t>{8, extent / 8};
  }
  dim = static_cast<int>(rng.range(0, 1));
  return *dim == 0 ? std::vector<int64_t>{extent, kept}
                   : std::vector<int64_t>{kept, extent};
}

/// Values on a grid of a few levels (ties everywhere); in a case of four,
/// NaN and infinities planted at random places.
Tensor randomValues(const std::vector<int64_t> &shape, ElementType t,
                    CaseRng &rng) {
  Tensor x(shape);
  int64_t levels = rng.pick(std::vector<int64_t>{2, 5, 40});
  for (double &v : x.data)
    v = ref::roundTo(static_cast<double>(rng.range(0, levels - 1)) / 4 - 2,
                     t);
  if (rng.coin(0.25)) {
    double inf = std::numeric_limits<double>::infinity();
    std::vector<double> specials = {std::nan(""), inf, -inf};
    for (int64_t i = rng.range(1, 4); i > 0; --i)
      x.data[rng.range(0, x.size() - 1)] = rng.pick(specials);
  }
  return x;
}

bool makeArgReduce(CaseRng &rng, Case &c) {
  std::optional<int> dim;
  bool large = rng.coin(0.2);
  std::vector<int64_t> shape;
  if (large) {
    shape = randomLargeShape(rng, dim);
  } else {
    shape = randomSmallShape(rng);
    if (rng.coin(0.75))
      dim = static_cast<int>(rng.range(0, shape.size() - 1));
  }
  bool isMax = rng.coin(), keepdim = rng.coin();
  ElementType t = randomDType(rng);
  Tensor x = randomValues(shape, t, rng);
  Tensor index = ref::argReduce(x, dim, keepdim, isMax);

  FuncBuilder f("argreduce");
  std::string vx = f.arg(tensorType(shape, t));
  std::string y = f.fresh(), to = tensorType(index.shape, ElementType::I64);
  std::ostringstream attrs;
  if (dim || keepdim) {
    attrs << " {";
    if (dim)
      attrs << "dim = " << *dim << " : i64" << (keepdim ? ", " : "");
    if (keepdim)
      attrs << "keepdim";
    attrs << "}";
  }
  f.body() << "  " << y << " = boo." << (isMax ? "argmax " : "argmin ") << vx
           << attrs.str() << " : " << tensorType(shape, t) << " -> " << to
           << "\n";
  c.mlir = f.finish({y}, {to});
  c.args = {{"input", x, t}};
  c.results = {{"indices", ref::exact(index), ElementType::I64}};
  std::ostringstream desc;
  desc << (isMax ? "argmax " : "argmin ") << tensorType(shape, t)
       << attrs.str() << (large ? " (large)" : "");
  c.description = desc.str();
  c.vectorize = rng.coin(0.85);
  return true;
}

TEST(ArgReduceSweep, Indices) {
  runSweep("ArgReduceSweep.Indices", 40, makeArgReduce);
}

} // namespace
