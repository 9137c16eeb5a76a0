//===- PipelineStages.h - Stages the pipelines share ------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_COMMON_PIPELINESTAGES_H
#define BOO_CODEGEN_COMMON_PIPELINESTAGES_H

#include "mlir/Dialect/Vector/Transforms/VectorTransforms.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::boo {

/// The linalg stage the pipelines share: boo-convert-to-linalg, named ops
/// generalized, element-wise epilogue generics fused, canonicalized.
void addBooToLinalgStage(OpPassManager &pm);

/// The bufferization stage the pipelines share: one-shot bufferization of
/// whole functions with identity-layout boundaries, tile self-copies folded
/// (CSE before canonicalize), tensor results turned into trailing out-params
/// that the caller owns. `forwardResultReshapes` adds
/// boo-forward-result-reshapes (host code: results returned through a
/// reshape are computed in their out-params; GPU kernels capture their
/// buffers, not views of them). `deallocate` adds the buffer deallocation
/// pipeline (host code; kernels have no heap allocations to free).
void addBufferizationStage(OpPassManager &pm, bool deallocate,
                           bool forwardResultReshapes);

/// The LLVM lowering tail the CPU and emulator pipelines share, after
/// vector transfers became loops: scf to cf, strided metadata, affine,
/// arith expansion (bf16 included), math to libm where LLVM has no
/// intrinsic, then vector, memref, math, arith, index, ub, cf and func to
/// LLVM, unrealized casts reconciled, canonicalized, and
/// boo-verify-llvm-contract. `contractLowering` is how convert-vector-to-llvm
/// lowers what vector.contract ops are left. With `genericAllocations`,
/// memref.alloc/dealloc call `_mlir_memref_to_llvm_alloc`/`_free`
/// (finalize-memref-to-llvm's use-generic-functions) instead of malloc/free.
void addLLVMLoweringStage(OpPassManager &pm,
                          vector::VectorContractLowering contractLowering,
                          bool genericAllocations = false);

} // namespace mlir::boo

#endif // BOO_CODEGEN_COMMON_PIPELINESTAGES_H
