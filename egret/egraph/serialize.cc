#include "egret/egraph/serialize.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/json_text.h"
#include "nlohmann/json.hpp"

namespace egret {
namespace {

std::string NodeLabel(const EGraph& g, NodeIdx n) {
  ENodeView v = g.Node(n);
  std::string label(v.op.str());
  if (v.payload != kNoPayload) absl::StrAppend(&label, "#", v.payload);
  return label;
}

std::string DotEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string ToSerializedJson(const EGraph& g, absl::Span<const Id> roots, const NodeCostFn& cost) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::object();
  nlohmann::ordered_json class_data = nlohmann::ordered_json::object();
  for (Id c : g.Classes()) {
    absl::Span<const NodeIdx> list = g.ClassNodes(c);
    std::string cid = absl::StrCat(c);
    for (size_t k = 0; k < list.size(); ++k) {
      ENodeView v = g.Node(list[k]);
      nlohmann::ordered_json children = nlohmann::ordered_json::array();
      for (Id ch : v.children) children.push_back(absl::StrCat(g.Find(ch), ".0"));
      nlohmann::ordered_json node = nlohmann::ordered_json::object();
      node["op"] = std::string(v.op.str());
      node["children"] = std::move(children);
      node["eclass"] = cid;
      node["cost"] = cost ? cost(g, list[k]) : 1.0;
      nodes[absl::StrCat(c, ".", k)] = std::move(node);
    }
    class_data[cid] = {{"type", g.TypeOf(c).ToString()}};
  }
  nlohmann::ordered_json root_list = nlohmann::ordered_json::array();
  absl::flat_hash_set<Id> seen;
  for (Id r : roots) {
    Id c = g.Find(r);
    if (seen.insert(c).second) root_list.push_back(absl::StrCat(c));
  }
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["nodes"] = std::move(nodes);
  out["class_data"] = std::move(class_data);
  out["root_eclasses"] = std::move(root_list);
  return DumpJson(out, 1) + "\n";
}

std::string ToDot(const EGraph& g, absl::Span<const Id> roots) {
  absl::flat_hash_set<Id> root_set;
  for (Id r : roots) root_set.insert(g.Find(r));
  std::string out = "digraph egraph {\n  compound=true;\n  clusterrank=local;\n";
  std::string edges;
  for (Id c : g.Classes()) {
    absl::StrAppendFormat(&out, "  subgraph cluster_%d {\n    style=%s;\n    label=\"%d: %s\";\n",
                          c, root_set.contains(c) ? "bold" : "dotted", c,
                          DotEscape(g.TypeOf(c).ToString()));
    absl::Span<const NodeIdx> list = g.ClassNodes(c);
    for (size_t k = 0; k < list.size(); ++k) {
      absl::StrAppendFormat(&out, "    \"%d.%d\" [label=\"%s\"];\n", c, k,
                            DotEscape(NodeLabel(g, list[k])));
      ENodeView v = g.Node(list[k]);
      for (size_t i = 0; i < v.children.size(); ++i) {
        Id ch = g.Find(v.children[i]);
        absl::StrAppendFormat(&edges, "  \"%d.%d\" -> \"%d.0\" [lhead=cluster_%d, label=%d];\n", c,
                              k, ch, ch, i);
      }
    }
    out += "  }\n";
  }
  return out + edges + "}\n";
}

}  // namespace egret
