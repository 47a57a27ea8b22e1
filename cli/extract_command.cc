// egret extract EGRAPH.json [--extractor tree|dag|ilp] [--time-limit S] [--json]
//
// Reads an egraph-serialize JSON e-graph, extracts one term per reachable
// class and prints its tree and DAG cost (or, with --json, one object with
// tree_cost, dag_cost, choices, time_ms and for ilp optimal and bound).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "egret/extract/egraph_serialize.h"
#include "egret/extract/extractor.h"
#include "egret/support/diagnostic.h"
#include "nlohmann/json.hpp"

namespace egret::cli {
namespace {

struct ExtractArgs {
  std::string path;
  std::string extractor = "dag";
  double time_limit = 10.0;
  bool json = false;
};

int RunExtract(const ExtractArgs& args) {
  std::optional<extract::ExtractorKind> kind = extract::ParseExtractorKind(args.extractor);
  if (!kind.has_value()) {
    std::fprintf(stderr, "egret extract: error: --extractor must be tree, dag or ilp, not '%s'\n",
                 args.extractor.c_str());
    return kExitBadInput;
  }
  if (!(args.time_limit > 0) || !std::isfinite(args.time_limit)) {
    std::fprintf(stderr,
                 "egret extract: error: --time-limit must be a positive number of seconds\n");
    return kExitBadInput;
  }
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<extract::ExtractionProblem> problem = extract::ReadEgraphSerializeFile(args.path);
  if (!problem.ok()) {
    std::fprintf(stderr, "%s\n", std::string(problem.status().message()).c_str());
    return ExitCodeFor(problem.status());
  }
  extract::ExtractOptions options;
  options.kind = *kind;
  options.ilp_time_limit_seconds = args.time_limit;
  absl::StatusOr<extract::ExtractResult> result = extract::Extract(*problem, options);
  if (!result.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", args.path.c_str(),
                 std::string(result.status().message()).c_str());
    return ExitCodeFor(result.status());
  }
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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
    if (*kind == extract::ExtractorKind::kIlp) {
      out["optimal"] = result->optimal;
      if (std::isfinite(result->bound)) {
        out["bound"] = result->bound;
      } else {
        out["bound"] = nullptr;
      }
    }
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("tree cost: %.17g\ndag cost: %.17g\n", result->tree_cost, result->dag_cost);
    if (*kind == extract::ExtractorKind::kIlp) {
      std::printf("optimal: %s\nbound: %.17g\n", result->optimal ? "yes" : "no", result->bound);
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
  cmd->add_option("--extractor", args->extractor, "tree, dag (default) or ilp");
  cmd->add_option("--time-limit", args->time_limit,
                  "ILP time limit in seconds, for the whole extraction (default 10)");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->callback([args, exit_code] { *exit_code = RunExtract(*args); });
}

}  // namespace egret::cli
