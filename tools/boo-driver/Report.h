//===- Report.h - boo-driver's rows, CSV, progress and plot -----*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TOOLS_BOODRIVER_REPORT_H
#define BOO_TOOLS_BOODRIVER_REPORT_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// ReportCsv.cpp: the rows and their CSV; ReportRoofline.cpp: the host's
// roofline; ReportPlot.cpp: the SVG plot; ReportProgress.cpp: progress.

namespace mlir::boo::harness {

/// Timing statistics of repeated calls, in milliseconds.
struct TimingStats {
  int64_t iterations = 0;
  double min = 0, max = 0, mean = 0, median = 0, stddev = 0;
  static TimingStats of(std::vector<double> milliseconds);
};

/// Everything boo-driver measured for one command: one CSV row.
struct CommandRow {
  int64_t index = 0; // 1-based, in the commands file
  std::string command;
  std::string kind, dtype;
  bool ok = false;
  std::string error;
  std::string device;
  double compileMs = 0;
  std::string cache; // off, hit, miss, corrupt
  std::optional<TimingStats> time;
  double flops = 0, bytes = 0;
  /// Numerics: "pass", "fail" or "" (not verified); the checks, one line.
  std::string verify, verifyDetails;
  /// The reference backend measured in the same run (empty: none).
  std::string referenceBackend;
  std::optional<TimingStats> referenceTime;
  /// Largest |boo - reference| over the reference's rms, over all results.
  std::optional<double> referenceRelativeError;
  /// GPU targets: the performance ESTIMATE on the chip (docs/PerfModel.md).
  struct Estimate {
    std::string chip;
    double us = 0;
    std::string bound;
    double peakPct = 0;
    /// "emulator" or "ir": where the executed counts come from.
    std::string counts;
  };
  std::optional<Estimate> estimate;

  double gflops() const;
  double gbps() const;
  std::optional<double> referenceGflops() const;
  /// The rate the estimate implies.
  std::optional<double> estimatedGflops() const;
};

/// Writes the rows as CSV (RFC 4180 quoting), one per command.
bool writeCsv(llvm::StringRef path, const std::vector<CommandRow> &rows,
              std::string &error);

/// Reads rows back from a CSV that writeCsv wrote (the columns the plot
/// needs: index, command, kind, dtype, status, device, median_ms, flops,
/// bytes, reference_backend, reference_median_ms). False, with `error`
/// naming the file and line, for anything else.
bool readCsv(llvm::StringRef path, std::vector<CommandRow> &rows,
             std::string &error);

/// The device's roofline: peak GFLOP/s and memory GB/s.
struct Roofline {
  std::string description;
  double peakGflops = 0, gbps = 0;
};
/// Measures the host's roofline: an FMA loop on every core (the widest
/// vector unit the CPU reports: AVX-512, AVX2+FMA or SSE2) and a large
/// memcpy for the bandwidth.
Roofline measureHostRoofline();

/// Writes an SVG: per command, Boo's GFLOP/s, the reference's (when
/// measured) and the roofline's bound min(peak, intensity * bandwidth)
/// (when `roofline` is given), on a log scale.
bool writePlot(llvm::StringRef path, const std::vector<CommandRow> &rows,
               const std::optional<Roofline> &roofline,
               llvm::StringRef title, std::string &error);

/// A progress bar with an ETA on a terminal (stderr), plain lines
/// otherwise.
class Progress {
public:
  Progress(int64_t total, llvm::StringRef what, bool enabled);
  /// One more item is done; `label` says which and how it went.
  void step(llvm::StringRef label);
  void finish();

private:
  int64_t total, done = 0;
  std::string what;
  bool enabled, terminal;
  std::chrono::steady_clock::time_point start;
};

/// `v` printed with the printf format `format` (the CSV's numbers, the
/// roofline's description).
std::string formatNumber(double v, const char *format = "%.6g");

/// Seconds from `start` to now.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

} // namespace mlir::boo::harness

#endif // BOO_TOOLS_BOODRIVER_REPORT_H
