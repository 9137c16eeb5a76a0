//===- HostFunctionReader.cpp - Launches from boo-to-rocdl host code ------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-to-rocdl leaves, per public function, a host function of
// gpu.launch_func ops on the function's buffers and views of them. The
// manifest records each launch (kernel, grid, workgroup, LDS bytes) and each
// argument as an input, result or scratch buffer plus a byte offset, or an
// immediate (docs/ModuleFormat.md).
//
//===----------------------------------------------------------------------===//

#include "ArtifactTargets.h"

#include "Boo/Codegen/Emu/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::boo;

namespace {

/// A host value's buffer: which manifest buffer and the byte offset in it.
struct BufferRef {
  rt::ArgKind kind;
  uint32_t index;
  uint64_t offset;
};

/// Reads the manifest form of one host function made by boo-to-rocdl.
class HostFunctionReader {
public:
  /// Launches name the code object of their gpu.binary (`codeObjects`),
  /// or, with `emuCodeObject`, that one shared object and the emulated
  /// kernel's host symbol (getEmuKernelSymbol).
  HostFunctionReader(const FunctionSignature &signature,
                     const llvm::StringMap<uint32_t> &codeObjects,
                     std::optional<uint32_t> emuCodeObject = std::nullopt)
      : signature(signature), codeObjects(codeObjects),
        emuCodeObject(emuCodeObject) {}

  LogicalResult read(func::FuncOp func, rt::FunctionImpl &functionImpl,
                     std::string &error) {
    size_t numInputs = signature.inputs.size();
    if (func.getNumArguments() != numInputs + signature.results.size()) {
      error = "@" + signature.name + " has " +
              std::to_string(func.getNumArguments()) +
              " arguments after boo-to-rocdl; expected inputs + results";
      return failure();
    }
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      if (i < numInputs)
        buffers[arg] = {rt::ArgKind::Input, static_cast<uint32_t>(i), 0};
      else
        buffers[arg] = {rt::ArgKind::Result,
                        static_cast<uint32_t>(i - numInputs), 0};
    }
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (failed(readOp(op, functionImpl, error)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

private:
  LogicalResult readOp(Operation *op, rt::FunctionImpl &functionImpl,
                       std::string &error) {
    if (isa<func::FuncOp, func::ReturnOp, arith::ConstantOp, gpu::DeallocOp>(
            op))
      return success();
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity())
        return fail(op, "allocates a dynamic or strided buffer", error);
      uint64_t bytes =
          type.getNumElements() * type.getElementTypeBitWidth() / 8;
      buffers[alloc.getMemref()] = {
          rt::ArgKind::Scratch,
          static_cast<uint32_t>(functionImpl.scratchBytes.size()), 0};
      functionImpl.scratchBytes.push_back(bytes);
      return success();
    }
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp,
            memref::SubViewOp, memref::ReinterpretCastOp>(op)) {
      auto it = buffers.find(op->getOperand(0));
      if (it == buffers.end())
        return fail(op, "takes a view of an unknown buffer", error);
      BufferRef ref = it->second;
      auto source = cast<MemRefType>(op->getOperand(0).getType());
      auto result = cast<MemRefType>(op->getResult(0).getType());
      SmallVector<int64_t> strides;
      int64_t sourceOffset = 0, resultOffset = 0;
      if (failed(source.getStridesAndOffset(strides, sourceOffset)) ||
          failed(result.getStridesAndOffset(strides, resultOffset)) ||
          ShapedType::isDynamic(sourceOffset) ||
          ShapedType::isDynamic(resultOffset))
        return fail(op, "has a dynamic offset", error);
      // Offsets are in elements of the underlying buffer, relative to its
      // base; the descriptor's base pointer stays the root's.
      ref.offset +=
          (resultOffset - sourceOffset) * result.getElementTypeBitWidth() / 8;
      buffers[op->getResult(0)] = ref;
      return success();
    }
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      return readLaunch(launch, functionImpl, error);
    return fail(op, "is not a kernel launch, allocation or view", error);
  }

  LogicalResult readLaunch(gpu::LaunchFuncOp launchOp,
                           rt::FunctionImpl &functionImpl, std::string &error) {
    rt::Launch launch;
    if (emuCodeObject) {
      launch.codeObject = *emuCodeObject;
      launch.kernel =
          getEmuKernelSymbol(launchOp.getKernelModuleName().getValue(),
                             launchOp.getKernelName().getValue());
    } else {
      auto codeObject = codeObjects.find(launchOp.getKernelModuleName());
      if (codeObject == codeObjects.end())
        return fail(launchOp, "launches a kernel of an unknown gpu.binary",
                    error);
      launch.codeObject = codeObject->second;
      launch.kernel = launchOp.getKernelName().str();
    }
    gpu::KernelDim3 grid = launchOp.getGridSizeOperandValues();
    gpu::KernelDim3 block = launchOp.getBlockSizeOperandValues();
    Value sizes[] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
    for (auto [i, size] : llvm::enumerate(sizes)) {
      std::optional<int64_t> value = getConstantIntValue(size);
      if (!value || *value <= 0 || *value > UINT32_MAX)
        return fail(launchOp, "has a non-constant or out-of-range launch size",
                    error);
      (i < 3 ? launch.grid[i] : launch.workgroup[i - 3]) = *value;
    }
    if (Value lds = launchOp.getDynamicSharedMemorySize()) {
      std::optional<int64_t> value = getConstantIntValue(lds);
      if (!value || *value < 0 || *value > UINT32_MAX)
        return fail(launchOp, "has a non-constant dynamic LDS size", error);
      launch.dynamicLdsBytes = *value;
    }
    for (Value operand : launchOp.getKernelOperands()) {
      if (auto type = dyn_cast<MemRefType>(operand.getType())) {
        // Bare-pointer kernel arguments: the kernel adds nothing to the
        // pointer, so the view's offset must be in it (BufferRef::offset).
        if (!type.getLayout().isIdentity())
          return fail(launchOp, "passes a non-identity-layout buffer", error);
        auto it = buffers.find(operand);
        if (it == buffers.end())
          return fail(launchOp, "passes a buffer the reader cannot trace",
                      error);
        launch.args.push_back(
            {it->second.kind, it->second.index, it->second.offset});
        continue;
      }
      std::optional<int64_t> value = getConstantIntValue(operand);
      unsigned width = operand.getType().isIndex()
                           ? 64
                           : operand.getType().getIntOrFloatBitWidth();
      if (!value || (width != 64 && width != 32))
        return fail(launchOp, "passes a non-constant scalar argument", error);
      launch.args.push_back(
          {width == 64 ? rt::ArgKind::Imm64 : rt::ArgKind::Imm32, 0,
           static_cast<uint64_t>(*value)});
    }
    functionImpl.launches.push_back(std::move(launch));
    return success();
  }

  LogicalResult fail(Operation *op, const Twine &message, std::string &error) {
    error = "@" + signature.name + ": '" + op->getName().getStringRef().str() +
            "' " + message.str();
    return failure();
  }

  const FunctionSignature &signature;
  const llvm::StringMap<uint32_t> &codeObjects;
  std::optional<uint32_t> emuCodeObject;
  DenseMap<Value, BufferRef> buffers;
};

} // namespace

LogicalResult mlir::boo::readHostFunction(
    func::FuncOp func, const FunctionSignature &signature,
    const llvm::StringMap<uint32_t> &codeObjects,
    std::optional<uint32_t> emuCodeObject, rt::FunctionImpl &functionImpl,
    std::string &error) {
  HostFunctionReader reader(signature, codeObjects, emuCodeObject);
  return reader.read(func, functionImpl, error);
}
