// Runs every extractor on every e-graph of a directory (default: the
// extraction-gym sample) and writes a CSV (file, extractor, tree_cost,
// dag_cost, micros) plus a summary: per extractor, the geometric mean of its
// DAG cost over the best DAG cost found for the file, and its total time.
//
//   extract_bench [--dir DIR] [--csv OUT.csv] [--ilp-time-limit S]
//                 [--extractors NAME,...] [--filter SUBSTRING]
//
// The extractors are those of the registry (extract/extractor_registry.h),
// by default every one in registry order (tree, greedy, dag, ilp).
//
// Files whose best DAG cost is not positive are left out of the geometric
// mean (the ratio is meaningless there) and counted separately.
//
// Per file, the critical-path lower bound (extract/critical_path_bound.h)
// is computed too, apart from every extractor: its own CSV rows (extractor
// `critical_path_bound`, dag_cost = the bound, empty with negative costs)
// and a summary line, how many files' best cost it proves optimal by itself
// and how far below the best cost it lies.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "egret/extract/choice.h"
#include "egret/extract/critical_path_bound.h"
#include "egret/extract/egraph_serialize.h"
#include "egret/extract/extractor.h"
#include "egret/extract/extractor_registry.h"
#include "egret/extract/validate.h"
#include "egret/support/file_io.h"

namespace {

using egret::extract::ExtractionProblem;
using egret::extract::Extractor;

struct Row {
  std::string file, extractor;
  double tree_cost, dag_cost;
  int64_t micros;
  bool optimal = false;
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir = std::string(EGRET_SHARED_DIR) + "/extraction-gym";
  std::string csv_path = "extract_bench.csv";
  std::string extractors =
      absl::StrJoin(egret::extract::Extractors(), ",",
                    [](std::string* out, const Extractor& e) { out->append(e.name); });
  std::string filter;
  double ilp_limit = 10;
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(
          "usage: extract_bench [--dir DIR] [--csv OUT.csv] [--ilp-time-limit S]\n"
          "                     [--extractors NAME,...] [--filter SUBSTRING]\n"
          "Every extractor on every e-graph under DIR (default: the extraction-gym\n"
          "sample); docs/extraction.md. What each option does is at the top of\n"
          "bench/extract_bench.cc.\n",
          stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "extract_bench: %s needs a value (--help lists the flags)\n",
                   flag.c_str());
      return 2;
    }
    std::string value = argv[i + 1];
    if (flag == "--dir")
      dir = value;
    else if (flag == "--csv")
      csv_path = value;
    else if (flag == "--ilp-time-limit")
      ilp_limit = std::stod(value);
    else if (flag == "--extractors")
      extractors = value;
    else if (flag == "--filter")
      filter = value;
    else {
      std::fprintf(stderr, "extract_bench: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".json" &&
        e.path().string().find(filter) != std::string::npos) {
      files.push_back(e.path().string());
    }
  }
  if (ec || files.empty()) {
    std::fprintf(stderr, "extract_bench: no .json files under %s\n", dir.c_str());
    return 2;
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> names = absl::StrSplit(extractors, ',');
  std::vector<const Extractor*> chosen;
  for (const std::string& name : names) {
    absl::StatusOr<const Extractor*> e = egret::extract::LookupExtractor(name);
    if (!e.ok()) {
      std::fprintf(stderr, "extract_bench: --extractors: %s\n",
                   std::string(e.status().message()).c_str());
      return 2;
    }
    chosen.push_back(*e);
  }
  egret::extract::ExtractOptions options;
  options.time_limit_seconds = ilp_limit;

  std::vector<Row> rows;
  std::string csv = "file,extractor,tree_cost,dag_cost,micros\n";
  std::map<std::string, double> total_micros;
  std::map<std::string, int> optimal_count;
  int64_t load_micros = 0;
  std::map<std::string, double> path_bound;  // per file with one
  double path_bound_micros = 0;
  for (const std::string& f : files) {
    std::string rel = std::filesystem::relative(f, dir).string();
    auto t0 = std::chrono::steady_clock::now();
    absl::StatusOr<ExtractionProblem> p = egret::extract::ReadEgraphSerializeFile(f);
    load_micros +=
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    if (!p.ok()) {
      std::fprintf(stderr, "%s\n", std::string(p.status().message()).c_str());
      return 2;
    }
    {
      auto start = std::chrono::steady_clock::now();
      std::optional<egret::extract::CriticalPathBound> b =
          egret::extract::ComputeCriticalPathBound(*p);
      const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count();
      path_bound_micros += static_cast<double>(us);
      if (b.has_value()) path_bound[rel] = b->bound;
      absl::StrAppend(&csv, rel, ",critical_path_bound,,",
                      b.has_value() ? absl::StrFormat("%.9g", b->bound) : "", ",", us, "\n");
    }
    for (const Extractor* e : chosen) {
      const std::string name(e->name);
      auto start = std::chrono::steady_clock::now();
      absl::StatusOr<egret::extract::ExtractorOutput> c = e->run(*p, options);
      int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                       std::chrono::steady_clock::now() - start)
                       .count();
      if (!c.ok() || !egret::extract::ValidateChoice(*p, c->choice).ok()) {
        std::fprintf(stderr, "%s: %s failed: %s\n", rel.c_str(), name.c_str(),
                     c.ok() ? "invalid choice" : std::string(c.status().message()).c_str());
        return 1;
      }
      const bool optimal = c->optimal;
      Row r{rel,
            name,
            egret::extract::TreeCost(*p, c->choice),
            egret::extract::DagCost(*p, c->choice),
            us,
            optimal};
      std::fprintf(stderr, "%-60s %-7s nodes=%-6zu tree=%-14.6g dag=%-14.6g %10.3f ms%s\n",
                   rel.c_str(), name.c_str(), p->num_nodes(), r.tree_cost, r.dag_cost, us / 1e3,
                   e->proves_optimality ? (optimal ? " optimal" : " not proven") : "");
      absl::StrAppend(&csv, rel, ",", name, ",",
                      absl::StrFormat("%.9g,%.9g,", r.tree_cost, r.dag_cost), us, "\n");
      total_micros[name] += static_cast<double>(us);
      if (optimal) ++optimal_count[name];
      rows.push_back(r);
    }
  }
  if (absl::Status s = egret::WriteFileAtomically(csv_path, csv); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 2;
  }
  // Summary.
  std::map<std::string, double> best;
  for (const Row& r : rows) {
    auto it = best.find(r.file);
    if (it == best.end() || r.dag_cost < it->second) best[r.file] = r.dag_cost;
  }
  std::printf("files: %zu (loading all: %.1f ms); CSV: %s\n", files.size(), load_micros / 1e3,
              csv_path.c_str());
  std::printf(
      "| extractor | geomean DAG cost / best | files at best | sum of DAG costs | total time |\n");
  std::printf("|---|---|---|---|---|\n");
  for (const Extractor* e : chosen) {
    const std::string name(e->name);
    double log_sum = 0, cost_sum = 0;
    int n = 0, at_best = 0, skipped = 0;
    for (const Row& r : rows) {
      if (r.extractor != name) continue;
      double b = best[r.file];
      cost_sum += r.dag_cost;
      if (r.dag_cost <= b + 1e-9 * std::max(1.0, std::abs(b))) ++at_best;
      if (b > 0) {
        log_sum += std::log(r.dag_cost / b);
        ++n;
      } else {
        ++skipped;
      }
    }
    std::printf(
        "| %s | %.5f | %d/%zu | %.6g | %.3f s%s |\n", name.c_str(), n ? std::exp(log_sum / n) : 1.0,
        at_best, files.size(), cost_sum, total_micros[name] / 1e6,
        e->proves_optimality ? absl::StrCat(" (", optimal_count[name], " proven optimal)").c_str()
                             : "");
    if (skipped)
      std::printf("  (%d files with best DAG cost <= 0 left out of the mean)\n", skipped);
  }
  // The critical-path bound against the best cost found: files it proves
  // (within the ILP's tolerance) and the geometric mean of best / bound.
  int proven = 0, positive = 0;
  double log_gap = 0;
  for (const auto& [file, bound] : path_bound) {
    const double b = best[file];
    if (b <= bound + 1e-6 * std::max(1.0, std::abs(b))) ++proven;
    if (bound > 0) {
      log_gap += std::log(b / bound);
      ++positive;
    }
  }
  std::printf(
      "critical-path bound: %zu files with non-negative costs, proves the best cost of %d; "
      "geomean best / bound %.4f over %d files with a positive bound; %.3f s in all\n",
      path_bound.size(), proven, positive ? std::exp(log_gap / positive) : 1.0, positive,
      path_bound_micros / 1e6);
  return 0;
}
