//===- VectorReplay.h - Generic values as vectors along a loop --*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// See VectorReplay.cpp: ops of a linalg.generic's body (on memrefs) replayed
// at consecutive iterations of one loop, as vector ops.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_GPU_VECTORREPLAY_H
#define BOO_LIB_CODEGEN_GPU_VECTORREPLAY_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::boo {

/// Whether `value`, computed by `ops` (body ops of `op`, in body order),
/// can be replayed as a vector along `loop`: each load that depends on the
/// loop reads consecutive elements of a contiguous buffer row (or, with
/// `gather`, any elements, one load each), under guards that do not depend
/// on the loop or bound it to an interval.
bool canReplayAlong(linalg::GenericOp op, ArrayRef<Operation *> ops,
                    Value value, unsigned loop, bool gather);

/// The values of `value` at `width` consecutive iterations of `loop` from
/// `coords` (coords[loop] is the first), as one vector. Block arguments
/// become loads through their indexing maps, linalg.index the coordinate.
/// Only where canReplayAlong holds.
Value replayAlong(OpBuilder &b, Location loc, linalg::GenericOp op,
                  ArrayRef<Operation *> ops, Value value, ValueRange coords,
                  unsigned loop, int64_t width, bool gather);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_GPU_VECTORREPLAY_H
