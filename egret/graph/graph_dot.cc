#include "egret/graph/graph_dot.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/support/file_io.h"

namespace egret {
namespace {

// A DOT double-quoted string's contents: quotes and backslashes escaped,
// control characters dropped; "\n" in `s` becomes a DOT line break.
std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double v) {
  if (std::isfinite(v) && v == std::trunc(v) && std::abs(v) < 1e15) {
    return absl::StrCat(static_cast<int64_t>(v));
  }
  return absl::StrCat(v);
}

// "\n<what>: a, b, c (+k more)": at most 4 entries, so labels stay readable.
void AppendList(std::string* label, const char* what, const std::vector<std::string>& items) {
  if (items.empty()) return;
  constexpr size_t kMaxShown = 4;
  const size_t shown = std::min(items.size(), kMaxShown);
  absl::StrAppend(label, "\n", what, ": ",
                  absl::StrJoin(items.begin(), items.begin() + shown, ", "));
  if (items.size() > shown) absl::StrAppend(label, " (+", items.size() - shown, " more)");
}

// "op\nname", the implementation and cost lowering chose, and for constants
// their type and a preview of the values.
std::string NodeLabel(const Graph& graph, NodeId id) {
  const Node& n = graph.node(id);
  std::string label = n.op;
  if (!n.name.empty()) absl::StrAppend(&label, "\n", n.name);
  if (auto it = n.attrs.find(kImplAttr); it != n.attrs.end()) {
    if (const auto* impl = std::get_if<std::string>(&it->second)) {
      absl::StrAppend(&label, "\nimpl: ", *impl);
    }
  }
  if (auto it = n.attrs.find(kCostAttr); it != n.attrs.end()) {
    // A cost read back from JSON may be an integer.
    if (const auto* cost = std::get_if<double>(&it->second)) {
      absl::StrAppend(&label, "\ncost: ", FormatValue(*cost));
    } else if (const auto* icost = std::get_if<int64_t>(&it->second)) {
      absl::StrAppend(&label, "\ncost: ", *icost);
    }
  }
  AppendList(&label, "from", n.provenance.from);
  AppendList(&label, "rules", n.provenance.rules);
  if (n.op == kShapeOp && !n.outputs.empty()) {
    absl::StrAppend(&label, "\n[", absl::StrJoin(n.outputs[0].dims, ","), "]");
  } else if (n.constant) {
    const Tensor& t = *n.constant;
    absl::StrAppend(&label, "\n", t.type().ToString());
    constexpr int64_t kMaxShown = 8;
    if (t.num_elements() <= kMaxShown) {
      std::vector<std::string> values;
      for (int64_t i = 0; i < t.num_elements(); ++i) values.push_back(FormatValue(t.GetValue(i)));
      absl::StrAppend(&label, "\n{", absl::StrJoin(values, ", "), "}");
    }
  }
  return label;
}

}  // namespace

std::string GraphToDot(const Graph& graph) {
  std::string out =
      absl::StrCat("digraph \"", Escape(graph.name().empty() ? "graph" : graph.name()), "\" {\n",
                   "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n",
                   "  edge [fontname=\"Helvetica\", fontsize=9];\n");
  std::vector<bool> is_input(graph.num_nodes(), false);
  for (NodeId id : graph.inputs()) {
    if (id < graph.num_nodes()) is_input[id] = true;
  }
  bool any_missing = false;
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const Node& n = graph.node(id);
    std::string style;
    if (is_input[id] || n.op == kInputOp) {
      style = ", shape=ellipse";
    } else if (n.op == kConstOp || n.op == kShapeOp) {
      style = ", style=filled, fillcolor=\"#eeeeee\", fontsize=8";
    }
    absl::StrAppend(&out, "  n", id, " [label=\"", Escape(NodeLabel(graph, id)), "\"", style,
                    "];\n");
  }
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const Node& n = graph.node(id);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ValueRef& in = n.inputs[i];
      if (in.node >= graph.num_nodes() || in.output >= graph.node(in.node).outputs.size()) {
        any_missing = true;
        absl::StrAppend(&out, "  missing -> n", id, " [style=dashed, label=\"#", in.node, ":",
                        in.output, "\"];\n");
        continue;
      }
      std::string label = graph.TypeOf(in).ToString();
      if (graph.node(in.node).outputs.size() > 1) label = absl::StrCat(in.output, ": ", label);
      absl::StrAppend(&out, "  n", in.node, " -> n", id, " [label=\"", Escape(label), "\"];\n");
    }
  }
  for (size_t k = 0; k < graph.outputs().size(); ++k) {
    const GraphOutput& o = graph.outputs()[k];
    std::string name = o.name.empty() ? absl::StrCat("output ", k) : o.name;
    absl::StrAppend(&out, "  out", k, " [label=\"", Escape(name), "\", shape=ellipse];\n");
    if (o.value.node < graph.num_nodes() &&
        o.value.output < graph.node(o.value.node).outputs.size()) {
      absl::StrAppend(&out, "  n", o.value.node, " -> out", k, " [label=\"",
                      Escape(graph.TypeOf(o.value).ToString()), "\"];\n");
    }
  }
  if (any_missing) absl::StrAppend(&out, "  missing [label=\"missing\", style=dashed];\n");
  out += "}\n";
  return out;
}

absl::Status WriteGraphDot(const Graph& graph, const std::string& path) {
  return WriteFileAtomically(path, GraphToDot(graph));
}

}  // namespace egret
