//===- ExpandMath.cpp - Math without device libraries ---------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-expand-math`: `convert-gpu-to-rocdl` lowers most `math` ops to calls
// of `__ocml_*` functions, which only ROCm's device-library bitcode defines.
// Boo links none, so every such op is rewritten here into arithmetic and the
// few math ops that do have native AMDGPU lowerings (f32 exp, log, sqrt; fma,
// abs, copysign, round, clampf), then any leftover is reported.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOEXPANDMATH
#include "Boo/Codegen/Common/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

/// Polynomial (or rational) approximations from upstream's
/// PolynomialApproximation.cpp, all computed in f32.
constexpr StringLiteral kApproximated[] = {
    "tanh",  "erf",   "erfc", "atan", "atan2", "asin", "acos",
    "log1p", "expm1", "cbrt", "sin",  "cos",   "log2"};

/// Rewrites into other math/arith ops from upstream's ExpandPatterns.cpp.
constexpr StringLiteral kExpanded[] = {"tan",   "sinh",  "cosh", "asinh",
                                       "acosh", "atanh", "exp2", "powf",
                                       "fpowi", "rsqrt", "ceil"};

/// What `populateMathToROCDLConversionPatterns` turns into an `__ocml_*`
/// call, for every element type.
constexpr StringLiteral kLibraryCalls[] = {
    "math.acos",  "math.acosh", "math.asin", "math.asinh", "math.atan",
    "math.atanh", "math.atan2", "math.cbrt", "math.ceil",  "math.cos",
    "math.cosh",  "math.sinh",  "math.exp2", "math.expm1", "math.floor",
    "math.log10", "math.log1p", "math.log2", "math.powf",  "math.rsqrt",
    "math.sin",   "math.tanh",  "math.tan",  "math.erf",   "math.erfc",
    "math.fpowi", "arith.remf"};

/// ... and only for non-f32 element types (f32 has an LLVM intrinsic).
constexpr StringLiteral kNonF32LibraryCalls[] = {"math.exp", "math.log"};

bool isMnemonicIn(ArrayRef<StringLiteral> list, StringRef opName) {
  opName.consume_front("math.");
  return llvm::is_contained(list, opName);
}

/// floor(x) = -ceil(-x); ceil is expanded in turn. Upstream has no floor
/// expansion, and `__ocml_floor_f32` is the only other lowering.
struct ExpandFloor : public OpRewritePattern<math::FloorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FloorOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value negated = arith::NegFOp::create(rewriter, loc, op.getOperand());
    Value ceil = math::CeilOp::create(rewriter, loc, negated);
    rewriter.replaceOpWithNewOp<arith::NegFOp>(op, ceil);
    return success();
  }
};

/// log10(x) = log(x) * log10(e); f32 log is native.
struct ExpandLog10 : public OpRewritePattern<math::Log10Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Log10Op op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    Location loc = op.getLoc();
    Value log = math::LogOp::create(rewriter, loc, op.getOperand());
    TypedAttr log10e = rewriter.getF32FloatAttr(0.434294481903251827651f);
    if (auto shaped = dyn_cast<ShapedType>(type))
      log10e = SplatElementsAttr::get(shaped, log10e);
    Value scale = arith::ConstantOp::create(rewriter, loc, log10e);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, log, scale);
    return success();
  }
};

struct BooExpandMathPass
    : public mlir::boo::impl::BooExpandMathBase<BooExpandMathPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    // f16/bf16 math is computed in f32 (this also keeps f16 exp/log, which
    // would be library calls, off the device library).
    populateMathF32ExpansionPatterns(patterns, [](StringRef) { return true; });
    populateMathPolynomialApproximationPatterns(patterns, [](StringRef name) {
      return isMnemonicIn(kApproximated, name);
    });
    SmallVector<StringRef> expanded(std::begin(kExpanded), std::end(kExpanded));
    math::populateExpansionPatterns(patterns, expanded);
    patterns.add<ExpandFloor, ExpandLog10>(ctx);
    if (failed(applyPatternsGreedily(root, std::move(patterns))))
      return signalPassFailure();

    // Whatever is left would become an unresolved `__ocml_*` call in the code
    // object: refuse it here, at the op.
    bool leftover = false;
    root->walk([&](Operation *op) {
      StringRef name = op->getName().getStringRef();
      bool isCall = llvm::is_contained(kLibraryCalls, name);
      if (!isCall && llvm::is_contained(kNonF32LibraryCalls, name))
        isCall = !getElementTypeOrSelf(op->getResult(0).getType()).isF32();
      if (!isCall)
        return;
      op->emitOpError() << "has no lowering without the ROCm device "
                           "libraries, and boo-expand-math cannot expand it "
                           "for type "
                        << op->getResult(0).getType();
      leftover = true;
    });
    if (leftover)
      signalPassFailure();
  }
};

} // namespace
