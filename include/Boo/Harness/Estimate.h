//===- Estimate.h - Performance estimates of commands -----------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// boo-driver --estimate: a command compiled for an AMD GPU chip (as its
// module compiler would, register-fit fallback included) and each kernel's
// performance ESTIMATE (lib/Target/ROCDL/PerfEstimate.cpp,
// docs/PerfModel.md).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_HARNESS_ESTIMATE_H
#define BOO_HARNESS_ESTIMATE_H

#include "Boo/Target/ROCDL/PerfEstimate.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::boo::harness {

/// The estimate of one command on one chip: its kernels, one after the
/// other.
struct CommandEstimate {
  std::vector<KernelEstimate> kernels;
  double seconds = 0;
  /// The bound of the kernel that takes longest.
  std::string bound;
  /// The kernels' MMA FLOP/s over the chip's peak.
  double fractionOfPeak = 0;

  /// Whether every kernel has the emulator's counts.
  bool isEmulated() const {
    return !kernels.empty() &&
           llvm::all_of(kernels,
                        [](const KernelEstimate &k) { return k.emulated; });
  }
};

/// Sums `estimate`'s kernels into its totals (again after their counts
/// changed, e.g. by applyEmulatedCounts).
void summarizeEstimate(const ChipInfo &chip, CommandEstimate &estimate);

/// Compiles Boo MLIR `source` (not modified) for `chip` and estimates it.
FailureOr<CommandEstimate> estimateOnChip(ModuleOp source, const ChipInfo &chip,
                                          llvm::StringRef tuningSpec,
                                          std::string &error);

} // namespace mlir::boo::harness

#endif // BOO_HARNESS_ESTIMATE_H
