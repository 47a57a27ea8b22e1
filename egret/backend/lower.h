// Lowering: an extracted choice (one e-node per e-class) becomes a Graph.
//
// The result is topologically ordered (every node after its producers; graph
// inputs first, in the order given), holds only what the outputs need (plus
// every graph input, kept by name), resolves "$Out" selections into outputs
// of one multi-output node, and annotates every computing node with the
// attributes "egret.impl" (string, the implementation chosen) and
// "egret.cost" (double, its cost): kImplAttr and kCostAttr (graph/graph.h). An op the annotator
// rejects (no registered implementation) is an error naming the op, its class
// and, through LowerRequest::describe, where the node came from.
#ifndef EGRET_BACKEND_LOWER_H_
#define EGRET_BACKEND_LOWER_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/graph.h"

namespace egret {

struct LowerAnnotation {
  std::string impl;
  double cost = 0;
};

struct LowerRequest {
  // The chosen e-node of each (canonical) class the outputs need.
  absl::flat_hash_map<Id, NodeIdx> choice;
  // Graph inputs ("*Input" classes) and outputs, with their names, in order.
  std::vector<std::pair<Id, std::string>> inputs;
  std::vector<std::pair<Id, std::string>> outputs;
  // Names for particular e-nodes (e.g. the input graph's node names); other
  // nodes get fresh names "n<k>". Names stay unique.
  absl::flat_hash_map<NodeIdx, std::string> names;
  std::string graph_name;
  Options options;
  // The implementation and cost of a computing node (not "$Const", "$Shape",
  // "$Out" or "*Input") of the graph being lowered: `node` has its op, inputs
  // (nodes of `g`) and outputs (several for a multi-output node), and is not
  // yet added to `g`. An error when the op may not be used. Null: no
  // annotations.
  std::function<absl::StatusOr<LowerAnnotation>(const Graph& g, const Node& node)> annotate;
  // Where e-node n came from, for error messages (e.g. "from input node
  // 'conv1' by rule 'fuse@fusion.rules:12'"); null: not said.
  std::function<std::string(NodeIdx n)> describe;
};

// What lowering made of each class: the node computing it.
struct LowerTrace {
  inline static constexpr NodeIdx kNoENode = ~NodeIdx{0};
  // By NodeId of the lowered graph: the chosen e-node it was emitted from
  // (kNoENode for graph inputs).
  std::vector<NodeIdx> enode;
  // Canonical class -> the lowered node computing it ("$Out" classes map to
  // their multi-output node).
  absl::flat_hash_map<Id, NodeId> node_of_class;
};

// Fails (kInvalidArgument) on a class without a chosen node, a cycle in the
// choice, or an op the annotator rejects.
// With `trace`, also records what became of each class.
absl::StatusOr<Graph> LowerChoice(const EGraph& g, const LowerRequest& request,
                                  LowerTrace* trace = nullptr);

}  // namespace egret

#endif  // EGRET_BACKEND_LOWER_H_
