//===- Passes.td - passes shared by the code generators passes ---*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_COMMON_PASSES_TD
#define BOO_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def BooSetTarget : Pass<"boo-set-target", "ModuleOp"> {
  let summary = "Record the target chip on the module as #boo.target";
  let description = [{
    The one place a GPU compilation chooses its chip: sets `boo.target =
    #boo.target<chip = "...">` on the module. Every pass after it
    (`boo-select-lowering-config`, `boo-gpu-*`, `boo-emu-lower-kernels`,
    `boo-verify-rocdl-contract`) reads the chip from there and has no chip
    option of its own. The `boo-to-rocdl` and `boo-to-emu` pipelines run it
    first with their `chip` option.

    A module that already has a `#boo.target` keeps it when `chip` is empty
    or names the same chip; a different chip is an error (the module was
    prepared for another target). An unsupported chip, or no chip at all, is
    an error.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Target chip (see docs/Targets.md for the supported list); "
           "empty: keep the module's #boo.target">
  ];
  let dependentDialects = ["::mlir::boo::BooDialect"];
}

def BooSelectLoweringConfig : Pass<"boo-select-lowering-config",
                                   "ModuleOp"> {
  let summary = "Attach a #boo.lowering_config to every kernel (tuning spec "
                "or heuristic)";
  let description = [{
    Gives every kernel (each `boo.fusion`, and each anchor or element-wise
    op outside one) a `#boo.lowering_config` for the module's
    `#boo.target` (see `boo-set-target`). Per kernel, the
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
    Option<"tuningSpec", "tuning-spec", "std::string", /*default=*/"\"\"",
           "Path of a tuning spec; empty: BOO_TUNING_SPEC_PATH or the "
           "embedded default">,
    Option<"printSignatures", "print-signatures", "bool", /*default=*/"false",
           "Emit a remark at each kernel with its problem signature (what "
           "transform.boo.match.problem matches) and its config's source">,
    Option<"shrinkTiles", "shrink-tiles", "int64_t", /*default=*/"0",
           "Halve the heuristic's register tiles this many times (MMA: the "
           "accumulators per subgroup and the K tile; FMA: the outputs per "
           "thread): the compile's fallback when a kernel does not fit the "
           "registers. Configs from a tuning spec are not changed.">
  ];
  let dependentDialects = ["::mlir::boo::BooDialect",
                           "::mlir::transform::TransformDialect"];
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

def BooFuseElementwise : Pass<"boo-fuse-elementwise"> {
  let summary = "Fuse element-wise linalg.generics into their consumers, "
                "gathers excepted";
  let description = [{
    Upstream's `linalg-fuse-elementwise-ops` (its patterns, reshape folding
    by expansion and canonicalizations, each producer fused only into its
    one user), except for gathers: a producer that reads an operand
    through an index mixing several of its loops (`boo.as_strided`'s linear
    storage index, `d0 * 600 + d1`) stays a kernel of its own. Fused into a
    product, such a read makes the product read that operand element by
    element through the linear index: the CPU packing and the GPU's MMA
    staging need the operand's own dims. Kept apart, the gather is one
    copy and the product reads a dense operand.

    A reversal (`n - 1 - d`, the filter of a backward-data convolution)
    or a broadcast reads each dim through one loop and still fuses.
  }];
  let options = [
    Option<"fuseGathers", "fuse-gathers", "bool", /*default=*/"false",
           "Fuse gathers too (upstream's behaviour, for comparison)">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

def BooForwardResultReshapes : Pass<"boo-forward-result-reshapes",
                                     "func::FuncOp"> {
  let summary = "Compute a result returned through a reshape directly in "
                "its out-param";
  let description = [{
    Runs after `buffer-results-to-out-params`. A result computed in a local
    buffer and returned through a reshape (a depthwise convolution's
    `1x28x28x192x1` accumulator, returned as `1x28x28x192`) is left as a
    copy into the out-param:

    ```mlir
    %a = memref.alloc() : memref<1x28x28x192x1xf32>
    ...                                  // writes %a
    %c = memref.collapse_shape %a [[0], [1], [2], [3, 4]] : ...
    memref.copy %c, %out : memref<1x28x28x192xf32> to memref<1x28x28x192xf32>
    ```

    When `%out` is an argument of the function used by that copy only,
    `%a` is an identity-layout `memref.alloc` in the same block, and every
    other use of `%a` comes before the copy, `%a` is replaced by the
    inverse reshape of `%out` (here `memref.expand_shape %out`) and the
    copy is erased: the result is written where the caller wants it, and
    a pass over the whole result is saved. `expand_shape` results are
    handled the same way.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def BooStoreIntegerBits : Pass<"boo-store-integer-bits", "ModuleOp"> {
  let summary = "Store the integer bits a float vector was bitcast from "
                "(LLVM dialect)";
  let description = [{
    Runs on the LLVM dialect, after the conversion and its last
    canonicalization (which forwards unrolled vectors to their stores),
    and erases the bitcasts it leaves unused. A bf16 result is
    rounded by `arith-expand` in integers (a select of the NaN pattern or
    the rounded bits, in i16) and bitcast to bf16 to be stored. LLVM's
    InstCombine moves the bitcast before the select, and x86 without
    AVX512-BF16 scalarizes a select of bf16 vectors: every element of a
    bf16 convolution's result became a compare and a conditional move
    (a 56x56x144 rounding took 0.42-0.63 ms on `cpu:1`, an AVX2 Zen 3,
    where its 1.8 MB of f32 are read in 0.045 ms). Each `llvm.store` and
    `llvm.intr.masked.store` of a floating-point vector made by
    `llvm.bitcast` from an integer vector of the same width stores the
    integer vector instead (the same bytes):

    ```mlir
    %b = llvm.bitcast %i : vector<16xi16> to vector<16xbf16>
    llvm.store %b, %p : vector<16xbf16>, !llvm.ptr
    // becomes
    llvm.store %i, %p : vector<16xi16>, !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
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

#endif // BOO_CODEGEN_COMMON_PASSES_TD
