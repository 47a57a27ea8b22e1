// Builds a small graph with the egret library, validates it, round-trips it
// through egret's JSON format and prints a summary. Exit 0 when all is well.
#include <iostream>
#include <memory>

#include "egret/graph/graph.h"
#include "egret/graph/graph_json.h"

int main() {
  using egret::DType;
  using egret::TensorType;

  egret::Graph g;
  g.set_name("consumer");
  TensorType act(DType::kQUInt8, {1, 4, 4, 8}, 128, 0.05f);
  egret::NodeId x = g.AddInput("x", act);

  egret::Tensor bias(TensorType(DType::kQUInt8, {8}, 128, 0.05f));
  for (int64_t i = 0; i < bias.num_elements(); ++i) bias.SetReal(i, 0.1 * static_cast<double>(i));
  egret::NodeId b = g.AddConstant("bias", std::make_shared<const egret::Tensor>(bias));

  egret::Node add;
  add.op = "ElementWiseAdd";
  add.name = "add";
  add.inputs = {{x, 0}, {b, 0}};
  add.outputs = {act};
  egret::NodeId a = g.AddNode(add);

  egret::Node relu;
  relu.op = "Relu";
  relu.name = "relu";
  relu.inputs = {{a, 0}};
  relu.outputs = {act};
  g.AddOutput({g.AddNode(relu), 0}, "y");

  if (absl::Status s = g.Validate(); !s.ok()) {
    std::cerr << "invalid graph: " << s.message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> json = egret::GraphToJsonString(g);
  if (!json.ok()) {
    std::cerr << json.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<egret::Graph> back = egret::ParseGraphJson(*json, "consumer.json", "");
  if (!back.ok() || back->num_nodes() != g.num_nodes()) {
    std::cerr << "round trip failed: " << back.status().message() << "\n";
    return 1;
  }
  std::cout << "graph " << back->name() << ": " << back->num_nodes() << " nodes, "
            << back->inputs().size() << " input, " << back->outputs().size() << " output "
            << back->TypeOf(back->outputs()[0].value).ToString() << "\n";
  return 0;
}
