// Test helper: runs one opaque ONNX node ("onnx.<Op>") over constant
// operands through the executor, the way an imported model runs it: inputs
// by ONNX position (absent ones listed in "onnx.absent_inputs"), ONNX
// attributes, and the output types the importer would declare.
#ifndef EGRET_TESTS_EXECUTOR_ONNX_NODE_H_
#define EGRET_TESTS_EXECUTOR_ONNX_NODE_H_

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/executor/executor.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"

namespace egret::testing {

inline Tensor F32(Dims d, std::vector<double> v) {
  return Tensor::FromValues(TensorType(DType::kFloat32, std::move(d)), v);
}
inline Tensor I64(Dims d, std::vector<double> v) {
  return Tensor::FromValues(TensorType(DType::kInt64, std::move(d)), v);
}
inline TensorType F32Type(Dims d) { return TensorType(DType::kFloat32, std::move(d)); }

// The real values of every element of t.
inline std::vector<double> Values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.num_elements(); ++i) v.push_back(t.GetReal(i));
  return v;
}

struct OnnxNode {
  std::string op;                             // e.g. "onnx.LSTM"
  std::vector<std::optional<Tensor>> inputs;  // by ONNX position; nullopt: absent
  Attributes attrs;
  std::vector<TensorType> outputs;  // the declared output types

  absl::StatusOr<std::vector<Tensor>> Run() const {
    Graph g;
    Node n;
    n.op = op;
    n.name = "node";
    n.attrs = attrs;
    std::vector<int64_t> absent;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (!inputs[k]) {
        absent.push_back(static_cast<int64_t>(k));
        continue;
      }
      n.inputs.push_back({g.AddConstant("", std::make_shared<Tensor>(*inputs[k])), 0});
    }
    if (!absent.empty()) n.attrs["onnx.absent_inputs"] = absent;
    n.outputs.assign(outputs.begin(), outputs.end());
    const NodeId id = g.AddNode(std::move(n));
    for (size_t k = 0; k < outputs.size(); ++k) {
      g.AddOutput(ValueRef{id, static_cast<uint32_t>(k)});
    }
    return Execute(g, {});
  }
};

// One input of an opaque node given as its type and storage values.
struct OnnxInput {
  TensorType type;
  std::vector<double> values;
};

// Runs one opaque node `op` on constant inputs (all present), with the given
// attributes and declared output types: OnnxNode in one call.
inline absl::StatusOr<std::vector<Tensor>> RunOnnx(std::string op, std::vector<OnnxInput> inputs,
                                                   std::vector<TensorType> outputs,
                                                   Attributes attrs = {}) {
  OnnxNode node{std::move(op), {}, std::move(attrs), std::move(outputs)};
  for (OnnxInput& in : inputs) node.inputs.emplace_back(Tensor::FromValues(in.type, in.values));
  return node.Run();
}

// The message of a failed run ("" and a test failure when it succeeded).
inline std::string ErrorOf(const absl::StatusOr<std::vector<Tensor>>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : std::string(r.status().message());
}

}  // namespace egret::testing

#endif  // EGRET_TESTS_EXECUTOR_ONNX_NODE_H_
