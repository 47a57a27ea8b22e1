// egret compare GRAPH... [--rules FILE...] [--strategies LIST] [--csv FILE]
//     [--markdown FILE] [--plot FILE.svg] [--graphs-dir DIR] [--dim NAME=N]... [--iter-limit N]
//     [--node-limit N] [--time-limit S] [--memory-limit BYTES] [--seed N] [--plugin LIB]... [--flag
//     NAME]...
//
// Runs strategies of pipeline/strategies.h (default: DefaultStrategies(),
// greedy, cse, eqsat-tree, eqsat-dag, eqsat-ilp) on every graph with the same
// rules (default: the shipped library) and prints one row per (graph,
// strategy); --csv/--markdown/--plot write pipeline/compare_report.h's
// outputs. peak_rss is the process's peak RSS while the strategy ran (reset
// before each run through /proc/self/clear_refs; when that is refused it is
// the process's high-water mark so far): it includes what is resident
// anyway (the input graph, its reference outputs, the libraries). Exit 0 when every result
// verifies, 1 when a strategy fails or a result computes different outputs, 2 for bad input, 3
// when none of these but some result has an output the reference executor cannot compute.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/device_option.h"
#include "cli/graph_input.h"
#include "cli/limit_options.h"
#include "cli/plugin_option.h"
#include "cli/rule_flags_option.h"
#include "egret/io/graph_io.h"
#include "egret/pipeline/compare_report.h"
#include "egret/pipeline/strategies.h"
#include "egret/rules/rule_set.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"

namespace egret::cli {
namespace {

struct CompareArgs {
  std::vector<std::string> graphs;
  std::vector<std::string> rules;
  std::string strategies;
  std::string csv;
  std::string markdown;
  std::string plot;
  std::string graphs_dir;
  std::string device;
  LimitFlags limits;
  uint64_t seed = 0;
  bool no_verify = false;
  std::vector<std::string> plugins;
  std::vector<std::string> flags;
  GraphInputFlags input;
};

int RunCompare(const CompareArgs& args) {
  std::optional<RunnerLimits> limits = ParseLimitFlags("compare", args.limits);
  if (!limits) return kExitBadInput;
  std::vector<Strategy> strategies = DefaultStrategies();
  if (!args.strategies.empty()) {
    strategies.clear();
    for (const std::string& name :
         std::vector<std::string>(absl::StrSplit(args.strategies, ',', absl::SkipEmpty()))) {
      std::optional<Strategy> s = ParseStrategy(name);
      if (!s) {
        std::fprintf(stderr, "egret compare: error: --strategies: unknown strategy '%s' (%s)\n",
                     name.c_str(), StrategyNames(KnownStrategies()).c_str());
        return kExitBadInput;
      }
      strategies.push_back(*s);
    }
  }
  std::optional<uint32_t> flags = RuleFlagsOption("compare", args.flags);
  if (!flags) return kExitBadInput;
  if (std::error_code ec;
      !args.graphs_dir.empty() && !std::filesystem::is_directory(args.graphs_dir, ec)) {
    std::fprintf(stderr, "egret compare: error: --graphs-dir: '%s' is not a directory\n",
                 args.graphs_dir.c_str());
    return kExitBadInput;
  }
  // Every graph is read once up front (bad input fails before any run) and
  // again when its turn comes, so that only one graph is resident at a time.
  auto load = [&args](const std::string& path) {
    absl::StatusOr<Graph> g = args.input.Load(path);
    if (!g.ok()) std::fprintf(stderr, "%s\n", std::string(g.status().message()).c_str());
    return g;
  };
  for (const std::string& path : args.graphs) {
    if (absl::StatusOr<Graph> g = load(path); !g.ok()) return ExitCodeFor(g.status());
  }
  std::optional<RuleFunctions> fns = LoadRuleFunctions(args.plugins);
  if (!fns) return kExitBadInput;
  DiagnosticList diags;
  const std::vector<std::string> rule_files = args.rules.empty() ? DefaultRuleFiles() : args.rules;
  absl::StatusOr<rules::RuleSet> set = LoadRulesWith(rule_files, {}, *fns, &diags);
  std::cerr << diags.ToString();
  if (!set.ok()) {
    std::fprintf(stderr, "egret: error: %s\n", std::string(set.status().message()).c_str());
    return kExitBadInput;
  }
  if (diags.has_errors()) return kExitCheckFailed;

  StrategyOptions options;
  options.optimize.limits = *limits;
  options.optimize.ilp_time_limit_seconds = limits->seconds;
  options.seed = args.seed;
  options.verify_result = !args.no_verify;
  options.optimize.functions = &fns->library;
  options.optimize.rule_flags = *flags;
  bool device_ok = true;
  options.optimize.device = DeviceOption(args.device, &device_ok);
  if (!device_ok) return kExitBadInput;
  if (options.optimize.device != nullptr) {
    std::printf("costs: predicted ns on %s (the latency model, docs/cost-model.md)\n",
                options.optimize.device->name.c_str());
  }
  std::vector<CompareRow> rows;
  int exit = kExitOk;
  for (size_t i = 0; i < args.graphs.size(); ++i) {
    absl::StatusOr<Graph> graph = load(args.graphs[i]);
    if (!graph.ok()) return ExitCodeFor(graph.status());
    absl::StatusOr<VerifyReference> reference = MakeVerifyReference(*graph, args.seed);
    if (!reference.ok()) {
      std::fprintf(stderr, "%s: error: cannot run the input to verify against: %s\n",
                   args.graphs[i].c_str(), std::string(reference.status().message()).c_str());
      exit = kExitCheckFailed;
    }
    for (Strategy s : strategies) {
      CompareRow row;
      row.graph = args.graphs[i];
      row.result.strategy = s;
      ResetPeakRss();
      DiagnosticList compile_diags;
      absl::StatusOr<StrategyResult> r = RunStrategy(s, *graph, *set, options, &compile_diags,
                                                     reference.ok() ? &*reference : nullptr);
      row.peak_rss_bytes = PeakRssBytes();
      std::fprintf(stderr, "egret compare: %s %s: %s\n", row.graph.c_str(), StrategyName(s).c_str(),
                   r.ok() ? absl::StrFormat("%.1f ms", r->time_ms).c_str() : "failed");
      std::cerr << compile_diags.ToString();
      if (!r.ok()) {
        row.error = std::string(r.status().message());
        std::fprintf(stderr, "%s: error: %s: %s\n", row.graph.c_str(), StrategyName(s).c_str(),
                     row.error.c_str());
        exit = kExitCheckFailed;
      } else {
        row.result = *std::move(r);
        if (row.result.limit_hit) {
          std::fprintf(stderr, "%s: warning: %s: %s\n", row.graph.c_str(), StrategyName(s).c_str(),
                       s == Strategy::kGreedy ? "a pass still changed the graph after the last "
                                                "sweep allowed"
                                              : "saturation stopped at a limit");
        }
        if (!args.graphs_dir.empty()) {
          const std::string out = (std::filesystem::path(args.graphs_dir) /
                                   absl::StrCat(std::filesystem::path(row.graph).stem().string(),
                                                ".", StrategyName(s), ".json"))
                                      .string();
          if (absl::Status st = SaveGraph(row.result.graph, out); !st.ok()) {
            std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
            return kExitCheckFailed;
          }
        }
        row.result.graph = Graph();  // not reported; frees the memory
        if (args.no_verify) {
          // --no-verify: nothing was checked, and nothing is claimed.
        } else if (row.result.verdict == VerifyVerdict::kIncomplete) {
          std::fprintf(stderr, "%s: error: %s: the result could not be verified: %s\n",
                       row.graph.c_str(), StrategyName(s).c_str(),
                       row.result.verify_message.c_str());
          if (exit == kExitOk) exit = kExitUnverified;
        } else if (!row.result.verified) {
          std::fprintf(stderr, "%s: error: %s: the result computes different outputs: %s\n",
                       row.graph.c_str(), StrategyName(s).c_str(),
                       row.result.verify_message.c_str());
          exit = kExitCheckFailed;
        }
      }
      rows.push_back(std::move(row));
    }
  }
  std::fputs(CompareText(rows).c_str(), stdout);
  for (const auto& [path, text] :
       {std::pair{args.csv, CompareCsv(rows)}, std::pair{args.markdown, CompareMarkdown(rows)},
        std::pair{args.plot, CompareSvg(rows)}}) {
    if (path.empty()) continue;
    if (absl::Status st = WriteFileAtomically(path, text); !st.ok()) {
      std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
      return kExitCheckFailed;
    }
  }
  return exit;
}

}  // namespace

void RegisterCompareCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare greedy HTP-style rewriting, syntactic CSE and equality saturation");
  cmd->add_option("GRAPH", args->graphs, "Input graphs (.json or .onnx)")->required();
  cmd->add_option("--rules", args->rules,
                  "Rule files (default: egret's shipped library, rules/lib/*.rules)");
  cmd->add_option("--strategies", args->strategies,
                  absl::StrCat("Comma-separated, of: ", StrategyNames(KnownStrategies()),
                               " (default: ", StrategyNames(DefaultStrategies()), ")"));
  cmd->add_option("--csv", args->csv, "Write one CSV row per graph and strategy here");
  cmd->add_option("--markdown", args->markdown, "Write a Markdown table here");
  cmd->add_option("--plot", args->plot, "Write an SVG bar chart of cost relative to greedy here");
  cmd->add_option("--graphs-dir", args->graphs_dir,
                  "Write each result graph here, as GRAPH.STRATEGY.json (GRAPH: the input's "
                  "file name without its extension); the folder must exist");
  args->input.AddTo(cmd);
  AddLimitOptions(cmd, &args->limits, "eqsat: ");
  cmd->add_option("--device", args->device, kDeviceHelp);
  cmd->add_flag("--no-verify", args->no_verify,
                "Skip running each result against the input on the reference executor (large "
                "networks; the verify column then says why)");
  cmd->add_option("--seed", args->seed, "Seed for the verification inputs (default 0)");
  AddPluginOption(cmd, &args->plugins);
  AddRuleFlagsOption(cmd, &args->flags);
  cmd->callback([args, exit_code] { *exit_code = RunCompare(*args); });
}

}  // namespace egret::cli
