//===- ArgReduceOps.cpp - Verifiers of boo.argmax and boo.argmin ----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/BooOps.h"

using namespace mlir;
using namespace mlir::boo;

template <typename OpTy> static LogicalResult verifyArgReduce(OpTy op) {
  RankedTensorType input = op.getInput().getType();
  if (!input.hasStaticShape() || input.getRank() == 0)
    return op.emitOpError("requires a static input of rank 1 or more, got ")
           << input;
  SmallVector<int64_t> expected;
  std::optional<int64_t> dim = op.getDim();
  if (dim && (*dim < 0 || *dim >= input.getRank()))
    return op.emitOpError("dim must be in [0, ")
           << input.getRank() << ") (the rank of the input), got " << *dim;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    bool reduced = !dim || d == *dim;
    if (reduced && input.getDimSize(d) == 0)
      return op.emitOpError("reduces dim ")
             << d << " of size 0: no element has an index";
    if (!reduced)
      expected.push_back(input.getDimSize(d));
    else if (op.getKeepdim())
      expected.push_back(1);
  }
  auto want = RankedTensorType::get(
      expected, IntegerType::get(op.getContext(), 64));
  if (op.getOutput().getType() != want)
    return op.emitOpError("result must be ")
           << want << " (the input's shape without the reduced dims"
           << (op.getKeepdim() ? ", kept as 1" : "") << "), got "
           << op.getOutput().getType();
  return success();
}

LogicalResult ArgMaxOp::verify() { return verifyArgReduce(*this); }
LogicalResult ArgMinOp::verify() { return verifyArgReduce(*this); }

/// Kept elements at most which a large reduction is split: the outputs
/// are its only parallel work (a GPU thread each), and an argmax over all
/// elements ran on one work-item.
static constexpr int64_t kArgReduceMaxSplitRows = 64;
/// The least reduced extent that is split, and the least row (R / groups)
/// it is split into; at most kArgReduceMaxGroups groups, which the second
/// pass reduces one kept element at a time.
static constexpr int64_t kArgReduceMinSplitExtent = 1 << 14;
static constexpr int64_t kArgReduceMinRow = 1024;
static constexpr int64_t kArgReduceMaxGroups = 4096;

/// The most groups of at least kArgReduceMinRow elements (at most
/// kArgReduceMaxGroups) that `extent` divides into; 1 where none.
static int64_t getArgReduceGroups(int64_t extent) {
  int64_t most = std::min(kArgReduceMaxGroups, extent / kArgReduceMinRow);
  for (int64_t g = most; g >= 8; --g)
    if (extent % g == 0)
      return g;
  return 1;
}

FailureOr<ArgReduceForm> mlir::boo::getArgReduceForm(Operation *op) {
  std::optional<int64_t> dim;
  RankedTensorType x;
  if (auto max = dyn_cast<ArgMaxOp>(op)) {
    x = max.getInput().getType();
    dim = max.getDim();
  } else if (auto min = dyn_cast<ArgMinOp>(op)) {
    x = min.getInput().getType();
    dim = min.getDim();
  } else {
    return failure();
  }
  if (!x.hasStaticShape() || x.getRank() == 0 ||
      (dim && (*dim < 0 || *dim >= x.getRank())))
    return failure();
  ArgReduceForm form;
  int64_t kept = 1, extent = 1;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    bool reduced = !dim || d == *dim;
    (reduced ? extent : kept) *= x.getDimSize(d);
    form.shape.push_back(x.getDimSize(d));
    form.reduced.push_back(reduced);
  }
  int64_t groups = getArgReduceGroups(extent);
  if (kept > kArgReduceMaxSplitRows || extent < kArgReduceMinSplitExtent ||
      groups == 1)
    return form;
  // The reduced extent as (extent / groups, groups), a row of each group
  // contiguous across the groups: the whole input where every dim is
  // reduced, else dim `dim`.
  int64_t at = dim ? *dim : 0;
  if (!dim) {
    form.shape.clear();
    form.reduced.clear();
  } else {
    form.shape.erase(form.shape.begin() + at);
    form.reduced.erase(form.reduced.begin() + at);
  }
  form.shape.insert(form.shape.begin() + at, {extent / groups, groups});
  form.reduced.insert(form.reduced.begin() + at, {true, false});
  form.groups = groups;
  form.groupDim = at + 1;
  return form;
}
