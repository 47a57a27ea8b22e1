// Whether the output types a graph declares are the ones its ops compute.
//
// A graph file states every node's output types; the pipeline takes them as
// given (the e-graph's analysis, the rules' guards and the lowering all read
// them). A file whose declared types disagree with what the op computes from
// its inputs (a ReduceMean declared [1,4,1] whose axes reduce the first dim,
// a Conv2d whose filter does not fit its input) would be optimized as if the
// declaration were true and fail only later, on the reference executor. The
// JSON reader therefore checks each node here and rejects such a file as bad
// input, naming the node.
#ifndef EGRET_GRAPH_DECLARED_TYPES_H_
#define EGRET_GRAPH_DECLARED_TYPES_H_

#include "absl/status/status.h"
#include "egret/graph/graph.h"

namespace egret {

// Checks node `id` of `g` against its op's shape function (shape_inference.h)
// applied to its producers' declared types. Returns kInvalidArgument with a
// one-line message when the op cannot be applied to those inputs ("Conv2d:
// filter in-depth 4 does not divide input depth 6") or computes other output
// types than the node declares ("declares output 0 Float32[1,4,1], its inputs
// give Float32[1,4,4]"). A node is not checked, and the result is OK, when
// egret cannot compute its types before running it: an op egret does not know
// (kept opaque), or a parameter operand that is not a "$Const" or "$Shape"
// (a shape computed at run time, which the executor resolves).
absl::Status CheckDeclaredTypes(const Graph& g, NodeId id);

// CheckDeclaredTypes for every node, in id order; the first failure is
// returned, with its node in *culprit (kNoNode when all pass).
absl::Status CheckAllDeclaredTypes(const Graph& g, NodeId* culprit = nullptr);

}  // namespace egret

#endif  // EGRET_GRAPH_DECLARED_TYPES_H_
