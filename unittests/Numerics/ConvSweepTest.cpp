//===- ConvSweepTest.cpp - Randomized convolution numerics ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Random convolution problems (1-D/2-D/3-D, groups up to depthwise, strides,
// dilations, asymmetric padding, any layout permutation, f32/f16/bf16),
// forward, backward data, backward weight and bias gradient, alone and with
// element-wise epilogues (in a boo.fusion or as a plain chain), compiled for
// the CPU and checked against the reference. See docs/Numerics.md.
//
//===----------------------------------------------------------------------===//

#include "SweepHarness.h"

#include <algorithm>
#include <sstream>

using namespace boo;
using namespace boo::sweep;
using ref::ConvProblem;
using ref::Tensor;

namespace {

//===----------------------------------------------------------------------===//
// Random problems
//===----------------------------------------------------------------------===//

const char *kActivationSpatial = "DHW";
const char *kFilterSpatial = "ZYX";

std::string spatialLetters(const char *letters, int rank) {
  return std::string(letters).substr(3 - rank);
}

std::string shuffled(std::string s, CaseRng &rng) {
  std::shuffle(s.begin(), s.end(), rng.get());
  return s;
}

std::string randomActivationLayout(CaseRng &rng, int rank) {
  std::string sp = spatialLetters(kActivationSpatial, rank);
  double r = rng.real(0, 1);
  if (r < 0.4)
    return "NC" + sp;
  if (r < 0.75)
    return "N" + sp + "C";
  return shuffled("NC" + sp, rng);
}

std::string randomFilterLayout(CaseRng &rng, int rank) {
  std::string sp = spatialLetters(kFilterSpatial, rank);
  std::string miopenSp = spatialLetters(kActivationSpatial, rank);
  double r = rng.real(0, 1);
  if (r < 0.35)
    return "KC" + sp;
  if (r < 0.6)
    return "K" + sp + "C";
  if (r < 0.75) // MIOpen spells filters with activation letters.
    return rng.coin() ? "NC" + miopenSp : "N" + miopenSp + "C";
  // Any permutation, spelled consistently one way or another.
  std::string k = rng.pick(std::vector<std::string>{"K", "F", "N"});
  return shuffled(k + "C" + (rng.coin() ? sp : miopenSp), rng);
}

/// A random valid problem with every tensor at most `maxElements` and at
/// most `maxMacs` multiply-adds, or false after too many rejected draws.
bool randomConvProblem(CaseRng &rng, ConvProblem &p,
                       int64_t maxElements = 1 << 16,
                       int64_t maxMacs = 1 << 21) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    int rank = rng.pick(std::vector<int>{1, 2, 2, 2, 3});
    p = ConvProblem::withDefaults(rank);
    p.batch = rng.range(1, 3);
    double g = rng.real(0, 1);
    if (g < 0.5) {
      p.groups = 1;
      p.inChannels = rng.range(1, 12);
      p.outChannels = rng.range(1, 12);
    } else if (g < 0.8) {
      p.groups = rng.range(2, 4);
      p.inChannels = p.groups * rng.range(1, 4);
      p.outChannels = p.groups * rng.range(1, 4);
    } else { // depthwise, with a channel multiplier
      p.groups = p.inChannels = rng.range(2, 12);
      p.outChannels = p.groups * rng.range(1, 2);
    }
    int64_t maxIn = rank == 1 ? 24 : rank == 2 ? 12 : 6;
    for (int d = 0; d < rank; ++d) {
      // Extents of 1 or 2 are where padding and strides meet the edges
      // (taps that only ever read padding, unread input positions).
      p.inSpatial[d] = rng.coin(0.15) ? rng.range(1, 2) : rng.range(1, maxIn);
      p.filterSpatial[d] =
          rng.pick(std::vector<int64_t>{1, 1, 2, 3, 3, rank == 1 ? 5 : 3});
      // Strides up to 4 make stride > kernel common.
      p.strides[d] = rng.pick(std::vector<int64_t>{1, 1, 1, 2, 2, 3, 4});
      p.dilations[d] = rng.pick(std::vector<int64_t>{1, 1, 1, 2, 3});
      if (rng.coin(0.6)) {
        p.padLow[d] = rng.range(0, 2);
        p.padHigh[d] = rng.coin(0.7) ? p.padLow[d] : rng.range(0, 3);
      }
    }
    p.inputLayout = randomActivationLayout(rng, rank);
    p.filterLayout = randomFilterLayout(rng, rank);
    p.outputLayout =
        rng.coin(0.7) ? p.inputLayout : randomActivationLayout(rng, rank);
    std::string error;
    if (!p.validate(error))
      continue;
    int64_t macs = ref::product(p.outputShape()) * p.inChannels / p.groups *
                   ref::product(p.filterSpatial);
    if (ref::product(p.inputShape()) > maxElements ||
        ref::product(p.outputShape()) > maxElements ||
        ref::product(p.filterShape()) > maxElements || macs > maxMacs)
      continue;
    return true;
  }
  return false;
}

/// Draws problems with `draw` (which sets everything but the layouts and
/// returns the rank) and random layouts until one is valid, up to 50 times.
template <typename Draw>
bool drawValidProblem(CaseRng &rng, ConvProblem &p, Draw draw) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    int rank = draw();
    p.inputLayout = randomActivationLayout(rng, rank);
    p.filterLayout = randomFilterLayout(rng, rank);
    p.outputLayout = randomActivationLayout(rng, rank);
    std::string error;
    if (p.validate(error))
      return true;
  }
  return false;
}

/// A tiny problem (1-D or 2-D, extents 1-4, padding up to 3 per side,
/// strides up to 4): the edge geometry where taps only ever read padding,
/// input positions are never read, and outputs have extent 1.
bool randomTinyConvProblem(CaseRng &rng, ConvProblem &p) {
  return drawValidProblem(rng, p, [&] {
    int rank = static_cast<int>(rng.range(1, 2));
    p = ConvProblem::withDefaults(rank);
    p.batch = rng.range(1, 2);
    p.groups = rng.range(1, 2);
    p.inChannels = p.groups * rng.range(1, 3);
    p.outChannels = p.groups * rng.range(1, 3);
    for (int d = 0; d < rank; ++d) {
      p.inSpatial[d] = rng.range(1, 4);
      p.filterSpatial[d] = rng.range(1, 3);
      p.strides[d] = rng.range(1, 4);
      p.dilations[d] = rng.range(1, 2);
      p.padLow[d] = rng.range(0, 3);
      p.padHigh[d] = rng.range(0, 3);
    }
    return rank;
  });
}

/// A stride-1 1x1 channels-first problem whose spatial positions the CPU
/// schedule merges into one loop (mergeInnerOutputLoops): their count a
/// multiple of 16, or a little short of one (a leading multiple and an
/// overlapping last tile, or padded), with groups and 3-D; the padding,
/// dilation and filter layout still vary.
bool randomMergedConvProblem(CaseRng &rng, ConvProblem &p) {
  static const std::vector<std::pair<int64_t, int64_t>> planes = {
      {4, 4},   {8, 6},   {6, 8},   {7, 9},   {9, 7},   {8, 8},
      {11, 11}, {12, 12}, {3, 5},   {15, 15}, {14, 14}, {16, 16},
      {16, 15}, {17, 17}, {28, 28}, {27, 28}, {5, 6},   {13, 13}};
  int rank = rng.pick(std::vector<int>{2, 2, 2, 3});
  p = ConvProblem::withDefaults(rank);
  p.batch = rng.range(1, 2);
  p.groups = rng.pick(std::vector<int64_t>{1, 1, 2, 3});
  p.inChannels = p.groups * rng.range(1, 6);
  p.outChannels = p.groups * rng.range(1, 6);
  auto [h, w] = rng.pick(planes);
  p.inSpatial[rank - 2] = h;
  p.inSpatial[rank - 1] = w;
  if (rank == 3)
    p.inSpatial[0] = rng.range(1, 3);
  for (int d = 0; d < rank; ++d)
    p.filterSpatial[d] = 1;
  // Now and then strided (a ResNet downsampling layer): the CPU subsamples
  // the image first, then merges the positions.
  if (rng.coin(0.4))
    for (int d = rank - 2; d < rank; ++d)
      p.strides[d] = rng.pick(std::vector<int64_t>{1, 2, 2, 3});
  std::string sp = spatialLetters(kActivationSpatial, rank);
  p.inputLayout = "NC" + sp;
  p.outputLayout = "NC" + sp;
  p.filterLayout = randomFilterLayout(rng, rank);
  std::string error;
  return p.validate(error);
}

/// A problem whose channels per group (input and output) are odd multiples
/// of 8 from 24 (24 to 88): a channels-last vector loop over them is
/// computed in two overlapping pieces of 16 lanes (splitVectorLoop), for
/// output channels forward, input channels backward, the filter's
/// innermost dim for a weight gradient; 1-D to 3-D, groups, strides,
/// padding, every layout.
bool randomSplitChannelsProblem(CaseRng &rng, ConvProblem &p) {
  return drawValidProblem(rng, p, [&] {
    int rank = rng.pick(std::vector<int>{1, 2, 2, 2, 3});
    p = ConvProblem::withDefaults(rank);
    p.batch = rng.range(1, 2);
    p.groups = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
    p.inChannels = p.groups * 8 * (2 * rng.range(1, 5) + 1);
    p.outChannels = p.groups * 8 * (2 * rng.range(1, 5) + 1);
    for (int d = 0; d < rank; ++d) {
      p.inSpatial[d] = d + 2 < rank ? rng.range(1, 3) : rng.range(1, 9);
      p.filterSpatial[d] = std::min(p.inSpatial[d], rng.range(1, 3));
      p.strides[d] = rng.pick(std::vector<int64_t>{1, 1, 2});
      p.padLow[d] = p.padHigh[d] = rng.range(0, 1);
    }
    return rank;
  });
}

/// A problem with many output channels (8 to 12 blocks of 32, per group),
/// whose reordered filter the CPU schedule packs one block at a time in
/// the iterations that read it when the case sets pack-min-bytes low:
/// odd input channels, output rows that do not divide the tiles, strides,
/// groups, 1-D to 3-D, every layout.
bool randomPackedConvProblem(CaseRng &rng, ConvProblem &p) {
  return drawValidProblem(rng, p, [&] {
    int rank = rng.pick(std::vector<int>{1, 2, 2, 2, 3});
    p = ConvProblem::withDefaults(rank);
    p.batch = rng.range(1, 2);
    p.groups = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
    p.inChannels = p.groups * rng.range(1, 19);
    p.outChannels = p.groups * 32 * rng.range(8, 12);
    for (int d = 0; d < rank; ++d) {
      p.inSpatial[d] = d + 2 < rank ? rng.range(1, 3) : rng.range(2, 9);
      p.filterSpatial[d] = std::min(p.inSpatial[d], rng.range(1, 3));
      p.strides[d] = rng.pick(std::vector<int64_t>{1, 1, 2});
      p.padLow[d] = p.padHigh[d] = rng.range(0, 1);
    }
    return rank;
  });
}

/// A 1x1 problem with 256 to 624 input channels per group (16 to 39
/// registers of 16 lanes) and at most 64 output positions, 1 to 40 output
/// channels per group (column tiles of every divisor, rows left over):
/// the CPU computes it as dot products along the input channels
/// (computeDotTiles) where the filter reads them innermost; 1-D to 3-D,
/// batches, groups, strides, every layout (channels-first images are
/// transposed first).
bool randomDotProblem(CaseRng &rng, ConvProblem &p) {
  return drawValidProblem(rng, p, [&] {
    int rank = rng.pick(std::vector<int>{1, 2, 2, 2, 3});
    p = ConvProblem::withDefaults(rank);
    p.batch = rng.range(1, 2);
    p.groups = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
    p.inChannels = p.groups * 16 * rng.range(16, 39);
    p.outChannels = p.groups * rng.range(1, 40);
    for (int d = 0; d < rank; ++d) {
      p.inSpatial[d] = d + 1 < rank ? rng.range(1, 3) : rng.range(1, 9);
      p.filterSpatial[d] = 1;
      p.strides[d] = rng.pick(std::vector<int64_t>{1, 1, 2});
    }
    return rank;
  });
}

/// randomPackedConvProblem with many input channels instead: backward
/// data's tiles are blocks of input channels.
bool randomPackedInputProblem(CaseRng &rng, ConvProblem &p) {
  if (!randomPackedConvProblem(rng, p))
    return false;
  std::swap(p.inChannels, p.outChannels);
  std::string error;
  return p.validate(error);
}

/// A 2-D depthwise problem in `layout` (input and output): `groups` groups
/// of one input channel and `multiplier` output channels, a batch of 1 or
/// 2, images of 1 to 12 rows and `minWidth` to `maxWidth` columns, filters
/// of 1 to 5 taps, strides up to 3, dilation, asymmetric padding, every
/// filter layout.
bool randomDepthwiseProblem(CaseRng &rng, ConvProblem &p,
                            const std::string &layout, int64_t groups,
                            int64_t multiplier, int64_t minWidth,
                            int64_t maxWidth) {
  p = ConvProblem::withDefaults(2);
  p.batch = rng.range(1, 2);
  p.groups = groups;
  p.inChannels = groups;
  p.outChannels = groups * multiplier;
  p.inSpatial = {rng.range(1, 12), rng.range(minWidth, maxWidth)};
  for (int d = 0; d < 2; ++d) {
    p.filterSpatial[d] = std::min(p.inSpatial[d] + 2, rng.range(1, 5));
    p.strides[d] = rng.pick(std::vector<int64_t>{1, 1, 2, 3});
    p.dilations[d] = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
    p.padLow[d] = rng.range(0, 2);
    p.padHigh[d] = rng.coin(0.7) ? p.padLow[d] : rng.range(0, 2);
  }
  p.inputLayout = layout;
  p.outputLayout = layout;
  p.filterLayout = randomFilterLayout(rng, 2);
  std::string error;
  return p.validate(error);
}

/// A channels-first depthwise problem, which the CPU schedule computes
/// plane by plane (convolvePlanes): 1 to 12 groups, one or two output
/// channels per group, rows of 4 to 72 (less than a register, whole
/// registers and a tail); a fifth of them strided, from images of 9 to 15
/// columns (output rows two to a register), and a fifth of the rest 3x3 at
/// stride 1 with rows of 25 to 32, which take registers of 16 lanes to
/// carry their taps.
bool randomPlaneConvProblem(CaseRng &rng, ConvProblem &p) {
  int64_t groups = rng.range(1, 12);
  int64_t multiplier = rng.pick(std::vector<int64_t>{1, 1, 2});
  if (rng.coin(0.2)) {
    // Strided rows from images of 9-15 columns: output rows of up to 8
    // take two to a register.
    if (!randomDepthwiseProblem(rng, p, "NCHW", groups, multiplier, 9, 15))
      return false;
    p.strides[1] = rng.pick(std::vector<int64_t>{2, 3});
    std::string error;
    return p.validate(error);
  }
  if (!rng.coin(0.2))
    return randomDepthwiseProblem(rng, p, "NCHW", groups, multiplier, 4, 72);
  if (!randomDepthwiseProblem(rng, p, "NCHW", groups, multiplier, 27, 34))
    return false;
  p.filterSpatial = {3, 3};
  p.strides = {1, 1};
  p.dilations = {1, 1};
  p.padLow = {1, 1};
  p.padHigh = {1, rng.range(0, 1)};
  p.inSpatial[0] = rng.range(3, 12);
  std::string error;
  return p.validate(error);
}

/// A channels-first problem with few input channels (a stem), which the
/// CPU schedule computes row by row for blocks of output channels
/// (convolveChannelPlanes): 2 to 4 input channels per group, 1 or 2
/// groups, 4 to 32 output channels per group (now and then 1 to 3, which
/// take the general schedule), image rows of 8 to 40 or 41 to 140 (one
/// register, several, a loop of them, a tail), filters of 1 to 7 taps,
/// strides up to 3, dilation, asymmetric padding, every filter layout.
bool randomChannelPlaneProblem(CaseRng &rng, ConvProblem &p) {
  p = ConvProblem::withDefaults(2);
  p.batch = rng.range(1, 2);
  p.groups = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
  p.inChannels = p.groups * rng.range(2, 4);
  p.outChannels =
      p.groups * (rng.coin(0.9)
                      ? rng.pick(std::vector<int64_t>{4, 8, 12, 16, 24, 32})
                      : rng.range(1, 3));
  p.inSpatial = {rng.range(1, 10),
                 rng.coin(0.3) ? rng.range(8, 40) : rng.range(41, 140)};
  for (int d = 0; d < 2; ++d) {
    p.filterSpatial[d] = std::min(p.inSpatial[d] + 2, rng.range(1, 7));
    p.strides[d] = rng.pick(std::vector<int64_t>{1, 1, 2, 2, 3});
    p.dilations[d] = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
    p.padLow[d] = rng.range(0, 3);
    p.padHigh[d] = rng.coin(0.7) ? p.padLow[d] : rng.range(0, 3);
  }
  p.inputLayout = "NCHW";
  p.outputLayout = "NCHW";
  p.filterLayout = randomFilterLayout(rng, 2);
  std::string error;
  return p.validate(error);
}

/// A channels-last depthwise problem, which the CPU schedule computes row
/// by row when its output rows have at most 32 positions (over 16: in
/// pieces) and its channels are whole registers (convolveDepthwiseRows):
/// 8 to 48 channels (now and then not a multiple of 8, which takes the
/// general schedule), rows of 1 to 17, or of 18 to 40.
bool randomDepthwiseRowsProblem(CaseRng &rng, ConvProblem &p) {
  int64_t groups = rng.coin(0.85) ? 8 * rng.range(1, 6) : rng.range(1, 20);
  return rng.coin(0.7)
             ? randomDepthwiseProblem(rng, p, "NHWC", groups, 1, 1, 17)
             : randomDepthwiseProblem(rng, p, "NHWC", groups, 1, 18, 40);
}

/// A problem with wide padding (up to 4 rows and columns per side,
/// asymmetric), filters of 1 to 5 taps, strides and dilations: the CPU
/// schedule skips the window rows of a tile that read only padding
/// (clipPaddedWindowLoops), down to tiles whose every window row is
/// padding. Channels enough for vector tiles, 1-D to 3-D, groups, every
/// layout.
bool randomPaddedWindowProblem(CaseRng &rng, ConvProblem &p) {
  return drawValidProblem(rng, p, [&] {
    int rank = rng.pick(std::vector<int>{1, 2, 2, 2, 3});
    p = ConvProblem::withDefaults(rank);
    p.batch = rng.range(1, 2);
    p.groups = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
    p.inChannels = p.groups * rng.range(1, 20);
    p.outChannels = p.groups * rng.pick(std::vector<int64_t>{8, 16, 32, 40});
    for (int d = 0; d < rank; ++d) {
      p.inSpatial[d] = d + 2 < rank ? rng.range(1, 4) : rng.range(1, 10);
      p.filterSpatial[d] = rng.range(1, 5);
      p.strides[d] = rng.pick(std::vector<int64_t>{1, 1, 2, 3});
      p.dilations[d] = rng.pick(std::vector<int64_t>{1, 1, 1, 2});
      p.padLow[d] = rng.range(0, 4);
      p.padHigh[d] = rng.coin(0.6) ? p.padLow[d] : rng.range(0, 4);
    }
    return rank;
  });
}

/// Draws the problem of a case.
using ProblemDraw = bool (*)(CaseRng &, ConvProblem &);
bool randomRegularConvProblem(CaseRng &rng, ConvProblem &p) {
  return randomConvProblem(rng, p);
}

//===----------------------------------------------------------------------===//
// MLIR text
//===----------------------------------------------------------------------===//

/// The attribute dictionary of `p`, leaving out (at random) attributes that
/// have their default values, so that the defaults are exercised too.
std::string convAttrs(const ConvProblem &p, CaseRng &rng) {
  std::vector<std::string> attrs;
  auto add = [&](const std::string &name, const std::vector<int64_t> &v,
                 int64_t dflt) {
    bool isDefault =
        std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == dflt; });
    if (!isDefault || rng.coin())
      attrs.push_back(name + " = " + i64Array(v));
  };
  add("strides", p.strides, 1);
  add("dilations", p.dilations, 1);
  add("padding_low", p.padLow, 0);
  add("padding_high", p.padHigh, 0);
  if (p.groups != 1 || rng.coin())
    attrs.push_back("groups = " + std::to_string(p.groups) + " : i64");
  auto layout = [&](const char *name, const std::string &l,
                    ref::LayoutRole role) {
    if (l != ref::defaultLayout(role, p.spatialRank) || rng.coin())
      attrs.push_back(std::string(name) + " = \"" + l + "\"");
  };
  layout("input_layout", p.inputLayout, ref::LayoutRole::Activation);
  layout("filter_layout", p.filterLayout, ref::LayoutRole::Filter);
  layout("output_layout", p.outputLayout, ref::LayoutRole::Activation);
  if (attrs.empty())
    return "";
  std::string s = " {";
  for (size_t i = 0; i < attrs.size(); ++i)
    s += (i ? ", " : "") + attrs[i];
  return s + "}";
}

std::string describe(const ConvProblem &p, ElementType t, const char *what) {
  return std::string(what) + " " + getElementTypeName(t) + " " + p.describe();
}

//===----------------------------------------------------------------------===//
// Single ops
//===----------------------------------------------------------------------===//

bool makeForward(CaseRng &rng, Case &c,
                 ProblemDraw draw = randomRegularConvProblem) {
  ConvProblem p;
  if (!draw(rng, p))
    return false;
  ElementType t = randomDType(rng);
  bool withBias = rng.coin(0.4);
  Tensor x = randomTensor(p.inputShape(), t, rng);
  Tensor w = randomTensor(p.filterShape(), t, rng);
  Tensor b = randomTensor({p.outChannels}, t, rng);
  std::string tx = tensorType(p.inputShape(), t),
              tw = tensorType(p.filterShape(), t),
              ty = tensorType(p.outputShape(), t),
              tb = tensorType({p.outChannels}, t);
  FuncBuilder f("conv");
  std::string vx = f.arg(tx), vw = f.arg(tw);
  c.args = {{"input", x, t}, {"filter", w, t}};
  std::string biasClause;
  if (withBias) {
    biasClause = " bias(" + f.arg(tb) + " : " + tb + ")";
    c.args.push_back({"bias", b, t});
  }
  std::string y = f.fresh();
  f.body() << "  " << y << " = boo.conv " << vx << ", " << vw << biasClause
           << convAttrs(p, rng) << " : " << tx << ", " << tw << " -> " << ty
           << "\n";
  c.mlir = f.finish({y}, {ty});
  c.description = describe(p, t, withBias ? "conv+bias" : "conv");
  c.results = {{"output",
                ref::convForwardBounded(p, x, w, withBias ? &b : nullptr, t),
                t}};
  c.vectorize = rng.coin(0.85);
  return true;
}

bool makeBackwardData(CaseRng &rng, Case &c,
                      ProblemDraw draw = randomRegularConvProblem) {
  ConvProblem p;
  if (!draw(rng, p))
    return false;
  ElementType t = randomDType(rng);
  Tensor dy = randomTensor(p.outputShape(), t, rng);
  Tensor w = randomTensor(p.filterShape(), t, rng);
  std::string tx = tensorType(p.inputShape(), t),
              tw = tensorType(p.filterShape(), t),
              ty = tensorType(p.outputShape(), t);
  FuncBuilder f("conv_bwd_data");
  std::string vdy = f.arg(ty), vw = f.arg(tw);
  std::string dx = f.fresh();
  f.body() << "  " << dx << " = boo.conv_bwd_data " << vdy << ", " << vw
           << convAttrs(p, rng) << " : " << ty << ", " << tw << " -> " << tx
           << "\n";
  c.mlir = f.finish({dx}, {tx});
  c.description = describe(p, t, "conv_bwd_data");
  c.args = {{"grad_output", dy, t}, {"filter", w, t}};
  c.results = {{"grad_input", ref::convBackwardDataBounded(p, dy, w, t), t}};
  c.vectorize = rng.coin(0.85);
  return true;
}

bool makeBackwardWeight(CaseRng &rng, Case &c,
                        ProblemDraw draw = randomRegularConvProblem) {
  ConvProblem p;
  if (!draw(rng, p))
    return false;
  ElementType t = randomDType(rng);
  Tensor dy = randomTensor(p.outputShape(), t, rng);
  Tensor x = randomTensor(p.inputShape(), t, rng);
  std::string tx = tensorType(p.inputShape(), t),
              tw = tensorType(p.filterShape(), t),
              ty = tensorType(p.outputShape(), t);
  FuncBuilder f("conv_bwd_weight");
  std::string vdy = f.arg(ty), vx = f.arg(tx);
  std::string dw = f.fresh();
  f.body() << "  " << dw << " = boo.conv_bwd_weight " << vdy << ", " << vx
           << convAttrs(p, rng) << " : " << ty << ", " << tx << " -> " << tw
           << "\n";
  c.mlir = f.finish({dw}, {tw});
  c.description = describe(p, t, "conv_bwd_weight");
  c.args = {{"grad_output", dy, t}, {"input", x, t}};
  c.results = {{"grad_filter", ref::convBackwardWeightBounded(p, dy, x, t), t}};
  c.vectorize = rng.coin(0.85);
  return true;
}

/// Forward, backward data or backward weight (equally likely) of a problem
/// from `draw`.
bool makeAnyDirection(CaseRng &rng, Case &c, ProblemDraw draw) {
  switch (rng.range(0, 2)) {
  case 0:
    return makeForward(rng, c, draw);
  case 1:
    return makeBackwardData(rng, c, draw);
  default:
    return makeBackwardWeight(rng, c, draw);
  }
}

bool makeBackwardBias(CaseRng &rng, Case &c) {
  ConvProblem p;
  if (!randomConvProblem(rng, p))
    return false;
  ElementType t = randomDType(rng);
  Tensor dy = randomTensor(p.outputShape(), t, rng);
  std::vector<int> perm;
  std::string error;
  ref::parseLayout(p.outputLayout, ref::LayoutRole::Activation, p.spatialRank,
                   perm, error);
  std::string ty = tensorType(p.outputShape(), t),
              tb = tensorType({p.outChannels}, t);
  FuncBuilder f("conv_bwd_bias");
  std::string vdy = f.arg(ty);
  std::string db = f.fresh();
  std::string attr;
  if (p.outputLayout !=
          ref::defaultLayout(ref::LayoutRole::Activation, p.spatialRank) ||
      rng.coin())
    attr = " {output_layout = \"" + p.outputLayout + "\"}";
  f.body() << "  " << db << " = boo.conv_bwd_bias " << vdy << attr << " : "
           << ty << " -> " << tb << "\n";
  c.mlir = f.finish({db}, {tb});
  c.description = std::string("conv_bwd_bias ") + getElementTypeName(t) +
                  " grad_output " + ty + " layout " + p.outputLayout;
  c.args = {{"grad_output", dy, t}};
  c.results = {{"grad_bias", ref::convBackwardBiasBounded(dy, perm[1], t), t}};
  c.vectorize = rng.coin(0.85);
  return true;
}

//===----------------------------------------------------------------------===//
// Epilogues
//===----------------------------------------------------------------------===//

/// A convolution (forward, or now and then backward data) followed by one
/// to three element-wise ops drawn from: activation, residual add (a tensor
/// of the output's type), per-channel add and per-channel mul.
bool makeEpilogue(CaseRng &rng, Case &c) {
  ConvProblem p;
  if (!randomConvProblem(rng, p, 1 << 15, 1 << 20))
    return false;
  ElementType t = randomDType(rng);
  bool backward = rng.coin(0.15);
  bool fused = rng.coin(0.6);
  bool withBias = !backward && rng.coin(0.6);
  std::string tx = tensorType(p.inputShape(), t),
              tw = tensorType(p.filterShape(), t),
              ty = tensorType(p.outputShape(), t),
              tb = tensorType({p.outChannels}, t);
  FuncBuilder f("conv_epilogue");
  std::ostringstream &os = f.body();
  std::string indent = fused ? "    " : "  ";
  std::string anchor;
  ref::Bounded value;
  std::string valueType;
  std::vector<int> outPerm;
  std::string error;
  std::ostringstream desc;
  desc << (fused ? "fusion{" : "chain{");

  // Arguments are declared first, the body refers to them.
  std::string vx, vw, vb;
  Tensor w = randomTensor(p.filterShape(), t, rng);
  if (!backward) {
    Tensor x = randomTensor(p.inputShape(), t, rng);
    vx = f.arg(tx);
    vw = f.arg(tw);
    c.args = {{"input", x, t}, {"filter", w, t}};
    Tensor b = randomTensor({p.outChannels}, t, rng);
    if (withBias) {
      vb = f.arg(tb);
      c.args.push_back({"bias", b, t});
    }
    value = ref::convForwardBounded(p, x, w, withBias ? &b : nullptr, t);
    valueType = ty;
    ref::parseLayout(p.outputLayout, ref::LayoutRole::Activation, p.spatialRank,
                     outPerm, error);
    desc << (withBias ? "conv+bias" : "conv");
  } else {
    Tensor dy = randomTensor(p.outputShape(), t, rng);
    vx = f.arg(ty);
    vw = f.arg(tw);
    c.args = {{"grad_output", dy, t}, {"filter", w, t}};
    value = ref::convBackwardDataBounded(p, dy, w, t);
    valueType = tx;
    ref::parseLayout(p.inputLayout, ref::LayoutRole::Activation, p.spatialRank,
                     outPerm, error);
    desc << "conv_bwd_data";
  }
  int channelDim = outPerm[1];
  int64_t channels = value.value.shape[channelDim];
  std::string tc = tensorType({channels}, t);

  // Draw the epilogue and declare its operands.
  int numOps = static_cast<int>(rng.range(1, 3));
  std::vector<int> kinds;
  std::vector<RandomActivation> acts;
  std::vector<std::string> operands;
  std::vector<size_t> operandArgs; // index into c.args
  for (int i = 0; i < numOps; ++i) {
    int kind = static_cast<int>(rng.range(0, 3));
    kinds.push_back(kind);
    acts.push_back(randomActivation(rng));
    operandArgs.push_back(c.args.size());
    if (kind == 1) {
      operands.push_back(f.arg(valueType));
      c.args.push_back(
          {"residual", randomTensor(value.value.shape, t, rng), t});
    } else if (kind >= 2) {
      operands.push_back(f.arg(tc));
      c.args.push_back({kind == 2 ? "channel_add" : "channel_mul",
                        randomTensor({channels}, t, rng, -2, 2), t});
    } else {
      operands.push_back("");
    }
  }

  std::string result = f.fresh();
  if (fused)
    os << "  " << result << " = boo.fusion -> " << valueType << " {\n";
  anchor = f.fresh();
  if (!backward)
    os << indent << anchor << " = boo.conv " << vx << ", " << vw
       << (withBias ? " bias(" + vb + " : " + tb + ")" : "")
       << convAttrs(p, rng) << " : " << tx << ", " << tw << " -> " << ty
       << "\n";
  else
    os << indent << anchor << " = boo.conv_bwd_data " << vx << ", " << vw
       << convAttrs(p, rng) << " : " << ty << ", " << tw << " -> " << tx
       << "\n";
  std::string cur = anchor;
  for (int i = 0; i < numOps; ++i) {
    std::string next = f.fresh();
    const Tensor &operand =
        kinds[i] == 0 ? value.value : c.args[operandArgs[i]].value;
    switch (kinds[i]) {
    case 0:
      os << indent << next << " = " << activationOp(acts[i], cur, valueType)
         << "\n";
      value = ref::activationBounded(acts[i].kind, value, acts[i].params, t);
      desc << " -> " << ref::activationName(acts[i].kind);
      break;
    case 1:
      os << indent << next << " = boo.add " << cur << ", " << operands[i]
         << " : " << valueType << ", " << valueType << "\n";
      value = ref::binaryBounded(ref::BinaryKind::Add, value,
                                 ref::exact(operand), -1, t);
      desc << " -> add residual";
      break;
    default: {
      bool isAdd = kinds[i] == 2;
      os << indent << next << " = boo." << (isAdd ? "add " : "mul ") << cur
         << ", " << operands[i] << " {channel_dim = " << channelDim
         << " : i64} : " << valueType << ", " << tc << "\n";
      value = ref::binaryBounded(isAdd ? ref::BinaryKind::Add
                                       : ref::BinaryKind::Mul,
                                 value, ref::exact(operand), channelDim, t);
      desc << (isAdd ? " -> add per-channel" : " -> mul per-channel");
      break;
    }
    }
    cur = next;
  }
  if (fused) {
    os << "    boo.yield " << cur << " : " << valueType << "\n  }\n";
    cur = result;
  }
  c.mlir = f.finish({cur}, {valueType});
  c.formFusions = rng.coin(0.7);
  c.vectorize = rng.coin(0.85);
  desc << "} " << getElementTypeName(t) << " " << p.describe();
  c.description = desc.str();
  c.results = {{"output", value, t}};
  return true;
}

TEST(ConvSweep, Forward) {
  runSweep("ConvSweep.Forward", 200,
           [](CaseRng &rng, Case &c) { return makeForward(rng, c); });
}

TEST(ConvSweep, BackwardData) {
  runSweep("ConvSweep.BackwardData", 200,
           [](CaseRng &rng, Case &c) { return makeBackwardData(rng, c); });
}

TEST(ConvSweep, BackwardWeight) {
  runSweep("ConvSweep.BackwardWeight", 150,
           [](CaseRng &rng, Case &c) { return makeBackwardWeight(rng, c); });
}

TEST(ConvSweep, BackwardBias) {
  runSweep("ConvSweep.BackwardBias", 30, makeBackwardBias);
}

TEST(ConvSweep, Epilogue) { runSweep("ConvSweep.Epilogue", 120, makeEpilogue); }

TEST(ConvSweep, MergedPositions) {
  runSweep("ConvSweep.MergedPositions", 60, [](CaseRng &rng, Case &c) {
    bool made = rng.coin() ? makeForward(rng, c, randomMergedConvProblem)
                           : makeBackwardData(rng, c, randomMergedConvProblem);
    // Extents that are no multiple of 32 are mostly split into a leading
    // multiple and a last tile (overlapping where fewer positions are left:
    // 7x9, not 28x28), now and then padded (to a multiple of 16).
    c.overlapMergedTails = rng.coin(0.7);
    return made;
  });
}

TEST(ConvSweep, SplitVectorLoops) {
  runSweep("ConvSweep.SplitVectorLoops", 45, [](CaseRng &rng, Case &c) {
    return makeAnyDirection(rng, c, randomSplitChannelsProblem);
  });
}

TEST(ConvSweep, PackedBlocks) {
  // pack-min-bytes is the CPU pipeline's; the emulator's kernels run the
  // GPU schedule, whose convolutions the other sweeps cover.
  if (getSweepOptions(0).device != "cpu")
    GTEST_SKIP() << "packed blocks are a CPU schedule";
  runSweep("ConvSweep.PackedBlocks", 60, [](CaseRng &rng, Case &c) {
    bool made = rng.coin(0.6)
                    ? makeForward(rng, c, randomPackedConvProblem)
                    : makeBackwardData(rng, c, randomPackedInputProblem);
    if (!made)
      return false;
    // Every filter copy qualifies, whatever its size.
    c.packMinBytes = 1;
    return true;
  });
}

TEST(ConvSweep, DotTiles) {
  // Dot products are a CPU schedule; the register budgets of AVX2 (96
  // lanes) and smaller give other tiles and leftover rows.
  if (getSweepOptions(0).device != "cpu")
    GTEST_SKIP() << "dot tiles are a CPU schedule";
  runSweep("ConvSweep.DotTiles", 40, [](CaseRng &rng, Case &c) {
    c.accumulatorLanes = rng.pick(std::vector<int64_t>{0, 0, 96, 48});
    return makeForward(rng, c, randomDotProblem);
  });
}

TEST(ConvSweep, AccumulatorBudgets) {
  // accumulator-lanes is the CPU pipeline's (the host's register file by
  // default); small budgets shrink the register tiles of every host's
  // contractions, as an AVX2 host's 96 lanes shrink its 8x32 ones.
  if (getSweepOptions(0).device != "cpu")
    GTEST_SKIP() << "accumulator budgets are a CPU schedule's";
  runSweep("ConvSweep.AccumulatorBudgets", 45, [](CaseRng &rng, Case &c) {
    bool made;
    switch (rng.range(0, 2)) {
    case 0:
      made = makeAnyDirection(rng, c, randomSplitChannelsProblem);
      break;
    case 1:
      made = rng.coin() ? makeForward(rng, c, randomMergedConvProblem)
                        : makeBackwardData(rng, c, randomMergedConvProblem);
      break;
    default:
      made = makeForward(rng, c, randomPackedConvProblem);
      break;
    }
    c.accumulatorLanes = rng.pick(std::vector<int64_t>{16, 24, 48, 96});
    return made;
  });
}

TEST(ConvSweep, SplitRowLoops) {
  // An AVX2 host's 96 accumulator lanes make 6 rows of 16 lanes, and 48
  // lanes 6 rows of 8: with 7 to 40 output channels per group (input
  // channels backward), mostly no multiple of 6, the merged 1x1
  // channels-first convolutions' rows are split in two overlapping pieces
  // (splitRowLoop), and positions no multiple of 16 split them again.
  if (getSweepOptions(0).device != "cpu")
    GTEST_SKIP() << "accumulator budgets are a CPU schedule's";
  runSweep("ConvSweep.SplitRowLoops", 40, [](CaseRng &rng, Case &c) {
    auto problem = [](CaseRng &rng, ConvProblem &p) {
      if (!randomMergedConvProblem(rng, p))
        return false;
      p.outChannels = p.groups * rng.range(7, 40);
      p.inChannels = p.groups * rng.range(1, 40);
      std::string error;
      return p.validate(error);
    };
    bool made = rng.coin(0.6) ? makeForward(rng, c, problem)
                              : makeBackwardData(rng, c, problem);
    c.accumulatorLanes = rng.pick(std::vector<int64_t>{48, 96, 96});
    return made;
  });
}

/// Row tails written masked or as shorter plain stores (prefix-stores),
/// whatever the host's default.
void pickTailStores(CaseRng &rng, Case &c) {
  c.prefixStores = rng.coin() ? 1 : -1;
}

TEST(ConvSweep, PlaneConvs) {
  runSweep("ConvSweep.PlaneConvs", 60, [](CaseRng &rng, Case &c) {
    pickTailStores(rng, c);
    // Backward weight at batch 1 has the shape of a plane convolution
    // too; only the small output gradients are one (a window no larger
    // than the filter).
    switch (rng.pick(std::vector<int>{0, 0, 0, 1, 2})) {
    case 0:
      return makeForward(rng, c, randomPlaneConvProblem);
    case 1:
      return makeBackwardData(rng, c, randomPlaneConvProblem);
    default:
      return makeBackwardWeight(rng, c, randomPlaneConvProblem);
    }
  });
}

TEST(ConvSweep, ChannelPlanes) {
  runSweep("ConvSweep.ChannelPlanes", 60, [](CaseRng &rng, Case &c) {
    pickTailStores(rng, c);
    return makeForward(rng, c, randomChannelPlaneProblem);
  });
}

TEST(ConvSweep, DepthwiseRows) {
  runSweep("ConvSweep.DepthwiseRows", 60, [](CaseRng &rng, Case &c) {
    return rng.coin(0.8) ? makeForward(rng, c, randomDepthwiseRowsProblem)
                         : makeBackwardData(rng, c, randomDepthwiseRowsProblem);
  });
}

TEST(ConvSweep, PaddedWindows) {
  runSweep("ConvSweep.PaddedWindows", 60, [](CaseRng &rng, Case &c) {
    return rng.coin(0.6) ? makeForward(rng, c, randomPaddedWindowProblem)
                         : makeBackwardData(rng, c, randomPaddedWindowProblem);
  });
}

TEST(ConvSweep, EdgeCases) {
  runSweep("ConvSweep.EdgeCases", 120, [](CaseRng &rng, Case &c) {
    return makeAnyDirection(rng, c, randomTinyConvProblem);
  });
}

} // namespace
