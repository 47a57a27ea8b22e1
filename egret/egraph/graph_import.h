// Adds an egret::Graph to an e-graph.
#ifndef EGRET_EGRAPH_GRAPH_IMPORT_H_
#define EGRET_EGRAPH_GRAPH_IMPORT_H_

#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/graph.h"

namespace egret {

// Per graph node (by NodeId), the class of each of its outputs.
using GraphClasses = std::vector<absl::InlinedVector<Id, 1>>;

// Adds every node of `graph` (which must pass Validate()) in topological
// order. "$Const" nodes become "$Const" e-nodes holding the constant (equal
// data merges); "$Shape" nodes keep their dims through their type (payload =
// TypeId); other nodes carry their attributes as payload, so opaque nodes with
// different attributes never merge. A node with k > 1 outputs becomes an
// e-node of type Multi read by k "$Out" nodes (see EGraph::AddOut). Volatile
// ops ("*Input") each get their own class. Identical pure subgraphs merge (CSE).
// With `added`, also per graph node the e-node stored for it (for a node of
// several outputs, the one its "$Out" nodes read): kNoNodeIdx when an equal
// e-node was there already, as for a node CSE merged.
absl::StatusOr<GraphClasses> AddGraph(EGraph& g, const Graph& graph,
                                      std::vector<NodeIdx>* added = nullptr);

}  // namespace egret

#endif  // EGRET_EGRAPH_GRAPH_IMPORT_H_
