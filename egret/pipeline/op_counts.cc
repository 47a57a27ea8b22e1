#include "egret/pipeline/op_counts.h"

#include <algorithm>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/hvx_cost_model.h"

namespace egret {

std::map<std::string, int64_t> ComputingOpCounts(const Graph& g) {
  std::map<std::string, int64_t> ops;
  for (const Node& n : g.nodes()) {
    if (n.op != kInputOp && n.op != kConstOp && n.op != kShapeOp) ++ops[n.op];
  }
  return ops;
}

std::map<std::string, OffHtpOps> OffHtpOpsOf(const Graph& g) {
  std::map<std::string, OffHtpOps> ops;
  for (const Node& n : g.nodes()) {
    auto it = n.attrs.find(kImplAttr);
    if (it == n.attrs.end()) continue;
    const auto* impl = std::get_if<std::string>(&it->second);
    if (impl == nullptr || *impl != cost::kOffHtpImpl) continue;
    OffHtpOps& o = ops[n.op];
    ++o.nodes;
    auto why = n.attrs.find(cost::kOffHtpReasonAttr);
    const auto* reason = why == n.attrs.end() ? nullptr : std::get_if<std::string>(&why->second);
    if (reason == nullptr || reason->empty()) continue;
    auto at = std::lower_bound(o.reasons.begin(), o.reasons.end(), *reason);
    if (at == o.reasons.end() || *at != *reason) o.reasons.insert(at, *reason);
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

std::string DescribeOpCounts(const std::map<std::string, OffHtpOps>& ops) {
  std::map<std::string, int64_t> counts;
  for (const auto& [op, o] : ops) counts[op] = o.nodes;
  return DescribeOpCounts(counts);
}

}  // namespace egret
