// Glue between the rule registry, the HVX cost model and the extractors: the
// cost table from DEF_PACKAGE_OP* registrations, `--costs` JSON overrides,
// the extraction problem of an e-graph, and the cost of a graph.
#ifndef EGRET_PIPELINE_COSTS_H_
#define EGRET_PIPELINE_COSTS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/egraph/egraph.h"
#include "egret/extract/hvx_cost_model.h"
#include "egret/extract/problem.h"
#include "egret/graph/graph.h"
#include "egret/rules/op_registry.h"

namespace egret {

// One entry per registered implementation. A cost is evaluated as far as it
// can be: COST_OF(f, base) counts as its base cost, also inside arithmetic
// (COST_OF(f, SNAIL)/2 is SNAIL/2). A cost that needs a cost function
// (COST_OF_F, *_COST_F_*), which egret cannot run, counts as GLACIAL, with a
// warning at the implementation's location in `diags` (when given). A cost
// that mentions DISABLE marks the implementation disabled.
extract::CostTable CostTableFromRegistry(const rules::OpRegistry& registry,
                                         DiagnosticList* diags = nullptr);

// Reads a JSON cost table into `table`'s overrides:
//   {"Conv2d": 4096, "Relu": {"QUInt8": 1, "*": 2}}
// (cost per 128-byte output vector; "*" = any dtype). Errors name `file`.
absl::Status AddCostOverrides(std::string_view json_text, const std::string& file,
                              extract::CostTable* table);

// CostTableFromRegistry plus `overrides` (op -> dtype or "*" -> cost), as
// OptimizeOptions::cost_overrides holds them.
extract::CostTable CostTableWithOverrides(
    const rules::OpRegistry& registry,
    const absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, double>>& overrides,
    DiagnosticList* diags = nullptr);

// How many nodes of each computing op (not "*Input", "$Const", "$Shape") `g` has.
std::map<std::string, int64_t> ComputingOpCounts(const Graph& g);

// The graph option that gives the VTCM capacity in bytes: "tcm_size_for_tiling",
// the option the rules read as TCM_MAXTENSOR_SIZE, so that tiling rules and
// the cost model agree on it.
inline constexpr std::string_view kVtcmBytesOption = "tcm_size_for_tiling";

// The VTCM capacity `options` give (kVtcmBytesOption, an integer or a number;
// extract::kDefaultVtcmBytes when absent or not positive).
int64_t VtcmBytesOf(const Options& options);

// The HVX cost model of `registry` plus `overrides` (as CostTableWithOverrides)
// with the VTCM capacity of `options` (the graph's options with any overrides
// applied). Every stage that prices nodes builds its model here.
extract::HvxCostModel MakeCostModel(
    const rules::OpRegistry& registry,
    const absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, double>>& overrides,
    const Options& options, DiagnosticList* diags = nullptr);

// The cost of a node of `op` with outputs `outputs` (bytes summed; the dtype
// is that of the first) reading `inputs` (their bytes make up the working
// set with the outputs'; callers leave out "$Shape" inputs, whose dims are
// their value, not a size). The one place that turns types into a node cost:
// extraction problems, graph costs and lowering annotations all use it.
extract::NodeCost NodeCostOf(const extract::HvxCostModel& model, std::string_view op,
                             absl::Span<const TensorType> outputs,
                             absl::Span<const TensorType> inputs);

// The cost of node `n` of `g` (its inputs are nodes of `g`; `n` itself need
// not be added yet): NodeCostOf its outputs and the types of its inputs other
// than "$Shape" values. GraphCost and lowering's annotations both use it.
extract::NodeCost GraphNodeCost(const extract::HvxCostModel& model, const Graph& g, const Node& n);

// The DAG cost of `g` (every node paid once). Sets *missing_op to the first
// op without an implementation and returns +infinity then.
double GraphCost(const Graph& g, const extract::HvxCostModel& model, std::string* missing_op);

// The extraction problem of the classes reachable from `roots`, with HVX
// costs. Nodes whose op has no implementation are left out; when a root
// cannot be computed at all, the error names the root class and an op that
// blocks it, and with `describe`, where that op's node came from.
struct EGraphProblem {
  extract::ExtractionProblem problem;
  std::vector<Id> class_of;      // problem class -> e-class
  std::vector<NodeIdx> node_of;  // problem node -> e-node
};
absl::StatusOr<EGraphProblem> BuildProblem(
    const EGraph& g, const extract::HvxCostModel& model, const std::vector<Id>& roots,
    const std::function<std::string(NodeIdx)>& describe = nullptr);

}  // namespace egret

#endif  // EGRET_PIPELINE_COSTS_H_
