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

// A constant's type and, for up to 8 elements, its values; a shape's dims.
std::string ValueText(const Node& n) {
  if (n.op == kShapeOp && !n.outputs.empty()) {
    return absl::StrCat("[", absl::StrJoin(n.outputs[0].dims, ","), "]");
  }
  if (!n.constant) return "";
  const Tensor& t = *n.constant;
  std::string text = t.type().ToString();
  constexpr int64_t kMaxShown = 8;
  if (t.num_elements() <= kMaxShown) {
    std::vector<std::string> values;
    for (int64_t i = 0; i < t.num_elements(); ++i) values.push_back(FormatValue(t.GetValue(i)));
    absl::StrAppend(&text, " {", absl::StrJoin(values, ", "), "}");
  }
  return text;
}

bool IsParameter(const Node& n) { return n.op == kConstOp || n.op == kShapeOp; }

// "op\nname", the implementation and cost lowering chose, its folded
// parameters (`folded`: the inputs drawn in the label), and for a
// parameter drawn on its own its value.
std::string NodeLabel(const Graph& graph, NodeId id, const std::vector<bool>& folded) {
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
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const NodeId p = n.inputs[i].node;
    if (p >= graph.num_nodes() || !folded[p]) continue;
    const Node& param = graph.node(p);
    absl::StrAppend(
        &label, "\n#", i, " ",
        param.op == kConstOp && !param.name.empty() ? absl::StrCat(param.name, ": ") : "",
        ValueText(param));
  }
  AppendList(&label, "from", n.provenance.from());
  AppendList(&label, "rules", n.provenance.rules());
  if (IsParameter(n)) absl::StrAppend(&label, "\n", ValueText(n));
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
  // Parameters drawn inside their readers' labels: read, and not an output.
  std::vector<bool> folded(graph.num_nodes(), false);
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    for (const ValueRef& in : graph.node(id).inputs) {
      if (in.node < graph.num_nodes() && IsParameter(graph.node(in.node))) folded[in.node] = true;
    }
  }
  for (const GraphOutput& o : graph.outputs()) {
    if (o.value.node < graph.num_nodes()) folded[o.value.node] = false;
  }
  bool any_missing = false;
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    if (folded[id]) continue;
    const Node& n = graph.node(id);
    std::string style;
    if (is_input[id] || n.op == kInputOp) {
      style = ", shape=ellipse";
    } else if (IsParameter(n)) {
      style = ", style=filled, fillcolor=\"#eeeeee\", fontsize=8";
    } else if (IsRewritten(n)) {
      style = ", style=filled, fillcolor=\"#fde2b8\"";
    }
    absl::StrAppend(&out, "  n", id, " [label=\"", Escape(NodeLabel(graph, id, folded)), "\"",
                    style, "];\n");
  }
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    if (folded[id]) continue;
    const Node& n = graph.node(id);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ValueRef& in = n.inputs[i];
      if (in.node < graph.num_nodes() && folded[in.node]) continue;
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
