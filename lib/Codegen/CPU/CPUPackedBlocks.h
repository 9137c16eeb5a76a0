//===- CPUPackedBlocks.h - Operand copies packed per block ------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// A contraction's operand copy (a filter reordered into blocks of output
// channels) that is larger than the caches is written to memory by its
// own pass and read back by the contraction's tiles. When the tiles that
// read one block of it form a group (the output rows of one block of
// output channels), the group becomes one iteration of the contraction's
// scf.forall, and the copy of that block is computed at the start of the
// iteration: the tiles then read it from the cache it was just written to.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_CPU_CPUPACKEDBLOCKS_H
#define BOO_LIB_CODEGEN_CPU_CPUPACKEDBLOCKS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::boo {

/// How a contraction is tiled when one of its inputs is packed per block.
struct PackPlan {
  /// The packed input (its index among the contraction's inputs).
  unsigned input = 0;
  /// Per loop: whether the loop indexes the packed input. The parallel
  /// ones are tiled by the scf.forall, the other parallel loops by scf.for
  /// loops inside it.
  SmallVector<bool> outer;
};

/// Whether `op`, to be tiled by `tiles` (one size per loop), should read an
/// input packed per block: the input is made by one of `copies` (a pure
/// copy of one input, used only here) of at least `minBytes`, its blocks
/// (the tiles of the parallel loops that index it) number at least eight,
/// and each block is read by at least two tiles (the tiles of the other
/// parallel loops). Of several such inputs, the one whose blocks times the
/// other inputs' bytes (what the iterations read whole) is least.
std::optional<PackPlan> planPackedBlocks(linalg::GenericOp op,
                                         ArrayRef<int64_t> tiles,
                                         int64_t minBytes,
                                         ArrayRef<linalg::GenericOp> copies);

/// For `tile`, a tile of a contraction planned by planPackedBlocks and
/// tiled by it: fuses the copy that makes input `input` into the
/// enclosing scf.forall, whose iterations each compute the block their
/// tiles read into a temporary of their own. The block is the slice of the
/// copy along the forall's induction variables: the dims where every slice
/// of the copy in the body starts at one of them (with one size), whole
/// along the others. It is sliced at the start of the body (the tiles'
/// slices become slices of it) and computed there by upstream's
/// tileAndFuseProducerOfSlice. That also holds where the tiles read the
/// copy through one slice each (a reversed filter's slices, folded into
/// the reduction loops). Returns the copy's tile, for the caller to tile
/// and vectorize; the copy itself is left dead. Fails when the copy has a
/// use outside the forall or no dim is a block.
FailureOr<linalg::GenericOp>
fusePackedBlock(RewriterBase &rewriter, linalg::GenericOp tile, unsigned input);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_CPU_CPUPACKEDBLOCKS_H
