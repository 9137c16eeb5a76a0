//===- EmuWorkItemOps.cpp - What a work-item asks of the hardware ---------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The GPU operations of an emulated kernel (boo-emu-lower-kernels, see
// EmuLowerKernels.cpp) as loads from and calls through the work-item's
// context (runtime/include/boo/EmuABI.h): its ids are fields of it,
// barriers, shuffles and MMAs are callbacks.
//
//===----------------------------------------------------------------------===//

#include "EmuKernelLowering.h"

#include "Boo/Target/ChipInfo.h"
#include "boo/EmuABI.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using mlir::boo::EmuKernelLowering;
namespace emu = ::boo::emu;

namespace {

/// The address of a memref's first element as an !llvm.ptr.
Value getAlignedPointer(OpBuilder &b, Location loc, Value memref) {
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), address);
}

} // namespace

Value EmuKernelLowering::loadSlot(OpBuilder &b, Location loc, int64_t slot,
                                  Type type) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value address = LLVM::GEPOp::create(b, loc, ptr, b.getI64Type(), context,
                                      ArrayRef<LLVM::GEPArg>{int32_t(slot)});
  return LLVM::LoadOp::create(b, loc, type, address);
}

Value EmuKernelLowering::loadId(OpBuilder &b, Location loc, int64_t slot,
                                gpu::Dimension dim) {
  Value value =
      loadSlot(b, loc, slot + static_cast<int64_t>(dim), b.getI64Type());
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
}

Value EmuKernelLowering::callBack(OpBuilder &b, Location loc, int64_t slot,
                                  Type result, ValueRange args) {
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Value callee = loadSlot(b, loc, slot, ptr);
  SmallVector<Type> inputs{ptr};
  SmallVector<Value> operands{callee, context};
  for (Value arg : args) {
    inputs.push_back(arg.getType());
    operands.push_back(arg);
  }
  Type resultType = result ? result : LLVM::LLVMVoidType::get(ctx);
  auto call = LLVM::CallOp::create(
      b, loc, LLVM::LLVMFunctionType::get(resultType, inputs), operands);
  return result ? call.getResult() : Value();
}

void EmuKernelLowering::callBackIfSet(OpBuilder &b, Location loc, int64_t slot,
                                      ValueRange args) {
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value callee = loadSlot(b, loc, slot, ptr);
  Value set = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, callee,
                                   LLVM::ZeroOp::create(b, loc, ptr));
  auto ifOp = scf::IfOp::create(b, loc, set, /*withElseRegion=*/false);
  OpBuilder thenBuilder = OpBuilder::atBlockTerminator(ifOp.thenBlock());
  callBack(thenBuilder, loc, slot, Type(), args);
}

Value EmuKernelLowering::linearThreadId(OpBuilder &b, Location loc) {
  Value x = loadId(b, loc, emu::kSlotThreadId, gpu::Dimension::x);
  Value y = loadId(b, loc, emu::kSlotThreadId, gpu::Dimension::y);
  Value z = loadId(b, loc, emu::kSlotThreadId, gpu::Dimension::z);
  Value dx = loadId(b, loc, emu::kSlotBlockDim, gpu::Dimension::x);
  Value dy = loadId(b, loc, emu::kSlotBlockDim, gpu::Dimension::y);
  Value zy =
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, z, dy), y);
  return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, zy, dx),
                               x);
}

LogicalResult EmuKernelLowering::lowerShuffle(gpu::ShuffleOp op) {
  Type type = op.getValue().getType();
  if (type.getIntOrFloatBitWidth() != 32)
    return op.emitOpError("emu: shuffles of ")
           << type << " are not emulated (32-bit values only)";
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value bits = op.getValue();
  if (!type.isInteger(32))
    bits = arith::BitcastOp::create(b, loc, i32, bits);
  Value packed = callBack(b, loc, emu::kSlotShuffle, i64,
                          {constI32(b, loc, static_cast<int64_t>(op.getMode())),
                           bits, op.getOffset(), op.getWidth()});
  Value value = arith::TruncIOp::create(b, loc, i32, packed);
  if (!type.isInteger(32))
    value = arith::BitcastOp::create(b, loc, type, value);
  Value valid = arith::TruncIOp::create(
      b, loc, b.getI1Type(),
      arith::ShRUIOp::create(b, loc, packed,
                             arith::ConstantIntOp::create(b, loc, i64, 32)));
  op.getShuffleResult().replaceAllUsesWith(value);
  op.getValid().replaceAllUsesWith(valid);
  op.erase();
  return success();
}

LogicalResult EmuKernelLowering::replaceGPUOps(func::FuncOp func) {
  SmallVector<Operation *> gpuOps;
  func.walk([&](Operation *op) {
    if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()))
      gpuOps.push_back(op);
  });

  for (Operation *op : gpuOps) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto wave = [&] {
      return arith::ConstantIndexOp::create(b, loc, chip.waveSize);
    };
    Value replacement;
    if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      replacement = loadId(b, loc, emu::kSlotThreadId, id.getDimension());
    else if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      replacement = loadId(b, loc, emu::kSlotBlockId, id.getDimension());
    else if (auto id = dyn_cast<gpu::BlockDimOp>(op))
      replacement = loadId(b, loc, emu::kSlotBlockDim, id.getDimension());
    else if (auto id = dyn_cast<gpu::GridDimOp>(op))
      replacement = loadId(b, loc, emu::kSlotGridDim, id.getDimension());
    else if (auto id = dyn_cast<gpu::GlobalIdOp>(op))
      replacement = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(
              b, loc, loadId(b, loc, emu::kSlotBlockId, id.getDimension()),
              loadId(b, loc, emu::kSlotBlockDim, id.getDimension())),
          loadId(b, loc, emu::kSlotThreadId, id.getDimension()));
    else if (isa<gpu::SubgroupSizeOp>(op))
      replacement = wave();
    else if (isa<gpu::LaneIdOp>(op))
      replacement =
          arith::RemUIOp::create(b, loc, linearThreadId(b, loc), wave());
    else if (isa<gpu::SubgroupIdOp>(op))
      replacement =
          arith::DivUIOp::create(b, loc, linearThreadId(b, loc), wave());
    else if (isa<gpu::NumSubgroupsOp>(op)) {
      Value dx = loadId(b, loc, emu::kSlotBlockDim, gpu::Dimension::x);
      Value dy = loadId(b, loc, emu::kSlotBlockDim, gpu::Dimension::y);
      Value dz = loadId(b, loc, emu::kSlotBlockDim, gpu::Dimension::z);
      Value size = arith::MulIOp::create(
          b, loc, arith::MulIOp::create(b, loc, dx, dy), dz);
      replacement = arith::CeilDivUIOp::create(b, loc, size, wave());
    } else if (isa<gpu::BarrierOp>(op)) {
      callBack(b, loc, emu::kSlotBarrier, Type(),
               {constI32(b, loc, numBarriers++)});
      op->erase();
      continue;
    } else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      if (failed(lowerShuffle(shuffle)))
        return failure();
      continue;
    } else if (isa<gpu::ReturnOp>(op)) {
      func::ReturnOp::create(b, loc);
      op->erase();
      continue;
    } else {
      return op->emitOpError("emu: '") << op->getName() << "' is not emulated";
    }
    if (replacement.getType() != op->getResult(0).getType())
      replacement = arith::IndexCastOp::create(
          b, loc, op->getResult(0).getType(), replacement);
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
  return success();
}

LogicalResult EmuKernelLowering::lowerMma(Operation *op, Block &entry) {
  Value a, b, c;
  int32_t family, m, n, k;
  // MFMAOp and WMMAOp name their operands and shape alike.
  auto takeOperands = [&](auto mmaOp, int32_t mmaFamily) {
    a = mmaOp.getSourceA();
    b = mmaOp.getSourceB();
    c = mmaOp.getDestC();
    family = mmaFamily;
    m = mmaOp.getM();
    n = mmaOp.getN();
    k = mmaOp.getK();
  };
  if (auto mfma = dyn_cast<amdgpu::MFMAOp>(op)) {
    if (mfma.getBlocks() != 1 || mfma.getCbsz() != 0 || mfma.getAbid() != 0 ||
        mfma.getBlgp() != amdgpu::MFMAPermB::none ||
        mfma.getReducePrecision() || mfma.getNegateA() || mfma.getNegateB() ||
        mfma.getNegateC())
      return op->emitOpError(
          "emu: only single-block MFMAs without broadcast, permutation, "
          "negation or reduced precision are emulated");
    takeOperands(mfma, emu::kMfma);
  } else {
    auto wmma = cast<amdgpu::WMMAOp>(op);
    if (wmma.getSubwordOffset() != 0 || wmma.getUnsignedA() ||
        wmma.getUnsignedB() || wmma.getClamp())
      return op->emitOpError("emu: only WMMAs without subword offset, "
                             "unsigned or clamp flags are emulated");
    takeOperands(wmma, emu::kWmma);
  }
  auto aType = dyn_cast<VectorType>(a.getType());
  auto bType = dyn_cast<VectorType>(b.getType());
  auto cType = dyn_cast<VectorType>(c.getType());
  if (!aType || !bType || !cType || aType != bType ||
      !cType.getElementType().isF32() ||
      !(aType.getElementType().isF16() || aType.getElementType().isBF16()) ||
      aType.getRank() != 1 || cType.getRank() != 1)
    return op->emitOpError("emu: only MMAs of f16 or bf16 vectors with an "
                           "f32 vector accumulator are emulated");
  int32_t inputType =
      aType.getElementType().isF16() ? emu::kMmaF16 : emu::kMmaBF16;

  // The fragments go through private arrays: the runtime reads this lane's
  // A, B and C and writes its D.
  OpBuilder entryBuilder = OpBuilder::atBlockBegin(&entry);
  Location loc = op->getLoc();
  auto i16Fragment =
      MemRefType::get({aType.getNumElements()}, entryBuilder.getI16Type());
  auto f32Fragment =
      MemRefType::get({cType.getNumElements()}, entryBuilder.getF32Type());
  Value aBuffer = memref::AllocaOp::create(entryBuilder, loc, i16Fragment);
  Value bBuffer = memref::AllocaOp::create(entryBuilder, loc, i16Fragment);
  Value cBuffer = memref::AllocaOp::create(entryBuilder, loc, f32Fragment);
  Value dBuffer = memref::AllocaOp::create(entryBuilder, loc, f32Fragment);

  OpBuilder builder(op);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  auto i16Vector =
      VectorType::get({aType.getNumElements()}, builder.getI16Type());
  vector::StoreOp::create(builder, loc,
                          vector::BitCastOp::create(builder, loc, i16Vector, a),
                          aBuffer, ValueRange{zero});
  vector::StoreOp::create(builder, loc,
                          vector::BitCastOp::create(builder, loc, i16Vector, b),
                          bBuffer, ValueRange{zero});
  vector::StoreOp::create(builder, loc, c, cBuffer, ValueRange{zero});
  callBack(builder, loc, emu::kSlotMma, Type(),
           {constI32(builder, loc, family), constI32(builder, loc, m),
            constI32(builder, loc, n), constI32(builder, loc, k),
            constI32(builder, loc, inputType),
            constI32(builder, loc, aType.getNumElements()),
            constI32(builder, loc, cType.getNumElements()),
            getAlignedPointer(builder, loc, aBuffer),
            getAlignedPointer(builder, loc, bBuffer),
            getAlignedPointer(builder, loc, cBuffer),
            getAlignedPointer(builder, loc, dBuffer)});
  Value d =
      vector::LoadOp::create(builder, loc, cType, dBuffer, ValueRange{zero});
  op->getResult(0).replaceAllUsesWith(d);
  op->erase();
  return success();
}
