//===- Passes.td - ROCDL serialization and contract passes ---*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TARGET_ROCDL_PASSES_TD
#define BOO_TARGET_ROCDL_PASSES_TD

include "mlir/Pass/PassBase.td"

def BooROCDLSerialize : Pass<"boo-rocdl-serialize", "ModuleOp"> {
  let summary = "Compile every ROCDL gpu.module to an HSACO code object "
                "(gpu.binary) without a ROCm installation";
  let description = [{
    For each `gpu.module` with a `#rocdl.target`: translates it to LLVM IR,
    optimizes and compiles it with LLVM's AMDGPU backend to ISA, assembles
    the ISA in-process, and links the object into a code object with
    `ld.lld -shared` (the `lld` option; by default LLVM's own ld.lld, found
    at build time). The `gpu.module` is replaced by a `gpu.binary` with one
    `#gpu.object` holding the HSACO and its kernel table (`amdhsa.kernels`
    metadata: register counts, scratch, spills), and every launch of it gets
    its `boo.kernel_abi` record (arguments, grid, workgroup, LDS bytes; see
    docs/GPUPipeline.md). No ROCm toolkit or device library is used.
  }];
  let options = [
    Option<"lld", "lld", "std::string", /*default=*/"\"\"",
           "Path of ld.lld (empty: the one LLVM was installed with)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def BooVerifyROCDLContract : Pass<"boo-verify-rocdl-contract", "ModuleOp"> {
  let summary = "Fail loudly unless every kernel is a serialized gpu.binary "
                "and the host code is what the runtime expects";
  let description = [{
    The contract check that ends `boo-to-rocdl`. The module must hold at
    least one `gpu.binary`, whose objects are HSACO code objects
    (`#gpu.object<#rocdl.target<chip = ...>, bin = ...>`: an AMDGPU ELF
    shared object naming the module's `#boo.target` chip in its HSA metadata) whose kernel tables
    record no scratch (private segment) use and no VGPR spills (SGPR spills go to VGPR lanes), unless
    `allow-scratch` (the pipeline sets it at opt-level=0). Host functions may only hold `gpu.launch_func` (with the
    `boo.kernel_abi` launch record), `gpu.alloc`/`gpu.dealloc`, memref view
    ops, constants and `func.return`. Anything else (linalg, tensor, Boo,
    scf, unrealized casts, an unserialized `gpu.module`) is reported at its
    location, and the pass fails.
  }];
  let options = [
    Option<"allowScratch", "allow-scratch", "bool", /*default=*/"false",
           "Accept kernels that use scratch memory or spill registers">
  ];
}

#endif // BOO_TARGET_ROCDL_PASSES_TD
