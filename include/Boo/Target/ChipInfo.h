//===- ChipInfo.h - AMD GPU architecture table ------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The one table of AMD GPU targets Boo can compile for. Every pass that needs
// a hardware fact (wave size, LDS size, which MFMA/WMMA intrinsics exist and
// how their operands are shaped) asks this table; no other file names a chip.
// See docs/Targets.md.
//
// This library depends on LLVM Support only, so that the runtime and tools
// without MLIR can use it too.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TARGET_CHIPINFO_H
#define BOO_TARGET_CHIPINFO_H

#include "Boo/ElementType.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace mlir::boo {

/// The GPU architecture families Boo distinguishes.
enum class ChipFamily { CDNA2, CDNA3, CDNA4, RDNA3, RDNA4 };

/// Which matrix instruction set (and which `amdgpu` op) an intrinsic uses.
enum class MmaKind {
  MFMA, // CDNA, `amdgpu.mfma`, wave64
  WMMA, // RDNA3/4, `amdgpu.wmma`, wave32
};

/// One matrix multiply-accumulate intrinsic on one chip: D = A (MxK) * B (KxN)
/// + C (MxN), executed by a whole subgroup (wave).
struct MmaIntrinsic {
  /// Boo's name, used in `#boo.lowering_config<mma = "...">`, e.g.
  /// "MFMA_F32_16x16x16_F16". The same name has the same M, N, K and element
  /// types on every chip; the per-lane vector lengths can differ by chip
  /// (WMMA on RDNA3 vs RDNA4).
  llvm::StringLiteral name;
  MmaKind kind;
  /// The A and B operands' type (f16 or bf16); every intrinsic in the
  /// table accumulates in f32.
  ElementType inputType;
  int64_t m, n, k;
  /// `blocks` attribute of `amdgpu.mfma` (always 1 here; WMMA has none).
  int64_t blocks;
  /// Vector lengths of `sourceA`, `sourceB` and `destC`/`destD` of the
  /// `amdgpu.mfma`/`amdgpu.wmma` op, i.e. the elements each lane holds:
  /// e.g. vector<4xf16>, vector<4xf16>, vector<4xf32> for 16x16x16 f16 MFMA.
  int64_t aElementsPerLane, bElementsPerLane, cElementsPerLane;
  /// The ROCDL op `convert-amdgpu-to-rocdl` selects for this chip (checked
  /// with mlir-opt 22), e.g. "rocdl.mfma.f32.16x16x16bf16.1k" on gfx90a.
  llvm::StringLiteral rocdlOp;
  /// Consecutive accumulator rows (along M) each lane holds, in runs: 4 for
  /// MFMA, 8 for RDNA4's WMMA, 1 for RDNA3's (a lane holds every other
  /// row). Where the output is contiguous along M, a run is one vector
  /// store.
  int64_t accRowRun;

  /// "16x16x16".
  std::string getShapeString() const;
  /// "f16" or "bf16".
  llvm::StringRef getInputTypeName() const;
};

/// What Boo knows about one chip.
struct ChipInfo {
  /// LLVM processor name, as `-mcpu`, `rocdl-attach-target{chip=...}` and
  /// `convert-amdgpu-to-rocdl{chipset=...}` spell it, e.g. "gfx942".
  llvm::StringLiteral name;
  ChipFamily family;
  /// Example products (informative only).
  llvm::StringLiteral products;
  /// Lanes per wave (subgroup): 64 on CDNA, 32 on RDNA (its default mode).
  int64_t waveSize;
  /// LDS (shared memory) bytes one workgroup may allocate.
  int64_t ldsBytes;
  /// Most threads in one workgroup (product of the three dims).
  int64_t maxWorkgroupSize;
  /// Compute units of the largest product listed; heuristics use it to judge
  /// whether a kernel has enough workgroups to fill the chip.
  int64_t computeUnits;
  /// The MMA intrinsics with f16/bf16 inputs and f32 accumulation.
  llvm::ArrayRef<MmaIntrinsic> mmaIntrinsics;

  /// Published peaks of the product listed first, for the performance
  /// estimate (docs/PerfModel.md): the boost clock, dense f16/bf16 matrix
  /// FLOP/s, and memory (HBM or GDDR) bandwidth.
  double clockGHz;
  double peakMatrixTflops;
  double memoryGBps;
  /// SIMDs per CU (4 on CDNA, 2 on RDNA), the most waves one SIMD holds,
  /// and the VGPRs one SIMD has per lane with their allocation granule
  /// (CDNA: arch + acc VGPRs together).
  int64_t simdsPerCU;
  int64_t maxWavesPerSimd;
  int64_t vgprsPerSimd;
  int64_t vgprGranule;

  /// The intrinsic called `name` on this chip, or null.
  const MmaIntrinsic *lookupMma(llvm::StringRef name) const;
  /// "CDNA3" etc.
  llvm::StringRef getFamilyName() const;
};

/// The chip called `name` (e.g. "gfx942"), or null when Boo does not support
/// it.
const ChipInfo *lookupChip(llvm::StringRef name);

/// Every supported chip, in the table's order.
llvm::ArrayRef<ChipInfo> getSupportedChips();

/// "gfx90a, gfx942, gfx950, gfx1100, gfx1201".
std::string getSupportedChipList();

/// The diagnostic for an unknown chip:
/// "unsupported chip 'gfx000'; supported: gfx90a, gfx942, ...".
std::string getUnsupportedChipMessage(llvm::StringRef name);

/// An intrinsic called `name` on any chip (to learn its M/N/K and types
/// without a chip), or null.
const MmaIntrinsic *lookupMmaOnAnyChip(llvm::StringRef name);

/// The names of every intrinsic in the table, without repetition, joined with
/// ", ".
std::string getKnownMmaList();

} // namespace mlir::boo

#endif // BOO_TARGET_CHIPINFO_H
