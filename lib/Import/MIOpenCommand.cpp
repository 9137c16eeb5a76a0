//===- MIOpenCommand.cpp - Parse MIOpenDriver command lines ---------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The flag tables below mirror MIOpenDriver's (driver/conv_driver.hpp and
// driver/layernorm_driver.hpp, AddCmdLineArgs; gemm's are in
// MIOpenGemm.cpp): the same long names, short letters and defaults, so that
// a command copied from MIOpen's logs (MIOPEN_ENABLE_LOGGING_CMD) or from
// IREE BOO's sample commands means the same problem here. Flags that only steer MIOpenDriver's benchmark loop are
// accepted and ignored. Everything we cannot honour is rejected with one
// message that names the flag, rather than silently computing something else.
//
//===----------------------------------------------------------------------===//

#include "Boo/Import/MIOpenImport.h"
#include "MIOpenFlags.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"
#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {

//===----------------------------------------------------------------------===//
// Flag tables
//===----------------------------------------------------------------------===//

// clang-format off
/// MIOpenDriver `conv*` flags (conv_driver.hpp). `bias` defaults to "" in
/// MIOpen, which atoi reads as 0.
const FlagSpec convFlags[] = {
  // long name             short default    type   ignored meaning
  {"spatial_dim",          '_', "2",       Int,   false, "1-D (IREE BOO), 2-D or 3-D convolution"},
  {"forw",                 'F', "0",       Int,   false, "direction: 1 fwd, 2 bwd data, 4 bwd weight, 6 both bwd"},
  {"batchsize",            'n', "100",     Int,   false, "batch size N"},
  {"in_channels",          'c', "3",       Int,   false, "input channels C (all groups)"},
  {"in_d",                 '!', "32",      Int,   false, "input depth (3-D)"},
  {"in_h",                 'H', "32",      Int,   false, "input height"},
  {"in_w",                 'W', "32",      Int,   false, "input width"},
  {"out_channels",         'k', "32",      Int,   false, "output channels K (all groups)"},
  {"fil_d",                '@', "3",       Int,   false, "filter depth (3-D)"},
  {"fil_h",                'y', "3",       Int,   false, "filter height"},
  {"fil_w",                'x', "3",       Int,   false, "filter width"},
  {"conv_stride_d",        '#', "1",       Int,   false, "stride in depth (3-D)"},
  {"conv_stride_h",        'u', "1",       Int,   false, "stride in height"},
  {"conv_stride_w",        'v', "1",       Int,   false, "stride in width"},
  {"pad_d",                '$', "0",       Int,   false, "zero padding in depth, both sides (3-D)"},
  {"pad_h",                'p', "0",       Int,   false, "zero padding in height, both sides"},
  {"pad_w",                'q', "0",       Int,   false, "zero padding in width, both sides"},
  {"dilation_d",           '^', "1",       Int,   false, "filter dilation in depth (3-D)"},
  {"dilation_h",           'l', "1",       Int,   false, "filter dilation in height"},
  {"dilation_w",           'j', "1",       Int,   false, "filter dilation in width"},
  {"group_count",          'g', "1",       Int,   false, "groups G"},
  {"in_layout",            'I', "",        Str,   false, "input layout (default NCHW / NCDHW)"},
  {"fil_layout",           'f', "",        Str,   false, "filter layout, activation letters (NHWC = K,Y,X,C)"},
  {"out_layout",           'O', "",        Str,   false, "output layout (default NCHW / NCDHW)"},
  {"bias",                 'b', "0",       Int,   false, "non-zero: bias operand (fwd) or bias gradient (bwd)"},
  {"mode",                 'm', "conv",    Str,   false, "conv (trans is rejected)"},
  {"pad_mode",             'z', "default", Str,   false, "default, same or valid"},
  {"trans_output_pad_d",   '%', "0",       Int,   true,  "output padding of transposed conv (unused for conv)"},
  {"trans_output_pad_h",   'Y', "0",       Int,   true,  "output padding of transposed conv (unused for conv)"},
  {"trans_output_pad_w",   'X', "0",       Int,   true,  "output padding of transposed conv (unused for conv)"},
  {"tensor_vect",          'Z', "0",       Int,   false, "int8 vectorized layout (only 0)"},
  {"vector_length",        'L', "1",       Int,   false, "int8 vector length (only 1)"},
  {"in_cast_type",         'U', "-1",      Str,   false, "fp8 cast of the input (only -1, none)"},
  {"out_cast_type",        'T', "-1",      Str,   false, "fp8 cast of the output (only -1, none)"},
  {"wei_cast_type",        'R', "-1",      Str,   false, "fp8 cast of the filter (only -1, none)"},
  {"pad_val",              'r', "0",       Int,   true,  "padding value (unused by MIOpen)"},
  {"iter",                 'i', "10",      Int,   true,  "benchmark iterations"},
  {"verify",               'V', "1",       Int,   true,  "verify against a reference"},
  {"verification_cache",   'C', "",        Str,   true,  "verification cache directory"},
  {"time",                 't', "0",       Int,   true,  "time each layer"},
  {"wall",                 'w', "0",       Int,   true,  "wall-clock timing"},
  {"search",               's', "0",       Int,   true,  "search kernel configs"},
  {"printconv",            'P', "1",       Int,   true,  "print the problem"},
  {"dump_output",          'o', "0",       Int,   true,  "dump output buffers"},
  {"in_data",              'd', "",        Str,   true,  "input data file"},
  {"weights",              'e', "",        Str,   true,  "weights file"},
  {"in_bias",              'a', "",        Str,   true,  "bias data file"},
  {"dout_data",            'D', "",        Str,   true,  "output gradient data file"},
  {"solution",             'S', "-1",      Str,   true,  "immediate-mode solution id or name"},
  {"gpualloc",             'G', "0",       Int,   true,  "allocate and init buffers on the GPU"},
};

/// MIOpenDriver `layernorm*` flags (layernorm_driver.hpp).
const FlagSpec layerNormFlags[] = {
  {"forw",                 'F', "1",           Int,   false, "direction: 1 fwd, 2 dx, 4 dweight, 8 dbias, 14 all (IREE BOO)"},
  {"input",                'X', "100x3x32x32", Str,   false, "input lengths, outermost first"},
  {"eps",                  'e', "0.00001",     Float, false, "epsilon"},
  {"normalized_dim",       'o', "3",           Int,   false, "first normalized dim"},
  {"mode",                 'm', "0",           Int,   false, "0: no weight/bias, 1: weight and bias"},
  {"iter",                 'i', "10",          Int,   true,  "benchmark iterations"},
  {"verify",               'V', "1",           Int,   true,  "verify against a reference"},
  {"time",                 't', "0",           Int,   true,  "time each layer"},
  {"wall",                 'w', "0",           Int,   true,  "wall-clock timing"},
};
// clang-format on

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Long-name suffixes and words for the spatial dims, outermost first.
struct SpatialDim {
  StringLiteral suffix, word;
};
const SpatialDim spatialDims1D[] = {{"w", "width"}};
const SpatialDim spatialDims2D[] = {{"h", "height"}, {"w", "width"}};
const SpatialDim spatialDims3D[] = {
    {"d", "depth"}, {"h", "height"}, {"w", "width"}};

/// Reads one layout flag: upper-cased (MIOpenDriver upper-cases layouts),
/// MIOpen's default when absent, and checked to be a permutation.
FailureOr<std::string> getLayout(const FlagValues &flags, StringRef longName,
                                 LayoutKind kind, int64_t spatialRank) {
  std::string layout = flags.getString(longName).upper();
  // MIOpen spells the filter default with activation letters too.
  if (layout.empty())
    layout = defaultLayout(LayoutKind::Activation, spatialRank);
  if (static_cast<int64_t>(layout.size()) != spatialRank + 2) {
    static const char *examples[] = {"NWC", "NHWC", "NDHWC"};
    (void)flags.fail(longName,
                     llvm::formatv("layout '{0}' has {1} letters, but "
                                   "--spatial_dim (-_) {2} needs {3} (e.g. "
                                   "'{4}')",
                                   layout, layout.size(), spatialRank,
                                   spatialRank + 2, examples[spatialRank - 1]));
    return failure();
  }
  std::string layoutError;
  if (failed(parseLayout(layout, kind, spatialRank, layoutError))) {
    (void)flags.fail(longName, layoutError);
    return failure();
  }
  return layout;
}

/// Reads --forw: one direction, 1 (forward), 2 (backward data), 4 (backward
/// weight) or 6 (both backward ones).
FailureOr<int64_t> getConvDirection(const FlagValues &flags) {
  FailureOr<int64_t> direction = flags.getInt("forw");
  if (failed(direction))
    return failure();
  switch (*direction) {
  case 1:
  case 2:
  case 4:
  case 6:
    return *direction;
  case 0:
    return flags.fail("forw",
                      "0 (MIOpenDriver's default) runs forward, backward-data "
                      "and backward-weight one after the other, i.e. three "
                      "problems; import each with -F 1, 2 or 4 (or 6 for both "
                      "backward ones)");
  case 3:
  case 5:
  case 7:
    return flags.fail("forw",
                      llvm::formatv("{0} mixes forward and backward "
                                    "convolutions; import them separately (-F "
                                    "1 and -F 2, 4 or 6)",
                                    *direction));
  default:
    return flags.fail("forw",
                      llvm::formatv("expected 1 (forward), 2 (backward data), "
                                    "4 (backward weight) or 6 (backward data "
                                    "and weight), got {0}",
                                    *direction));
  }
}

/// Checks --mode: plain convolutions only.
LogicalResult checkConvMode(const FlagValues &flags) {
  StringRef mode = flags.getString("mode");
  if (mode == "trans")
    return flags.fail("mode", "transposed convolution ('trans') is not "
                              "supported yet; only 'conv' is");
  if (mode != "conv")
    return flags.fail("mode", llvm::formatv("expected 'conv' or 'trans', got "
                                            "'{0}'",
                                            mode));
  return success();
}

/// The number of spatial dims: --spatial_dim when the command gives it
/// (1, 2 or 3; 1-D is IREE BOO's extension of MIOpenDriver's flags), else,
/// as IREE BOO reads commands, the rank the given layouts spell (all alike:
/// "NWC" is 1-D), else 2.
FailureOr<int64_t> getSpatialRank(const FlagValues &flags) {
  if (!flags.isSet("spatial_dim")) {
    StringRef first;
    for (StringRef layoutFlag : {"in_layout", "fil_layout", "out_layout"}) {
      StringRef layout = flags.getString(layoutFlag);
      if (layout.empty())
        continue;
      if (!first.empty() && layout.size() != first.size())
        return flags.fail(layoutFlag,
                          llvm::formatv("layout '{0}' has {1} letters, but "
                                        "another layout of the command has "
                                        "{2}; give --spatial_dim (-_) or "
                                        "layouts of one rank",
                                        layout, layout.size(), first.size()));
      first = layout;
    }
    if (first.size() >= 3 && first.size() <= 5)
      return static_cast<int64_t>(first.size()) - 2;
  }
  FailureOr<int64_t> spatialRank = flags.getInt("spatial_dim");
  if (failed(spatialRank))
    return failure();
  if (*spatialRank < 1 || *spatialRank > 3)
    return flags.fail("spatial_dim",
                      llvm::formatv("expected 1, 2 or 3, got {0} (1-D is IREE "
                                    "BOO's; MIOpenDriver has 2-D and 3-D)",
                                    *spatialRank));
  return *spatialRank;
}

/// Rejects the features MIOpenDriver has that would change the numerics or
/// the data layout in ways Boo does not model: int8 vectorized tensors and
/// fp8 casts.
LogicalResult checkUnsupportedConvFeatures(const FlagValues &flags) {
  if (FailureOr<int64_t> v = flags.getInt("tensor_vect"); failed(v))
    return failure();
  else if (*v != 0)
    return flags.fail("tensor_vect", "vectorized (int8) tensors are not "
                                     "supported; expected 0");
  if (FailureOr<int64_t> v = flags.getInt("vector_length"); failed(v))
    return failure();
  else if (*v != 1)
    return flags.fail("vector_length", "vectorized (int8) tensors are not "
                                       "supported; expected 1");
  for (StringRef cast : {"in_cast_type", "wei_cast_type", "out_cast_type"}) {
    if (flags.getString(cast) != "-1")
      return flags.fail(cast, llvm::formatv("fp8 casts are not supported "
                                            "(got '{0}'); omit the flag",
                                            flags.getString(cast)));
  }
  return success();
}

/// A convolution's sizes as the command gives them, before the layouts
/// place them: per spatial dim (outermost first) the input and filter
/// extents, stride, dilation and padding (both sides).
struct ConvSizes {
  int64_t batch = 0, inChannels = 0, outChannels = 0, groups = 0;
  SmallVector<int64_t> inSpatial, filSpatial, strides, dilations, pads;
};

/// Reads the sizes; the groups must divide both channel counts.
FailureOr<ConvSizes> getConvSizes(const FlagValues &flags,
                                  ArrayRef<SpatialDim> dims) {
  FailureOr<int64_t> batch = flags.getIntAtLeast("batchsize", 1);
  FailureOr<int64_t> inChannels = flags.getIntAtLeast("in_channels", 1);
  FailureOr<int64_t> outChannels = flags.getIntAtLeast("out_channels", 1);
  FailureOr<int64_t> groups = flags.getIntAtLeast("group_count", 1);
  if (failed(batch) || failed(inChannels) || failed(outChannels) ||
      failed(groups))
    return failure();
  if (*inChannels % *groups != 0)
    return flags.fail("group_count",
                      llvm::formatv("{0} groups do not divide the {1} input "
                                    "channels (--in_channels (-c))",
                                    *groups, *inChannels));
  if (*outChannels % *groups != 0)
    return flags.fail("group_count",
                      llvm::formatv("{0} groups do not divide the {1} output "
                                    "channels (--out_channels (-k))",
                                    *groups, *outChannels));

  ConvSizes sizes;
  sizes.batch = *batch;
  sizes.inChannels = *inChannels;
  sizes.outChannels = *outChannels;
  sizes.groups = *groups;
  for (const SpatialDim &d : dims) {
    FailureOr<int64_t> in = flags.getIntAtLeast(("in_" + d.suffix).str(), 1);
    FailureOr<int64_t> fil = flags.getIntAtLeast(("fil_" + d.suffix).str(), 1);
    FailureOr<int64_t> stride =
        flags.getIntAtLeast(("conv_stride_" + d.suffix).str(), 1);
    FailureOr<int64_t> dilation =
        flags.getIntAtLeast(("dilation_" + d.suffix).str(), 1);
    FailureOr<int64_t> pad = flags.getIntAtLeast(("pad_" + d.suffix).str(), 0);
    if (failed(in) || failed(fil) || failed(stride) || failed(dilation) ||
        failed(pad))
      return failure();
    sizes.inSpatial.push_back(*in);
    sizes.filSpatial.push_back(*fil);
    sizes.strides.push_back(*stride);
    sizes.dilations.push_back(*dilation);
    sizes.pads.push_back(*pad);
  }
  return sizes;
}

/// Applies --pad_mode to the paddings, exactly as MIOpenDriver does
/// (SetConvDescriptorFromCmdLineArgs): only for plain convolutions whose
/// dilations are all 1 or whose filter is 1x1(x1); otherwise the explicit
/// padding stays. "same" pads symmetrically by half of what TensorFlow's
/// SAME would need in total, rounded down.
LogicalResult applyPadMode(const FlagValues &flags, ConvSizes &sizes) {
  StringRef padMode = flags.getString("pad_mode");
  if (padMode != "default" && padMode != "same" && padMode != "valid")
    return flags.fail("pad_mode", llvm::formatv("expected 'default', 'same' "
                                                "or 'valid', got '{0}'",
                                                padMode));
  auto isOne = [](int64_t v) { return v == 1; };
  if (!llvm::all_of(sizes.dilations, isOne) &&
      !llvm::all_of(sizes.filSpatial, isOne))
    return success();
  for (size_t i = 0; i < sizes.pads.size(); ++i) {
    if (padMode == "valid") {
      sizes.pads[i] = 0;
    } else if (padMode == "same") {
      int64_t stride = sizes.strides[i], filter = sizes.filSpatial[i];
      int64_t rem = sizes.inSpatial[i] % stride;
      int64_t total = rem == 0 ? std::max<int64_t>(filter - stride, 0)
                               : std::max<int64_t>(filter - rem, 0);
      sizes.pads[i] = total / 2;
    }
  }
  return success();
}

/// Checks that every output extent is at least 1.
LogicalResult checkOutputExtents(const FlagValues &flags,
                                 ArrayRef<SpatialDim> dims,
                                 const ConvSizes &sizes, std::string &error) {
  for (auto [i, d] : llvm::enumerate(dims)) {
    int64_t window = sizes.dilations[i] * (sizes.filSpatial[i] - 1) + 1;
    if (sizes.inSpatial[i] + 2 * sizes.pads[i] < window) {
      error = llvm::formatv(
          "the output {0} would be empty: {1} = {2} plus twice the padding "
          "{3} is smaller than the dilated filter {0} {4} ({5} = {6}, {7} = "
          "{8})",
          d.word, flags.name(("in_" + d.suffix).str()), sizes.inSpatial[i],
          sizes.pads[i], window, flags.name(("fil_" + d.suffix).str()),
          sizes.filSpatial[i], flags.name(("dilation_" + d.suffix).str()),
          sizes.dilations[i]);
      return failure();
    }
  }
  return success();
}

/// Reads the three layouts into `problem`.
LogicalResult getConvLayouts(const FlagValues &flags, int64_t spatialRank,
                             MIOpenConvProblem &problem) {
  FailureOr<std::string> inLayout =
      getLayout(flags, "in_layout", LayoutKind::Activation, spatialRank);
  if (failed(inLayout))
    return failure();
  FailureOr<std::string> filLayout =
      getLayout(flags, "fil_layout", LayoutKind::Filter, spatialRank);
  if (failed(filLayout))
    return failure();
  FailureOr<std::string> outLayout =
      getLayout(flags, "out_layout", LayoutKind::Activation, spatialRank);
  if (failed(outLayout))
    return failure();
  problem.inputLayout = *inLayout;
  problem.filterLayout = *filLayout;
  problem.outputLayout = *outLayout;
  return success();
}

/// Builds `problem.geometry` from the sizes and the problem's layouts:
/// shapes in the command's layouts, from which ConvGeometry derives the rest
/// (and re-checks everything, so a gap in the checks above cannot slip
/// through).
LogicalResult buildConvGeometry(const ConvSizes &sizes, int64_t spatialRank,
                                MIOpenConvProblem &problem,
                                std::string &error) {
  std::string geometryError;
  auto inPerm = parseLayout(problem.inputLayout, LayoutKind::Activation,
                            spatialRank, geometryError);
  auto filPerm = parseLayout(problem.filterLayout, LayoutKind::Filter,
                             spatialRank, geometryError);
  if (failed(inPerm) || failed(filPerm)) {
    error = geometryError;
    return failure();
  }
  SmallVector<int64_t> inCanonical = {sizes.batch, sizes.inChannels};
  SmallVector<int64_t> filCanonical = {sizes.outChannels,
                                       sizes.inChannels / sizes.groups};
  llvm::append_range(inCanonical, sizes.inSpatial);
  llvm::append_range(filCanonical, sizes.filSpatial);
  SmallVector<int64_t> inShape(inCanonical.size()),
      filShape(filCanonical.size());
  for (size_t i = 0; i < inCanonical.size(); ++i) {
    inShape[(*inPerm)[i]] = inCanonical[i];
    filShape[(*filPerm)[i]] = filCanonical[i];
  }
  FailureOr<ConvGeometry> geometry = ConvGeometry::get(
      inShape, filShape, sizes.strides, sizes.dilations, sizes.pads, sizes.pads,
      sizes.groups, problem.inputLayout, problem.filterLayout,
      problem.outputLayout, geometryError);
  if (failed(geometry)) {
    error = "invalid convolution: " + geometryError;
    return failure();
  }
  problem.geometry = std::move(*geometry);
  return success();
}

FailureOr<MIOpenConvProblem>
parseConv(ElementType dataType, ArrayRef<StringRef> args, std::string &error) {
  FlagValues flags(convFlags, "convolution", error);
  if (failed(flags.parse(args)))
    return failure();

  MIOpenConvProblem problem;
  problem.dataType = dataType;
  FailureOr<int64_t> direction = getConvDirection(flags);
  if (failed(direction) || failed(checkConvMode(flags)))
    return failure();
  problem.direction = *direction;
  FailureOr<int64_t> spatialRank = getSpatialRank(flags);
  if (failed(spatialRank) || failed(checkUnsupportedConvFeatures(flags)))
    return failure();
  ArrayRef<SpatialDim> dims = *spatialRank == 1   ? ArrayRef(spatialDims1D)
                              : *spatialRank == 2 ? ArrayRef(spatialDims2D)
                                                  : ArrayRef(spatialDims3D);

  FailureOr<ConvSizes> sizes = getConvSizes(flags, dims);
  if (failed(sizes) || failed(applyPadMode(flags, *sizes)) ||
      failed(checkOutputExtents(flags, dims, *sizes, error)))
    return failure();
  FailureOr<int64_t> bias = flags.getInt("bias");
  if (failed(bias))
    return failure();
  problem.bias = *bias != 0;
  if (failed(getConvLayouts(flags, *spatialRank, problem)) ||
      failed(buildConvGeometry(*sizes, *spatialRank, problem, error)))
    return failure();
  return problem;
}

//===----------------------------------------------------------------------===//
// Layer norm
//===----------------------------------------------------------------------===//

FailureOr<MIOpenLayerNormProblem> parseLayerNorm(ElementType dataType,
                                                 ArrayRef<StringRef> args,
                                                 std::string &error) {
  FlagValues flags(layerNormFlags, "layer norm", error);
  if (failed(flags.parse(args)))
    return failure();

  MIOpenLayerNormProblem problem;
  problem.dataType = dataType;

  FailureOr<int64_t> direction = flags.getInt("forw");
  if (failed(direction))
    return failure();
  if (!llvm::is_contained(ArrayRef<int64_t>{1, 2, 4, 8, 14}, *direction)) {
    (void)flags.fail("forw",
                     llvm::formatv("expected 1 (forward), 2 (input gradient), "
                                   "4 (weight gradient), 8 (bias gradient) or "
                                   "14 (all three gradients), got {0}",
                                   *direction));
    return failure();
  }
  problem.direction = *direction;

  // MIOpen's tensor flag syntax is "NxCxHxW[,layout-or-strides]"; only the
  // dense row-major form makes sense for a kernel with tensor arguments.
  StringRef input = flags.getString("input");
  if (input.contains(',')) {
    (void)flags.fail("input",
                     llvm::formatv("strides or a layout after ',' are not "
                                   "supported (got '{0}'); give the lengths "
                                   "only, e.g. '10x32x42x32'",
                                   input));
    return failure();
  }
  SmallVector<StringRef> parts;
  input.split(parts, 'x');
  for (StringRef part : parts) {
    int64_t extent = 0;
    if (part.getAsInteger(10, extent) || extent < 1 ||
        extent > std::numeric_limits<int32_t>::max()) {
      (void)flags.fail("input",
                       llvm::formatv("expected positive lengths separated by "
                                     "'x' (e.g. '10x32x42x32'), got '{0}'",
                                     input));
      return failure();
    }
    problem.shape.push_back(extent);
  }
  int64_t rank = static_cast<int64_t>(problem.shape.size());

  FailureOr<int64_t> normalizedDim = flags.getInt("normalized_dim");
  if (failed(normalizedDim))
    return failure();
  if (*normalizedDim < 0 || *normalizedDim >= rank) {
    (void)flags.fail("normalized_dim",
                     llvm::formatv("{0} is out of range for the rank-{1} "
                                   "input '{2}' (expected 0 to {3})",
                                   *normalizedDim, rank, input, rank - 1));
    return failure();
  }
  problem.normalizedDim = *normalizedDim;

  FailureOr<float> eps = flags.getEpsilon("eps");
  if (failed(eps))
    return failure();
  problem.epsilon = *eps;

  FailureOr<int64_t> mode = flags.getInt("mode");
  if (failed(mode))
    return failure();
  if (*mode != 0 && *mode != 1) {
    (void)flags.fail("mode", llvm::formatv("expected 0 (no weight and bias) "
                                           "or 1 (weight and bias), got {0}",
                                           *mode));
    return failure();
  }
  problem.weightAndBias = *mode == 1;
  return problem;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

FailureOr<MIOpenProblem> mlir::boo::parseMIOpenCommand(StringRef command,
                                                       std::string &error) {
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver saver(allocator);
  SmallVector<const char *> argv;
  llvm::cl::TokenizeGNUCommandLine(command, saver, argv);
  SmallVector<StringRef> args;
  for (const char *arg : argv)
    if (arg)
      args.push_back(arg);

  if (!args.empty() &&
      llvm::sys::path::filename(args.front()) == "MIOpenDriver")
    args.erase(args.begin());
  if (args.empty()) {
    error = "empty command: expected an MIOpenDriver base argument such as "
            "'convbfp16' or 'layernorm' followed by its flags";
    return failure();
  }

  StringRef base = args.front();
  ArrayRef<StringRef> flags = ArrayRef(args).drop_front();
  enum class Family { Conv, LayerNorm, Gemm };
  struct BaseArg {
    StringLiteral name;
    Family family;
    ElementType dataType;
  };
  static const BaseArg baseArgs[] = {
      {"conv", Family::Conv, ElementType::F32},
      {"convfp16", Family::Conv, ElementType::F16},
      {"convbfp16", Family::Conv, ElementType::BF16},
      {"layernorm", Family::LayerNorm, ElementType::F32},
      {"layernormfp16", Family::LayerNorm, ElementType::F16},
      {"layernormbfp16", Family::LayerNorm, ElementType::BF16},
      {"gemm", Family::Gemm, ElementType::F32},
      {"gemmfp16", Family::Gemm, ElementType::F16},
      {"gemmbfp16", Family::Gemm, ElementType::BF16},
  };
  // Each family's parser, its problem wrapped in the variant.
  auto wrap = [](auto parsed) -> FailureOr<MIOpenProblem> {
    if (failed(parsed))
      return failure();
    return MIOpenProblem(std::move(*parsed));
  };
  if (base.starts_with("aten::"))
    return wrap(parseAten(base, flags, error));
  if (llvm::is_contained(ArrayRef<StringRef>{"bnorm", "bnormfp16",
                                             "bnormfp16fp32", "bnormbfp16fp32",
                                             "bnormbfp16"},
                         base))
    return wrap(parseBatchNorm(base, flags, error));
  for (const BaseArg &b : baseArgs) {
    if (b.name != base)
      continue;
    switch (b.family) {
    case Family::Conv:
      return wrap(parseConv(b.dataType, flags, error));
    case Family::LayerNorm:
      return wrap(parseLayerNorm(b.dataType, flags, error));
    case Family::Gemm:
      return wrap(parseGemm(b.dataType, flags, error));
    }
  }

  if (llvm::is_contained(ArrayRef<StringRef>{"convint8", "convfp8", "convbfp8"},
                         base)) {
    error = llvm::formatv("base argument '{0}': only f32, f16 and bf16 "
                          "convolutions are supported (conv, convfp16, "
                          "convbfp16)",
                          base);
    return failure();
  }
  if (base.starts_with("-")) {
    error = llvm::formatv("expected an MIOpenDriver base argument such as "
                          "'convbfp16' before the flags, got '{0}'",
                          base);
    return failure();
  }
  error = llvm::formatv("unknown base argument '{0}' (supported: conv, "
                        "convfp16, convbfp16, layernorm, layernormfp16, "
                        "layernormbfp16, gemm, gemmfp16, gemmbfp16, bnorm, "
                        "bnormfp16, bnormfp16fp32, bnormbfp16fp32, "
                        "bnormbfp16)",
                        base);
  return failure();
}
