// Pricing nodes and graphs with the HVX cost model. NodeCostOf is the one
// place that turns tensor types into a node cost: extraction problems
// (extract/egraph_problem.h), graph costs (optimize's input and output cost,
// the comparison strategies) and lowering's implementation annotations all
// use it, so that they price a node the same way.
#ifndef EGRET_COST_GRAPH_COST_H_
#define EGRET_COST_GRAPH_COST_H_

#include <string>
#include <string_view>

#include "absl/types/span.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/graph/graph.h"

namespace egret::cost {

// The cost of a node of `op` with outputs `outputs` (bytes summed; the dtype
// is that of the first) reading `inputs` (their bytes make up the working set
// with the outputs'; callers leave out "$Shape" inputs, whose dims are their
// value, not a size).
NodeCost NodeCostOf(const HvxCostModel& model, std::string_view op,
                    absl::Span<const TensorType> outputs, absl::Span<const TensorType> inputs);

// The cost of node `n` of `g` (its inputs are nodes of `g`; `n` itself need
// not be added yet): NodeCostOf its outputs and the types of its inputs other
// than "$Shape" values.
NodeCost GraphNodeCost(const HvxCostModel& model, const Graph& g, const Node& n);

// The DAG cost of `g` (every node paid once). Sets *missing_op (when not null)
// to the first op without an implementation and returns +infinity then.
double GraphCost(const Graph& g, const HvxCostModel& model, std::string* missing_op);

// Writes the implementation and cost of every computing node of `g` (all but
// "$Const", "$Shape" and "*Input") under `model` into its kImplAttr and
// kCostAttr attributes (graph/graph.h), in node order. Returns the first node
// whose op has no registered implementation, with the nodes before it
// annotated, or kNoNode when every node was priced.
NodeId AnnotateImplementations(const HvxCostModel& model, Graph* g);

}  // namespace egret::cost

#endif  // EGRET_COST_GRAPH_COST_H_
