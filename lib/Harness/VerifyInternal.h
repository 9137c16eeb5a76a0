//===- VerifyInternal.h - What the Verify*.cpp files share ------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Harness: the reference's view of host tensors (its element
// types and its own codec), the norms' shapes, and the formatting of
// the checks' messages, for the parts of Boo/Harness/Verify.h:
// VerifySignatures.cpp (arguments, results, codec), VerifyInputs.cpp,
// VerifyReference.cpp and VerifyChecks.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_HARNESS_VERIFYINTERNAL_H
#define BOO_LIB_HARNESS_VERIFYINTERNAL_H

#include "Boo/Harness/Verify.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::boo::harness::detail {

// The reference's names, as the Verify*.cpp files spell them.
namespace ref = ::boo::ref;
using ref::Tensor;

std::vector<int64_t> toVector(ArrayRef<int64_t> values);

/// "2x3x4" ("scalar" for rank 0).
std::string formatShape(const std::vector<int64_t> &shape);

/// `v` printed with the printf format `format`.
std::string formatDouble(double v, const char *format = "%.3g");

/// Element `i` of `t` decoded with the reference's codec, not HostTensor's,
/// so that a codec bug shared with the runner cannot cancel out; integer
/// types (an arg-reduction's i64 indices) as the integers they store.
double readElement(const HostTensor &t, ElementType type, int64_t i);

/// Stores `v` rounded to `type` as element `i` of `t`, with the reference's
/// codec (integer types: `v` rounded to the nearest integer).
void writeElement(HostTensor &t, ElementType type, int64_t i, double v);

/// Every element of `t`, decoded with readElement.
Tensor decodeTensor(const HostTensor &t);

/// The layer norm's shapes: x, the statistics (leading dims) and the
/// parameters (normalized dims).
struct LayerNormShapes {
  std::vector<int64_t> x, stat, param;
  int64_t rows, rowSize;
};

LayerNormShapes getShapes(const MIOpenLayerNormProblem &p);

/// The batch norm's shapes: x, the statistics (and weight, bias), the dims
/// of x the statistics keep (from the layout string and the mode, not from
/// the importer's getFeatureDims), and for every element of x (row-major)
/// the index of its feature in the statistics.
struct BatchNormShapes {
  std::vector<int64_t> x, stat;
  std::vector<int> featureDims;
  std::vector<int64_t> featureOf;
  /// Elements per feature (M).
  int64_t reduction;
};

BatchNormShapes getShapes(const MIOpenBatchNormProblem &p);

/// Finds the argument named `name`, or null.
const Tensor *findArgument(const std::vector<TensorSpec> &specs,
                           const std::vector<Tensor> &args, StringRef name);

/// Empty if `t` has the shape and type of `spec` (and the bytes for them),
/// else what is wrong.
std::string describeMismatch(const TensorSpec &spec, const HostTensor &t);

} // namespace mlir::boo::harness::detail

#endif // BOO_LIB_HARNESS_VERIFYINTERNAL_H
