//===- ReportProgress.cpp - boo-driver's progress lines -------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Progress: a bar with an ETA on a terminal, one plain line per item
// otherwise, on stderr.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace mlir::boo::harness;

static std::string formatDuration(double seconds) {
  int64_t s = static_cast<int64_t>(seconds + 0.5);
  char buffer[32];
  if (s >= 3600)
    std::snprintf(buffer, sizeof(buffer), "%lld:%02lld:%02lld",
                  (long long)(s / 3600), (long long)(s / 60 % 60),
                  (long long)(s % 60));
  else
    std::snprintf(buffer, sizeof(buffer), "%lld:%02lld", (long long)(s / 60),
                  (long long)(s % 60));
  return buffer;
}

Progress::Progress(int64_t total, llvm::StringRef what, bool enabled)
    : total(total), what(what.str()), enabled(enabled),
      terminal(llvm::sys::Process::StandardErrIsDisplayed()),
      start(std::chrono::steady_clock::now()) {}

void Progress::step(llvm::StringRef label) {
  ++done;
  if (!enabled)
    return;
  double elapsed = secondsSince(start);
  double eta = done ? elapsed / done * (total - done) : 0.0;
  if (!terminal) {
    llvm::errs() << "boo-driver: [" << done << "/" << total << "] " << label
                 << " (elapsed " << formatDuration(elapsed) << ", ETA "
                 << formatDuration(eta) << ")\n";
    return;
  }
  const int barWidth = 30;
  int filled = total ? static_cast<int>(barWidth * done / total) : barWidth;
  std::string bar(filled, '=');
  if (filled < barWidth)
    bar += '>' + std::string(barWidth - filled - 1, ' ');
  std::string line = "\r" + what + " [" + bar + "] " + std::to_string(done) +
                     "/" + std::to_string(total) + " ETA " +
                     formatDuration(eta) + "  " + label.str();
  unsigned columns = llvm::sys::Process::StandardErrColumns();
  if (columns == 0)
    columns = 100;
  if (line.size() > columns)
    line.resize(columns);
  llvm::errs() << line << "\x1b[K";
  llvm::errs().flush();
}

void Progress::finish() {
  if (enabled && terminal)
    llvm::errs() << "\n";
}
