//===- EmuKernelLowering.h - One kernel on the emulator ---------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The lowering of one gpu.func to a host function of one work-item, shared
// by EmuLowerKernels.cpp (the function, its buffers and the memory guards)
// and EmuWorkItemOps.cpp (ids, barriers, shuffles and MMAs as loads from
// and calls through the work-item's context).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_CODEGEN_EMU_EMUKERNELLOWERING_H
#define BOO_LIB_CODEGEN_EMU_EMUKERNELLOWERING_H

#include "boo/EmuABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::boo {

struct ChipInfo;

/// Where a memref value's memory comes from.
struct EmuBufferRoot {
  int32_t buffer = ::boo::emu::kUnknownBuffer; // code for reportOutOfBounds
  int64_t elements = -1;                       // of the root buffer; -1 unknown
  int64_t ldsByteOffset = -1;                  // LDS roots: the buffer's offset
};

/// Lowers the kernels of one module, one at a time.
class EmuKernelLowering {
public:
  EmuKernelLowering(ModuleOp module, const ChipInfo &chip, bool checks)
      : module(module), chip(chip), checks(checks) {}

  LogicalResult lower(gpu::GPUModuleOp gpuModule, gpu::GPUFuncOp kernel);

private:
  /// Loads slot `slot` of the context as `type`.
  Value loadSlot(OpBuilder &b, Location loc, int64_t slot, Type type);
  /// The context's id field `slot` (threadId, ...) in `dim`, as an index.
  Value loadId(OpBuilder &b, Location loc, int64_t slot, gpu::Dimension dim);
  /// Calls the context's callback in `slot`.
  Value callBack(OpBuilder &b, Location loc, int64_t slot, Type result,
                 ValueRange args);
  /// Calls the context's callback in `slot`, returning nothing, when it is
  /// not null.
  void callBackIfSet(OpBuilder &b, Location loc, int64_t slot, ValueRange args);
  Value constI32(OpBuilder &b, Location loc, int64_t value) {
    return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
  }
  /// x + y * dimX + z * dimX * dimY of the work-item's thread id.
  Value linearThreadId(OpBuilder &b, Location loc);

  /// The kernel's arguments loaded from the args array (buffers as static
  /// memrefs, the roots of their accesses).
  LogicalResult bindArguments(gpu::GPUFuncOp kernel, func::FuncOp func,
                              Block &entry);
  /// The workgroup attributions and allocs as views of the context's LDS.
  LogicalResult bindWorkgroupMemory(gpu::GPUFuncOp kernel, func::FuncOp func,
                                    Block &entry, unsigned firstAttribution);
  /// Replaces the gpu dialect ops of `func`: ids from the context, barriers
  /// and shuffles through its callbacks.
  LogicalResult replaceGPUOps(func::FuncOp func);
  LogicalResult lowerShuffle(gpu::ShuffleOp op);
  /// An MFMA or WMMA through the context's MMA callback, its fragments in
  /// private arrays allocated in `entry`.
  LogicalResult lowerMma(Operation *op, Block &entry);
  void guardAccess(Operation *op);
  /// The buffer `memref` is a view of (through view-like ops), if known.
  EmuBufferRoot findRoot(Value memref);

  ModuleOp module;
  const ChipInfo &chip;
  bool checks;
  Value context;
  DenseMap<Value, EmuBufferRoot> roots;
  int32_t numBarriers = 0;
  /// The kernel's reported memory accesses so far (their site numbers).
  int32_t numAccessSites = 0;
};

} // namespace mlir::boo

#endif // BOO_LIB_CODEGEN_EMU_EMUKERNELLOWERING_H
