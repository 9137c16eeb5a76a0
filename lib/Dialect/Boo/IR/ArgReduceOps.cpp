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
