// egret extract EGRAPH.json [--extractor NAME] [--time-limit S] [--json]
//
// Reads an egraph-serialize JSON e-graph, extracts one term per reachable
// class with a registered extractor (extract/extractor_registry.h; default
// dag) and prints its tree and DAG cost (or, with --json, one object with
// tree_cost, dag_cost, choices, time_ms and, for an extractor that proves
// optimality (ilp), optimal and bound). For the other extractors it prints
// the critical-path lower bound (extract/critical_path_bound.h; JSON
// lower_bound, null with negative costs), computed after the time is taken:
// when it meets the DAG cost, the heuristic's choice is optimal.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/extractor_option.h"
#include "egret/extract/critical_path_bound.h"
#include "egret/extract/egraph_serialize.h"
#include "egret/extract/extractor.h"
#include "egret/graph/json_text.h"
#include "egret/support/diagnostic.h"
#include "nlohmann/json.hpp"

namespace egret::cli {
namespace {

struct ExtractArgs {
  std::string path;
  std::string extractor;
  double time_limit = 10.0;
  bool json = false;
};

int RunExtract(const ExtractArgs& args) {
  const extract::Extractor* extractor = ExtractorOption("extract", args.extractor);
  if (extractor == nullptr) return kExitBadInput;
  if (!(args.time_limit > 0) || !std::isfinite(args.time_limit)) {
    std::fprintf(stderr,
                 "egret extract: error: --time-limit must be a positive number of seconds\n");
    return kExitBadInput;
  }
  auto start = std::chrono::steady_clock::now();
  extract::EgraphSourceMap where;
  absl::StatusOr<extract::ExtractionProblem> problem =
      extract::ReadEgraphSerializeFile(args.path, &where);
  if (!problem.ok()) {
    std::fprintf(stderr, "%s\n", std::string(problem.status().message()).c_str());
    return ExitCodeFor(problem.status());
  }
  extract::ExtractOptions options;
  options.time_limit_seconds = args.time_limit;
  absl::StatusOr<extract::ExtractResult> result = extract::Extract(*problem, *extractor, options);
  if (!result.ok()) {
    // A cycle or a negative-cost cycle names a class: point at its first node.
    absl::Status located = where.Locate(result.status(), args.path);
    std::fprintf(stderr, "%s\n", std::string(located.message()).c_str());
    return ExitCodeFor(located);
  }
  // The tree cost pays a shared class at every use, so it can overflow where
  // the DAG cost does not: an answer of "inf" is an error, not a cost.
  // (The largest double itself is the tree extractor's saturated overflow.)
  auto overflows = [](double v) { return !(std::fabs(v) < std::numeric_limits<double>::max()); };
  if (overflows(result->tree_cost) || overflows(result->dag_cost)) {
    const bool tree = overflows(result->tree_cost);
    std::fprintf(stderr, "%s: error: the extracted term's %s cost overflows (%g)\n",
                 args.path.c_str(), tree ? "tree" : "DAG",
                 tree ? result->tree_cost : result->dag_cost);
    return kExitBadInput;
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::optional<extract::CriticalPathBound> lower;
  if (!extractor->proves_optimality) lower = extract::ComputeCriticalPathBound(*problem);
  if (args.json) {
    nlohmann::ordered_json out;
    out["extractor"] = args.extractor;
    out["tree_cost"] = result->tree_cost;
    out["dag_cost"] = result->dag_cost;
    nlohmann::ordered_json choices = nlohmann::ordered_json::object();
    for (extract::ClassId c = 0; c < problem->num_classes(); ++c) {
      extract::ENodeId n = result->choice[c];
      if (n != extract::kNoENode) choices[problem->class_name(c)] = problem->node_name(n);
    }
    out["choices"] = std::move(choices);
    out["time_ms"] = ms;
    if (extractor->proves_optimality) {
      out["optimal"] = result->optimal;
      if (std::isfinite(result->bound)) {
        out["bound"] = result->bound;
      } else {
        out["bound"] = nullptr;
      }
    } else if (lower.has_value()) {
      out["lower_bound"] = lower->bound;
    } else {
      out["lower_bound"] = nullptr;
    }
    std::printf("%s\n", DumpJson(out).c_str());
  } else {
    std::printf("tree cost: %.17g\ndag cost: %.17g\n", result->tree_cost, result->dag_cost);
    if (extractor->proves_optimality) {
      std::printf("optimal: %s\nbound: %.17g\n", result->optimal ? "yes" : "no", result->bound);
    } else if (lower.has_value()) {
      std::printf("lower bound: %.17g (critical path)\n", lower->bound);
    }
    std::printf("time: %.3f ms\n", ms);
  }
  return kExitOk;
}

}  // namespace

void RegisterExtractCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ExtractArgs>();
  CLI::App* cmd = app.add_subcommand(
      "extract", "Extract the cheapest term from an egraph-serialize JSON e-graph");
  cmd->add_option("egraph", args->path, "egraph-serialize JSON file")->required();
  AddExtractorOption(cmd, &args->extractor);
  cmd->add_option("--time-limit", args->time_limit,
                  "Time limit in seconds, for the whole extraction, of extractors that take "
                  "one (ilp; default 10)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { *exit_code = RunExtract(*args); });
}

}  // namespace egret::cli
