//===- ReportCsv.cpp - boo-driver's rows and their CSV --------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// One row per command: timing statistics and the derived rates, written as
// CSV (RFC 4180) by --csv and read back by --from-csv.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

using namespace mlir::boo::harness;

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

std::optional<double> CommandRow::estimatedGflops() const {
  if (!estimate || estimate->us <= 0 || flops <= 0)
    return std::nullopt;
  return flops / (estimate->us * 1e3);
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

std::string mlir::boo::harness::formatNumber(double v, const char *format) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), format, v);
  return buffer;
}

bool mlir::boo::harness::writeCsv(llvm::StringRef path,
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
        "reference_max_rel_error,est_chip,est_us,est_bound,est_peak_pct,"
        "est_counts\n";
  for (const CommandRow &row : rows) {
    std::vector<std::string> fields = {std::to_string(row.index),
                                       csvField(row.command),
                                       row.kind,
                                       row.dtype,
                                       row.ok ? "ok" : "failed",
                                       csvField(row.error),
                                       csvField(row.device),
                                       formatNumber(row.compileMs, "%.3f"),
                                       row.cache};
    if (row.time) {
      fields.push_back(std::to_string(row.time->iterations));
      for (double v : {row.time->min, row.time->max, row.time->mean,
                       row.time->median, row.time->stddev})
        fields.push_back(formatNumber(v, "%.6f"));
    } else {
      fields.insert(fields.end(), 6, "");
    }
    fields.push_back(formatNumber(row.flops, "%.0f"));
    fields.push_back(formatNumber(row.bytes, "%.0f"));
    fields.push_back(row.time ? formatNumber(row.gflops(), "%.4f") : "");
    fields.push_back(row.time ? formatNumber(row.gbps(), "%.4f") : "");
    fields.push_back(row.verify);
    fields.push_back(csvField(row.verifyDetails));
    fields.push_back(row.referenceBackend);
    fields.push_back(row.referenceTime
                         ? formatNumber(row.referenceTime->median, "%.6f")
                         : "");
    std::optional<double> refGflops = row.referenceGflops();
    fields.push_back(refGflops ? formatNumber(*refGflops, "%.4f") : "");
    fields.push_back(
        row.time && row.referenceTime && row.time->median > 0
            ? formatNumber(row.referenceTime->median / row.time->median, "%.3f")
            : "");
    fields.push_back(row.referenceRelativeError
                         ? formatNumber(*row.referenceRelativeError, "%.3e")
                         : "");
    if (row.estimate) {
      fields.push_back(row.estimate->chip);
      fields.push_back(formatNumber(row.estimate->us, "%.3f"));
      fields.push_back(row.estimate->bound);
      fields.push_back(formatNumber(row.estimate->peakPct, "%.1f"));
      fields.push_back(row.estimate->counts);
    } else {
      fields.insert(fields.end(), 5, "");
    }
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

bool mlir::boo::harness::readCsv(llvm::StringRef path,
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
  const char *needed[] = {"index",
                          "command",
                          "kind",
                          "dtype",
                          "status",
                          "device",
                          "median_ms",
                          "flops",
                          "bytes",
                          "reference_backend",
                          "reference_median_ms"};
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
    // The estimate's columns are optional (CSVs of older boo-drivers).
    double estimatedUs = 0;
    if (column("est_us") >= 0 && number("est_us", estimatedUs)) {
      row.estimate = CommandRow::Estimate();
      row.estimate->us = estimatedUs;
      row.estimate->chip = column("est_chip") >= 0 ? get("est_chip") : "";
      row.estimate->bound = column("est_bound") >= 0 ? get("est_bound") : "";
      row.estimate->counts = column("est_counts") >= 0 ? get("est_counts") : "";
      if (column("est_peak_pct") >= 0)
        number("est_peak_pct", row.estimate->peakPct);
    }
    if (!error.empty())
      return false;
    rows.push_back(std::move(row));
  }
  return true;
}
