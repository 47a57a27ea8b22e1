// The writer's tidy pass on hand-built ONNX graphs (writer_internal.h,
// TidyGraph): duplicates merged by value, random draws kept apart,
// Transposes cancelled, zero biases left out, integer products given back.
#include <gtest/gtest.h>

#include <set>
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

// An initializer of `dims` and ONNX element type `elem` holding `v`.
void AddTensor(onnx::GraphProto* g, const std::string& name, int32_t elem,
               const std::vector<int64_t>& dims, const std::vector<int32_t>& v) {
  onnx::TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  for (int64_t d : dims) t->add_dims(d);
  for (int32_t x : v) {
    if (elem == onnx::TensorProto::FLOAT) {
      t->add_float_data(static_cast<float>(x));
    } else if (elem == onnx::TensorProto::INT64) {
      t->add_int64_data(x);
    } else {
      t->add_int32_data(x);
    }
  }
}

void SetInt(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
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
  TidyGraph(&g, kNoDims, /*records=*/false);
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
  TidyGraph(&g, kNoDims, /*records=*/false);
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
  TidyGraph(&g, kNoDims, /*records=*/false);
  EXPECT_EQ(Count(g, "Transpose"), 0);
  ASSERT_EQ(g.node_size(), 2);
  EXPECT_EQ(g.node(0).op_type(), "Relu");
  EXPECT_EQ(g.node(0).input(0), "x");
  EXPECT_EQ(g.node(1).input(0), g.node(0).output(0));
}

void SetPerm(onnx::NodeProto* n, const std::vector<int>& perm) {
  auto* a = n->add_attribute();
  a->set_name("perm");
  a->set_type(onnx::AttributeProto::INTS);
  for (int d : perm) a->add_ints(d);
}

// Whether every node reads only graph inputs, initializers and tensors of
// the nodes before it, and every graph output is made.
bool Sorted(const onnx::GraphProto& g, std::string* why) {
  std::set<std::string> made;
  for (const auto& i : g.input()) made.insert(i.name());
  for (const auto& t : g.initializer()) made.insert(t.name());
  for (const auto& n : g.node()) {
    for (const auto& in : n.input()) {
      if (!in.empty() && !made.contains(in)) {
        *why = n.name() + " reads " + in + " before it is made";
        return false;
      }
    }
    for (const auto& o : n.output()) made.insert(o);
  }
  for (const auto& o : g.output()) {
    if (!made.contains(o.name())) {
      *why = "output " + o.name() + " is not made";
      return false;
    }
  }
  return true;
}

// Whisper's attention (ONNX Runtime's test model
// whisper_hf_fp32_decoder_attention_no_past.onnx): x reshaped to heads and
// transposed (t1), then t1 read twice, by a second Transpose (the two
// compose into one that goes above the Reshape) and by another Reshape.
// The composed Transpose reads the first Reshape's output directly, a
// second reader of it: the Reshape must stay for t1. (The pass counted
// one reader and rewrote the Reshape in place; the other Reshape read a
// tensor no node made, and the ONNX checker rejected the model.)
TEST(WriteTidy, ATransposeReadTwiceKeepsTheReshapeItReads) {
  onnx::GraphProto g;
  g.add_input()->set_name("x");
  AddTensor(&g, "heads", onnx::TensorProto::INT64, {4}, {2, 10, 2, 5});
  AddTensor(&g, "batch", onnx::TensorProto::INT64, {5}, {1, 2, 2, 10, 5});
  AddNode(&g, "Reshape", {"x", "heads"}, "r");
  SetPerm(AddNode(&g, "Transpose", {"r"}, "t1"), {0, 2, 1, 3});
  SetPerm(AddNode(&g, "Transpose", {"t1"}, "t2"), {0, 1, 3, 2});
  AddNode(&g, "Reshape", {"t1", "batch"}, "r2");
  g.add_output()->set_name("t2");
  g.add_output()->set_name("r2");
  const Dims x_dims = {2, 10, 10};
  TidyGraph(
      &g, [&](const std::string& name) { return name == "x" ? &x_dims : nullptr; },
      /*records=*/false);
  std::string why;
  EXPECT_TRUE(Sorted(g, &why)) << why;
}

// A Conv's bias of zeros (egret's convolutions always have one) is left
// out; a nonzero one stays.
TEST(WriteTidy, ZeroConvBiasIsLeftOut) {
  onnx::GraphProto g;
  g.add_input()->set_name("x");
  AddTensor(&g, "w", onnx::TensorProto::FLOAT, {2, 1, 1, 1}, {1, 2});
  AddTensor(&g, "zero", onnx::TensorProto::FLOAT, {2}, {0, 0});
  AddTensor(&g, "one", onnx::TensorProto::FLOAT, {2}, {0, 1});
  AddNode(&g, "Conv", {"x", "w", "zero"}, "a");
  AddNode(&g, "Conv", {"a", "w", "one"}, "y");
  g.add_output()->set_name("y");
  TidyGraph(&g, kNoDims, /*records=*/false);
  ASSERT_EQ(g.node_size(), 2);
  EXPECT_EQ(g.node(0).input_size(), 2);
  EXPECT_EQ(g.node(1).input_size(), 3);
}

// The float spelling of ConvInteger the importer lowers it to (and the
// writer writes back): Cast<int32>(Conv(Sub(Cast(x), Cast(x_zero)),
// DequantizeLinear(w, 1, w_zero), zero bias)) is ConvInteger again.
onnx::GraphProto FloatConvInteger(float w_scale) {
  onnx::GraphProto g;
  onnx::ValueInfoProto* in = g.add_input();
  in->set_name("f");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::NodeProto* dq = g.add_node();
  dq->set_op_type("DynamicQuantizeLinear");
  dq->set_name("dql");
  dq->add_input("f");
  for (const char* o : {"q", "q_scale", "q_zero"}) dq->add_output(o);
  AddTensor(&g, "w", onnx::TensorProto::UINT8, {2, 1, 1, 1}, {3, 200});
  AddTensor(&g, "w_scale", onnx::TensorProto::FLOAT, {}, {1});
  g.mutable_initializer(g.initializer_size() - 1)->set_float_data(0, w_scale);
  AddTensor(&g, "w_zero", onnx::TensorProto::UINT8, {}, {128});
  AddTensor(&g, "bias", onnx::TensorProto::FLOAT, {2}, {0, 0});
  SetInt(AddNode(&g, "Cast", {"q"}, "qf"), "to", onnx::TensorProto::FLOAT);
  SetInt(AddNode(&g, "Cast", {"q_zero"}, "zf"), "to", onnx::TensorProto::FLOAT);
  AddNode(&g, "Sub", {"qf", "zf"}, "centred");
  AddNode(&g, "DequantizeLinear", {"w", "w_scale", "w_zero"}, "wf");
  AddNode(&g, "Conv", {"centred", "wf", "bias"}, "product");
  SetInt(AddNode(&g, "Cast", {"product"}, "y"), "to", onnx::TensorProto::INT32);
  g.add_output()->set_name("y");
  return g;
}

TEST(WriteTidy, FloatConvIntegerIsConvIntegerAgain) {
  onnx::GraphProto g = FloatConvInteger(1.0f);
  TidyGraph(&g, kNoDims, /*records=*/false);
  ASSERT_EQ(g.node_size(), 2);
  EXPECT_EQ(g.node(0).op_type(), "DynamicQuantizeLinear");
  const onnx::NodeProto& c = g.node(1);
  EXPECT_EQ(c.op_type(), "ConvInteger");
  EXPECT_EQ(std::vector<std::string>(c.input().begin(), c.input().end()),
            (std::vector<std::string>{"q", "w", "q_zero", "w_zero"}));
  ASSERT_EQ(c.output_size(), 1);
  EXPECT_EQ(c.output(0), "y");
}

// Not with a scale other than 1 (the float product is not the integer
// one), nor with records (read back node for node, they name the float
// form's constants).
TEST(WriteTidy, FloatConvIntegerStaysWhenNotIntegerOrRecorded) {
  onnx::GraphProto scaled = FloatConvInteger(0.5f);
  TidyGraph(&scaled, kNoDims, /*records=*/false);
  EXPECT_EQ(Count(scaled, "ConvInteger"), 0);
  EXPECT_EQ(Count(scaled, "Conv"), 1);
  onnx::GraphProto recorded = FloatConvInteger(1.0f);
  TidyGraph(&recorded, kNoDims, /*records=*/true);
  EXPECT_EQ(Count(recorded, "ConvInteger"), 0);
  EXPECT_EQ(Count(recorded, "Conv"), 1);
}

// MatMulInteger likewise, its b zero point per column (axis 1); one along
// the rows is not MatMulInteger's and stays float.
onnx::GraphProto FloatMatMulInteger(int64_t zero_axis) {
  onnx::GraphProto g;
  onnx::ValueInfoProto* in = g.add_input();
  in->set_name("a");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT8);
  AddTensor(&g, "b", onnx::TensorProto::INT8, {3, 3}, {1, -2, 3, 4, -5, 6, 7, -8, 9});
  AddTensor(&g, "b_scale", onnx::TensorProto::FLOAT, {3}, {1, 1, 1});
  AddTensor(&g, "b_zero", onnx::TensorProto::INT8, {3}, {0, 1, -1});
  SetInt(AddNode(&g, "Cast", {"a"}, "af"), "to", onnx::TensorProto::FLOAT);
  SetInt(AddNode(&g, "DequantizeLinear", {"b", "b_scale", "b_zero"}, "bf"), "axis", zero_axis);
  AddNode(&g, "MatMul", {"af", "bf"}, "product");
  SetInt(AddNode(&g, "Cast", {"product"}, "y"), "to", onnx::TensorProto::INT32);
  g.add_output()->set_name("y");
  return g;
}

TEST(WriteTidy, FloatMatMulIntegerIsMatMulIntegerAgain) {
  onnx::GraphProto g = FloatMatMulInteger(1);
  TidyGraph(&g, kNoDims, /*records=*/false);
  ASSERT_EQ(g.node_size(), 1);
  const onnx::NodeProto& m = g.node(0);
  EXPECT_EQ(m.op_type(), "MatMulInteger");
  EXPECT_EQ(std::vector<std::string>(m.input().begin(), m.input().end()),
            (std::vector<std::string>{"a", "b", "", "b_zero"}));
  EXPECT_EQ(m.output(0), "y");
  onnx::GraphProto rows = FloatMatMulInteger(0);
  TidyGraph(&rows, kNoDims, /*records=*/false);
  EXPECT_EQ(Count(rows, "MatMulInteger"), 0);
}

}  // namespace
}  // namespace egret::onnx_export
