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

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/graph.h"

namespace egret {

// Names of particular e-nodes (e.g. the input graph's node names), in an
// array by e-node rather than a hash map: lowering asks once per emitted node,
// and on millions of e-nodes a hash probe is a cache miss.
class ENodeNames {
 public:
  // Names e-node `n` `name` unless it has a name already.
  void Add(NodeIdx n, std::string_view name);
  // The name of `n`, or nullopt.
  std::optional<std::string_view> Find(NodeIdx n) const {
    if (n >= index_.size() || index_[n] == kNone) return std::nullopt;
    const uint32_t k = index_[n];
    const size_t begin = k == 0 ? 0 : end_[k - 1];
    return std::string_view(text_).substr(begin, end_[k] - begin);
  }
  size_t size() const { return end_.size(); }

 private:
  static constexpr uint32_t kNone = ~uint32_t{0};
  std::vector<uint32_t> index_;  // by e-node: which name, or kNone
  // The names one after another (a million-node graph's names were a
  // million strings), and where each ends.
  std::string text_;
  std::vector<size_t> end_;
};

struct LowerRequest {
  // The chosen e-node of each (canonical) class the outputs need.
  absl::flat_hash_map<Id, NodeIdx> choice;
  // Graph inputs ("*Input" classes) and outputs, with their names, in order.
  std::vector<std::pair<Id, std::string>> inputs;
  std::vector<std::pair<Id, std::string>> outputs;
  // Names for particular e-nodes (e.g. the input graph's node names); other
  // nodes get fresh names "n<k>". Names stay unique. Not owned; may be null
  // (no names), else must outlive LowerChoice.
  const ENodeNames* names = nullptr;
  std::string graph_name;
  Options options;
};

// What lowering made of each class: the node computing it.
struct LowerTrace {
  inline static constexpr NodeIdx kNoENode = ~NodeIdx{0};
  // By NodeId of the lowered graph: the chosen e-node it was emitted from
  // (kNoENode for graph inputs).
  std::vector<NodeIdx> enode;
  // By canonical class id: the lowered node computing it ("$Out" classes map
  // to their multi-output node), or kNoNode (no lowered node, or past the
  // end: the array ends at the largest class chosen or input).
  std::vector<NodeId> node_of_class;
  NodeId NodeOfClass(Id c) const { return c < node_of_class.size() ? node_of_class[c] : kNoNode; }
};

// Fails (kInvalidArgument) on a class without a chosen node or a cycle in the
// choice.
// With `trace`, also records what became of each class.
absl::StatusOr<Graph> LowerChoice(const EGraph& g, const LowerRequest& request,
                                  LowerTrace* trace = nullptr);

}  // namespace egret

#endif  // EGRET_BACKEND_LOWER_H_
