//===- MMAKernel.h - One MMA kernel of boo-gpu-mma-kernels ------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-gpu-mma-kernels (GPUMMAKernels.cpp) in two steps: analyzeMMAKernel
// finds the ops of one kernel around its accumulation generic and checks
// them (MMAKernelAnalysis.cpp); buildMMAKernel replaces them by the
// workgroup/thread scf.forall nest (MMAKernelEmitter.cpp), which computes
// the factors and the epilogues by replaying the generics' bodies
// (MMAKernelReplay.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_GPU_MMAKERNEL_H
#define BOO_LIB_CODEGEN_GPU_MMAKERNEL_H

#include "Boo/Dialect/Boo/IR/BooAttrs.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::boo {

struct ChipInfo;
struct MMAIntrinsicLayout;

/// The parts of one MMA kernel.
struct MMAKernel {
  /// How one factor of the product in the accumulation's body is computed:
  /// the body ops it needs (in body order) and the operands it reads.
  struct Factor {
    Value value; // the f16/bf16 value, before any extension to f32
    llvm::SetVector<Operation *> ops;
    llvm::SmallDenseSet<unsigned> loops; // loops the value depends on
  };

  linalg::GenericOp acc;
  LoweringConfigAttr config;
  const MMAIntrinsicLayout *layout;
  unsigned m, n, k;
  Factor a, b;
  Operation *fill = nullptr; // writes the accumulator's initial value
  Value initValue;           // f32 constant
  /// Generics reading the accumulator (or a buffer an earlier one wrote
  /// and only these read), in program order.
  SmallVector<linalg::GenericOp> epilogues;
  /// Buffers only the kernel uses (never stored; erased with the kernel).
  SmallVector<Value> internalBuffers;
};

/// The MMA kernel around `acc`, an accumulation generic whose lowering
/// config names an MMA intrinsic of `chip`: its factors, the fill of its
/// accumulator and its epilogues. Emits an error at the offending op when
/// the kernel does not have the shape the emitter handles.
FailureOr<MMAKernel> analyzeMMAKernel(linalg::GenericOp acc,
                                      const ChipInfo &chip);

/// An error at the kernel's accumulation, prefixed with the pass name.
InFlightDiagnostic emitMMAKernelError(const MMAKernel &kernel,
                                      const Twine &msg);

/// Replaces the ops of `kernel` (fill, accumulation, epilogues and their
/// internal buffers) by one workgroup/thread scf.forall nest computing it
/// on the MMA intrinsic. Emits an error and fails when the config's tiles
/// do not fit the intrinsic.
LogicalResult buildMMAKernel(MMAKernel &kernel);

/// Replays `f`'s body ops of `op` at loop coordinates `coords`: block
/// arguments become loads through their indexing maps, linalg.index the
/// coordinate. Returns the factor's value.
Value materializeFactor(OpBuilder &b, Location loc, linalg::GenericOp op,
                        const MMAKernel::Factor &f, ValueRange coords);

/// Whether `f` can be read as a vector along `loop` (see
/// VectorReplay.cpp): along it, the factor is a read of consecutive
/// elements of a buffer row that is contiguous, under guards that do not
/// depend on the loop.
bool canMaterializeFactorVector(linalg::GenericOp op,
                                const MMAKernel::Factor &f, unsigned loop);

/// The values of `f` at `width` consecutive iterations of `loop` from
/// `coords` (coords[loop] is the first), as one vector: the loads along the
/// loop are vector loads. Only where canMaterializeFactorVector holds.
Value materializeFactorVector(OpBuilder &b, Location loc, linalg::GenericOp op,
                              const MMAKernel::Factor &f, ValueRange coords,
                              unsigned loop, int64_t width);

/// Split-K's second kernel, built at `b` (after the MMA kernel's workgroup
/// loop): a workgroup/thread scf.forall nest over the accumulator's
/// elements that adds the f32 partial sums of `partials` ([splits][the
/// accumulator's shape]) in split order, starting from the fill's value,
/// and runs the epilogues on the sum.
LogicalResult emitSplitKCombine(OpBuilder &b, Location loc, MMAKernel &kernel,
                                Value partials);

/// A store of one of the kernel's outputs: `value` at `indices` of
/// `buffer`; `map` gives the indices from the accumulation's loops, or is
/// null where they are not an affine function of them.
struct ResultStore {
  Value buffer;
  SmallVector<Value> indices;
  Value value;
  AffineMap map;
};

/// The epilogue reads of a run of consecutive rows along the
/// accumulation's loop `loop`: an epilogue input that steps by one element
/// along it (a bias along the output channels) is read once, at the run's
/// first row, as a vector of `length`; each row takes its element.
struct RunReads {
  unsigned loop;
  int64_t length;
  int64_t position; // this row's position in the run
  llvm::DenseMap<OpOperand *, Value> vectors;
};

/// Stores the kernel's outputs for the accumulated `value` at the
/// accumulation's loop coordinates `coords`, through the epilogues' bodies
/// (values the kernel wrote stay in registers). With `deferred`, the
/// stores are appended to it instead, for the caller to emit. With `run`,
/// the element is one row of a run (rows in order from position 0).
LogicalResult emitMMAEpilogue(OpBuilder &b, Location loc, MMAKernel &kernel,
                              Value value, ArrayRef<Value> coords,
                              SmallVectorImpl<ResultStore> *deferred = nullptr,
                              RunReads *run = nullptr);

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_GPU_MMAKERNEL_H
