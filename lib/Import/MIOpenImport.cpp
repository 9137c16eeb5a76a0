//===- MIOpenImport.cpp - Build Boo MLIR for MIOpenDriver problems --------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Builds one public func.func per problem. Names follow IREE BOO
// (iree-turbine, kernel/boo/op_exports) so the same problem has the same name
// in both projects' logs; the argument order follows the tensors each
// direction reads (see docs/MIOpenImport.md).
//
//===----------------------------------------------------------------------===//

#include "Boo/Import/MIOpenImport.h"
#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "Boo/Dialect/Boo/IR/BooOps.h"

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

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

namespace {

/// The dtype spelling of torch (and so of IREE BOO's names).
StringRef getTypeName(MIOpenDataType type) {
  switch (type) {
  case MIOpenDataType::F32:
    return "float32";
  case MIOpenDataType::F16:
    return "float16";
  case MIOpenDataType::BF16:
    return "bfloat16";
  }
  llvm_unreachable("unknown MIOpenDataType");
}

Type getElementType(MLIRContext *ctx, MIOpenDataType type) {
  switch (type) {
  case MIOpenDataType::F32:
    return Float32Type::get(ctx);
  case MIOpenDataType::F16:
    return Float16Type::get(ctx);
  case MIOpenDataType::BF16:
    return BFloat16Type::get(ctx);
  }
  llvm_unreachable("unknown MIOpenDataType");
}

/// IREE BOO's conv mode names, from the gradients requested.
StringRef getConvModeName(const MIOpenConvProblem &p) {
  bool input = p.direction & 2, weight = p.direction & 4;
  if (p.direction == 1)
    return "forward";
  if (!p.bias)
    return input && weight ? "input_weight_backward"
           : input         ? "input_backward"
                           : "weight_backward";
  return input && weight ? "all_backward"
         : input         ? "input_bias_backward"
                         : "weight_bias_backward";
}

StringRef getLayerNormModeName(const MIOpenLayerNormProblem &p) {
  switch (p.direction) {
  case 1:
    return "forward";
  case 2:
    return "input_backward";
  case 4:
    return "weight_backward";
  case 8:
    return "bias_backward";
  default:
    return "full_backward";
  }
}

std::string getConvFuncName(const MIOpenConvProblem &p) {
  const ConvGeometry &g = p.geometry;
  SmallVector<std::string> items = {"conv", std::to_string(g.spatialRank) + "d",
                                    getTypeName(p.dataType).str(),
                                    getConvModeName(p).str()};
  if (p.bias && p.direction == 1)
    items.push_back("b");
  items.push_back(joinShape(g.inputShape()));
  items.push_back(
      getLayoutSignatureName(p.inputLayout, LayoutKind::Activation, false));
  items.push_back(joinShape(g.filterShape()));
  items.push_back(
      getLayoutSignatureName(p.filterLayout, LayoutKind::Filter, false));
  items.push_back(
      getLayoutSignatureName(p.outputLayout, LayoutKind::Activation, true));
  items.push_back(joinShape(g.strides) + "s");
  items.push_back(joinShape(g.padLow) + "p");
  items.push_back(joinShape(g.dilations) + "d");
  items.push_back(std::to_string(g.groups) + "g");
  return llvm::join(items, "_");
}

std::string getLayerNormFuncName(const MIOpenLayerNormProblem &p) {
  SmallVector<std::string> items = {
      "layer_norm", std::to_string(p.getNormalizedRank()) + "d",
      getTypeName(p.dataType).str(), getLayerNormModeName(p).str(),
      joinShape(p.shape)};
  if (p.weightAndBias) {
    items.push_back("w");
    items.push_back("b");
  }
  return llvm::join(items, "_");
}

} // namespace

std::string mlir::boo::getMIOpenFuncName(const MIOpenProblem &problem) {
  if (auto *conv = std::get_if<MIOpenConvProblem>(&problem))
    return getConvFuncName(*conv);
  return getLayerNormFuncName(std::get<MIOpenLayerNormProblem>(problem));
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

namespace {

/// Creates `name(argTypes...)` at the end of `module`, lets `buildBody` fill
/// it and return the results, and sets the result types from them.
void createFunc(
    OpBuilder &b, Location loc, ModuleOp module, StringRef name,
    TypeRange argTypes,
    function_ref<SmallVector<Value>(OpBuilder &, ValueRange)> buildBody) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(argTypes, /*results=*/{}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  SmallVector<Value> results = buildBody(b, entry->getArguments());
  func::ReturnOp::create(b, loc, results);
  func.setFunctionType(
      b.getFunctionType(argTypes, ValueRange(results).getTypes()));
}

LogicalResult buildConv(OpBuilder &b, Location loc, ModuleOp module,
                        const MIOpenConvProblem &p, std::string &error) {
  const ConvGeometry &g = p.geometry;
  Type elementType = getElementType(b.getContext(), p.dataType);
  auto inputType = RankedTensorType::get(g.inputShape(), elementType);
  auto filterType = RankedTensorType::get(g.filterShape(), elementType);
  auto outputType = RankedTensorType::get(g.outputShape(), elementType);
  auto biasType = RankedTensorType::get({g.outChannels}, elementType);

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

  std::string name = getConvFuncName(p);
  if (p.direction == 1) {
    SmallVector<Type> args = {inputType, filterType};
    if (p.bias)
      args.push_back(biasType);
    createFunc(b, loc, module, name, args, [&](OpBuilder &b, ValueRange args) {
      Value bias = p.bias ? args[2] : Value();
      Value out = ConvOp::create(b, loc, outputType, args[0], args[1], bias,
                                 strides, dilations, padLow, padHigh, groups,
                                 inputLayout, filterLayout, outputLayout);
      return SmallVector<Value>{out};
    });
    return success();
  }

  bool wantInput = p.direction & 2, wantWeight = p.direction & 4;
  // (grad_output, filter), (grad_output, input) or (grad_output, input,
  // filter): the tensors the requested gradients read.
  SmallVector<Type> args = {outputType};
  if (wantWeight)
    args.push_back(inputType);
  if (wantInput)
    args.push_back(filterType);
  createFunc(b, loc, module, name, args, [&](OpBuilder &b, ValueRange args) {
    Value gradOutput = args[0];
    SmallVector<Value> results;
    if (wantInput)
      results.push_back(ConvBwdDataOp::create(
          b, loc, inputType, gradOutput, args.back(), strides, dilations,
          padLow, padHigh, groups, inputLayout, filterLayout, outputLayout));
    if (wantWeight)
      results.push_back(ConvBwdWeightOp::create(
          b, loc, filterType, gradOutput, args[1], strides, dilations, padLow,
          padHigh, groups, inputLayout, filterLayout, outputLayout));
    // MIOpenDriver computes the bias gradient too when -b is set.
    if (p.bias)
      results.push_back(
          ConvBwdBiasOp::create(b, loc, biasType, gradOutput, outputLayout));
    return results;
  });
  return success();
}

LogicalResult buildLayerNorm(OpBuilder &b, Location loc, ModuleOp module,
                             const MIOpenLayerNormProblem &p) {
  Type elementType = getElementType(b.getContext(), p.dataType);
  ArrayRef<int64_t> shape = p.shape;
  auto xType = RankedTensorType::get(shape, elementType);
  // Statistics are f32 whatever the data type, as Boo computes them.
  auto statType =
      RankedTensorType::get(shape.take_front(p.normalizedDim), b.getF32Type());
  auto paramType =
      RankedTensorType::get(shape.drop_front(p.normalizedDim), elementType);
  int64_t normalizedRank = p.getNormalizedRank();
  std::string name = getLayerNormFuncName(p);

  if (p.direction == 1) {
    SmallVector<Type> args = {xType};
    if (p.weightAndBias)
      args.append({paramType, paramType});
    createFunc(b, loc, module, name, args, [&](OpBuilder &b, ValueRange args) {
      Value weight = p.weightAndBias ? args[1] : Value();
      Value bias = p.weightAndBias ? args[2] : Value();
      auto op = LayerNormOp::create(
          b, loc, xType, statType, statType, args[0], weight, bias,
          b.getI64IntegerAttr(normalizedRank), b.getF32FloatAttr(p.epsilon));
      return SmallVector<Value>(op->getResults());
    });
    return success();
  }

  // Backward: IREE BOO's argument lists (op_exports/layer_norm.py,
  // get_sample_args), with Boo's statistics (f32, leading dims only).
  //   -F 2:  (dy, x, [weight,] mean, rstd)        -> dx
  //   -F 4:  (dy, x, mean, rstd)                  -> dweight
  //   -F 8:  (dy)                                 -> dbias
  //   -F 14: (dy, x, [weight, bias,] mean, rstd)  -> dx[, dweight, dbias]
  // `bias` in -F 14 is unused, as in ATen's native_layer_norm_backward.
  bool hasWeightArg =
      p.weightAndBias && (p.direction == 2 || p.direction == 14);
  bool hasBiasArg = p.weightAndBias && p.direction == 14;
  bool hasStats = p.direction != 8;
  SmallVector<Type> args = {xType};
  if (hasStats)
    args.push_back(xType);
  if (hasWeightArg)
    args.push_back(paramType);
  if (hasBiasArg)
    args.push_back(paramType);
  if (hasStats)
    args.append({statType, statType});

  createFunc(b, loc, module, name, args, [&](OpBuilder &b, ValueRange args) {
    Value dy = args[0];
    Value x, weight, mean, rstd;
    if (hasStats) {
      x = args[1];
      weight = hasWeightArg ? args[2] : Value();
      mean = args[args.size() - 2];
      rstd = args[args.size() - 1];
    } else {
      // dbias = sum of dy over the rows: x and the statistics only feed dx
      // and dweight, which are not returned and so are erased once lowered.
      // Their contents do not matter.
      x = tensor::EmptyOp::create(b, loc, shape, elementType);
      mean =
          tensor::EmptyOp::create(b, loc, statType.getShape(), b.getF32Type());
      rstd =
          tensor::EmptyOp::create(b, loc, statType.getShape(), b.getF32Type());
    }
    auto op = LayerNormBwdOp::create(b, loc, xType, paramType, paramType, dy, x,
                                     mean, rstd, weight,
                                     b.getI64IntegerAttr(normalizedRank));
    SmallVector<Value> results;
    if (p.direction & 2)
      results.push_back(op.getDx());
    // With -m 0 there is no weight or bias, so -F 14 has no gradient for
    // them (IREE BOO returns None); -F 4 and -F 8 ask for one explicitly.
    if ((p.direction == 4) || (p.direction == 14 && p.weightAndBias))
      results.push_back(op.getDweight());
    if ((p.direction == 8) || (p.direction == 14 && p.weightAndBias))
      results.push_back(op.getDbias());
    return results;
  });
  return success();
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
    std::string convError;
    if (failed(buildConv(b, loc, *module, *conv, convError))) {
      error = "invalid convolution: " + convError;
      return failure();
    }
  } else if (failed(buildLayerNorm(
                 b, loc, *module, std::get<MIOpenLayerNormProblem>(problem)))) {
    error = "could not build the layer norm";
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
