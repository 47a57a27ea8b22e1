// Test helper: builds small graphs op by op, filling output types with the
// shape functions unless a type is given.
#ifndef EGRET_TESTS_GRAPH_GRAPH_BUILDER_H_
#define EGRET_TESTS_GRAPH_GRAPH_BUILDER_H_

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "egret/graph/graph.h"
#include "egret/graph/shape_inference.h"

namespace egret::testing {

class GraphBuilder {
 public:
  ValueRef Input(TensorType t) {
    return {g_.AddInput("in" + std::to_string(g_.inputs().size()), std::move(t)), 0};
  }
  ValueRef InputF32(Dims d) { return Input(TensorType(DType::kFloat32, std::move(d))); }
  // A constant of `t` holding storage values `v`.
  ValueRef Const(TensorType t, std::vector<double> v) {
    return {g_.AddConstant("", std::make_shared<Tensor>(Tensor::FromValues(std::move(t), v))), 0};
  }
  ValueRef F32(Dims d, std::vector<double> v) {
    return Const(TensorType(DType::kFloat32, std::move(d)), std::move(v));
  }
  ValueRef Scalar(double v) { return F32({}, {v}); }
  ValueRef Ints(std::vector<double> v) {
    Dims d = {static_cast<int64_t>(v.size())};
    return Const(TensorType(DType::kInt32, d), std::move(v));
  }
  ValueRef Int(double v) { return Const(TensorType(DType::kInt32, {}), {v}); }
  // A "$Shape" whose value is `dims`.
  ValueRef Shape(Dims dims) {
    Node n;
    n.op = "$Shape";
    n.outputs.push_back(TensorType(DType::kInt32, std::move(dims)));
    return {g_.AddNode(std::move(n)), 0};
  }
  // Adds `op`; output types are the declared ones when given (their dims are
  // filled in by the shape function), else the shape function's defaults.
  NodeId OpNode(std::string op, std::vector<ValueRef> inputs,
                std::vector<TensorType> declared = {}) {
    Node n;
    n.op = std::move(op);
    n.inputs.assign(inputs.begin(), inputs.end());
    n.outputs.assign(declared.begin(), declared.end());
    NodeId id = g_.AddNode(std::move(n));
    auto t = InferNodeOutputTypes(g_, id);
    EXPECT_TRUE(t.ok()) << t.status();
    if (t.ok()) {
      bool multi = declared.size() == 1 && declared[0].dtype == DType::kMulti;
      if (!multi) g_.mutable_node(id).outputs.assign(t->begin(), t->end());
    }
    return id;
  }
  ValueRef Op(std::string op, std::vector<ValueRef> inputs, std::vector<TensorType> declared = {}) {
    return {OpNode(std::move(op), std::move(inputs), std::move(declared)), 0};
  }
  void Output(ValueRef v) { g_.AddOutput(v); }
  Graph& graph() { return g_; }

 private:
  Graph g_;
};

// Random storage values of an 8-bit quantized `type`, over its whole storage
// range (for GraphBuilder::Const).
inline std::vector<double> RandomStorage(const TensorType& type, std::mt19937& rng) {
  const bool is_signed = type.dtype == DType::kQInt8;
  std::uniform_int_distribution<int> q(is_signed ? -128 : 0, is_signed ? 127 : 255);
  std::vector<double> v(static_cast<size_t>(type.num_elements()));
  for (double& e : v) e = q(rng);
  return v;
}

}  // namespace egret::testing

#endif  // EGRET_TESTS_GRAPH_GRAPH_BUILDER_H_
