#include "egret/pipeline/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace egret {
namespace {

constexpr std::string_view kColors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                        "#edc948", "#b07aa1", "#9c755f", "#ff9da7"};

// A tick label: 1500 -> "1.5k", 2e6 -> "2M", 0.05 -> "0.05".
std::string TickLabel(double v) {
  if (v >= 1e6) return absl::StrFormat("%gM", v / 1e6);
  if (v >= 1e3) return absl::StrFormat("%gk", v / 1e3);
  return absl::StrFormat("%g", v);
}

// The tick values of a log axis over [lo, hi] (both > 0).
std::vector<double> LogTicks(double lo, double hi) {
  const bool fine = std::log10(hi / lo) < 3;
  std::vector<double> ticks;
  for (double p = std::pow(10.0, std::floor(std::log10(lo))); p <= hi * 1.0001; p *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1.0 && !fine) continue;
      const double v = p * m;
      if (v >= lo * 0.9999 && v <= hi * 1.0001) ticks.push_back(v);
    }
  }
  return ticks;
}

}  // namespace

std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
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

std::string_view SeriesColor(size_t i) { return kColors[i % std::size(kColors)]; }

std::string SvgOpen(double width, double height, std::string_view title, double title_x) {
  return absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%.0f\" y=\"20\" font-size=\"14\">%s</text>\n",
      width, height, title_x, XmlEscape(title));
}

void AppendSvgLegend(std::string* svg, double x, double y, const std::vector<std::string>& names,
                     bool lines, const std::vector<bool>& dashed,
                     const std::vector<bool>& markers) {
  for (size_t i = 0; i < names.size(); ++i) {
    const double ly = y + i * 18;
    if (lines && i < markers.size() && markers[i]) {
      absl::StrAppendFormat(svg, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", x + 11,
                            ly + 6, SeriesColor(i));
    } else if (lines) {
      const bool dash = i < dashed.size() && dashed[i];
      absl::StrAppendFormat(svg,
                            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                            "stroke-width=\"2\"%s/>\n",
                            x, ly + 6, x + 22, ly + 6, SeriesColor(i),
                            dash ? " stroke-dasharray=\"5 3\"" : "");
    } else {
      absl::StrAppendFormat(
          svg, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, ly,
          SeriesColor(i));
    }
    absl::StrAppendFormat(svg, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + (lines ? 28 : 18),
                          ly + 10, XmlEscape(names[i]));
  }
}

std::string LogLogSvg(const LogLogChart& chart) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = 0;
  double y_lo = x_lo, y_hi = 0;
  for (const LineSeries& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      if (x <= 0 || y <= 0 || !std::isfinite(x) || !std::isfinite(y)) continue;
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
  }
  const double left = 70, top = 40, plot_w = 520, plot_h = 340, legend_w = 230, bottom = 50;
  const double width = left + plot_w + legend_w, height = top + plot_h + bottom;
  std::string out = SvgOpen(width, height, chart.title, left);
  if (x_hi > 0) {
    // A margin of a quarter around the data (a point's marker stays inside),
    // and a factor of ten at least so a flat series still has gridlines.
    x_lo /= 1.25, x_hi *= 1.25, y_lo /= 1.25, y_hi *= 1.25;
    if (x_hi < 10 * x_lo) x_lo = x_hi / 10;
    if (y_hi < 10 * y_lo) y_lo = y_hi / 10;
    auto px = [&](double x) {
      return left + plot_w * std::log10(x / x_lo) / std::log10(x_hi / x_lo);
    };
    auto py = [&](double y) {
      return top + plot_h * (1 - std::log10(y / y_lo) / std::log10(y_hi / y_lo));
    };
    for (double t : LogTicks(x_lo, x_hi)) {
      absl::StrAppendFormat(
          &out,
          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
          px(t), top, px(t), top + plot_h, px(t), top + plot_h + 14, TickLabel(t));
    }
    for (double t : LogTicks(y_lo, y_hi)) {
      absl::StrAppendFormat(
          &out,
          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
          left, py(t), left + plot_w, py(t), left - 6, py(t) + 4, TickLabel(t));
    }
    for (size_t i = 0; i < chart.series.size(); ++i) {
      const LineSeries& s = chart.series[i];
      std::string path;
      for (size_t k = 0; k < s.points.size(); ++k) {
        const auto [x, y] = s.points[k];
        if (x <= 0 || y <= 0 || !std::isfinite(x) || !std::isfinite(y)) continue;
        absl::StrAppendFormat(&path, "%s%.1f,%.1f", path.empty() ? "" : " ", px(x), py(y));
        const std::string label =
            k < s.labels.size() ? absl::StrCat(s.name, " ", s.labels[k]) : s.name;
        absl::StrAppendFormat(&out,
                              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>%s: "
                              "%g, %g</title></circle>\n",
                              px(x), py(y), s.markers_only ? 4 : 3, SeriesColor(i),
                              XmlEscape(label), x, y);
      }
      if (s.markers_only) continue;
      absl::StrAppendFormat(&out,
                            "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                            "stroke-width=\"2\"%s/>\n",
                            path, SeriesColor(i), s.dashed ? " stroke-dasharray=\"5 3\"" : "");
    }
  }
  absl::StrAppendFormat(&out,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                        "stroke=\"black\"/>\n"
                        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n"
                        "<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" "
                        "transform=\"rotate(-90 14 %.1f)\">%s</text>\n",
                        left, top, plot_w, plot_h, left + plot_w / 2, top + plot_h + 36,
                        XmlEscape(chart.x_label), top + plot_h / 2, top + plot_h / 2,
                        XmlEscape(chart.y_label));
  std::vector<std::string> names;
  std::vector<bool> dashed, markers;
  for (const LineSeries& s : chart.series) {
    names.push_back(s.name);
    dashed.push_back(s.dashed);
    markers.push_back(s.markers_only);
  }
  AppendSvgLegend(&out, left + plot_w + 16, top + 6, names, /*lines=*/true, dashed, markers);
  out += "</svg>\n";
  return out;
}

}  // namespace egret
