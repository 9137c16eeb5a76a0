//===- MIOpenImport.cpp - Build Boo MLIR for MIOpenDriver problems --------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Builds one public func.func per problem, with the name, arguments and
// results of its ProblemSignature (Boo/Import/ProblemSignature.h). Names
// follow IREE BOO (iree-turbine, kernel/boo/op_exports) so the same problem
// has the same name in both projects' logs; the argument order follows the
// tensors each direction reads (see docs/MIOpenImport.md).
//
//===----------------------------------------------------------------------===//

#include "Boo/Import/MIOpenImport.h"
#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"
#include "Boo/Dialect/Boo/IR/ElementTypes.h"
#include "Boo/Import/ProblemSignature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

RankedTensorType getTensorType(MLIRContext *ctx, const TensorSpec &spec) {
  return RankedTensorType::get(spec.shape, getMLIRType(ctx, spec.type));
}

/// Creates the function of `signature` at the end of `module`, naming each
/// argument and result with `boo.name`. `buildBody` gets the arguments and
/// returns the results, whose types must be the signature's.
LogicalResult
createFunc(OpBuilder &b, Location loc, ModuleOp module,
           const ProblemSignature &signature,
           function_ref<SmallVector<Value>(OpBuilder &, ValueRange)> buildBody,
           std::string &error) {
  MLIRContext *ctx = b.getContext();
  auto types = [&](const std::vector<TensorSpec> &specs) {
    return llvm::to_vector(llvm::map_range(specs, [&](const TensorSpec &s) {
      return Type(getTensorType(ctx, s));
    }));
  };
  FunctionType type =
      b.getFunctionType(types(signature.arguments), types(signature.results));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, loc, signature.functionName, type);
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  SmallVector<Value> results = buildBody(b, entry->getArguments());
  func::ReturnOp::create(b, loc, results);
  if (TypeRange(ValueRange(results)) != type.getResults()) {
    error = "internal error: the body of " + signature.functionName +
            " does not return the signature's results";
    return failure();
  }
  auto name = [&](StringRef text) { return b.getStringAttr(text); };
  for (auto [i, spec] : llvm::enumerate(signature.arguments))
    func.setArgAttr(i, "boo.name", name(spec.name));
  for (auto [i, spec] : llvm::enumerate(signature.results))
    func.setResultAttr(i, "boo.name", name(spec.name));
  return success();
}

/// The argument of `signature` named `name`, or null.
Value getArgument(const ProblemSignature &signature, ValueRange args,
                  StringRef name) {
  int64_t i = signature.findArgument(name);
  return i < 0 ? Value() : args[i];
}

LogicalResult buildConv(OpBuilder &b, Location loc, ModuleOp module,
                        const MIOpenConvProblem &p, std::string &error) {
  const ConvGeometry &g = p.geometry;
  // Every attribute is spelled out, defaults included, so that the IR reads
  // on its own. MIOpen's padding is symmetric.
  DenseI64ArrayAttr strides = b.getDenseI64ArrayAttr(g.strides);
  DenseI64ArrayAttr dilations = b.getDenseI64ArrayAttr(g.dilations);
  DenseI64ArrayAttr padLow = b.getDenseI64ArrayAttr(g.padLow);
  DenseI64ArrayAttr padHigh = b.getDenseI64ArrayAttr(g.padHigh);
  IntegerAttr groups = b.getI64IntegerAttr(g.groups);
  StringAttr inputLayout = b.getStringAttr(p.inputLayout);
  StringAttr filterLayout = b.getStringAttr(p.filterLayout);
  StringAttr outputLayout = b.getStringAttr(p.outputLayout);

  ProblemSignature signature = getProblemSignature(p);
  auto buildBody = [&](OpBuilder &b, ValueRange args) {
    auto arg = [&](StringRef name) {
      return getArgument(signature, args, name);
    };
    SmallVector<Value> results;
    for (const TensorSpec &result : signature.results) {
      // Each op computes one result, whose type the signature gives.
      RankedTensorType type = getTensorType(b.getContext(), result);
      if (result.name == "output")
        results.push_back(
            ConvOp::create(b, loc, type, arg("input"), arg("filter"),
                           arg("bias"), strides, dilations, padLow, padHigh,
                           groups, inputLayout, filterLayout, outputLayout));
      else if (result.name == "grad_input")
        results.push_back(ConvBwdDataOp::create(
            b, loc, type, arg("grad_output"), arg("filter"), strides, dilations,
            padLow, padHigh, groups, inputLayout, filterLayout, outputLayout));
      else if (result.name == "grad_filter")
        results.push_back(ConvBwdWeightOp::create(
            b, loc, type, arg("grad_output"), arg("input"), strides, dilations,
            padLow, padHigh, groups, inputLayout, filterLayout, outputLayout));
      else if (result.name == "grad_bias")
        results.push_back(ConvBwdBiasOp::create(
            b, loc, type, arg("grad_output"), outputLayout));
    }
    return results;
  };
  return createFunc(b, loc, module, signature, buildBody, error);
}

LogicalResult buildLayerNorm(OpBuilder &b, Location loc, ModuleOp module,
                             const MIOpenLayerNormProblem &p,
                             std::string &error) {
  Type elementType = getMLIRType(b.getContext(), p.dataType);
  ArrayRef<int64_t> shape = p.shape;
  auto xType = RankedTensorType::get(shape, elementType);
  // Statistics are f32 whatever the data type, as Boo computes them.
  auto statType =
      RankedTensorType::get(shape.take_front(p.normalizedDim), b.getF32Type());
  auto paramType =
      RankedTensorType::get(shape.drop_front(p.normalizedDim), elementType);
  IntegerAttr normalizedRank = b.getI64IntegerAttr(p.getNormalizedRank());
  ProblemSignature signature = getProblemSignature(p);

  if (p.direction == 1) {
    auto buildBody = [&](OpBuilder &b, ValueRange args) {
      auto arg = [&](StringRef name) {
        return getArgument(signature, args, name);
      };
      auto op = LayerNormOp::create(b, loc, xType, statType, statType, arg("x"),
                                    arg("weight"), arg("bias"), normalizedRank,
                                    b.getF32FloatAttr(p.epsilon));
      return SmallVector<Value>(op->getResults());
    };
    return createFunc(b, loc, module, signature, buildBody, error);
  }

  auto buildBody = [&](OpBuilder &b, ValueRange args) {
    auto arg = [&](StringRef name) {
      return getArgument(signature, args, name);
    };
    Value x = arg("x"), mean = arg("mean"), rstd = arg("rstd");
    if (!x) {
      // dbias = sum of dy over the rows: x and the statistics only feed dx
      // and dweight, which are not returned and so are erased once lowered.
      // Their contents do not matter.
      x = tensor::EmptyOp::create(b, loc, shape, elementType);
      mean =
          tensor::EmptyOp::create(b, loc, statType.getShape(), b.getF32Type());
      rstd =
          tensor::EmptyOp::create(b, loc, statType.getShape(), b.getF32Type());
    }
    auto op =
        LayerNormBwdOp::create(b, loc, xType, paramType, paramType, arg("dy"),
                               x, mean, rstd, arg("weight"), normalizedRank);
    SmallVector<Value> results;
    for (const TensorSpec &result : signature.results)
      results.push_back(result.name == "dx"        ? op.getDx()
                        : result.name == "dweight" ? op.getDweight()
                                                   : op.getDbias());
    return results;
  };
  return createFunc(b, loc, module, signature, buildBody, error);
}

/// One boo.matmul (MIOpenGemmProblem::getProduct says which).
LogicalResult buildGemm(OpBuilder &b, Location loc, ModuleOp module,
                        const MIOpenGemmProblem &p, std::string &error) {
  ProblemSignature signature = getProblemSignature(p);
  MIOpenGemmProblem::Product product = p.getProduct();
  auto buildBody = [&](OpBuilder &b, ValueRange args) {
    auto arg = [&](StringRef name) {
      return getArgument(signature, args, name);
    };
    RankedTensorType type =
        getTensorType(b.getContext(), signature.results.front());
    // beta scales C and needs it; a zero beta ignores it.
    Value bias = p.hasInputC() && p.beta != 0.0 ? arg(p.getNameC()) : Value();
    // A strided aten operand is read from its storage.
    auto operand = [&](StringRef name) -> Value {
      Value v = arg(name);
      bool isA = name == p.getNameA();
      ArrayRef<int64_t> strides = isA ? p.stridesA : p.stridesB;
      if (strides.empty())
        return v;
      auto viewType = RankedTensorType::get(
          isA ? p.getShapeA() : p.getShapeB(), type.getElementType());
      return AsStridedOp::create(b, loc, viewType, v,
                                 b.getDenseI64ArrayAttr(strides))
          .getOutput();
    };
    auto mm = MatmulOp::create(
        b, loc, type, operand(product.lhs), operand(product.rhs), bias,
        product.transposeLhs, product.transposeRhs,
        APFloat(p.alpha), APFloat(bias ? p.beta : 1.0));
    return SmallVector<Value>{mm.getOutput()};
  };
  return createFunc(b, loc, module, signature, buildBody, error);
}

/// One boo.batch_norm, or a boo.batch_norm_bwd (after a boo.batch_norm for
/// the statistics when they are not given).
LogicalResult buildBatchNorm(OpBuilder &b, Location loc, ModuleOp module,
                             const MIOpenBatchNormProblem &p,
                             std::string &error) {
  using Direction = MIOpenBatchNormProblem::Direction;
  MLIRContext *ctx = b.getContext();
  ProblemSignature signature = getProblemSignature(p);
  auto xType = RankedTensorType::get(p.shape, getMLIRType(ctx, p.dataType));
  SmallVector<int64_t> statShape = p.getStatShape();
  auto statType =
      RankedTensorType::get(statShape, getMLIRType(ctx, p.statType));
  auto paramType =
      RankedTensorType::get(statShape, getMLIRType(ctx, p.paramType));
  auto f32Type = RankedTensorType::get(statShape, b.getF32Type());
  auto features = b.getDenseI64ArrayAttr(p.getFeatureDims());
  FloatAttr eps = b.getF32FloatAttr(p.epsilon);
  FloatAttr momentum = b.getF32FloatAttr(p.momentum);
  auto buildBody = [&](OpBuilder &b, ValueRange args) {
    auto arg = [&](StringRef name) {
      return getArgument(signature, args, name);
    };
    auto forward = [&](bool training, Type stat, bool updates) {
      SmallVector<Type> running;
      if (updates)
        running.assign(2, statType);
      return BatchNormOp::create(
          b, loc, xType, stat, stat, running, arg("x"), arg("weight"),
          arg("bias"), arg("running_mean"), arg("running_var"), features,
          training ? b.getUnitAttr() : UnitAttr(), eps, momentum);
    };
    if (p.direction != Direction::Backward) {
      bool training = p.usesBatchStats();
      bool updates = p.direction == Direction::Training && p.run;
      BatchNormOp op = forward(training, statType, updates);
      // The op's results in order: y, mean, rstd, [new running mean, var].
      StringRef names[] = {"y", "mean", "rstd", "new_running_mean",
                           "new_running_var"};
      SmallVector<Value> results;
      for (const TensorSpec &result : signature.results)
        for (auto [name, value] : llvm::zip(names, op->getResults()))
          if (result.name == name)
            results.push_back(value);
      return results;
    }
    Value mean = arg("mean"), rstd = arg("rstd");
    if (!mean) {
      BatchNormOp stats = forward(true, f32Type, false);
      mean = stats.getMean();
      rstd = stats.getRstd();
    }
    auto op = BatchNormBwdOp::create(b, loc, xType, paramType, paramType,
                                     arg("dy"), arg("x"), mean, rstd,
                                     arg("weight"), features);
    return SmallVector<Value>(op->getResults());
  };
  return createFunc(b, loc, module, signature, buildBody, error);
}

/// One boo.argmax or boo.argmin.
LogicalResult buildArgReduce(OpBuilder &b, Location loc, ModuleOp module,
                             const MIOpenArgReduceProblem &p,
                             std::string &error) {
  ProblemSignature signature = getProblemSignature(p);
  auto buildBody = [&](OpBuilder &b, ValueRange args) {
    RankedTensorType type =
        getTensorType(b.getContext(), signature.results.front());
    IntegerAttr dim = p.dim ? b.getI64IntegerAttr(*p.dim) : IntegerAttr();
    UnitAttr keepdim = p.keepdim ? b.getUnitAttr() : UnitAttr();
    Value result =
        p.isMax ? ArgMaxOp::create(b, loc, type, args[0], dim, keepdim)
                      .getOutput()
                : ArgMinOp::create(b, loc, type, args[0], dim, keepdim)
                      .getOutput();
    return SmallVector<Value>{result};
  };
  return createFunc(b, loc, module, signature, buildBody, error);
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>>
mlir::boo::buildMIOpenModule(MLIRContext *ctx, const MIOpenProblem &problem,
                             std::string &error) {
  ctx->loadDialect<BooDialect, func::FuncDialect, tensor::TensorDialect>();
  OpBuilder b(ctx);
  Location loc = b.getUnknownLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);

  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem)) {
    if (failed(buildConv(b, loc, *module, *conv, error)))
      return failure();
  } else if (auto *gemm = std::get_if<MIOpenGemmProblem>(&problem)) {
    if (failed(buildGemm(b, loc, *module, *gemm, error)))
      return failure();
  } else if (auto *bnorm = std::get_if<MIOpenBatchNormProblem>(&problem)) {
    if (failed(buildBatchNorm(b, loc, *module, *bnorm, error)))
      return failure();
  } else if (auto *arg = std::get_if<MIOpenArgReduceProblem>(&problem)) {
    if (failed(buildArgReduce(b, loc, *module, *arg, error)))
      return failure();
  } else if (failed(buildLayerNorm(b, loc, *module,
                                   std::get<MIOpenLayerNormProblem>(problem),
                                   error))) {
    return failure();
  }

  // The parser's checks should make this unreachable; if they have a gap,
  // report the verifier's message instead of printing invalid IR.
  std::string diagnostics;
  {
    llvm::raw_string_ostream os(diagnostics);
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      os << diag.str();
      return success();
    });
    if (failed(verify(*module))) {
      error = "internal error: the generated module does not verify: " +
              diagnostics;
      return failure();
    }
  }
  return module;
}

FailureOr<OwningOpRef<ModuleOp>>
mlir::boo::importMIOpenCommand(MLIRContext *ctx, StringRef command,
                               std::string &error) {
  FailureOr<MIOpenProblem> problem = parseMIOpenCommand(command, error);
  if (failed(problem))
    return failure();
  return buildMIOpenModule(ctx, *problem, error);
}
