//===- Passes.td - the SIMT emulator code generator passes ---*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_EMU_PASSES_TD
#define BOO_CODEGEN_EMU_PASSES_TD

include "mlir/Pass/PassBase.td"

def BooEmuLowerKernels : Pass<"boo-emu-lower-kernels", "ModuleOp"> {
  let summary = "Turn gpu.func kernels into host functions for the SIMT "
                "emulator device";
  let description = [{
    Runs on a module after `gpu-kernel-outlining`: the kernels of
    `boo-to-rocdl` (stages 1-4), with `boo-gpu-lower-all-reduce`,
    `convert-linalg-to-loops`, `boo-expand-math` and `lower-affine` applied
    as in stage 5 of that pipeline. Each `gpu.func` kernel `@K` of
    `gpu.module @M` becomes a host function (named `@K` when the module is
    named after its kernel, as outlining does; else `@M__K`)

    ```mlir
    func.func @K(%ctx: !llvm.ptr, %args: !llvm.ptr)
        attributes {boo.emu_kernel, boo.emu_lds_bytes = <bytes> : i64}
    ```

    that ONE work-item runs; the emulator device runs it once per work-item,
    each on its own fiber (docs/Emulator.md). The ABI is
    runtime/include/boo/EmuABI.h: `%args[i]` is the address of argument
    `i`'s value, `%ctx` the work-item's context (an array of 8-byte slots):

    - `gpu.thread_id`, `block_id`, `block_dim`, `grid_dim`, `global_id`,
      `lane_id`, `subgroup_id` and `subgroup_size` read the context's ids
      (the subgroup is the chip's wave);
    - `gpu.barrier` calls the context's `barrier` with the barrier's number;
    - `gpu.shuffle` (32-bit values) calls `shuffle`; `amdgpu.mfma` and
      `amdgpu.wmma` (f16/bf16 inputs, f32 accumulator, one block, no
      broadcast or modifier controls) pass this lane's fragments to `mma`,
      which runs the instruction across the wave with the hardware's lane
      layouts;
    - workgroup attributions (and workgroup-space `memref.alloc`s) become
      views of the workgroup's LDS (the context's `lds`), laid out in
      declaration order at 16-byte alignment; the total is the function's
      `boo.emu_lds_bytes`;
    - with `checks` (the default) every `memref.load`/`store` and
      `vector.load`/`store` is guarded: each index must lie in the accessed
      view and the linear element offset in the buffer the view comes from
      (a kernel argument, an LDS buffer or a private array). Otherwise the
      access is reported through `reportOutOfBounds` and skipped (a load
      gives 0). In-bounds accesses are reported with their site number (the
      kernel's guarded accesses in program order): LDS ones to `ldsAccess`
      (the race detector and the profile), those of kernel arguments to
      `globalAccess` (the profile). Any other operation that reads or
      writes a memref is rejected, so no access goes unchecked;
    - GPU address spaces are dropped; static private `memref.alloca`s move
      to the entry block.

    Host functions that launch kernels are erased: a loader reads the
    launches first (lib/Artifact). Operations without an emulation (another
    GPU op, 64-bit shuffles, other MMA forms) are errors naming the op.
  }];
  let options = [
    Option<"checks", "checks", "bool", /*default=*/"true",
           "Guard every memory access and report LDS accesses to the race "
           "detector (false: plain accesses, to show what the checks catch)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def BooEmuPlantBug : Pass<"boo-emu-plant-bug", "ModuleOp"> {
  let summary = "Test only: plant a known bug in outlined GPU kernels";
  let description = [{
    Proves that the emulator catches the bugs it is meant to catch: the
    planted-bug tests compile a real kernel with one of these bugs and check
    that the emulator reports it (test/Emulator/planted-bugs.test). Runs
    right before `boo-emu-lower-kernels` (after the kernels' linalg ops
    became loops), on outlined `gpu.func` kernels.

    - `missing-barrier`: erases the first `gpu.barrier` of every kernel
      (an LDS race between its writers and readers);
    - `off-by-one`: adds 1 to the last index of every `memref.store` to a
      kernel argument or a view of one (the store of a buffer's last
      element goes out of bounds);
    - `mma-layout`: reverses the items of every MMA's A fragment, as a
      compiler with a wrong lane layout would load them (wrong numbers).
  }];
  let options = [
    Option<"bug", "bug", "std::string", /*default=*/"\"\"",
           "missing-barrier, off-by-one or mma-layout">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // BOO_CODEGEN_EMU_PASSES_TD
