// Pricing nodes and graphs with the HVX cost model. NodeCostOf is the one
// place that turns tensor types into a node cost: extraction problems
// (extract/egraph_problem.h), graph costs (optimize's input and output cost,
// the comparison strategies) and lowering's implementation annotations all
// use it, so that they price a node the same way.
#ifndef EGRET_COST_GRAPH_COST_H_
#define EGRET_COST_GRAPH_COST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "egret/cost/hvx_cost_model.h"
#include "egret/graph/graph.h"
#include "egret/graph/op_table.h"

namespace egret::cost {

// An input (operand) of a node, as pricing sees it.
struct NodeInput {
  const TensorType* type = nullptr;  // not null
  // Produced by a "$Shape" node: its dims are its value, it occupies no
  // memory, so it is not part of the working set (nor a data operand).
  bool shape_value = false;
  // A constant (a weight): the latency model reads its bytes from DDR.
  bool constant = false;
  // For a weight read through a Dequantize of a quantized constant (a QDQ or
  // block-quantized 4-bit weight): that constant's type. The HTP keeps such
  // a weight quantized and reads its stored bytes (TensorType::
  // stored_byte_size), not the dequantized ones. Null otherwise.
  const TensorType* stored = nullptr;
  // The matrix op this input is computed from alone (its output, or an
  // elementwise op of that output and constants), as a caller-chosen nonzero
  // key (a node or e-class id plus one); 0 when none. An elementwise node all
  // of whose data operands have the same key is that op's epilogue
  // (NodeProfile::epilogue).
  uint64_t matrix_source = 0;
};

// True for an op of the op table's convolution and matrix group, and for one
// of its elementwise group (graph/op_table.h): the ops an epilogue follows,
// and the ops an epilogue is made of.
bool IsMatrixOp(std::string_view op);
bool IsElementwiseOp(std::string_view op);

// True for an op the HTP computes while preparing the graph when all its
// inputs are constants: an op of the op table other than the special ones.
// An op egret does not know (a random draw, an opaque ONNX op) is not folded.
// Graph pricing and the extraction problem both decide constants with it.
bool FoldsFromConstants(std::string_view op);

// The NodeProfile (hvx_cost_model.h) of a node of `op` with outputs `outputs`
// reading `inputs`, all of them in operand order: the first output's dtype
// (multi_output when there are several), the outputs' bytes summed, the bytes of
// the inputs other than "$Shape" values, and the dtypes and ranks of the data
// operands: the inputs the op table (graph/op_table.h) does not mark as
// parameters, all of them for an op it does not know, "$Shape" values never.
NodeProfile ProfileOf(std::string_view op, absl::Span<const TensorType> outputs,
                      absl::Span<const NodeInput> inputs);

// model.Cost(op, ProfileOf(op, outputs, inputs)).
NodeCost NodeCostOf(const HvxCostModel& model, std::string_view op,
                    absl::Span<const TensorType> outputs, absl::Span<const NodeInput> inputs);

// The profile of node `n` of `g` (its inputs are nodes of `g`; `n` itself
// need not be added yet): ProfileOf its outputs and inputs, an input
// produced by a "$Shape" node being a shape value and one produced by a
// "$Const" node, or by a node of a known op computed from "$Const" and
// "$Shape" nodes alone (a Reshape or Cast of a weight, a tiling rule's Slice
// of a dequantized one, which the HTP computes while preparing the graph), a
// constant: the latency model reads its bytes from DDR as a weight's, not
// from VTCM. An input's matrix_source is its producer when
// that is a matrix op, or the matrix op an elementwise producer reads alone
// (one level: LeakyRelu's max(x, a * x) and x * Sigmoid(x) of a convolution
// output x are epilogues of it).
NodeProfile GraphNodeProfile(const Graph& g, const Node& n);

// The cost of node `n` of `g`: model.Cost of GraphNodeProfile.
NodeCost GraphNodeCost(const HvxCostModel& model, const Graph& g, const Node& n);

// GraphNodeProfile for many nodes of one graph (pricing a whole graph): each
// value's constant test, a walk up its producers that every reader and the
// readers of those would repeat, is made once, and so is each node's op
// table lookup by name, which every reader would repeat too. The graph's
// nodes and edges must not change while it is used (attributes may).
class GraphProfiler {
 public:
  // Looks up the op table's row of every node's op (once, here).
  explicit GraphProfiler(const Graph& g);
  // GraphNodeProfile(g, g.node(id)).
  NodeProfile Profile(NodeId id);

 private:
  const Graph& g_;
  std::vector<const OpDef*> defs_;  // by node id: FindOpDef of its op
  std::vector<int8_t> constant_;    // by node id: -1 not asked, 0 not constant, 1 constant
};

// The first node of a graph that no HTP implementation can compute (with the
// CPU fallback off).
struct UncomputableNode {
  std::string op;
  std::string reason;  // NodeCost::reason
};

// The DAG cost of `g` (every node paid once). Sets *missing (when not null)
// to the first node that cannot be computed (no eligible implementation and
// no CPU fallback) and returns +infinity then.
double GraphCost(const Graph& g, const HvxCostModel& model, UncomputableNode* missing);

// The attribute an off-HTP node of an annotated graph gets besides kImplAttr
// (whose value is then kOffHtpImpl): why no HTP implementation computes it
// (NodeCost::reason).
inline constexpr std::string_view kOffHtpReasonAttr = "egret.off_htp_reason";

// Writes the implementation and cost of every computing node of `g` (all but
// "$Const", "$Shape" and "*Input") under `model` into its kImplAttr and
// kCostAttr attributes (graph/graph.h), in node order, and for a node priced
// as off the HTP why into kOffHtpReasonAttr (removed from the others).
// Returns the first node that cannot be computed (no eligible
// implementation, no CPU fallback), with the nodes before it annotated and
// its NodeCost in *blocked (when not null), or kNoNode when every node was
// priced.
NodeId AnnotateImplementations(const HvxCostModel& model, Graph* g, NodeCost* blocked = nullptr);

}  // namespace egret::cost

#endif  // EGRET_COST_GRAPH_COST_H_
