//===- ConvertToLinalg.cpp - boo-convert-to-linalg ------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Lowers Boo ops to linalg on tensors. Outside a fusion each op produces its
// storage type. A boo.fusion is lowered as a whole: its ops produce f32
// tensors that flow into each other, and each yielded value is rounded to
// its storage type once (see the numerics note on boo.fusion).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilder.h"

#include "Boo/Conversion/BooToLinalg/Passes.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOCONVERTTOLINALG
#include "Boo/Conversion/BooToLinalg/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {

/// f32 activation of `x`.
Value applyActivation(LinalgBuilder &lb, OpBuilder &b, Location l,
                      ActivationOp op, Value x) {
  auto c = [&](double v) { return lb.f32Const(b, l, v); };
  auto sigmoid = [&](Value v) {
    Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, v));
    return arith::DivFOp::create(b, l, c(1.0),
                                 arith::AddFOp::create(b, l, c(1.0), e));
  };
  auto half = [&](Value v, Value t) { // 0.5 * v * (1 + t)
    Value onePlus = arith::AddFOp::create(b, l, c(1.0), t);
    return arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, c(0.5), v),
                                 onePlus);
  };
  switch (op.getKind()) {
  case ActivationKind::relu:
    return arith::MaximumFOp::create(b, l, x, c(0.0));
  case ActivationKind::sigmoid:
    return sigmoid(x);
  case ActivationKind::tanh:
    return math::TanhOp::create(b, l, x);
  case ActivationKind::gelu: {
    Value scaled = arith::MulFOp::create(b, l, x, c(M_SQRT1_2));
    return half(x, math::ErfOp::create(b, l, scaled));
  }
  case ActivationKind::gelu_tanh: {
    // tanh(sqrt(2/pi) * (x + 0.044715 x^3))
    Value x3 =
        arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, x, x), x);
    Value inner = arith::AddFOp::create(
        b, l, x, arith::MulFOp::create(b, l, c(0.044715), x3));
    Value arg = arith::MulFOp::create(b, l, c(0.7978845608028654), inner);
    return half(x, math::TanhOp::create(b, l, arg));
  }
  case ActivationKind::silu:
    return arith::MulFOp::create(b, l, x, sigmoid(x));
  case ActivationKind::leaky_relu: {
    Value scaled =
        arith::MulFOp::create(b, l, c(op.getAlpha()->convertToDouble()), x);
    Value pos =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, x, c(0.0));
    return arith::SelectOp::create(b, l, pos, x, scaled);
  }
  case ActivationKind::clamp: {
    Value lo =
        arith::MaximumFOp::create(b, l, x, c(op.getMin()->convertToDouble()));
    return arith::MinimumFOp::create(b, l, lo,
                                     c(op.getMax()->convertToDouble()));
  }
  }
  llvm_unreachable("unknown activation");
}

Type resultElement(LinalgBuilder &lb, Value result, bool keepF32) {
  return keepF32 ? lb.f32()
                 : cast<RankedTensorType>(result.getType()).getElementType();
}

Value lowerActivation(LinalgBuilder &lb, ActivationOp op, ValueRange operands,
                      bool keepF32) {
  auto type = cast<RankedTensorType>(op.getType());
  Type elem = resultElement(lb, op.getOutput(), keepF32);
  return lb.markRoot(lb.elementwise(
      {operands[0]}, {}, lb.empty(type.getShape(), elem),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value y = applyActivation(lb, b, l, op, lb.toF32(b, l, a[0]));
        return lb.castTo(b, l, y, elem);
      }));
}

template <typename OpTy>
Value lowerBinary(LinalgBuilder &lb, OpTy op, ValueRange operands,
                  bool keepF32) {
  auto type = cast<RankedTensorType>(op.getType());
  Type elem = resultElement(lb, op.getOutput(), keepF32);
  SmallVector<std::optional<SmallVector<AffineExpr>>> exprs = {std::nullopt,
                                                               std::nullopt};
  if (std::optional<int64_t> dim = op.getChannelDim())
    exprs[1] = SmallVector<AffineExpr>{lb.getBuilder().getAffineDimExpr(*dim)};
  return lb.markRoot(lb.elementwise(
      {operands[0], operands[1]}, exprs, lb.empty(type.getShape(), elem),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value x = lb.toF32(b, l, a[0]), y = lb.toF32(b, l, a[1]);
        Value r;
        if constexpr (std::is_same_v<OpTy, AddOp>)
          r = arith::AddFOp::create(b, l, x, y);
        else
          r = arith::MulFOp::create(b, l, x, y);
        return lb.castTo(b, l, r, elem);
      }));
}

/// Lowers any Boo op except boo.fusion / boo.yield.
FailureOr<SmallVector<Value>> lowerBooOp(LinalgBuilder &lb, Operation *op,
                                         ValueRange operands, bool keepF32) {
  if (isa<ConvOp, ConvBwdDataOp, ConvBwdWeightOp, ConvBwdBiasOp>(op))
    return lowerConvOp(lb, op, operands, keepF32);
  if (isa<MatmulOp>(op))
    return lowerMatmulOp(lb, op, operands, keepF32);
  if (isa<LayerNormOp, LayerNormBwdOp>(op))
    return lowerNormOp(lb, op, operands, keepF32);
  if (isa<BatchNormOp, BatchNormBwdOp>(op))
    return lowerBatchNormOp(lb, op, operands, keepF32);
  if (isa<ArgMaxOp, ArgMinOp>(op))
    return lowerArgReduceOp(lb, op, operands);
  if (auto view = dyn_cast<AsStridedOp>(op))
    return SmallVector<Value>{lowerAsStridedOp(lb, view, operands[0])};
  return TypeSwitch<Operation *, FailureOr<SmallVector<Value>>>(op)
      .Case([&](ActivationOp o) {
        return SmallVector<Value>{lowerActivation(lb, o, operands, keepF32)};
      })
      .Case([&](AddOp o) {
        return SmallVector<Value>{lowerBinary(lb, o, operands, keepF32)};
      })
      .Case([&](MulOp o) {
        return SmallVector<Value>{lowerBinary(lb, o, operands, keepF32)};
      })
      .Default([](Operation *) { return failure(); });
}

/// Moves the kernel's `#boo.lowering_config` (on `kernel`, a Boo op or a
/// fusion being replaced) to `root`, the linalg.generic the lowering built
/// from the kernel's loop nest (LinalgBuilder::markRoot), where the code
/// generator reads it. A config with no root, or a root whose loops are not
/// the nest's, is a bug of the lowering: it is reported at the kernel.
LogicalResult transferLoweringConfig(Operation *kernel,
                                     linalg::GenericOp root) {
  auto config =
      kernel->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
  if (!config)
    return success();
  FailureOr<KernelLoopNest> nest = getKernelLoopNest(kernel);
  bool matches =
      root && succeeded(nest) && nest->getNumLoops() == root.getNumLoops();
  if (matches)
    for (auto [loop, type] :
         llvm::zip(nest->loops, root.getIteratorTypesArray()))
      matches &= loop.isReduction == (type == utils::IteratorType::reduction);
  if (!matches)
    return kernel->emitError("boo-convert-to-linalg: internal error: the "
                             "lowering built no generic with the kernel's "
                             "loop nest for its lowering config");
  root->setAttr(kLoweringConfigAttrName, config);
  return success();
}

/// Any Boo op outside a fusion.
struct LowerBooOpPattern : public RewritePattern {
  LowerBooOpPattern(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<BooDialect>(op->getDialect()) ||
        isa<FusionOp, YieldOp>(op) ||
        isa_and_nonnull<FusionOp>(op->getParentOp()))
      return failure();
    LinalgBuilder lb(rewriter, op->getLoc());
    FailureOr<SmallVector<Value>> results =
        lowerBooOp(lb, op, op->getOperands(), /*keepF32=*/false);
    if (failed(results))
      return rewriter.notifyMatchFailure(op, "no linalg lowering");
    // An error here is reported and fails the pass (see runOnOperation).
    (void)transferLoweringConfig(op, lb.getRoot());
    rewriter.replaceOp(op, *results);
    return success();
  }
};

/// A whole boo.fusion: f32 intermediates, one rounding per yielded value.
struct LowerFusionPattern : public OpRewritePattern<FusionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FusionOp fusion,
                                PatternRewriter &rewriter) const override {
    rewriter.setInsertionPoint(fusion);
    LinalgBuilder lb(rewriter, fusion.getLoc());
    linalg::GenericOp root;
    IRMapping mapping;
    Block &body = fusion.getBody().front();
    for (Operation &op : body.without_terminator()) {
      SmallVector<Value> operands;
      for (Value v : op.getOperands())
        operands.push_back(mapping.lookupOrDefault(v));
      LinalgBuilder opBuilder(rewriter, op.getLoc());
      FailureOr<SmallVector<Value>> results =
          lowerBooOp(opBuilder, &op, operands, /*keepF32=*/true);
      if (failed(results))
        return rewriter.notifyMatchFailure(&op, "no linalg lowering");
      if (&op == getKernelRootOp(fusion))
        root = opBuilder.getRoot();
      mapping.map(op.getResults(), *results);
    }
    SmallVector<Value> yielded;
    SmallVector<Type> elems;
    for (auto [value, type] : llvm::zip(body.getTerminator()->getOperands(),
                                        fusion.getResultTypes())) {
      yielded.push_back(mapping.lookupOrDefault(value));
      elems.push_back(cast<RankedTensorType>(type).getElementType());
    }
    SmallVector<Value> replacements = lb.convertElements(yielded, elems);
    (void)transferLoweringConfig(fusion, root);
    rewriter.replaceOp(fusion, replacements);
    return success();
  }
};

struct BooConvertToLinalgPass
    : public mlir::boo::impl::BooConvertToLinalgBase<BooConvertToLinalgPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateBooToLinalgPatterns(patterns);
    GreedyRewriteConfig config;
    config.enableFolding(false);
    // The patterns report a lowering config they cannot place as an error
    // (and go on): any error fails the pass.
    bool sawError = false;
    ScopedDiagnosticHandler errors(&getContext(), [&](Diagnostic &diag) {
      sawError |= diag.getSeverity() == DiagnosticSeverity::Error;
      return failure(); // not handled: the error is still reported
    });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)) ||
        sawError)
      return signalPassFailure();
    WalkResult leftover = getOperation().walk([](Operation *op) {
      if (isa_and_nonnull<BooDialect>(op->getDialect())) {
        op->emitError("boo-convert-to-linalg: could not lower '")
            << op->getName() << "'";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (leftover.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

void mlir::boo::populateBooToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerBooOpPattern, LowerFusionPattern>(patterns.getContext());
}
