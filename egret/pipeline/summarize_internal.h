// The parts of an OptimizeResult (pipeline/optimize_result.h) that summarize
// graphs and compiled rules (not installed).
#ifndef EGRET_PIPELINE_SUMMARIZE_INTERNAL_H_
#define EGRET_PIPELINE_SUMMARIZE_INTERNAL_H_

#include <map>
#include <string>
#include <vector>

#include "egret/graph/graph.h"
#include "egret/pipeline/optimize_result.h"
#include "egret/rules_compile/compiler.h"

namespace egret {

// Per computing op (pipeline/op_counts.h: ComputingOpCounts), its node count in
// `before` and `after`.
std::map<std::string, OpCount> OpCountChanges(const Graph& before, const Graph& after);

// The nodes of `g` that rules built or that compute more than their own input
// node, from Node::provenance.
ProvenanceSummary SummarizeProvenance(const Graph& g);

// The rules with type mismatches or build failures, in rule order.
std::vector<RuleIssue> RuleIssuesOf(const std::vector<rules::CompiledRule>& rules);

// The WITH_SAME_ID / WITH_SPLIT_HISTORY entries the rules' logs hold.
size_t ProvenanceRecordsOf(const std::vector<rules::CompiledRule>& rules);

}  // namespace egret

#endif  // EGRET_PIPELINE_SUMMARIZE_INTERNAL_H_
