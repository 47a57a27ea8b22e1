// Sequence, optional and String values: their types and tensors, their ONNX
// import, the reference kernels (onnx_sequence.cc, onnx_string.cc) on real
// values, hostile inputs (clean errors, no crash), and their round trips
// through the ONNX writer and the JSON graph format.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/graph/graph_json.h"
#include "egret/graph/string_list.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "tests/onnx/onnx_builder.h"

namespace egret {
namespace {

using testing::OnnxBuilder;
using P = onnx::TensorProto;

Tensor Floats(Dims dims, std::vector<double> v) {
  return Tensor::FromValues(TensorType(DType::kFloat32, std::move(dims)), v);
}

std::vector<double> Values(const Tensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.num_elements(); ++i) v.push_back(t.GetReal(i));
  return v;
}

TEST(SequenceTypes, ContainerTypesAndTensors) {
  const TensorType seq = TensorType::Container(ValueKind::kSequence, DType::kFloat32);
  const TensorType opt = TensorType::Container(ValueKind::kOptionalSequence, DType::kFloat32);
  EXPECT_EQ(seq.ToString(), "Sequence<Float32>");
  EXPECT_EQ(opt.ToString(), "Optional<Sequence<Float32>>");
  EXPECT_NE(seq, TensorType(DType::kFloat32, Dims{1}));
  EXPECT_EQ(seq.num_elements(), 0);
  EXPECT_EQ(seq.byte_size(), 0);

  absl::StatusOr<Tensor> s = Tensor::Container(seq, {Floats({2}, {1, 2}), Floats({3}, {3, 4, 5})});
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->elements().size(), 2u);
  EXPECT_EQ(Values(s->elements()[1]), (std::vector<double>{3, 4, 5}));
  // Copies are deep and compare equal; an element of another dtype is refused.
  Tensor copy = *s;
  EXPECT_EQ(copy, *s);
  EXPECT_FALSE(Tensor::Container(seq, {Tensor(TensorType(DType::kInt64, {1}))}).ok());
  // An optional holds at most one value, of its kind.
  EXPECT_FALSE(Tensor::Container(opt, {*s, *s}).ok());
  EXPECT_FALSE(Tensor::Container(opt, {Floats({1}, {1})}).ok());
  absl::StatusOr<Tensor> o = Tensor::Container(opt, {*s});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->elements()[0], *s);
  EXPECT_TRUE(Tensor(opt).elements().empty());  // the empty optional
  // A container cannot be retyped into a tensor (its elements would be lost).
  EXPECT_FALSE(copy.Retype(TensorType(DType::kFloat32, {0})));
}

TEST(SequenceTypes, StringTensors) {
  const TensorType t(DType::kString, {2});
  absl::StatusOr<Tensor> s = Tensor::FromStrings(t, {"a", "b,c"});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->strings()[1], "b,c");
  EXPECT_EQ(s->type().byte_size(), 0);
  EXPECT_FALSE(Tensor::FromStrings(t, {"only one"}).ok());
  EXPECT_FALSE(Tensor::FromStrings(TensorType(DType::kFloat32, {2}), {"a", "b"}).ok());
  Tensor r = *s;
  EXPECT_TRUE(r.Retype(TensorType(DType::kString, {1, 2})));
  EXPECT_FALSE(r.Retype(TensorType(DType::kString, {3})));
  EXPECT_FALSE(r.Retype(TensorType(DType::kFloat32, {0})));
  EXPECT_EQ(DecodeStringList(EncodeStringList({"x", "", "a,b", "12:3"})),
            (std::vector<std::string>{"x", "", "a,b", "12:3"}));
  EXPECT_FALSE(DecodeStringList("5:abc").has_value());
}

// X [4, 2] split into rows, one read back at `pos`, the rows concatenated
// again and counted.
std::string SplitModel(int64_t pos) {
  OnnxBuilder b(13);
  b.Input("x", {4, 2});
  b.InitializerInt64("pos", {}, {pos});
  b.InitializerInt64("front", {}, {0});
  b.Node("SplitToSequence", {"x"}, {"rows"});
  b.Node("SequenceAt", {"rows", "pos"}, {"row"});
  b.Node("SequenceErase", {"rows", "front"}, {"rest"});
  b.Node("SequenceLength", {"rest"}, {"n"});
  b.Node("SequenceInsert", {"rest", "row", "front"}, {"again"});
  OnnxBuilder::AttrInt(b.Node("ConcatFromSequence", {"again"}, {"cat"}), "axis", 0);
  b.Output("row", {1, 2});
  b.Output("n", {});
  b.Output("cat", {4, 2});
  return b.Bytes();
}

TEST(SequenceKernels, SplitAtEraseInsertConcat) {
  absl::StatusOr<Graph> g = ParseOnnx(SplitModel(-2), "split.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<Tensor>> out =
      Execute(*g, {Floats({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<double>{20, 21}));  // row -2
  EXPECT_EQ((*out)[1].type().dtype, DType::kInt64);
  EXPECT_EQ(Values((*out)[1]), (std::vector<double>{3}));
  // Row 0 erased, row 2 inserted at the front.
  EXPECT_EQ(Values((*out)[2]), (std::vector<double>{20, 21, 10, 11, 20, 21, 30, 31}));
}

TEST(SequenceKernels, PositionOutOfRangeIsAnError) {
  absl::StatusOr<Graph> g = ParseOnnx(SplitModel(4), "split.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, {Floats({4, 2}, {})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("position 4 is out of range for a sequence of 4"),
            std::string::npos)
      << out.status();
}

TEST(SequenceKernels, EmptyOptionalReadIsAnError) {
  OnnxBuilder b(15);
  b.Input("x", {3});
  b.Input("c", {}, P::BOOL);
  // then: an empty optional; else: x wrapped.
  OnnxBuilder then_b(15), else_b(15);
  auto* empty = then_b.Node("Optional", {}, {"o"});
  onnx::TypeProto tp;
  tp.mutable_tensor_type()->set_elem_type(P::FLOAT);
  auto* a = empty->add_attribute();
  a->set_name("type");
  a->set_type(onnx::AttributeProto::TYPE_PROTO);
  *a->mutable_tp() = tp;
  else_b.Node("Optional", {"x"}, {"o2"});
  auto out_type = [](onnx::ValueInfoProto* vi, const std::string& name) {
    vi->set_name(name);
    vi->mutable_type()
        ->mutable_optional_type()
        ->mutable_elem_type()
        ->mutable_tensor_type()
        ->set_elem_type(P::FLOAT);
  };
  out_type(then_b.model().mutable_graph()->add_output(), "o");
  out_type(else_b.model().mutable_graph()->add_output(), "o2");
  auto* n = b.Node("If", {"c"}, {"opt"});
  OnnxBuilder::AttrGraph(n, "then_branch", then_b.graph());
  OnnxBuilder::AttrGraph(n, "else_branch", else_b.graph());
  b.Node("OptionalHasElement", {"opt"}, {"has"});
  b.Node("OptionalGetElement", {"opt"}, {"y"});
  b.Output("has", {}, P::BOOL);
  b.Output("y", {3});
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "opt.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  TensorType bool_scalar;  // built field by field: GCC's false "maybe-uninitialized"
  bool_scalar.dtype = DType::kBool;
  Tensor cond(bool_scalar);
  absl::StatusOr<std::vector<Tensor>> full = Execute(*g, {Floats({3}, {1, 2, 3}), cond});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(Values((*full)[0]), (std::vector<double>{1}));
  EXPECT_EQ(Values((*full)[1]), (std::vector<double>{1, 2, 3}));
  cond.SetValue(0, 1);
  absl::StatusOr<std::vector<Tensor>> empty_out = Execute(*g, {Floats({3}, {1, 2, 3}), cond});
  ASSERT_FALSE(empty_out.ok());
  EXPECT_NE(empty_out.status().message().find("the optional is empty"), std::string::npos)
      << empty_out.status();
}

TEST(SequenceKernels, HugeSplitToSequenceIsRefused) {
  OnnxBuilder b(13);
  const int64_t n = int64_t{1} << 21;
  b.Input("x", {n});
  b.Node("SplitToSequence", {"x"}, {"parts"});
  b.Node("SequenceLength", {"parts"}, {"len"});
  b.Output("len", {});
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "huge.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, {Tensor(TensorType(DType::kFloat32, {n}))});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted) << out.status();
}

// SequenceMap over elements of different lengths: the body (Add of the
// element and itself) is imported for each element's type.
TEST(SequenceKernels, SequenceMapOverElementsOfDifferentShapes) {
  OnnxBuilder b(17);
  auto* in = b.model().mutable_graph()->add_input();
  in->set_name("s");
  in->mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(P::FLOAT);
  OnnxBuilder body(17);
  body.InputSymbolic("e", "N", 1);
  body.Node("Add", {"e", "e"}, {"d"});
  body.Output("d");
  auto* n = b.Node("SequenceMap", {"s"}, {"out"});
  OnnxBuilder::AttrGraph(n, "body", body.graph());
  auto* out = b.model().mutable_graph()->add_output();
  out->set_name("out");
  *out->mutable_type() = in->type();
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "map.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const TensorType seq = TensorType::Container(ValueKind::kSequence, DType::kFloat32);
  absl::StatusOr<Tensor> s = Tensor::Container(
      seq, {Floats({1, 1}, {1}), Floats({3, 1}, {2, 3, 4}), Floats({2, 1}, {5, 6})});
  ASSERT_TRUE(s.ok());
  absl::StatusOr<std::vector<Tensor>> r = Execute(*g, {*s});
  ASSERT_TRUE(r.ok()) << r.status();
  const Tensor& o = (*r)[0];
  ASSERT_EQ(o.elements().size(), 3u);
  EXPECT_EQ(o.elements()[1].type().dims, (Dims{3, 1}));
  EXPECT_EQ(Values(o.elements()[1]), (std::vector<double>{4, 6, 8}));
  EXPECT_EQ(Values(o.elements()[2]), (std::vector<double>{10, 12}));

  // The ONNX writer gives the body back; the file reads and runs again.
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, "map_out.onnx");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Graph> back = ParseOnnx(*bytes, "map_out.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  absl::StatusOr<std::vector<Tensor>> r2 = Execute(*back, {*s});
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ((*r2)[0], o);

  // The JSON format keeps the container types.
  absl::StatusOr<std::string> json = GraphToJsonString(*g);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_NE(json->find("\"kind\": \"Sequence\""), std::string::npos);
  absl::StatusOr<Graph> from_json = ParseGraphJson(*json, "map.json", "");
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_EQ(from_json->TypeOf(from_json->outputs()[0].value), seq);
}

TEST(StringKernels, CastToAndFromString) {
  OnnxBuilder b(13);
  b.Input("x", {5});
  OnnxBuilder::AttrInt(b.Node("Cast", {"x"}, {"s"}), "to", P::STRING);
  OnnxBuilder::AttrInt(b.Node("Cast", {"s"}, {"y"}), "to", P::DOUBLE);
  b.Output("s", {5}, P::STRING);
  b.Output("y", {5}, P::DOUBLE);
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "cast.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const float inf = std::numeric_limits<float>::infinity();
  absl::StatusOr<std::vector<Tensor>> out =
      Execute(*g, {Floats({5}, {0.1f, 1e-5f, -inf, 0.9767611026763916, 3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].strings(),
            (std::vector<std::string>{"0.1", "1e-05", "-INF", "0.9767611", "3"}));
  EXPECT_EQ(
      Values((*out)[1]),
      (std::vector<double>{0.1, 1e-05, -std::numeric_limits<double>::infinity(), 0.9767611, 3}));
}

TEST(StringKernels, NotANumberIsAnError) {
  OnnxBuilder b(13);
  b.Input("s", {2}, P::STRING);
  OnnxBuilder::AttrInt(b.Node("Cast", {"s"}, {"y"}), "to", P::FLOAT);
  b.Output("y", {2});
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "cast.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Tensor> s = Tensor::FromStrings(TensorType(DType::kString, {2}), {"1.5", "x1"});
  ASSERT_TRUE(s.ok());
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, {*s});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("is not a number"), std::string::npos) << out.status();
}

TEST(StringKernels, StringNormalizerAndItsStopwordsSurviveTheWriter) {
  OnnxBuilder b(10);
  b.Input("x", {1, 4}, P::STRING);
  auto* n = b.Node("StringNormalizer", {"x"}, {"y"});
  OnnxBuilder::AttrString(n, "case_change_action", "UPPER");
  OnnxBuilder::AttrStrings(n, "stopwords", {"a,b", "Monday"});
  b.Output("y", {1, 2}, P::STRING);
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "norm.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Tensor> x =
      Tensor::FromStrings(TensorType(DType::kString, {1, 4}), {"monday", "a,b", "tue", "Wed"});
  ASSERT_TRUE(x.ok());
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, {*x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].strings(), (std::vector<std::string>{"TUE", "WED"}));

  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, "norm_out.onnx");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<Graph> back = ParseOnnx(*bytes, "norm_out.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  absl::StatusOr<std::vector<Tensor>> out2 = Execute(*back, {*x});
  ASSERT_TRUE(out2.ok()) << out2.status();
  EXPECT_EQ((*out2)[0], (*out)[0]);
}

TEST(StringKernels, EverythingStoppedGivesOneEmptyString) {
  OnnxBuilder b(10);
  b.Input("x", {2}, P::STRING);
  auto* n = b.Node("StringNormalizer", {"x"}, {"y"});
  OnnxBuilder::AttrStrings(n, "stopwords", {"monday"});
  b.Output("y", {1}, P::STRING);
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "norm.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Tensor> x =
      Tensor::FromStrings(TensorType(DType::kString, {2}), {"MONDAY", "monday"});
  ASSERT_TRUE(x.ok());
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, {*x});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].strings(), (std::vector<std::string>{""}));
}

TEST(StringKernels, OtherOpsRefuseStrings) {
  // A String tensor reaching a kernel not made for text is an error, not
  // garbage: an ONNX Reshape of strings stays opaque and refuses them.
  OnnxBuilder b(13);
  b.Input("x", {2}, P::STRING);
  b.InitializerInt64("shape", {2}, {1, 2});
  b.Node("Reshape", {"x", "shape"}, {"y"});
  b.Output("y", {1, 2}, P::STRING);
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "reshape.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Tensor> x = Tensor::FromStrings(TensorType(DType::kString, {2}), {"a", "b"});
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, {*x});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("does not take String tensors"), std::string::npos)
      << out.status();
  // And the JSON format, which holds numeric data only, refuses a String
  // constant with a message.
  Graph c;
  c.AddOutput(ValueRef{c.AddConstant("k", std::make_shared<const Tensor>(*x)), 0});
  absl::StatusOr<std::string> json = GraphToJsonString(c);
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.status().message().find("numeric constant tensors only"), std::string::npos)
      << json.status();
}

}  // namespace
}  // namespace egret
