#include "egret/pipeline/changes.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/graph/op_table.h"
#include "egret/pipeline/constant_fold.h"
#include "egret/rules/pass_groups.h"

namespace egret {

std::string_view OpChangeKindName(OpChange::Kind k) {
  switch (k) {
    case OpChange::Kind::kFused:
      return "fused";
    case OpChange::Kind::kRecognized:
      return "recognized";
    case OpChange::Kind::kFolded:
      return "folded";
    case OpChange::Kind::kRewrote:
      return "rewrote";
    case OpChange::Kind::kTiled:
      return "tiled";
  }
  return "rewrote";
}

namespace {

// Whether rule label "PASS_SPEC@file:line" is of a device-lowering pass.
bool DeviceLoweringRule(const std::string& label) {
  const size_t at = label.find('@');
  if (at == std::string::npos) return false;
  std::string_view pass = std::string_view(label).substr(0, at);
  pass = pass.substr(0, pass.find_first_of("+-"));
  std::optional<int64_t> v = rules::PassGroupValue(pass);
  return v && rules::IsDeviceLoweringPass(*v);
}

}  // namespace

std::vector<OpChange> DescribeChanges(const Graph& input, const ProvenanceSummary& prov) {
  using Key = std::tuple<OpChange::Kind, std::string, std::vector<std::string>>;
  std::map<Key, int64_t> counts;
  for (const RewrittenNode& n : prov.nodes) {
    std::set<std::string> ops;
    for (const std::string& name : n.from) {
      const NodeId id = input.FindNode(name);
      if (id == kNoNode) continue;
      const std::string& op = input.node(id).op;
      if (op == kConstOp || op == kShapeOp || op == kInputOp) continue;
      ops.insert(std::string(BaseOpName(op)));
    }
    if (ops.empty() || n.op == kShapeOp) continue;  // made from constants only, or a parameter
    OpChange::Kind kind;
    std::string op;
    if (std::any_of(n.rules.begin(), n.rules.end(), DeviceLoweringRule)) {
      kind = OpChange::Kind::kTiled;
    } else if (n.op == kConstOp) {
      // A constant a rule built (a fused clamp's bounds) names the node it
      // came with; only constant folding's stand for what they computed.
      if (std::find(n.rules.begin(), n.rules.end(), kConstantFoldRule) == n.rules.end()) continue;
      kind = OpChange::Kind::kFolded;
    } else {
      op = std::string(BaseOpName(n.op));
      if (ops.erase(op) > 0) {
        kind = ops.empty() ? OpChange::Kind::kRewrote : OpChange::Kind::kFused;
      } else {
        kind = OpChange::Kind::kRecognized;
      }
    }
    ++counts[Key{kind, op, std::vector<std::string>(ops.begin(), ops.end())}];
  }
  std::vector<OpChange> out;
  for (const auto& [key, count] : counts) {
    out.push_back(OpChange{std::get<0>(key), std::get<1>(key), std::get<2>(key), count});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const OpChange& a, const OpChange& b) { return a.count > b.count; });
  return out;
}

std::string ChangesText(const std::vector<OpChange>& changes, size_t max_items) {
  if (changes.empty()) return "none";
  std::vector<std::string> items;
  for (size_t i = 0; i < changes.size() && i < max_items; ++i) {
    const OpChange& c = changes[i];
    const std::string from = absl::StrJoin(c.from_ops, ", ");
    const std::string times = absl::StrCat(" x", c.count);
    switch (c.kind) {
      case OpChange::Kind::kFused:
        items.push_back(absl::StrCat("fused ", from, " into ", c.op, times));
        break;
      case OpChange::Kind::kRecognized:
        items.push_back(absl::StrCat("recognized ", c.op, times, " (from ", from, ")"));
        break;
      case OpChange::Kind::kFolded:
        items.push_back(absl::StrCat("folded ", from, " into constants", times));
        break;
      case OpChange::Kind::kRewrote:
        items.push_back(absl::StrCat("rewrote ", c.op, times));
        break;
      case OpChange::Kind::kTiled:
        items.push_back(absl::StrCat("tiled ", from, " into pieces", times, " nodes"));
        break;
    }
  }
  std::string text = absl::StrJoin(items, ", ");
  if (changes.size() > max_items) {
    absl::StrAppend(&text, ", and ", changes.size() - max_items, " more (--report)");
  }
  return text;
}

}  // namespace egret
