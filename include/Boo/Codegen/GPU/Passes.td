//===- Passes.td - the GPU (ROCDL) code generator passes ---*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_GPU_PASSES_TD
#define BOO_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect", "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect", "::mlir::vector::VectorDialect",
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect"
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
    every thread; each thread folds a reduction over its chunks of columns
    tid, tid + threads, ... and `gpu.all_reduce` combines the partial
    values; column ops compute and store each thread's columns; row results
    that outlive the kernel (mean, rstd) are stored by thread 0. A chunk is
    16 bytes of the narrowest element read or written by column (8 bf16
    columns) when the innermost column dim divides, else fewer (down to
    one column): operands contiguous along the innermost column are read
    and written one `vector.load`/`vector.store` per chunk (wide loads).
    Any column count works.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}

def BooGPUVectorizeThreadTiles : Pass<"boo-gpu-vectorize-thread-tiles"> {
  let summary = "Compute each thread's tile of an FMA or element-wise "
                "kernel as vectors along its output's contiguous loop";
  let description = [{
    Runs after bufferization, on the linalg.generic ops inside thread-mapped
    `scf.forall` loops (the per-thread work of the kernels
    boo-gpu-distribute tiled: direct convolutions, element-wise ops). Where
    a thread's output tile is a row of 2 to `max-width` consecutive
    elements of a contiguous buffer row (a thread tile along NHWC
    channels), the generic becomes `scf.for` loops over its other loops,
    in its loop order, around its body replayed on vectors along that row
    (VectorReplay.cpp): a read of consecutive elements is one
    `vector.load`, a read that does not depend on the row is one scalar
    load, broadcast, a strided read is one scalar load per element, and
    the result is one `vector.store`. Guards that do not depend on the row
    stay scalar. A generic whose body cannot be replayed so (a stride-phase
    test on the row's index) is left for `convert-linalg-to-loops`. Every
    element is computed by the same operations in the same order as
    before, so results are unchanged bit for bit.
  }];
  let options = [
    Option<"maxWidth", "max-width", "int64_t", /*default=*/"16",
           "Most elements in one vector">
  ];
  let dependentDialects = [
    "::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect",
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
    which keeps their accumulators in registers. Outside kernels that use
    the matrix cores (whose tiles their configs size), a vector op counts
    as its elements, so a thread tile of vectors unrolls as far as the same
    tile of scalars did. A loop whose body holds a
    `gpu.barrier` (the step loop of an LDS-staged MMA kernel) is never
    unrolled: unrolled, every step's global loads are hoisted above the
    barriers before them and live at once (a gfx1100 backward-data kernel
    spilled 208 VGPRs that way).
  }];
  let options = [
    Option<"maxUnrolledIterations", "max-unrolled-iterations", "int64_t",
           /*default=*/"64",
           "Largest product of trip counts a loop nest may be unrolled to">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def BooGPUCountOps : Pass<"boo-gpu-count-ops", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Record how much each thread of a kernel executes, for the "
                "performance estimate";
  let description = [{
    Walks each kernel (`gpu.func`) of the module, still in structured loops
    (after `boo-gpu-limit-unroll`), and counts what one thread executes:
    each op is weighted by the trip counts of the `scf.for` loops around it
    (static bounds; a dynamic one counts once and marks the counts
    approximate), and of an `scf.if` the larger branch counts (so guarded
    work counts as executed: an upper bound). The counts are attached to
    the kernel as `boo.op_counts`, a dictionary of i64:

    | key | what one thread executes |
    |---|---|
    | `global_loads`, `global_load_bytes` | loads from global memory (`memref.load`, `vector.load`), and their bytes |
    | `global_stores`, `global_store_bytes` | stores to global memory |
    | `lds_reads`, `lds_read_bytes`, `lds_writes`, `lds_write_bytes` | the same on workgroup memory (LDS) |
    | `mma`, `mma_flops` | `amdgpu.mfma`/`amdgpu.wmma` ops, and 2·m·n·k for each: the wave's FLOPs per instruction |
    | `barriers` | `gpu.barrier` |
    | `ops` | every other op (a proxy for ALU instructions) |
    | `approximate` | 1 if a loop had dynamic bounds |

    Private (per-thread) memory is not counted: it becomes registers.
    `boo-rocdl-serialize` copies the dictionary into the kernel's metadata,
    where the performance estimate reads it (docs/PerfModel.md).
  }];
  let dependentDialects = [];
}

#endif // BOO_CODEGEN_GPU_PASSES_TD
