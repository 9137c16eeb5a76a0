//===- Report.cpp - boo-driver's rows, CSV, progress and plot --------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>

using namespace mlir::boo::driver;

//===----------------------------------------------------------------------===//
// Rows and CSV
//===----------------------------------------------------------------------===//

TimingStats TimingStats::of(std::vector<double> ms) {
  TimingStats stats;
  stats.iterations = static_cast<int64_t>(ms.size());
  if (ms.empty())
    return stats;
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  stats.min = ms.front();
  stats.max = ms.back();
  double sum = 0;
  for (double v : ms)
    sum += v;
  stats.mean = sum / n;
  stats.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  double squares = 0;
  for (double v : ms)
    squares += (v - stats.mean) * (v - stats.mean);
  stats.stddev = n > 1 ? std::sqrt(squares / (n - 1)) : 0.0;
  return stats;
}

double CommandRow::gflops() const {
  return time && time->median > 0 ? flops / (time->median * 1e6) : 0.0;
}

double CommandRow::gbps() const {
  return time && time->median > 0 ? bytes / (time->median * 1e6) : 0.0;
}

std::optional<double> CommandRow::referenceGflops() const {
  if (!referenceTime || referenceTime->median <= 0)
    return std::nullopt;
  return flops / (referenceTime->median * 1e6);
}

static std::string csvField(llvm::StringRef text) {
  if (text.find_first_of(",\"\n\r") == llvm::StringRef::npos)
    return text.str();
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"')
      quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

static std::string number(double v, const char *format = "%.6g") {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

bool mlir::boo::driver::writeCsv(llvm::StringRef path,
                           const std::vector<CommandRow> &rows,
                           std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return false;
  }
  os << "index,command,kind,dtype,status,error,device,compile_ms,cache,"
        "iterations,min_ms,max_ms,mean_ms,median_ms,stddev_ms,flops,bytes,"
        "gflops,gbps,verify,verify_details,reference_backend,"
        "reference_median_ms,reference_gflops,speedup_vs_reference,"
        "reference_max_rel_error\n";
  for (const CommandRow &row : rows) {
    std::vector<std::string> fields = {
        std::to_string(row.index), csvField(row.command), row.kind,
        row.dtype, row.ok ? "ok" : "failed", csvField(row.error),
        csvField(row.device), number(row.compileMs, "%.3f"), row.cache};
    if (row.time) {
      fields.push_back(std::to_string(row.time->iterations));
      for (double v : {row.time->min, row.time->max, row.time->mean,
                       row.time->median, row.time->stddev})
        fields.push_back(number(v, "%.6f"));
    } else {
      fields.insert(fields.end(), 6, "");
    }
    fields.push_back(number(row.flops, "%.0f"));
    fields.push_back(number(row.bytes, "%.0f"));
    fields.push_back(row.time ? number(row.gflops(), "%.4f") : "");
    fields.push_back(row.time ? number(row.gbps(), "%.4f") : "");
    fields.push_back(row.verify);
    fields.push_back(csvField(row.verifyDetails));
    fields.push_back(row.referenceBackend);
    fields.push_back(row.referenceTime
                         ? number(row.referenceTime->median, "%.6f")
                         : "");
    std::optional<double> refGflops = row.referenceGflops();
    fields.push_back(refGflops ? number(*refGflops, "%.4f") : "");
    fields.push_back(row.time && row.referenceTime && row.time->median > 0
                         ? number(row.referenceTime->median /
                                      row.time->median,
                                  "%.3f")
                         : "");
    fields.push_back(row.referenceRelativeError
                         ? number(*row.referenceRelativeError, "%.3e")
                         : "");
    os << llvm::join(fields, ",") << "\n";
  }
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + path.str() + "': " + os.error().message();
    os.clear_error();
    return false;
  }
  return true;
}

/// Splits CSV text into records of fields (RFC 4180: quoted fields may hold
/// commas, doubled quotes and newlines). False on an unterminated quote.
static bool parseCsv(llvm::StringRef text,
                     std::vector<std::vector<std::string>> &records,
                     int64_t &badLine) {
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, fieldStarted = false;
  int64_t line = 1, recordLine = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        line += c == '\n';
        field += c;
      }
      continue;
    }
    if (c == '"' && !fieldStarted) {
      quoted = fieldStarted = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      fieldStarted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
        ++i;
      record.push_back(std::move(field));
      field.clear();
      fieldStarted = false;
      records.push_back(std::move(record));
      record.clear();
      recordLine = ++line;
    } else {
      field += c;
      fieldStarted = true;
    }
  }
  if (quoted) {
    badLine = recordLine;
    return false;
  }
  if (fieldStarted || !record.empty()) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  return true;
}

bool mlir::boo::driver::readCsv(llvm::StringRef path,
                                std::vector<CommandRow> &rows,
                                std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return false;
  }
  std::vector<std::vector<std::string>> records;
  int64_t badLine = 0;
  if (!parseCsv((*buffer)->getBuffer(), records, badLine)) {
    error = path.str() + ":" + std::to_string(badLine) +
            ": unterminated quoted field";
    return false;
  }
  if (records.empty()) {
    error = path.str() + ": empty CSV";
    return false;
  }
  const std::vector<std::string> &header = records.front();
  auto column = [&](llvm::StringRef name) -> int {
    auto it = llvm::find(header, name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  };
  const char *needed[] = {"index",  "command",   "kind",
                          "dtype",  "status",    "device",
                          "median_ms", "flops", "bytes",
                          "reference_backend", "reference_median_ms"};
  for (const char *name : needed)
    if (column(name) < 0) {
      error = path.str() + ":1: no '" + name +
              "' column (not a CSV written by boo-driver --csv?)";
      return false;
    }
  for (size_t r = 1; r < records.size(); ++r) {
    const std::vector<std::string> &record = records[r];
    if (record.size() == 1 && record[0].empty())
      continue;
    if (record.size() != header.size()) {
      error = path.str() + ": record " + std::to_string(r + 1) + " has " +
              std::to_string(record.size()) + " fields, the header " +
              std::to_string(header.size());
      return false;
    }
    auto get = [&](llvm::StringRef name) { return record[column(name)]; };
    auto number = [&](llvm::StringRef name, double &value) {
      std::string text = get(name);
      if (text.empty())
        return false;
      if (llvm::StringRef(text).getAsDouble(value)) {
        error = path.str() + ": record " + std::to_string(r + 1) + ": " +
                name.str() + " '" + text + "' is not a number";
        return false;
      }
      return true;
    };
    CommandRow row;
    double index = 0;
    if (!number("index", index) && !error.empty())
      return false;
    row.index = static_cast<int64_t>(index);
    row.command = get("command");
    row.kind = get("kind");
    row.dtype = get("dtype");
    row.ok = get("status") == "ok";
    row.device = get("device");
    double median = 0, referenceMedian = 0;
    if (number("median_ms", median)) {
      row.time = TimingStats();
      row.time->iterations = 1;
      row.time->median = median;
    }
    if (!error.empty())
      return false;
    number("flops", row.flops);
    number("bytes", row.bytes);
    row.referenceBackend = get("reference_backend");
    if (number("reference_median_ms", referenceMedian)) {
      row.referenceTime = TimingStats();
      row.referenceTime->iterations = 1;
      row.referenceTime->median = referenceMedian;
    }
    if (!error.empty())
      return false;
    rows.push_back(std::move(row));
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Roofline
//===----------------------------------------------------------------------===//

namespace {

constexpr int kChains = 12;

/// `iterations` rounds of kChains independent multiply-adds on vectors of
/// W floats; returns a value that depends on every lane (so nothing is
/// optimized away). Clang contracts a * b + c to an FMA where the target
/// has one; always_inline puts the loop into the target-specific callers
/// below (an out-of-line instantiation would be compiled for the baseline
/// ISA).
template <int W>
__attribute__((always_inline)) inline float fmaRounds(int64_t iterations) {
  typedef float V __attribute__((ext_vector_type(W)));
  V acc[kChains];
  for (int c = 0; c < kChains; ++c)
    acc[c] = V(1.0f + c * 1e-3f);
  V scale = V(0.999999f), shift = V(1e-6f);
  // Opaque to the optimizer, which would otherwise fold the loop away.
  asm volatile("" : "+m"(scale), "+m"(shift), "+m"(acc));
  for (int64_t i = 0; i < iterations; ++i)
    for (int c = 0; c < kChains; ++c)
      acc[c] = acc[c] * scale + shift;
  float sum = 0;
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < W; ++l)
      sum += acc[c][l];
  return sum;
}

__attribute__((target("avx512f"))) float fmaAvx512(int64_t iterations) {
  return fmaRounds<16>(iterations);
}
__attribute__((target("avx2,fma"))) float fmaAvx2(int64_t iterations) {
  return fmaRounds<8>(iterations);
}
float fmaSse(int64_t iterations) { return fmaRounds<4>(iterations); }

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

} // namespace

Roofline mlir::boo::driver::measureHostRoofline() {
  Roofline roofline;
  int width = 4;
  float (*kernel)(int64_t) = fmaSse;
  bool fused = false;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    width = 16;
    kernel = fmaAvx512;
    fused = true;
  } else if (__builtin_cpu_supports("avx2") &&
             __builtin_cpu_supports("fma")) {
    width = 8;
    kernel = fmaAvx2;
    fused = true;
  }
#endif
  unsigned threads = std::max(1u, llvm::get_physical_cores() > 0
                                      ? unsigned(llvm::get_physical_cores())
                                      : std::thread::hardware_concurrency());
  threads = std::max(threads, std::thread::hardware_concurrency());
  const int64_t iterations = 4'000'000;
  std::vector<std::thread> workers;
  // The sums are printed nowhere but must be computed: volatile stores.
  std::unique_ptr<volatile float[]> sinks(new volatile float[threads]);
  auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] { sinks[t] = kernel(iterations); });
  for (std::thread &w : workers)
    w.join();
  double seconds = secondsSince(start);
  double flops = double(threads) * iterations * kChains * width * 2.0;
  roofline.peakGflops = flops / seconds / 1e9;

  // Bandwidth: every thread copies its slice of 256 MiB, three times;
  // bytes read plus bytes written.
  const size_t bytes = size_t(256) << 20;
  std::vector<char> source(bytes, 1), target(bytes, 0);
  workers.clear();
  start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      size_t slice = bytes / threads, begin = t * slice;
      for (int r = 0; r < 3; ++r)
        std::memcpy(target.data() + begin, source.data() + begin, slice);
    });
  for (std::thread &w : workers)
    w.join();
  seconds = secondsSince(start);
  roofline.gbps = 2.0 * 3.0 * bytes / seconds / 1e9;
  roofline.description =
      "host, " + std::to_string(threads) + " threads, " +
      std::to_string(width * 32) + "-bit " + (fused ? "FMA" : "mul+add") +
      " peak " + number(roofline.peakGflops, "%.1f") + " GFLOP/s, memcpy " +
      number(roofline.gbps, "%.1f") + " GB/s";
  return roofline;
}

//===----------------------------------------------------------------------===//
// Plot
//===----------------------------------------------------------------------===//

static std::string escapeXml(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

bool mlir::boo::driver::writePlot(llvm::StringRef path,
                            const std::vector<CommandRow> &rows,
                            const std::optional<Roofline> &roofline,
                            llvm::StringRef title, std::string &error) {
  struct Bar {
    const CommandRow *row;
    double boo;
    std::optional<double> reference, bound;
  };
  std::vector<Bar> bars;
  double lo = INFINITY, hi = 0;
  auto extend = [&](double v) {
    if (v > 0) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  };
  for (const CommandRow &row : rows) {
    if (!row.ok || !row.time)
      continue;
    Bar bar{&row, row.gflops(), row.referenceGflops(), std::nullopt};
    if (roofline && row.bytes > 0)
      bar.bound = std::min(roofline->peakGflops,
                           row.flops / row.bytes * roofline->gbps);
    extend(bar.boo);
    if (bar.reference)
      extend(*bar.reference);
    if (bar.bound)
      extend(*bar.bound);
    bars.push_back(bar);
  }
  if (bars.empty()) {
    error = "--emit-plot: no command was timed (give -t 1 or --time)";
    return false;
  }
  double logLo = std::floor(std::log10(lo)), logHi = std::ceil(std::log10(hi));
  if (logHi <= logLo)
    logHi = logLo + 1;

  // Title, roofline and legend above the plot; rotated labels below it.
  const double left = 70, top = 76, plotHeight = 300, slot = 36;
  const double plotWidth = std::max(420.0, slot * bars.size());
  const double width = left + plotWidth + 90, height = top + plotHeight + 200;
  auto y = [&](double v) {
    double t = (std::log10(std::max(v, std::pow(10.0, logLo))) - logLo) /
               (logHi - logLo);
    return top + plotHeight * (1 - t);
  };

  std::string svg;
  llvm::raw_string_ostream os(svg);
  os << llvm::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
                     "height=\"%.0f\" font-family=\"sans-serif\" "
                     "font-size=\"11\">\n",
                     width, height);
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << llvm::format("<text x=\"%.0f\" y=\"20\" font-size=\"14\">", left)
     << escapeXml(title) << "</text>\n";
  if (roofline)
    os << llvm::format("<text x=\"%.0f\" y=\"36\" fill=\"#555\">", left)
       << "roofline: " << escapeXml(roofline->description) << "</text>\n";
  // Grid lines per decade.
  for (double d = logLo; d <= logHi; d += 1) {
    double gy = y(std::pow(10.0, d));
    os << llvm::format("<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" "
                       "stroke=\"#ddd\"/>\n",
                       left, left + plotWidth, gy, gy);
    os << llvm::format("<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g"
                       "</text>\n",
                       left - 6, gy + 4, std::pow(10.0, d));
  }
  os << llvm::format("<text transform=\"translate(16,%.0f) rotate(-90)\" "
                     "text-anchor=\"middle\">GFLOP/s (log)</text>\n",
                     top + plotHeight / 2);
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar &bar = bars[i];
    double x = left + slot * i + 4;
    double base = top + plotHeight;
    double bw = bar.reference ? 13 : 26;
    os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                       "height=\"%.1f\" fill=\"#3a6fb0\"><title>",
                       x, y(bar.boo), bw, base - y(bar.boo))
       << escapeXml(bar.row->command)
       << llvm::format(": Boo %.3g GFLOP/s</title></rect>\n", bar.boo);
    if (bar.reference)
      os << llvm::format("<rect x=\"%.1f\" y=\"%.1f\" width=\"13\" "
                         "height=\"%.1f\" fill=\"#aaa\"><title>reference "
                         "%.3g GFLOP/s</title></rect>\n",
                         x + 13, y(*bar.reference), base - y(*bar.reference),
                         *bar.reference);
    if (bar.bound)
      os << llvm::format("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                         "y2=\"%.1f\" stroke=\"#c0392b\" stroke-width=\"2\">"
                         "<title>roofline bound %.3g GFLOP/s</title></line>\n",
                         x - 2, x + 28, y(*bar.bound), y(*bar.bound),
                         *bar.bound);
    os << llvm::format("<text transform=\"translate(%.1f,%.1f) rotate(60)\">"
                       "#%lld ",
                       x + 8, base + 12, (long long)bar.row->index)
       << escapeXml(bar.row->kind + " " + bar.row->dtype) << "</text>\n";
  }
  double ly = 60;
  os << llvm::format("<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" "
                     "fill=\"#3a6fb0\"/><text x=\"%.0f\" y=\"%.0f\">Boo"
                     "</text>\n",
                     left, ly - 9, left + 14, ly);
  os << llvm::format("<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" "
                     "fill=\"#aaa\"/><text x=\"%.0f\" y=\"%.0f\">reference"
                     "</text>\n",
                     left + 60, ly - 9, left + 74, ly);
  os << llvm::format("<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" "
                     "stroke=\"#c0392b\" stroke-width=\"2\"/><text x=\"%.0f\" "
                     "y=\"%.0f\">roofline bound min(peak, intensity x "
                     "bandwidth)</text>\n",
                     left + 150, left + 170, ly - 4, ly - 4, left + 176, ly);
  os << "</svg>\n";

  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return false;
  }
  file << svg;
  return true;
}

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

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
