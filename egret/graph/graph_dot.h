// Graphviz DOT rendering of a graph, for looking at it (`egret convert g.json
// -o g.dot`, then `dot -Tsvg g.dot`). Not read back by egret.
#ifndef EGRET_GRAPH_GRAPH_DOT_H_
#define EGRET_GRAPH_GRAPH_DOT_H_

#include <string>

#include "absl/status/status.h"
#include "egret/graph/graph.h"

namespace egret {

// One DOT node per graph node, labelled with its op and name, then
// "impl: <implementation>" and "cost: <cost>" when lowering annotated it
// (kImplAttr, kCostAttr), and its provenance ("from: ..." input nodes and
// "rules: ...", at most 4 of each); "$Const" nodes show their type and, for up to 8
// elements, their values; "$Shape" nodes show their dims. Each edge is
// labelled with the type of the value it carries (dtype, shape and
// quantization) and, for multi-output producers, the output index. Graph
// inputs are drawn as ellipses, graph outputs as extra nodes. Works on any
// graph: inputs that refer to missing nodes are drawn dashed to a "missing"
// node rather than rejected.
std::string GraphToDot(const Graph& graph);

// Writes GraphToDot(graph) to `path` atomically.
absl::Status WriteGraphDot(const Graph& graph, const std::string& path);

}  // namespace egret

#endif  // EGRET_GRAPH_GRAPH_DOT_H_
