//===- EmuLowerKernels.cpp - boo-emu-lower-kernels ------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The SIMT emulator runs the kernels of boo-to-rocdl on the host: each
// gpu.func becomes a host function that one work-item runs, on its own fiber
// (runtime/src/emu/Emu*.cpp). Everything a work-item asks of the hardware goes
// through its context (runtime/include/boo/EmuABI.h): its ids are fields of
// it, barriers, wave operations and error reports are calls through function
// pointers in it, and the workgroup's LDS is a pointer in it. So the shared
// object needs no symbol from the runtime.
//
// Every memory access is guarded: a bug in tiling, indexing or masking is
// reported (and the access skipped) instead of reading garbage or crashing.
//
// This file builds the work-item's function, binds its buffers and guards
// its accesses; EmuWorkItemOps.cpp lowers what it asks of the hardware.
//
//===----------------------------------------------------------------------===//

#include "EmuKernelLowering.h"

#include "Boo/Codegen/Emu/Passes.h"
#include "Boo/Codegen/Emu/Pipelines.h"
#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ChipInfo.h"
#include "boo/EmuABI.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOEMULOWERKERNELS
#include "Boo/Codegen/Emu/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;
using mlir::boo::EmuBufferRoot;
using mlir::boo::EmuKernelLowering;
namespace emu = ::boo::emu;

namespace {

/// LDS buffers are laid out in declaration order at this alignment.
constexpr int64_t kLdsAlignment = 16;

MemRefType stripMemorySpace(MemRefType type) {
  if (!type.getMemorySpace())
    return type;
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout());
}

Type stripMemorySpace(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return stripMemorySpace(memref);
  return type;
}

bool isWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// A ranked memref descriptor for `pointer` with `type`'s static shape and
/// identity strides, as a value of `type` (the cast folds away in the
/// memref-to-LLVM conversion).
Value buildStaticMemRef(OpBuilder &b, Location loc, Value pointer,
                        MemRefType type) {
  MLIRContext *ctx = b.getContext();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  int64_t rank = type.getRank();
  SmallVector<Type> fields{ptr, ptr, i64};
  if (rank > 0) {
    auto array = LLVM::LLVMArrayType::get(i64, rank);
    fields.append({array, array});
  }
  auto descType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  auto constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, value);
  };
  Value desc = LLVM::PoisonOp::create(b, loc, descType);
  desc =
      LLVM::InsertValueOp::create(b, loc, desc, pointer, ArrayRef<int64_t>{0});
  desc =
      LLVM::InsertValueOp::create(b, loc, desc, pointer, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, constant(0),
                                     ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    desc = LLVM::InsertValueOp::create(
        b, loc, desc, constant(type.getDimSize(d)), ArrayRef<int64_t>{3, d});
    desc = LLVM::InsertValueOp::create(b, loc, desc, constant(stride),
                                       ArrayRef<int64_t>{4, d});
    stride *= type.getDimSize(d);
  }
  return UnrealizedConversionCastOp::create(b, loc, type, desc).getResult(0);
}

/// Whether `op` reads or writes a memref in a way the guards do not cover.
bool isUncheckedAccess(Operation *op) {
  if (isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
          memref::AllocaOp, memref::DeallocOp>(op))
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read, MemoryEffects::Write>(e.getEffect()) &&
           e.getValue() && isa<MemRefType>(e.getValue().getType());
  });
}

} // namespace

EmuBufferRoot EmuKernelLowering::findRoot(Value memref) {
  Value current = memref;
  while (true) {
    auto it = roots.find(current);
    if (it != roots.end())
      return it->second;
    Operation *def = current.getDefiningOp();
    if (!def)
      return {};
    if (auto alloca = dyn_cast<memref::AllocaOp>(def)) {
      MemRefType type = alloca.getType();
      EmuBufferRoot root;
      root.buffer = emu::kPrivateBuffer;
      root.elements = type.hasStaticShape() ? type.getNumElements() : -1;
      roots[current] = root;
      return root;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    // memref.view reinterprets bytes: its elements are not the source's.
    if (!view || isa<memref::ViewOp>(def))
      return {};
    current = view.getViewSource();
  }
}

namespace {

/// A load or store the guards check.
struct MemoryAccess {
  Value memref;
  ValueRange indices;
  int64_t vectorLength = 1;
  bool isStore = false;
  Type loadType; // null for a store
};

/// `op` as a memref or vector load or store; nullopt for other ops.
std::optional<MemoryAccess> getMemoryAccess(Operation *op) {
  MemoryAccess access;
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    access.memref = load.getMemRef();
    access.indices = load.getIndices();
    access.loadType = load.getType();
  } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
    access.memref = store.getMemRef();
    access.indices = store.getIndices();
    access.isStore = true;
  } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
    access.memref = load.getBase();
    access.indices = load.getIndices();
    access.loadType = load.getType();
    access.vectorLength = load.getVectorType().getNumElements();
  } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
    access.memref = store.getBase();
    access.indices = store.getIndices();
    access.vectorLength = store.getVectorType().getNumElements();
    access.isStore = true;
  } else {
    return std::nullopt;
  }
  return access;
}

} // namespace

/// Guards `op` (a load or store on a memref): its indices must be inside the
/// view, and its linear element offset inside the root buffer.
void EmuKernelLowering::guardAccess(Operation *op) {
  std::optional<MemoryAccess> access = getMemoryAccess(op);
  if (!access)
    return;
  Value memref = access->memref;
  ValueRange indices = access->indices;
  int64_t vectorLength = access->vectorLength;
  bool isStore = access->isStore;
  Type loadType = access->loadType;
  auto type = cast<MemRefType>(memref.getType());
  EmuBufferRoot root = findRoot(memref);

  OpBuilder b(op);
  Location loc = op->getLoc();
  Type i1 = b.getI1Type(), i64 = b.getI64Type();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  int64_t rank = type.getRank();
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value linear = metadata.getOffset();
  Value ok = arith::ConstantIntOp::create(b, loc, i1, 1);
  SmallVector<Value> lasts, dimOk;
  for (int64_t d = 0; d < rank; ++d) {
    Value index = indices[d];
    // A vector access covers [index, index + length) of the innermost dim.
    Value last = index;
    if (d == rank - 1 && vectorLength > 1)
      last = arith::AddIOp::create(
          b, loc, index,
          arith::ConstantIndexOp::create(b, loc, vectorLength - 1));
    Value inDim = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, last,
                              metadata.getSizes()[d]));
    ok = arith::AndIOp::create(b, loc, ok, inDim);
    lasts.push_back(last);
    dimOk.push_back(inDim);
    linear = arith::AddIOp::create(
        b, loc, linear,
        arith::MulIOp::create(b, loc, index, metadata.getStrides()[d]));
  }
  Value extent;
  if (root.elements >= 0) {
    extent = arith::ConstantIndexOp::create(b, loc, root.elements);
    Value lastLinear = arith::AddIOp::create(
        b, loc, linear,
        arith::ConstantIndexOp::create(b, loc, vectorLength - 1));
    ok = arith::AndIOp::create(
        b, loc, ok,
        arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, linear,
                                  zero),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lastLinear,
                                  extent)));
  } else {
    extent = arith::ConstantIndexOp::create(b, loc, -1);
  }

  SmallVector<Type> resultTypes;
  if (loadType)
    resultTypes.push_back(loadType);
  auto ifOp = scf::IfOp::create(b, loc, resultTypes, ok, /*else=*/true);

  // In bounds: the access and, on LDS, its report to the race detector
  // (loads before, stores after the access; EmuABI.h).
  Block *thenBlock = ifOp.thenBlock();
  if (loadType) {
    op->moveBefore(thenBlock, thenBlock->end());
    OpBuilder yieldBuilder = OpBuilder::atBlockEnd(thenBlock);
    scf::YieldOp::create(yieldBuilder, loc, op->getResults());
  } else {
    op->moveBefore(thenBlock->getTerminator());
  }
  // LDS accesses go to the race detector and the profile, accesses of
  // kernel arguments to the profile.
  bool isLds = root.ldsByteOffset >= 0;
  bool isArgument = root.buffer >= 0 && root.buffer < emu::kLdsBufferBase;
  if (isLds || isArgument) {
    OpBuilder thenBuilder(op);
    if (isStore)
      thenBuilder.setInsertionPointAfter(op);
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    Value byteOffset = arith::AddIOp::create(
        thenBuilder, loc,
        arith::ConstantIndexOp::create(thenBuilder, loc,
                                       isLds ? root.ldsByteOffset : 0),
        arith::MulIOp::create(
            thenBuilder, loc, linear,
            arith::ConstantIndexOp::create(thenBuilder, loc, elementBytes)));
    SmallVector<Value> args{constI32(thenBuilder, loc, numAccessSites++),
                            constI32(thenBuilder, loc, isStore)};
    if (isArgument)
      args.push_back(constI32(thenBuilder, loc, root.buffer));
    args.push_back(
        arith::IndexCastOp::create(thenBuilder, loc, i64, byteOffset));
    args.push_back(arith::ConstantIntOp::create(thenBuilder, loc, i64,
                                                elementBytes * vectorLength));
    // The race detector needs every LDS access; the profile alone wants
    // the others, and the runtime leaves globalAccess null without one.
    if (isLds)
      callBack(thenBuilder, loc, emu::kSlotLdsAccess, Type(), args);
    else
      callBackIfSet(thenBuilder, loc, emu::kSlotGlobalAccess, args);
  }

  // Out of bounds: report which dim (or the linear index) and skip.
  OpBuilder elseBuilder = ifOp.getElseBodyBuilder();
  Value failDim = constI32(elseBuilder, loc, -1);
  Value failIndex = arith::ConstantIntOp::create(elseBuilder, loc, i64, 0);
  Value failSize = arith::ConstantIntOp::create(elseBuilder, loc, i64, 0);
  for (int64_t d = rank - 1; d >= 0; --d) {
    Value bad = arith::XOrIOp::create(
        elseBuilder, loc, dimOk[d],
        arith::ConstantIntOp::create(elseBuilder, loc, i1, 1));
    failDim = arith::SelectOp::create(elseBuilder, loc, bad,
                                      constI32(elseBuilder, loc, d), failDim);
    failIndex = arith::SelectOp::create(
        elseBuilder, loc, bad,
        arith::IndexCastOp::create(elseBuilder, loc, i64, lasts[d]), failIndex);
    failSize = arith::SelectOp::create(
        elseBuilder, loc, bad,
        arith::IndexCastOp::create(elseBuilder, loc, i64,
                                   metadata.getSizes()[d]),
        failSize);
  }
  callBack(elseBuilder, loc, emu::kSlotReportOutOfBounds, Type(),
           {constI32(elseBuilder, loc, isStore),
            constI32(elseBuilder, loc, root.buffer),
            arith::IndexCastOp::create(elseBuilder, loc, i64, linear),
            arith::IndexCastOp::create(elseBuilder, loc, i64, extent), failDim,
            failIndex, failSize});
  if (loadType) {
    Value zeroValue = arith::ConstantOp::create(
        elseBuilder, loc, elseBuilder.getZeroAttr(loadType));
    scf::YieldOp::create(elseBuilder, loc, zeroValue);
    op->getResult(0).replaceAllUsesExcept(ifOp.getResult(0),
                                          thenBlock->getTerminator());
  }
}

LogicalResult EmuKernelLowering::bindArguments(gpu::GPUFuncOp kernel,
                                               func::FuncOp func,
                                               Block &entry) {
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = kernel.getLoc();
  Type ptr = LLVM::LLVMPointerType::get(b.getContext());
  Value args = entry.getArgument(1);
  unsigned numArgs = kernel.getNumArguments();
  for (unsigned i = 0; i < numArgs; ++i) {
    // entry's arguments: ctx, args, then the kernel's own (erased below).
    BlockArgument arg = entry.getArgument(2 + i);
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, args,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value address = LLVM::LoadOp::create(b, loc, ptr, slot);
    Type type = arg.getType();
    Value value;
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (!memref.hasStaticShape() || !memref.getLayout().isIdentity())
        return kernel.emitOpError("emu: argument ")
               << i << " of type " << type
               << " is not a static identity-layout buffer";
      Value base = LLVM::LoadOp::create(b, loc, ptr, address);
      value = buildStaticMemRef(b, loc, base, stripMemorySpace(memref));
      EmuBufferRoot root;
      root.buffer = static_cast<int32_t>(i);
      root.elements = memref.getNumElements();
      roots[value] = root;
    } else if (type.isIndex()) {
      value = arith::IndexCastOp::create(
          b, loc, type, LLVM::LoadOp::create(b, loc, b.getI64Type(), address));
    } else if (type.isIntOrFloat() && (type.getIntOrFloatBitWidth() == 32 ||
                                       type.getIntOrFloatBitWidth() == 64)) {
      value = LLVM::LoadOp::create(b, loc, type, address);
    } else {
      return kernel.emitOpError("emu: argument ")
             << i << " of type " << type << " is not supported";
    }
    arg.replaceAllUsesWith(value);
  }
  (void)func;
  return success();
}

LogicalResult
EmuKernelLowering::bindWorkgroupMemory(gpu::GPUFuncOp kernel, func::FuncOp func,
                                       Block &entry,
                                       unsigned firstAttribution) {
  MLIRContext *ctx = module.getContext();
  Location loc = kernel.getLoc();
  // Workgroup memory: attributions, then workgroup-space allocs, packed in
  // the workgroup's LDS in that order.
  SmallVector<Value> ldsValues;
  for (unsigned i = 0, e = kernel.getNumWorkgroupAttributions(); i < e; ++i)
    ldsValues.push_back(entry.getArgument(firstAttribution + i));
  SmallVector<memref::AllocOp> ldsAllocs;
  func.walk([&](memref::AllocOp alloc) {
    if (isWorkgroupMemory(alloc.getType()))
      ldsAllocs.push_back(alloc);
  });
  for (memref::AllocOp alloc : ldsAllocs)
    ldsValues.push_back(alloc.getResult());

  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  int64_t ldsBytes = 0;
  SmallVector<std::pair<Value, int64_t>> ldsOffsets;
  for (Value value : ldsValues) {
    auto type = cast<MemRefType>(value.getType());
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return kernel.emitOpError("emu: workgroup buffer of type ")
             << type << " is not static and dense";
    ldsBytes = llvm::alignTo(ldsBytes, kLdsAlignment);
    ldsOffsets.push_back({value, ldsBytes});
    ldsBytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  }
  func->setAttr("boo.emu_lds_bytes", b.getI64IntegerAttr(ldsBytes));
  if (ldsValues.empty())
    return success();
  // The LDS as one memref<ldsBytes x i8>, each buffer a view of it.
  Value base = loadSlot(b, loc, emu::kSlotLds, LLVM::LLVMPointerType::get(ctx));
  Value bytes = buildStaticMemRef(b, loc, base,
                                  MemRefType::get({ldsBytes}, b.getI8Type()));
  for (auto [index, entryPair] : llvm::enumerate(ldsOffsets)) {
    auto [value, offset] = entryPair;
    auto type = stripMemorySpace(cast<MemRefType>(value.getType()));
    Value shift = arith::ConstantIndexOp::create(b, loc, offset);
    Value view =
        memref::ViewOp::create(b, loc, type, bytes, shift, ValueRange{});
    EmuBufferRoot root;
    root.buffer = emu::kLdsBufferBase + static_cast<int32_t>(index);
    root.elements = type.getNumElements();
    root.ldsByteOffset = offset;
    roots[view] = root;
    value.replaceAllUsesWith(view);
  }
  for (memref::AllocOp alloc : ldsAllocs) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.erase();
  }
  // Deallocations of the attributions' replacements are not expected, but
  // would free the LDS.
  SmallVector<memref::DeallocOp> deallocs;
  func.walk([&](memref::DeallocOp dealloc) {
    if (isa_and_nonnull<memref::ViewOp>(dealloc.getMemref().getDefiningOp()))
      deallocs.push_back(dealloc);
  });
  for (memref::DeallocOp dealloc : deallocs)
    dealloc.erase();
  return success();
}

LogicalResult EmuKernelLowering::lower(gpu::GPUModuleOp gpuModule,
                                       gpu::GPUFuncOp kernel) {
  MLIRContext *ctx = module.getContext();
  Location loc = kernel.getLoc();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  std::string name =
      mlir::boo::getEmuKernelSymbol(gpuModule.getName(), kernel.getName());
  // The kernel's gpu.module (erased once its kernels are lowered) may carry
  // the same name.
  if (Operation *existing = module.lookupSymbol(name);
      existing && existing != gpuModule.getOperation())
    return kernel.emitOpError("emu: symbol @") << name << " already exists";
  if (kernel.getNumPrivateAttributions() != 0 &&
      !llvm::all_of(kernel.getPrivateAttributions(), [](BlockArgument arg) {
        return cast<MemRefType>(arg.getType()).hasStaticShape();
      }))
    return kernel.emitOpError("emu: private attributions must be static");

  // Counted before the body moves (they are derived from its arguments).
  unsigned numArgs = kernel.getNumArguments();
  unsigned numWorkgroup = kernel.getNumWorkgroupAttributions();
  unsigned numPrivate = kernel.getNumPrivateAttributions();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto func =
      func::FuncOp::create(b, loc, name, b.getFunctionType({ptr, ptr}, {}));
  func->setAttr("boo.emu_kernel", UnitAttr::get(ctx));
  func.getBody().takeBody(kernel.getBody());
  Block &entry = func.getBody().front();
  context = entry.insertArgument(0u, ptr, loc);
  entry.insertArgument(1u, ptr, loc);
  roots.clear();
  numBarriers = 0;
  numAccessSites = 0;

  if (failed(bindArguments(kernel, func, entry)) ||
      failed(bindWorkgroupMemory(kernel, func, entry, 2 + numArgs)))
    return failure();
  // Private attributions: per work-item arrays.
  OpBuilder entryBuilder = OpBuilder::atBlockBegin(&entry);
  for (unsigned i = 0; i < numPrivate; ++i) {
    Value arg = entry.getArgument(2 + numArgs + numWorkgroup + i);
    auto type = stripMemorySpace(cast<MemRefType>(arg.getType()));
    arg.replaceAllUsesWith(memref::AllocaOp::create(entryBuilder, loc, type));
  }
  entry.eraseArguments(2, numArgs + numWorkgroup + numPrivate);

  if (failed(replaceGPUOps(func)))
    return failure();

  // Drop GPU address spaces everywhere in the body.
  func.walk([&](Operation *op) {
    for (Value result : op->getResults())
      result.setType(stripMemorySpace(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(stripMemorySpace(arg.getType()));
  });

  // One private array per work-item, not one per loop iteration: static
  // allocas go to the entry block (the fiber stacks are small).
  SmallVector<memref::AllocaOp> allocas;
  func.walk([&](memref::AllocaOp alloca) {
    if (alloca.getType().hasStaticShape() && alloca->getBlock() != &entry)
      allocas.push_back(alloca);
  });
  for (memref::AllocaOp alloca : allocas)
    alloca->moveBefore(&entry, entry.begin());

  Operation *unchecked = nullptr;
  func.walk([&](Operation *op) {
    if (!unchecked && isUncheckedAccess(op))
      unchecked = op;
  });
  if (unchecked)
    return unchecked->emitOpError("emu: memory access of '")
           << unchecked->getName() << "' is not emulated (only loads and "
           << "stores of memref and vector can be checked)";

  if (checks) {
    SmallVector<Operation *> accesses;
    func.walk([&](Operation *op) {
      if (isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp>(
              op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses)
      guardAccess(op);
  }

  // Last, so that the fragment buffers' accesses are not guarded.
  SmallVector<Operation *> mmaOps;
  func.walk([&](Operation *op) {
    if (isa<amdgpu::MFMAOp, amdgpu::WMMAOp>(op))
      mmaOps.push_back(op);
  });
  for (Operation *op : mmaOps)
    if (failed(lowerMma(op, entry)))
      return failure();

  Operation *left = nullptr;
  func.walk([&](Operation *op) {
    if (!left && isa_and_nonnull<gpu::GPUDialect, amdgpu::AMDGPUDialect>(
                     op->getDialect()))
      left = op;
  });
  if (left)
    return left->emitOpError("emu: '")
           << left->getName() << "' is not emulated";
  return success();
}

namespace {

struct BooEmuLowerKernelsPass
    : public mlir::boo::impl::BooEmuLowerKernelsBase<BooEmuLowerKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const mlir::boo::ChipInfo *chipInfo =
        mlir::boo::resolveChip(module, getArgument());
    if (!chipInfo)
      return signalPassFailure();
    EmuKernelLowering lowering(module, *chipInfo, checks);
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gpuModule : gpuModules) {
      for (Operation &op : gpuModule.getBody()->getOperations()) {
        auto kernel = dyn_cast<gpu::GPUFuncOp>(op);
        if (kernel && !kernel.isKernel()) {
          kernel.emitOpError("emu: device functions are not emulated");
          return signalPassFailure();
        }
      }
      for (auto kernel :
           llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>()))
        if (failed(lowering.lower(gpuModule, kernel)))
          return signalPassFailure();
      gpuModule.erase();
    }
    // Host functions that launch kernels: the loader has read them.
    for (auto func :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      if (func->hasAttr("boo.emu_kernel"))
        continue;
      WalkResult gpuOps = func.walk([](Operation *op) {
        return isa_and_nonnull<gpu::GPUDialect>(op->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (gpuOps.wasInterrupted())
        func.erase();
    }
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
