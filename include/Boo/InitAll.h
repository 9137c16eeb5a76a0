//===- InitAll.h - Register Boo and the dialects it uses --------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Header only, like upstream's InitAllDialects.h: a tool that includes it
// links the libraries it names (the BooCompiler interface library).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_INITALL_H
#define BOO_INITALL_H

#include "Boo/Codegen/CPU/Passes.h"
#include "Boo/Codegen/CPU/Pipelines.h"
#include "Boo/Codegen/Common/Passes.h"
#include "Boo/Codegen/Emu/Passes.h"
#include "Boo/Codegen/Emu/Pipelines.h"
#include "Boo/Codegen/GPU/Passes.h"
#include "Boo/Codegen/GPU/Pipelines.h"
#include "Boo/Conversion/BooToLinalg/Passes.h"
#include "Boo/Dialect/Boo/IR/BooDialect.h"
#include "Boo/Dialect/Boo/TransformOps/TuningSpec.h"
#include "Boo/Dialect/Boo/Transforms/Passes.h"
#include "Boo/Target/ROCDL/Passes.h"
#include "Boo/Target/ROCDL/ROCDLSerialize.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Transforms/Passes.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::boo {

/// Registers the Boo dialect and every dialect its pipelines produce, with
/// the external models (bufferization, tiling) they need.
inline void registerAllDialects(DialectRegistry &registry) {
  registry
      .insert<amdgpu::AMDGPUDialect, gpu::GPUDialect, ROCDL::ROCDLDialect>();
  registry.insert<boo::BooDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, index::IndexDialect, LLVM::LLVMDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect,
                  ub::UBDialect, vector::VectorDialect>();
  func::registerInlinerExtension(registry);
  // Tuning specs (boo-select-lowering-config) are transform IR using
  // transform.boo.match.problem.
  registry.insert<transform::TransformDialect>();
  boo::registerBooTransformExtension(registry);
  // Lets buffer-results-to-out-params hoist result allocations (no copy).
  memref::registerAllocationOpInterfaceExternalModels(registry);
  // Bufferization and tiling models the CPU pipeline relies on.
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerTilingInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerTilingInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  // Subset models let loop-invariant-subset-hoisting keep accumulator
  // tiles in registers across reduction loops.
  linalg::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  vector::registerSubsetOpInterfaceExternalModels(registry);
  // Conversion to LLVM through the ConvertToLLVM interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  // Serialization of ROCDL kernels to HSACO (boo-to-rocdl).
  registerROCDLSerializationInterfaces(registry);
  // Translation to LLVM IR (boo-translate, the CPU runner).
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

/// Registers Boo's passes and pipelines, and the upstream passes the
/// pipelines are made of (so each stage can be replayed with boo-opt).
inline void registerAllPasses() {
  registerBooTransformsPasses();
  registerBooToLinalgPasses();
  registerBooCodegenCommonPasses();
  registerBooCodegenCPUPasses();
  registerBooCodegenGPUPasses();
  registerBooCodegenEmuPasses();
  registerBooTargetROCDLPasses();
  registerBooCPUPipelines();
  registerBooGPUPipelines();
  registerBooEmuPipelines();
  // The upstream passes the pipelines are made of, so that each stage can be
  // replayed with boo-opt.
  registerTransformsPasses();
  registerConversionPasses();
  arith::registerArithPasses();
  bufferization::registerBufferizationPasses();
  bufferization::registerBufferizationPipelines();
  registerLinalgPasses();
  registerGPUPasses();
  memref::registerMemRefPasses();
  // transform-interpreter, to apply a tuning spec's rules by hand.
  transform::registerTransformPasses();
}

} // namespace mlir::boo

#endif // BOO_INITALL_H
