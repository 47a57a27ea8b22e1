// Building an egret Graph (graph/graph.h) in code, op by op, with the output
// types inferred from the ops' shape functions (docs/ops.md).
//
//   egret::api::GraphBuilder b("block");
//   egret::ValueRef x = b.Input("x", egret::TensorType(egret::DType::kFloat32, {1, 8, 8, 16}));
//   egret::ValueRef r = b.Op("Relu", {x});
//   b.Output(r, "y");
//   absl::StatusOr<egret::Graph> g = std::move(b).Build();
//
// Errors are sticky: the first failing call (an unknown op, inputs a shape
// function rejects, a reference to a value that does not exist) is recorded
// and returns a ValueRef with node kNoNode, later calls do nothing, and
// Build() fails with that error, naming the node: "node 'conv' (Conv2d):
// Conv2d: filter in-depth 4 does not divide input depth 6". So a builder's
// calls need no error checks of their own.
#ifndef EGRET_API_GRAPH_BUILDER_H_
#define EGRET_API_GRAPH_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/graph.h"

namespace egret::api {

class GraphBuilder {
 public:
  explicit GraphBuilder(std::string graph_name = "");

  // A graph input ("*Input") of `type`.
  ValueRef Input(std::string name, TensorType type);
  // A constant ("$Const") holding `value`.
  ValueRef Constant(std::string name, Tensor value);
  // A shape parameter ("$Shape") whose value is `dims` (strides, pads, ...:
  // docs/ops.md says which inputs of an op are parameters).
  ValueRef Shape(absl::Span<const int64_t> dims);
  ValueRef Shape(std::initializer_list<int64_t> dims) {
    return Shape(absl::Span<const int64_t>(dims.begin(), dims.size()));
  }
  // A node computing `op` on `inputs`, named `name` (or "<op>_<id>" when
  // empty). Its output type is inferred; `type`, when given, supplies the
  // dtype and quantization encoding (dims are always inferred), as a graph
  // file's declared type does. Single-output ops only.
  ValueRef Op(std::string op, absl::Span<const ValueRef> inputs,
              std::optional<TensorType> type = std::nullopt, std::string name = "");
  ValueRef Op(std::string op, std::initializer_list<ValueRef> inputs,
              std::optional<TensorType> type = std::nullopt, std::string name = "") {
    return Op(std::move(op), absl::Span<const ValueRef>(inputs.begin(), inputs.size()),
              std::move(type), std::move(name));
  }
  // Marks `value` as a graph output.
  void Output(ValueRef value, std::string name = "");

  // The first error so far (OK when none).
  const absl::Status& status() const { return status_; }
  // The graph, validated (Graph::Validate), or the first error.
  absl::StatusOr<Graph> Build() &&;

 private:
  bool Exists(ValueRef v) const;

  Graph graph_;
  absl::Status status_;
};

}  // namespace egret::api

#endif  // EGRET_API_GRAPH_BUILDER_H_
