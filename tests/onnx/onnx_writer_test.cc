// The ONNX writer: every JSON test graph is written as ONNX, accepted by
// ONNX's C++ checker, read back by the ONNX reader and computes the same
// outputs on the reference executor (JSON -> ONNX -> JSON); the custom domain
// and --onnx-standard-only's error; the tidy pass and records left out; the
// transformer ops' decompositions. Edited files and splat constants:
// onnx_writer_fallback_test.cc; external data:
// onnx_writer_external_data_test.cc.
#include "tests/onnx/onnx_writer_test_util.h"

namespace egret {
namespace {

// JSON -> ONNX -> egret: the same graph node for node (ExpectSameGraph:
// the importer reads the writer's records back, docs/onnx-export.md
// "Records"), and the same values on seeded inputs.
void RoundTrip(const std::string& path, bool expect_standard) {
  SCOPED_TRACE(path);
  absl::StatusOr<Graph> g = LoadGraph(path);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, "out.onnx");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(CheckOnnxBytes(*bytes, "out.onnx").ok());
  EXPECT_EQ(CheckOnnxStandard(*g, "out.onnx").ok(), expect_standard);
  onnx::ModelProto m = Parse(*bytes);
  EXPECT_EQ(m.producer_name(), "egret");
  ASSERT_EQ(m.opset_import(0).version(), kOnnxWriteOpset);
  // Provenance and op in the doc strings; node names unique (ONNX Runtime
  // refuses duplicates).
  bool doc = false;
  std::set<std::string> names;
  for (const auto& n : m.graph().node()) {
    doc = doc || n.doc_string().rfind("egret op ", 0) == 0;
    EXPECT_TRUE(names.insert(n.name()).second) << n.name();
  }
  EXPECT_TRUE(doc);

  absl::StatusOr<Graph> back = ParseOnnx(*bytes, "out.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(*g, *back);
  ASSERT_EQ(back->inputs().size(), g->inputs().size());
  for (size_t i = 0; i < g->inputs().size(); ++i) {
    const Node& a = g->node(g->inputs()[i]);
    const Node& b = back->node(back->inputs()[i]);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.outputs[0], b.outputs[0]);
  }
  ASSERT_EQ(back->outputs().size(), g->outputs().size());
  for (size_t k = 0; k < g->outputs().size(); ++k) {
    const std::string want =
        g->outputs()[k].name.empty() ? absl::StrCat("output", k) : g->outputs()[k].name;
    EXPECT_EQ(back->outputs()[k].name, want);
    EXPECT_EQ(back->TypeOf(back->outputs()[k].value).dims, g->TypeOf(g->outputs()[k].value).dims);
  }
  ExpectSameValues(*g, path, *back);
}

// Every JSON test graph in the repository: examples/**/*.json and
// tests/**/testdata/*.json (the fuzz corpora are not test graphs: some are
// invalid on purpose). None is excluded: the writer accepts all of them, in
// standard ONNX.
std::vector<std::string> JsonTestGraphs() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const char* dir : {"examples", "tests"}) {
    for (const auto& e : fs::recursive_directory_iterator(Src(dir))) {
      const fs::path& p = e.path();
      if (!e.is_regular_file() || p.extension() != ".json") continue;
      if (std::string(dir) == "tests" && p.parent_path().filename() != "testdata") continue;
      out.push_back(fs::relative(p, EGRET_SOURCE_DIR).string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class JsonGraphRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(JsonGraphRoundTrip, NodeForNode) { RoundTrip(Src(GetParam()), true); }

INSTANTIATE_TEST_SUITE_P(OnnxWriter, JsonGraphRoundTrip, ::testing::ValuesIn(JsonTestGraphs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name;
                           for (char c : info.param) name.push_back(std::isalnum(c) ? c : '_');
                           return name;
                         });

// The glob finds the graphs the round trip must cover (a moved directory
// would otherwise pass with nothing to test): the examples, the quantized
// residual block and the graph of multi-node spellings.
TEST(OnnxWriter, RoundTripCoversTheTestGraphs) {
  std::vector<std::string> all = JsonTestGraphs();
  EXPECT_GE(all.size(), 5u);
  for (const char* want :
       {"examples/residual_block.json", "examples/inception_block.json",
        "examples/plugin/padded_pool.json", "tests/lib/testdata/relu_fp16.json",
        "tests/onnx/testdata/multi_node_ops.json", "tests/onnx/testdata/splat_weights.json"}) {
    EXPECT_NE(std::find(all.begin(), all.end(), want), all.end()) << want;
  }
}

// A small float graph: input [1,4,4,2] -> Pad(mode) -> out.
Graph PadGraph(int64_t mode) {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {1, 4, 4, 2}));
  Node pads;
  pads.op = std::string(kShapeOp);
  pads.outputs.push_back(TensorType(DType::kInt32, {0, 0, 1, 1, 1, 1, 0, 0}));
  NodeId p = g.AddNode(pads);
  double m = static_cast<double>(mode);
  TensorType scalar;
  scalar.dtype = DType::kInt32;
  NodeId md =
      g.AddConstant("mode", std::make_shared<const Tensor>(Tensor::FromValues(scalar, {&m, 1})));
  Node pad;
  pad.op = "Pad";
  pad.name = "pad";
  pad.inputs = {{x, 0}, {p, 0}, {md, 0}};
  pad.outputs.push_back(TensorType(DType::kFloat32, {1, 6, 6, 2}));
  pad.attrs[std::string(kImplAttr)] = std::string("Pad.ref");
  pad.attrs[std::string(kCostAttr)] = 12.5;
  pad.provenance.mutable_from() = {"p0"};
  NodeId n = g.AddNode(pad);
  g.AddOutput({n, 0}, "out");
  return g;
}

TEST(OnnxWriter, CustomDomainCarriesImplementationAndCost) {
  Graph g = PadGraph(1);  // symmetric: no standard ONNX Pad mode
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(g, "o.onnx");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  onnx::ModelProto m = Parse(*bytes);
  ASSERT_EQ(m.graph().node_size(), 1);
  const onnx::NodeProto& n = m.graph().node(0);
  EXPECT_EQ(n.domain(), kEgretOnnxDomain);
  EXPECT_EQ(n.op_type(), "Pad");
  EXPECT_EQ(n.name(), "pad");
  EXPECT_THAT(n.doc_string(), HasSubstr("impl Pad.ref; cost 12.5; from p0"));
  std::map<std::string, std::string> attrs;
  for (const auto& a : n.attribute()) attrs[a.name()] = a.s();
  EXPECT_EQ(attrs["implementation"], "Pad.ref");
  EXPECT_EQ(attrs["egret_op"], "Pad");
  EXPECT_TRUE(attrs.contains("cost"));
  bool domain = false;
  for (const auto& os : m.opset_import()) domain = domain || os.domain() == kEgretOnnxDomain;
  EXPECT_TRUE(domain);

  // The importer reads it back as the egret op, with its implementation and
  // cost, computing the same values.
  absl::StatusOr<Graph> back = ParseOnnx(*bytes, "o.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  const Node* pad = nullptr;
  for (const Node& node : back->nodes()) {
    if (node.op == "Pad") pad = &node;
  }
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(std::get<std::string>(pad->attrs.at(std::string(kImplAttr))), "Pad.ref");
  EXPECT_EQ(std::get<double>(pad->attrs.at(std::string(kCostAttr))), 12.5);
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 3);
  ASSERT_TRUE(inputs.ok());
  absl::StatusOr<VerifyReport> report = VerifyGraphs(g, "g", *back, "back", *inputs);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->ok()) << report->ToString();
  EXPECT_EQ(report->outputs[0].diff.max_abs, 0);
}

TEST(OnnxWriter, StandardOnlyNamesTheFirstNonStandardNode) {
  Graph g = PadGraph(1);
  OnnxWriteOptions o;
  o.standard_only = true;
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(g, "o.onnx", o);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(bytes.status().message(),
            "o.onnx: error: node 'pad' (#3), op Pad: Pad mode 1 (symmetric) has no standard ONNX "
            "op (standard-only)");
  // Reflect (mode 2) is ONNX's Pad.
  absl::StatusOr<std::string> ok = WriteOnnxBytes(PadGraph(2), "o.onnx", o);
  ASSERT_TRUE(ok.ok()) << ok.status();
  onnx::ModelProto m = Parse(*ok);
  ASSERT_EQ(m.graph().node_size(), 1);
  EXPECT_EQ(m.graph().node(0).op_type(), "Pad");
  EXPECT_EQ(m.graph().node(0).domain(), "");
}

// ---- The tidy pass (write_tidy.cc) and records left out.

int CountOnnxOp(const onnx::ModelProto& m, std::string_view op) {
  int c = 0;
  for (const auto& n : m.graph().node()) c += n.op_type() == op;
  return c;
}

// inception_block.json is NHWC, so its ONNX form needs a Transpose to NCHW
// after the input and one back before the output; each of its seven
// convolutions' Transposes back to NHWC (read by the Relus, the pool and the
// Concat) moves below them and cancels against the next convolution's.
// Still read back node for node.
TEST(OnnxWriterTidy, OnlyTheBoundaryTransposesStay) {
  Graph g;
  onnx::ModelProto m = Written("examples/inception_block.json", &g);
  EXPECT_EQ(CountOnnxOp(m, "Transpose"), 2);
  EXPECT_EQ(CountOnnxOp(m, "Identity"), 0);
  EXPECT_EQ(CountOnnxOp(m, "Conv"), 7);
  absl::StatusOr<Graph> back = ParseOnnx(m.SerializeAsString(), "tidy.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameGraph(g, *back);
}

// OnnxWriteOptions::records false: no tagged line anywhere, no graph record;
// the model reads back through the plain import and computes the same.
TEST(OnnxWriterTidy, WithoutRecordsTheFileReadsBackThroughTheImporter) {
  absl::StatusOr<Graph> g = LoadGraph(Src("examples/residual_block.json"));
  ASSERT_TRUE(g.ok()) << g.status();
  OnnxWriteOptions options;
  options.records = false;
  absl::StatusOr<std::string> lean = WriteOnnxBytes(*g, "lean.onnx", options);
  absl::StatusOr<std::string> full = WriteOnnxBytes(*g, "full.onnx");
  ASSERT_TRUE(lean.ok() && full.ok());
  EXPECT_LT(lean->size(), full->size());
  EXPECT_EQ(lean->find("egret-"), std::string::npos);
  onnx::ModelProto m = Parse(*lean);
  EXPECT_EQ(m.metadata_props_size(), 0);
  bool op_line = false;
  for (const auto& n : m.graph().node())
    op_line = op_line || n.doc_string().rfind("egret op ", 0) == 0;
  EXPECT_TRUE(op_line);  // the human-readable first line stays
  absl::StatusOr<Graph> back = ParseOnnx(*lean, "lean.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSameValues(*g, "residual_block.json", *back);
}

// The transformer ops without an ONNX op of opset 17 (RmsNorm, Swish,
// ElementWiseRsqrt, Gelu's tanh form) are written as their decompositions:
// without records they read back as those, and compute the same values.
TEST(OnnxWriter, TransformerOpsAreWrittenAsTheirDecompositions) {
  absl::StatusOr<Graph> g = LoadGraph(Src("tests/onnx/testdata/transformer_ops.json"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_TRUE(CheckOnnxStandard(*g, "out.onnx").ok());
  OnnxWriteOptions options;
  options.records = false;
  absl::StatusOr<std::string> lean = WriteOnnxBytes(*g, "lean.onnx", options);
  ASSERT_TRUE(lean.ok()) << lean.status();
  absl::StatusOr<Graph> back = ParseOnnx(*lean, "lean.onnx");
  ASSERT_TRUE(back.ok()) << back.status();
  for (const char* op : {"RmsNorm", "Swish", "ElementWiseRsqrt", "Gelu"}) {
    EXPECT_FALSE(HasOp(*back, op)) << op;
  }
  EXPECT_TRUE(HasOp(*back, "Tanh"));
  EXPECT_TRUE(HasOp(*back, "Sigmoid"));
  ExpectSameValues(*g, "transformer_ops.json", *back);
}

TEST(OnnxWriter, InvalidGraphIsBadInput) {
  Graph g;
  Node n;
  n.op = "Relu";
  n.name = "r";
  n.inputs = {{7, 0}};
  n.outputs.push_back(TensorType(DType::kFloat32, {2}));
  g.AddNode(n);
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(g, "o.onnx");
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bytes.status().message(), HasSubstr("o.onnx: error: node 'r'"));
}

TEST(OnnxWriter, SaveGraphWritesCheckedOnnx) {
  absl::StatusOr<Graph> g = LoadGraph(Src("examples/residual_block.json"));
  ASSERT_TRUE(g.ok());
  std::string path = ::testing::TempDir() + "/writer_test_out.onnx";
  ASSERT_TRUE(SaveGraph(*g, path).ok());
  absl::StatusOr<Graph> back = LoadGraph(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->outputs().size(), g->outputs().size());
}

}  // namespace
}  // namespace egret
