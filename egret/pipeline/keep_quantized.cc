#include "egret/pipeline/keep_quantized.h"

#include <vector>

#include "egret/graph/dtype.h"
#include "egret/graph/graph.h"

namespace egret {

int PreferQuantizedConstants(const EGraph& g, absl::flat_hash_map<Id, NodeIdx>* choice) {
  static const Symbol const_op = Symbol::Intern(kConstOp);
  static const Symbol dequantize_op = Symbol::Intern("Dequantize");
  int changed = 0;
  std::vector<std::pair<Id, NodeIdx>> updates;
  for (const auto& [c, n] : *choice) {
    if (g.Node(n).op != const_op || !IsFloat(g.TypeOf(c).dtype)) continue;
    for (NodeIdx d : g.ClassNodesWithOp(c, dequantize_op)) {
      if (!g.IsLive(d) || g.Node(d).children.size() != 1) continue;
      const Id q = g.Find(g.Node(d).children[0]);
      if (!IsQuantized(g.TypeOf(q).dtype)) continue;
      absl::Span<const NodeIdx> stored = g.ClassNodesWithOp(q, const_op);
      if (stored.empty()) continue;
      updates.emplace_back(c, d);
      updates.emplace_back(q, stored[0]);
      ++changed;
      break;
    }
  }
  for (const auto& [c, n] : updates) (*choice)[c] = n;
  return changed;
}

}  // namespace egret
