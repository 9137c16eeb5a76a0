//===- ConvGeometry.cpp - Convolution problem geometry --------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/ConvGeometry.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::boo;

/// Canonical index of `letter` in a layout of `kind`, or -1.
static int64_t canonicalIndex(char letter, LayoutKind kind,
                              int64_t spatialRank) {
  // Spatial letters, outermost first, for each spelling.
  static const char *activationSpatial[] = {"W", "HW", "DHW"};
  static const char *filterSpatial[] = {"X", "YX", "ZYX"};
  static const char *filterSpatialAlt[] = {"W", "HW", "DHW"};
  const char *spatial = activationSpatial[spatialRank - 1];
  if (kind == LayoutKind::Activation) {
    if (letter == 'N')
      return 0;
    if (letter == 'C')
      return 1;
  } else {
    if (letter == 'K' || letter == 'F' || letter == 'N')
      return 0;
    if (letter == 'C')
      return 1;
    spatial = filterSpatial[spatialRank - 1];
    if (const char *p = strchr(filterSpatialAlt[spatialRank - 1], letter))
      return 2 + (p - filterSpatialAlt[spatialRank - 1]);
  }
  if (const char *p = strchr(spatial, letter); p && letter != '\0')
    return 2 + (p - spatial);
  return -1;
}

FailureOr<SmallVector<int64_t>> mlir::boo::parseLayout(StringRef layout,
                                                       LayoutKind kind,
                                                       int64_t spatialRank,
                                                       std::string &error) {
  const char *what = kind == LayoutKind::Activation ? "activation" : "filter";
  if (spatialRank < 1 || spatialRank > 3) {
    error = llvm::formatv("{0}-D convolutions are not supported (1-D, 2-D "
                          "and 3-D are)",
                          spatialRank);
    return failure();
  }
  if (static_cast<int64_t>(layout.size()) != spatialRank + 2) {
    error = llvm::formatv("{0} layout '{1}' has {2} letters, expected {3} "
                          "(e.g. '{4}')",
                          what, layout, layout.size(), spatialRank + 2,
                          defaultLayout(kind, spatialRank));
    return failure();
  }
  SmallVector<int64_t> perm(spatialRank + 2, -1);
  for (auto [pos, letter] : llvm::enumerate(layout)) {
    int64_t idx = canonicalIndex(letter, kind, spatialRank);
    if (idx < 0) {
      error =
          llvm::formatv("{0} layout '{1}' has unexpected letter '{2}' "
                        "(expected a permutation of '{3}')",
                        what, layout, letter, defaultLayout(kind, spatialRank));
      return failure();
    }
    if (perm[idx] != -1) {
      error = llvm::formatv("{0} layout '{1}' names a dim twice (expected a "
                            "permutation of '{2}')",
                            what, layout, defaultLayout(kind, spatialRank));
      return failure();
    }
    perm[idx] = pos;
  }
  return perm;
}

std::string mlir::boo::defaultLayout(LayoutKind kind, int64_t spatialRank) {
  static const char *activation[] = {"NCW", "NCHW", "NCDHW"};
  static const char *filter[] = {"KCX", "KCYX", "KCZYX"};
  if (spatialRank < 1 || spatialRank > 3)
    return "?";
  return kind == LayoutKind::Activation ? activation[spatialRank - 1]
                                        : filter[spatialRank - 1];
}

int64_t ConvGeometry::outExtent(int64_t i, int64_t in) const {
  int64_t window = dilations[i] * (filterSpatial[i] - 1) + 1;
  int64_t padded = in + padLow[i] + padHigh[i];
  if (padded < window)
    return 0;
  return (padded - window) / strides[i] + 1;
}

static SmallVector<int64_t> permuted(ArrayRef<int64_t> canonical,
                                     ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape(canonical.size());
  for (auto [i, p] : llvm::enumerate(perm))
    shape[p] = canonical[i];
  return shape;
}

SmallVector<int64_t> ConvGeometry::inputShape() const {
  SmallVector<int64_t> c = {batch, inChannels};
  llvm::append_range(c, inSpatial);
  return permuted(c, inputPerm);
}

SmallVector<int64_t> ConvGeometry::filterShape() const {
  SmallVector<int64_t> c = {outChannels, inChannelsPerGroup()};
  llvm::append_range(c, filterSpatial);
  return permuted(c, filterPerm);
}

SmallVector<int64_t> ConvGeometry::outputShape() const {
  SmallVector<int64_t> c = {batch, outChannels};
  llvm::append_range(c, outSpatial);
  return permuted(c, outputPerm);
}

/// Fills `out` with `values` or, when empty, `rank` copies of `dflt`.
static LogicalResult getSpatialArray(StringRef name, ArrayRef<int64_t> values,
                                     int64_t rank, int64_t dflt,
                                     int64_t minValue,
                                     SmallVectorImpl<int64_t> &out,
                                     std::string &error) {
  if (values.empty()) {
    out.assign(rank, dflt);
    return success();
  }
  if (static_cast<int64_t>(values.size()) != rank) {
    error = llvm::formatv("'{0}' has {1} values, expected {2} (one per "
                          "spatial dim)",
                          name, values.size(), rank);
    return failure();
  }
  for (int64_t v : values) {
    if (v < minValue) {
      error = llvm::formatv("'{0}' must be {1}, got {2}", name,
                            minValue == 0 ? "non-negative" : "positive", v);
      return failure();
    }
  }
  out.assign(values.begin(), values.end());
  return success();
}

FailureOr<ConvGeometry>
ConvGeometry::get(ArrayRef<int64_t> inputShape, ArrayRef<int64_t> filterShape,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                  ArrayRef<int64_t> padLow, ArrayRef<int64_t> padHigh,
                  int64_t groups, StringRef inputLayout, StringRef filterLayout,
                  StringRef outputLayout, std::string &error) {
  ConvGeometry g;
  int64_t rank = static_cast<int64_t>(inputShape.size());
  if (rank < 3 || rank > 5) {
    error = llvm::formatv("input must have rank 3, 4 or 5 (1-D, 2-D or 3-D "
                          "convolution), got rank {0}",
                          rank);
    return failure();
  }
  if (static_cast<int64_t>(filterShape.size()) != rank) {
    error = llvm::formatv("filter rank {0} does not match input rank {1}",
                          filterShape.size(), rank);
    return failure();
  }
  for (int64_t d : llvm::concat<const int64_t>(inputShape, filterShape)) {
    if (ShapedType::isDynamic(d) || d < 1) {
      error = "all dims must be static and positive";
      return failure();
    }
  }
  g.spatialRank = rank - 2;
  auto layoutOr = [&](StringRef l, LayoutKind k) {
    return l.empty() ? defaultLayout(k, g.spatialRank) : l.str();
  };
  std::string inL = layoutOr(inputLayout, LayoutKind::Activation);
  std::string filL = layoutOr(filterLayout, LayoutKind::Filter);
  std::string outL = layoutOr(outputLayout, LayoutKind::Activation);
  auto inPerm = parseLayout(inL, LayoutKind::Activation, g.spatialRank, error);
  if (failed(inPerm))
    return failure();
  auto filPerm = parseLayout(filL, LayoutKind::Filter, g.spatialRank, error);
  if (failed(filPerm))
    return failure();
  auto outPerm =
      parseLayout(outL, LayoutKind::Activation, g.spatialRank, error);
  if (failed(outPerm))
    return failure();
  g.inputPerm = *inPerm;
  g.filterPerm = *filPerm;
  g.outputPerm = *outPerm;

  if (failed(getSpatialArray("strides", strides, g.spatialRank, 1, 1, g.strides,
                             error)) ||
      failed(getSpatialArray("dilations", dilations, g.spatialRank, 1, 1,
                             g.dilations, error)) ||
      failed(getSpatialArray("padding_low", padLow, g.spatialRank, 0, 0,
                             g.padLow, error)) ||
      failed(getSpatialArray("padding_high", padHigh, g.spatialRank, 0, 0,
                             g.padHigh, error)))
    return failure();
  if (groups < 1) {
    error = llvm::formatv("'groups' must be positive, got {0}", groups);
    return failure();
  }
  g.groups = groups;
  g.batch = inputShape[g.inputPerm[0]];
  g.inChannels = inputShape[g.inputPerm[1]];
  g.outChannels = filterShape[g.filterPerm[0]];
  int64_t filterC = filterShape[g.filterPerm[1]];
  if (g.inChannels % groups != 0) {
    error = llvm::formatv("input channels ({0}) are not divisible by groups "
                          "({1})",
                          g.inChannels, groups);
    return failure();
  }
  if (g.outChannels % groups != 0) {
    error = llvm::formatv("output channels ({0}) are not divisible by groups "
                          "({1})",
                          g.outChannels, groups);
    return failure();
  }
  if (filterC != g.inChannels / groups) {
    error = llvm::formatv("filter has {0} input channels, expected {1} "
                          "(input channels / groups)",
                          filterC, g.inChannels / groups);
    return failure();
  }
  for (int64_t i = 0; i < g.spatialRank; ++i) {
    g.inSpatial.push_back(inputShape[g.inputPerm[2 + i]]);
    g.filterSpatial.push_back(filterShape[g.filterPerm[2 + i]]);
  }
  for (int64_t i = 0; i < g.spatialRank; ++i) {
    int64_t o = g.outExtent(i, g.inSpatial[i]);
    if (o < 1) {
      error = llvm::formatv("output spatial dim {0} would be empty: input "
                            "extent {1} with padding {2}+{3} is smaller than "
                            "the dilated filter extent {4}",
                            i, g.inSpatial[i], g.padLow[i], g.padHigh[i],
                            g.dilations[i] * (g.filterSpatial[i] - 1) + 1);
      return failure();
    }
    g.outSpatial.push_back(o);
  }
  return g;
}
