// The ONNX writer's records against edits (docs/onnx-export.md, "Records"):
// an edited, deleted, lying or malformed record falls back to the plain
// import; splat constants written as ConstantOfShape nodes, their edits, and
// a huge splat shape as an error rather than an allocation.
#include "tests/onnx/onnx_writer_test_util.h"

namespace egret {
namespace {

// ---- Edited files fall back to the plain import (docs/onnx-export.md,
// "Records"): what the ONNX nodes compute wins over the records.

// The first ONNX node of op type `op`.
onnx::NodeProto* FindOnnxNode(onnx::ModelProto& m, std::string_view op) {
  for (auto& n : *m.mutable_graph()->mutable_node()) {
    if (n.op_type() == op) return &n;
  }
  return nullptr;
}

TEST(OnnxWriter, EditedConvAttributeFallsBackToThePlainImport) {
  Graph g;
  onnx::ModelProto m = Written("examples/residual_block.json", &g);
  // Shift the first Conv's window: ONNX pads [top, left, bottom, right]
  // 1,1,1,1 -> 2,2,0,0 (same output dims, other values).
  onnx::NodeProto* conv = FindOnnxNode(m, "Conv");
  ASSERT_NE(conv, nullptr);
  bool edited = false;
  for (auto& a : *conv->mutable_attribute()) {
    if (a.name() != "pads") continue;
    a.clear_ints();
    for (int64_t v : {2, 2, 0, 0}) a.add_ints(v);
    edited = true;
  }
  ASSERT_TRUE(edited);
  absl::StatusOr<Graph> back = ParseOnnx(m.SerializeAsString(), "edited.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  // The plain import: QDQ pairs read back as Dequantize -> float Conv.
  EXPECT_FALSE(HasOp(g, "Dequantize"));
  EXPECT_TRUE(HasOp(*back, "Dequantize"));
  // What the file says: the first Conv2d with pads [top, bottom, left,
  // right] = [2, 0, 2, 0].
  Graph want = g;
  absl::StatusOr<std::vector<NodeId>> order = want.TopologicalOrder();
  ASSERT_TRUE(order.ok());
  Node pads;
  pads.op = std::string(kShapeOp);
  pads.name = "edited_pads";
  pads.outputs.push_back(TensorType(DType::kInt32, {2, 0, 2, 0}));
  const NodeId p = want.AddNode(pads);
  for (NodeId id : *order) {
    if (want.node(id).op != "Conv2d") continue;
    want.mutable_node(id).inputs[4] = ValueRef{p, 0};
    break;
  }
  ASSERT_TRUE(want.Validate().ok());
  ExpectSameValues(want, "want.json", *back);
}

TEST(OnnxWriter, DeletedNodeOfAGroupFallsBackToThePlainImport) {
  Graph g;
  onnx::ModelProto m = Written("tests/onnx/testdata/multi_node_ops.json", &g);
  // NotEqual is written Equal -> Not: delete the Not, the Equal writes its
  // output. The file now computes Equal.
  auto* nodes = m.mutable_graph()->mutable_node();
  int not_index = -1;
  for (int i = 0; i < nodes->size(); ++i) {
    if (nodes->Get(i).op_type() == "Not") not_index = i;
  }
  ASSERT_GT(not_index, 0);
  const std::string out = nodes->Get(not_index).output(0);
  const std::string tmp = nodes->Get(not_index).input(0);
  for (auto& n : *nodes) {
    for (auto& o : *n.mutable_output()) {
      if (o == tmp) o = out;
    }
  }
  nodes->DeleteSubrange(not_index, 1);
  absl::StatusOr<Graph> back = ParseOnnx(m.SerializeAsString(), "edited.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_FALSE(HasOp(*back, "ElementWiseNotEqual"));
  EXPECT_TRUE(HasOp(*back, "ElementWiseEqual"));
  Graph want = g;
  const NodeId ne = want.FindNode("ne");
  ASSERT_NE(ne, kNoNode);
  want.mutable_node(ne).op = "ElementWiseEqual";
  ExpectSameValues(want, "want.json", *back);
}

// A record that does not say what its ONNX nodes compute (here: Gelu's
// record claims Relu), or one that is not JSON, is ignored: the file is
// imported as any other, without an error.
TEST(OnnxWriter, LyingOrMalformedRecordsFallBackToThePlainImport) {
  for (const bool lie : {true, false}) {
    SCOPED_TRACE(lie ? "lying record" : "malformed record");
    Graph g;
    onnx::ModelProto m = Written("tests/onnx/testdata/multi_node_ops.json", &g);
    bool edited = false;
    for (auto& n : *m.mutable_graph()->mutable_node()) {
      std::string doc = n.doc_string();
      const std::string from = lie ? "\"op\": \"Gelu\"" : "egret-record {";
      const size_t at = doc.find(from);
      if (at == std::string::npos) continue;
      doc.replace(at, from.size(), lie ? "\"op\": \"Relu\"" : "egret-record {]");
      n.set_doc_string(doc);
      edited = true;
    }
    ASSERT_TRUE(edited);
    absl::StatusOr<Graph> back = ParseOnnx(m.SerializeAsString(), "edited.onnx");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_FALSE(HasOp(*back, "Relu"));
    EXPECT_FALSE(HasOp(*back, "Gelu"));
    EXPECT_TRUE(HasOp(*back, "Erf"));  // Gelu's pieces, imported one by one
    ExpectSameValues(g, "multi_node_ops.json", *back);
  }
}

// ---- Splat constants (docs/onnx-export.md "Splat constants").

// The constant `name` of the written model: an initializer, or a
// ConstantOfShape node's output.
enum class Held { kNowhere, kInitializer, kConstantOfShape };
Held HeldAs(const onnx::ModelProto& m, const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return Held::kInitializer;
  }
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == "ConstantOfShape" && n.output(0) == name) return Held::kConstantOfShape;
  }
  return Held::kNowhere;
}

// splat_weights.json: a Conv2d whose 3x3x8x8 filter is all 0.02 (written
// transposed to OIHW) and an Add of a [1,8,8,8] constant of 0.5s (written
// transposed to NCHW as "half/sunk": the tidy pass moves the Add before the
// Conv's Transpose back to NHWC). Both are
// ConstantOfShape nodes, not 576 and 512 stored floats; the 8-element bias
// (under Writer::kMinSplatElements, and not a splat) stays an initializer.
// The records still read the model back node for node (the JsonGraphRoundTrip
// test of this file checks values too).
TEST(OnnxWriter, SplatConstantsAreConstantOfShapeNodes) {
  Graph g;
  onnx::ModelProto m = Written("tests/onnx/testdata/splat_weights.json", &g);
  EXPECT_EQ(HeldAs(m, "half/sunk"), Held::kConstantOfShape);
  EXPECT_EQ(HeldAs(m, "half"), Held::kNowhere);
  EXPECT_EQ(HeldAs(m, "b"), Held::kInitializer);
  int splats = 0, permuted = 0;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "ConstantOfShape") continue;
    ++splats;
    // The tag, then the initializer's own doc string: its value record (the
    // filter's also says how it was transposed).
    EXPECT_EQ(n.doc_string().rfind("egret-splat\n", 0), 0u) << n.doc_string();
    EXPECT_THAT(n.doc_string(), HasSubstr("egret-record {"));
    permuted += n.doc_string().find("egret-permuted ") != std::string::npos;
    ASSERT_EQ(n.attribute_size(), 1);
    ASSERT_EQ(n.attribute(0).t().raw_data().size(), sizeof(float));
    float v = 0;
    std::memcpy(&v, n.attribute(0).t().raw_data().data(), sizeof v);
    EXPECT_TRUE(v == 0.5f || v == 0.02f) << v;
  }
  EXPECT_EQ(splats, 2);
  EXPECT_EQ(permuted, 2);
  for (const auto& t : m.graph().initializer()) EXPECT_LT(t.ByteSizeLong(), 1000u) << t.name();
  absl::StatusOr<Graph> back = ParseOnnx(m.SerializeAsString(), "splat.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(g, *back);
}

// An edited splat value is what the file computes: the plain import.
TEST(OnnxWriter, EditedSplatFallsBackToThePlainImport) {
  Graph g;
  onnx::ModelProto m = Written("tests/onnx/testdata/splat_weights.json", &g);
  bool edited = false;
  for (auto& n : *m.mutable_graph()->mutable_node()) {
    if (n.op_type() != "ConstantOfShape" || n.output(0) != "half/sunk") continue;
    const float v = 0.75f;
    n.mutable_attribute(0)->mutable_t()->set_raw_data(&v, sizeof v);
    edited = true;
  }
  ASSERT_TRUE(edited);
  absl::StatusOr<Graph> back = ParseOnnx(m.SerializeAsString(), "edited.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  Graph want = g;
  const NodeId half = want.FindNode("half");
  ASSERT_NE(half, kNoNode);
  std::vector<double> values(512, 0.75);
  want.mutable_node(half).constant =
      std::make_shared<const Tensor>(Tensor::FromValues(want.node(half).outputs[0], values));
  ExpectSameValues(want, "want.json", *back);
}

// A splat whose shape claims 2^40 elements is neither expanded by the
// records reader nor taken by the plain import: a one-line error, no
// allocation of terabytes.
TEST(OnnxWriter, HugeSplatShapeIsAnErrorNotAnAllocation) {
  Graph g;
  onnx::ModelProto m = Written("tests/onnx/testdata/splat_weights.json", &g);
  std::string shape;
  for (const auto& n : m.graph().node()) {
    if (n.op_type() == "ConstantOfShape" && n.output(0) == "half/sunk") shape = n.input(0);
  }
  bool edited = false;
  for (auto& t : *m.mutable_graph()->mutable_initializer()) {
    if (t.name() != shape) continue;
    t.clear_int64_data();
    for (int64_t d : {1024, 1024, 1024, 1024}) t.add_int64_data(d);
    edited = true;
  }
  ASSERT_TRUE(edited);
  absl::StatusOr<Graph> back = ParseOnnx(m.SerializeAsString(), "huge.onnx");
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("huge.onnx"));
}

}  // namespace
}  // namespace egret
