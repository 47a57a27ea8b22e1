// The writer's tidy pass on hand-built ONNX graphs (writer_internal.h,
// TidyGraph): duplicates merged by value, random draws kept apart,
// Transposes cancelled.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "egret/onnx/writer_internal.h"

namespace egret::onnx_export {
namespace {

onnx::NodeProto* AddNode(onnx::GraphProto* g, const std::string& op,
                         const std::vector<std::string>& in, const std::string& out) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(out + "/node");
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

void AddScalar(onnx::GraphProto* g, const std::string& name, float v) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_float_data(v);
}

int Count(const onnx::GraphProto& g, const std::string& op) {
  int c = 0;
  for (const auto& n : g.node()) c += n.op_type() == op;
  return c;
}

const auto kNoDims = [](const std::string&) -> const Dims* { return nullptr; };

// Two DequantizeLinears of one tensor whose scales are two initializers of
// the same value compute the same: one stays, and both readers read it.
TEST(WriteTidy, DuplicatesByValueMerge) {
  onnx::GraphProto g;
  g.add_input()->set_name("q");
  AddScalar(&g, "s1", 0.5f);
  AddScalar(&g, "s2", 0.5f);
  AddScalar(&g, "s3", 0.25f);
  AddNode(&g, "DequantizeLinear", {"q", "s1"}, "a");
  AddNode(&g, "DequantizeLinear", {"q", "s2"}, "b");
  AddNode(&g, "DequantizeLinear", {"q", "s3"}, "c");  // another scale: stays
  AddNode(&g, "Add", {"a", "b"}, "ab");
  AddNode(&g, "Add", {"ab", "c"}, "y");
  g.add_output()->set_name("y");
  TidyGraph(&g, kNoDims);
  EXPECT_EQ(Count(g, "DequantizeLinear"), 2);
  for (const auto& n : g.node()) {
    if (n.output(0) == "ab") {
      EXPECT_EQ(n.input(0), "a");
      EXPECT_EQ(n.input(1), "a");
    }
  }
}

// Two random draws with the same attributes are two draws.
TEST(WriteTidy, RandomDrawsStayApart) {
  onnx::GraphProto g;
  g.add_input()->set_name("x");
  AddNode(&g, "RandomUniformLike", {"x"}, "r1");
  AddNode(&g, "RandomUniformLike", {"x"}, "r2");
  AddNode(&g, "Sub", {"r1", "r2"}, "y");
  g.add_output()->set_name("y");
  TidyGraph(&g, kNoDims);
  EXPECT_EQ(Count(g, "RandomUniformLike"), 2);
}

// A Transpose, a Relu and the inverse Transpose: the pair cancels, the
// Relu reads the input.
TEST(WriteTidy, InverseTransposesAroundAnElementwiseOpCancel) {
  onnx::GraphProto g;
  g.add_input()->set_name("x");
  onnx::NodeProto* t1 = AddNode(&g, "Transpose", {"x"}, "t1");
  auto* p1 = t1->add_attribute();
  p1->set_name("perm");
  p1->set_type(onnx::AttributeProto::INTS);
  for (int d : {0, 2, 3, 1}) p1->add_ints(d);
  AddNode(&g, "Relu", {"t1"}, "r");
  onnx::NodeProto* t2 = AddNode(&g, "Transpose", {"r"}, "t2");
  auto* p2 = t2->add_attribute();
  p2->set_name("perm");
  p2->set_type(onnx::AttributeProto::INTS);
  for (int d : {0, 3, 1, 2}) p2->add_ints(d);
  AddNode(&g, "Sigmoid", {"t2"}, "y");
  g.add_output()->set_name("y");
  TidyGraph(&g, kNoDims);
  EXPECT_EQ(Count(g, "Transpose"), 0);
  ASSERT_EQ(g.node_size(), 2);
  EXPECT_EQ(g.node(0).op_type(), "Relu");
  EXPECT_EQ(g.node(0).input(0), "x");
  EXPECT_EQ(g.node(1).input(0), g.node(0).output(0));
}

}  // namespace
}  // namespace egret::onnx_export
