// Adds an egret::Graph to an e-graph.
#ifndef EGRET_EGRAPH_GRAPH_IMPORT_H_
#define EGRET_EGRAPH_GRAPH_IMPORT_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/graph.h"

namespace egret {

// Per graph node (by NodeId), the class of each of its outputs: 4 bytes a
// node of one output, the outputs of a node of several in a side array (a
// vector per node was 16 bytes, and a million of them were the import's
// largest first touch of fresh memory).
class GraphClasses {
 public:
  GraphClasses() = default;
  // `nodes` nodes, none with a class yet.
  explicit GraphClasses(size_t nodes) : one_(nodes, kNoId) {}

  size_t size() const { return one_.size(); }
  // The classes of node `id`'s outputs, in order (empty: not added).
  absl::Span<const Id> operator[](NodeId id) const {
    const Id v = one_[id];
    if (v == kNoId) return {};
    if ((v & kMulti) == 0) return absl::MakeConstSpan(&one_[id], 1);
    const Id at = v & ~kMulti;
    return absl::MakeConstSpan(multi_.data() + at + 1, multi_[at]);
  }
  // Sets node `id`'s classes (once).
  void Set(NodeId id, absl::Span<const Id> classes) {
    if (classes.size() == 1 && (classes[0] & kMulti) == 0) {
      one_[id] = classes[0];
      return;
    }
    one_[id] = kMulti | static_cast<Id>(multi_.size());
    multi_.push_back(static_cast<Id>(classes.size()));
    multi_.insert(multi_.end(), classes.begin(), classes.end());
  }

 private:
  // one_[id]: the class of a node of one output below kMulti; kNoId: none
  // yet; else kMulti | where in multi_ its count and classes are.
  static constexpr Id kMulti = Id{1} << 31;
  std::vector<Id> one_;
  std::vector<Id> multi_;
};

// Adds every node of `graph` (which must pass Validate()) in topological
// order. "$Const" nodes become "$Const" e-nodes holding the constant (equal
// data merges); "$Shape" nodes keep their dims through their type (payload =
// TypeId); other nodes carry their attributes as payload, so opaque nodes with
// different attributes never merge. A node with k > 1 outputs becomes an
// e-node of type Multi read by k "$Out" nodes (see EGraph::AddOut). Volatile
// ops ("*Input") each get their own class. Identical pure subgraphs merge (CSE).
// With `added`, also per graph node the e-node stored for it (for a node of
// several outputs, the one its "$Out" nodes read): kNoNodeIdx when an equal
// e-node was there already, as for a node CSE merged. With `order`, also the
// order the nodes were added in: Graph::TopologicalOrder()'s, without
// another pass over the graph's nodes.
absl::StatusOr<GraphClasses> AddGraph(EGraph& g, const Graph& graph,
                                      std::vector<NodeIdx>* added = nullptr,
                                      std::vector<NodeId>* order = nullptr);

}  // namespace egret

#endif  // EGRET_EGRAPH_GRAPH_IMPORT_H_
