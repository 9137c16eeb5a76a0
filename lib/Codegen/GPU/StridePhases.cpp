//===- StridePhases.cpp - Skipping the stuffed taps of backward data ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The first tap of a phase: d*f == offset - i (mod s) has solutions iff
// g = gcd(s, d) divides t = (offset - i) mod s, and then they are
// f == (t/g) * (d/g)^-1 (mod s/g).
//
//===----------------------------------------------------------------------===//

#include "StridePhases.h"

#include "Boo/Dialect/Boo/IR/BooAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::boo;

int64_t StridePhase::getNumSteps(int64_t taps) const {
  return llvm::divideCeil(taps, tapStep);
}

std::pair<Value, Value> StridePhase::buildFirstTap(OpBuilder &b, Location loc,
                                                   Value i,
                                                   int64_t inputExtent) const {
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  // c == offset (mod s) and c > i for every i, so the unsigned remainder
  // of c - i is (offset - i) mod s.
  int64_t c = ((offset % stride) + stride) % stride +
              stride * llvm::divideCeil(inputExtent, stride);
  Value t = arith::RemUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, cst(c), i), cst(stride));
  Value exists;
  if (gcd > 1) {
    exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                   arith::RemUIOp::create(b, loc, t, cst(gcd)),
                                   cst(0));
    t = arith::DivUIOp::create(b, loc, t, cst(gcd));
  }
  if (tapStep == 1)
    return {cst(0), exists};
  if (inverse == 1) // t / gcd < tapStep already
    return {t, exists};
  Value r = arith::RemUIOp::create(
      b, loc, arith::MulIOp::create(b, loc, t, cst(inverse)), cst(tapStep));
  return {r, exists};
}

SmallVector<StridePhase> mlir::boo::getStridePhases(Operation *op) {
  SmallVector<StridePhase> phases;
  auto attr = op->getAttrOfType<StridePhasesAttr>(kStridePhasesAttrName);
  if (!attr)
    return phases;
  for (size_t j = 0, e = attr.getStrides().size(); j < e; ++j) {
    StridePhase p;
    p.inputLoop = attr.getInputLoops()[j];
    p.tapLoop = attr.getTapLoops()[j];
    p.stride = attr.getStrides()[j];
    p.dilation = attr.getDilations()[j];
    p.offset = attr.getOffsets()[j];
    if (p.stride == 1)
      continue;
    p.gcd = std::gcd(p.stride, p.dilation);
    p.tapStep = p.stride / p.gcd;
    int64_t unit = (p.dilation / p.gcd) % p.tapStep;
    p.inverse = 0;
    for (int64_t x = 0; x < p.tapStep; ++x)
      if ((unit * x) % p.tapStep == 1 % p.tapStep)
        p.inverse = x;
    phases.push_back(p);
  }
  return phases;
}

linalg::GenericOp mlir::boo::skipStuffedTaps(RewriterBase &rewriter,
                                             linalg::GenericOp op) {
  SmallVector<StridePhase> phases = getStridePhases(op);
  if (phases.empty() || op.getNumDpsInits() != 1)
    return op;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return op;
  // Every tap loop must be defined by the one loop-bounds operand (an
  // unread tensor.empty, see inlineDataMovementReads) and read by no map.
  OpOperand *bounds = nullptr;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool readsTap = llvm::any_of(phases, [&](const StridePhase &p) {
      return map.isFunctionOfDim(p.tapLoop);
    });
    if (!readsTap)
      continue;
    bool isBounds = op.isDpsInput(&operand) &&
                    operand.get().getDefiningOp<tensor::EmptyOp>() &&
                    !op.payloadUsesValueFromOperand(&operand) &&
                    llvm::all_of(map.getResults(), [](AffineExpr e) {
                      return isa<AffineDimExpr>(e);
                    });
    if (!isBounds || bounds)
      return op;
    bounds = &operand;
  }
  if (!bounds)
    return op;

  Location loc = op.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  // The loop-bounds operand, with the tap loops compressed.
  auto boundsType = cast<RankedTensorType>(bounds->get().getType());
  SmallVector<int64_t> shape(boundsType.getShape());
  AffineMap boundsMap = op.getMatchingIndexingMap(bounds);
  for (const StridePhase &p : phases)
    for (auto [pos, expr] : llvm::enumerate(boundsMap.getResults()))
      if (cast<AffineDimExpr>(expr).getPosition() == p.tapLoop)
        shape[pos] = p.getNumSteps(ranges[p.tapLoop]);
  rewriter.setInsertionPoint(op);
  Value newBounds = tensor::EmptyOp::create(rewriter, loc, shape,
                                            boundsType.getElementType());

  // In the body: f = r(i) + step*u where it exists and is inside the
  // filter; elsewhere the accumulator is yielded unchanged.
  Block *body = op.getBody();
  SmallVector<linalg::IndexOp> oldTapIndices;
  body->walk([&](linalg::IndexOp index) {
    if (llvm::any_of(phases, [&](const StridePhase &p) {
          return static_cast<int64_t>(index.getDim()) == p.tapLoop;
        }))
      oldTapIndices.push_back(index);
  });
  rewriter.setInsertionPointToStart(body);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value valid;
  auto both = [&](Value x, Value y) -> Value {
    if (!x)
      return y;
    if (!y)
      return x;
    return arith::AndIOp::create(rewriter, loc, x, y);
  };
  llvm::SmallDenseMap<int64_t, Value> tapValues;
  for (const StridePhase &p : phases) {
    Value i = linalg::IndexOp::create(rewriter, loc, p.inputLoop);
    Value u = linalg::IndexOp::create(rewriter, loc, p.tapLoop);
    auto [first, exists] =
        p.buildFirstTap(rewriter, loc, i, ranges[p.inputLoop]);
    Value f = arith::AddIOp::create(
        rewriter, loc, first,
        arith::MulIOp::create(rewriter, loc, u, cst(p.tapStep)));
    Value inside = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult, f, cst(ranges[p.tapLoop]));
    valid = both(valid, both(exists, inside));
    tapValues[p.tapLoop] = f;
  }
  // Reads at an invalid tap stay inside the filter (tap 0); their product
  // is dropped.
  for (auto &[loop, f] : tapValues)
    f = arith::SelectOp::create(rewriter, loc, valid, f, cst(0));
  for (linalg::IndexOp index : oldTapIndices)
    rewriter.replaceAllUsesWith(index.getResult(), tapValues[index.getDim()]);

  Operation *yield = body->getTerminator();
  rewriter.setInsertionPoint(yield);
  Value out = body->getArgument(op.getNumDpsInputs());
  Value kept =
      arith::SelectOp::create(rewriter, loc, valid, yield->getOperand(0), out);
  rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(0, kept); });
  rewriter.modifyOpInPlace(op, [&] {
    bounds->set(newBounds);
    op->removeAttr(kStridePhasesAttrName);
  });
  return op;
}
