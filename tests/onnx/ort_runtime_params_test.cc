// Ops whose parameters a model computes at run time (issue #34). egret maps
// Clip, Reshape, Slice, Pad, Expand, Tile, TopK, ... onto its own ops only
// when their parameter operands (min/max, shape, starts/ends, pads, k, axes,
// ...) are constants; a parameter computed from the data keeps the op opaque
// ("onnx.<Op>", docs/onnx-import.md), run by its ONNX-semantics kernel. Each
// case builds such a model (the parameter derived from the input through
// ReduceMax/ReduceMin, e.g. a log-mel front end's "max - 80 dB" Clip
// minimum), checks that the op stayed opaque, compares egret's reference
// executor with ONNX Runtime on seeded random inputs (skipped without node
// and onnxruntime-node), and checks that `egret optimize --verify`'s
// comparison of the input and the optimized graph verifies every output
// (none "not verified"). A last case checks that a run-time value that
// contradicts the declared output type is an error naming the op.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/executor/executor.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/pipeline/optimize.h"
#include "egret/support/file_io.h"
#include "egret/support/status_macros.h"
#include "tests/lib/shipped_library.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {
namespace {

namespace fs = std::filesystem;
using testing::CompareWithOrt;
using testing::OnnxBuilder;
using testing::OracleComparison;
using testing::OrtUnavailableReason;

constexpr int kInt64 = onnx::TensorProto::INT64;
constexpr int kFloat = onnx::TensorProto::FLOAT;

// Writes `b`'s model and imports it; checks that it holds every op of `ops`
// as an opaque node.
absl::StatusOr<Graph> Import(const std::string& name, const OnnxBuilder& b,
                             const std::vector<std::string>& ops, std::string* path) {
  const fs::path dir = fs::path(::testing::TempDir()) / absl::StrCat("runtime_params_", name);
  fs::create_directories(dir);
  *path = (dir / "model.onnx").string();
  EGRET_RETURN_IF_ERROR(WriteFileAtomically(*path, b.Bytes()));
  absl::StatusOr<Graph> g = ReadOnnx(*path);
  if (!g.ok()) return g.status();
  for (const std::string& op : ops) {
    bool opaque = false;
    for (const Node& n : g->nodes()) opaque |= n.op == "onnx." + op;
    if (!opaque) return absl::InternalError(absl::StrCat("egret did not keep ", op, " opaque"));
  }
  return g;
}

// The checks of the file comment for one model.
void Check(const std::string& name, const OnnxBuilder& b, const std::vector<std::string>& ops,
           double tol = 1e-5) {
  std::string model;
  absl::StatusOr<Graph> g = Import(name, b, ops, &model);
  ASSERT_TRUE(g.ok()) << g.status();
  for (uint64_t seed : {1, 2}) {
    // `egret optimize --verify`: the input and the optimized graph on the
    // seeded inputs MakeRandomInputs makes.
    absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, seed);
    ASSERT_TRUE(inputs.ok()) << inputs.status();
    DiagnosticList diags;
    absl::StatusOr<OptimizeResult> r = Optimize(*g, testing::ShippedLibrary(), {}, &diags);
    ASSERT_TRUE(r.ok()) << r.status();
    absl::StatusOr<VerifyReport> v =
        VerifyGraphs(*g, "input", r->graph, "optimized graph", *inputs);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(v->not_verified(), 0u) << v->ToString();
    EXPECT_TRUE(v->ok()) << v->ToString();

    if (const std::string why = OrtUnavailableReason(); !why.empty()) {
      std::printf("%s: ONNX Runtime comparison skipped: %s\n", name.c_str(), why.c_str());
      continue;
    }
    // Unoptimized: ONNX Runtime 1.x's Reshape fusion fails on the computed
    // shapes ("Attempting to get index by a name which does not exist"), and
    // each node as written is what the kernels are compared with.
    testing::OrtRunOptions run;
    run.optimize = false;
    absl::StatusOr<OracleComparison> c = CompareWithOrt(model, *g, *inputs, {}, tol, tol, run);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->verified, c->outputs) << absl::StrJoin(c->not_verified, "; ");
    EXPECT_TRUE(c->mismatches.empty()) << name << ": " << absl::StrJoin(c->mismatches, "; ");
  }
}

// Declares the type of intermediate tensor `name` (value_info), as exporters
// do for shapes ONNX's shape inference cannot derive.
void ValueInfo(OnnxBuilder& b, const std::string& name, const std::vector<int64_t>& dims,
               int elem = kFloat) {
  auto* vi = b.model().mutable_graph()->add_value_info();
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

// `out` = Cast<elem>(ReduceMax(x) * 0 + values): the constant `values`
// (as many as given), computed from input `x` at run time, so that the
// importer cannot fold it.
void Computed(OnnxBuilder& b, const std::string& x, const std::string& out,
              const std::vector<float>& values, int elem = kInt64) {
  b.Initializer(out + "_zero", {}, {0.0f});
  b.Initializer(out + "_values", {static_cast<int64_t>(values.size())}, values);
  onnx::NodeProto* m = b.Node("ReduceMax", {x}, {out + "_max"});
  OnnxBuilder::AttrInt(m, "keepdims", 0);
  b.Node("Mul", {out + "_max", out + "_zero"}, {out + "_z"});
  b.Node("Add", {out + "_z", out + "_values"}, {out + "_f"});
  onnx::NodeProto* cast = b.Node("Cast", {out + "_f"}, {out});
  OnnxBuilder::AttrInt(cast, "to", elem);
}

// The log-mel front end's floor: Clip(x, min = ReduceMax(x) - 0.5), and a
// maximum from ReduceMin(x) + 1.2.
TEST(RuntimeParams, ClipWithComputedMinAndMax) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3, 8});
  b.Initializer("range", {}, {0.5f});
  b.Initializer("span", {}, {1.2f});
  onnx::NodeProto* mx = b.Node("ReduceMax", {"x"}, {"mx"});
  OnnxBuilder::AttrInt(mx, "keepdims", 0);
  onnx::NodeProto* mn = b.Node("ReduceMin", {"x"}, {"mn"});
  OnnxBuilder::AttrInt(mn, "keepdims", 0);
  b.Node("Sub", {"mx", "range"}, {"floor"});
  b.Node("Add", {"mn", "span"}, {"ceil"});
  b.Node("Clip", {"x", "floor"}, {"y"});
  b.Node("Clip", {"x", "", "ceil"}, {"z"});
  b.Node("Clip", {"x", "floor", "ceil"}, {"w"});
  b.Output("y", {2, 3, 8});
  b.Output("z", {2, 3, 8});
  b.Output("w", {2, 3, 8});
  Check("clip", b, {"Clip"});
}

TEST(RuntimeParams, ReshapeSqueezeUnsqueeze) {
  OnnxBuilder b(13);
  b.Input("x", {3, 4});
  Computed(b, "x", "shape", {2, -1, 1});
  b.Node("Reshape", {"x", "shape"}, {"r"});
  ValueInfo(b, "r", {2, 6, 1});
  Computed(b, "x", "sq_axes", {-1});
  b.Node("Squeeze", {"r", "sq_axes"}, {"s"});
  ValueInfo(b, "s", {2, 6});
  Computed(b, "x", "unsq_axes", {0, 3});
  b.Node("Unsqueeze", {"s", "unsq_axes"}, {"u"});
  b.Output("u", {1, 2, 6, 1});
  Check("reshape", b, {"Reshape", "Squeeze", "Unsqueeze"});
}

TEST(RuntimeParams, ExpandAndTile) {
  OnnxBuilder b(13);
  b.Input("x", {3, 1});
  Computed(b, "x", "shape", {2, 3, 4});
  b.Node("Expand", {"x", "shape"}, {"e"});
  b.Output("e", {2, 3, 4});
  Computed(b, "x", "repeats", {2, 3});
  b.Node("Tile", {"x", "repeats"}, {"t"});
  b.Output("t", {6, 3});
  Check("expand_tile", b, {"Expand", "Tile"});
}

TEST(RuntimeParams, SliceWithComputedStartsEndsAxesSteps) {
  OnnxBuilder b(13);
  b.Input("x", {4, 10, 5});
  Computed(b, "x", "starts", {-2, 1});
  Computed(b, "x", "ends", {-100, 1000});
  Computed(b, "x", "axes", {1, -1});
  Computed(b, "x", "steps", {-3, 2});
  b.Node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
  b.Output("y", {4, 3, 2});
  // Starts and ends only: every axis from 0.
  Computed(b, "x", "starts2", {1});
  Computed(b, "x", "ends2", {3});
  b.Node("Slice", {"x", "starts2", "ends2"}, {"z"});
  b.Output("z", {2, 10, 5});
  Check("slice", b, {"Slice"});
}

TEST(RuntimeParams, SplitWithComputedSizes) {
  OnnxBuilder b(13);
  b.Input("x", {2, 7});
  Computed(b, "x", "split", {2, 5});
  onnx::NodeProto* n = b.Node("Split", {"x", "split"}, {"a", "c"});
  OnnxBuilder::AttrInt(n, "axis", 1);
  b.Output("a", {2, 2});
  b.Output("c", {2, 5});
  Check("split", b, {"Split"});
}

TEST(RuntimeParams, PadWithComputedPadsAndValue) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3, 4});
  Computed(b, "x", "pads", {0, 1, 2, 1, -1, 3});
  b.Node("ReduceMean", {"x"}, {"mean"});  // keepdims: [1,1,1]
  b.InitializerInt64("scalar", {0}, {});
  b.Node("Reshape", {"mean", "scalar"}, {"value"});
  b.Node("Pad", {"x", "pads", "value"}, {"c"});
  b.Output("c", {3, 3, 9});
  for (const char* mode : {"reflect", "edge"}) {
    onnx::NodeProto* n = b.Node("Pad", {"x", "pads"}, {std::string("p_") + mode});
    OnnxBuilder::AttrString(n, "mode", mode);
    b.Output(std::string("p_") + mode, {3, 3, 9});
  }
  Check("pad", b, {"Pad"});
}

TEST(RuntimeParams, ConstantOfShapeWithComputedShape) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3});
  Computed(b, "x", "shape", {3, 2});
  onnx::NodeProto* n = b.Node("ConstantOfShape", {"shape"}, {"k"});
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(kFloat);
  a->mutable_t()->add_dims(1);
  a->mutable_t()->add_float_data(2.5f);
  ValueInfo(b, "k", {3, 2});
  b.Node("MatMul", {"x", "k"}, {"y"});
  b.Output("y", {2, 2});
  Check("constant_of_shape", b, {"ConstantOfShape"});
}

TEST(RuntimeParams, TopKWithComputedK) {
  OnnxBuilder b(13);
  b.Input("x", {3, 9});
  Computed(b, "x", "k", {4});
  b.Node("TopK", {"x", "k"}, {"values", "indices"});
  b.Output("values", {3, 4});
  b.Output("indices", {3, 4}, kInt64);
  Computed(b, "x", "k2", {2});
  onnx::NodeProto* n = b.Node("TopK", {"x", "k2"}, {"low", "low_indices"});
  OnnxBuilder::AttrInt(n, "largest", 0);
  OnnxBuilder::AttrInt(n, "axis", 0);
  ValueInfo(b, "low_indices", {2, 9}, kInt64);
  b.Output("low", {2, 9});
  Check("topk", b, {"TopK"});
}

// ReduceSum takes its axes as an input from opset 13 (the other reductions
// from opset 18, past ONNX 1.12's); CumSum always does.
TEST(RuntimeParams, ReduceSumAndCumSumWithComputedAxes) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3, 4});
  Computed(b, "x", "axes", {-1, 0});
  b.Node("ReduceSum", {"x", "axes"}, {"sum"});
  b.Output("sum", {1, 3, 1});
  onnx::NodeProto* s = b.Node("ReduceSum", {"x", "axes"}, {"sum2"});
  OnnxBuilder::AttrInt(s, "keepdims", 0);
  b.Output("sum2", {3});
  Computed(b, "x", "axis", {1});
  onnx::NodeProto* n = b.Node("CumSum", {"x", "axis"}, {"cs"});
  OnnxBuilder::AttrInt(n, "reverse", 1);
  OnnxBuilder::AttrInt(n, "exclusive", 1);
  b.Output("cs", {2, 3, 4});
  Check("reduce", b, {"ReduceSum", "CumSum"});
}

// Resize with computed sizes (and scales), and opset 9's Upsample with
// computed scales.
TEST(RuntimeParams, ResizeAndUpsampleWithComputedScales) {
  OnnxBuilder b(13);
  b.Input("x", {1, 2, 3, 4});
  Computed(b, "x", "sizes", {1, 2, 5, 7});
  onnx::NodeProto* n = b.Node("Resize", {"x", "", "", "sizes"}, {"s"});
  OnnxBuilder::AttrString(n, "mode", "linear");
  b.Output("s", {1, 2, 5, 7});
  Computed(b, "x", "scales", {1, 1, 2, 1.5}, kFloat);
  onnx::NodeProto* m = b.Node("Resize", {"x", "", "scales"}, {"t"});
  OnnxBuilder::AttrString(m, "mode", "nearest");
  b.Output("t", {1, 2, 6, 6});
  Check("resize", b, {"Resize"});

  OnnxBuilder u(9);
  u.Input("x", {1, 2, 3, 4});
  Computed(u, "x", "scales", {1, 1, 2, 3}, kFloat);
  onnx::NodeProto* up = u.Node("Upsample", {"x", "scales"}, {"y"});
  OnnxBuilder::AttrString(up, "mode", "nearest");
  u.Output("y", {1, 2, 6, 12});
  onnx::NodeProto* lin = u.Node("Upsample", {"x", "scales"}, {"z"});
  OnnxBuilder::AttrString(lin, "mode", "linear");
  u.Output("z", {1, 2, 6, 12});
  Check("upsample", u, {"Upsample"});
}

// Range maps to egret ops when the model declares its length; for an
// element type the mapping lacks (Int16) it stays opaque.
TEST(RuntimeParams, RangeOfInt16WithComputedBounds) {
  OnnxBuilder b(13);
  b.Input("x", {2, 3});
  Computed(b, "x", "start", {7}, onnx::TensorProto::INT16);
  Computed(b, "x", "limit", {-6}, onnx::TensorProto::INT16);
  Computed(b, "x", "delta", {-3}, onnx::TensorProto::INT16);
  b.Node("Squeeze", {"start"}, {"s"});
  b.Node("Squeeze", {"limit"}, {"l"});
  b.Node("Squeeze", {"delta"}, {"d"});
  b.Node("Range", {"s", "l", "d"}, {"y"});
  b.Output("y", {5}, onnx::TensorProto::INT16);
  Check("range", b, {"Range"});
}

// A run-time value that disagrees with the model's declared type fails,
// naming the op and both types.
TEST(RuntimeParams, DisagreeingValueIsAnError) {
  OnnxBuilder b(13);
  b.Input("x", {3, 4});
  Computed(b, "x", "shape", {4, 3});
  b.Node("Reshape", {"x", "shape"}, {"r"});
  b.Output("r", {2, 6});
  std::string model;
  absl::StatusOr<Graph> g = Import("disagree", b, {"Reshape"}, &model);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, 1);
  ASSERT_TRUE(inputs.ok());
  absl::StatusOr<std::vector<Tensor>> out = Execute(*g, *inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find(
                "onnx.Reshape: output 0 is declared Float32[2,6] but its inputs give Float32[4,3]"),
            std::string::npos)
      << out.status();
}

}  // namespace
}  // namespace egret
