//===- OneDNNBackend.h - oneDNN as a reference backend -----------*- C++
//-*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// `boo-driver --reference-backend=onednn`: an MIOpen problem run by oneDNN
// (Debian's libdnnl-dev) on the host CPU, on the same inputs as Boo, timed
// in the same run. Built only where CMake finds oneDNN (BOO_HAVE_ONEDNN);
// elsewhere runOneDNN says so.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_HARNESS_ONEDNNBACKEND_H
#define BOO_HARNESS_ONEDNNBACKEND_H

#include "Boo/Import/MIOpenImport.h"
#include "Boo/Runner/HostTensor.h"

#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::boo::harness {

/// Whether this build has oneDNN.
bool isOneDNNAvailable();

struct OneDNNRun {
  /// In the function's result order, with its shapes and element types
  /// (getProblemSignature).
  std::vector<HostTensor> results;
  /// One per timed call: the primitives' execution and the stream's wait
  /// (reorders to and from the user layouts are outside).
  std::vector<double> milliseconds;
  /// How it ran, e.g. "f32 compute: oneDNN has no f16 convolution here".
  std::string note;
  /// The threads oneDNN ran on.
  int64_t threads = 0;
};

/// Runs `problem` on `inputs` (argument order, as makeInputs makes them)
/// with oneDNN on `threads` threads (0: its default, all cores; the count
/// is set through oneDNN's OpenMP runtime and restored after): one untimed
/// call, then `iterations` timed ones. Supports
/// convolutions (every direction, bias, groups, 1-3-D, any layout: the user
/// tensors are described by their strides, and oneDNN picks its own layouts
/// for the computation), layer norm forward, matrix products, and spatial
/// (per-channel) batch norms in every direction and layout (oneDNN has no
/// per-activation one). oneDNN gives a batch norm's mean and biased
/// variance: rstd and the running statistics' update are computed from them
/// on the host, in double; a backward's saved rstd becomes the variance
/// 1 / rstd^2 - epsilon, and without saved statistics a forward-training
/// call computes them (timed with the backward). The problem's type is used
/// where oneDNN implements it, else f32 (said in `note`). Fails, with
/// `error`, for what oneDNN cannot run, arg-reductions among them.
LogicalResult runOneDNN(const MIOpenProblem &problem,
                        const std::vector<HostTensor> &inputs,
                        int64_t iterations, int64_t threads, OneDNNRun &run,
                        std::string &error);

} // namespace mlir::boo::harness

#endif // BOO_HARNESS_ONEDNNBACKEND_H
