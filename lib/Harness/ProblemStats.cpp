//===- ProblemStats.cpp - Work and names of MIOpen problems
//----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Harness/ProblemStats.h"

using namespace mlir;
using namespace mlir::boo;

static double product(ArrayRef<int64_t> values) {
  double result = 1.0;
  for (int64_t v : values)
    result *= static_cast<double>(v);
  return result;
}

double harness::getProblemFlops(const MIOpenProblem &problem) {
  if (const auto *conv = std::get_if<MIOpenConvProblem>(&problem)) {
    const ConvGeometry &g = conv->geometry;
    double outputs =
        static_cast<double>(g.batch) * g.outChannels * product(g.outSpatial);
    double macs = outputs * g.inChannelsPerGroup() * product(g.filterSpatial);
    double flops = 0.0;
    for (int64_t bit : {1, 2, 4})
      if (conv->direction & bit)
        flops += 2.0 * macs;
    if (conv->bias)
      flops += outputs;
    return flops;
  }
  if (const auto *gemm = std::get_if<MIOpenGemmProblem>(&problem)) {
    double outputs = static_cast<double>(gemm->batch) * gemm->m * gemm->n;
    double flops = 2.0 * outputs * gemm->k;
    if (gemm->alpha != 1.0)
      flops += outputs;
    if (gemm->beta != 0.0)
      flops += 2.0 * outputs;
    return flops;
  }
  if (const auto *bnorm = std::get_if<MIOpenBatchNormProblem>(&problem)) {
    using Direction = MIOpenBatchNormProblem::Direction;
    double elements = product(bnorm->shape);
    double features = product(bnorm->getStatShape());
    // The batch statistics, where computed: mean 1, centred sum of squares
    // 3 (a backward with --save is given them).
    bool computesStats =
        bnorm->usesBatchStats() &&
        !(bnorm->direction == Direction::Backward && bnorm->save);
    double flops = computesStats ? 4.0 * elements : 0.0;
    if (bnorm->direction == Direction::Backward)
      return flops + 13.0 * elements;
    // Normalize 1, weight and bias 2; the running statistics' update.
    flops += 3.0 * elements;
    if (bnorm->direction == Direction::Training && bnorm->run)
      flops += 7.0 * features;
    return flops;
  }
  // An arg-reduction: one comparison per element of self.
  if (const auto *arg = std::get_if<MIOpenArgReduceProblem>(&problem))
    return product(arg->shape);
  const auto &norm = std::get<MIOpenLayerNormProblem>(problem);
  double elements = product(norm.shape);
  double flops = 0.0;
  if (norm.direction & 1)
    flops += elements * (norm.weightAndBias ? 7.0 : 5.0);
  if (norm.direction & 2)
    flops += elements * 10.0;
  if (norm.direction & 4)
    flops += elements * 2.0;
  if (norm.direction & 8)
    flops += elements * 1.0;
  return flops;
}

std::string harness::getProblemKind(const MIOpenProblem &problem) {
  if (const auto *conv = std::get_if<MIOpenConvProblem>(&problem)) {
    std::string kind =
        "conv" + std::to_string(conv->geometry.spatialRank) + "d";
    if (conv->direction & 1)
      return kind + (conv->bias ? "-fwd+bias" : "-fwd");
    kind += "-bwd";
    if (conv->direction & 2)
      kind += "-data";
    if (conv->direction & 4)
      kind += (conv->direction & 2) ? "+weight" : "-weight";
    return kind;
  }
  if (const auto *gemm = std::get_if<MIOpenGemmProblem>(&problem)) {
    static const char *kinds[] = {"gemm", "gemm-bwd-a", "gemm-bwd-b"};
    return kinds[gemm->direction - 1];
  }
  if (const auto *bnorm = std::get_if<MIOpenBatchNormProblem>(&problem)) {
    static const char *kinds[] = {"bnorm-train", "bnorm-infer", "bnorm-bwd"};
    return kinds[static_cast<int>(bnorm->direction)];
  }
  if (const auto *arg = std::get_if<MIOpenArgReduceProblem>(&problem))
    return arg->isMax ? "argmax" : "argmin";
  const auto &norm = std::get<MIOpenLayerNormProblem>(problem);
  if (norm.direction & 1)
    return "layernorm-fwd";
  return "layernorm-bwd";
}
