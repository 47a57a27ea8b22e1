// The ONNX reader's comparison, logic and indexing ops, reductions and
// Einsum: how each maps, and the same values as the ONNX definition.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/onnx_reader_test_util.h"

namespace egret {
namespace {

using ::testing::HasSubstr;
using testing::OnnxBuilder;

// A 1x1 Conv with identity weights: y equals x, but lives in NHWC inside.
void IdentityConv(OnnxBuilder& b, const std::string& x, const std::string& y, int64_t c) {
  std::vector<float> w(c * c, 0.0f);
  for (int64_t i = 0; i < c; ++i) w[i * c + i] = 1;
  b.Initializer(y + "_w", {c, c, 1, 1}, w);
  b.Node("Conv", {x, y + "_w"}, {y});
}

TEST(OnnxReader, ComparisonsAndWhereKeepNhwcLayout) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 2, 2});
  IdentityConv(b, "x", "c", 3);
  b.Initializer("t", {3, 1, 1}, {0.0f, 0.5f, -0.5f});  // per-channel threshold
  b.Node("Greater", {"c", "t"}, {"gt"});
  b.Initializer("zero", {}, {0.0f});
  b.Node("Where", {"gt", "c", "zero"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  auto h = Histogram(*g);
  EXPECT_EQ(h["ElementWiseGreater"], 1);
  EXPECT_EQ(h["ElementWiseSelect"], 1);
  EXPECT_EQ(h["Transpose"], 2);  // only at the graph boundary
  const Node& gt = g->node(FindOp(*g, "ElementWiseGreater"));
  EXPECT_EQ(gt.outputs[0], TensorType(DType::kBool, {1, 2, 2, 3}));
  std::vector<float> x = Iota(12, 0.1f, -0.6f);
  std::vector<double> want(12);
  for (int ch = 0; ch < 3; ++ch) {
    for (int i = 0; i < 4; ++i) {
      const double v = x[ch * 4 + i];
      want[ch * 4 + i] = v > std::vector<double>{0, 0.5, -0.5}[ch] ? v : 0;
    }
  }
  ExpectNear(RunGraph(*g, {FloatTensor({1, 3, 2, 2}, x)}), want);
}

TEST(OnnxReader, EqualLessAndBoolLogicMapOneToOne) {
  OnnxBuilder b;
  b.Input("a", {2, 3}, onnx::TensorProto::INT64);
  b.Input("b", {3}, onnx::TensorProto::INT64);
  b.Input("p", {2, 3}, onnx::TensorProto::BOOL);
  b.Node("Equal", {"a", "b"}, {"eq"});
  b.Node("LessOrEqual", {"a", "b"}, {"le"});
  b.Node("GreaterOrEqual", {"a", "b"}, {"ge"});
  b.Node("And", {"eq", "p"}, {"and"});
  b.Node("Or", {"and", "le"}, {"or"});
  b.Node("Xor", {"or", "ge"}, {"xor"});
  b.Node("Not", {"xor"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  auto h = Histogram(*g);
  for (const char* op : {"ElementWiseEqual", "ElementWiseLessEqual", "ElementWiseGreaterEqual",
                         "ElementWiseAnd", "ElementWiseOr", "ElementWiseXor", "ElementWiseNot"}) {
    EXPECT_EQ(h[op], 1) << op;
  }
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kBool, {2, 3}));
  const std::vector<double> a = {1, 5, 3, 4, 2, 0}, bv = {1, 2, 3}, p = {0, 1, 1, 1, 0, 0};
  std::vector<double> want;
  for (int i = 0; i < 6; ++i) {
    const double x = a[i], y = bv[i % 3];
    const bool r = !((((x == y) && p[i] != 0) || x <= y) != (x >= y));
    want.push_back(r);
  }
  ExpectNear(RunGraph(*g, {TypedTensor(TensorType(DType::kInt64, {2, 3}), a),
                           TypedTensor(TensorType(DType::kInt64, {3}), bv),
                           TypedTensor(TensorType(DType::kBool, {2, 3}), p)}),
             want);
}

// The reshape pattern of exported transformers: Where(Equal(shape, -1), ...).
TEST(OnnxReader, FoldsConstantComparisonsAndWhere) {
  OnnxBuilder b;
  b.Input("x", {2, 3, 4});
  b.InitializerInt64("target", {2}, {-1, 4});
  b.InitializerInt64("minus1", {}, {-1});
  b.Node("Equal", {"target", "minus1"}, {"is_free"});
  b.Node("Not", {"is_free"}, {"is_set"});
  b.InitializerInt64("six", {1}, {6});
  b.Node("Where", {"is_set", "target", "six"}, {"shape"});
  b.Node("Reshape", {"x", "shape"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {6, 4}));
  auto h = Histogram(*g);
  EXPECT_EQ(h["ElementWiseEqual"] + h["ElementWiseNot"] + h["ElementWiseSelect"], 0);
  EXPECT_EQ(h["Reshape"], 1);
}

TEST(OnnxReader, ExpandIsReshapeAndTile) {
  OnnxBuilder b;
  b.Input("x", {3, 1});
  b.InitializerInt64("shape", {3}, {2, 1, 4});
  b.Node("Expand", {"x", "shape"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 3, 4}));
  auto h = Histogram(*g);
  EXPECT_EQ(h["Reshape"], 1);
  EXPECT_EQ(h["Tile"], 1);
  std::vector<double> want;
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 4; ++k) want.push_back(i + 1);
  ExpectNear(RunGraph(*g, {FloatTensor({3, 1}, {1, 2, 3})}), want);
}

TEST(OnnxReader, TileOfNhwcActivationStaysNhwc) {
  OnnxBuilder b;
  b.Input("x", {1, 2, 2, 3});
  IdentityConv(b, "x", "c", 2);
  b.InitializerInt64("repeats", {4}, {1, 2, 1, 2});
  b.Node("Tile", {"c", "repeats"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["Transpose"], 2);
  const Node& tile = g->node(FindOp(*g, "Tile"));
  EXPECT_EQ(tile.outputs[0].dims, (Dims{1, 2, 6, 4}));  // NHWC
  std::vector<float> x = Iota(12, 0.1f);
  std::vector<double> want;  // [1,4,2,6] NCHW
  for (int ch = 0; ch < 4; ++ch)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 6; ++w) want.push_back(x[(ch % 2) * 6 + h * 3 + w % 3]);
  ExpectNear(RunGraph(*g, {FloatTensor({1, 2, 2, 3}, x)}), want);
}

TEST(OnnxReader, RangeFoldsOrUsesTheDeclaredLength) {
  {
    OnnxBuilder b;
    b.InitializerInt64("start", {}, {10});
    b.InitializerInt64("limit", {}, {3});
    b.InitializerInt64("delta", {}, {-3});
    b.Node("Range", {"start", "limit", "delta"}, {"r"});
    b.Input("x", {3});
    b.Node("Cast", {"r"}, {"rf"});
    OnnxBuilder::AttrInt(b.model().mutable_graph()->mutable_node(1), "to",
                         onnx::TensorProto::FLOAT);
    b.Node("Add", {"x", "rf"}, {"y"});
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    EXPECT_EQ(Histogram(*g)["ElementWiseAdd"], 1);
    ExpectNear(RunGraph(*g, {FloatTensor({3}, {0, 0, 0})}), {10, 7, 4});
  }
  {
    OnnxBuilder b;
    b.Input("start", {});
    b.Initializer("limit", {}, {2});
    b.Initializer("delta", {}, {0.5f});
    b.Node("Range", {"start", "limit", "delta"}, {"y"});
    b.Output("y");
    auto* out = b.model().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
    out->set_elem_type(onnx::TensorProto::FLOAT);
    out->mutable_shape()->add_dim()->set_dim_value(3);
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << g.status();
    for (const Node& n : g->nodes()) EXPECT_TRUE(IsKnownOp(n.op)) << n.op;
    ExpectNear(RunGraph(*g, {FloatTensor({}, {0.75f})}), {0.75, 1.25, 1.75});
  }
}

// CumSum, ArgMax and TopK along the channel axis of an NHWC activation: the
// axis is remapped and the layout kept.
TEST(OnnxReader, ScansAndArgReductionsRemapTheChannelAxis) {
  OnnxBuilder b;
  b.Input("x", {1, 3, 2, 2});
  IdentityConv(b, "x", "c", 3);
  b.InitializerInt64("axis", {}, {1});
  auto* cum = b.Node("CumSum", {"c", "axis"}, {"cum"});
  OnnxBuilder::AttrInt(cum, "exclusive", 1);
  OnnxBuilder::AttrInt(cum, "reverse", 1);
  b.Output("cum");
  auto* am = b.Node("ArgMax", {"c"}, {"am"});
  OnnxBuilder::AttrInt(am, "axis", 1);
  OnnxBuilder::AttrInt(am, "keepdims", 0);
  b.Output("am");
  b.InitializerInt64("k", {1}, {2});
  auto* topk = b.Node("TopK", {"c", "k"}, {"values", "indices"});
  OnnxBuilder::AttrInt(topk, "axis", 1);
  OnnxBuilder::AttrInt(topk, "largest", 0);
  b.Output("values");
  b.Output("indices");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const Node& cs = g->node(FindOp(*g, "CumulativeSum"));
  EXPECT_EQ(cs.outputs[0].dims, (Dims{1, 2, 2, 3}));
  const Node& amx = g->node(FindOp(*g, "Argmax"));
  EXPECT_EQ(amx.outputs[0], TensorType(DType::kInt64, {1, 2, 2, 1}));
  // The channel dim is last in NHWC: dropping it needs no transpose.
  EXPECT_EQ(g->TypeOf(g->outputs()[1].value), TensorType(DType::kInt64, {1, 2, 2}));
  EXPECT_EQ(g->node(g->outputs()[1].value.node).op, "Reshape");
  EXPECT_EQ(g->TypeOf(g->outputs()[3].value), TensorType(DType::kInt64, {1, 2, 2, 2}));
  const std::vector<float> x = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};  // [c][h*w]
  std::vector<double> want_cum(12), want_am(4), want_v(8), want_i(8);
  for (int p = 0; p < 4; ++p) {
    double acc = 0;
    for (int ch = 2; ch >= 0; --ch) {
      want_cum[ch * 4 + p] = acc;
      acc += x[ch * 4 + p];
    }
    int best = 0;
    for (int ch = 1; ch < 3; ++ch) best = x[ch * 4 + p] > x[best * 4 + p] ? ch : best;
    want_am[p] = best;
    std::vector<int> order = {0, 1, 2};
    std::stable_sort(order.begin(), order.end(),
                     [&](int i, int j) { return x[i * 4 + p] < x[j * 4 + p]; });
    for (int r = 0; r < 2; ++r) {
      want_v[r * 4 + p] = x[order[r] * 4 + p];
      want_i[r * 4 + p] = order[r];
    }
  }
  auto out = RunOutputs(*g, {FloatTensor({1, 3, 2, 2}, x)});
  ASSERT_EQ(out.size(), 4u);
  ExpectNear(out[0], want_cum);
  ExpectNear(out[1], want_am);
  ExpectNear(out[2], want_v);
  ExpectNear(out[3], want_i);
}

TEST(OnnxReader, GatherOfComputedIndicesIsAGatherOp) {
  OnnxBuilder b;
  b.Input("ids", {2, 3}, onnx::TensorProto::INT64);
  std::vector<float> table = Iota(5 * 4, 0.5f);
  b.Initializer("table", {5, 4}, table);  // an embedding table
  b.Node("Gather", {"table", "ids"}, {"emb"});
  b.Output("emb");
  b.Input("x", {2, 5});
  b.InitializerInt64("cols", {3}, {4, 0, -1});  // constant, not a range
  auto* cols = b.Node("Gather", {"x", "cols"}, {"picked"});
  OnnxBuilder::AttrInt(cols, "axis", 1);
  b.Output("picked");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["Gather"], 2);
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 3, 4}));
  const std::vector<double> ids = {4, 0, -2, 1, 1, 3};
  std::vector<double> want_emb;
  for (double id : ids) {
    const int row = id < 0 ? 5 + static_cast<int>(id) : static_cast<int>(id);
    for (int k = 0; k < 4; ++k) want_emb.push_back(table[row * 4 + k]);
  }
  std::vector<float> x = Iota(10, 1.0f, 0.0f);
  std::vector<double> want_picked;
  for (int r = 0; r < 2; ++r) {
    for (int c : {4, 0, 4}) want_picked.push_back(x[r * 5 + c]);
  }
  auto out =
      RunOutputs(*g, {TypedTensor(TensorType(DType::kInt64, {2, 3}), ids), FloatTensor({2, 5}, x)});
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(out[0], want_emb);
  ExpectNear(out[1], want_picked);
}

// Einsum by definition, for equations of letters only: sum over every label
// assignment of the product of the operands' elements.
std::vector<double> NaiveEinsum(const std::string& eq, const std::vector<std::vector<float>>& ops,
                                const std::vector<Dims>& dims) {
  const size_t arrow = eq.find("->");
  std::vector<std::string> terms;
  std::string lhs = eq.substr(0, arrow), cur;
  for (char ch : lhs) {
    if (ch == ',') {
      terms.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(ch);
    }
  }
  terms.push_back(cur);
  const std::string out = eq.substr(arrow + 2);
  std::map<char, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t d = 0; d < terms[i].size(); ++d) size[terms[i][d]] = dims[i][d];
  }
  std::vector<char> labels;
  for (auto& [l, s] : size) labels.push_back(l);
  int64_t n_out = 1;
  for (char l : out) n_out *= size[l];
  std::vector<double> result(n_out, 0.0);
  std::map<char, int64_t> at;
  for (char l : labels) at[l] = 0;
  while (true) {
    double prod = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      int64_t off = 0;
      for (size_t d = 0; d < terms[i].size(); ++d) off = off * dims[i][d] + at[terms[i][d]];
      prod *= ops[i][off];
    }
    int64_t o = 0;
    for (char l : out) o = o * size[l] + at[l];
    result[o] += prod;
    size_t k = labels.size();
    while (k > 0 && ++at[labels[k - 1]] == size[labels[k - 1]]) at[labels[--k]] = 0;
    if (k == 0) break;
  }
  return result;
}

// Reciprocal(x) is 1 / x: a divide by a runtime value (so rules see one
// form), and the same values.
TEST(OnnxReader, ReciprocalIsADivision) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3});
  b.Node("Reciprocal", {"x"}, {"y"});
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Histogram(*g)["ElementWiseDivide"], 1);
  const std::vector<float> x = {0.5f, -2, 4, 0.25f, 8, -0.125f};
  std::vector<double> want;
  for (float v : x) want.push_back(1.0 / v);
  ExpectNear(RunGraph(*g, {FloatTensor({2, 3}, x)}), want);
}

// From opset 18 every reduction takes its axes as an input (ReduceSum from 13);
// before, as an attribute. Both forms reduce only the axes given.
TEST(OnnxReader, ReductionsReadTheirAxesFromTheAttributeOrTheInputByOpset) {
  const Dims dims = {2, 3, 4};
  const std::vector<float> x = Iota(24, 0.3f);
  // The reference: over axis 1 (and -1 + 3 = 2 is not reduced), keep_dims 0.
  auto reduce = [&](const std::string& op) {
    std::vector<double> want;
    for (int i = 0; i < 2; ++i)
      for (int k = 0; k < 4; ++k) {
        double acc = op == "ReduceMax" ? -1e30 : 0;
        for (int j = 0; j < 3; ++j) {
          const double v = x[(i * 3 + j) * 4 + k];
          acc = op == "ReduceMax" ? std::max(acc, v) : acc + v;
        }
        want.push_back(op == "ReduceMean" ? acc / 3 : acc);
      }
    return want;
  };
  for (const std::string op : {"ReduceMean", "ReduceMax", "ReduceSum"}) {
    for (int opset : {13, 18}) {
      const bool input = opset >= 18 || op == "ReduceSum";
      OnnxBuilder b(opset);
      b.Input("x", {2, 3, 4});
      std::vector<std::string> ins = {"x"};
      if (input) {
        b.InitializerInt64("axes", {1}, {-2});
        ins.push_back("axes");
      }
      auto* n = b.Node(op, ins, {"y"});
      if (!input) OnnxBuilder::AttrInts(n, "axes", {-2});
      OnnxBuilder::AttrInt(n, "keepdims", 0);
      b.Output("y");
      absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
      ASSERT_TRUE(g.ok()) << op << " opset " << opset << ": " << g.status();
      EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 4}))
          << op << " opset " << opset;
      ExpectNear(RunGraph(*g, {FloatTensor(dims, x)}), reduce(op));
    }
  }
}

TEST(OnnxReader, EinsumLowersToTransposeReshapeMatMulReduceSum) {
  struct Case {
    std::string eq;
    std::vector<Dims> dims;
    std::string naive;  // the equation for NaiveEinsum (explicit, letters only)
  };
  const std::vector<Case> cases = {
      {"bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}, "bij,bjk->bik"},
      {"bhqd,bhkd->bhqk", {{1, 2, 3, 4}, {1, 2, 5, 4}}, "bhqd,bhkd->bhqk"},
      {"ij,jk", {{2, 3}, {3, 4}}, "ij,jk->ik"},
      {"ij->ji", {{2, 3}}, "ij->ji"},
      {"ij->i", {{2, 3}}, "ij->i"},
      {"i,i", {{4}, {4}}, "i,i->"},
      {"i,j->ij", {{2}, {3}}, "i,j->ij"},
      {"bij,jk->kbi", {{2, 3, 4}, {4, 2}}, "bij,jk->kbi"},
      {"abc,cd->d", {{2, 2, 3}, {3, 2}}, "abc,cd->d"},
  };
  for (const Case& k : cases) {
    OnnxBuilder b(12);
    std::vector<std::string> names;
    std::vector<std::vector<float>> values;
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < k.dims.size(); ++i) {
      names.push_back(absl::StrCat("x", i));
      b.Input(names.back(), std::vector<int64_t>(k.dims[i].begin(), k.dims[i].end()));
      int64_t n = 1;
      for (int64_t d : k.dims[i]) n *= d;
      values.push_back(Iota(n, 0.1f * static_cast<float>(i + 1)));
      inputs.push_back(FloatTensor(k.dims[i], values.back()));
    }
    auto* e = b.Node("Einsum", names, {"y"});
    auto* a = e->add_attribute();
    a->set_name("equation");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(k.eq);
    b.Output("y");
    absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
    ASSERT_TRUE(g.ok()) << k.eq << ": " << g.status();
    for (const Node& n : g->nodes()) EXPECT_TRUE(IsKnownOp(n.op)) << k.eq << ": " << n.op;
    ExpectNear(RunGraph(*g, inputs), NaiveEinsum(k.naive, values, k.dims));
  }
}

TEST(OnnxReader, EinsumBroadcastsEllipsisBatchDims) {
  OnnxBuilder b(12);
  b.Input("a", {2, 1, 2, 3});
  b.Input("b", {3, 3, 2});
  auto* e = b.Node("Einsum", {"a", "b"}, {"y"});
  auto* attr = e->add_attribute();
  attr->set_name("equation");
  attr->set_type(onnx::AttributeProto::STRING);
  attr->set_s("...ij,...jk->...ik");
  b.Output("y");
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->TypeOf(g->outputs()[0].value), TensorType(DType::kFloat32, {2, 3, 2, 2}));
  EXPECT_EQ(Histogram(*g)["MatMul"], 1);
  std::vector<float> a = Iota(12, 0.2f), bv = Iota(18, 0.3f);
  std::vector<double> want;
  for (int p = 0; p < 2; ++p)
    for (int q = 0; q < 3; ++q)
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 2; ++k) {
          double s = 0;
          for (int j = 0; j < 3; ++j) s += a[(p * 2 + i) * 3 + j] * bv[(q * 3 + j) * 2 + k];
          want.push_back(s);
        }
  ExpectNear(RunGraph(*g, {FloatTensor({2, 1, 2, 3}, a), FloatTensor({3, 3, 2}, bv)}), want);
}

TEST(OnnxReader, EinsumDiagonalStaysOpaque) {
  OnnxBuilder b(12);
  b.Input("a", {3, 3});
  auto* e = b.Node("Einsum", {"a"}, {"y"});
  auto* attr = e->add_attribute();
  attr->set_name("equation");
  attr->set_type(onnx::AttributeProto::STRING);
  attr->set_s("ii->i");
  b.Output("y");
  auto* out = b.model().mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type();
  out->set_elem_type(onnx::TensorProto::FLOAT);
  out->mutable_shape()->add_dim()->set_dim_value(3);
  absl::StatusOr<Graph> g = ParseOnnx(b.Bytes(), "m.onnx");
  ASSERT_TRUE(g.ok()) << g.status();
  const NodeId id = FindOp(*g, "onnx.Einsum");
  ASSERT_NE(id, kNoNode);
  EXPECT_THAT(std::get<std::string>(g->node(id).attrs.at("onnx.unmapped")), HasSubstr("diagonal"));
}

}  // namespace
}  // namespace egret
