//===- VerifyROCDLContract.cpp - What boo-to-rocdl must produce -----------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-verify-rocdl-contract` ends the boo-to-rocdl pipeline. A runtime that
// loads its output expects exactly this:
//
//   - top level: host `func.func`s and `gpu.binary`s, nothing else (an
//     unserialized `gpu.module` is an error);
//   - each `gpu.binary` holds one `#gpu.object` per target, in binary
//     format, for a `#rocdl.target` of the requested chip; the bytes are an
//     AMDGPU ELF shared object whose HSA metadata names that chip;
//   - the kernel table of each object reports no private segment (scratch)
//     and no spilled register, unless `allow-scratch`;
//   - host functions only launch kernels (`gpu.launch_func`, each with a
//     `boo.kernel_abi` record naming a kernel of the binary), allocate and
//     free device buffers, take views of buffers, and hold constants.
//
// Each violation is reported at its op (at most 10), then the pass fails.
//
//===----------------------------------------------------------------------===//

#include "Boo/Dialect/Boo/IR/BooAttrs.h"
#include "Boo/Target/ROCDL/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

namespace mlir::boo {
#define GEN_PASS_DEF_BOOVERIFYROCDLCONTRACT
#include "Boo/Target/ROCDL/Passes.h.inc"
} // namespace mlir::boo

using namespace mlir;

namespace {

constexpr unsigned kMaxReports = 10;

/// The kernel-table entries checked: the amdhsa.kernels metadata keys, as
/// ROCDL::getKernelMetadata records them (without the leading '.').
constexpr StringLiteral kScratchKey = "private_segment_fixed_size";
/// Only VGPR spills go to memory: SGPR spills land in VGPR lanes
/// (v_writelane), and any that overflow show up as scratch above.
constexpr StringLiteral kSpillKeys[] = {"vgpr_spill_count"};

/// Checks the ELF header and the HSA target id of a code object. Returns an
/// empty string when it is an AMDGPU shared object for `chip`.
std::string checkCodeObject(StringRef bytes, StringRef chip) {
  using namespace llvm;
  if (bytes.size() < sizeof(ELF::Elf64_Ehdr) || !bytes.starts_with("\x7f"
                                                                   "ELF"))
    return "is not an ELF file";
  if (bytes[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      bytes[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return "is not a little-endian ELF64 file";
  auto half = [&](size_t offset) {
    return support::endian::read16le(bytes.data() + offset);
  };
  if (half(offsetof(ELF::Elf64_Ehdr, e_machine)) != ELF::EM_AMDGPU)
    return "is not an AMDGPU code object (e_machine)";
  if (half(offsetof(ELF::Elf64_Ehdr, e_type)) != ELF::ET_DYN)
    return "is not a linked code object (e_type is not ET_DYN)";
  // The HSA metadata note names the target, e.g. "amdgcn-amd-amdhsa--gfx942"
  // (followed by ":feature+" or the end of the string).
  std::string targetId = ("amdgcn-amd-amdhsa--" + chip).str();
  for (size_t pos = bytes.find(targetId); pos != StringRef::npos;
       pos = bytes.find(targetId, pos + 1)) {
    char next = pos + targetId.size() < bytes.size()
                    ? bytes[pos + targetId.size()]
                    : '\0';
    if (!isAlnum(next))
      return "";
  }
  return "does not name the target '" + targetId + "' in its metadata";
}

struct BooVerifyROCDLContractPass
    : public mlir::boo::impl::BooVerifyROCDLContractBase<
          BooVerifyROCDLContractPass> {
  using Base::Base;

  /// The module's #boo.target chip, which every code object must be for.
  std::string chip;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const mlir::boo::ChipInfo *chipInfo =
        mlir::boo::resolveChip(module, getArgument());
    if (!chipInfo)
      return signalPassFailure();
    chip = chipInfo->name.str();
    DenseMap<StringAttr, gpu::BinaryOp> binaries;
    for (auto binary : module.getOps<gpu::BinaryOp>())
      binaries[binary.getNameAttr()] = binary;
    if (binaries.empty())
      report(module, "the module holds no gpu.binary: no kernel was "
                     "compiled");

    for (Operation &op : module.getBody()->getOperations()) {
      if (auto binary = dyn_cast<gpu::BinaryOp>(op))
        checkBinary(binary);
      else if (auto func = dyn_cast<func::FuncOp>(op))
        checkHost(func, binaries);
      else if (isa<gpu::GPUModuleOp>(op))
        report(&op, "a gpu.module was not serialized to a gpu.binary");
      else
        report(&op, "is not allowed at the top level of a compiled module");
    }
    if (numReports != 0) {
      mlir::emitError(module.getLoc())
          << "boo-verify-rocdl-contract: " << numReports
          << " violation(s) of the ROCDL output contract";
      signalPassFailure();
    }
  }

  void checkBinary(gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      auto target = object
                        ? dyn_cast<ROCDL::ROCDLTargetAttr>(object.getTarget())
                        : ROCDL::ROCDLTargetAttr();
      if (!target) {
        report(binary, "holds an object that is not for a #rocdl.target");
        continue;
      }
      if (target.getChip() != chip) {
        report(binary, "holds a code object for '" + target.getChip().str() +
                           "', not for '" + chip + "'");
        continue;
      }
      if (object.getFormat() != gpu::CompilationTarget::Binary) {
        report(binary, "holds an object that is not a binary code object");
        continue;
      }
      std::string problem =
          checkCodeObject(object.getObject().getValue(), chip);
      if (!problem.empty()) {
        report(binary, "code object " + problem);
        continue;
      }
      gpu::KernelTableAttr kernels = object.getKernels();
      if (!kernels || kernels.empty()) {
        report(binary, "code object has no kernel table");
        continue;
      }
      if (allowScratch)
        continue;
      for (gpu::KernelMetadataAttr kernel : kernels) {
        auto metadataInt = [&](StringRef key) -> int64_t {
          DictionaryAttr md = kernel.getMetadata();
          auto value = md ? md.getAs<IntegerAttr>(key) : IntegerAttr();
          return value ? value.getInt() : 0;
        };
        if (int64_t bytes = metadataInt(kScratchKey))
          report(binary, "kernel '" + kernel.getName().str() + "' uses " +
                             std::to_string(bytes) +
                             " bytes of scratch memory per thread");
        for (StringRef key : kSpillKeys)
          if (int64_t spills = metadataInt(key))
            report(binary, "kernel '" + kernel.getName().str() + "' spills " +
                               std::to_string(spills) + " registers (" +
                               key.str() + ")");
      }
    }
  }

  void checkHost(func::FuncOp func,
                 const DenseMap<StringAttr, gpu::BinaryOp> &binaries) {
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == func.getOperation())
        return WalkResult::advance();
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        checkLaunch(launch, binaries);
        return WalkResult::advance();
      }
      if (isa<func::ReturnOp, gpu::AllocOp, gpu::DeallocOp, arith::ConstantOp,
              memref::ExpandShapeOp, memref::CollapseShapeOp, memref::SubViewOp,
              memref::CastOp, memref::ReinterpretCastOp>(op))
        return WalkResult::advance();
      report(op, "is left in host code; host functions may only launch "
                 "kernels, allocate device buffers and take views");
      return WalkResult::skip();
    });
  }

  void checkLaunch(gpu::LaunchFuncOp launch,
                   const DenseMap<StringAttr, gpu::BinaryOp> &binaries) {
    if (!launch->getAttrOfType<DictionaryAttr>("boo.kernel_abi"))
      report(launch, "has no boo.kernel_abi launch record");
    gpu::BinaryOp binary = binaries.lookup(launch.getKernelModuleName());
    if (!binary) {
      report(launch, "launches a kernel of '" +
                         launch.getKernelModuleName().str() +
                         "', which is not a gpu.binary");
      return;
    }
    StringAttr kernel = launch.getKernelName();
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (object && object.getKernels() && !object.getKernels().lookup(kernel))
        report(launch, "launches '" + kernel.str() + "', which code object '" +
                           binary.getName().str() + "' does not define");
    }
  }

  /// Reports at the op's location without printing the op (a gpu.binary
  /// would print its whole code object).
  void report(Operation *op, const Twine &message) {
    if (numReports++ < kMaxReports)
      mlir::emitError(op->getLoc())
          << "boo-verify-rocdl-contract: '" << op->getName() << "' " << message;
  }

  unsigned numReports = 0;
};

} // namespace
