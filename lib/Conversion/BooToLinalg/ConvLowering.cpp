//===- ConvLowering.cpp - Convolutions to linalg.generic ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Every convolution becomes one linalg.generic whose loops are the op's
// KernelLoopNest (getOpLoopNest, KernelLoopNest.cpp: the one definition of
// their order, which lowering configs refer to) and whose indexing maps are
// read off the layouts: each tensor dim gets the affine expression of the
// loop(s) that index it. Groups split the channel dims into (group,
// channel-in-group) with tensor.expand_shape so the group is an ordinary
// parallel loop. Padding is an explicit tensor.pad. Backward-data with a
// stride above 1 is the stride-1 convolution of the zero-stuffed gradient
// with the flipped filter (see docs/Lowering.md); its generic carries
// #boo.stride_phases, which says which taps read stuffed zeros, so the GPU
// code generators visit only the others (stride-phase decomposition).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilder.h"

#include "Boo/Dialect/Boo/IR/BooAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {
using Exprs = SmallVector<AffineExpr>;

/// Orders per-canonical-dim expressions by tensor position: `perm[c]` is the
/// position of canonical dim `c`.
Exprs inLayoutOrder(ArrayRef<int64_t> perm, ArrayRef<Exprs> canonical) {
  SmallVector<int64_t> inverse(perm.size());
  for (auto [c, pos] : llvm::enumerate(perm))
    inverse[pos] = c;
  Exprs out;
  for (int64_t c : inverse)
    llvm::append_range(out, canonical[c]);
  return out;
}

/// `shape` with dim `pos` split into [groups, size / groups] when grouped.
SmallVector<int64_t> splitShape(ArrayRef<int64_t> shape, int64_t pos,
                                int64_t groups) {
  SmallVector<int64_t> out(shape.begin(), shape.end());
  if (groups == 1)
    return out;
  out[pos] = shape[pos] / groups;
  out.insert(out.begin() + pos, groups);
  return out;
}

/// The loop dims of one conv-family generic: the loops of the op's
/// KernelLoopNest, in its order, looked up by name.
struct NestLoops {
  NestLoops(MLIRContext *ctx, const KernelLoopNest &nest) : nest(nest) {
    for (auto [i, loop] : llvm::enumerate(nest.loops)) {
      exprs.push_back(getAffineDimExpr(i, ctx));
      iterators.push_back(loop.isReduction ? utils::IteratorType::reduction
                                           : utils::IteratorType::parallel);
    }
  }
  unsigned size() const { return exprs.size(); }
  /// The loop named `name` ("n", "g", "k", "c"), if the nest has it.
  std::optional<AffineExpr> find(StringRef name) const {
    for (auto [i, loop] : llvm::enumerate(nest.loops))
      if (loop.name == name)
        return exprs[i];
    return std::nullopt;
  }
  AffineExpr operator[](StringRef name) const {
    std::optional<AffineExpr> e = find(name);
    assert(e && "the loop nest has no such loop");
    return *e;
  }
  /// The spatial loops whose names are `prefix` and a spatial letter ("oh",
  /// "ow" for 'o'), outermost first.
  Exprs spatial(char prefix) const {
    Exprs out;
    for (auto [i, loop] : llvm::enumerate(nest.loops))
      if (loop.name.size() == 2 && loop.name[0] == prefix &&
          StringRef("dhw").contains(loop.name[1]))
        out.push_back(exprs[i]);
    return out;
  }

  const KernelLoopNest &nest;
  Exprs exprs;
  SmallVector<utils::IteratorType> iterators;
};

/// acc + a * b, all in f32.
Value multiplyAccumulate(LinalgBuilder &lb, OpBuilder &nb, Location l,
                         ValueRange args) {
  Value prod = arith::MulFOp::create(nb, l, lb.toF32(nb, l, args[0]),
                                     lb.toF32(nb, l, args[1]));
  return arith::AddFOp::create(nb, l, args[2], prod);
}

/// Channel exprs: (g, x) when grouped, else (x).
Exprs channel(std::optional<AffineExpr> g, AffineExpr x) {
  if (g)
    return {*g, x};
  return {x};
}

/// One operand (or the result) of a convolution contraction: a tensor in a
/// layout, the index expressions of its canonical dims, and the position of
/// the channel dim that groups split.
struct ConvOperand {
  Value value;
  ArrayRef<int64_t> perm;
  SmallVector<Exprs> canonical;
  int64_t channelPos;
};

/// The multiply-accumulate generic shared by all convolutions: splits the
/// channel dims into (group, channel) when grouped, accumulates lhs * rhs in
/// an f32 tensor of `resultShape`, and merges the group dim back.
/// `generic`, if given, receives the accumulation generic.
Value contract(LinalgBuilder &lb, const NestLoops &loops, int64_t groups,
               ConvOperand lhs, ConvOperand rhs, ArrayRef<int64_t> resultShape,
               const ConvOperand &result,
               linalg::GenericOp *generic = nullptr) {
  if (groups > 1) {
    lhs.value = lb.splitDim(lhs.value, lhs.channelPos, groups);
    rhs.value = lb.splitDim(rhs.value, rhs.channelPos, groups);
  }
  Value acc =
      lb.zeros(splitShape(resultShape, result.channelPos, groups), lb.f32());
  acc =
      lb.generic(loops.size(), {lhs.value, rhs.value},
                 {inLayoutOrder(lhs.perm, lhs.canonical),
                  inLayoutOrder(rhs.perm, rhs.canonical)},
                 acc, inLayoutOrder(result.perm, result.canonical),
                 loops.iterators, [&](OpBuilder &nb, Location l, ValueRange a) {
                   return multiplyAccumulate(lb, nb, l, a);
                 });
  lb.markRoot(acc);
  if (generic)
    *generic = acc.getDefiningOp<linalg::GenericOp>();
  if (groups > 1)
    acc = lb.mergeDims(acc, result.channelPos);
  return acc;
}

/// Pads the spatial dims of an input-layout tensor by the problem's padding.
Value padInput(LinalgBuilder &lb, const ConvGeometry &g, Value input) {
  int64_t rank = g.spatialRank + 2;
  SmallVector<int64_t> lo(rank, 0), hi(rank, 0);
  for (int64_t i = 0; i < g.spatialRank; ++i) {
    lo[g.inputPerm[2 + i]] = g.padLow[i];
    hi[g.inputPerm[2 + i]] = g.padHigh[i];
  }
  return lb.padOrCrop(input, lo, hi);
}

Value lowerForward(LinalgBuilder &lb, ConvOp op, const NestLoops &loops,
                   ValueRange operands, bool keepF32) {
  ConvGeometry g = op.getGeometry();
  int64_t r = g.spatialRank;
  AffineExpr n = loops["n"], k = loops["k"], c = loops["c"];
  std::optional<AffineExpr> grp = loops.find("g");
  Exprs o = loops.spatial('o'), f = loops.spatial('f');

  SmallVector<Exprs> inC = {{n}, channel(grp, c)};
  SmallVector<Exprs> filC = {channel(grp, k), {c}};
  SmallVector<Exprs> outC = {{n}, channel(grp, k)};
  for (int64_t i = 0; i < r; ++i) {
    inC.push_back({o[i] * g.strides[i] + f[i] * g.dilations[i]});
    filC.push_back({f[i]});
    outC.push_back({o[i]});
  }
  Value acc =
      contract(lb, loops, g.groups,
               {padInput(lb, g, operands[0]), g.inputPerm, inC, g.inputPerm[1]},
               {operands[1], g.filterPerm, filC, g.filterPerm[0]},
               g.outputShape(), {Value(), g.outputPerm, outC, g.outputPerm[1]});

  // Epilogue: bias, then the single rounding to the storage type.
  Type outElem = keepF32 ? lb.f32() : op.getOutput().getType().getElementType();
  if (operands.size() < 3)
    return lb.convertElements(acc, outElem);
  Exprs biasExpr = {lb.getBuilder().getAffineDimExpr(g.outputPerm[1])};
  return lb.elementwise({acc, operands[2]}, {std::nullopt, biasExpr},
                        lb.empty(g.outputShape(), outElem),
                        [&](OpBuilder &nb, Location l, ValueRange a) {
                          Value sum = arith::AddFOp::create(
                              nb, l, a[0], lb.toF32(nb, l, a[1]));
                          return lb.castTo(nb, l, sum, outElem);
                        });
}

Value lowerBackwardData(LinalgBuilder &lb, ConvBwdDataOp op,
                        const NestLoops &loops, ValueRange operands,
                        bool keepF32) {
  ConvGeometry g = op.getGeometry();
  MLIRContext *ctx = op.getContext();
  OpBuilder &b = lb.getBuilder();
  Location loc = lb.getLoc();
  int64_t r = g.spatialRank;
  int64_t rank = r + 2;
  AffineExpr n = loops["n"], c = loops["c"], k = loops["k"];
  std::optional<AffineExpr> grp = loops.find("g");
  Exprs i = loops.spatial('i'), f = loops.spatial('f');

  // Zero-stuff the gradient (stride > 1), then pad/crop it so that
  //   dx[i] = sum_f dyp[i + f*dil] * wflip[f],  wflip[f] = w[F-1-f].
  Value dy = operands[0];
  auto dyType = cast<RankedTensorType>(dy.getType());
  bool strided = llvm::any_of(g.strides, [](int64_t s) { return s > 1; });
  SmallVector<int64_t> stuffedShape(dyType.getShape());
  for (int64_t j = 0; j < r; ++j)
    stuffedShape[g.outputPerm[2 + j]] =
        (g.outSpatial[j] - 1) * g.strides[j] + 1;
  if (strided) {
    Value zeros = lb.zeros(stuffedShape, dyType.getElementType());
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), sizes,
        strides(rank, b.getIndexAttr(1));
    for (int64_t d : dyType.getShape())
      sizes.push_back(b.getIndexAttr(d));
    for (int64_t j = 0; j < r; ++j)
      strides[g.outputPerm[2 + j]] = b.getIndexAttr(g.strides[j]);
    dy = tensor::InsertSliceOp::create(b, loc, dy, zeros, offsets, sizes,
                                       strides);
  }
  SmallVector<int64_t> lo(rank, 0), hi(rank, 0);
  for (int64_t j = 0; j < r; ++j) {
    int64_t extent = g.dilations[j] * (g.filterSpatial[j] - 1);
    int64_t low = extent - g.padLow[j];
    int64_t pos = g.outputPerm[2 + j];
    lo[pos] = low;
    hi[pos] = g.inSpatial[j] + extent - low - stuffedShape[pos];
  }
  dy = lb.padOrCrop(dy, lo, hi);
  // Flip the filter's spatial dims in a small copy, so that the main
  // generic's maps are all increasing (tiling needs that).
  Value filter = operands[1];
  {
    auto fType = cast<RankedTensorType>(filter.getType());
    SmallVector<AffineExpr> flip = lb.dims(rank);
    for (int64_t j = 0; j < r; ++j) {
      int64_t pos = g.filterPerm[2 + j];
      flip[pos] =
          getAffineConstantExpr(g.filterSpatial[j] - 1, ctx) - flip[pos];
    }
    filter = lb.elementwise(
        {filter}, {flip}, lb.empty(fType.getShape(), fType.getElementType()),
        [](OpBuilder &, Location, ValueRange a) { return a[0]; });
  }
  SmallVector<Exprs> dyC = {{n}, channel(grp, k)};
  SmallVector<Exprs> filC = {channel(grp, k), {c}};
  SmallVector<Exprs> dxC = {{n}, channel(grp, c)};
  for (int64_t j = 0; j < r; ++j) {
    dyC.push_back({i[j] + f[j] * g.dilations[j]});
    filC.push_back({f[j]});
    dxC.push_back({i[j]});
  }
  linalg::GenericOp generic;
  Value acc =
      contract(lb, loops, g.groups, {dy, g.outputPerm, dyC, g.outputPerm[1]},
               {filter, g.filterPerm, filC, g.filterPerm[0]}, g.inputShape(),
               {Value(), g.inputPerm, dxC, g.inputPerm[1]}, &generic);
  // Which taps read stuffed zeros, for the code generators: the product at
  // (i, f) reads dyp[i + f*dil] = stuffed[i + f*dil - lo], non-zero only
  // where that index is a multiple of the stride.
  if (strided) {
    SmallVector<int64_t> inputLoops, tapLoops, offsets;
    for (int64_t j = 0; j < r; ++j) {
      inputLoops.push_back(cast<AffineDimExpr>(i[j]).getPosition());
      tapLoops.push_back(cast<AffineDimExpr>(f[j]).getPosition());
      offsets.push_back(lo[g.outputPerm[2 + j]]);
    }
    generic->setAttr(kStridePhasesAttrName,
                     StridePhasesAttr::get(ctx, inputLoops, tapLoops, g.strides,
                                           g.dilations, offsets));
  }
  return lb.convertElements(
      acc, keepF32 ? lb.f32() : op.getGradInput().getType().getElementType());
}

Value lowerBackwardWeight(LinalgBuilder &lb, ConvBwdWeightOp op,
                          const NestLoops &loops, ValueRange operands,
                          bool keepF32) {
  ConvGeometry g = op.getGeometry();
  int64_t r = g.spatialRank;
  AffineExpr n = loops["n"], k = loops["k"], c = loops["c"];
  std::optional<AffineExpr> grp = loops.find("g");
  Exprs f = loops.spatial('f'), o = loops.spatial('o');

  SmallVector<Exprs> dyC = {{n}, channel(grp, k)};
  SmallVector<Exprs> inC = {{n}, channel(grp, c)};
  SmallVector<Exprs> dwC = {channel(grp, k), {c}};
  for (int64_t j = 0; j < r; ++j) {
    dyC.push_back({o[j]});
    inC.push_back({o[j] * g.strides[j] + f[j] * g.dilations[j]});
    dwC.push_back({f[j]});
  }
  Value acc = contract(
      lb, loops, g.groups, {operands[0], g.outputPerm, dyC, g.outputPerm[1]},
      {padInput(lb, g, operands[1]), g.inputPerm, inC, g.inputPerm[1]},
      g.filterShape(), {Value(), g.filterPerm, dwC, g.filterPerm[0]});
  return lb.convertElements(
      acc, keepF32 ? lb.f32() : op.getGradFilter().getType().getElementType());
}

/// One loop per dim of the gradient, in its layout's order; all but the
/// channel are reductions.
Value lowerBackwardBias(LinalgBuilder &lb, ConvBwdBiasOp op,
                        const NestLoops &loops, ValueRange operands,
                        bool keepF32) {
  auto dyType = cast<RankedTensorType>(operands[0].getType());
  int64_t kPos = op.getChannelDim();
  Value acc = lb.zeros({dyType.getDimSize(kPos)}, lb.f32());
  acc = lb.generic(loops.size(), {operands[0]}, {loops.exprs}, acc,
                   {loops.exprs[kPos]}, loops.iterators,
                   [&](OpBuilder &nb, Location l, ValueRange a) {
                     return arith::AddFOp::create(nb, l, a[1],
                                                  lb.toF32(nb, l, a[0]));
                   });
  lb.markRoot(acc);
  return lb.convertElements(
      acc, keepF32 ? lb.f32() : op.getGradBias().getType().getElementType());
}
} // namespace

FailureOr<SmallVector<Value>>
mlir::boo::detail::lowerConvOp(LinalgBuilder &lb, Operation *op,
                               ValueRange operands, bool keepF32) {
  FailureOr<KernelLoopNest> nest = getOpLoopNest(op);
  if (failed(nest))
    return failure();
  NestLoops loops(op->getContext(), *nest);
  return TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
      .Case([&](ConvOp o) {
        return SmallVector<Value>{
            lowerForward(lb, o, loops, operands, keepF32)};
      })
      .Case([&](ConvBwdDataOp o) {
        return SmallVector<Value>{
            lowerBackwardData(lb, o, loops, operands, keepF32)};
      })
      .Case([&](ConvBwdWeightOp o) {
        return SmallVector<Value>{
            lowerBackwardWeight(lb, o, loops, operands, keepF32)};
      })
      .Case([&](ConvBwdBiasOp o) {
        return SmallVector<Value>{
            lowerBackwardBias(lb, o, loops, operands, keepF32)};
      })
      .Default([](Operation *) { return failure(); });
}
