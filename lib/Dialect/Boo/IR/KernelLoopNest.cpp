//===- KernelLoopNest.cpp - The loop nests lowering configs describe ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Which ops are kernels, and the loop nest of each kernel's root
// linalg.generic: loop names, extents, kinds and GEMM roles, and each
// input's index expressions. This is the one definition of the loop order:
// boo-convert-to-linalg takes the loops of the convolution and layer-norm
// generics from it (ConvLowering.cpp, NormLowering.cpp), a
// #boo.lowering_config's tile sizes refer to it, and the lowering attaches
// the config to the generic it builds from it.
//
// The nest is built from the op's operand types and attributes with
// dyn_casts only: the module-level config check runs before nested ops are
// verified, so an invalid kernel just yields no loop nest (its own verifier
// reports it).
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::boo;

bool mlir::boo::isKernel(Operation *op) {
  if (isa<FusionOp>(op))
    return true;
  if (!isFusionAnchor(op) && !isElementwiseEpilogue(op))
    return false;
  return !op->getParentOfType<FusionOp>();
}

Operation *mlir::boo::getKernelRootOp(Operation *kernel) {
  auto fusion = dyn_cast<FusionOp>(kernel);
  return fusion ? fusion.getAnchor() : kernel;
}

namespace {
constexpr auto kM = LoopRole::M;
constexpr auto kN = LoopRole::N;
constexpr auto kK = LoopRole::K;

/// A static ranked tensor type of `v`, or null.
RankedTensorType staticTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t : RankedTensorType();
}

/// Builds loops and operands in the order the lowering allocates them.
struct NestBuilder {
  KernelLoopNest nest;

  int64_t loop(std::string name, int64_t extent, bool reduction,
               LoopRole role = LoopRole::None) {
    nest.loops.push_back({std::move(name), extent, reduction, role});
    return nest.loops.size() - 1;
  }
  KernelOperand &input(std::string name, Type elementType) {
    nest.inputs.push_back({std::move(name), elementType, {}});
    return nest.inputs.back();
  }
  /// Sets the output's innermost loop from its layout's `perm` (canonical
  /// dim -> position) and the loops of its canonical dims: `outer` (N or
  /// K), `channel` (C) and `spatial`.
  void setOutputInnerLoop(ArrayRef<int64_t> perm, int64_t outer,
                          int64_t channel, ArrayRef<int64_t> spatial) {
    int64_t last = static_cast<int64_t>(perm.size()) - 1;
    for (auto [dim, pos] : llvm::enumerate(perm))
      if (pos == last)
        nest.outputInnerLoop = dim == 0   ? outer
                               : dim == 1 ? channel
                                          : spatial[dim - 2];
  }
};

void addDim(KernelOperand &operand, int64_t size,
            std::initializer_list<std::pair<int64_t, int64_t>> terms) {
  operand.dims.push_back(
      {SmallVector<std::pair<int64_t, int64_t>, 2>(terms), size});
}

/// Spatial dim names: the trailing `rank` letters of "dhw".
std::string spatialName(StringRef prefix, int64_t rank, int64_t i) {
  return (prefix + StringRef("dhw").drop_front(3 - rank).substr(i, 1)).str();
}

/// The geometry of a convolution op whose output shape is consistent.
FailureOr<ConvGeometry> getGeometrySafely(Operation *op, Type &elementType) {
  FailureOr<ConvTensors> t = getConvTensors(op);
  std::string error;
  FailureOr<ConvGeometry> g = getConvGeometry(op, error);
  if (failed(t) || failed(g) ||
      ArrayRef<int64_t>(g->outputShape()) != t->output.getShape())
    return failure();
  elementType = t->input.getElementType();
  return g;
}

/// A channel dim of a conv operand: (group, channel) when grouped.
void addChannel(KernelOperand &operand, std::optional<int64_t> g,
                int64_t groups, int64_t loop, int64_t perGroup) {
  if (g)
    addDim(operand, groups, {{*g, 1}});
  addDim(operand, perGroup, {{loop, 1}});
}

FailureOr<KernelLoopNest> convNest(Operation *op) {
  Type elem;
  FailureOr<ConvGeometry> maybeG = getGeometrySafely(op, elem);
  if (failed(maybeG))
    return failure();
  const ConvGeometry &g = *maybeG;
  int64_t r = g.spatialRank;
  int64_t kPerG = g.outChannelsPerGroup(), cPerG = g.inChannelsPerGroup();
  NestBuilder b;
  b.nest.isContraction = true;
  std::optional<int64_t> grp;
  SmallVector<int64_t> sp, f;

  if (isa<ConvOp, ConvBwdDataOp>(op)) {
    bool fwd = isa<ConvOp>(op);
    // Forward: n, [g,] k, o..., c, f...; backward data: n, [g,] c, i..., k,
    // f... (a stride-1 correlation of the stuffed, padded gradient).
    int64_t n = b.loop("n", g.batch, false, kM);
    if (g.groups > 1)
      grp = b.loop("g", g.groups, false, LoopRole::Group);
    int64_t outCh = b.loop(fwd ? "k" : "c", fwd ? kPerG : cPerG, false, kN);
    for (int64_t i = 0; i < r; ++i) {
      sp.push_back(b.loop(spatialName(fwd ? "o" : "i", r, i),
                          fwd ? g.outSpatial[i] : g.inSpatial[i], false, kM));
      if (!fwd)
        b.nest.loops.back().phases = g.strides[i];
    }
    int64_t redCh = b.loop(fwd ? "c" : "k", fwd ? cPerG : kPerG, true, kK);
    for (int64_t i = 0; i < r; ++i)
      f.push_back(b.loop(spatialName("f", r, i), g.filterSpatial[i], true,
                         LoopRole::Tap));

    KernelOperand &a = b.input(fwd ? "input" : "grad_output", elem);
    addDim(a, g.batch, {{n, 1}});
    addChannel(a, grp, g.groups, redCh, fwd ? cPerG : kPerG);
    for (int64_t i = 0; i < r; ++i) {
      int64_t ext = g.dilations[i] * (g.filterSpatial[i] - 1);
      if (fwd)
        addDim(a, g.inSpatial[i] + g.padLow[i] + g.padHigh[i],
               {{sp[i], g.strides[i]}, {f[i], g.dilations[i]}});
      else
        addDim(a, g.inSpatial[i] + ext, {{sp[i], 1}, {f[i], g.dilations[i]}});
    }
    KernelOperand &w = b.input("filter", elem);
    addChannel(w, grp, g.groups, fwd ? outCh : redCh, kPerG);
    addDim(w, cPerG, {{fwd ? redCh : outCh, 1}});
    for (int64_t i = 0; i < r; ++i)
      addDim(w, g.filterSpatial[i], {{f[i], 1}});
    // The output (backward data: the input gradient) in (N, C, spatial...).
    b.setOutputInnerLoop(fwd ? g.outputPerm : g.inputPerm, n, outCh, sp);
    return b.nest;
  }

  // Backward weight: [g,] k, c, f..., n, o...
  if (g.groups > 1)
    grp = b.loop("g", g.groups, false, LoopRole::Group);
  int64_t k = b.loop("k", kPerG, false, kM);
  int64_t c = b.loop("c", cPerG, false, kN);
  for (int64_t i = 0; i < r; ++i)
    f.push_back(b.loop(spatialName("f", r, i), g.filterSpatial[i], false, kN));
  int64_t n = b.loop("n", g.batch, true, kK);
  for (int64_t i = 0; i < r; ++i)
    sp.push_back(b.loop(spatialName("o", r, i), g.outSpatial[i], true, kK));
  KernelOperand &dy = b.input("grad_output", elem);
  addDim(dy, g.batch, {{n, 1}});
  addChannel(dy, grp, g.groups, k, kPerG);
  for (int64_t i = 0; i < r; ++i)
    addDim(dy, g.outSpatial[i], {{sp[i], 1}});
  KernelOperand &x = b.input("input", elem);
  addDim(x, g.batch, {{n, 1}});
  addChannel(x, grp, g.groups, c, cPerG);
  for (int64_t i = 0; i < r; ++i)
    addDim(x, g.inSpatial[i] + g.padLow[i] + g.padHigh[i],
           {{sp[i], g.strides[i]}, {f[i], g.dilations[i]}});
  // The output is the filter gradient, (K, C, spatial...).
  b.setOutputInnerLoop(g.filterPerm, k, c, f);
  return b.nest;
}

/// [b,] m, n, k: the batch is a parallel loop like a conv's group.
FailureOr<KernelLoopNest> matmulNest(MatmulOp op) {
  FailureOr<MatmulSizes> s = getMatmulSizes(op);
  if (failed(s))
    return failure();
  Type elem = cast<RankedTensorType>(op->getOperand(0).getType())
                  .getElementType();
  NestBuilder b;
  b.nest.isContraction = true;
  std::optional<int64_t> batch;
  if (s->batched)
    batch = b.loop("b", s->batch, false, LoopRole::Group);
  int64_t m = b.loop("m", s->m, false, kM);
  int64_t n = b.loop("n", s->n, false, kN);
  int64_t k = b.loop("k", s->k, true, kK);
  // A matrix operand: [batch,] rows, cols, or cols, rows when transposed.
  using Dim = std::pair<int64_t, int64_t>; // (loop, extent)
  auto addMatrix = [&](KernelOperand &operand, Dim rows, Dim cols,
                       bool transposed) {
    if (batch)
      addDim(operand, s->batch, {{*batch, 1}});
    if (transposed)
      std::swap(rows, cols);
    addDim(operand, rows.second, {{rows.first, 1}});
    addDim(operand, cols.second, {{cols.first, 1}});
  };
  addMatrix(b.input("lhs", elem), {m, s->m}, {k, s->k}, op.getTransposeLhs());
  addMatrix(b.input("rhs", elem), {k, s->k}, {n, s->n}, op.getTransposeRhs());
  b.nest.outputInnerLoop = n;
  return b.nest;
}

FailureOr<KernelLoopNest> bwdBiasNest(ConvBwdBiasOp op) {
  if (op->getNumOperands() != 1)
    return failure();
  RankedTensorType dy = staticTensor(op->getOperand(0));
  if (!dy || dy.getRank() < 3)
    return failure();
  int64_t spatialRank = dy.getRank() - 2;
  std::string layout = op.getOutputLayout().value_or("").str();
  if (layout.empty())
    layout = defaultLayout(LayoutKind::Activation, spatialRank);
  std::string error;
  FailureOr<SmallVector<int64_t>> perm =
      parseLayout(layout, LayoutKind::Activation, spatialRank, error);
  if (failed(perm))
    return failure();
  NestBuilder b;
  KernelOperand &in = b.input("grad_output", dy.getElementType());
  for (int64_t d = 0; d < dy.getRank(); ++d) {
    char letter = llvm::toLower(layout[d]);
    int64_t l =
        b.loop(std::string(1, letter), dy.getDimSize(d), d != (*perm)[1]);
    addDim(in, dy.getDimSize(d), {{l, 1}});
  }
  return b.nest;
}

/// Rows-then-normalized loops over `x`; inputs named in `names` are indexed
/// by all dims ("all"), the rows ("outer") or the normalized dims ("inner").
FailureOr<KernelLoopNest>
normNest(Operation *op, int64_t xOperand,
         ArrayRef<std::pair<StringRef, StringRef>> inputs) {
  if (op->getNumOperands() <= static_cast<unsigned>(xOperand))
    return failure();
  RankedTensorType x = staticTensor(op->getOperand(xOperand));
  auto rankAttr = op->getAttrOfType<IntegerAttr>("normalized_rank");
  int64_t normalized = rankAttr ? rankAttr.getInt() : 1;
  if (!x || normalized < 1 || normalized > x.getRank())
    return failure();
  int64_t split = x.getRank() - normalized;
  NestBuilder b;
  for (int64_t d = 0; d < x.getRank(); ++d)
    b.loop("d" + std::to_string(d), x.getDimSize(d), d >= split);
  for (auto [i, in] : llvm::enumerate(inputs)) {
    auto t = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
    KernelOperand &operand =
        b.input(in.first.str(), t ? t.getElementType() : x.getElementType());
    int64_t lo = in.second == "inner" ? split : 0;
    int64_t hi = in.second == "outer" ? split : x.getRank();
    for (int64_t d = lo; d < hi; ++d)
      addDim(operand, x.getDimSize(d), {{d, 1}});
  }
  return b.nest;
}

/// A batch norm's statistics: the feature dims of `x` (parallel), then the
/// others (reduced unless `reduces` is false: an inference normalizes
/// only), each in x's order. Inputs named in `names` are indexed by all
/// dims of x ("all") or the feature dims ("features").
FailureOr<KernelLoopNest>
batchNormNest(Operation *op, int64_t xOperand, ArrayRef<int64_t> featureDims,
              bool reduces, ArrayRef<std::pair<StringRef, StringRef>> inputs) {
  if (op->getNumOperands() <= static_cast<unsigned>(xOperand))
    return failure();
  RankedTensorType x = staticTensor(op->getOperand(xOperand));
  if (!x)
    return failure();
  // loopOf[d]: the loop of x's dim d.
  SmallVector<int64_t> loopOf(x.getRank(), -1);
  NestBuilder b;
  for (int64_t d : featureDims) {
    if (d < 0 || d >= x.getRank() || loopOf[d] >= 0)
      return failure();
    loopOf[d] = b.loop("d" + std::to_string(d), x.getDimSize(d), false);
  }
  for (int64_t d = 0; d < x.getRank(); ++d)
    if (loopOf[d] < 0)
      loopOf[d] = b.loop("d" + std::to_string(d), x.getDimSize(d), reduces);
  for (auto [i, in] : llvm::enumerate(inputs)) {
    auto t = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
    KernelOperand &operand =
        b.input(in.first.str(), t ? t.getElementType() : x.getElementType());
    for (int64_t d = 0; d < x.getRank(); ++d)
      if (in.second == "all" || llvm::is_contained(featureDims, d))
        addDim(operand, x.getDimSize(d), {{loopOf[d], 1}});
  }
  return b.nest;
}

/// An arg-reduction's first pass: one loop per dim of its input's view
/// (getArgReduceForm: the input, or its reduced extent split into rows),
/// the reduced one(s) reductions; ins(input).
FailureOr<KernelLoopNest> argReduceNest(Operation *op) {
  FailureOr<ArgReduceForm> form = getArgReduceForm(op);
  if (failed(form))
    return failure();
  NestBuilder b;
  for (auto [d, size] : llvm::enumerate(form->shape))
    b.loop("d" + std::to_string(d), size, form->reduced[d]);
  KernelOperand &in = b.input(
      "input",
      cast<RankedTensorType>(op->getOperand(0).getType()).getElementType());
  for (auto [d, size] : llvm::enumerate(form->shape))
    addDim(in, size, {{int64_t(d), 1}});
  return b.nest;
}

FailureOr<KernelLoopNest> elementwiseNest(Operation *op) {
  if (op->getNumResults() != 1)
    return failure();
  RankedTensorType out = staticTensor(op->getResult(0));
  if (!out)
    return failure();
  NestBuilder b;
  for (int64_t d = 0; d < out.getRank(); ++d)
    b.loop("d" + std::to_string(d), out.getDimSize(d), false);
  auto channelDim = op->getAttrOfType<IntegerAttr>("channel_dim");
  StringRef names[] = {"lhs", "rhs"};
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return failure();
    KernelOperand &in = b.input(
        isa<ActivationOp>(op) ? "input" : names[std::min<size_t>(i, 1)].str(),
        t.getElementType());
    if (i == 1 && channelDim && t.getRank() == 1) {
      int64_t cd = channelDim.getInt();
      if (cd < 0 || cd >= out.getRank())
        return failure();
      addDim(in, t.getDimSize(0), {{cd, 1}});
      continue;
    }
    for (int64_t d = 0; d < out.getRank(); ++d)
      addDim(in, out.getDimSize(d), {{d, 1}});
  }
  return b.nest;
}
} // namespace

FailureOr<KernelLoopNest> mlir::boo::getKernelLoopNest(Operation *kernel) {
  if (!isKernel(kernel))
    return failure();
  Operation *root = getKernelRootOp(kernel);
  if (!root)
    return failure();
  return getOpLoopNest(root);
}

FailureOr<KernelLoopNest> mlir::boo::getOpLoopNest(Operation *root) {
  return TypeSwitch<Operation *, FailureOr<KernelLoopNest>>(root)
      .Case<ConvOp, ConvBwdDataOp, ConvBwdWeightOp>(
          [](Operation *op) { return convNest(op); })
      .Case([](ConvBwdBiasOp op) { return bwdBiasNest(op); })
      .Case([](MatmulOp op) { return matmulNest(op); })
      // The row sum: ins(x).
      .Case([](LayerNormOp op) {
        return normNest(op, 0, {{"x", "all"}});
      })
      // The row sums of g and g * xhat: ins(dy, x, mean, rstd[, weight]).
      .Case([](LayerNormBwdOp op) {
        SmallVector<std::pair<StringRef, StringRef>> ins = {
            {"dy", "all"}, {"x", "all"}, {"mean", "outer"}, {"rstd", "outer"}};
        if (op->getNumOperands() > 4)
          ins.push_back({"weight", "inner"});
        return normNest(op, 1, ins);
      })
      // The sum over the reduced dims: ins(x) (training; an inference's
      // normalization has the same loops, all parallel).
      .Case([](BatchNormOp op) {
        return batchNormNest(op, 0, op.getFeatureDims(), op.getTraining(),
                             {{"x", "all"}});
      })
      // The sums of dy and dy * xhat: ins(dy, x, mean, rstd).
      .Case([](BatchNormBwdOp op) {
        return batchNormNest(op, 1, op.getFeatureDims(), true,
                             {{"dy", "all"},
                              {"x", "all"},
                              {"mean", "features"},
                              {"rstd", "features"}});
      })
      .Case<ArgMaxOp, ArgMinOp>(
          [](Operation *op) { return argReduceNest(op); })
      .Case<ActivationOp, AddOp, MulOp>(
          [](Operation *op) { return elementwiseNest(op); })
      .Default([](Operation *) { return failure(); });
}
