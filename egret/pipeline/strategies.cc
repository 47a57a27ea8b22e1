#include "egret/pipeline/strategies.h"

#include <chrono>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/make_cost_model.h"
#include "egret/egraph/matcher.h"
#include "egret/executor/test_data.h"
#include "egret/extract/extractor_registry.h"
#include "egret/pipeline/constant_fold.h"
#include "egret/pipeline/op_counts.h"
#include "egret/pipeline/seed_internal.h"
#include "egret/rules_compile/compiler.h"

namespace egret {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kEqsatPrefix = "eqsat-";

// greedy, cse, then eqsat with every extractor `include` accepts.
template <typename Pred>
std::vector<Strategy> StrategiesWith(Pred include) {
  std::vector<Strategy> out = {Strategy::kGreedy, Strategy::kCse};
  for (const extract::Extractor& e : extract::Extractors()) {
    if (include(e)) out.push_back(Strategy::Eqsat(e));
  }
  return out;
}

// The graph of `s`'s e-graph in which every class takes its newest node that
// is not in `replaced` (the newest node of all when every node is replaced).
// Unions need not be rebuilt: every class id's node list is read and credited
// to its canonical class. With nothing replaced and a freshly seeded e-graph
// (one node per class) this is the graph after syntactic CSE and dead-node
// removal.
absl::StatusOr<Graph> LowerNewest(const Seeded& s, const absl::flat_hash_set<NodeIdx>& replaced,
                                  const cost::HvxCostModel* model) {
  absl::flat_hash_map<Id, NodeIdx> live, any;
  for (Id c = 0; c < s.eg.num_ids(); ++c) {
    const Id root = s.eg.Find(c);
    for (NodeIdx n : s.eg.ClassNodes(c)) {
      auto [it, fresh] = any.try_emplace(root, n);
      if (!fresh && n > it->second) it->second = n;
      if (replaced.contains(n)) continue;
      auto [lt, lfresh] = live.try_emplace(root, n);
      if (!lfresh && n > lt->second) lt->second = n;
    }
  }
  for (const auto& [c, n] : any) live.try_emplace(c, n);
  return LowerSeeded(s, std::move(live), model);
}

// One greedy sweep over `graph` with `rules` (in order). Returns the rewritten
// graph (unannotated) and adds the applications to *fired.
absl::StatusOr<Graph> GreedySweep(const Graph& graph, const std::vector<const Rewrite*>& rules,
                                  size_t* fired) {
  absl::StatusOr<Seeded> seeded = Seed(graph);
  if (!seeded.ok()) return seeded.status();
  Seeded& s = *seeded;
  std::vector<Matcher> matchers;
  for (const Rewrite* r : rules) matchers.emplace_back(r->pattern);
  absl::flat_hash_set<NodeIdx> replaced;
  absl::flat_hash_set<Id> visited;
  for (Id c : s.topo_classes) {
    if (c == kNoId) continue;
    const Id root = s.eg.Find(c);
    if (!visited.insert(root).second) continue;
    for (size_t k = 0; k < rules.size(); ++k) {
      const Rewrite& rw = *rules[k];
      bool applied = false;
      s.eg.set_rule_context(rw.name);
      matchers[k].MatchClass(s.eg, root, [&](const MatchView& m) {
        // A match through a node replaced earlier in this sweep does not
        // exist on the HTP's graph any more; the next sweep sees the result.
        for (NodeIdx n : m.nodes) {
          if (replaced.contains(n)) return true;
        }
        if (rw.guard && !rw.guard(s.eg, m)) return true;
        s.eg.SetMatchContext(m.nodes);
        std::optional<Id> result = rw.applier(s.eg, m);
        s.eg.ClearMatchContext();
        if (!result || s.eg.Find(*result) == s.eg.Find(m.root)) return true;
        absl::StatusOr<bool> merged = s.eg.Union(m.root, *result);
        if (!merged.ok() || !*merged) return true;
        if (m.nodes.empty()) {  // a variable-rooted rule (constant folding)
          for (NodeIdx n : s.eg.ClassNodes(root)) replaced.insert(n);
        } else {
          replaced.insert(m.nodes[0]);
        }
        applied = true;
        return false;
      });
      if (applied) {
        ++*fired;
        break;
      }
    }
  }
  if (replaced.empty()) return graph;
  return LowerNewest(s, replaced, nullptr);
}

struct GreedyOutcome {
  Graph graph;
  size_t fired = 0;
  bool limit_hit = false;
};

constexpr std::string_view kDequantizeOp = "Dequantize";

// Runs the passes in ascending priority, each with `fold` as its last rule
// (may be null), then `final_fold` alone (may be null) as one more pass.
absl::StatusOr<GreedyOutcome> RunGreedy(const Graph& input,
                                        const std::vector<rules::CompiledRule>& compiled,
                                        const Rewrite* fold, const Rewrite* final_fold,
                                        int max_sweeps) {
  GreedyOutcome out;
  out.graph = input;
  std::vector<std::pair<int, std::vector<const Rewrite*>>> passes;
  for (const auto& [priority, members] : rules::GroupByPriority(compiled)) {
    std::vector<const Rewrite*> pass;
    for (size_t i : members) pass.push_back(&compiled[i].rewrite);
    if (fold != nullptr) pass.push_back(fold);
    passes.emplace_back(priority, std::move(pass));
  }
  if (final_fold != nullptr) {
    passes.emplace_back(passes.empty() ? 0 : passes.back().first, std::vector{final_fold});
  }
  for (const auto& [priority, pass] : passes) {
    int sweep = 0;
    for (;; ++sweep) {
      if (sweep == max_sweeps) {
        out.limit_hit = true;
        break;
      }
      const size_t before = out.fired;
      absl::StatusOr<Graph> next = GreedySweep(out.graph, pass, &out.fired);
      if (!next.ok()) {
        return absl::Status(next.status().code(), absl::StrCat("greedy pass at priority ", priority,
                                                               ": ", next.status().message()));
      }
      out.graph = *std::move(next);
      if (out.fired == before) break;
    }
  }
  return out;
}

// Syntactic CSE, dead-node removal and implementation selection.
absl::StatusOr<Graph> CseAndSelect(const Graph& g, const cost::HvxCostModel& model) {
  absl::StatusOr<Seeded> s = Seed(g);
  if (!s.ok()) return s.status();
  return LowerNewest(*s, {}, &model);
}

void FillCommon(const Graph& input, const cost::HvxCostModel& model, StrategyResult* r) {
  r->cost = cost::GraphCost(r->graph, model, nullptr);
  r->nodes = r->graph.num_nodes();
  std::map<std::string, int64_t> before = ComputingOpCounts(input);
  std::map<std::string, int64_t> after = ComputingOpCounts(r->graph);
  for (const auto& [op, n] : after) {
    auto it = before.find(op);
    const int64_t d = n - (it == before.end() ? 0 : it->second);
    if (d > 0) r->ops_added[op] = d;
  }
  for (const auto& [op, n] : before) {
    auto it = after.find(op);
    const int64_t d = n - (it == after.end() ? 0 : it->second);
    if (d > 0) r->ops_removed[op] = d;
  }
}

// Runs the result on the reference's inputs and compares the outputs.
void Verify(const VerifyReference& ref, const StrategyOptions& options, StrategyResult* r) {
  absl::StatusOr<VerifyReport> v =
      VerifyAgainst(ref.expected, r->graph, StrategyName(r->strategy), ref.inputs, options.verify);
  if (!v.ok()) {
    r->verify_message = std::string(v.status().message());
    return;
  }
  r->verdict = v->verdict();
  r->verified = v->ok();
  if (v->failed()) {
    r->verify_message = v->Failures();
  } else if (!v->ok()) {
    r->verify_message = absl::StrFormat("%d of %d outputs not verified: %s", v->not_verified(),
                                        v->outputs.size(), v->Unverified());
  }
}

}  // namespace

std::optional<Strategy> ParseStrategy(std::string_view name) {
  if (name == "greedy") return Strategy::kGreedy;
  if (name == "cse") return Strategy::kCse;
  if (!name.starts_with(kEqsatPrefix)) return std::nullopt;
  name.remove_prefix(kEqsatPrefix.size());
  const extract::Extractor* e = extract::FindExtractor(name);
  if (e == nullptr) return std::nullopt;
  return Strategy::Eqsat(*e);
}

std::string StrategyName(Strategy s) {
  switch (s.kind) {
    case Strategy::Kind::kGreedy:
      return "greedy";
    case Strategy::Kind::kCse:
      return "cse";
    case Strategy::Kind::kEqsat:
      return absl::StrCat(std::string(kEqsatPrefix), std::string(s.extractor->name));
  }
  return "?";
}

std::vector<Strategy> DefaultStrategies() {
  return StrategiesWith([](const extract::Extractor& e) { return e.compared_by_default; });
}

std::vector<Strategy> KnownStrategies() {
  return StrategiesWith([](const extract::Extractor&) { return true; });
}

std::string StrategyNames(const std::vector<Strategy>& strategies) {
  return absl::StrJoin(strategies, ", ",
                       [](std::string* out, Strategy s) { absl::StrAppend(out, StrategyName(s)); });
}

absl::StatusOr<VerifyReference> MakeVerifyReference(const Graph& input, uint64_t seed) {
  VerifyReference ref;
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(input, seed);
  if (!inputs.ok()) {
    return absl::Status(inputs.status().code(),
                        absl::StrCat("input: error: ", inputs.status().message()));
  }
  ref.inputs = *std::move(inputs);
  absl::StatusOr<ReferenceOutputs> expected = RunReference(input, "input", ref.inputs);
  if (!expected.ok()) return expected.status();
  ref.expected = *std::move(expected);
  return ref;
}

absl::StatusOr<StrategyResult> RunStrategy(Strategy strategy, const Graph& input,
                                           const rules::RuleSet& rule_set,
                                           const StrategyOptions& options, DiagnosticList* diags,
                                           const VerifyReference* reference) {
  const Clock::time_point t0 = Clock::now();
  StrategyResult r;
  r.strategy = strategy;
  const cost::HvxCostModel model = cost::MakeCostModel(
      rule_set.ops, options.optimize.cost_overrides, EffectiveOptions(input, options.optimize),
      nullptr, options.optimize.device);
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  if (strategy.kind != Strategy::Kind::kEqsat) {
    Graph g = input;
    if (strategy == Strategy::kGreedy) {
      absl::StatusOr<std::vector<rules::CompiledRule>> compiled =
          CompileForGraph(input, rule_set, options.optimize, diags);
      if (!compiled.ok()) return compiled.status();
      r.stage_ms["compile"] = ms_since(t0);
      const Clock::time_point t_rewrite = Clock::now();
      // Folding is the last rule of every pass, except for Dequantize, which
      // is folded only after the last pass: on the HTP the converter turns a
      // QDQ model's weights into quantized tensors before any pass runs, so
      // no pass may find a weight's Dequantize already folded to float (it
      // would hide the quantized op from quantization.rules).
      std::optional<Rewrite> fold, final_fold;
      if (options.optimize.constant_folding) {
        FoldPolicy policy = FoldPolicyFor(rule_set.ops, options.optimize.fold_max_elements);
        absl::StatusOr<Rewrite> f = ConstantFoldRewrite(policy);
        if (!f.ok()) return f.status();
        final_fold = *std::move(f);
        policy.ops[std::string(kDequantizeOp)].inhibit = true;
        f = ConstantFoldRewrite(std::move(policy));
        if (!f.ok()) return f.status();
        fold = *std::move(f);
      }
      absl::StatusOr<GreedyOutcome> out =
          RunGreedy(input, *compiled, fold ? &*fold : nullptr, final_fold ? &*final_fold : nullptr,
                    options.max_sweeps);
      if (!out.ok()) return out.status();
      g = std::move(out->graph);
      r.rewrites = out->fired;
      r.limit_hit = out->limit_hit;
      r.stop_reason = out->limit_hit ? "SweepLimit" : "Fixpoint";
      r.stage_ms["rewrite"] = ms_since(t_rewrite);
    }
    const Clock::time_point t_select = Clock::now();
    absl::StatusOr<Graph> selected = CseAndSelect(g, model);
    if (!selected.ok()) return selected.status();
    r.graph = *std::move(selected);
    r.stage_ms["select"] = ms_since(t_select);
  } else {
    OptimizeOptions o = options.optimize;
    o.extractor = strategy.extractor;
    absl::StatusOr<OptimizeResult> opt = Optimize(input, rule_set, o, diags);
    if (!opt.ok()) return opt.status();
    r.graph = std::move(opt->graph);
    r.egraph_nodes = opt->saturation.peak_enodes;
    for (const PhaseSummary& p : opt->saturation.phases) r.rewrites += p.applications;
    r.stop_reason = std::string(StopReasonName(opt->saturation.stop_reason));
    r.limit_hit = opt->saturation.stop_reason != StopReason::kSaturated;
    r.phases = opt->saturation.phases;
    for (const auto& [stage, ms] : opt->time.Named()) r.stage_ms[std::string(stage)] = ms;
    for (const auto& [stage, ms] : opt->cpu_time.Named()) r.stage_cpu_ms[std::string(stage)] = ms;
    for (const auto& [stage, ms] : opt->substage_cpu_ms) r.substage_cpu_ms[stage] += ms;
  }
  r.time_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  FillCommon(input, model, &r);
  if (!options.verify_result) {
    r.verify_message = "not run";
    return r;
  }
  std::optional<VerifyReference> own;
  if (reference == nullptr) {
    absl::StatusOr<VerifyReference> made = MakeVerifyReference(input, options.seed);
    if (!made.ok()) {
      r.verify_message = std::string(made.status().message());
      return r;
    }
    own = *std::move(made);
    reference = &*own;
  }
  Verify(*reference, options, &r);
  return r;
}

}  // namespace egret
