//===- Pipelines.h - The boo-to-llvm-cpu pipeline ---------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_CODEGEN_CPU_PIPELINES_H
#define BOO_CODEGEN_CPU_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::boo {

/// Options of the `boo-to-llvm-cpu` pipeline.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  Option<bool> formFusions{*this, "form-fusions",
                           llvm::cl::desc("Run boo-form-fusions first"),
                           llvm::cl::init(true)};
  Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize (false: scalar loops, for "
                     "debugging and as a second reference)"),
      llvm::cl::init(true)};
  Option<int64_t> vectorWidth{
      *this, "vector-width",
      llvm::cl::desc("f32 lanes of one vector register; the innermost "
                     "parallel tile spans up to 4 registers"),
      llvm::cl::init(8)};
  Option<int64_t> accumulatorLanes{
      *this, "accumulator-lanes",
      llvm::cl::desc("The most f32 lanes a contraction's register tile of "
                     "accumulators may hold "
                     "(boo-cpu-tile-and-vectorize's accumulator-lanes; 0: "
                     "three quarters of the host's vector registers: 384 "
                     "with AVX-512, 96 with AVX2)"),
      llvm::cl::init(0)};
  Option<bool> splitRowLoops{
      *this, "split-row-loops",
      llvm::cl::desc("Compute a contraction whose register tile would take "
                     "rows that do not divide its row loop in two "
                     "overlapping pieces (boo-cpu-tile-and-vectorize's "
                     "split-row-loops); false: tiles of fewer rows"),
      llvm::cl::init(true)};
  Option<int64_t> l1CacheBytes{
      *this, "l1-cache-bytes",
      llvm::cl::desc("Bytes of the L1 data cache the tiles are sized for "
                     "(0: the host's, as the system reports it)"),
      llvm::cl::init(0)};
  Option<int64_t> l2CacheBytes{
      *this, "l2-cache-bytes",
      llvm::cl::desc("Bytes of the L2 cache per core the order of a "
                     "contraction's tiles is chosen for "
                     "(boo-cpu-tile-and-vectorize's l2-cache-bytes; 0: the "
                     "host's, as sysfs reports it)"),
      llvm::cl::init(0)};
  Option<int64_t> streamMinBytes{
      *this, "stream-min-bytes",
      llvm::cl::desc("A layer norm's result of at least this many bytes is "
                     "written with non-temporal stores, past the caches "
                     "(boo-cpu-stream-stores; 0: half the host's last-level "
                     "cache, as sysfs reports it; negative: never). x86-64 "
                     "hosts only: others never stream"),
      llvm::cl::init(0)};
  Option<int64_t> packMinBytes{
      *this, "pack-min-bytes",
      llvm::cl::desc("A contraction's operand copy (a reordered filter) of "
                     "at least this many bytes is packed one block at a time "
                     "in the parallel iterations that read the block "
                     "(boo-cpu-tile-and-vectorize's pack-min-bytes; 0: the "
                     "host's L2 cache size, as sysfs reports it; negative: "
                     "never)"),
      llvm::cl::init(0)};
  Option<bool> planeConvs{
      *this, "plane-convs",
      llvm::cl::desc("Compute channels-first depthwise convolutions, and "
                     "channels-first ones with at most 4 input channels, "
                     "plane by plane, vectorized along the output rows "
                     "(boo-cpu-tile-and-vectorize's plane-convs); false: "
                     "repack them to channels-last"),
      llvm::cl::init(true)};
  Option<bool> depthwiseRows{
      *this, "depthwise-rows",
      llvm::cl::desc("Compute channels-last depthwise convolutions with "
                     "short output rows directly, one row at a time "
                     "(boo-cpu-tile-and-vectorize's depthwise-rows); false: "
                     "the general schedule"),
      llvm::cl::init(true)};
  Option<int64_t> dotMaxRows{
      *this, "dot-max-rows",
      llvm::cl::desc("Compute a contraction whose inputs both have the "
                     "reduction innermost (an NHWC 1x1 convolution), with "
                     "at most this many output positions per column, as "
                     "dot products along the reduction, without a "
                     "transposed copy of its filter "
                     "(boo-cpu-tile-and-vectorize's dot-max-rows; 0: "
                     "never)"),
      llvm::cl::init(64)};
  Option<bool> overlapMergedTails{
      *this, "overlap-merged-tails",
      llvm::cl::desc("Compute a channels-first 1x1 convolution's merged "
                     "positions that are no multiple of 4 x vector-width as "
                     "a leading multiple and a last tile, overlapping where "
                     "fewer positions are left "
                     "(boo-cpu-tile-and-vectorize's overlap-merged-tails); "
                     "false: pad them with zeros"),
      llvm::cl::init(true)};
  Option<bool> clipPaddedWindows{
      *this, "clip-padded-windows",
      llvm::cl::desc("Skip the iterations of a tiled convolution's window "
                     "loops that read only the zero padding of its input, "
                     "and the positions of its tiles that read it "
                     "(boo-cpu-tile-and-vectorize's clip-padded-windows)"),
      llvm::cl::init(true)};
  Option<int64_t> prefixStores{
      *this, "prefix-stores",
      llvm::cl::desc("Write the out-of-bounds tails of 1-D stores (an "
                     "output row of 7 columns from 8 lanes) as shorter "
                     "plain stores rather than masked ones "
                     "(boo-cpu-prefix-stores; 0: where the host's masked "
                     "stores are slow: x86-64 without AVX-512, AArch64; "
                     "positive: always; negative: never)"),
      llvm::cl::init(0)};
  Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Outline each top-level scf.forall into a body called "
                     "through the __boo_parallel_for hook, so a loader can "
                     "run it multi-threaded (boo-cpu-outline-parallel); "
                     "false: plain sequential loops"),
      llvm::cl::init(true)};
  Option<int64_t> parallelMinWork{
      *this, "parallel-min-work",
      llvm::cl::desc("With parallel=true: loops with less estimated work "
                     "(operations executed) stay sequential "
                     "(boo-cpu-outline-parallel's min-work)"),
      llvm::cl::init(32768)};
};

/// Boo (or linalg on tensors) to the LLVM dialect for the host CPU; ends
/// with boo-verify-llvm-contract.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// The f32 lanes of the host's vector registers, all of them: 32 x 16
/// with AVX-512, 16 x 8 with AVX, 16 x 4 on other x86-64 hosts, 32 x 4 on
/// AArch64 (NEON), 16 x 4 elsewhere.
int64_t getHostVectorRegisterLanes();

/// The f32 lanes of one of the host's vector registers: 16 with AVX-512, 8
/// with AVX, 4 elsewhere (the width getHostVectorRegisterLanes counts).
int64_t getHostVectorRegisterWidth();

/// The host's L1 data cache size in bytes per core, as the system reports
/// it (sysconf on glibc, else sysfs), or 32 KiB when it reports none.
int64_t getHostL1DataCacheBytes();

/// The host's L2 cache size in bytes per core, as sysfs reports it, or
/// 1 MiB when it reports none.
int64_t getHostL2CacheBytes();

/// The size in bytes of the host's last-level cache as seen by one core
/// (its largest level in sysfs: on Zen 4, the L3 of its core complex), or
/// 0 when the system reports none.
int64_t getHostLastLevelCacheBytes();

/// Registers `boo-to-llvm-cpu` with the pass pipeline registry.
void registerBooCPUPipelines();

} // namespace mlir::boo

#endif // BOO_CODEGEN_CPU_PIPELINES_H
