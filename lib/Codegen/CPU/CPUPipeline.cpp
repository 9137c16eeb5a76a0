//===- CPUPipeline.cpp - The boo-to-llvm-cpu pipeline ---------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Codegen/CPU/Passes.h"
#include "Boo/Codegen/CPU/Pipelines.h"
#include "Boo/Codegen/Common/PipelineStages.h"
#include "Boo/Dialect/Boo/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <unistd.h>

using namespace mlir;

namespace {
/// Whether the host's masked vector stores cost much more than plain ones:
/// AVX2's vmaskmovps is microcoded on AMD's cores (tens of micro-ops), and
/// NEON has none (LLVM stores lane by lane, behind branches). AVX-512's
/// are one instruction. The host's AVX-512 is read from its register file
/// (getHostVectorRegisterLanes), which the kernel cache key names.
bool hostMaskedStoresAreSlow() {
  llvm::Triple triple(llvm::sys::getProcessTriple());
  if (triple.isAArch64())
    return true;
  return triple.getArch() == llvm::Triple::x86_64 &&
         boo::getHostVectorRegisterLanes() < 32 * 16;
}
} // namespace

void mlir::boo::buildCPUPipeline(OpPassManager &pm,
                                 const CPUPipelineOptions &options) {
  // 1. Boo to linalg on tensors; element-wise epilogue generics fuse.
  //    boo-opt --boo-form-fusions --boo-convert-to-linalg
  //            --linalg-generalize-named-ops --canonicalize
  //            --boo-fuse-elementwise --canonicalize
  if (options.formFusions)
    pm.addNestedPass<func::FuncOp>(createBooFormFusions());
  addBooToLinalgStage(pm);

  // 2. Tile into static register-sized tiles and vectorize; hoist the
  //    accumulator out of the reduction loops while still on tensors. The
  //    parallel loops' tiles form one scf.forall per op (see stage 4).
  //    boo-opt --boo-cpu-tile-and-vectorize --canonicalize --cse
  //            --loop-invariant-subset-hoisting --canonicalize
  if (options.vectorize) {
    BooCPUTileAndVectorizeOptions tileOptions;
    tileOptions.vectorWidth = options.vectorWidth;
    // The accumulators keep a quarter of the registers free for the
    // operands of their multiply-adds (broadcast rows, vectors read).
    tileOptions.accumulatorLanes = options.accumulatorLanes > 0
                                       ? options.accumulatorLanes
                                       : getHostVectorRegisterLanes() * 3 / 4;
    int64_t l1 = options.l1CacheBytes > 0 ? options.l1CacheBytes
                                          : getHostL1DataCacheBytes();
    tileOptions.rowChainBytes = l1 / 2;
    // Streamed stores end with x86's sfence: other hosts never stream.
    bool x86 = llvm::Triple(llvm::sys::getProcessTriple()).getArch() ==
               llvm::Triple::x86_64;
    tileOptions.streamMinBytes = options.streamMinBytes;
    if (!x86 || options.streamMinBytes < 0)
      tileOptions.streamMinBytes = 0;
    else if (options.streamMinBytes == 0)
      tileOptions.streamMinBytes = getHostLastLevelCacheBytes() / 2;
    tileOptions.planeConvs = options.planeConvs;
    tileOptions.clipPaddedWindows = options.clipPaddedWindows;
    tileOptions.overlapMergedTails = options.overlapMergedTails;
    tileOptions.splitRowLoops = options.splitRowLoops;
    tileOptions.depthwiseRows = options.depthwiseRows;
    tileOptions.dotMaxRows = std::max<int64_t>(options.dotMaxRows, 0);
    tileOptions.registerLanes = getHostVectorRegisterWidth();
    // An operand copy larger than the L2 cache is packed per block, where
    // its tiles read it.
    tileOptions.l2CacheBytes =
        options.l2CacheBytes > 0 ? options.l2CacheBytes : getHostL2CacheBytes();
    tileOptions.packMinBytes = options.packMinBytes;
    if (options.packMinBytes < 0)
      tileOptions.packMinBytes = 0;
    else if (options.packMinBytes == 0)
      tileOptions.packMinBytes = getHostL2CacheBytes();
    pm.addNestedPass<func::FuncOp>(createBooCPUTileAndVectorize(tileOptions));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    pm.addPass(createLoopInvariantSubsetHoistingPass());
    pm.addPass(createCanonicalizerPass());
  }

  // 3. Bufferize. Results become out-params: the caller owns every buffer.
  //    boo-opt --eliminate-empty-tensors --one-shot-bufferize="
  //      bufferize-function-boundaries
  //      function-boundary-type-conversion=identity-layout-map"
  //      --cse --canonicalize
  //      --buffer-results-to-out-params="hoist-static-allocs
  //      modify-public-functions" --canonicalize
  //      --boo-forward-result-reshapes --buffer-deallocation-pipeline
  //      --convert-bufferization-to-memref
  addBufferizationStage(pm, /*deallocate=*/true,
                        /*forwardResultReshapes=*/true);

  // 4. Loops and vectors to LLVM. Strided copies become loops rather than
  //    calls to MLIR's runner library (the code may call libc and libm
  //    only); each top-level scf.forall becomes a body function called
  //    through the __boo_parallel_for hook (docs/ModuleFormat.md).
  //    boo-opt --boo-cpu-stack-temporaries
  //      --boo-cpu-lower-vectors --boo-cpu-lower-strided-copies
  //      --convert-linalg-to-loops --convert-vector-to-scf=full-unroll
  //      --boo-cpu-stream-stores
  //      --boo-cpu-prefix-stores (x86-64 without AVX-512, AArch64)
  //      --boo-cpu-outline-parallel=min-work=32768 (parallel=true)
  //      --boo-cpu-hook-allocations --convert-scf-to-cf
  //      --expand-strided-metadata --lower-affine
  //      --arith-emulate-unsupported-floats="source-types=bf16
  //        target-type=f32"
  //      --arith-expand=include-bf16 --convert-math-to-libm
  //      --convert-vector-to-llvm=vector-contract-lowering=outerproduct
  //      --finalize-memref-to-llvm=use-generic-functions
  //      --convert-math-to-llvm
  //      --convert-arith-to-llvm --convert-index-to-llvm --convert-ub-to-llvm
  //      --convert-cf-to-llvm --convert-func-to-llvm
  //      --reconcile-unrealized-casts --canonicalize --boo-store-integer-bits
  //    Tiles' temporaries go on the stack, released at each iteration's
  //    end (the deallocation pipeline frees none of them).
  //    boo-opt --boo-cpu-stack-temporaries
  pm.addNestedPass<func::FuncOp>(createBooCPUStackTemporaries());
  pm.addNestedPass<func::FuncOp>(createBooCPULowerVectors());
  pm.addNestedPass<func::FuncOp>(createBooCPULowerStridedCopies());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  // Fully unrolled: n-D transfers become 1-D loads/stores, no stack buffers.
  VectorTransferToSCFOptions transferOptions;
  transferOptions.enableFullUnroll(true);
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(transferOptions));
  // The 1-D stores of the marked loops' results past the caches, before
  // the loops are outlined.
  pm.addNestedPass<func::FuncOp>(createBooCPUStreamStores());
  // Row tails as plain stores where masked ones are slow.
  if (options.prefixStores > 0 ||
      (options.prefixStores == 0 && hostMaskedStoresAreSlow()))
    pm.addNestedPass<func::FuncOp>(createBooCPUPrefixStores());
  // Nested foralls (and, with parallel=false, all of them) lower to
  // sequential loops in convert-scf-to-cf.
  if (options.parallel) {
    BooCPUOutlineParallelOptions outlineOptions;
    outlineOptions.minWork = options.parallelMinWork;
    pm.addPass(createBooCPUOutlineParallel(outlineOptions));
  }
  //    Temporaries are allocated through the __boo_alloc/__boo_free hooks
  //    (docs/ModuleFormat.md), which the runtime's cpu device sets.
  pm.addPass(createBooCPUHookAllocations());
  //    The rest is the LLVM tail the emulator shares (addLLVMLoweringStage),
  //    whose last pass checks the contract: nothing but LLVM dialect is
  //    left.
  //    boo-opt --boo-verify-llvm-contract
  addLLVMLoweringStage(pm, vector::VectorContractLowering::OuterProduct,
                       /*genericAllocations=*/true);
}

namespace {
/// One of cpu0's caches as sysfs describes it.
struct SysfsCache {
  int level = 0;
  std::string type;
  int64_t bytes = 0;
};

/// cpu0's caches as sysfs lists them (/sys/devices/system/cpu/cpu0/cache).
SmallVector<SysfsCache> readSysfsCaches() {
  SmallVector<SysfsCache> caches;
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    auto read = [&](const char *name) -> std::string {
      llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
          llvm::MemoryBuffer::getFileAsStream(dir + "/" + name);
      return file ? (*file)->getBuffer().trim().str() : std::string();
    };
    SysfsCache cache;
    cache.type = read("type");
    // "32K".
    std::string sizeText = read("size");
    llvm::StringRef size = sizeText;
    int64_t kib = 0;
    if (llvm::StringRef(read("level")).getAsInteger(10, cache.level) ||
        !size.consume_back("K") || size.getAsInteger(10, kib) || kib <= 0)
      continue;
    cache.bytes = kib * 1024;
    caches.push_back(cache);
  }
  return caches;
}
} // namespace

int64_t mlir::boo::getHostVectorRegisterLanes() {
  static const int64_t lanes = [] {
    llvm::Triple triple(llvm::sys::getProcessTriple());
    if (triple.isAArch64())
      return int64_t(32 * 4);
    if (triple.getArch() != llvm::Triple::x86_64)
      return int64_t(16 * 4);
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    if (features.lookup("avx512f"))
      return int64_t(32 * 16);
    if (features.lookup("avx"))
      return int64_t(16 * 8);
    return int64_t(16 * 4);
  }();
  return lanes;
}

int64_t mlir::boo::getHostVectorRegisterWidth() {
  int64_t lanes = getHostVectorRegisterLanes();
  return lanes == 32 * 16 ? 16 : lanes == 16 * 8 ? 8 : 4;
}

int64_t mlir::boo::getHostL1DataCacheBytes() {
  static const int64_t bytes = [] {
#ifdef _SC_LEVEL1_DCACHE_SIZE
    long size = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (size > 0)
      return int64_t(size);
#endif
    // sysfs: cpu0's level-1 data (or unified) cache.
    for (const SysfsCache &cache : readSysfsCaches())
      if (cache.level == 1 && (cache.type == "Data" || cache.type == "Unified"))
        return cache.bytes;
    return int64_t(32 * 1024);
  }();
  return bytes;
}

int64_t mlir::boo::getHostL2CacheBytes() {
  static const int64_t bytes = [] {
    for (const SysfsCache &cache : readSysfsCaches())
      if (cache.level == 2 && (cache.type == "Data" || cache.type == "Unified"))
        return cache.bytes;
    return int64_t(1024 * 1024);
  }();
  return bytes;
}

int64_t mlir::boo::getHostLastLevelCacheBytes() {
  // sysfs rather than sysconf: glibc's _SC_LEVEL3_CACHE_SIZE can report the
  // whole package's L3 (320 MiB on this project's Zen 4 machines, whose
  // cores see 32 MiB).
  static const int64_t bytes = [] {
    SysfsCache last;
    for (const SysfsCache &cache : readSysfsCaches())
      if (cache.type != "Instruction" && cache.level > last.level)
        last = cache;
    return last.bytes;
  }();
  return bytes;
}

void mlir::boo::registerBooCPUPipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "boo-to-llvm-cpu",
      "Lower Boo ops to the LLVM dialect for the host CPU (tiled and "
      "vectorized), ending with boo-verify-llvm-contract",
      buildCPUPipeline);
}
