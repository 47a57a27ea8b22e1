// The ONNX writer's external data (docs/onnx-export.md "External data"):
// large initializers in the .data file and read back node for node, an
// external Constant node value, and hostile external data as a one-line
// error.
#include "tests/onnx/onnx_writer_test_util.h"

namespace egret {
namespace {

// ---- External data (docs/onnx-export.md "External data").

namespace fs = std::filesystem;

// A fresh directory for one test's files.
std::string FreshDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/egret_external_" + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// inception_block.json, whose filters of 1 KiB or more (2304 and 3456
// floats, ...) go to the external data file.
Graph InceptionBlock() {
  absl::StatusOr<Graph> g = LoadGraph(Src("examples/inception_block.json"));
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *std::move(g) : Graph();
}

OnnxWriteOptions WithExternalData() {
  OnnxWriteOptions options;
  options.external_data = true;
  return options;
}

// Written with external data: the large filters in m.onnx.data, the rest
// inline; read back node for node.
TEST(OnnxWriter, ExternalDataHoldsTheLargeInitializersAndReadsBack) {
  const Graph g = InceptionBlock();
  const std::string dir = FreshDir("roundtrip");
  ASSERT_TRUE(SaveGraph(g, dir + "/m.onnx", std::nullopt, WithExternalData()).ok());
  ASSERT_TRUE(fs::exists(dir + "/m.onnx.data"));
  absl::StatusOr<std::string> bytes = ReadFile(dir + "/m.onnx");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const onnx::ModelProto m = Parse(*bytes);
  int external = 0, inline_small = 0;
  for (const auto& t : m.graph().initializer()) {
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
      ++external;
      EXPECT_FALSE(t.has_raw_data());
      EXPECT_EQ(t.external_data(0).key(), "location");
      EXPECT_EQ(t.external_data(0).value(), "m.onnx.data");
    } else {
      ++inline_small;
      EXPECT_LT(t.raw_data().size(), kExternalDataMinBytes) << t.name();
    }
  }
  EXPECT_GE(external, 4);
  EXPECT_GE(inline_small, 4);
  absl::StatusOr<Graph> back = LoadGraph(dir + "/m.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(g, *back);
  ExpectSameValues(g, "inception_block.json", *back);
  // Without its file's directory (bytes only), external data is an error
  // that says so.
  absl::StatusOr<Graph> from_bytes = ParseOnnx(*bytes, "m.onnx");
  ASSERT_FALSE(from_bytes.ok());
  EXPECT_THAT(from_bytes.status().message(), HasSubstr("external data"));
}

// A node's tensor attribute may be external too: a Constant node whose
// `value` is one of the filters in m.onnx.data is read like an initializer.
TEST(OnnxWriter, ExternalConstantNodeValueIsRead) {
  const Graph g = InceptionBlock();
  const std::string dir = FreshDir("constant");
  absl::StatusOr<OnnxFiles> files = WriteOnnxFiles(g, dir + "/m.onnx", WithExternalData());
  ASSERT_TRUE(files.ok()) << files.status();
  std::ofstream(dir + "/" + files->data_name, std::ios::binary) << files->data;
  onnx::ModelProto m = Parse(files->model);
  auto* inits = m.mutable_graph()->mutable_initializer();
  int at = -1;
  for (int i = 0; i < inits->size() && at < 0; ++i) {
    if (inits->Get(i).data_location() == onnx::TensorProto::EXTERNAL) at = i;
  }
  ASSERT_GE(at, 0);
  onnx::NodeProto* c = m.mutable_graph()->add_node();
  c->set_op_type("Constant");
  c->set_name("external_constant");
  c->add_output(inits->Get(at).name());
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = inits->Get(at);
  a->mutable_t()->clear_name();
  inits->DeleteSubrange(at, 1);
  std::ofstream(dir + "/const.onnx", std::ios::binary) << m.SerializeAsString();
  absl::StatusOr<Graph> back = LoadGraph(dir + "/const.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameValues(g, "inception_block.json", *back);
}

// Hostile external data: each edit of the first external initializer is a
// one-line error naming the model file and the tensor, never a read outside
// the model's directory, a crash or a partial import.
TEST(OnnxWriter, HostileExternalDataIsAnError) {
  const std::string dir = FreshDir("hostile");
  absl::StatusOr<OnnxFiles> files =
      WriteOnnxFiles(InceptionBlock(), dir + "/m.onnx", WithExternalData());
  ASSERT_TRUE(files.ok()) << files.status();
  {
    std::ofstream f(dir + "/" + files->data_name, std::ios::binary);
    f << files->data;
  }
  std::ofstream(dir + "/../egret_outside.data") << std::string(1 << 16, 'x');
  fs::create_symlink(dir + "/" + files->data_name, dir + "/link.data");
  struct Edit {
    std::string key, value, want;
  };
  const std::vector<Edit> edits = {
      {"location", "../egret_outside.data", "not a plain file name"},
      {"location", "/etc/passwd", "not a plain file name"},
      {"location", "missing.data", "cannot open"},
      {"location", "link.data", "symbolic link"},
      {"location", "", "without a location"},
      {"offset", "99999999999", "past the end"},
      {"offset", "-1", "not a number"},
      {"length", "99999999999", "past the end"},
  };
  for (const Edit& e : edits) {
    SCOPED_TRACE(e.key + "=" + e.value);
    onnx::ModelProto m = Parse(files->model);
    onnx::TensorProto* t = nullptr;
    for (auto& i : *m.mutable_graph()->mutable_initializer()) {
      if (i.data_location() == onnx::TensorProto::EXTERNAL) {
        t = &i;
        break;
      }
    }
    ASSERT_NE(t, nullptr);
    bool set = false;
    for (auto& kv : *t->mutable_external_data()) {
      if (kv.key() == e.key) {
        kv.set_value(e.value);
        set = true;
      }
    }
    ASSERT_TRUE(set);
    const std::string path = dir + "/edited.onnx";
    {
      std::ofstream f(path, std::ios::binary);
      f << m.SerializeAsString();
    }
    absl::StatusOr<Graph> back = LoadGraph(path);
    ASSERT_FALSE(back.ok());
    EXPECT_THAT(back.status().message(), HasSubstr(path + ": error: initializer '"));
    EXPECT_THAT(back.status().message(), HasSubstr(e.want));
    EXPECT_EQ(back.status().message().find('\n'), std::string_view::npos);
  }
}

}  // namespace
}  // namespace egret
