//===- ProblemStats.h - Work and names of MIOpen problems --------*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// What boo-driver's `stats:` line reports for a problem: the floating-point
// operations it does (counted from the problem, not measured) and a short
// name.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_HARNESS_PROBLEMSTATS_H
#define BOO_HARNESS_PROBLEMSTATS_H

#include "Boo/Import/MIOpenImport.h"

#include <string>

namespace mlir::boo::harness {

/// Convolutions: 2 * N * K * prod(output spatial) * (C / G) * prod(filter)
/// per direction in -F (forward, backward data, backward weight), plus one
/// add per output element for a bias (forward) or per gradient element
/// summed for a bias gradient. Layer norms, per element of the input:
/// forward 5 (mean 1, centred sum of squares 3, normalize 1; + 2 with
/// weight and bias), input gradient 10, weight gradient 2, bias gradient 1.
/// Batch norms, per element of x: the batch statistics 4 where computed
/// (training, inference without -r, backward without -s), the forward's
/// normalization with weight and bias 3, the backward's three gradients 13;
/// plus 7 per feature for training's running-statistics update.
/// Arg-reductions: one comparison per element of self.
double getProblemFlops(const MIOpenProblem &problem);

/// "conv2d-fwd", "conv3d-bwd-data+weight", "layernorm-fwd",
/// "bnorm-train", "bnorm-infer", "bnorm-bwd", "argmax", "argmin", ...
std::string getProblemKind(const MIOpenProblem &problem);

} // namespace mlir::boo::harness

#endif // BOO_HARNESS_PROBLEMSTATS_H
