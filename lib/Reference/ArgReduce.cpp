//===- ArgReduce.cpp - Independent reference of argmax and argmin ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// argmax and argmin from PyTorch's definition: one scan of each slice in
// index order, keeping the first index of the best value. A NaN is "better"
// than any number for both, so the first NaN of a slice wins and stops the
// comparison. Values are compared as decoded doubles, which hold f32, f16
// and bf16 values exactly.
//
//===----------------------------------------------------------------------===//

#include "Boo/Reference/Reference.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace boo::ref {

namespace {

/// Misuse of the reference is a bug in the test that calls it: report and
/// abort (tests are built without exceptions and with NDEBUG).
[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "boo::ref: %s\n", message.c_str());
  std::abort();
}

/// Whether `v` replaces `best` as the slice's answer: strictly better, or
/// the first NaN.
bool replaces(double v, double best, bool isMax) {
  if (std::isnan(best))
    return false;
  if (std::isnan(v))
    return true;
  return isMax ? v > best : v < best;
}

} // namespace

Tensor argReduce(const Tensor &x, std::optional<int> dim, bool keepdim,
                 bool isMax) {
  int rank = static_cast<int>(x.shape.size());
  if (dim && (*dim < 0 || *dim >= rank))
    fatal("argReduce: dim " + std::to_string(*dim) + " is not a dim of a " +
          "rank-" + std::to_string(rank) + " tensor");
  if (x.size() == 0)
    fatal("argReduce: an empty tensor has no argmax or argmin");
  // x as [outer, n, inner]: slice (o, i) holds x[(o * n + j) * inner + i]
  // for j in [0, n).
  int64_t outer = 1, n = x.size(), inner = 1;
  std::vector<int64_t> shape;
  if (dim) {
    for (int d = 0; d < *dim; ++d)
      outer *= x.shape[d];
    n = x.shape[*dim];
    for (int d = *dim + 1; d < rank; ++d)
      inner *= x.shape[d];
  }
  for (int d = 0; d < rank; ++d) {
    bool reduced = !dim || d == *dim;
    if (!reduced || keepdim)
      shape.push_back(reduced ? 1 : x.shape[d]);
  }
  Tensor result(shape);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return x.data[(o * n + j) * inner + i]; };
      int64_t best = 0;
      for (int64_t j = 1; j < n; ++j)
        if (replaces(at(j), at(best), isMax))
          best = j;
      result.data[o * inner + i] = static_cast<double>(best);
    }
  }
  return result;
}

} // namespace boo::ref
