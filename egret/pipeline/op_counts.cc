#include "egret/pipeline/op_counts.h"

#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/cost/hvx_cost_model.h"

namespace egret {

std::map<std::string, int64_t> ComputingOpCounts(const Graph& g) {
  std::map<std::string, int64_t> ops;
  for (const Node& n : g.nodes()) {
    if (n.op != kInputOp && n.op != kConstOp && n.op != kShapeOp) ++ops[n.op];
  }
  return ops;
}

std::map<std::string, int64_t> OffHtpOpCounts(const Graph& g) {
  std::map<std::string, int64_t> ops;
  for (const Node& n : g.nodes()) {
    auto it = n.attrs.find(kImplAttr);
    if (it == n.attrs.end()) continue;
    const auto* impl = std::get_if<std::string>(&it->second);
    if (impl != nullptr && *impl == cost::kOffHtpImpl) ++ops[n.op];
  }
  return ops;
}

std::string DescribeOpCounts(const std::map<std::string, int64_t>& counts) {
  if (counts.empty()) return "";
  int64_t total = 0;
  std::vector<std::string> parts;
  for (const auto& [op, n] : counts) {
    total += n;
    parts.push_back(absl::StrCat(op, " x", n));
  }
  return absl::StrCat(total, total == 1 ? " op: " : " ops: ", absl::StrJoin(parts, ", "));
}

}  // namespace egret
