// EvaluateOp (executor/evaluate_op.h): one op on known inputs computes what
// Execute() computes on a graph of that node alone, and refuses what
// Execute() refuses.
#include "egret/executor/evaluate_op.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "egret/executor/executor.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;
using ::testing::HasSubstr;

// The operands of node `v` of b's graph, whose inputs are "$Const" and
// "$Shape" nodes.
std::vector<OperandInfo> OperandsOf(const Graph& g, ValueRef v) {
  std::vector<OperandInfo> ops;
  for (const ValueRef& in : g.node(v.node).inputs) {
    const Node& p = g.node(in.node);
    OperandInfo o;
    o.type = &p.outputs[0];
    if (p.constant != nullptr) {
      o.type = &p.constant->type();
      o.value = p.constant.get();
    } else {
      o.is_shape = true;
    }
    ops.push_back(o);
  }
  return ops;
}

// EvaluateOp of node v against Execute() of the graph with v its only output.
void ExpectSameAsExecute(GraphBuilder& b, ValueRef v) {
  b.Output(v);
  const Graph& g = b.graph();
  absl::StatusOr<std::vector<Tensor>> whole = Execute(g, {});
  ASSERT_TRUE(whole.ok()) << whole.status();
  const Node& n = g.node(v.node);
  absl::StatusOr<Tensor> one = EvaluateOp(n.op, n.attrs, OperandsOf(g, v), n.outputs[0]);
  ASSERT_TRUE(one.ok()) << n.op << ": " << one.status();
  EXPECT_EQ(one->type(), (*whole)[0].type()) << n.op;
  EXPECT_TRUE(*one == (*whole)[0]) << n.op;
}

TEST(EvaluateOpTest, ComputesWhatExecuteComputes) {
  {
    GraphBuilder b;  // broadcasting, as constant folding's products
    ExpectSameAsExecute(b, b.Op("ElementWiseMultiply",
                                {b.F32({2, 3}, {1, -2, 3, 0.5, 5, 6}), b.F32({1, 3}, {2, 4, -1})}));
  }
  {
    GraphBuilder b;  // a "$Shape" parameter
    ExpectSameAsExecute(b, b.Op("Reshape", {b.F32({2, 3}, {1, 2, 3, 4, 5, 6}), b.Shape({3, 2})}));
  }
  {
    GraphBuilder b;  // a constant parameter
    ExpectSameAsExecute(
        b, b.Op("Transpose", {b.F32({2, 1, 3}, {1, 2, 3, 4, 5, 6}), b.Ints({2, 0, 1})}));
  }
  {
    GraphBuilder b;  // a declared output type other than the input's
    ExpectSameAsExecute(b,
                        b.Op("Cast", {b.F32({3}, {1.5, -2, 0})}, {TensorType(DType::kInt32, {3})}));
  }
}

TEST(EvaluateOpTest, RefusesWhatExecuteRefuses) {
  GraphBuilder b;
  ValueRef a = b.F32({2}, {1, 2});
  const Graph& g = b.graph();
  const Tensor& t = *g.node(a.node).constant;
  const OperandInfo in{&t.type(), &t, false, {}};
  const std::vector<OperandInfo> two = {in, in};
  // Not an op of the op table: Execute() is the path for those.
  absl::StatusOr<Tensor> r = EvaluateOp("MyOnnxOp", {}, two, t.type());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  // Declared dims that the shape function does not give.
  r = EvaluateOp("ElementWiseAdd", {}, two, TensorType(DType::kFloat32, {3}));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("is declared Float32[3] but its inputs give"));
  // A data input that is a "$Shape".
  OperandInfo shape{&t.type(), nullptr, true, {}};
  r = EvaluateOp("ElementWiseAdd", {}, std::vector<OperandInfo>{in, shape}, t.type());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("is a $Shape, which holds no data"));
  // The same inputs and type do compute.
  r = EvaluateOp("ElementWiseAdd", {}, two, t.type());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->GetValue(1), 4.0);
}

}  // namespace
}  // namespace egret
