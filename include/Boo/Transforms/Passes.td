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
    For every `linalg.generic` (from `boo-convert-to-linalg`): tiles it with
    `scf.for` so that every convolution window loop has extent 1 and the
    remaining loops have register-sized static extents, rewrites the windowed
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
    Records the target chip on the module and gives every kernel (each
    boo.fusion and each anchor op outside one) a verified
    `#boo.lowering_config`: from the first tuning-spec rule that matches the
    kernel's problem, else from the documented heuristic, which produces a
    valid config for any shape. The spec comes from `tuning-spec`, else from
    the BOO_TUNING_SPEC_PATH environment variable, else the default spec
    embedded in the compiler; BOO_TUNING_SPEC_PATH="" disables specs. See
    docs/TuningSpec.md.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target chip (see docs/Targets.md for the supported list)">,
    Option<"tuningSpec", "tuning-spec", "std::string", /*default=*/"\"\"",
           "Path of a tuning spec; empty: BOO_TUNING_SPEC_PATH or the "
           "embedded default">
  ];
  let dependentDialects = ["::mlir::boo::BooDialect",
                           "::mlir::transform::TransformDialect"];
}

def BooGPUDistribute : Pass<"boo-gpu-distribute", "ModuleOp"> {
  let summary = "Map each kernel's linalg ops onto workgroups and threads "
                "(gpu.launch) as its lowering config says";
  let description = [{
    One gpu.launch per kernel (a boo.fusion is one kernel): the kernel's
    root linalg op is tiled onto workgroups and threads following its
    `#boo.lowering_config`, producers (fills, pads, the anchor of a fusion)
    are fused into the tiles so the epilogue is applied before the single
    store.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect", "::mlir::affine::AffineDialect"
  ];
}

def BooExpandMath : Pass<"boo-expand-math", "ModuleOp"> {
  let summary = "Expand math ops that would need device libraries (erf, "
                "tanh, ...) into polynomial approximations";
  let dependentDialects = ["::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def BooVerifyROCDLContract : Pass<"boo-verify-rocdl-contract", "ModuleOp"> {
  let summary = "Fail loudly unless every kernel is a serialized gpu.binary "
                "and the host code is what the runtime expects";
}

#endif // BOO_TRANSFORMS_PASSES_TD
