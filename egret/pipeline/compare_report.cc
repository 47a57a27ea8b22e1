#include "egret/pipeline/compare_report.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/pipeline/svg_chart.h"

namespace egret {
namespace {

std::string OpsCell(const std::map<std::string, int64_t>& ops) {
  std::vector<std::string> parts;
  for (const auto& [op, n] : ops) parts.push_back(absl::StrCat(op, ":", n));
  return absl::StrJoin(parts, " ");
}

std::string Num(double v) { return std::isfinite(v) ? absl::StrFormat("%.6g", v) : "inf"; }

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// "dir/name.ext" -> "name": the chart's labels.
std::string ShortName(const std::string& path) {
  std::string n = path.substr(path.find_last_of('/') + 1);
  return n.substr(0, n.find_last_of('.'));
}

// The greedy cost of each graph, when finite and positive.
std::map<std::string, double> GreedyCosts(const std::vector<CompareRow>& rows) {
  std::map<std::string, double> greedy;
  for (const CompareRow& r : rows) {
    if (r.error.empty() && r.result.strategy == Strategy::kGreedy && std::isfinite(r.result.cost) &&
        r.result.cost > 0) {
      greedy[r.graph] = r.result.cost;
    }
  }
  return greedy;
}

// cost / greedy's cost on the same graph, when both are usable.
std::optional<double> Relative(const CompareRow& r, const std::map<std::string, double>& greedy) {
  auto it = greedy.find(r.graph);
  if (!r.error.empty() || it == greedy.end() || !std::isfinite(r.result.cost) ||
      r.result.cost <= 0) {
    return std::nullopt;
  }
  return r.result.cost / it->second;
}

std::vector<std::string> StrategiesInOrder(const std::vector<CompareRow>& rows) {
  std::vector<std::string> names;
  for (const CompareRow& r : rows) {
    std::string n = StrategyName(r.result.strategy);
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  return names;
}

// The cells of one row, in CSV column order, plus the relative cost.
std::vector<std::string> Cells(const CompareRow& r, const std::map<std::string, double>& greedy) {
  const StrategyResult& s = r.result;
  std::optional<double> rel = Relative(r, greedy);
  if (!r.error.empty()) {
    return {r.graph, StrategyName(s.strategy), "", "", "", "", "", "", "", VerifyCell(r), ""};
  }
  return {r.graph,
          StrategyName(s.strategy),
          Num(s.cost),
          absl::StrCat(s.nodes),
          OpsCell(s.ops_added),
          OpsCell(s.ops_removed),
          absl::StrFormat("%.2f", s.time_ms),
          absl::StrCat(r.peak_rss_bytes),
          s.egraph_nodes > 0 ? absl::StrCat(s.egraph_nodes) : "",
          VerifyCell(r),
          rel ? absl::StrFormat("%.4f", *rel) : ""};
}

}  // namespace

std::string VerifyCell(const CompareRow& row) {
  if (!row.error.empty()) return "error";
  if (row.result.verified) return "ok";
  if (row.result.verify_message == "not run") return "not run";
  return row.result.verdict == VerifyVerdict::kIncomplete ? "incomplete" : "FAIL";
}

std::map<std::string, double> GeomeanRelativeToGreedy(const std::vector<CompareRow>& rows) {
  const std::map<std::string, double> greedy = GreedyCosts(rows);
  std::map<std::string, std::pair<double, int>> sums;
  for (const CompareRow& r : rows) {
    if (std::optional<double> rel = Relative(r, greedy)) {
      auto& [log_sum, n] = sums[StrategyName(r.result.strategy)];
      log_sum += std::log(*rel);
      ++n;
    }
  }
  std::map<std::string, double> out;
  for (const auto& [name, s] : sums) out[name] = std::exp(s.first / s.second);
  return out;
}

std::string CompareCsv(const std::vector<CompareRow>& rows) {
  const std::map<std::string, double> greedy = GreedyCosts(rows);
  std::string out =
      "graph,strategy,hvx_cost,nodes,ops_added,ops_removed,time_ms,peak_rss_bytes,egraph_nodes,"
      "verify\n";
  for (const CompareRow& r : rows) {
    std::vector<std::string> cells = Cells(r, greedy);
    cells.pop_back();  // the relative cost is not a CSV column
    for (std::string& c : cells) c = CsvField(c);
    absl::StrAppend(&out, absl::StrJoin(cells, ","), "\n");
  }
  return out;
}

std::string CompareText(const std::vector<CompareRow>& rows) {
  const std::map<std::string, double> greedy = GreedyCosts(rows);
  const std::vector<std::string> header = {"graph",  "strategy", "hvx_cost", "nodes",
                                           "+ops",   "-ops",     "time_ms",  "peak_rss",
                                           "enodes", "verify",   "vs_greedy"};
  std::vector<std::vector<std::string>> table = {header};
  for (const CompareRow& r : rows) table.push_back(Cells(r, greedy));
  // The op lists are long: the text table shows their totals.
  for (size_t i = 1; i < table.size(); ++i) {
    for (int col : {4, 5}) {
      int64_t total = 0;
      const auto& ops = col == 4 ? rows[i - 1].result.ops_added : rows[i - 1].result.ops_removed;
      for (const auto& [op, n] : ops) total += n;
      table[i][col] = absl::StrCat(total);
    }
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      absl::StrAppend(&line, c == 0 ? "" : "  ", row[c],
                      std::string(width[c] - row[c].size(), ' '));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  for (const auto& [name, g] : GeomeanRelativeToGreedy(rows)) {
    absl::StrAppendFormat(&out, "geomean cost vs greedy: %s %.4f\n", name, g);
  }
  return out;
}

std::string CompareMarkdown(const std::vector<CompareRow>& rows) {
  const std::map<std::string, double> greedy = GreedyCosts(rows);
  std::string out =
      "| graph | strategy | HVX cost | vs greedy | nodes | ops added | ops removed | time ms | "
      "peak RSS bytes | e-nodes | verify |\n|---|---|---:|---:|---:|---|---|---:|---:|---:|---|\n";
  for (const CompareRow& r : rows) {
    std::vector<std::string> c = Cells(r, greedy);
    absl::StrAppendFormat(&out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c[0],
                          c[1], c[2], c[10], c[3], c[4], c[5], c[6], c[7], c[8], c[9]);
  }
  out += "\n| strategy | geometric mean of cost / greedy's |\n|---|---:|\n";
  for (const std::string& name : StrategiesInOrder(rows)) {
    auto g = GeomeanRelativeToGreedy(rows);
    if (g.contains(name)) absl::StrAppendFormat(&out, "| %s | %.4f |\n", name, g[name]);
  }
  return out;
}

std::string CompareSvg(const std::vector<CompareRow>& rows) {
  const std::map<std::string, double> greedy = GreedyCosts(rows);
  const std::vector<std::string> strategies = StrategiesInOrder(rows);
  std::vector<std::string> graphs;
  for (const CompareRow& r : rows) {
    if (greedy.contains(r.graph) &&
        std::find(graphs.begin(), graphs.end(), r.graph) == graphs.end()) {
      graphs.push_back(r.graph);
    }
  }
  // The y axis spans [bottom_v, top]: the differences are often a few
  // percent, so the axis starts just below the lowest bar (at 0 when that
  // is below 0.5).
  double top = 1.0, low = 1.0;
  for (const CompareRow& r : rows) {
    if (std::optional<double> rel = Relative(r, greedy)) {
      top = std::max(top, *rel);
      low = std::min(low, *rel);
    }
  }
  top = std::ceil(top * 50 + 0.5) / 50;
  double bottom_v = std::floor(low * 50 - 0.5) / 50;
  if (bottom_v < 0.5) bottom_v = 0;
  const double bar = 12, gap = 18, left = 150, top_margin = 40, plot_h = 260, bottom = 150;
  const double group_w = bar * std::max<size_t>(strategies.size(), 1) + gap;
  const double width = left + group_w * graphs.size() + 180;
  const double height = top_margin + plot_h + bottom;
  auto y_of = [&](double v) {
    return top_margin + plot_h * (1 - (v - bottom_v) / (top - bottom_v));
  };
  std::string out = SvgOpen(width, height, "HVX cost relative to greedy (lower is better)", left);
  for (int i = 0; i <= 5; ++i) {  // y axis ticks
    const double v = bottom_v + (top - bottom_v) * i / 5, y = y_of(v);
    absl::StrAppendFormat(
        &out,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3f</text>\n",
        left, y, width - 180, y, left - 6, y + 4, v);
  }
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const double x0 = left + gap / 2 + gi * group_w;
    for (size_t si = 0; si < strategies.size(); ++si) {
      for (const CompareRow& r : rows) {
        if (r.graph != graphs[gi] || StrategyName(r.result.strategy) != strategies[si]) continue;
        std::optional<double> rel = Relative(r, greedy);
        if (!rel) continue;
        const double y = y_of(*rel);
        absl::StrAppendFormat(&out,
                              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                              "fill=\"%s\"><title>%s %s: %.4f</title></rect>\n",
                              x0 + si * bar, y, bar - 1, top_margin + plot_h - y, SeriesColor(si),
                              XmlEscape(graphs[gi]), strategies[si], *rel);
      }
    }
    const double lx = x0 + bar * strategies.size() / 2, ly = top_margin + plot_h + 8;
    absl::StrAppendFormat(&out,
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                          "transform=\"rotate(-40 %.1f %.1f)\">%s</text>\n",
                          lx, ly, lx, ly, XmlEscape(ShortName(graphs[gi])));
  }
  const double y1 = y_of(1.0);
  absl::StrAppendFormat(
      &out,
      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" "
      "stroke-dasharray=\"4 3\"/>\n"
      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
      left, y1, width - 180, y1, left, top_margin + plot_h, width - 180, top_margin + plot_h);
  AppendSvgLegend(&out, width - 160, top_margin + 10, strategies, /*lines=*/false);
  out += "</svg>\n";
  return out;
}

}  // namespace egret
