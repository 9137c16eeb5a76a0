//===- ProblemSignature.h - The function an MIOpen problem is ---*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The one description of the function an MIOpenDriver command compiles to:
// IREE BOO's name for it and its arguments and results, each with its name,
// shape and element type, in the orders of docs/MIOpenImport.md. The
// importer builds the function from it (and names each argument and result
// with `boo.name`, which compiled modules carry in their manifest), and
// boo-driver's --verify makes its inputs and checks its results against it.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_IMPORT_PROBLEMSIGNATURE_H
#define BOO_IMPORT_PROBLEMSIGNATURE_H

#include "Boo/Import/MIOpenImport.h"

#include <string>
#include <vector>

namespace mlir::boo {

/// One argument or result of a problem's function.
struct TensorSpec {
  /// "input", "filter", "grad_output", ..., "x", "mean", "dx", ...
  std::string name;
  std::vector<int64_t> shape;
  ElementType type = ElementType::F32;
};

struct ProblemSignature {
  /// IREE BOO's name, e.g. "conv_2d_bfloat16_forward_2x9x9x8_nhwc_
  /// 16x3x3x4_fhwc_nhwf_2x2s_1x1p_1x1d_2g" (without the line break).
  std::string functionName;
  /// Layer-norm `mean` and `rstd` are f32 whatever the problem's type.
  std::vector<TensorSpec> arguments, results;

  /// The position of the argument (result) named `name`, or -1.
  int64_t findArgument(StringRef name) const;
  int64_t findResult(StringRef name) const;
};

/// The function `problem` compiles to.
ProblemSignature getProblemSignature(const MIOpenProblem &problem);

} // namespace mlir::boo

#endif // BOO_IMPORT_PROBLEMSIGNATURE_H
