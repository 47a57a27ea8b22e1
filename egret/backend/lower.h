// Lowering: an extracted choice (one e-node per e-class) becomes a Graph.
//
// The result is topologically ordered (every node after its producers; graph
// inputs first, in the order given), holds only what the outputs need (plus
// every graph input, kept by name), resolves "$Out" selections into outputs
// of one multi-output node. Lowering knows nothing of costs: pricing the
// result (the "egret.impl"/"egret.cost" annotations) is the cost stage's
// (cost/graph_cost.h: AnnotateImplementations), and LowerTrace says which
// e-node and class each lowered node came from, for its error messages.
#ifndef EGRET_BACKEND_LOWER_H_
#define EGRET_BACKEND_LOWER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/graph.h"

namespace egret {

struct LowerRequest {
  // The chosen e-node of each (canonical) class the outputs need.
  absl::flat_hash_map<Id, NodeIdx> choice;
  // Graph inputs ("*Input" classes) and outputs, with their names, in order.
  std::vector<std::pair<Id, std::string>> inputs;
  std::vector<std::pair<Id, std::string>> outputs;
  // Names for particular e-nodes (e.g. the input graph's node names); other
  // nodes get fresh names "n<k>". Names stay unique. Not owned; may be null
  // (no names), else must outlive LowerChoice.
  const absl::flat_hash_map<NodeIdx, std::string>* names = nullptr;
  std::string graph_name;
  Options options;
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

// Fails (kInvalidArgument) on a class without a chosen node or a cycle in the
// choice.
// With `trace`, also records what became of each class.
absl::StatusOr<Graph> LowerChoice(const EGraph& g, const LowerRequest& request,
                                  LowerTrace* trace = nullptr);

}  // namespace egret

#endif  // EGRET_BACKEND_LOWER_H_
