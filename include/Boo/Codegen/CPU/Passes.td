//===- Passes.td - the CPU code generator passes ---*- tablegen -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_CPU_PASSES_TD
#define BOO_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

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

    The copies that prepare a contraction's operands (bf16/f16 inputs
    promoted to f32 once; an input transposed so that the vector loop is
    its contiguous dim, such as a KYXC filter reordered to YXCK) are tiled
    and vectorized the same way after it. A transposing copy gets square
    tiles of up to 2 x `vector-width` along the input's and the output's
    contiguous dims, read and written as whole rows and transposed in
    registers.

    A channels-first depthwise convolution (a plane convolution: each
    output plane is one image plane convolved with one filter plane) is
    instead computed in its own layout (`plane-convs`): one `scf.forall`
    iteration per output plane, one `scf.for` iteration per output row,
    vectorized along the row, reading the image unpadded (window rows
    outside it skipped, columns outside it zero lanes), with no transposed
    copies. A channels-last one with short output rows (at most 16
    positions; 17 to 32 in pieces, for images smaller than
    `peel-min-input-bytes`) is computed directly (`depthwise-rows`): one
    `scf.forall` iteration per register of channels, one `scf.for`
    iteration per output row with the row's positions in registers, each image column read once
    per window row, window rows and columns outside the image skipped.

    A contraction whose two inputs both read its reduction innermost (an
    NHWC or NCHW 1x1 convolution's image and filter, a product with B
    stored [N][K]), shared by at most `dot-max-rows` output positions per
    output channel and with a filter smaller than `pack-min-bytes`, is
    computed as register tiles of dot products along the reduction
    (`dot-max-rows`): one `scf.forall` iteration per tile of output
    channels, the filter read in place, each tile's partial sums added
    across lanes by shuffles at its end. The general schedule would copy
    the filter transposed first, which costs more than it saves where few
    positions read it (ResNet-50's and MobileNetV2's 7x7 layers).

    Row reductions (a layer norm's statistics) come first. Each chain of
    generics that reads them, with the element-wise result that closes it,
    is computed one tile of rows at a time (one `scf.forall` over row tiles,
    sized by `row-chain-bytes`), so the passes over a row after the first
    read it from cache; and each reduction along contiguous rows is split
    into partial sums along the rows (`linalg::splitReduction`), which
    vectorize, and their combination. Sums over all the rows of what a
    chain reads (a layer norm backward's weight and bias gradients) are
    computed in the chain's pass, as partial sums per chunk of rows.
  }];
  let options =
      [Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"8",
              "f32 lanes of one vector register; the innermost parallel "
              "tile spans up to 4 registers">,
       Option<"rowTile", "row-tile", "int64_t", /*default=*/"8",
              "Target extent of the second parallel (register-row) tile">,
       Option<"reductionTile", "reduction-tile", "int64_t", /*default=*/"16",
              "Target extent of the innermost reduction tile">,
       Option<"accumulatorLanes", "accumulator-lanes", "int64_t",
              /*default=*/"384",
              "The most f32 lanes a contraction's register tile of "
              "accumulators may hold (its rows times its vector tile); a "
              "larger tile is shrunk to fit. Plane convolutions' carried "
              "taps take at most half of it, their shifted sums two "
              "thirds, a stem's block of rows all of it (0: no limit; "
              "384: three quarters of AVX-512's registers)">,
       Option<"vectorize", "vectorize", "bool", /*default=*/"true",
              "Vectorize the tiles (false: tile only, for debugging)">,
       Option<"peelFilterBytes", "peel-filter-bytes", "int64_t",
              /*default=*/"65536",
              "A convolution of a zero-padded input whose other inputs (the "
              "filter) are at most this many bytes is split into an interior "
              "that reads the unpadded input and border pieces that read small "
              "padded copies (0: never)">,
       Option<"peelMinInputBytes", "peel-min-input-bytes", "int64_t",
              /*default=*/"1048576",
              "Only padded inputs of at least this many bytes (bf16 and "
              "f16 ones counted as the f32 they are promoted to) are "
              "peeled: "
              "below, the border pieces' extra parallel loops cost more than "
              "the padded copy (at 2 threads, MobileNetV2's 7x7x960 "
              "depthwise layer took 0.090 ms peeled against 0.027 ms). "
              "Strided convolutions with fewer than 16 multiply-adds per "
              "padded input element (stride-2 depthwise ones) are peeled "
              "at any size">,
       Option<"planeConvs", "plane-convs", "bool", /*default=*/"true",
              "Compute channels-first depthwise convolutions (plane "
              "convolutions) and channels-first convolutions with at most 4 "
              "input channels (stems) in their own layout, one output row "
              "at a time, vectorized along the row, instead of repacking "
              "them to channels-last">,
       Option<"depthwiseRows", "depthwise-rows", "bool", /*default=*/"true",
              "Compute channels-last depthwise convolutions with output rows "
              "of at most 16 positions (32 for images smaller than "
              "peel-min-input-bytes) directly, one output row at a time, "
              "vectorized along the channels, without padded copies or "
              "peeled borders">,
       Option<"dotMaxRows", "dot-max-rows", "int64_t", /*default=*/"64",
              "A contraction whose two inputs both have its reduction "
              "innermost (an NHWC 1x1 convolution's image and filter), "
              "whose output's innermost loop indexes one of them, and "
              "whose columns are each shared by at most this many output "
              "positions, is computed as register tiles of dot products "
              "along the reduction, with no transposed copy of that input "
              "(0: never)">,
       Option<"registerLanes", "register-lanes", "int64_t",
              /*default=*/"16",
              "f32 lanes of one of the host's vector registers (the dot "
              "products' registers; accumulator-lanes is three quarters of "
              "all of them, and dot products need it positive)">,
       Option<"clipPaddedWindows", "clip-padded-windows", "bool",
              /*default=*/"true",
              "Skip the iterations of a tiled convolution's window loops "
              "that read only the zero padding of its input (a 3x3 "
              "convolution's top and bottom output rows read 2 of their 3 "
              "window rows), and the positions of a tile that read it (an "
              "scf.index_switch of contractions over fewer positions)">,
       Option<"overlapMergedTails", "overlap-merged-tails", "bool",
              /*default=*/"true",
              "A channels-first 1x1 convolution's merged positions that are "
              "no multiple of 4 x vector-width (14x14: 196; 28x28: 784) are "
              "computed as their leading multiple and a last tile, "
              "overlapping where fewer positions are left, reading the image "
              "in place (false: padded with zeros to a multiple of 2 x "
              "vector-width, the image and the result copied)">,
       Option<"splitVectorLoops", "split-vector-loops", "bool",
              /*default=*/"true",
              "A contraction whose vector loop has an extent above 2 x "
              "vector-width that is a multiple of vector-width but not of "
              "twice it (24 output channels) is computed in two overlapping "
              "pieces of 2 x vector-width lanes (0-15 and 8-23), not in "
              "tiles of vector-width lanes">,
       Option<"splitRowLoops", "split-row-loops", "bool",
              /*default=*/"true",
              "A contraction whose register tile, shrunk to "
              "accumulator-lanes, would take rows that do not divide its "
              "row loop (6 rows of 16 lanes with accumulator-lanes=96, for "
              "512 output channels) and that reads no operand copy is "
              "computed in two pieces, over the leading multiple of those "
              "rows and over the last of them (overlapping), not in tiles "
              "of fewer rows">,
       Option<"packMinBytes", "pack-min-bytes", "int64_t",
              /*default=*/"1048576",
              "A contraction's operand copy (a reordered filter) of at least "
              "this many bytes, whose blocks are each read by several tiles, "
              "is packed one block at a time in the iteration of the "
              "contraction's forall that reads it (0: never)">,
       Option<"l2CacheBytes", "l2-cache-bytes", "int64_t",
              /*default=*/"1048576",
              "Bytes of the L2 cache per core: a contraction whose row tiles "
              "would each read again an input larger than half of this, in "
              "place, visits its vector tiles first where the input its row "
              "tiles read fits in half of it (CPUTileOrder.h)">,
       Option<"rowChainBytes", "row-chain-bytes", "int64_t",
              /*default=*/"16384",
              "Bytes of the full-rank operands of a row chain's root (a "
              "layer norm's input and output rows) per tile of rows: the rows "
              "should stay in the L1 data cache between the passes over them">,
       Option<"streamMinBytes", "stream-min-bytes", "int64_t",
              /*default=*/"0",
              "A row chain whose root's result has at least this many bytes "
              "(a layer norm's y larger than the caches) is marked "
              "`boo.stream_stores`, for boo-cpu-stream-stores to write that "
              "result past the caches (0: never)">];
  let dependentDialects = [
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::affine::AffineDialect"
  ];
}

def BooCPUStreamStores : Pass<"boo-cpu-stream-stores", "func::FuncOp"> {
  let summary = "Write the results of loops marked boo.stream_stores past "
                "the caches (non-temporal stores)";
  let description = [{
    `boo-cpu-tile-and-vectorize` marks the `scf.forall` of a row chain whose
    result is larger than its `stream-min-bytes` with `boo.stream_stores`:
    a layer norm's `y` larger than the caches, written once and not read
    again by the function. An ordinary store reads each line of `y` before
    writing it; a memcpy does not. In a marked loop, after bufferization,
    each `vector.transfer_write` of whole 64-byte lines (in bounds, unmasked,
    contiguous) into a view of a function argument becomes

    ```mlir
    scf.if %aligned {   // its address is a multiple of 64 at run time
      vector.store %v, %dest[...] {alignment = 64, nontemporal = true}
    } else {
      vector.transfer_write %v, %dest[...]   // as before
    }
    ```

    The caller's buffers need not be aligned, and a non-temporal store to
    an unaligned address faults on x86. Each iteration of a loop with
    streamed stores ends with x86's `sfence`, so that they are visible to
    the thread that waits for the loop: non-temporal stores are not
    ordered with the others. The pipeline enables the marks on x86-64
    hosts only. The mark is removed.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def BooCPUPrefixStores : Pass<"boo-cpu-prefix-stores", "func::FuncOp"> {
  let summary = "Write the tails of rows as shorter unmasked stores, not "
                "masked ones";
  let description = [{
    Runs after `convert-vector-to-scf` (1-D transfers only). A 1-D
    `vector.transfer_write` of `n` lanes, without a mask operand, along the
    innermost dim of a memref, out of bounds, whose dim size `D` and index
    `i` are constants with `0 < D - i < n` (the masked tail of an output
    row: 7 columns written from 8 lanes) becomes an in-bounds write of its
    first `D - i` lanes:

    ```mlir
    %t = vector.extract_strided_slice %v
        {offsets = [0], sizes = [7], strides = [1]}
        : vector<8xf32> to vector<7xf32>
    vector.transfer_write %t, %m[%r, %c0] {in_bounds = [true]}
        : vector<7xf32>, memref<7x7xf32, strided<[7, 1], offset: ?>>
    ```

    `convert-vector-to-llvm` would make it a masked store. Without
    AVX-512, x86's masked store (`vmaskmovps`) is microcoded on AMD's
    cores (tens of micro-ops); LLVM splits the shorter store into plain
    ones instead (4 + 2 + 1 lanes). With AVX-512 a masked store is one
    instruction: the pipeline keeps them there.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def BooCPULowerVectors : Pass<"boo-cpu-lower-vectors", "func::FuncOp"> {
  let summary = "Lower n-D vector ops to the forms convert-vector-to-llvm "
                "handles (CPU)";
  let description = [{
    Runs after bufferization: contractions become outer products (FMAs),
    multi-reductions become chains of element-wise ops over the parallel
    dim, 16x16 f32 transposes become the 8 stages of shuffles of the
    upstream `shuffle_16x16` lowering (the tiles of transposing copies,
    see `boo-cpu-tile-and-vectorize`), other transposes, broadcasts and
    shape casts are unrolled, transfer ops with permutation maps become
    minor-identity transfers, and in-bounds 1-D reads along a dim that is
    not the innermost (strided lanes: 16 channels of a KYX1 filter, 9
    floats apart) become one `memref.load` per lane, where
    `convert-vector-to-scf` would loop over the lanes.

    First of all, transposes of 16-bit floats (bf16, f16) move their bits
    as i16 (an `arith.bitcast` on each side): x86 has no shuffles of bf16
    vectors, and LLVM's instruction selection aborted on those of a bf16
    NCHW to NHWC copy.

    Then, transfers whose innermost dim is at most 128 bits wide are
    flattened into one 1-D transfer where the memref is contiguous over
    their dims (upstream's `populateFlattenVectorTransferPatterns`): a
    16x3x3 tile of a KCYX weight gradient is written as 144 lanes (9
    stores of 16 on x86) rather than 48 rows of 3 (two stores each).
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def BooCPULowerStridedCopies : Pass<"boo-cpu-lower-strided-copies", "func::FuncOp"> {
  let summary = "Rewrite strided memref.copy ops as vector transfers or "
                "linalg.copy (CPU)";
  let description = [{
    `finalize-memref-to-llvm` lowers a `memref.copy` between contiguous
    memrefs to the `llvm.memcpy` intrinsic, and any other one to a call to
    `memrefCopy` from MLIR's C runner utils, a library the runtime that
    loads Boo's code objects does not have. This pass rewrites those
    copies (either side non-contiguous):

    - a copy of a static shape of at most 4096 elements of 32 or 64 bits
      whose innermost dim is contiguous on both sides (the tile copies bufferization
      leaves, such as a tile of a padded input's interior) becomes one
      `vector.transfer_read` and `vector.transfer_write` of the whole
      shape, which `convert-vector-to-scf=full-unroll` unrolls into row
      loads and stores;
    - any other becomes a `linalg.copy`, which `convert-linalg-to-loops`
      lowers to plain loops.

    Contiguous copies stay `memref.copy` (a memcpy).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::vector::VectorDialect"];
}

def BooCPUStackTemporaries : Pass<"boo-cpu-stack-temporaries",
                                  "func::FuncOp"> {
  let summary = "Put the small temporaries of parallel-loop bodies on the "
                "stack, freed at the end of each iteration (CPU)";
  let description = [{
    After bufferization, a temporary made inside a tile (an `scf.forall`
    body: the partial sums of a row chain's rows) is a `memref.alloc` that
    the buffer-deallocation pipeline leaves without a `memref.dealloc`
    (it does not handle `scf.forall`), so each call would leak one block
    per tile, and a heap allocation per tile costs more than the tile.
    Each such allocation, of a static shape of at most `max-bytes`
    directly in the body and never deallocated, becomes a `memref.alloca`,
    and the body of each `scf.forall` that holds one saves the stack
    pointer at its start and restores it at its end (`llvm.intr.stacksave`
    and `llvm.intr.stackrestore`, what `memref.alloca_scope` lowers to; a
    scope must hold one block, which a tile's body with loops is not after
    `convert-scf-to-cf`), so each iteration releases its temporaries, on
    whichever thread runs it. A static allocation directly in the body
    that is larger than `max-bytes` (a block of a filter packed per
    iteration) stays on the heap and is freed at the end of the
    iteration: the runtime's allocation cache hands the same block back to
    the next one. Any other allocation (dynamic, nested in another loop)
    is an error: it would leak.

    ```mlir
    scf.forall (%i) in (64) {
      %t = memref.alloc() : memref<2x32xf32>
      ...
    }
    // becomes
    scf.forall (%i) in (64) {
      %sp = llvm.intr.stacksave : !llvm.ptr
      %t = memref.alloca() : memref<2x32xf32>
      ...
      llvm.intr.stackrestore %sp : !llvm.ptr
    }
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", /*default=*/"65536",
           "Largest temporary, in bytes, put on the stack">
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def BooCPUHookAllocations : Pass<"boo-cpu-hook-allocations", "ModuleOp"> {
  let summary = "Define the allocation functions of finalize-memref-to-llvm's "
                "use-generic-functions, calling through the __boo_alloc and "
                "__boo_free hooks (CPU)";
  let description = [{
    Implements the allocation half of the CPU code-object ABI
    (docs/ModuleFormat.md). `finalize-memref-to-llvm` with
    `use-generic-functions=true` lowers `memref.alloc` and `memref.dealloc`
    to calls of `@_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr` and
    `@_mlir_memref_to_llvm_free(!llvm.ptr)`. This pass, which must run
    before it, defines both in the module (internal linkage, so that no
    other definition in the process can take their place), with two
    external zero-initialized pointer globals, `@__boo_alloc` and
    `@__boo_free`:

    ```mlir
    llvm.mlir.global external @__boo_alloc() : !llvm.ptr
    llvm.func internal @_mlir_memref_to_llvm_alloc(%size: i64) -> !llvm.ptr {
      %hook = llvm.load (llvm.mlir.addressof @__boo_alloc) : !llvm.ptr
      // %hook == null ? malloc(%size) : %hook(%size)
    }
    ```

    A loader that sets both (the runtime's cpu device does) serves the
    compiled code's temporaries from its own allocator: the runtime keeps
    freed blocks for the next call, where `malloc` of a large block maps
    fresh pages, and every first touch of a page faults. Unset, the code
    calls `malloc` and `free`. A module that has them already is left
    unchanged.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
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
           "Outline only foralls whose estimated work (element operations "
           "executed: a vector op counts its elements; static inner loop "
           "trip counts are counted) reaches this; smaller "
           "ones stay sequential loops, since waking threads would cost "
           "more than they save">
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect", "::mlir::func::FuncDialect",
    "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"
  ];
}

#endif // BOO_CODEGEN_CPU_PASSES_TD
