// The ONNX writer: every JSON test graph is written as ONNX, accepted by
// ONNX's C++ checker, read back by the ONNX reader and computes the same
// outputs on the reference executor (JSON -> ONNX -> JSON); the custom domain
// and --onnx-standard-only's error.
#include "egret/onnx/onnx_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/io/graph_io.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/support/file_io.h"
#include "onnx/onnx_pb.h"

namespace egret {
namespace {

using ::testing::HasSubstr;

std::string Src(const std::string& rel) { return absl::StrCat(EGRET_SOURCE_DIR, "/", rel); }

onnx::ModelProto Parse(const std::string& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

// Node for node: every named node of `a` has a node of the same name in `b`
// with the same op, attributes, output types (quantization included),
// constant data, provenance and inputs (by producer name and output; an
// unnamed producer, such as a "$Shape" in the examples, by its op and type),
// and `b` has as many unnamed nodes; the same graph inputs and outputs in
// order. Node ids may differ.
void ExpectSameGraph(const Graph& a, const Graph& b) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_TRUE(a.options() == b.options());
  auto by_name = [](const Graph& g, int* unnamed) {
    std::map<std::string, NodeId> m;
    for (NodeId id = 0; id < g.num_nodes(); ++id) {
      if (g.node(id).name.empty()) {
        ++*unnamed;
        continue;
      }
      EXPECT_TRUE(m.emplace(g.node(id).name, id).second) << g.node(id).name;
    }
    return m;
  };
  auto ref = [](const Graph& g, ValueRef v) {
    const Node& p = g.node(v.node);
    if (!p.name.empty()) return absl::StrCat(p.name, ":", v.output);
    std::string s = absl::StrCat("(unnamed ", p.op, " ", p.outputs[v.output].ToString());
    if (p.constant) {
      for (int64_t e = 0; e < p.constant->num_elements(); ++e)
        absl::StrAppend(&s, " ", p.constant->GetValue(e));
    }
    return absl::StrCat(s, ")");
  };
  int ua = 0, ub = 0;
  const std::map<std::string, NodeId> na = by_name(a, &ua), nb = by_name(b, &ub);
  EXPECT_EQ(ua, ub) << "unnamed nodes";
  ASSERT_EQ(na.size(), nb.size());
  for (const auto& [name, ia] : na) {
    SCOPED_TRACE(name);
    auto it = nb.find(name);
    ASSERT_NE(it, nb.end());
    const Node& x = a.node(ia);
    const Node& y = b.node(it->second);
    EXPECT_EQ(x.op, y.op);
    EXPECT_TRUE(x.attrs == y.attrs);
    EXPECT_TRUE(x.provenance == y.provenance);
    ASSERT_EQ(x.outputs.size(), y.outputs.size());
    for (size_t k = 0; k < x.outputs.size(); ++k) {
      EXPECT_EQ(x.outputs[k], y.outputs[k])
          << x.outputs[k].ToString() << " vs " << y.outputs[k].ToString();
    }
    ASSERT_EQ(x.constant == nullptr, y.constant == nullptr);
    if (x.constant) {
      EXPECT_TRUE(*x.constant == *y.constant);
    }
    ASSERT_EQ(x.inputs.size(), y.inputs.size());
    for (size_t i = 0; i < x.inputs.size(); ++i) {
      EXPECT_EQ(ref(a, x.inputs[i]), ref(b, y.inputs[i])) << "input " << i;
    }
  }
  ASSERT_EQ(a.inputs().size(), b.inputs().size());
  for (size_t i = 0; i < a.inputs().size(); ++i) {
    EXPECT_EQ(a.node(a.inputs()[i]).name, b.node(b.inputs()[i]).name);
  }
  ASSERT_EQ(a.outputs().size(), b.outputs().size());
  for (size_t k = 0; k < a.outputs().size(); ++k) {
    EXPECT_EQ(a.outputs()[k].name, b.outputs()[k].name);
    EXPECT_EQ(ref(a, a.outputs()[k].value), ref(b, b.outputs()[k].value));
  }
}

// `back` (read from ONNX) computes what `g` computes on seeded inputs:
// float outputs to 1e-6, quantized outputs within one step (the plain import
// computes a quantized op as Dequantize -> float op -> Quantize).
void ExpectSameValues(const Graph& g, const std::string& path, const Graph& back) {
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 7);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  // Feed the read-back graph the same stored numbers in its input types.
  std::vector<Tensor> back_inputs;
  for (size_t i = 0; i < inputs->size(); ++i) {
    const TensorType& t = back.node(back.inputs()[i]).outputs[0];
    std::vector<uint8_t> raw((*inputs)[i].bytes().begin(), (*inputs)[i].bytes().end());
    absl::StatusOr<Tensor> x = Tensor::FromBytes(t, raw);
    ASSERT_TRUE(x.ok()) << x.status();
    back_inputs.push_back(*x);
  }
  absl::StatusOr<ReferenceOutputs> ref = RunReference(g, path, *inputs);
  ASSERT_TRUE(ref.ok()) << ref.status();
  absl::StatusOr<ReferenceOutputs> got = RunReference(back, "out.onnx", back_inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t k = 0; k < ref->outputs.size(); ++k) {
    const Tensor& a = ref->outputs[k];
    const Tensor& b = got->outputs[k];
    ASSERT_EQ(a.num_elements(), b.num_elements());
    const double step = IsQuantized(a.type().dtype) ? a.type().stepsize : 0;
    double max_abs = 0;
    for (int64_t e = 0; e < a.num_elements(); ++e) {
      // The read-back output holds the same stored numbers; compare real values.
      const double av = a.GetReal(e);
      const double bv = IsQuantized(a.type().dtype)
                            ? a.type().stepsize * (b.GetValue(e) - a.type().zero_offset)
                            : b.GetReal(e);
      max_abs = std::max(max_abs, std::abs(av - bv));
    }
    EXPECT_LE(max_abs, step + 1e-6) << "output " << k;
    std::printf("round trip %s output %zu: max abs %g (step %g)\n", path.c_str(), k, max_abs, step);
  }
}

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

// ---- Edited files fall back to the plain import (docs/onnx-export.md,
// "Records"): what the ONNX nodes compute wins over the records.

bool HasOp(const Graph& g, std::string_view op) {
  for (const Node& n : g.nodes()) {
    if (n.op == op) return true;
  }
  return false;
}

// The written model of the JSON graph at `rel`.
onnx::ModelProto Written(const std::string& rel, Graph* g) {
  absl::StatusOr<Graph> loaded = LoadGraph(Src(rel));
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  *g = *loaded;
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, "out.onnx");
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return Parse(bytes.ok() ? *bytes : "");
}

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
  pad.provenance.from = {"p0"};
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
