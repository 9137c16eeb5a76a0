//===- MIOpenBatchNorm.cpp - Parse MIOpenDriver bnorm command lines -------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The `bnorm*` flags mirror MIOpenDriver's (driver/bn_driver.hpp,
// AddCmdLineArgs), long and short: `--mode 0` is per-activation and
// `--mode 1` spatial, as MIOpen defines them. IREE BOO's own parser
// (op_exports/batch_norm.py) accepts only `--mode 0` and computes PyTorch's
// per-channel (spatial) batch norm for it; Boo follows MIOpen, whose flags
// they are (docs/MIOpenImport.md says more). The statistics follow
// PyTorch and IREE BOO (epsilon 1e-5, momentum 0.1): MIOpenDriver's test
// harness uses 1e-3 and a cumulative average over its iterations, which
// are not flags. Boo adds `--eps` and `--momentum` (long only) for other
// values, as PyTorch modules may have.
//
//===----------------------------------------------------------------------===//

#include "MIOpenFlags.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {

// clang-format off
/// MIOpenDriver `bnorm*` flags (bn_driver.hpp).
const FlagSpec batchNormFlags[] = {
  // long name     short default type   ignored meaning
  {"forw",         'F', "0",     Int,   false, "forward: 0 off, 1 training, 2 inference"},
  {"back",         'b', "0",     Int,   false, "backward: 0 off, 1 on"},
  {"batchsize",    'n', "32",    Int,   false, "mini-batch size N"},
  {"in_channels",  'c', "3",     Int,   false, "channels C"},
  {"in_h",         'H', "32",    Int,   false, "height H"},
  {"in_w",         'W', "32",    Int,   false, "width W"},
  {"in_d",         'D', "0",     Int,   false, "depth D (0: 2-D)"},
  {"layout",       'L', "",      Str,   false, "NCHW, NHWC, NCDHW or NDHWC (default NCHW or NCDHW)"},
  {"alpha",        'A', "1.0",   Float, false, "scale of the result (only 1)"},
  {"beta",         'B', "0.",    Float, false, "scale of the prior result (only 0)"},
  {"mode",         'm', "0",     Int,   false, "0 per-activation, 1 spatial"},
  {"save",         's', "0",     Int,   false, "save (training) or take (backward) mean and rstd"},
  {"run",          'r', "0",     Int,   false, "keep (training) or use (inference) running statistics"},
  {"eps",          0,   "1e-5",  Float, false, "epsilon (Boo's; MIOpenDriver's harness uses 1e-3)"},
  {"momentum",     0,   "0.1",   Float, false, "running statistics' momentum (Boo's)"},
  {"iter",         'i', "1",     Int,   true,  "benchmark iterations"},
  {"verify",       'V', "1",     Int,   true,  "verify against a reference"},
  {"time",         't', "0",     Int,   true,  "time each layer"},
  {"printconv",    'P', "1",     Int,   true,  "print the dimensions"},
  {"wall",         'w', "0",     Int,   true,  "wall-clock timing"},
};
// clang-format on

/// -F and -b: MIOpenDriver runs the forward when both are set (with a
/// warning); Boo refuses the ambiguity. Neither: training, as
/// MIOpenDriver's default.
LogicalResult getDirection(const FlagValues &flags,
                           MIOpenBatchNormProblem &problem) {
  using Direction = MIOpenBatchNormProblem::Direction;
  FailureOr<int64_t> forw = flags.getInt("forw");
  FailureOr<bool> back = flags.getBool("back");
  if (failed(forw) || failed(back))
    return failure();
  if (*forw < 0 || *forw > 2)
    return flags.fail("forw", llvm::formatv("expected 0 (off), 1 (training) "
                                            "or 2 (inference), got {0}",
                                            *forw));
  if (*forw != 0 && *back)
    return flags.fail("back", "-F and -b select different problems; give "
                              "one (-F 0 -b 1 for the backward)");
  problem.direction = *back        ? Direction::Backward
                      : *forw == 2 ? Direction::Inference
                                   : Direction::Training;
  return success();
}

/// The sizes and the layout: x's shape in the layout's order.
LogicalResult getShape(const FlagValues &flags,
                       MIOpenBatchNormProblem &problem) {
  FailureOr<int64_t> depth = flags.getInt("in_d");
  if (failed(depth))
    return failure();
  if (*depth < 0)
    return flags.fail("in_d", llvm::formatv("expected 0 (2-D) or a positive "
                                            "depth, got {0}",
                                            *depth));
  bool is3D = *depth > 0;
  std::string layout = flags.getString("layout").upper();
  if (layout.empty())
    layout = is3D ? "NCDHW" : "NCHW";
  static const StringLiteral layouts2D[] = {"NCHW", "NHWC"};
  static const StringLiteral layouts3D[] = {"NCDHW", "NDHWC"};
  ArrayRef<StringLiteral> accepted = is3D ? layouts3D : layouts2D;
  if (!llvm::is_contained(accepted, StringRef(layout)))
    return flags.fail(
        "layout", llvm::formatv("expected {0} or {1} for a {2}-D input, got "
                                "'{3}'",
                                accepted[0], accepted[1], is3D ? 3 : 2,
                                flags.getString("layout")));
  problem.layout = layout;
  llvm::StringMap<int64_t> sizes;
  sizes["D"] = *depth;
  for (auto [flag, letter] : {std::pair<StringRef, StringRef>{"batchsize", "N"},
                              {"in_channels", "C"},
                              {"in_h", "H"},
                              {"in_w", "W"}}) {
    FailureOr<int64_t> v = flags.getIntAtLeast(flag, 1);
    if (failed(v))
      return failure();
    sizes[letter] = *v;
  }
  int64_t elements = 1;
  for (char letter : layout) {
    int64_t extent = sizes[StringRef(&letter, 1)];
    if (llvm::MulOverflow(elements, extent, elements))
      return flags.fail("batchsize", "the input's element count overflows "
                                     "a 64-bit integer");
    problem.shape.push_back(extent);
  }
  return success();
}

} // namespace

SmallVector<int64_t> MIOpenBatchNormProblem::getFeatureDims() const {
  SmallVector<int64_t> dims;
  for (auto [d, letter] : llvm::enumerate(layout))
    if (letter != 'N' && (!spatial || letter == 'C'))
      dims.push_back(static_cast<int64_t>(d));
  return dims;
}

SmallVector<int64_t> MIOpenBatchNormProblem::getStatShape() const {
  SmallVector<int64_t> stat;
  for (int64_t d : getFeatureDims())
    stat.push_back(shape[d]);
  return stat;
}

int64_t MIOpenBatchNormProblem::getReductionSize() const {
  int64_t size = 1;
  for (int64_t extent : shape)
    size *= extent;
  for (int64_t extent : getStatShape())
    size /= extent;
  return size;
}

FailureOr<MIOpenBatchNormProblem>
mlir::boo::detail::parseBatchNorm(StringRef base, ArrayRef<StringRef> args,
                                  std::string &error) {
  FlagValues flags(batchNormFlags, "batch norm", error);
  if (failed(flags.parse(args)))
    return failure();
  MIOpenBatchNormProblem problem;
  // MIOpenDriver's Tgpu (x, weight, bias) and Tmix (the statistics);
  // IREE BOO's bnormbfp16 has f32 parameters too.
  struct Types {
    StringLiteral base;
    ElementType data, param, stat;
  };
  static const Types types[] = {
      {"bnorm", ElementType::F32, ElementType::F32, ElementType::F32},
      {"bnormfp16", ElementType::F16, ElementType::F16, ElementType::F16},
      {"bnormfp16fp32", ElementType::F16, ElementType::F16, ElementType::F32},
      {"bnormbfp16fp32", ElementType::BF16, ElementType::BF16,
       ElementType::F32},
      {"bnormbfp16", ElementType::BF16, ElementType::F32, ElementType::F32},
  };
  for (const Types &t : types)
    if (t.base == base) {
      problem.dataType = t.data;
      problem.paramType = t.param;
      problem.statType = t.stat;
    }
  if (failed(getDirection(flags, problem)) || failed(getShape(flags, problem)))
    return failure();
  FailureOr<bool> save = flags.getBool("save"), run = flags.getBool("run");
  FailureOr<int64_t> mode = flags.getInt("mode");
  FailureOr<double> alpha = flags.getFloat("alpha");
  FailureOr<double> beta = flags.getFloat("beta");
  if (failed(save) || failed(run) || failed(mode) || failed(alpha) ||
      failed(beta))
    return failure();
  if (*mode != 0 && *mode != 1) {
    (void)flags.fail("mode", llvm::formatv("expected 0 (per-activation) or 1 "
                                           "(spatial), got {0}",
                                           *mode));
    return failure();
  }
  if (*alpha != 1.0 || *beta != 0.0) {
    (void)flags.fail(*alpha != 1.0 ? "alpha" : "beta",
                     "only alpha 1 and beta 0 (the result as computed) are "
                     "supported");
    return failure();
  }
  FailureOr<float> eps = flags.getEpsilon("eps");
  FailureOr<double> momentum = flags.getFloat("momentum");
  if (failed(eps) || failed(momentum))
    return failure();
  if (*momentum < 0 || *momentum > 1) {
    (void)flags.fail("momentum", llvm::formatv("must be in [0, 1], got '{0}'",
                                               flags.getString("momentum")));
    return failure();
  }
  problem.epsilon = *eps;
  problem.momentum = static_cast<float>(*momentum);
  problem.spatial = *mode == 1;
  // As MIOpenDriver: the backward has no running statistics and the
  // inference saves none, so those flags are ignored there.
  using Direction = MIOpenBatchNormProblem::Direction;
  problem.save = *save && problem.direction != Direction::Inference;
  problem.run = *run && problem.direction != Direction::Backward;
  return problem;
}
