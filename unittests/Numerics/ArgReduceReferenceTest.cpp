//===- ArgReduceReferenceTest.cpp - argmax/argmin reference by hand -------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The arg-reduction reference on tiny tensors whose answers are worked out
// in the comments: ties keep the first index, the first NaN wins for both
// argmax and argmin, infinities are ordinary values, -0 ties +0, and the
// slices along a middle dim are strided.
//
//===----------------------------------------------------------------------===//

#include "Boo/Reference/Reference.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace boo::ref;
using boo::ElementType;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor makeTensor(std::vector<int64_t> shape, std::vector<double> values) {
  Tensor t(std::move(shape));
  EXPECT_EQ(t.size(), static_cast<int64_t>(values.size()));
  t.data = std::move(values);
  return t;
}

void expectIndices(const Tensor &t, const std::vector<int64_t> &shape,
                   const std::vector<double> &expected) {
  EXPECT_EQ(t.shape, shape);
  ASSERT_EQ(t.size(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(t.data[i], expected[i]) << "at index " << i;
}

TEST(ReferenceArgReduce, TiesKeepTheFirstIndex) {
  // [[1, 3, 3],
  //  [2, 2, 0]]
  Tensor x = makeTensor({2, 3}, {1, 3, 3, 2, 2, 0});
  // Rows: the max 3 first at 1, then 2 first at 0; the min 1 at 0, 0 at 2.
  expectIndices(argReduce(x, 1, false, true), {2}, {1, 0});
  expectIndices(argReduce(x, 1, false, false), {2}, {0, 2});
  // Columns: (1, 2) -> 1, (3, 2) -> 0, (3, 0) -> 0; the mins 0, 1, 1.
  expectIndices(argReduce(x, 0, false, true), {3}, {1, 0, 0});
  expectIndices(argReduce(x, 0, false, false), {3}, {0, 1, 1});
  // keepdim keeps the reduced dim as a 1.
  expectIndices(argReduce(x, 1, true, true), {2, 1}, {1, 0});
  expectIndices(argReduce(x, 0, true, false), {1, 3}, {0, 1, 1});
  // All of x, row-major [1, 3, 3, 2, 2, 0]: the first 3 at 1, the 0 at 5;
  // rank 0, or all 1s under keepdim.
  expectIndices(argReduce(x, std::nullopt, false, true), {}, {1});
  expectIndices(argReduce(x, std::nullopt, false, false), {}, {5});
  expectIndices(argReduce(x, std::nullopt, true, true), {1, 1}, {1});
  // Every value equal: index 0.
  Tensor splat(std::vector<int64_t>{4}, 0.25);
  expectIndices(argReduce(splat, 0, false, true), {}, {0});
  expectIndices(argReduce(splat, 0, false, false), {}, {0});
}

TEST(ReferenceArgReduce, MiddleDimIsStrided) {
  // x[o][j][i] for o in 2, j in 3, i in 2:
  //   o = 0: j rows (5, 1), (5, 2), (4, 2)
  //   o = 1: j rows (0, 9), (1, 9), (1, 8)
  Tensor x = makeTensor({2, 3, 2}, {5, 1, 5, 2, 4, 2, 0, 9, 1, 9, 1, 8});
  // argmax over j: (5, 5, 4) -> 0, (1, 2, 2) -> 1, (0, 1, 1) -> 1,
  // (9, 9, 8) -> 0. argmin: 4 at 2, 1 at 0, 0 at 0, 8 at 2.
  expectIndices(argReduce(x, 1, false, true), {2, 2}, {0, 1, 1, 0});
  expectIndices(argReduce(x, 1, false, false), {2, 2}, {2, 0, 0, 2});
  expectIndices(argReduce(x, 1, true, true), {2, 1, 2}, {0, 1, 1, 0});
  // The last dim: pairs (5, 1) (5, 2) (4, 2) (0, 9) (1, 9) (1, 8).
  expectIndices(argReduce(x, 2, false, true), {2, 3}, {0, 0, 0, 1, 1, 1});
  // The first dim: (5, 0) (1, 9) (5, 1) (2, 9) (4, 1) (2, 8) for argmin.
  expectIndices(argReduce(x, 0, false, false), {3, 2}, {1, 0, 1, 0, 1, 0});
  // All of x: the first 9 is at 7, the first 0 at 6.
  expectIndices(argReduce(x, std::nullopt, false, true), {}, {7});
  expectIndices(argReduce(x, std::nullopt, false, false), {}, {6});
}

TEST(ReferenceArgReduce, NaNWinsAndInfinitiesCompare) {
  // Row 0: NaN at 1 and 3: the first, 1, for both.
  // Row 1: +inf at 0 and 2 (argmax 0), -inf at 1 (argmin 1).
  // Row 2: -inf twice, then 7, then NaN: NaN at 3 for both.
  // Row 3: NaN first: 0 for both.
  Tensor x = makeTensor({4, 4}, {1, kNaN, 5, kNaN,     //
                                 kInf, -kInf, kInf, 2, //
                                 -kInf, -kInf, 7, kNaN, kNaN, 9, -9, kNaN});
  expectIndices(argReduce(x, 1, false, true), {4}, {1, 0, 3, 0});
  expectIndices(argReduce(x, 1, false, false), {4}, {1, 1, 3, 0});
  // Columns: col 0 (1, inf, -inf, NaN) -> NaN at 3 for both; col 1 (NaN,
  // ...) -> 0; col 2 (5, inf, 7, -9): max 1, min 3; col 3 (NaN, ...) -> 0.
  expectIndices(argReduce(x, 0, false, true), {4}, {3, 0, 1, 0});
  expectIndices(argReduce(x, 0, false, false), {4}, {3, 0, 3, 0});
  // All of x: the first NaN is at 1.
  expectIndices(argReduce(x, std::nullopt, false, false), {}, {1});
  // Only infinities: the first of the extreme one.
  Tensor inf = makeTensor({4}, {-kInf, kInf, -kInf, kInf});
  expectIndices(argReduce(inf, 0, false, true), {}, {1});
  expectIndices(argReduce(inf, 0, false, false), {}, {0});
}

TEST(ReferenceArgReduce, SignedZerosTieAndValuesAreExact) {
  // -0 == +0: a tie, so the first index either way.
  Tensor zeros = makeTensor({2, 2}, {0.0, -0.0, -0.0, 0.0});
  expectIndices(argReduce(zeros, 1, false, true), {2}, {0, 0});
  expectIndices(argReduce(zeros, 1, false, false), {2}, {0, 0});
  // f16 values one ulp apart at 1 (2^-10) are distinct: the larger wins.
  double up = roundTo(1 + 0x1p-10, ElementType::F16);
  ASSERT_NE(up, 1.0);
  Tensor f16 = makeTensor({3}, {1.0, up, 1.0});
  expectIndices(argReduce(f16, 0, false, true), {}, {1});
  expectIndices(argReduce(f16, 0, false, false), {}, {0});
}

} // namespace
