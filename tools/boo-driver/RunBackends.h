//===- RunBackends.h - boo-driver's reference backends ----------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The reference backends a command is measured against in the same run
// (--reference-backend=onednn, memcpy), and the line that reports each.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TOOLS_BOODRIVER_RUNBACKENDS_H
#define BOO_TOOLS_BOODRIVER_RUNBACKENDS_H

#include "Report.h"

#include "Boo/Import/MIOpenImport.h"
#include "Boo/Runner/HostTensor.h"

#include <optional>
#include <vector>

namespace mlir::boo::harness {

/// Records and prints a reference backend's time and its distance to Boo.
/// `relativeError` is absent for a backend that computes nothing (memcpy).
void reportReference(CommandRow &row, llvm::StringRef backend,
                     llvm::StringRef what, const TimingStats &time,
                     std::optional<double> relativeError);

/// --reference-backend=memcpy: a host memcpy that reads and writes as many
/// bytes as the problem (its inputs and outputs), on `threads` threads.
void runMemcpyBackend(double bytes, int64_t iterations, int64_t threads,
                      CommandRow &row);

/// --reference-backend=onednn: the problem on oneDNN, on the host, on
/// `threads` threads (0: all cores). What oneDNN cannot run is said, and
/// does not fail the command.
void runOneDNNBackend(const MIOpenProblem &problem,
                      const std::vector<HostTensor> &inputs,
                      const std::vector<HostTensor> &outputs,
                      int64_t iterations, int64_t threads, CommandRow &row);

} // namespace mlir::boo::harness

#endif // BOO_TOOLS_BOODRIVER_RUNBACKENDS_H
