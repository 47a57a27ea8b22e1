// The small SVG writer (pipeline/svg_chart.h): escaping, the log-log line
// chart's axes, points and legend.
#include "egret/pipeline/svg_chart.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

int Count(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(SvgChartTest, EscapesMarkup) {
  EXPECT_EQ(XmlEscape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
}

TEST(SvgChartTest, LogLogChartDrawsEachPositivePoint) {
  LogLogChart c;
  c.title = "t <1>";
  c.x_label = "nodes";
  c.y_label = "ms";
  c.series.push_back({"fast", {{1000, 1}, {10000, 10}, {100000, 100}}, false, false, {}});
  c.series.push_back({"slow", {{1000, 5}, {10000, 0}, {100000, 5000}}, true, false, {}});
  const std::string svg = LogLogSvg(c);
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr("</svg>"));
  EXPECT_THAT(svg, HasSubstr("t &lt;1&gt;"));
  EXPECT_EQ(Count(svg, "<circle"), 5);  // the zero is left out
  EXPECT_EQ(Count(svg, "<polyline"), 2);
  EXPECT_EQ(Count(svg, "stroke-dasharray"), 2);  // the slow line and its legend entry
  // Gridlines: x spans 1k..100k (two decades and margins: 1x, 2x, 5x), y
  // 1..5k (more than three decades: powers of ten only).
  EXPECT_THAT(svg, HasSubstr(">100k</text>"));
  EXPECT_THAT(svg, HasSubstr(">2k</text>"));
  EXPECT_THAT(svg, HasSubstr(">10k</text>"));
  EXPECT_THAT(svg, Not(HasSubstr(">20</text>")));
  // The first series' points lie on one straight line in log-log space:
  // equal steps in x and y between consecutive points.
  std::vector<double> cx, cy;
  for (size_t at = svg.find("<circle cx=\""); at != std::string::npos;
       at = svg.find("<circle cx=\"", at + 1)) {
    double x = 0, y = 0;
    ASSERT_EQ(std::sscanf(svg.c_str() + at, "<circle cx=\"%lf\" cy=\"%lf\"", &x, &y), 2);
    cx.push_back(x);
    cy.push_back(y);
  }
  ASSERT_GE(cx.size(), 3u);
  EXPECT_NEAR(cx[1] - cx[0], cx[2] - cx[1], 0.2);
  EXPECT_NEAR(cy[1] - cy[0], cy[2] - cy[1], 0.2);
  EXPECT_LT(cy[1], cy[0]);  // larger values are higher up
}

// A markers-only series (a scatter): dots, no line, each dot's tooltip with
// its label, and a dot in the legend.
TEST(SvgChartTest, ScatterSeriesHasDotsWithLabelsAndNoLine) {
  LogLogChart c;
  c.series.push_back({"nets", {{1, 2}, {10, 9}}, false, true, {"a<b", "c"}});
  const std::string svg = LogLogSvg(c);
  EXPECT_EQ(Count(svg, "<polyline"), 0);
  EXPECT_EQ(Count(svg, "<circle"), 3);  // two points and the legend's dot
  EXPECT_THAT(svg, HasSubstr("<title>nets a&lt;b: 1, 2</title>"));
  EXPECT_THAT(svg, HasSubstr("<title>nets c: 10, 9</title>"));
}

TEST(SvgChartTest, EmptyChartIsAFrame) {
  LogLogChart c;
  c.series.push_back({"none", {{0, 1}, {-1, 2}}, false, false, {}});
  const std::string svg = LogLogSvg(c);
  EXPECT_EQ(Count(svg, "<circle"), 0);
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

}  // namespace
}  // namespace egret
