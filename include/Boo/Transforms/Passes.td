//===- Passes.td - Boo transformation passes ---------------*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TRANSFORMS_PASSES_TD
#define BOO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def BooFormFusions : Pass<"boo-form-fusions", "func::FuncOp"> {
  let summary = "Group each conv/layer norm with its element-wise epilogue";
  let description = [{
    Wraps every convolution or layer norm (forward or backward) and the chain
    of element-wise Boo ops that consume it into a `boo.fusion`, which later
    becomes exactly one kernel. Starting from the anchor, the chain grows
    while the current value has exactly one use and that use is a
    `boo.activation`, `boo.add` or `boo.mul` whose other operand (if any) is
    defined before the anchor (a bias vector, a residual tensor or a function
    argument). See docs/Fusion.md for what is and is not fused, and why.
  }];
  let dependentDialects = ["::mlir::boo::BooDialect"];
}

def BooConvertToLinalg : Pass<"boo-convert-to-linalg", "ModuleOp"> {
  let summary = "Lower every Boo op to linalg on tensors";
  let description = [{
    Lowers convolutions (forward, backward-data, backward-weight, bias
    gradient), layer norms (forward, backward), element-wise ops and the
    bodies of `boo.fusion` ops to `linalg.generic` ops on tensors whose
    indexing maps are derived from the layouts. Accumulation is in f32; the
    single rounding to the storage type happens in the epilogue. See
    docs/Lowering.md for the exact maps.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

def BooCPUTileAndVectorize : Pass<"boo-cpu-tile-and-vectorize",
                                  "func::FuncOp"> {
  let summary = "Tile linalg ops into register-sized static tiles and "
                "vectorize them (CPU)";
  let description = [{
    For every `linalg.generic` (from `boo-convert-to-linalg`): tiles it so
    that every convolution window loop has extent 1 and the remaining loops
    have register-sized static extents, the parallel loops' tiles with one
    `scf.forall` (the unit of multi-threading, see
    `boo-cpu-outline-parallel`) and the reduction loops' tiles with `scf.for`
    loops inside it; then rewrites the windowed
    (strided) input accesses of the tile into strided `tensor.extract_slice`
    ops so the tile becomes a plain contraction, and vectorizes it. Ops that
    cannot be vectorized are left for the loop lowering.
  }];
  let options = [
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
           "f32 lanes of one vector register; the innermost parallel "
           "tile spans up to 4 registers">,
    Option<"rowTile", "row-tile", "int64_t", /*default=*/"8",
           "Target extent of the second parallel (register-row) tile">,
    Option<"reductionTile", "reduction-tile", "int64_t", /*default=*/"16",
           "Target extent of the innermost reduction tile">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"true",
           "Vectorize the tiles (false: tile only, for debugging)">
  ];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::affine::AffineDialect"
  ];
}

def BooCPULowerVectors : Pass<"boo-cpu-lower-vectors", "func::FuncOp"> {
  let summary = "Lower n-D vector ops to the forms convert-vector-to-llvm "
                "handles (CPU)";
  let description = [{
    Runs after bufferization: contractions become outer products (FMAs),
    multi-reductions become chains of element-wise ops over the parallel
    dim, transposes, broadcasts and shape casts are unrolled, and transfer
    ops with permutation maps become minor-identity transfers.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def BooCPUCopyToLinalg : Pass<"boo-cpu-copy-to-linalg", "func::FuncOp"> {
  let summary = "Rewrite strided memref.copy ops as linalg.copy (CPU)";
  let description = [{
    `finalize-memref-to-llvm` lowers a `memref.copy` between contiguous
    memrefs to the `llvm.memcpy` intrinsic, and any other one to a call to
    `memrefCopy` from MLIR's C runner utils, a library the runtime that
    loads Boo's code objects does not have. This pass rewrites those
    copies (either side non-contiguous) into `linalg.copy`, which
    `convert-linalg-to-loops` then lowers to plain loops; contiguous copies
    stay `memref.copy` (a memcpy).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def BooCPUOutlineParallel : Pass<"boo-cpu-outline-parallel", "ModuleOp"> {
  let summary = "Outline each outermost scf.forall into a body function "
                "called through the __boo_parallel_for hook (CPU)";
  let description = [{
    Runs on bufferized loops (after `convert-vector-to-scf`, before
    `convert-scf-to-cf`) and implements the CPU code-object ABI of
    docs/ModuleFormat.md. Every `scf.forall` of a `func.func` that is not
    nested in another `scf.forall`, and whose estimated work reaches
    `min-work` (smaller loops stay sequential), becomes:

    - a private function `@<func>_parallel_<i>(%ctx: !llvm.ptr, %begin:
      index, %end: index)` that loads the loop's captured values from the
      context struct `%ctx` points to (memrefs as their LLVM descriptors,
      index values as i64, other scalars and vectors as themselves;
      constants are cloned instead) and runs the linearized iterations
      [%begin, %end) of the forall, last dim fastest; nested foralls stay in
      the body and later lower to sequential loops;
    - at the loop's place: stores of the captured values into an
      `llvm.alloca`'d context struct (allocated in the function's entry
      block), then, if the external zero-initialized global
      `@__boo_parallel_for` (created once per module) is non-null, an
      indirect call `dispatch(@body, %ctx, n)` through it, else a direct
      call `@body(%ctx, 0, n)`, where n is the total iteration count.

    ```mlir
    llvm.mlir.global external @__boo_parallel_for() : !llvm.ptr
    func.func @f(%m: memref<8x32xf32>) {
      %ctx = llvm.alloca %c1 x !llvm.struct<(struct<(ptr, ptr, i64,
                                 array<2 x i64>, array<2 x i64>)>)>
      ... llvm.store %desc, %field ...
      %hook = llvm.load (llvm.mlir.addressof @__boo_parallel_for)
      scf.if (%hook != null) {
        llvm.call %hook(%body_ptr, %ctx, %c8_i64)
      } else {
        func.call @f_parallel_0(%ctx, %c0, %c8)
      }
    }
    func.func private @f_parallel_0(%ctx: !llvm.ptr, %begin: index,
                                    %end: index) {
      ... llvm.getelementptr, llvm.load, unrealized_conversion_cast ...
      scf.for %i = %begin to %end step %c1 { <forall body> }
    }
    ```
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "Outline only foralls whose estimated work (operations executed, "
           "counting static inner loop trip counts) reaches this; smaller "
           "ones stay sequential loops, since waking threads would cost "
           "more than they save">
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect",
    "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"
  ];
}

def BooVerifyLLVMContract : Pass<"boo-verify-llvm-contract", "ModuleOp"> {
  let summary = "Fail loudly unless the module is pure LLVM dialect";
  let description = [{
    The contract check that ends the CPU pipeline: every op left in the
    module must belong to the LLVM dialect (besides the module itself).
    Anything else (a Boo, linalg, tensor, memref, vector or unrealized cast op)
    is reported at its location, and the pass fails.
  }];
}

//===----------------------------------------------------------------------===//
// AMD GPU code generation
//===----------------------------------------------------------------------===//

def BooSelectLoweringConfig : Pass<"boo-select-lowering-config",
                                   "ModuleOp"> {
  let summary = "Attach a #boo.lowering_config to every kernel (tuning spec "
                "or heuristic)";
  let description = [{
    Records the target chip on the module (`boo.target = #boo.target<chip =
    "...">`) and gives every kernel (each `boo.fusion`, and each anchor or
    element-wise op outside one) a `#boo.lowering_config`. Per kernel, the
    first of these wins:

    1. a config already on the kernel;
    2. the tuning spec: a transform dialect library whose entry point
       `@__boo_kernel_config` runs `transform.foreach_match` with
       `transform.boo.match.problem` matchers and `transform.annotate`
       actions;
    3. the heuristic, which produces a valid config for any shape (MMA for
       f16/bf16 convolutions with M, N, K >= 16 on chips that have it, FMA
       otherwise).

    The spec comes from `tuning-spec`, else from the file named by the
    BOO_TUNING_SPEC_PATH environment variable, else the default spec
    embedded in the compiler; BOO_TUNING_SPEC_PATH="" (set but empty)
    disables specs. A missing or unparsable spec is an error naming the
    path. Every config, whatever its source, is verified against the kernel
    and the chip; an invalid one is an error at the kernel. See
    docs/TuningSpec.md and docs/Targets.md.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip (see docs/Targets.md for the supported list)">,
    Option<"tuningSpec", "tuning-spec", "std::string", /*default=*/"\"\"",
           "Path of a tuning spec; empty: BOO_TUNING_SPEC_PATH or the "
           "embedded default">,
    Option<"printSignatures", "print-signatures", "bool", /*default=*/"false",
           "Emit a remark at each kernel with its problem signature (what "
           "transform.boo.match.problem matches) and its config's source">
  ];
  let dependentDialects = ["::mlir::boo::BooDialect",
                           "::mlir::transform::TransformDialect"];
}

def BooGPUDistribute : Pass<"boo-gpu-distribute", "ModuleOp"> {
  let summary = "Tile each kernel's root linalg op onto workgroups and "
                "threads (scf.forall) and fuse its producers into the tiles";
  let description = [{
    Runs on linalg on tensors, before bufferization. Every kernel becomes one
    two-level `scf.forall` nest: the outer loop is mapped to workgroups
    (`#gpu.block<linear_dim_*>`), the inner one to threads
    (`#gpu.thread<linear_dim_*>`). A kernel's root is a linalg op whose
    result no other linalg op reads through a fusable map (the epilogue
    generic of a fusion, a standalone op); its producers (fills, the anchor's
    accumulation generic, layer-norm statistics) are fused into the thread
    tile with `scf::tileConsumerAndFuseProducersUsingSCF`, so the epilogue is
    applied in registers before the single store.

    Reads through data-movement producers (`tensor.pad`, the zero-stuffing
    `tensor.insert_slice` of backward data, reshapes, the filter flip) are
    first rewritten into guarded loads in the consumer's body: nothing is
    materialized, and padding costs a compare instead of a copy.

    Tiles follow the `workgroup` and `thread` tiles of the kernel's
    `boo.lowering_config` (FMA configs; on the root or on the accumulation
    generic it reads) when there is one; otherwise a built-in default: one
    output element per thread, `workgroup-size` threads per workgroup,
    spread from the output's innermost dim outwards. Tiles need not divide
    the problem: partial tiles have `affine.min` sizes, and a multi-element
    thread tile that may be partial is walked one element at a time. In
    each thread's accumulation, `out + a * b` becomes `math.fma` and the
    reduction loops move outermost. See docs/GPUPipeline.md.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip, checked against the architecture table">,
    Option<"workgroupSize", "workgroup-size", "int64_t", /*default=*/"256",
           "Threads per workgroup when a kernel has no lowering config">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::memref::MemRefDialect", "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect"
  ];
}

def BooGPULowerMMA : Pass<"boo-gpu-lower-mma", "ModuleOp"> {
  let summary = "Lower subgroup-level MMA tile contractions to amdgpu.mfma "
                "/ amdgpu.wmma with the hardware's per-lane layouts";
  let description = [{
    Rewrites every `linalg.generic` contraction on memrefs that carries a
    `boo.mma = "<intrinsic>"` attribute and whose static M x N x K shape is
    the intrinsic's into per-lane code: each lane loads its fragments of A,
    B and C at the positions the hardware defines for its lane id, issues
    one `amdgpu.mfma` (CDNA) or `amdgpu.wmma` (RDNA) and stores its part of
    D. The whole subgroup must execute the op (it is subgroup-uniform). The
    per-lane layouts are tabulated in docs/MMALayouts.md.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip (decides the intrinsic family and its layouts)">
  ];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect"
  ];
}

def BooExpandMath : Pass<"boo-expand-math"> {
  let summary = "Expand math ops that would need device libraries (erf, "
                "tanh, ...) into polynomial approximations";
  let description = [{
    On AMDGPU, `convert-gpu-to-rocdl` turns most `math` ops into calls to
    `__ocml_*` functions, which only ROCm's device libraries define. Boo
    links no device library, so this pass rewrites every such op into
    arithmetic (upstream `populateMathPolynomialApproximationPatterns` and
    `math::populateExpansionPatterns`): tanh, erf, erfc, atan, atan2, asin,
    acos, log1p, expm1, cbrt, sin, cos, log2 become polynomial
    approximations (f32); tan, sinh, cosh, asinh, acosh, atanh, exp2,
    powf, fpowi, rsqrt, ceil, floor become compositions of native ops.
    `exp`, `log` and `sqrt` (f32) stay: they lower to LLVM intrinsics and
    native instructions. Ops on f16/bf16 are computed in f32. Afterwards,
    any op that would still become a device-library call (including
    `arith.remf`) is an error. Accuracy: see docs/GPUPipeline.md.
  }];
  let dependentDialects = ["::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def BooVerifyROCDLContract : Pass<"boo-verify-rocdl-contract", "ModuleOp"> {
  let summary = "Fail loudly unless every kernel is a serialized gpu.binary "
                "and the host code is what the runtime expects";
  let description = [{
    The contract check that ends `boo-to-rocdl`. The module must hold at
    least one `gpu.binary`, whose objects are HSACO code objects
    (`#gpu.object<#rocdl.target<chip = ...>, bin = ...>`: an AMDGPU ELF
    shared object naming `chip` in its HSA metadata) whose kernel tables
    record no scratch (private segment) use and no VGPR spills (SGPR spills go to VGPR lanes), unless
    `allow-scratch` (the pipeline sets it at opt-level=0). Host functions may only hold `gpu.launch_func` (with the
    `boo.kernel_abi` launch record), `gpu.alloc`/`gpu.dealloc`, memref view
    ops, constants and `func.return`. Anything else (linalg, tensor, Boo,
    scf, unrealized casts, an unserialized `gpu.module`) is reported at its
    location, and the pass fails.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "The chip every code object must be compiled for">,
    Option<"allowScratch", "allow-scratch", "bool", /*default=*/"false",
           "Accept kernels that use scratch memory or spill registers">
  ];
}

def BooGPUMMAKernels : Pass<"boo-gpu-mma-kernels", "ModuleOp"> {
  let summary = "Build the kernels of MMA-configured contractions: an "
                "LDS-staged implicit GEMM on amdgpu.mfma / amdgpu.wmma";
  let description = [{
    Runs after bufferization, on the kernels boo-gpu-distribute left whole:
    a `linalg.generic` accumulation whose `#boo.lowering_config` names an
    MMA intrinsic, the fill of its accumulator and the element-wise epilogue
    generics that read it. They are replaced by one workgroup/thread
    `scf.forall` nest (mapped like boo-gpu-distribute's):

    - a workgroup computes a `workgroup` tile of the config's M and N loops
      (`mma_loops`) for one value of every other parallel loop;
    - each subgroup a `subgroup` tile of it, as a grid of intrinsic tiles
      whose accumulators stay in registers;
    - per step (the other reduction loops, then `reduction` tiles of K) all
      threads stage the A (M x K) and B (N x K) tiles into LDS (in
      `pipeline_depth` buffers: with 2, the next step is staged while the
      current one is computed), each element being the generic's operand
      value at that iteration, its body's reads replayed (padding,
      zero-stuffing and flips included) and 0 outside the problem;
    - fragments are read from LDS at the per-lane positions of the
      intrinsic (docs/MMALayouts.md) and fed to `amdgpu.mfma` /
      `amdgpu.wmma`;
    - each lane's results inside the problem go through the epilogue
      generics' bodies in registers and are stored once.

    Without `promote_operands` the fragments are read from global memory.
    Kernels that do not have this shape are reported, never skipped.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip (decides the intrinsic family and its layouts); "
           "default: the module's #boo.target">
  ];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def BooGPURowReductions : Pass<"boo-gpu-row-reductions", "ModuleOp"> {
  let summary = "Build row-reduction kernels (layer norm): one workgroup "
                "per row, threads sharing the columns, gpu.all_reduce";
  let description = [{
    Runs after bufferization, on the kernels boo-gpu-distribute marked with
    `boo.row_reduction_kernel` and left whole: an element-wise root over
    (rows, columns), the row reductions over the columns it reads, the
    element-wise ops over rows between them and their fills (layer norm
    forward; the input gradient of its backward). They become one
    workgroup/thread `scf.forall` nest: a workgroup per row, a whole number
    of waves (at most 256 threads) per workgroup. Row ops run on scalars in
    every thread; each thread folds a reduction over the columns tid,
    tid + threads, ... and `gpu.all_reduce` combines the partial values;
    column ops compute and store each thread's columns; row results that
    outlive the kernel (mean, rstd) are stored by thread 0. Any column count
    works.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip (its wave size); default: the module's #boo.target">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def BooGPULowerAllReduce : Pass<"boo-gpu-lower-all-reduce",
                                "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower gpu.all_reduce to subgroup shuffles, workgroup "
                "memory and a barrier";
  let description = [{
    Upstream's gpu.all_reduce rewrite (populateGpuAllReducePatterns), as a
    pass over a gpu.module: a shuffle-based reduction in each subgroup, one
    value per subgroup in a workgroup attribution of the kernel, a barrier,
    and a reduction of those values. A gpu.all_reduce left over is an error.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect",
    "::mlir::cf::ControlFlowDialect", "::mlir::memref::MemRefDialect"
  ];
}

def BooGPUForallToLaunch : Pass<"boo-gpu-forall-to-launch", "ModuleOp"> {
  let summary = "Turn the bufferized workgroup/thread scf.forall nests into "
                "gpu.launch ops";
  let description = [{
    Runs after bufferization. Each workgroup-mapped `scf.forall` becomes one
    `gpu.launch`: the workgroup loop's iterations are linearized onto the
    grid's x dim, the thread loops' onto the workgroup's threads; thread
    loops with fewer iterations than threads (partial tiles) are guarded.
    Private temporaries inside a kernel become `memref.alloca` of their
    static upper bound (registers after LLVM's SROA), host temporaries
    become `gpu.alloc`/`gpu.dealloc`, and host-side copies left by
    bufferization are elided or become copy kernels. Memref view ops are
    sunk into the kernels so that every kernel argument is a whole buffer
    (the kernel ABI of docs/GPUPipeline.md).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect"
  ];
}

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

def BooGPULimitUnroll : Pass<"boo-gpu-limit-unroll"> {
  let summary = "Keep LLVM from fully unrolling large loop nests in kernels";
  let description = [{
    LLVM's AMDGPU backend fully unrolls loops with static trip counts very
    eagerly. A thread's whole reduction (a backward-weight kernel sums over
    batch and output positions: hundreds of iterations) then becomes
    straight-line code whose independent loads are all hoisted, and the
    kernel needs hundreds of VGPRs or spills. This pass annotates every
    `scf.for` whose nest would unroll to more than `max-unrolled-iterations`
    iterations with `llvm.loop_annotation<unroll = <disable = true>>` (the
    annotation reaches the LLVM loop metadata through the latch branch).
    Small inner loops, such as a thread's register tile, still unroll fully,
    which keeps their accumulators in registers.
  }];
  let options = [
    Option<"maxUnrolledIterations", "max-unrolled-iterations", "int64_t",
           /*default=*/"64",
           "Largest product of trip counts a loop nest may be unrolled to">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

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
      gives 0). In-bounds LDS accesses are reported to `ldsAccess` (the race
      detector). Any other operation that reads or writes a memref is
      rejected, so no access goes unchecked;
    - GPU address spaces are dropped; static private `memref.alloca`s move
      to the entry block.

    Host functions that launch kernels are erased: a loader reads the
    launches first (lib/Artifact). Operations without an emulation (another
    GPU op, 64-bit shuffles, other MMA forms) are errors naming the op.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Emulated chip (its wave size is the subgroup size)">,
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

#endif // BOO_TRANSFORMS_PASSES_TD
