#include "egret/pipeline/op_counts.h"
#include "egret/pipeline/summarize_internal.h"

namespace egret {

std::map<std::string, OpCount> OpCountChanges(const Graph& before, const Graph& after) {
  std::map<std::string, OpCount> counts;
  for (const auto& [op, n] : ComputingOpCounts(before)) counts[op].before = n;
  for (const auto& [op, n] : ComputingOpCounts(after)) counts[op].after = n;
  return counts;
}

ProvenanceSummary SummarizeProvenance(const Graph& g) {
  ProvenanceSummary out;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (!IsRewritten(n)) continue;
    const Provenance& p = n.provenance;
    for (const std::string& r : p.rules()) ++out.by_rule[r];
    if (p.from().size() > 1) out.merged_input_nodes += static_cast<int64_t>(p.from().size());
    out.nodes.push_back(RewrittenNode{n.name, n.op, p.from(), p.rules()});
  }
  return out;
}

std::vector<RuleIssue> RuleIssuesOf(const std::vector<rules::CompiledRule>& rules) {
  std::vector<RuleIssue> out;
  for (const rules::CompiledRule& r : rules) {
    if (r.log->type_mismatches == 0 && r.log->build_failures == 0) continue;
    out.push_back(RuleIssue{r.label, r.loc.ToString(), r.log->type_mismatches,
                            r.log->build_failures, r.log->messages});
  }
  return out;
}

size_t ProvenanceRecordsOf(const std::vector<rules::CompiledRule>& rules) {
  size_t n = 0;
  for (const rules::CompiledRule& r : rules) n += r.log->provenance.size();
  return n;
}

}  // namespace egret
