//===- PipelineStages.cpp - Stages the pipelines share --------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/Common/PipelineStages.h"
#include "Boo/Codegen/Common/Passes.h"
#include "Boo/Conversion/BooToLinalg/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::boo::addBooToLinalgStage(OpPassManager &pm) {
  pm.addPass(createBooConvertToLinalg());
  pm.addPass(createLinalgGeneralizeNamedOpsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createBooFuseElementwise());
  pm.addPass(createCanonicalizerPass());
}

void mlir::boo::addBufferizationStage(OpPassManager &pm, bool deallocate,
                                      bool forwardResultReshapes) {
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  // CSE before canonicalize: identical subviews must merge so that tile
  // self-copies (memref.copy %x, %x) fold away.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsPassOptions outParamOptions;
  outParamOptions.hoistStaticAllocs = true;
  outParamOptions.modifyPublicFunctions = true;
  pm.addPass(
      bufferization::createBufferResultsToOutParamsPass(outParamOptions));
  pm.addPass(createCanonicalizerPass());
  if (forwardResultReshapes)
    pm.addNestedPass<func::FuncOp>(createBooForwardResultReshapes());
  if (deallocate)
    bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
}

void mlir::boo::addLLVMLoweringStage(
    OpPassManager &pm, vector::VectorContractLowering contractLowering,
    bool genericAllocations) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 arithmetic is computed in f32 (each result rounded to bf16 by
  // the expansion below): LLVM would otherwise promote it itself and, on
  // hosts without AVX512-BF16 (an AVX2 Zen 3), round through a call to
  // compiler-rt's __truncsfbf2, which no process provides.
  arith::ArithEmulateUnsupportedFloatsOptions emulateOptions;
  emulateOptions.sourceTypeStrs = {"bf16"};
  emulateOptions.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulateOptions));
  arith::ArithExpandOpsPassOptions expandOptions;
  expandOptions.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expandOptions));
  // Math without an LLVM intrinsic (erf, tanh) becomes libm calls; this
  // must precede the vector conversion, which cannot scalarize them.
  pm.addPass(createConvertMathToLibmPass());
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.vectorContractLowering = contractLowering;
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useGenericFunctions = genericAllocations;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  // bf16 results are stored as the i16 bits they were rounded to (after
  // canonicalization, which forwards the unrolled vectors to the stores).
  pm.addPass(createBooStoreIntegerBits());
  // The contract: nothing but LLVM dialect is left.
  pm.addPass(createBooVerifyLLVMContract());
}
