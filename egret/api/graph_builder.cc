#include "egret/api/graph_builder.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/graph/shape_inference.h"

namespace egret::api {

GraphBuilder::GraphBuilder(std::string graph_name) { graph_.set_name(std::move(graph_name)); }

bool GraphBuilder::Exists(ValueRef v) const {
  return v.node < graph_.num_nodes() && v.output < graph_.node(v.node).outputs.size();
}

ValueRef GraphBuilder::Input(std::string name, TensorType type) {
  if (!status_.ok()) return ValueRef{};
  return ValueRef{graph_.AddInput(std::move(name), std::move(type)), 0};
}

ValueRef GraphBuilder::Constant(std::string name, Tensor value) {
  if (!status_.ok()) return ValueRef{};
  return ValueRef{
      graph_.AddConstant(std::move(name), std::make_shared<const Tensor>(std::move(value))), 0};
}

ValueRef GraphBuilder::Shape(absl::Span<const int64_t> dims) {
  if (!status_.ok()) return ValueRef{};
  Node n;
  n.op = std::string(kShapeOp);
  n.name = absl::StrCat("shape_", graph_.num_nodes());
  n.outputs = {TensorType(DType::kInt32, Dims(dims.begin(), dims.end()))};
  return ValueRef{graph_.AddNode(std::move(n)), 0};
}

ValueRef GraphBuilder::Op(std::string op, absl::Span<const ValueRef> inputs,
                          std::optional<TensorType> type, std::string name) {
  if (!status_.ok()) return ValueRef{};
  Node n;
  n.name = name.empty() ? absl::StrCat(op, "_", graph_.num_nodes()) : std::move(name);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!Exists(inputs[i])) {
      status_ = absl::InvalidArgumentError(
          absl::StrCat("node '", n.name, "' (", op, "): input ", i, " refers to no value"));
      return ValueRef{};
    }
    n.inputs.push_back(inputs[i]);
  }
  n.op = std::move(op);
  if (type) n.outputs = {*std::move(type)};
  const NodeId id = graph_.AddNode(std::move(n));
  absl::StatusOr<std::vector<TensorType>> types = InferNodeOutputTypes(graph_, id);
  if (!types.ok() || types->size() != 1) {
    const Node& bad = graph_.node(id);
    status_ = absl::Status(types.ok() ? absl::StatusCode::kInvalidArgument : types.status().code(),
                           absl::StrCat("node '", bad.name, "' (", bad.op, "): ",
                                        types.ok() ? absl::StrCat("has ", types->size(),
                                                                  " outputs; GraphBuilder "
                                                                  "builds single-output ops only")
                                                   : types.status().message()));
    return ValueRef{};
  }
  graph_.mutable_node(id).outputs = {(*types)[0]};
  return ValueRef{id, 0};
}

void GraphBuilder::Output(ValueRef value, std::string name) {
  if (!status_.ok()) return;
  if (!Exists(value)) {
    status_ =
        absl::InvalidArgumentError(absl::StrCat("graph output '", name, "' refers to no value"));
    return;
  }
  graph_.AddOutput(value, std::move(name));
}

absl::StatusOr<Graph> GraphBuilder::Build() && {
  if (!status_.ok()) return status_;
  if (absl::Status s = graph_.Validate(); !s.ok()) return s;
  return std::move(graph_);
}

}  // namespace egret::api
