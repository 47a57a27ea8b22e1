// The scaling study of docs/scaling.md: synthetic networks of growing size
// (bench/synthetic_graphs.h) through the eqsat-dag and greedy strategies
// (pipeline/strategies.h) with the shipped rule library; per run the time of
// each stage, the peak RSS and the result, then the growth exponent of each
// stage (least squares in log-log space, bench/power_law.h).
//
//   scaling [--families resnet,transformer] [--sizes 1000,2000,...]
//           [--strategies eqsat-dag,greedy] [--time-limit SECONDS]
//           [--enode-factor F] [--verify-max-nodes N] [--seed N]
//           [--chain-blocks N] [--name NAME] [--clock wall|cpu]
//           [--csv FILE] [--markdown FILE] [--svg-dir DIR] [--trace]
//           [--reference] [--repeat K]
//
// --chain-blocks N splits the blocks into parallel chains of at most N blocks
// (SyntheticOptions::chain_blocks; default 0, one chain). The charts are
// DIR/NAME_time_<family>.svg and DIR/NAME_memory.svg (NAME: "scaling").
// --clock cpu puts eqsat-dag's stage times in process CPU time
// (StrategyResult::stage_cpu_ms) in the tables, charts and fits: on a machine
// shared with other jobs, wall time measures the load. The CSV has both,
// and eqsat-dag's sub-stages of extract+lower and the memory plan in CPU
// time (OptimizeResult::substage_cpu_ms; columns sub_<key>_cpu_ms).
// --reference times a control in each eqsat child after the run
// (ReferenceKernelCpuMs: linear work over the run's e-nodes reached in no
// order), in the CSV (reference_cpu_ms) and the exponent table: what the
// machine's memory system alone adds to a growth exponent at these sizes.
// Every eqsat run also records the user and kernel CPU time and the minor
// page faults of its optimization (CSV run_user_ms, run_kernel_ms,
// run_minor_faults; their exponents in the table) and the peak RSS once its
// input graph is generated, before the optimizer sees it (graph_rss_mib,
// beside start_rss_mib and peak_rss_mib), and --reference adds a
// second control: the kernel time of touching as many fresh pages
// (reference_touch_kernel_ms).
// --repeat K runs every family, strategy and size K times, the sizes in turn
// within each repeat (100k, 1M, 100k, 1M, ...: both ends of a fit sample the
// same stretches of a machine whose speed drifts). The CSV and the Markdown
// list every run (CSV column `run`); the fits and charts take, per size and
// quantity, the least value of its finished runs: interference from other
// work only adds time, so the fastest run is the best estimate of the
// work's own cost (as timeit's minimum of repeats).
// --trace prints the saturation's progress lines (one per iteration) and each
// phase's rules that matched or took 1 ms or more, with their matches,
// applications, roots searched and search and apply times, on stderr.

//
// Each run is a forked child (bench/child_run.h): its peak RSS is its own and
// a run longer than twice the time limit (plus a minute) is killed and
// reported; larger sizes of that family and strategy are then not run. The
// e-graph's own limits are the time limit (seconds) and F times the input's
// node count (e-nodes). Results are verified on the reference executor up to
// --verify-max-nodes input nodes (after the peak RSS is read). The Markdown
// file keeps the text from a "## Findings" heading on (hand-written) when it
// is rewritten.
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/child_run.h"
#include "bench/power_law.h"
#include "bench/shipped_rules.h"
#include "bench/synthetic_graphs.h"
#include "cli/program_heap.h"
#include "egret/backend/memory_plan.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/make_cost_model.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/extract/extractor_registry.h"
#include "egret/pipeline/strategies.h"
#include "egret/pipeline/svg_chart.h"
#include "egret/rules/rule_set.h"
#include "egret/support/file_io.h"
#include "egret/support/process_time.h"
#include "nlohmann/json.hpp"

namespace egret {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

// Where the reference kernel's result goes, so that it is computed.
volatile uint64_t benchmark_sink = 0;

struct Config {
  std::vector<SyntheticFamily> families = AllSyntheticFamilies();
  std::vector<int64_t> sizes = {1000, 2000, 5000, 10000, 20000, 50000, 100000};
  std::vector<Strategy> strategies = {Strategy::Eqsat(extract::DefaultExtractor()),
                                      Strategy::kGreedy};
  double time_limit = 300;
  double enode_factor = 20;
  int64_t verify_max_nodes = 5000;
  uint64_t seed = 0;
  int chain_blocks = 0;
  std::string name = "scaling";
  bool cpu_clock = false;  // --clock cpu
  bool trace = false;      // --trace
  bool reference = false;  // --reference
  int repeat = 1;          // --repeat
  std::string csv, markdown, svg_dir;
  std::string command;  // as run, for the Markdown
};

// The stages reported, in column order (a strategy fills those it has).
constexpr const char* kStages[] = {"compile",     "seed",    "saturate", "extract_and_lower",
                                   "memory_plan", "rewrite", "select",   "total"};
// The sub-stages reported in the CSV (OptimizeResult::substage_cpu_ms).
constexpr const char* kSubStages[] = {"input_cost", "seed_params",  "seed_import", "seed_rebuild",
                                      "seed_names", "seed_sources", "problem",     "extract",
                                      "lower",      "annotate",     "provenance",  "validate",
                                      "release",    "output_cost",  "plan_output", "plan_input"};
// Ops whose count after optimization shows the library recognized a block.
constexpr const char* kFusedOps[] = {"LayerNorm", "Gelu", "Softmax", "Batchnorm", "Conv2d"};

struct Row {
  SyntheticFamily family = SyntheticFamily::kResNet;
  Strategy strategy = Strategy::kGreedy;
  int blocks = 0;
  int64_t nodes = 0;
  int run = 0;         // which of --repeat's runs (0-based)
  std::string status;  // "ok", "limit: <reason>", "killed", "crashed", "error: ...", "skipped"
  Json result;         // the child's report (empty unless the child finished)
  double wall_s = 0;
};

std::string FamName(SyntheticFamily f) { return std::string(SyntheticFamilyName(f)); }
std::string StName(Strategy s) { return StrategyName(s); }

bool Finished(const Row& r) { return r.status == "ok" || r.status.rfind("limit", 0) == 0; }

// --trace: each phase's rules that matched or took a millisecond or more,
// with where their time went, on stderr.
void PrintRuleActivity(const std::vector<PhaseSummary>& phases) {
  for (const PhaseSummary& p : phases) {
    std::fprintf(stderr, "phase %s: %s, %zu iterations, %zu e-nodes, %.1f ms\n", p.pass.c_str(),
                 std::string(StopReasonName(p.stop_reason)).c_str(), p.iterations, p.enodes,
                 p.time_ms);
    for (const RuleActivity& a : p.rules) {
      if (a.matches == 0 && a.search_ms + a.apply_ms < 1) continue;
      std::fprintf(stderr,
                   "  %10zu matches %10zu applied %10zu roots %9.1f ms search %9.1f ms apply  %s\n",
                   a.matches, a.applications, a.roots, a.search_ms, a.apply_ms, a.rule.c_str());
    }
  }
}

// A control for the growth exponents: this machine's CPU time, in ms, for
// linear work over n entries reached in no order (n: the run's e-nodes).
// An absl::flat_hash_map of n entries built with lookups of three earlier
// keys per insert (an e-graph's hashcons, roughly), then 4n reads at random
// places of a table of 64 bytes per entry. Every step is O(1), so whatever
// its exponent exceeds 1 by is the memory system's (caches, TLB, first
// touches), not an algorithm's; the stages' exponents are read against it.
double ReferenceKernelCpuMs(int64_t n) {
  const double t0 = ProcessCpuMs();
  uint64_t sum = 0;
  {
    absl::flat_hash_map<uint64_t, uint32_t> map;
    auto key = [](uint64_t i) { return i * 0x9E3779B97F4A7C15ull; };
    for (int64_t i = 0; i < n; ++i) {
      map[key(static_cast<uint64_t>(i))] = static_cast<uint32_t>(i);
      for (int64_t k = 1; k <= 3 && k <= i; ++k) {
        sum += map.find(key(static_cast<uint64_t>(i - k)))->second;
      }
    }
    std::vector<uint64_t> table(static_cast<size_t>(n) * 8, 1);
    uint64_t x = 88172645463325252ull;  // xorshift64
    for (int64_t i = 0; i < 4 * n; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      sum += table[(x % static_cast<uint64_t>(n)) * 8];
    }
  }
  benchmark_sink = sum;
  return ProcessCpuMs() - t0;
}

// This process's user and kernel CPU time (getrusage: the kernel's clock
// splits the process's time between the two at its tick, 4 ms here, so a
// split of a short span is rough) and its minor page faults so far.
struct Usage {
  double user_ms = 0;
  double kernel_ms = 0;
  int64_t minor_faults = 0;
};
Usage UsageNow() {
  rusage r{};
  getrusage(RUSAGE_SELF, &r);
  auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return {ms(r.ru_utime), ms(r.ru_stime), static_cast<int64_t>(r.ru_minflt)};
}

// A second control: the kernel CPU time, in ms, of touching `bytes` of fresh
// anonymous memory once per page (what a run pays the kernel to zero and map
// the pages it grows into; on a virtual machine its cost per page can grow
// with the footprint). NaN when the mapping fails.
double FirstTouchKernelMs(int64_t bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t n = static_cast<size_t>(std::max<int64_t>(bytes, 0)) / page * page;
  if (n == 0) return 0;
  void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NAN;
  const Usage u0 = UsageNow();
  volatile char* c = static_cast<char*>(p);
  for (size_t i = 0; i < n; i += page) c[i] = 1;
  const Usage u1 = UsageNow();
  munmap(p, n);
  return u1.kernel_ms - u0.kernel_ms;
}

// The child: generate, optimize, read the peak RSS, then verify.
std::string RunOne(const Config& cfg, SyntheticFamily family, int blocks, Strategy strategy,
                   const rules::RuleSet& lib) {
  Json j;
  const Clock::time_point t0 = Clock::now();
  // What the child inherited from the parent (rule library, ...).
  j["start_rss_bytes"] = PeakRssBytes();
  absl::StatusOr<Graph> g = MakeSyntheticGraph(
      family, {.blocks = blocks, .chain_blocks = cfg.chain_blocks, .seed = cfg.seed});
  if (!g.ok()) return Json{{"error", std::string(g.status().message())}}.dump();
  j["graph_rss_bytes"] = PeakRssBytes();  // the generated input graph's high-water mark
  j["generate_ms"] = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  StrategyOptions o;
  o.optimize.limits.seconds = cfg.time_limit;
  o.optimize.limits.nodes = static_cast<size_t>(cfg.enode_factor * g->num_nodes());
  o.verify_result = false;
  if (cfg.trace) {
    o.optimize.progress = [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
    };
  }
  DiagnosticList diags;
  const Usage before = UsageNow();
  absl::StatusOr<StrategyResult> r = RunStrategy(strategy, *g, lib, o, &diags);
  const Usage after = UsageNow();
  if (!r.ok()) return Json{{"error", std::string(r.status().message())}}.dump();
  if (cfg.trace) PrintRuleActivity(r->phases);
  j["peak_rss_bytes"] = PeakRssBytes();
  j["run_user_ms"] = after.user_ms - before.user_ms;
  j["run_kernel_ms"] = after.kernel_ms - before.kernel_ms;
  j["run_minor_faults"] = after.minor_faults - before.minor_faults;
  j["nodes_out"] = r->nodes;
  j["cost_in"] = cost::GraphCost(*g, cost::MakeCostModel(lib.ops, {}, g->options()), nullptr);
  j["cost_out"] = r->cost;
  j["egraph_nodes"] = r->egraph_nodes;
  j["rewrites"] = r->rewrites;
  j["limit_hit"] = r->limit_hit;
  j["stop_reason"] = r->stop_reason;
  j["stage_ms"] = r->stage_ms;
  j["stage_cpu_ms"] = r->stage_cpu_ms;
  j["substage_cpu_ms"] = r->substage_cpu_ms;
  j["time_ms"] = r->time_ms;
  Json ops = Json::object();
  for (const Node& n : r->graph.nodes()) {
    for (const char* op : kFusedOps) {
      if (n.op == op) ops[op] = ops.value(op, 0) + 1;
    }
  }
  j["ops_after"] = ops;
  // The output graph's memory plan again (after the peak RSS is read), so a
  // change to the planner shows in the CSV if it moves the arena.
  absl::StatusOr<MemoryPlan> plan = PlanMemory(r->graph);
  j["arena_bytes"] = plan.ok() ? plan->arena_bytes : -1;
  if (cfg.reference && r->egraph_nodes > 0) {
    j["reference_cpu_ms"] = ReferenceKernelCpuMs(static_cast<int64_t>(r->egraph_nodes));
    // As many pages as the run faulted in.
    j["reference_touch_kernel_ms"] =
        FirstTouchKernelMs((after.minor_faults - before.minor_faults) * sysconf(_SC_PAGESIZE));
  }
  std::string verify = "not run";
  if (static_cast<int64_t>(g->num_nodes()) <= cfg.verify_max_nodes) {
    absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, cfg.seed);
    absl::StatusOr<VerifyReport> v = inputs.ok()
                                         ? VerifyGraphs(*g, "input", r->graph, "optimized", *inputs,
                                                        {.rtol = 1e-3, .atol = 1e-4})
                                         : absl::StatusOr<VerifyReport>(inputs.status());
    verify = !v.ok() ? absl::StrCat("error: ", v.status().message())
                     : std::string(v->failed() ? "FAIL" : VerifyVerdictName(v->verdict()));
  }
  j["verify"] = verify;
  return j.dump();
}

// The stage's wall time, or with `cpu` its CPU time where the strategy
// measures it (eqsat; wall time otherwise); NaN when not measured.
double StageMs(const Row& r, const std::string& stage, bool cpu = false) {
  cpu = cpu && r.result.contains("stage_cpu_ms") && !r.result["stage_cpu_ms"].empty();
  const char* key = cpu ? "stage_cpu_ms" : "stage_ms";
  if (!Finished(r) || !r.result.contains(key)) return NAN;
  const Json& s = r.result[key];
  if (stage == "total" && !cpu) return r.result["time_ms"].get<double>();
  return s.contains(stage) ? s[stage].get<double>() : NAN;
}

// A sub-stage's CPU time (eqsat only); NaN when not measured.
double SubStageMs(const Row& r, const std::string& key) {
  if (!Finished(r) || !r.result.contains("substage_cpu_ms")) return NAN;
  const Json& s = r.result["substage_cpu_ms"];
  return s.contains(key) ? s[key].get<double>() : NAN;
}

// A number of the child's result, or NaN when it has none.
double ResultValue(const Row& r, const char* key) {
  if (!Finished(r) || !r.result.contains(key) || r.result[key].is_null()) return NAN;
  return r.result[key].get<double>();
}
// The reference kernel's CPU time (--reference); NaN when not measured.
double ReferenceMs(const Row& r) { return ResultValue(r, "reference_cpu_ms"); }

double RssMib(const Row& r) {
  if (!Finished(r)) return NAN;
  return r.result["peak_rss_bytes"].get<double>() / (1 << 20);
}

// "%.1f", or empty for NaN (not measured).
std::string Cell(double v) { return std::isfinite(v) ? absl::StrFormat("%.1f", v) : ""; }

std::string OpsCell(const Row& r) {
  if (!Finished(r)) return "";
  std::vector<std::string> parts;
  for (const auto& [op, n] : r.result["ops_after"].items()) {
    parts.push_back(absl::StrCat(op, ":", n.get<int64_t>()));
  }
  return absl::StrJoin(parts, " ");
}

std::string Csv(const std::vector<Row>& rows) {
  std::string out =
      "family,blocks,nodes,strategy,status,stop_reason,nodes_out,cost_in,cost_out,"
      "egraph_nodes,rewrites,generate_ms";
  for (const char* s : kStages) absl::StrAppend(&out, ",", s, "_ms");
  for (const char* s : kStages) absl::StrAppend(&out, ",", s, "_cpu_ms");
  for (const char* s : kSubStages) absl::StrAppend(&out, ",sub_", s, "_cpu_ms");
  out +=
      ",peak_rss_mib,start_rss_mib,graph_rss_mib,wall_s,verify,ops_after,arena_bytes,"
      "reference_cpu_ms,run_user_ms,run_kernel_ms,run_minor_faults,reference_touch_kernel_ms,"
      "run\n";
  for (const Row& r : rows) {
    const bool f = Finished(r);
    absl::StrAppendFormat(&out, "%s,%d,%d,%s,%s,%s", FamName(r.family), r.blocks, r.nodes,
                          StName(r.strategy), r.status,
                          f ? r.result["stop_reason"].get<std::string>() : "");
    if (f) {
      absl::StrAppendFormat(&out, ",%d,%.6g,%.6g,%d,%d,%.1f", r.result["nodes_out"].get<int64_t>(),
                            r.result["cost_in"].get<double>(), r.result["cost_out"].get<double>(),
                            r.result["egraph_nodes"].get<int64_t>(),
                            r.result["rewrites"].get<int64_t>(),
                            r.result["generate_ms"].get<double>());
    } else {
      out += ",,,,,,";
    }
    for (const char* s : kStages) absl::StrAppend(&out, ",", Cell(StageMs(r, s)));
    for (const char* s : kStages) absl::StrAppend(&out, ",", Cell(StageMs(r, s, true)));
    for (const char* s : kSubStages) absl::StrAppend(&out, ",", Cell(SubStageMs(r, s)));
    const double start = ResultValue(r, "start_rss_bytes") / (1 << 20);
    const double graph = ResultValue(r, "graph_rss_bytes") / (1 << 20);
    const int64_t arena = f ? r.result.value("arena_bytes", int64_t{-1}) : -1;
    absl::StrAppendFormat(&out, ",%s,%s,%s,%.1f,%s,%s,%s,%s", Cell(RssMib(r)), Cell(start),
                          Cell(graph), r.wall_s, f ? r.result["verify"].get<std::string>() : "",
                          OpsCell(r), arena >= 0 ? absl::StrCat(arena) : "", Cell(ReferenceMs(r)));
    const double faults = ResultValue(r, "run_minor_faults");
    absl::StrAppendFormat(&out, ",%s,%s,%s,%s,%d\n", Cell(ResultValue(r, "run_user_ms")),
                          Cell(ResultValue(r, "run_kernel_ms")),
                          std::isfinite(faults) ? absl::StrCat(static_cast<int64_t>(faults)) : "",
                          Cell(ResultValue(r, "reference_touch_kernel_ms")), r.run);
  }
  return out;
}

// The (nodes, value) points of one family and strategy, finished runs only,
// one per size: the least value of its runs (--repeat; LeastPerX).
template <typename F>
std::vector<std::pair<double, double>> Points(const std::vector<Row>& rows, SyntheticFamily fam,
                                              Strategy st, F value) {
  std::vector<std::pair<double, double>> p;
  for (const Row& r : rows) {
    if (r.family == fam && r.strategy == st && r.status == "ok") {
      p.emplace_back(static_cast<double>(r.nodes), value(r));
    }
  }
  return LeastPerX(p);
}

std::vector<std::string> StagesOf(Strategy st) {
  if (st == Strategy::kGreedy) return {"rewrite", "select", "total"};
  return {"seed", "saturate", "extract_and_lower", "memory_plan", "total"};
}

std::string FitCell(const std::vector<std::pair<double, double>>& pts, double min_x) {
  std::vector<std::pair<double, double>> use;
  for (const auto& p : pts) {
    if (p.first >= min_x) use.push_back(p);
  }
  std::optional<PowerLawFit> fit = FitPowerLaw(use);
  if (!fit) return "-";
  return absl::StrFormat("%.2f (R² %.3f, %d sizes)", fit->exponent, fit->r2, fit->points);
}

std::string Markdown(const Config& cfg, const std::vector<Row>& rows, const std::string& findings) {
  std::string md = absl::StrFormat(
      "# Scaling study%s\n\n"
      "How egret's time and memory grow with the size of the graph, for equality saturation "
      "with DAG extraction (`eqsat-dag`) and the HTP-style destructive rewriter (`greedy`), "
      "both with the shipped rule library (`rules/lib`) and the strategies of "
      "`pipeline/strategies.h`.\n\n"
      "The graphs are synthetic (`bench/synthetic_graphs.h`): a real block repeated, %s, "
      "built with the ops and parameter nodes the ONNX importer produces.\n\n"
      "- **resnet**: ResNet bottleneck on NHWC float32 [1,8,8,16]: 1x1 Conv2d -> Batchnorm -> "
      "Relu -> 3x3 Conv2d -> Batchnorm -> Relu -> 1x1 Conv2d -> Batchnorm, + residual "
      "ElementWiseAdd, Relu.\n"
      "- **transformer**: post-LayerNorm encoder block on float32 [1,8,16] (2 heads): "
      "FullyConnected + bias projections, attention MatMuls, decomposed softmax "
      "(ReduceMax/Subtract/Exp/ReduceSum/Divide), decomposed LayerNorm "
      "(ReduceMean/Subtract/Pow/ReduceMean/Add/Sqrt/Divide/Multiply/Add), decomposed erf "
      "GELU in the x * (1/sqrt 2) form (see `Gelu` in `bench/synthetic_graphs.cc`).\n\n"
      "Each run is a forked child process: *peak RSS* is that process's VmHWM after the "
      "optimization (it includes the generated input graph and the loaded rule library, "
      "not the verification; *start RSS* in the CSV is what the child inherited). Stage times come "
      "from `StrategyResult::stage_ms` "
      "(`Optimize()`'s report for eqsat-dag). Limits per run: %.0f s (the e-graph runner's "
      "time limit; the child is killed at twice that plus 60 s), e-graph nodes at most %.0f x "
      "the input's nodes, 30 iterations per phase. Results are verified on the reference "
      "executor for inputs up to %d nodes. A run that hits a limit is listed with it and "
      "left out of the fits; after a killed run, the larger sizes of that family and strategy "
      "are not run.%s\n\n"
      "Produced on a %d-core machine (shared with other jobs, so times are indicative) by\n\n"
      "```\n%s\n```\n\n",
      cfg.chain_blocks == 0 ? ""
                            : absl::StrFormat(": chains of at most %d blocks", cfg.chain_blocks),
      cfg.chain_blocks == 0
          ? std::string("each block feeding the next in one chain")
          : absl::StrFormat("in parallel chains of at most %d blocks that all start at the input",
                            cfg.chain_blocks),
      cfg.time_limit, cfg.enode_factor, cfg.verify_max_nodes,
      cfg.repeat == 1 ? ""
                      : absl::StrFormat(" Every size ran %d times; the curves and fits take each "
                                        "size's least value of its runs, per quantity.",
                                        cfg.repeat),
      static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)), cfg.command);
  md += "## Curves\n\n";
  for (SyntheticFamily fam : cfg.families) {
    absl::StrAppendFormat(&md, "![time by stage, %s](%s_time_%s.svg)\n\n", FamName(fam), cfg.name,
                          FamName(fam));
  }
  absl::StrAppendFormat(&md, "![peak RSS](%s_memory.svg)\n\n", cfg.name);
  md +=
      "## Growth exponents\n\n"
      "Least-squares slope of log(time) or log(peak RSS) against log(nodes), over the runs "
      "that finished within every limit; the second column uses only sizes of at least 10k "
      "nodes (fixed costs weigh less there).\n\n"
      "| family | strategy | quantity | exponent, all sizes | exponent, >= 10k nodes |\n"
      "|---|---|---|---|---|\n";
  for (SyntheticFamily fam : cfg.families) {
    for (Strategy st : cfg.strategies) {
      std::vector<std::string> stages = StagesOf(st);
      for (const std::string& stage : stages) {
        auto pts =
            Points(rows, fam, st, [&](const Row& r) { return StageMs(r, stage, cfg.cpu_clock); });
        absl::StrAppendFormat(&md, "| %s | %s | %s time | %s | %s |\n", FamName(fam), StName(st),
                              stage, FitCell(pts, 0), FitCell(pts, 10000));
      }
      auto pts = Points(rows, fam, st, RssMib);
      absl::StrAppendFormat(&md, "| %s | %s | peak RSS | %s | %s |\n", FamName(fam), StName(st),
                            FitCell(pts, 0), FitCell(pts, 10000));
      // The run's CPU time split between user and kernel (getrusage), its
      // page faults, and with --reference the two controls: (label, key of
      // the child's result).
      std::vector<std::pair<const char*, const char*>> more = {
          {"run's user CPU time", "run_user_ms"},
          {"run's kernel CPU time", "run_kernel_ms"},
          {"run's minor page faults", "run_minor_faults"}};
      if (cfg.reference && st != Strategy::kGreedy) {
        more.push_back({"reference kernel CPU time (control)", "reference_cpu_ms"});
        more.push_back(
            {"first touch of as many pages, kernel time (control)", "reference_touch_kernel_ms"});
      }
      for (const auto& [quantity, key] : more) {
        auto q = Points(rows, fam, st, [key = key](const Row& r) { return ResultValue(r, key); });
        absl::StrAppendFormat(&md, "| %s | %s | %s | %s | %s |\n", FamName(fam), StName(st),
                              quantity, FitCell(q, 0), FitCell(q, 10000));
      }
    }
  }
  absl::StrAppendFormat(
      &md,
      "\n## Runs\n\n"
      "Times in ms%s. *e-nodes*: the e-graph's peak (eqsat only). *ops after*: fused ops and "
      "what is left of Batchnorm/Conv2d in the result.\n\n"
      "| family | nodes | strategy | status | nodes after | HVX cost before -> after | "
      "e-nodes | seed | saturate | extract+lower | memory plan | rewrite | select | total | "
      "peak RSS MiB | verify | ops after |\n"
      "|---|---:|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n",
      cfg.cpu_clock ? " of process CPU time (eqsat stages; greedy's are wall time)" : "");
  for (const Row& r : rows) {
    const bool f = Finished(r);
    absl::StrAppendFormat(
        &md, "| %s | %d | %s | %s | %s | %s | %s", FamName(r.family), r.nodes, StName(r.strategy),
        r.status, f ? absl::StrCat(r.result["nodes_out"].get<int64_t>()) : "",
        f ? absl::StrFormat("%.6g -> %.6g", r.result["cost_in"].get<double>(),
                            r.result["cost_out"].get<double>())
          : "",
        f && r.strategy != Strategy::kGreedy ? absl::StrCat(r.result["egraph_nodes"].get<int64_t>())
                                             : "");
    for (const char* s :
         {"seed", "saturate", "extract_and_lower", "memory_plan", "rewrite", "select", "total"}) {
      absl::StrAppend(&md, " | ", Cell(StageMs(r, s, cfg.cpu_clock)));
    }
    absl::StrAppendFormat(&md, " | %s | %s | %s |\n", Cell(RssMib(r)),
                          f ? r.result["verify"].get<std::string>() : "", OpsCell(r));
  }
  md += "\n";
  md += findings;
  return md;
}

std::string TimeSvg(const Config& cfg, const std::vector<Row>& rows, SyntheticFamily fam) {
  LogLogChart c;
  c.title = absl::StrFormat("%s: time by stage (ms) vs nodes", FamName(fam));
  c.x_label = "input nodes";
  c.y_label = "time (ms)";
  for (Strategy st : cfg.strategies) {
    for (const std::string& stage : StagesOf(st)) {
      c.series.push_back(LineSeries{
          absl::StrCat(StName(st), " ", stage),
          Points(rows, fam, st, [&](const Row& r) { return StageMs(r, stage, cfg.cpu_clock); }),
          st == Strategy::kGreedy,
          false,
          {}});
    }
  }
  return LogLogSvg(c);
}

std::string MemorySvg(const Config& cfg, const std::vector<Row>& rows) {
  LogLogChart c;
  c.title = "peak RSS (MiB) vs nodes";
  c.x_label = "input nodes";
  c.y_label = "peak RSS (MiB)";
  for (SyntheticFamily fam : cfg.families) {
    for (Strategy st : cfg.strategies) {
      c.series.push_back(LineSeries{absl::StrCat(FamName(fam), " ", StName(st)),
                                    Points(rows, fam, st, RssMib),
                                    st == Strategy::kGreedy,
                                    false,
                                    {}});
    }
  }
  return LogLogSvg(c);
}

int Fail(const std::string& msg) {
  std::fprintf(stderr, "scaling: error: %s\n", msg.c_str());
  return 2;
}

constexpr char kUsage[] =
    "usage: scaling [--families resnet,transformer] [--sizes 1000,2000,...]\n"
    "               [--strategies eqsat-dag,greedy] [--time-limit SECONDS]\n"
    "               [--enode-factor F] [--verify-max-nodes N] [--seed N]\n"
    "               [--chain-blocks N] [--name NAME] [--clock wall|cpu]\n"
    "               [--csv FILE] [--markdown FILE] [--svg-dir DIR] [--trace]\n"
    "               [--reference] [--repeat K]\n"
    "The scaling study of docs/scaling.md; what each option does is at the top\n"
    "of bench/scaling.cc.\n";

int Main(int argc, char** argv) {
  Config cfg;
  cfg.command = "scaling";
  for (int i = 1; i < argc; ++i) absl::StrAppend(&cfg.command, " ", argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--trace") {
      cfg.trace = true;
      continue;
    }
    if (a == "--reference") {
      cfg.reference = true;
      continue;
    }
    if (i + 1 >= argc) return Fail(absl::StrCat("unknown argument or missing value: '", a, "'"));
    const std::string v = argv[++i];
    if (a == "--families") {
      cfg.families.clear();
      for (absl::string_view n : absl::StrSplit(v, ',')) {
        std::optional<SyntheticFamily> f = ParseSyntheticFamily(std::string(n));
        if (!f) return Fail(absl::StrCat("--families: unknown family '", n, "'"));
        cfg.families.push_back(*f);
      }
    } else if (a == "--strategies") {
      cfg.strategies.clear();
      for (absl::string_view n : absl::StrSplit(v, ',')) {
        std::optional<Strategy> s = ParseStrategy(std::string(n));
        if (!s) {
          return Fail(absl::StrCat("--strategies: unknown strategy '", n, "' (",
                                   StrategyNames(KnownStrategies()), ")"));
        }
        cfg.strategies.push_back(*s);
      }
    } else if (a == "--sizes") {
      cfg.sizes.clear();
      for (absl::string_view n : absl::StrSplit(v, ',')) {
        int64_t s = 0;
        if (!absl::SimpleAtoi(n, &s) || s < 1) {
          return Fail(absl::StrCat("--sizes: '", n, "' is not a positive integer"));
        }
        cfg.sizes.push_back(s);
      }
    } else if (a == "--time-limit") {
      if (!absl::SimpleAtod(v, &cfg.time_limit) || !(cfg.time_limit > 0)) {
        return Fail("--time-limit must be a positive number of seconds");
      }
    } else if (a == "--enode-factor") {
      if (!absl::SimpleAtod(v, &cfg.enode_factor) || !(cfg.enode_factor >= 1)) {
        return Fail("--enode-factor must be a number >= 1");
      }
    } else if (a == "--verify-max-nodes") {
      if (!absl::SimpleAtoi(v, &cfg.verify_max_nodes) || cfg.verify_max_nodes < 0) {
        return Fail("--verify-max-nodes must be a non-negative integer");
      }
    } else if (a == "--seed") {
      if (!absl::SimpleAtoi(v, &cfg.seed)) return Fail("--seed must be a non-negative integer");
    } else if (a == "--chain-blocks") {
      if (!absl::SimpleAtoi(v, &cfg.chain_blocks) || cfg.chain_blocks < 0) {
        return Fail("--chain-blocks must be a non-negative integer");
      }
    } else if (a == "--name") {
      if (v.empty() || v.find('/') != std::string::npos) {
        return Fail("--name must be a non-empty file name prefix without '/'");
      }
      cfg.name = v;
    } else if (a == "--clock") {
      if (v != "wall" && v != "cpu") return Fail("--clock must be 'wall' or 'cpu'");
      cfg.cpu_clock = v == "cpu";
    } else if (a == "--repeat") {
      if (!absl::SimpleAtoi(v, &cfg.repeat) || cfg.repeat < 1) {
        return Fail("--repeat must be a positive integer");
      }
    } else if (a == "--csv") {
      cfg.csv = v;
    } else if (a == "--markdown") {
      cfg.markdown = v;
    } else if (a == "--svg-dir") {
      cfg.svg_dir = v;
    } else {
      return Fail(absl::StrCat("unknown argument '", a, "'"));
    }
  }
  std::optional<rules::RuleSet> lib = LoadShippedRules("scaling");
  if (!lib) return 1;
  std::fprintf(stderr, "scaling: allocator: %s\n", ProgramHeapDescription().c_str());
  std::vector<Row> rows;
  for (SyntheticFamily fam : cfg.families) {
    for (Strategy st : cfg.strategies) {
      // A size whose run was killed or crashed, and every larger one, is
      // not run again (in this repeat or a later one).
      int64_t stop_at = std::numeric_limits<int64_t>::max();
      for (int run_index = 0; run_index < cfg.repeat; ++run_index) {
        for (int64_t size : cfg.sizes) {
          Row r;
          r.family = fam;
          r.strategy = st;
          r.run = run_index;
          r.blocks = BlocksForNodes(fam, size);
          // Counted, not built: a graph built here would stay in this process's
          // heap and in every later child's RSS.
          r.nodes = SyntheticNodeCount(fam, r.blocks);
          if (size >= stop_at) {
            r.status = "skipped";
            rows.push_back(std::move(r));
            continue;
          }
          std::fprintf(stderr, "scaling: %s x%d (%d nodes) %s%s ...", FamName(fam).c_str(),
                       r.blocks, static_cast<int>(r.nodes), StName(st).c_str(),
                       cfg.repeat > 1
                           ? absl::StrFormat(", run %d of %d", run_index + 1, cfg.repeat).c_str()
                           : "");
          const ChildRun run = RunInChild([&] { return RunOne(cfg, fam, r.blocks, st, *lib); },
                                          2 * cfg.time_limit + 60);
          r.wall_s = run.seconds;
          if (run.timed_out) {
            r.status = "killed";
            stop_at = std::min(stop_at, size);
          } else if (!run.exited_ok) {
            r.status = "crashed";
            stop_at = std::min(stop_at, size);
          } else {
            r.result = Json::parse(run.output);
            if (r.result.contains("error")) {
              r.status = absl::StrCat("error: ", r.result["error"].get<std::string>());
            } else if (r.result["limit_hit"].get<bool>()) {
              r.status = absl::StrCat("limit: ", r.result["stop_reason"].get<std::string>());
            } else {
              r.status = "ok";
            }
          }
          std::fprintf(stderr, " %s, %.1f s, %.0f MiB\n", r.status.c_str(), r.wall_s, RssMib(r));
          rows.push_back(std::move(r));
        }
      }
    }
  }
  auto write = [](const std::string& path, const std::string& text) {
    absl::Status s = WriteFileAtomically(path, text);
    if (!s.ok()) std::fprintf(stderr, "scaling: error: %s\n", std::string(s.message()).c_str());
    return s.ok();
  };
  bool ok = true;
  const std::string csv = Csv(rows);
  if (cfg.csv.empty()) {
    std::fputs(csv.c_str(), stdout);
  } else {
    ok &= write(cfg.csv, csv);
  }
  if (!cfg.markdown.empty()) {
    std::string findings;
    if (absl::StatusOr<std::string> old = ReadFile(cfg.markdown); old.ok()) {
      const size_t at = old->find("## Findings");
      if (at != std::string::npos) findings = old->substr(at);
    }
    ok &= write(cfg.markdown, Markdown(cfg, rows, findings));
  }
  if (!cfg.svg_dir.empty()) {
    for (SyntheticFamily fam : cfg.families) {
      ok &= write(absl::StrCat(cfg.svg_dir, "/", cfg.name, "_time_", FamName(fam), ".svg"),
                  TimeSvg(cfg, rows, fam));
    }
    ok &= write(absl::StrCat(cfg.svg_dir, "/", cfg.name, "_memory.svg"), MemorySvg(cfg, rows));
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace egret

int main(int argc, char** argv) { return egret::Main(argc, argv); }
