// Graphviz DOT rendering of a graph, for looking at it (`egret convert g.json
// -o g.dot`, then `dot -Tsvg g.dot`). Not read back by egret.
#ifndef EGRET_GRAPH_GRAPH_DOT_H_
#define EGRET_GRAPH_GRAPH_DOT_H_

#include <string>

#include "absl/status/status.h"
#include "egret/graph/graph.h"

namespace egret {

// One DOT node per computing node, labelled with its op and name, then
// "impl: <implementation>" and "cost: <cost>" when lowering annotated it
// (kImplAttr, kCostAttr), and its provenance ("from: ..." input nodes and
// "rules: ...", at most 4 of each). Constants and shape parameters are not
// boxes of their own but lines of their readers' labels, by input index:
// "#1 w: Float32[3,3,8,16]" ("$Const": name, type and, for up to 8
// elements, "{values}"), "#3 [1,2,2,1]" ("$Shape": dims); one that is a
// graph output, or read by nothing, is drawn as a grey box. A node rules
// rewrote (provenance naming rules, or input nodes other than itself) is
// filled orange. Each edge is labelled with the type of the value it
// carries (dtype, shape and quantization) and, for multi-output producers,
// the output index. Graph inputs are drawn as ellipses, graph outputs as
// extra nodes. Works on any graph: inputs that refer to missing nodes are
// drawn dashed to a "missing" node rather than rejected.
std::string GraphToDot(const Graph& graph);

// Writes GraphToDot(graph) to `path` atomically.
absl::Status WriteGraphDot(const Graph& graph, const std::string& path);

}  // namespace egret

#endif  // EGRET_GRAPH_GRAPH_DOT_H_
