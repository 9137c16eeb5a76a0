//===- Preload.h - boo-driver --preload -------------------------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TOOLS_BOODRIVER_PRELOAD_H
#define BOO_TOOLS_BOODRIVER_PRELOAD_H

#include "Boo/Cache/KernelCache.h"
#include "Boo/Harness/CommandList.h"

#include <string>
#include <vector>

namespace mlir::boo::harness {

struct PreloadOptions {
  /// Artifact targets: "gfx942", "emu:gfx942", "cpu".
  std::vector<std::string> targets;
  std::string tuningSpec;
  unsigned jobs = 0; // 0: every core
  std::string failuresFile;
  bool progress = true;
};

/// Compiles every command for every target into `cache`, in parallel, each
/// compilation in its own MLIRContext. Prints a summary (compiled, already
/// cached, failed, each failure with its message). Returns the exit code:
/// 0 when nothing failed.
int runPreload(const std::vector<mlir::boo::harness::CommandLine> &commands,
               const PreloadOptions &options, mlir::boo::KernelCache &cache);

} // namespace mlir::boo::harness

#endif // BOO_TOOLS_BOODRIVER_PRELOAD_H
