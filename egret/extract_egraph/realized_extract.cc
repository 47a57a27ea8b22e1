#include "egret/extract_egraph/realized_extract.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "egret/cost/graph_cost.h"

namespace egret::extract {
namespace {

// The matrix op class that class c's chosen node stands for, plus one, or 0:
// c itself when that node is a matrix op; for an elementwise node, the one
// class all its data operands are, whose chosen node is a matrix op.
uint64_t RealizedSource(const EGraphProblem& p, const Choice& choice, ClassId c) {
  const ENodeId n = choice[c];
  if (n == kNoENode) return 0;
  const std::string& op = p.problem.op(n);
  if (cost::IsMatrixOp(op)) return uint64_t{c} + 1;
  if (!cost::IsElementwiseOp(op)) return 0;
  uint64_t source = 0;
  for (ClassId ch : p.problem.children(n)) {
    if (p.param_class[ch]) continue;
    const ENodeId m = choice[ch];
    if (m == kNoENode || !cost::IsMatrixOp(p.problem.op(m))) return 0;
    if (source != 0 && source != uint64_t{ch} + 1) return 0;
    source = uint64_t{ch} + 1;
  }
  return source;
}

}  // namespace

EpilogueCheck CheckEpilogues(const EGraphProblem& p, const Choice& choice) {
  EpilogueCheck out;
  std::vector<bool> reached(p.problem.num_classes(), false);
  for (ClassId c : ReachableClasses(p.problem, choice)) {
    reached[c] = true;
    out.dag_cost += p.problem.cost(choice[c]);
  }
  out.realized_cost = out.dag_cost;
  for (size_t i = 0; i < p.epilogues.size(); ++i) {
    const EGraphProblem::EpilogueAssumption& a = p.epilogues[i];
    const ClassId c = p.problem.node_class(a.node);
    if (!reached[c] || choice[c] != a.node) continue;
    uint64_t source = 0;
    bool holds = !a.operands.empty();
    for (ClassId k : a.operands) {
      const uint64_t s = RealizedSource(p, choice, k);
      holds = holds && s != 0 && (source == 0 || s == source);
      source = s;
    }
    out.realized_cost += (holds ? a.assumed_cost : a.standalone_cost) - p.problem.cost(a.node);
    if (!holds) out.unrealized.push_back(i);
  }
  return out;
}

absl::StatusOr<RealizedExtraction> ExtractRealized(EGraphProblem& p, const Extractor& extractor,
                                                   const ExtractOptions& options, int max_rounds) {
  RealizedExtraction best;
  bool have = false;
  const int rounds = std::max(max_rounds, 1);
  for (int round = 0; round < rounds; ++round) {
    absl::StatusOr<ExtractResult> r = Extract(p.problem, extractor, options);
    if (!r.ok()) return r.status();
    const EpilogueCheck check = CheckEpilogues(p, r->choice);
    if (!have || check.realized_cost < best.result.dag_cost) {
      best.result = *std::move(r);
      best.result.dag_cost = check.realized_cost;
      have = true;
    }
    best.rounds = round + 1;
    // No round left to use raised costs in: nothing to raise.
    if (check.unrealized.empty() || round + 1 == rounds) break;
    if (options.deadline && std::chrono::steady_clock::now() >= *options.deadline) break;
    for (size_t i : check.unrealized) {
      p.problem.RaiseCost(p.epilogues[i].node, p.epilogues[i].standalone_cost);
    }
    best.corrected += check.unrealized.size();
  }
  return best;
}

}  // namespace egret::extract
