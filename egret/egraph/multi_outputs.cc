#include "egret/egraph/multi_outputs.h"

#include <cstdint>

#include "absl/strings/str_format.h"
#include "egret/egraph/symbol.h"
#include "egret/graph/graph.h"

namespace egret {

absl::StatusOr<std::vector<TensorType>> MultiOutputTypes(const EGraph& g, Id multi) {
  multi = g.Find(multi);
  const Symbol out_op = Symbol::Intern(kOutOp);
  std::vector<TensorType> types;
  std::vector<bool> seen;
  for (NodeIdx p : g.ClassParents(multi)) {
    if (!g.IsLive(p) || g.NodeOp(p) != out_op) continue;
    ENodeView v = g.Node(p);
    if (v.children.size() != 2 || g.Find(v.children[0]) != multi) continue;
    const Dims& sel = g.TypeOf(g.Find(v.children[1])).dims;
    if (sel.size() < 2) continue;
    const int64_t n = sel[sel.size() - 2], k = sel.back();
    if (n <= 0 || k < 0 || k >= n || n > 4096) continue;
    if (types.size() < static_cast<size_t>(n)) {
      types.resize(n);
      seen.resize(n, false);
    }
    types[k] = g.TypeOf(g.NodeClass(p));
    seen[k] = true;
  }
  for (size_t k = 0; k < seen.size(); ++k) {
    if (!seen[k]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("output %d of multi-output class %d is never selected", k, multi));
    }
  }
  if (types.empty()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("multi-output class %d has no $Out reader", multi));
  }
  return types;
}

}  // namespace egret
