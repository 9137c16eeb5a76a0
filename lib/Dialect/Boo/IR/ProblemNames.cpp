//===- ProblemNames.cpp - IREE BOO's names of Boo problems ----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/ProblemNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::boo;

std::string mlir::boo::getLayoutSignatureName(StringRef layout, LayoutKind kind,
                                              bool isOutput) {
  std::string name;
  for (char c : layout) {
    char l = llvm::toLower(c);
    if (kind == LayoutKind::Filter) {
      if (l == 'k' || l == 'n')
        l = 'f';
      else if (l == 'z')
        l = 'd';
      else if (l == 'y')
        l = 'h';
      else if (l == 'x')
        l = 'w';
    } else if (isOutput && l == 'c') {
      l = 'f';
    }
    name.push_back(l);
  }
  return name;
}

std::string mlir::boo::joinShape(ArrayRef<int64_t> values) {
  return llvm::join(
      llvm::map_range(values, [](int64_t v) { return std::to_string(v); }),
      "x");
}

std::string mlir::boo::getConvProblemName(
    ElementType type, const ConvGeometry &g, StringRef inputLayout,
    StringRef filterLayout, StringRef outputLayout, StringRef mode, bool bias) {
  SmallVector<std::string> items = {"conv", std::to_string(g.spatialRank) + "d",
                                    getTorchTypeName(type), mode.str()};
  if (bias)
    items.push_back("b");
  items.push_back(joinShape(g.inputShape()));
  items.push_back(
      getLayoutSignatureName(inputLayout, LayoutKind::Activation, false));
  items.push_back(joinShape(g.filterShape()));
  items.push_back(getLayoutSignatureName(filterLayout, LayoutKind::Filter,
                                         /*isOutput=*/false));
  items.push_back(
      getLayoutSignatureName(outputLayout, LayoutKind::Activation, true));
  items.push_back(joinShape(g.strides) + "s");
  items.push_back(joinShape(g.padLow) + "p");
  // MIOpen's padding is symmetric; say so only when it is not.
  if (g.padHigh != g.padLow)
    items.push_back(joinShape(g.padHigh) + "ph");
  items.push_back(joinShape(g.dilations) + "d");
  items.push_back(std::to_string(g.groups) + "g");
  return llvm::join(items, "_");
}

std::string
mlir::boo::getConvBiasBackwardName(ElementType type,
                                   ArrayRef<int64_t> gradOutputShape,
                                   StringRef outputLayout) {
  int64_t spatialRank = static_cast<int64_t>(gradOutputShape.size()) - 2;
  return llvm::join(
      SmallVector<std::string>{
          "conv", std::to_string(spatialRank) + "d", getTorchTypeName(type),
          "bias_backward", joinShape(gradOutputShape),
          getLayoutSignatureName(outputLayout, LayoutKind::Activation,
                                 /*isOutput=*/true)},
      "_");
}

std::string mlir::boo::getLayerNormProblemName(ElementType type,
                                               ArrayRef<int64_t> shape,
                                               int64_t normalizedRank,
                                               StringRef mode, bool weight,
                                               bool bias) {
  SmallVector<std::string> items = {
      "layer_norm", std::to_string(normalizedRank) + "d",
      getTorchTypeName(type), mode.str(), joinShape(shape)};
  if (weight)
    items.push_back("w");
  if (bias)
    items.push_back("b");
  return llvm::join(items, "_");
}

std::string mlir::boo::getGemmProblemName(ElementType type, StringRef mode,
                                          int64_t batch, int64_t m, int64_t k,
                                          int64_t n, bool transA, bool transB,
                                          bool alpha, bool beta) {
  SmallVector<int64_t> sizes = {m, k, n};
  if (batch > 1)
    sizes.insert(sizes.begin(), batch);
  SmallVector<std::string> items = {"gemm", getTorchTypeName(type), mode.str(),
                                    joinShape(sizes)};
  for (auto [set, word] : {std::pair<bool, const char *>{transA, "transA"},
                           {transB, "transB"},
                           {alpha, "alpha"},
                           {beta, "beta"}})
    if (set)
      items.push_back(word);
  return llvm::join(items, "_");
}

std::string mlir::boo::getBatchNormProblemName(
    ElementType type, ElementType paramType, ElementType statType,
    StringRef mode, ArrayRef<int64_t> shape, StringRef layout, bool spatial,
    bool save, bool run, float epsilon, float momentum) {
  SmallVector<std::string> items = {"batch_norm", getTorchTypeName(type),
                                    mode.str(), joinShape(shape),
                                    layout.lower(),
                                    spatial ? "spatial" : "activation"};
  if (paramType != type || statType != type) {
    items.push_back(getTorchTypeName(paramType));
    items.push_back(getTorchTypeName(statType));
  }
  if (save)
    items.push_back("save");
  if (run)
    items.push_back("run");
  // "%g" with '.' as 'p' and '-' as 'm': a symbol's characters.
  auto number = [](float v) {
    std::string text = llvm::formatv("{0}", llvm::format("%g", v)).str();
    llvm::replace(text, '.', 'p');
    llvm::replace(text, '-', 'm');
    return text;
  };
  if (epsilon != 1e-5f)
    items.push_back("eps" + number(epsilon));
  if (momentum != 0.1f)
    items.push_back("momentum" + number(momentum));
  return llvm::join(items, "_");
}

std::string mlir::boo::getArgReduceProblemName(ElementType type, bool isMax,
                                               ArrayRef<int64_t> shape,
                                               std::optional<int64_t> dim,
                                               bool keepdim) {
  SmallVector<std::string> items = {
      "aten", isMax ? "argmax" : "argmin", getTorchTypeName(type),
      joinShape(shape), dim ? "dim" + std::to_string(*dim) : "all"};
  if (keepdim)
    items.push_back("keepdim");
  return llvm::join(items, "_");
}
