// Graph attributes kept as ONNX. When the importer cannot import a node's
// subgraphs (an If whose branches fail to import, a Loop whose scan outputs
// have a run-time length, an op of another domain that carries a graph), the
// node stays opaque and each GRAPH attribute `name` is kept twice: a summary
// under `name` ("<graph 'b': 3 nodes>", for people and rules) and the
// serialized GraphProto, base64, under "onnx.graph.<name>", which the ONNX
// writer writes back.
//
// What such a body reads from the enclosing scopes (captured values and
// constants alike) becomes extra inputs of the node after its own (their
// count in kCapturedAttr, their ONNX names in kKeptReadsAttr, in the same
// order), so that those values stay alive through optimization. The writer
// renames the body's reads to the names it gives those inputs, and the
// executor's If and Loop kernels import a kept body for the types each run
// gives it (egret/executor/runtime_body.h, ImportRuntimeBody).
#ifndef EGRET_ONNX_KEPT_GRAPH_INTERNAL_H_
#define EGRET_ONNX_KEPT_GRAPH_INTERNAL_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "egret/executor/runtime_body.h"
#include "egret/graph/graph.h"
#include "onnx/onnx_pb.h"

namespace egret::onnx_internal {

// (The attribute names and KeptGraphKey are the executor's,
// egret/executor/runtime_body.h, whose kernels import kept bodies at run
// time.)

// `g` serialized and base64, as kept under KeptGraphKey (and as
// SequenceMap's kRuntimeBodyAttr).
std::string KeepGraph(const onnx::GraphProto& g);

// The GraphProto attribute `key` of `attrs` holds serialized and base64 (a
// kept graph, or SequenceMap's kRuntimeBodyAttr); InvalidArgument when it
// is absent or holds no such graph.
absl::StatusOr<onnx::GraphProto> SerializedGraph(const Attributes& attrs, std::string_view key);

// The body kept for attribute `name` of a node with `attrs`: NotFound when
// there is none, InvalidArgument when it is not a GraphProto.
absl::StatusOr<onnx::GraphProto> KeptGraph(const Attributes& attrs, std::string_view name);

// The names `g` itself defines: its inputs, initializers and node outputs,
// not those of its subgraphs.
absl::flat_hash_set<std::string> OwnNames(const onnx::GraphProto& g);

// The names the kept bodies of a node with `attrs` read from the enclosing
// scopes (kKeptReadsAttr; none when absent), or InvalidArgument when the
// attribute is not such a list.
absl::StatusOr<std::vector<std::string>> KeptReads(const Attributes& attrs);

// Whether any attribute of `attrs` is a kept body.
bool KeepsAnyGraph(const Attributes& attrs);

// Renames, in `g` and the subgraphs of its nodes, every read of a name that
// no enclosing scope inside `g` defines and that `renamed` maps (a name a
// scope defines shadows the outer one there). Graph outputs that are such
// reads are renamed too.
void RenameOuterReads(onnx::GraphProto* g,
                      const absl::flat_hash_map<std::string, std::string>& renamed);

// Adds every name `g` defines (inputs, initializers, node outputs), in its
// subgraphs too, to `names`.
void AddDefinedNames(const onnx::GraphProto& g, absl::flat_hash_set<std::string>* names);

}  // namespace egret::onnx_internal

#endif  // EGRET_ONNX_KEPT_GRAPH_INTERNAL_H_
