// Export of an e-graph: egraph-serialize JSON (the format egg/egglog write and
// extraction-gym reads) and Graphviz DOT.
#ifndef EGRET_EGRAPH_SERIALIZE_H_
#define EGRET_EGRAPH_SERIALIZE_H_

#include <functional>
#include <string>

#include "absl/types/span.h"
#include "egret/egraph/egraph.h"

namespace egret {

// Cost of one e-node (its own cost, not counting operands).
using NodeCostFn = std::function<double(const EGraph&, NodeIdx)>;

// {"nodes": {"<class>.<k>": {"op", "children": [node ids], "eclass": "<class>",
// "cost"}}, "class_data": {"<class>": {"type": "<TensorType>"}},
// "root_eclasses": ["<class>"...]}. Node "c.k" is the k-th node of canonical
// class c; a child is named by the first node of its class ("c.0"), as
// extraction-gym only reads the child's class. Costs default to 1. Roots are
// canonicalized. The e-graph must be clean.
std::string ToSerializedJson(const EGraph& g, absl::Span<const Id> roots,
                             const NodeCostFn& cost = nullptr);

// A digraph with one cluster per class (labelled with id and type) and an
// edge from each node to the cluster of each operand. Roots are drawn bold.
std::string ToDot(const EGraph& g, absl::Span<const Id> roots = {});

}  // namespace egret

#endif  // EGRET_EGRAPH_SERIALIZE_H_
