//===- ReportPlot.cpp - boo-driver's SVG plot -----------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// writePlot (--emit-plot): per timed command, Boo's GFLOP/s, the reference
// backend's, the roofline bound and, for GPU targets, the rate of the
// performance estimate, on a log scale.
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace mlir::boo::harness;

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

bool mlir::boo::harness::writePlot(llvm::StringRef path,
                                   const std::vector<CommandRow> &rows,
                                   const std::optional<Roofline> &roofline,
                                   llvm::StringRef title, std::string &error) {
  struct Bar {
    const CommandRow *row;
    double boo;
    std::optional<double> reference, bound, estimate;
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
    Bar bar{&row, row.gflops(), row.referenceGflops(), std::nullopt,
            row.estimatedGflops()};
    if (roofline && row.bytes > 0)
      bar.bound = std::min(roofline->peakGflops,
                           row.flops / row.bytes * roofline->gbps);
    extend(bar.boo);
    if (bar.reference)
      extend(*bar.reference);
    if (bar.bound)
      extend(*bar.bound);
    if (bar.estimate)
      extend(*bar.estimate);
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
    if (bar.estimate)
      os << llvm::format("<path d=\"M %.1f %.1f l 5 -5 l 5 5 l -5 5 z\" "
                         "fill=\"#27ae60\"><title>ESTIMATE on %s: %.3g "
                         "GFLOP/s (%.4g us, %s-bound)</title></path>\n",
                         x + 8, y(*bar.estimate),
                         escapeXml(bar.row->estimate->chip).c_str(),
                         *bar.estimate, bar.row->estimate->us,
                         escapeXml(bar.row->estimate->bound).c_str());
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
  if (llvm::any_of(bars, [](const Bar &bar) { return bar.estimate; }))
    os << llvm::format("<path d=\"M %.0f %.0f l 5 -5 l 5 5 l -5 5 z\" "
                       "fill=\"#27ae60\"/><text x=\"%.0f\" y=\"%.0f\">"
                       "GPU estimate (docs/PerfModel.md), not a measurement"
                       "</text>\n",
                       left + 410, ly - 4, left + 424, ly);
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
