// egret's small SVG writer, shared by `egret compare --plot` (a bar chart,
// pipeline/compare_report.h) and bench/scaling (log-log line charts): the
// document frame, the series palette, legends, and a log-log line chart.
// Output is plain SVG 1.1 that browsers and rsvg-convert render.
#ifndef EGRET_PIPELINE_SVG_CHART_H_
#define EGRET_PIPELINE_SVG_CHART_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace egret {

// `s` with <, >, & and " escaped for SVG text and attributes.
std::string XmlEscape(std::string_view s);

// The fill/stroke color of series `i` (a fixed palette, repeated).
std::string_view SeriesColor(size_t i);

// An SVG document's opening: the <svg> element of `width` x `height`, a white
// background and `title` at (title_x, 20). Close it with "</svg>\n".
std::string SvgOpen(double width, double height, std::string_view title, double title_x);

// A legend at (x, y), one entry per name 18 px apart, in SeriesColor order:
// a filled square per entry, or a line (dashed for entries in `dashed`; a dot
// for entries in `markers`, a scatter's series) when `lines` is set.
void AppendSvgLegend(std::string* svg, double x, double y, const std::vector<std::string>& names,
                     bool lines, const std::vector<bool>& dashed = {},
                     const std::vector<bool>& markers = {});

struct LineSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y); non-positive values are left out
  bool dashed = false;
  // Points only, not joined (a scatter plot), each with its label (when
  // given, labels[i] for points[i]) in its tooltip.
  bool markers_only = false;
  std::vector<std::string> labels;
};

struct LogLogChart {
  std::string title, x_label, y_label;
  std::vector<LineSeries> series;  // colored by position, SeriesColor(i)
};

// A line chart with logarithmic x and y axes spanning the data with a margin
// (at least a factor of ten each), gridlines at the powers of ten (and 2x, 5x
// when an axis spans less than three decades), a marker per point
// and a legend on the right. Points are joined in the order given. With no
// positive point at all the chart is an empty frame.
std::string LogLogSvg(const LogLogChart& chart);

}  // namespace egret

#endif  // EGRET_PIPELINE_SVG_CHART_H_
