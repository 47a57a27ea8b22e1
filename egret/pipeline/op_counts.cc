#include "egret/pipeline/op_counts.h"

namespace egret {

std::map<std::string, int64_t> ComputingOpCounts(const Graph& g) {
  std::map<std::string, int64_t> ops;
  for (const Node& n : g.nodes()) {
    if (n.op != kInputOp && n.op != kConstOp && n.op != kShapeOp) ++ops[n.op];
  }
  return ops;
}

}  // namespace egret
