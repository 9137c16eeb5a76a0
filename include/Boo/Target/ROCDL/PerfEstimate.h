//===- PerfEstimate.h - Kernel speed without a GPU --------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// An estimate of each kernel's time on a chip, from Boo's own compiled
// code: the code object's register, LDS and scratch use (occupancy), the
// main loop's instruction mix in the ISA, and what every thread executes
// (boo-gpu-count-ops, scaled by the launch), against the chip's published
// peaks in a roofline. It is an estimate; docs/PerfModel.md says what it
// assumes and what it ignores.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TARGET_ROCDL_PERFESTIMATE_H
#define BOO_TARGET_ROCDL_PERFESTIMATE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::boo {

struct ChipInfo;

/// Memory instructions of one kind and the bytes they move per lane.
struct MemoryMix {
  int64_t instructions = 0;
  int64_t bytes = 0;
  /// Bytes of the narrowest of them (0: none).
  int64_t narrowest = 0;
  double bytesPerInstruction() const {
    return instructions ? double(bytes) / instructions : 0;
  }
};

/// The static instruction mix of a kernel's main loop in its ISA: the
/// region from a label to a branch back to it with the most MMA
/// instructions, the widest on ties (LLVM's rotated loops branch back to
/// two labels); without a loop, the whole kernel.
struct ISAMix {
  bool isLoop = false;
  int64_t instructions = 0, mma = 0, barriers = 0, waits = 0;
  MemoryMix globalLoads, globalStores, ldsReads, ldsWrites;
};

/// Reads the main loop's mix from ISA text (as the serializer prints it).
ISAMix analyzeISA(llvm::StringRef isa);

/// Bytes one lane moves with memory instruction `mnemonic` (e.g. 16 for
/// global_load_dwordx4 or ds_read2_b64), 0 if it is not one.
int64_t getMemoryInstructionBytes(llvm::StringRef mnemonic);

/// The estimate of one kernel launch.
struct KernelEstimate {
  std::string kernel;
  // The code object.
  int64_t vgprs = 0, agprs = 0, sgprs = 0, staticLdsBytes = 0;
  int64_t scratchBytes = 0;
  /// Waves one SIMD holds at once (registers, LDS and the workgroup size).
  int64_t wavesPerSimd = 0;
  ISAMix mainLoop;
  // The launch.
  int64_t workgroups = 0, workgroupSize = 0, waves = 0;
  // What the launch executes (boo-gpu-count-ops x threads or waves).
  double mmaInstructions = 0, mmaFlops = 0;
  double globalBytes = 0, globalInstructions = 0;
  double ldsBytes = 0, ldsInstructions = 0;
  double issuedInstructions = 0;
  /// Bytes of the kernel's buffers: what must cross the memory bus once.
  double compulsoryBytes = 0;
  bool approximate = false;
  /// Whether the MMA, global and LDS counts are the emulator's
  /// (applyEmulatedCounts), and from which share of the workgroups.
  bool emulated = false;
  double emulatedWorkgroups = 0;
  /// Emulated only: the 128-byte lines the global instructions touch, and
  /// the LDS cycles with and without bank conflicts (boo/LdsBankModel.h).
  double globalLines = 0, ldsCycles = 0, ldsConflictFreeCycles = 0;
  // Times in seconds of each bound, and the estimate (the largest).
  double mmaSeconds = 0, memorySeconds = 0, cacheSeconds = 0, ldsSeconds = 0,
         issueSeconds = 0, seconds = 0;
  llvm::StringRef bound;
  /// MMA FLOP/s at the estimate over the chip's peak (0 without MMA).
  double fractionOfPeak = 0;
};

/// What the emulator's profile counted for one launch
/// (boo_launch_profile_t), over `profiledWorkgroups` of its workgroups.
struct EmulatedCounts {
  double workgroups = 0, profiledWorkgroups = 0;
  double mmaInstructions = 0, mmaFlops = 0;
  double globalInstructions = 0, globalBytes = 0, globalLines = 0;
  double ldsInstructions = 0, ldsBytes = 0, ldsCycles = 0,
         ldsConflictFreeCycles = 0;
};

/// Replaces `e`'s MMA, global and LDS counts by the emulator's, scaled from
/// the profiled workgroups to the launch, and recomputes the roofline with
/// them: `cache` at most one line per cycle, `lds` from the LDS cycles with
/// bank conflicts (docs/PerfModel.md).
void applyEmulatedCounts(const ChipInfo &chip, const EmulatedCounts &counts,
                         KernelEstimate &e);

/// Estimates every kernel launched by the host functions of `compiled`
/// (the output of boo-to-rocdl for `chip`). `isaByKernel` holds each
/// kernel's ISA text (from the serializer's hook), by kernel name; a
/// kernel without one gets an empty mix. Fails when a launch or a kernel
/// lacks what the estimate needs (boo.kernel_abi, boo.op_counts).
FailureOr<std::vector<KernelEstimate>>
estimateKernels(ModuleOp compiled, const ChipInfo &chip,
                const llvm::StringMap<std::string> &isaByKernel,
                std::string &error);

/// Prints `estimates` as a table (one row per kernel), labelled as an
/// estimate, then the per-kernel static details.
void printPerfReport(llvm::raw_ostream &os, const ChipInfo &chip,
                     llvm::ArrayRef<KernelEstimate> estimates);

} // namespace mlir::boo

#endif // BOO_TARGET_ROCDL_PERFESTIMATE_H
