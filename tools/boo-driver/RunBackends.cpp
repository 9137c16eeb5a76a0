//===- RunBackends.cpp - boo-driver's reference backends ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "RunBackends.h"

#include "Boo/Harness/MemcpyBackend.h"
#include "Boo/Harness/OneDNNBackend.h"
#include "Boo/Harness/Verify.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::boo;

namespace mlir::boo::harness {

void reportReference(CommandRow &row, llvm::StringRef backend,
                     llvm::StringRef what, const TimingStats &time,
                     std::optional<double> relativeError) {
  row.referenceBackend = backend.str();
  row.referenceTime = time;
  row.referenceRelativeError = relativeError;
  llvm::outs() << llvm::format("%s (%s): median %.4f ms over %lld calls",
                               backend.str().c_str(), what.str().c_str(),
                               time.median, (long long)time.iterations);
  if (row.time && row.time->median > 0)
    llvm::outs() << llvm::format("; Boo is %.2fx its speed",
                                 time.median / row.time->median);
  if (relativeError)
    llvm::outs() << llvm::format("; max |Boo - %s| / rms(%s) %.3e",
                                 backend.str().c_str(), backend.str().c_str(),
                                 *relativeError);
  llvm::outs() << "\n";
}

void runMemcpyBackend(double bytes, int64_t iterations, int64_t threads,
                      CommandRow &row) {
  std::vector<double> milliseconds;
  std::string error;
  if (failed(harness::runMemcpy(bytes, iterations, threads, milliseconds,
                                error))) {
    row.referenceBackend = "memcpy";
    llvm::outs() << "memcpy: not compared: " << error << "\n";
    return;
  }
  TimingStats time = TimingStats::of(milliseconds);
  std::string what = llvm::formatv("{0:F0} bytes read and written, {1} "
                                   "thread{2}, {3:F1} GB/s",
                                   bytes, threads, threads == 1 ? "" : "s",
                                   bytes / (time.median * 1e6))
                         .str();
  reportReference(row, "memcpy", what, time, std::nullopt);
}

void runOneDNNBackend(const MIOpenProblem &problem,
                      const std::vector<HostTensor> &inputs,
                      const std::vector<HostTensor> &outputs,
                      int64_t iterations, int64_t threads, CommandRow &row) {
  harness::OneDNNRun run;
  std::string error;
  if (failed(harness::runOneDNN(problem, inputs, iterations, threads, run,
                                error))) {
    row.referenceBackend = "onednn";
    llvm::outs() << "onednn: not compared: " << error << "\n";
    return;
  }
  std::vector<::boo::ref::Tensor> results;
  for (const HostTensor &t : run.results) {
    ::boo::ref::Tensor tensor(t.shape);
    for (int64_t i = 0; i < t.numElements(); ++i)
      tensor.data[i] = t.getAsDouble(i);
    results.push_back(std::move(tensor));
  }
  std::string what = "oneDNN on the host";
  if (run.threads > 0)
    what += ", " + std::to_string(run.threads) +
            (run.threads == 1 ? " thread" : " threads");
  if (!run.note.empty())
    what += ", " + run.note;
  reportReference(row, "onednn", what, TimingStats::of(run.milliseconds),
                  harness::getMaxRelativeError(outputs, results));
}

} // namespace mlir::boo::harness
