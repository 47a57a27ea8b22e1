// Shared by the optimize pipeline and the comparison strategies (not
// installed): a graph imported into a fresh e-graph together with what is
// needed to lower a choice of e-nodes back to a graph.
#ifndef EGRET_PIPELINE_SEED_INTERNAL_H_
#define EGRET_PIPELINE_SEED_INTERNAL_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "egret/backend/lower.h"
#include "egret/backend/provenance.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/graph.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules_compile/compiler.h"
#include "egret/support/process_time.h"

namespace egret {

struct Seeded {
  EGraph eg;
  std::vector<std::pair<Id, std::string>> inputs;
  std::vector<std::pair<Id, std::string>> outputs;
  ENodeNames names;  // the input graph's node names, by seeded e-node
  std::string graph_name;
  Options options;
  // The class of output 0 of each graph node, in the graph's topological
  // order (kNoId for a node without outputs).
  std::vector<Id> topo_classes;
  // The graph's nodes as provenance sources (backend/provenance.h), by NodeId.
  ProvenanceSources sources;

  // The canonical classes of the graph outputs.
  std::vector<Id> Roots() const;
};

// Sub-stage CPU laps (OptimizeResult::substage_cpu_ms): Lap(key) adds the
// process CPU time since the previous Lap (or the construction) to `key`'s
// entry of `out`, appending it the first time. A null `out` records nothing.
class CpuLaps {
 public:
  explicit CpuLaps(std::vector<std::pair<std::string, double>>* out)
      : out_(out), last_(out != nullptr ? ProcessCpuMs() : 0) {}
  void Lap(std::string_view key);

 private:
  std::vector<std::pair<std::string, double>>* out_;
  double last_;
};

// Imports `g` with its integer-list parameters in canonical form
// (graph/canonical_params.h; syntactic CSE: identical pure nodes merge) and
// rebuilds. With `laps`, its sub-stages are timed ("seed_params",
// "seed_import", "seed_rebuild", "seed_names", "seed_sources").
absl::StatusOr<Seeded> Seed(const Graph& g, CpuLaps* laps = nullptr);

// Says where e-node n of `s` came from: "from input node 'a' by rule 'r'"
// (backend/provenance.h), or "".
std::string DescribeENode(const Seeded& s, NodeIdx n);

// Lowers `choice` (a chosen e-node per canonical class the outputs need) to a
// validated graph whose nodes carry their provenance; with `model`, every
// computing node is annotated with its cheapest implementation and cost (an op
// without one is an error naming where the node came from).
// With `laps`, its sub-stages are timed ("lower", "annotate", "provenance",
// "validate").
absl::StatusOr<Graph> LowerSeeded(const Seeded& s, absl::flat_hash_map<Id, NodeIdx> choice,
                                  const cost::HvxCostModel* model, CpuLaps* laps = nullptr);

// `input`'s options overridden by options.option_overrides: what the rules
// read (OPTION_*) and what gives the cost model its VTCM capacity.
Options EffectiveOptions(const Graph& input, const OptimizeOptions& options);

// Compiles `rule_set` for `input` (its options overridden by
// options.option_overrides, options.functions); rules that fail are reported
// in `diags` and fail the call (kFailedPrecondition). Rules calling a function
// options.functions does not implement are left out and listed in `skipped`
// (may be null).
absl::StatusOr<std::vector<rules::CompiledRule>> CompileForGraph(
    const Graph& input, const rules::RuleSet& rule_set, const OptimizeOptions& options,
    DiagnosticList* diags, std::vector<SkippedRuleSummary>* skipped = nullptr);

}  // namespace egret

#endif  // EGRET_PIPELINE_SEED_INTERNAL_H_
