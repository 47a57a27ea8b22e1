// The outputs of `egret compare`: one row per (graph, strategy), written as a
// text table, CSV, Markdown (with the geometric mean of cost relative to
// greedy) and an SVG grouped bar chart (egret's own small writer).
#ifndef EGRET_PIPELINE_COMPARE_REPORT_H_
#define EGRET_PIPELINE_COMPARE_REPORT_H_

#include <map>
#include <string>
#include <vector>

#include "egret/pipeline/strategies.h"

namespace egret {

struct CompareRow {
  std::string graph;          // as named on the command line
  StrategyResult result;      // result.graph may be empty (not reported)
  size_t peak_rss_bytes = 0;  // the process's peak RSS while the strategy ran
  std::string error;          // the strategy failed (result is then empty)
};

// "ok", "FAIL" or "error".
std::string VerifyCell(const CompareRow& row);

// Per strategy (by name), the geometric mean over graphs of cost / greedy's
// cost on the same graph; graphs where either cost is not finite and positive
// are left out. Empty when no row is greedy.
std::map<std::string, double> GeomeanRelativeToGreedy(const std::vector<CompareRow>& rows);

// Header: graph,strategy,hvx_cost,nodes,ops_added,ops_removed,time_ms,
// peak_rss_bytes,egraph_nodes,verify; ops as "Op:n Op:n".
std::string CompareCsv(const std::vector<CompareRow>& rows);
// Aligned columns for the terminal, with cost relative to greedy.
std::string CompareText(const std::vector<CompareRow>& rows);
// A Markdown table and the geometric-mean table.
std::string CompareMarkdown(const std::vector<CompareRow>& rows);
// A grouped bar chart: per graph, one bar per strategy of cost / greedy's
// cost (a dashed line at 1); graphs without a greedy row are left out.
std::string CompareSvg(const std::vector<CompareRow>& rows);

}  // namespace egret

#endif  // EGRET_PIPELINE_COMPARE_REPORT_H_
