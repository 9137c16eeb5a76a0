//===- ConvGeometry.h - Convolution problem geometry ------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A convolution's sizes, strides and layouts in one canonical form, shared by
// the verifiers, the linalg lowering and the MIOpen importer.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_DIALECT_BOO_IR_CONVGEOMETRY_H
#define BOO_DIALECT_BOO_IR_CONVGEOMETRY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir::boo {

/// Which tensor of a convolution a layout string describes.
enum class LayoutKind { Activation, Filter };

/// Parses a layout string such as "NHWC" or "KYXC" for a convolution with
/// `spatialRank` spatial dims. On success returns `perm`, where `perm[i]` is
/// the position in the tensor of canonical dim `i`; canonical order is
/// (N, C, spatial...) for activations and (K, C, spatial...) for filters.
/// Activations use N, C, D, H, W; filters K (or F or N), C and Z/D, Y/H, X/W.
FailureOr<SmallVector<int64_t>> parseLayout(StringRef layout, LayoutKind kind,
                                            int64_t spatialRank,
                                            std::string &error);

/// The canonical (MIOpen default) layout string: NCW/NCHW/NCDHW or
/// KCX/KCYX/KCZYX.
std::string defaultLayout(LayoutKind kind, int64_t spatialRank);

/// A convolution problem in canonical form.
struct ConvGeometry {
  int64_t spatialRank = 0;
  int64_t batch = 0;
  int64_t groups = 1;
  int64_t inChannels = 0;  // total, over all groups
  int64_t outChannels = 0; // total, over all groups
  SmallVector<int64_t> inSpatial, filterSpatial, outSpatial;
  SmallVector<int64_t> strides, dilations, padLow, padHigh;
  /// perm[canonical dim] = position in the tensor.
  SmallVector<int64_t> inputPerm, filterPerm, outputPerm;

  int64_t inChannelsPerGroup() const { return inChannels / groups; }
  int64_t outChannelsPerGroup() const { return outChannels / groups; }

  /// The extent of output spatial dim `i` for an input extent `in`.
  int64_t outExtent(int64_t i, int64_t in) const;

  /// Shapes in the layouts of this problem.
  SmallVector<int64_t> inputShape() const;
  SmallVector<int64_t> filterShape() const;
  SmallVector<int64_t> outputShape() const;

  /// Builds the geometry from the input and filter shapes and the attributes
  /// (empty arrays mean the defaults). Returns failure with a message in
  /// `error` for inconsistent problems.
  static FailureOr<ConvGeometry>
  get(ArrayRef<int64_t> inputShape, ArrayRef<int64_t> filterShape,
      ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
      ArrayRef<int64_t> padLow, ArrayRef<int64_t> padHigh, int64_t groups,
      StringRef inputLayout, StringRef filterLayout, StringRef outputLayout,
      std::string &error);
};

} // namespace mlir::boo

#endif // BOO_DIALECT_BOO_IR_CONVGEOMETRY_H
