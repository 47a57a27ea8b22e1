// egret optimize GRAPH [--rules FILE...] [--dim NAME=N]... [-I DIR]... [-D NAME[=VALUE]]...
//     [--option NAME=VALUE]... [--iter-limit N] [--node-limit N] [--time-limit S]
//     [--memory-limit BYTES]
//     [--extractor NAME] [--phase-mode keep|reseed] [--costs FILE]
//     [--no-fold] [--htp-only] [--flag NAME]... [-o OUT] [--onnx-standard-only]
//     [--onnx-external-data] [--dot FILE]
//     [--report FILE]
//     [--progress] [--verify [--seed N] [--rtol R] [--atol A] [--quant-steps S]] [--plugin LIB]...
//
// Optimizes GRAPH with the rules (pipeline/optimize.h; without --rules, the
// shipped library rules/lib/*.rules), prints the cost, size,
// op counts, the ops that run off the HTP (no HTP implementation: a CPU
// fallback; --htp-only makes them an error), peak memory and provenance
// summary on stdout (and how many rules were left out because a --flag they
// need was not given: rules/rule_flags.h), writes the result
// graph (-o; .json, .onnx (docs/onnx-export.md; with --onnx-standard-only,
// default-domain ONNX ops only, else exit 1 naming the first node that needs
// another), or .dot), its Graphviz drawing with implementation, cost
// and provenance per node (--dot) and a JSON report (--report). With --verify it first runs the
// input and the result on the reference executor on the same seeded random
// inputs (backend/verify.h) and prints the error per output; when they differ
// it writes nothing. The last lines give the time of each stage, from reading
// GRAPH to verifying ("time: read 3.1 ms, compile ..., total ..."), and with
// --verify its cost: the executor's peak live bytes in each run and the
// process's peak RSS. Progress lines go to stderr when it is a terminal or
// with --progress. Exit 0 on success, 1 when the rules fail to check or
// compile, the graph cannot be computed or --verify fails, 2 for unreadable or
// malformed input (or a bad --plugin). A rule that calls an external function
// that is neither built in nor loaded from a --plugin is not run: each call is
// a warning, and the "rules:" line and the report's "rules_skipped" count them.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/device_option.h"
#include "cli/extractor_option.h"
#include "cli/graph_input.h"
#include "cli/limit_options.h"
#include "cli/plugin_option.h"
#include "cli/rule_flags_option.h"
#include "egret/cost/cost_table.h"
#include "egret/executor/verify.h"
#include "egret/graph/json_text.h"
#include "egret/graph/saturated_count.h"
#include "egret/io/graph_io.h"
#include "egret/pipeline/changes.h"
#include "egret/pipeline/op_counts.h"
#include "egret/pipeline/optimize.h"
#include "egret/pipeline/verify_optimized.h"
#include "egret/rules/ast.h"
#include "egret/rules/rule_set.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"
#include "nlohmann/json.hpp"

namespace egret::cli {
namespace {

struct OptimizeArgs {
  std::string graph;
  std::vector<std::string> rules;
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;
  std::vector<std::string> options;
  std::vector<std::string> flags;
  LimitFlags limits;
  std::string extractor;
  std::string phase_mode = "keep";
  std::string costs;
  std::string device;
  std::string output;
  std::string dot;
  std::string report;
  bool progress = false;
  bool no_fold = false;
  bool htp_only = false;
  bool onnx_standard_only = false;
  bool onnx_lowered = false;
  bool onnx_records = false;
  bool verbose = false;
  bool onnx_external_data = false;
  bool verify = false;
  bool allow_unverified = false;
  uint64_t seed = 0;
  std::vector<std::string> plugins;
  VerifyOptions verify_options;
  GraphInputFlags input;
};

// "name=value": true/false -> bool, an integer -> int, a number -> double,
// anything else -> string.
bool ParseOption(const std::string& text, std::string* name, OptionValue* value) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  *name = text.substr(0, eq);
  std::string v = text.substr(eq + 1);
  int64_t i = 0;
  double d = 0;
  if (v == "true" || v == "false") {
    *value = v == "true";
  } else if (absl::SimpleAtoi(v, &i)) {
    *value = i;
  } else if (absl::SimpleAtod(v, &d)) {
    *value = d;
  } else {
    *value = v;
  }
  return true;
}

// "wrote out.onnx, r.json": the files -o, --dot and --report wrote.
void PrintWrote(const OptimizeArgs& args) {
  std::vector<std::string> wrote;
  for (const std::string* f : {&args.output, &args.dot, &args.report}) {
    if (!f->empty()) wrote.push_back(*f);
  }
  if (!wrote.empty()) std::printf("wrote %s\n", absl::StrJoin(wrote, ", ").c_str());
}

// A rule label ("PASS@file:line") with its file relative to the shipped
// library ("LATE@fusion.rules:410") or, under it, the current directory.
std::string DisplayRuleLabel(const std::string& label) {
  const size_t at = label.find('@');
  if (at == std::string::npos) return label;
  std::string file = label.substr(at + 1);
  const std::vector<std::string> lib = DefaultRuleFiles();
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const fs::path& base :
       {lib.empty() ? fs::path() : fs::path(lib[0]).parent_path(), fs::current_path(ec)}) {
    if (base.empty()) continue;
    const std::string prefix = base.string() + "/";
    if (file.rfind(prefix, 0) == 0) {
      file = file.substr(prefix.size());
      break;
    }
  }
  return absl::StrCat(label.substr(0, at + 1), file);
}

std::string FormatCost(double c) {
  if (!std::isfinite(c)) return "inf";
  return absl::StrFormat("%.6g", c);
}

// Runs the input and the optimized graph on the same random inputs and prints
// the error per output; returns kExitOk when every output was compared and
// matches, kExitCheckFailed (after a one-line error) when one differs or the
// graphs cannot be run, kExitUnverified when some output could not be compared
// (kExitOk with --allow-unverified, after a warning). Its time and memory go
// to result->time.verify_ms and result->verify.
int VerifyResult(const OptimizeArgs& args, const Graph& input, OptimizeResult* result,
                 size_t memory_limit) {
  VerifyOptions vo = args.verify_options;
  vo.max_live_bytes = static_cast<int64_t>(memory_limit);
  absl::StatusOr<VerifyReport> v = VerifyOptimized(input, args.graph, result, args.seed, vo);
  if (!v.ok()) {
    std::fprintf(stderr, "%s\n", std::string(v.status().message()).c_str());
    return kExitCheckFailed;
  }
  std::fputs(v->ToString().c_str(), stdout);
  switch (v->verdict()) {
    case VerifyVerdict::kOk:
      return kExitOk;
    case VerifyVerdict::kFailed:
      std::fprintf(stderr,
                   "%s: error: the optimized graph computes different outputs (--verify); "
                   "nothing written\n",
                   args.graph.c_str());
      return kExitCheckFailed;
    case VerifyVerdict::kIncomplete:
      if (args.allow_unverified) {
        std::fprintf(
            stderr, "%s: warning: %zu of %zu outputs not verified (--allow-unverified): %s\n",
            args.graph.c_str(), v->not_verified(), v->outputs.size(), v->Unverified().c_str());
        return kExitOk;
      }
      std::fprintf(stderr,
                   "%s: error: %zu of %zu outputs could not be verified (%s); nothing written "
                   "(--allow-unverified writes the result anyway)\n",
                   args.graph.c_str(), v->not_verified(), v->outputs.size(),
                   v->Unverified().c_str());
      return kExitUnverified;
  }
  return kExitCheckFailed;
}

// "read 12.3 ms, compile 4.5 ms, ..., total 99.1 ms" from StageTimes::Named().
std::string StageTimesText(const StageTimes& t) {
  std::string out;
  for (const auto& [stage, ms] : t.Named()) {
    absl::StrAppendFormat(&out, "%s%s %.1f ms", out.empty() ? "" : ", ", stage, ms);
  }
  return out;
}

// "; most in constant-fold (437.1 ms: search 53.0, apply 384.1), ..." : the
// three rules that took the most saturation time, over all phases.
std::string SlowestRulesText(const SaturationSummary& sat) {
  struct Spent {
    double search = 0, apply = 0;
    double total() const { return search + apply; }
  };
  std::map<std::string, Spent> by_rule;
  for (const PhaseSummary& p : sat.phases) {
    for (const RuleActivity& a : p.rules) {
      Spent& s = by_rule[a.rule];
      s.search += a.search_ms;
      s.apply += a.apply_ms;
    }
  }
  std::vector<std::pair<std::string, Spent>> top(by_rule.begin(), by_rule.end());
  // The slowest first; ties in name order (the map's).
  std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) {
    return a.second.total() > b.second.total();
  });
  std::string out;
  for (size_t i = 0; i < top.size() && i < 3; ++i) {
    const auto& [rule, s] = top[i];
    absl::StrAppendFormat(&out, "%s%s (%.2f ms: search %.2f, apply %.2f)",
                          i == 0 ? "; most in " : ", ", DisplayRuleLabel(rule), s.total(), s.search,
                          s.apply);
  }
  return out;
}

// "Conv2d 2 -> 2, Relu 4 -> 0, ..." from OptimizeResult::ops.
std::string OpChanges(const std::map<std::string, OpCount>& ops) {
  std::string out;
  for (const auto& [op, c] : ops) {
    absl::StrAppendFormat(&out, "%s%s %d -> %d", out.empty() ? "" : ", ", op, c.before, c.after);
  }
  return out;
}

int RunOptimize(const OptimizeArgs& args) {
  OptimizeOptions options;
  for (const std::string& o : args.options) {
    std::string name;
    OptionValue value;
    if (!ParseOption(o, &name, &value)) {
      std::fprintf(stderr, "egret optimize: error: --option must be NAME=VALUE, not '%s'\n",
                   o.c_str());
      return kExitBadInput;
    }
    options.option_overrides[name] = value;
  }
  if (!args.output.empty()) {
    absl::StatusOr<GraphFormat> f = WriteFormatFromPath(args.output);
    if (!f.ok()) {
      std::fprintf(stderr, "%s\n", std::string(f.status().message()).c_str());
      return kExitBadInput;
    }
    // An ONNX file is for other runtimes: no HTP tiling or memory placement
    // in it unless asked for.
    options.device_lowering = *f != GraphFormat::kOnnx || args.onnx_lowered;
    options.keep_quantized_weights = *f == GraphFormat::kOnnx;
  }
  std::optional<uint32_t> flags = RuleFlagsOption("optimize", args.flags);
  if (!flags) return kExitBadInput;
  options.rule_flags = *flags;
  const extract::Extractor* extractor = ExtractorOption("optimize", args.extractor);
  if (extractor == nullptr) return kExitBadInput;
  std::optional<PhaseMode> mode = ParsePhaseMode(args.phase_mode);
  if (!mode) {
    std::fprintf(stderr, "egret optimize: error: --phase-mode must be keep or reseed, not '%s'\n",
                 args.phase_mode.c_str());
    return kExitBadInput;
  }
  std::optional<RunnerLimits> limits = ParseLimitFlags("optimize", args.limits);
  if (!limits) return kExitBadInput;
  options.extractor = extractor;
  options.phase_mode = *mode;
  options.limits = *limits;
  options.ilp_time_limit_seconds = limits->seconds;
  options.constant_folding = !args.no_fold;
  options.cpu_fallback = !args.htp_only;
  if (!args.costs.empty()) {
    absl::StatusOr<std::string> text = ReadFile(args.costs);
    if (!text.ok()) {
      std::fprintf(stderr, "egret optimize: error: %s\n",
                   std::string(text.status().message()).c_str());
      return kExitBadInput;
    }
    cost::CostTable table;
    if (absl::Status s = cost::AddCostOverrides(*text, args.costs, &table); !s.ok()) {
      std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
      return kExitBadInput;
    }
    options.cost_overrides = std::move(table.overrides);
  }

  bool device_ok = true;
  options.device = DeviceOption(args.device, &device_ok);
  if (!device_ok) return kExitBadInput;

  std::optional<RuleFunctions> fns = LoadRuleFunctions(args.plugins);
  if (!fns) return kExitBadInput;
  options.functions = &fns->library;

  const auto read_start = std::chrono::steady_clock::now();
  GraphInputFlags input = args.input;
  input.memory_limit_bytes = static_cast<int64_t>(limits->memory_bytes);
  absl::StatusOr<Graph> graph = input.Load(args.graph);
  const double read_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - read_start)
          .count();
  if (!graph.ok()) {
    std::fprintf(stderr, "%s\n", std::string(graph.status().message()).c_str());
    return ExitCodeFor(graph.status());
  }
  DiagnosticList diags;
  rules::PreprocessOptions pp;
  pp.include_dirs = args.include_dirs;
  pp.defines = args.defines;
  const std::vector<std::string> rule_files = args.rules.empty() ? DefaultRuleFiles() : args.rules;
  absl::StatusOr<rules::RuleSet> set = LoadRulesWith(rule_files, pp, *fns, &diags);
  std::cerr << diags.ToString();
  if (!set.ok()) {
    std::fprintf(stderr, "egret: error: %s\n", std::string(set.status().message()).c_str());
    return kExitBadInput;
  }
  if (diags.has_errors()) return kExitCheckFailed;

  const bool show_progress = args.progress || isatty(STDERR_FILENO);
  if (show_progress) {
    options.progress = [](const std::string& line) {
      std::fprintf(stderr, "egret optimize: %s\n", line.c_str());
    };
  }
  DiagnosticList compile_diags;
  absl::StatusOr<OptimizeResult> r = Optimize(*graph, *set, options, &compile_diags);
  std::cerr << compile_diags.ToString();
  if (!r.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", args.graph.c_str(),
                 std::string(r.status().message()).c_str());
    return kExitCheckFailed;
  }
  for (const RuleIssue& issue : r->rule_issues) {
    for (const std::string& m : issue.messages) {
      std::fprintf(stderr, "egret optimize: warning: %s\n", m.c_str());
    }
  }
  r->time.read_ms = read_ms;
  const int verified =
      args.verify ? VerifyResult(args, *graph, &*r, limits->memory_bytes) : kExitOk;
  r->time.total_ms = read_ms + r->time.total_ms + r->time.verify_ms.value_or(0);
  if (verified != kExitOk) return verified;
  // -o, --dot and --report are written together: all staged first, then
  // committed, so that a failure leaves none of them changed.
  {
    FileTransaction txn;
    absl::Status s = absl::OkStatus();
    OnnxWriteOptions onnx;
    onnx.standard_only = args.onnx_standard_only;
    onnx.external_data = args.onnx_external_data;
    onnx.records = args.onnx_records;
    onnx.memory_limit_bytes = static_cast<int64_t>(limits->memory_bytes);
    if (!args.output.empty()) s = StageGraph(r->graph, args.output, &txn, std::nullopt, onnx);
    if (s.ok() && !args.dot.empty()) s = StageGraph(r->graph, args.dot, &txn, GraphFormat::kDot);
    if (s.ok() && !args.report.empty()) s = txn.Stage(args.report, DumpJson(ToJson(*r), 2) + "\n");
    if (s.ok()) s = txn.Commit();
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
      return ExitCodeFor(s);
    }
  }
  double reduction = std::isfinite(r->input_cost) && r->input_cost > 0
                         ? 100.0 * (r->input_cost - r->output_cost) / r->input_cost
                         : 0.0;
  int64_t ops_before = 0, ops_after = 0;
  for (const auto& [op, c] : r->ops) {
    ops_before += c.before;
    ops_after += c.after;
  }
  std::printf("nodes: %zu -> %zu (%lld -> %lld computing; the rest constants and shapes)\n",
              graph->num_nodes(), r->graph.num_nodes(), static_cast<long long>(ops_before),
              static_cast<long long>(ops_after));
  if (options.device != nullptr) {
    // Node costs are predicted ns; a network adds its per-inference time.
    const double per_inference = options.device->at(cost::FitParam::kInference);
    const double before = (r->input_cost + per_inference) / 1e6;
    const double after = (r->output_cost + per_inference) / 1e6;
    std::printf(
        "latency before: %.4g ms (predicted for %s, docs/cost-model.md)\nlatency after:  %.4g ms "
        "(%.1f%% lower)\n",
        before, options.device->name.c_str(), after,
        std::isfinite(before) && before > 0 ? 100.0 * (before - after) / before : 0.0);
  } else {
    std::printf(
        "cost before: %s HVX cycles (estimated, docs/cost-model.md)\ncost after:  %s HVX cycles "
        "(%.1f%% lower)\n",
        FormatCost(r->input_cost).c_str(), FormatCost(r->output_cost).c_str(), reduction);
  }
  std::printf("changes: %s\n", ChangesText(r->changes).c_str());
  // The e-graph figures are for --verbose, or when a limit stopped the run.
  const SaturationSummary& sat = r->saturation;
  const ExtractionSummary& ext = r->extraction;
  const bool limited =
      sat.stop_reason != StopReason::kSaturated || ext.time_limit_hit || ext.memory_limit_hit;
  if (args.verbose || limited) {
    std::printf("e-graph: %zu enodes, %zu eclasses, %zu iterations, stop: %s\n", sat.enodes,
                sat.eclasses, sat.iterations, std::string(StopReasonName(sat.stop_reason)).c_str());
    std::printf("extraction: %s, stop: %s%s\n", ext.extractor.c_str(),
                std::string(ext.StopReason()).c_str(),
                ext.time_limit_hit || ext.memory_limit_hit ? " (best so far)" : "");
  }
  std::printf("rules: %zu compiled, %zu skipped", r->rules_compiled, r->rules_skipped.size());
  if (!r->rules_skipped.empty()) {
    const std::string cpp_name(rules::ExprKindName(rules::ExprKind::kCppName));
    std::vector<std::string> functions, cpp_names;
    for (const SkippedRuleSummary& k : r->rules_skipped) {
      for (const SkippedRuleSummary::Missing& m : k.missing_functions) {
        (m.form == cpp_name ? cpp_names : functions).push_back(m.function);
      }
    }
    std::printf(" (%s)", MissingNamesText(functions, cpp_names).c_str());
  }
  if (r->rules_left_out.count > 0 || r->rules_left_out.device_lowering > 0)
    std::printf(", %s", r->rules_left_out.ToString().c_str());
  std::printf("\n");
  std::printf("ops: %s\n", OpChanges(r->ops).c_str());
  if (!r->off_htp.empty()) {
    std::printf("runs off the HTP: %s\n", DescribeOpCounts(r->off_htp).c_str());
    for (const auto& [op, o] : r->off_htp) {
      for (const std::string& why : o.reasons) std::printf("  %s: %s\n", op.c_str(), why.c_str());
    }
  }
  std::printf(
      "peak memory: %s bytes before, %s bytes after (naive order %s), arena %s bytes, "
      "%s bytes in all buffers\n",
      SaturatedCountText(r->input_memory.peak_bytes).c_str(),
      SaturatedCountText(r->memory.peak_bytes).c_str(),
      SaturatedCountText(r->memory.naive_peak_bytes).c_str(),
      SaturatedCountText(r->memory.arena_bytes).c_str(),
      SaturatedCountText(r->memory.total_bytes).c_str());
  if (!args.verbose) {
    PrintWrote(args);
    return kExitOk;
  }
  const ProvenanceSummary& prov = r->provenance;
  std::vector<std::pair<int64_t, std::string>> top;
  for (const auto& [rule, n] : prov.by_rule) top.emplace_back(-n, rule);
  std::sort(top.begin(), top.end());
  std::string rules_line;
  for (size_t i = 0; i < top.size() && i < 3; ++i) {
    absl::StrAppend(&rules_line, i == 0 ? "; most by " : ", ", DisplayRuleLabel(top[i].second),
                    " (", -top[i].first, ")");
  }
  std::printf("provenance: %zu nodes rewritten, taking over %lld input nodes%s\n",
              prov.nodes.size(), static_cast<long long>(prov.merged_input_nodes),
              rules_line.c_str());
  std::printf("time: %s\n", StageTimesText(r->time).c_str());
  std::printf("rule time: saturation %.1f ms%s\n", r->time.saturate_ms,
              SlowestRulesText(r->saturation).c_str());
  if (r->verify) {
    std::printf(
        "verify cost: %.1f ms, peak live bytes %s (input graph) and %s (optimized graph), peak "
        "RSS %.1f MiB\n",
        *r->time.verify_ms, SaturatedCountText(r->verify->reference_peak_live_bytes).c_str(),
        SaturatedCountText(r->verify->candidate_peak_live_bytes).c_str(),
        static_cast<double>(r->verify->peak_rss_bytes) / (1 << 20));
  }
  PrintWrote(args);
  return kExitOk;
}

}  // namespace

void RegisterOptimizeCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<OptimizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "optimize", "Optimize a graph with HTP rules by equality saturation and HVX-cost extraction");
  cmd->add_option("GRAPH", args->graph, "Input graph (.json or .onnx)")->required();
  cmd->add_option("-o,--output", args->output, "Write the optimized graph here");
  cmd->add_flag("--verify", args->verify,
                "Before writing anything, check on the reference executor that the result "
                "computes the input's outputs (exit 1 if not; exit 3, writing nothing, when an "
                "output cannot be computed there)");
  cmd->add_option("--report", args->report, "Write the JSON report here");
  cmd->add_flag("--progress", args->progress, "Print progress on stderr even when not a terminal");
  args->input.AddTo(cmd);
  cmd->add_option("--rules", args->rules,
                  "Rule files (op-package sources or .rules; default: egret's shipped library, "
                  "rules/lib/*.rules)");
  cmd->add_option("-I", args->include_dirs, "Add a directory to the #include search path");
  cmd->add_option("-D", args->defines, "Define a macro: NAME or NAME=VALUE");
  cmd->add_option("--option", args->options, "Set a graph option for OPTION_*: NAME=VALUE");
  AddLimitOptions(cmd, &args->limits);
  AddExtractorOption(cmd, &args->extractor);
  cmd->add_option("--phase-mode", args->phase_mode,
                  "keep (default): one e-graph for every phase; reseed: extract between phases");
  cmd->add_option("--costs", args->costs, "JSON cost table overriding the rule files' costs");
  cmd->add_option("--device", args->device, kDeviceHelp);
  cmd->add_flag("--no-fold", args->no_fold, "Do not fold constants");
  AddRuleFlagsOption(cmd, &args->flags);
  cmd->add_flag("--htp-only", args->htp_only,
                "Fail when an op has no HTP implementation, instead of running it off the HTP "
                "(priced as a CPU fallback)");
  cmd->add_flag("--onnx-standard-only", args->onnx_standard_only,
                "With -o OUT.onnx: write default-domain ONNX ops only; a node that needs the "
                "egret.htp or another domain is an error (exit 1) and nothing is written");
  cmd->add_flag("--onnx-external-data", args->onnx_external_data, kOnnxExternalDataHelp);
  cmd->add_flag("--onnx-records", args->onnx_records,
                "With -o OUT.onnx: keep egret's records in the file, so that egret reads "
                "its own graph back node for node (a larger file)");
  cmd->add_flag("--onnx-lowered", args->onnx_lowered,
                "With -o OUT.onnx: keep the HTP's device-lowering passes (tiling, memory "
                "placement), which an ONNX output leaves out by default");
  cmd->add_flag("-v,--verbose", args->verbose,
                "Also print the e-graph and extraction figures, the rules behind the rewrites "
                "and the time per stage");
  cmd->add_option("--dot", args->dot,
                  "Also write it as Graphviz DOT (implementation, cost and provenance per node)");
  cmd->add_flag("--allow-unverified", args->allow_unverified,
                "With --verify: when some output cannot be verified, write the result anyway "
                "(exit 0, after a warning naming the outputs)");
  cmd->add_option("--seed", args->seed, "Seed for --verify's random inputs (default 0)");
  cmd->add_option("--rtol", args->verify_options.rtol,
                  "--verify's relative tolerance (default 1e-4)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--atol", args->verify_options.atol,
                  "--verify's absolute tolerance (default 1e-5)")
      ->check(CLI::NonNegativeNumber);
  AddPluginOption(cmd, &args->plugins);
  cmd->add_option("--quant-steps", args->verify_options.quant_steps,
                  "--verify: quantized outputs may differ by this many steps of their encoding, "
                  "instead of the default: 1 step, or the bound derived from where the result "
                  "rounds differently from the input, when larger")
      ->check(CLI::NonNegativeNumber)
      ->each([args](const std::string&) { args->verify_options.derive_rounding_bound = false; });
  cmd->add_option("--threads", args->verify_options.threads,
                  "--verify: threads the reference executor may use (default 0: every core)")
      ->check(CLI::NonNegativeNumber);
  // --help in groups, the common flags first, and examples at the end.
  const std::vector<std::pair<std::string, std::vector<std::string>>> groups = {
      {"Common", {"--output", "--verify", "--report", "--progress"}},
      {"Input shapes (ONNX)", {"--dim", "--default-dim", "--input-shape", "--input-value"}},
      {"Rules",
       {"--rules", "-I", "-D", "--option", "--flag", "--plugin", "--costs", "--no-fold",
        "--htp-only"}},
      {"Limits", {"--iter-limit", "--node-limit", "--time-limit", "--memory-limit"}},
      {"Extraction", {"--extractor", "--phase-mode"}},
      {"Verification (--verify)",
       {"--allow-unverified", "--seed", "--rtol", "--atol", "--quant-steps", "--threads"}},
      {"Output",
       {"--onnx-standard-only", "--onnx-external-data", "--onnx-lowered", "--onnx-records",
        "--dot"}}};
  for (const auto& [group, names] : groups) {
    for (const std::string& name : names) cmd->get_option(name)->group(group);
  }
  cmd->footer(
      "\nExamples:\n"
      "  egret optimize model.onnx --verify -o model.opt.onnx\n"
      "  egret optimize model.onnx --dim batch=1 --input-shape state=2x1x128 --report r.json\n"
      "  egret optimize model.onnx --rules my_package.cpp -I qnn/include --verify\n");
  cmd->callback([args, exit_code] { *exit_code = RunOptimize(*args); });
}

}  // namespace egret::cli
