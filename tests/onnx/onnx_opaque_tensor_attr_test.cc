// An op egret keeps opaque with a TENSOR attribute: the ONNX file egret
// writes gives the attribute back as the tensor it was (type, dims, values,
// more elements than the importer's summary keeps), not as a string.
#include <gtest/gtest.h>

#include <string>

#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "onnx/onnx_pb.h"
#include "onnx_builder.h"

namespace egret {
namespace {

using testing::OnnxBuilder;

TEST(OnnxOpaqueTensorAttr, WrittenBackAsTheTensor) {
  OnnxBuilder b(17);
  b.Opset("com.example", 1);
  b.Input("x", {2, 40});
  onnx::NodeProto* n = b.DomainNode("com.example", "Scale", {"x"}, {"y"});
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name("table");
  a->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto& t = *a->mutable_t();
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_dims(20);
  for (int i = 0; i < 40; ++i) t.add_float_data(0.25f * static_cast<float>(i));
  b.Output("y", {2, 40});
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "scale.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, "out.onnx");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(*bytes));
  int found = 0;
  for (const onnx::NodeProto& node : out.graph().node()) {
    if (node.op_type() != "Scale") continue;
    for (const onnx::AttributeProto& attr : node.attribute()) {
      EXPECT_EQ(attr.name().rfind("onnx.", 0), std::string::npos) << attr.name();
      if (attr.name() != "table") continue;
      ++found;
      EXPECT_EQ(attr.type(), onnx::AttributeProto::TENSOR);
      EXPECT_EQ(attr.t().SerializeAsString(), t.SerializeAsString());
    }
  }
  EXPECT_EQ(found, 1);
}

}  // namespace
}  // namespace egret
