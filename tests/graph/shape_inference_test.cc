// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "egret/graph/shape_inference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <string>

namespace egret {
namespace {

using ::testing::HasSubstr;

// Builds operand lists whose types and tensors outlive the call.
class Operands {
 public:
  // A data input of `type`.
  Operands& Data(TensorType type) {
    types_.push_back(std::move(type));
    ops_.push_back({&types_.back(), nullptr, false, {}});
    return *this;
  }
  Operands& F32(Dims dims) { return Data(TensorType(DType::kFloat32, std::move(dims))); }
  // A "$Shape" parameter whose value is `dims`.
  Operands& Shape(Dims dims) {
    types_.push_back(TensorType(DType::kInt32, std::move(dims)));
    ops_.push_back({&types_.back(), nullptr, true, {}});
    return *this;
  }
  // A "$Const" Int32 vector (or scalar when rank0) parameter.
  Operands& Ints(std::vector<double> v, bool scalar = false) {
    Dims d;
    if (!scalar) d.push_back(static_cast<int64_t>(v.size()));
    tensors_.push_back(Tensor::FromValues(TensorType(DType::kInt32, d), v));
    types_.push_back(tensors_.back().type());
    ops_.push_back({&types_.back(), &tensors_.back(), false, {}});
    return *this;
  }
  Operands& Int(double v) { return Ints({v}, true); }
  Operands& Float(double v) {
    tensors_.push_back(Tensor::FromValues(TensorType(DType::kFloat32, {}), {v}));
    types_.push_back(tensors_.back().type());
    ops_.push_back({&types_.back(), &tensors_.back(), false, {}});
    return *this;
  }
  Operands& Multi(std::vector<TensorType> pieces) {
    multis_.push_back(std::move(pieces));
    types_.push_back(TensorType(DType::kMulti, {}));
    ops_.push_back({&types_.back(), nullptr, false, multis_.back()});
    return *this;
  }
  absl::Span<const OperandInfo> span() const { return ops_; }

 private:
  std::deque<TensorType> types_;
  std::deque<Tensor> tensors_;
  std::deque<std::vector<TensorType>> multis_;
  std::vector<OperandInfo> ops_;
};

absl::StatusOr<std::vector<TensorType>> Infer(std::string_view op, const Operands& in,
                                              std::vector<TensorType> declared = {}) {
  InferOptions o;
  o.declared = declared;
  return InferOutputTypes(op, in.span(), o);
}

// Dims of the single output; fails the test on error.
Dims OutDims(std::string_view op, const Operands& in) {
  auto r = Infer(op, in);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok() || r->empty()) return {};
  EXPECT_EQ(r->size(), 1u);
  return (*r)[0].dims;
}

std::string ErrorOf(std::string_view op, const Operands& in,
                    std::vector<TensorType> declared = {}) {
  auto r = Infer(op, in, std::move(declared));
  EXPECT_FALSE(r.ok()) << op << " unexpectedly gave " << (r.ok() ? (*r)[0].ToString() : "");
  return r.ok() ? "" : std::string(r.status().message());
}

Operands ConvArgs(Dims x, Dims f, int64_t cout, Dims stride, Dims pads, Dims dil = {1, 1, 1, 1}) {
  Operands o;
  o.F32(x).F32(f).F32({cout}).Shape(stride).Shape(pads).Shape(dil);
  return o;
}

TEST(ShapeInference, UnknownOpAndInputCount) {
  Operands x;
  x.F32({2});
  auto r = Infer("Frobnicate", x);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("unknown op 'Frobnicate'"));
  EXPECT_THAT(ErrorOf("ElementWiseAdd", x),
              HasSubstr("ElementWiseAdd: expects 2 inputs (a b), got 1"));
}

TEST(ShapeInference, Conv2dStridePadDilation) {
  // 5x5 input, 3x3 filter, pad 1 each side, stride 2 -> 3x3.
  EXPECT_EQ(OutDims("Conv2d", ConvArgs({1, 5, 5, 3}, {3, 3, 3, 8}, 8, {1, 2, 2, 1}, {1, 1, 1, 1})),
            (Dims{1, 3, 3, 8}));
  // Dilation 2 makes the 3x3 filter cover 5x5: 7x6 input, no pad -> 3x2.
  EXPECT_EQ(OutDims("Conv2d", ConvArgs({2, 7, 6, 4}, {3, 3, 4, 5}, 5, {1, 1, 1, 1}, {0, 0, 0, 0},
                                       {1, 2, 2, 1})),
            (Dims{2, 3, 2, 5}));
  // Asymmetric pads as a $Const.
  Operands o;
  o.F32({1, 4, 4, 2}).F32({2, 2, 2, 3}).F32({3}).Shape({1, 1, 1, 1}).Ints({0, 1, 1, 0});
  EXPECT_EQ(OutDims("Conv2d", o), (Dims{1, 4, 4, 3}));
}

TEST(ShapeInference, Conv2dGroupsAndErrors) {
  // 2 groups: in depth 6, filter in-depth 3.
  EXPECT_EQ(OutDims("Conv2d", ConvArgs({1, 3, 3, 6}, {1, 1, 3, 4}, 4, {1, 1, 1, 1}, {0, 0, 0, 0})),
            (Dims{1, 3, 3, 4}));
  EXPECT_THAT(
      ErrorOf("Conv2d", ConvArgs({1, 3, 3, 6}, {1, 1, 4, 4}, 4, {1, 1, 1, 1}, {0, 0, 0, 0})),
      HasSubstr("Conv2d: filter in-depth 4 does not divide input depth 6"));
  EXPECT_THAT(
      ErrorOf("Conv2d", ConvArgs({1, 3, 3, 6}, {1, 1, 3, 5}, 5, {1, 1, 1, 1}, {0, 0, 0, 0})),
      HasSubstr("not a multiple of the 2 groups"));
  EXPECT_THAT(
      ErrorOf("Conv2d", ConvArgs({1, 3, 3, 3}, {1, 1, 3, 4}, 5, {1, 1, 1, 1}, {0, 0, 0, 0})),
      HasSubstr("bias must be [4]"));
  EXPECT_THAT(
      ErrorOf("Conv2d", ConvArgs({1, 2, 2, 3}, {3, 3, 3, 4}, 4, {1, 1, 1, 1}, {0, 0, 0, 0})),
      HasSubstr("smaller than the (dilated) filter"));
  EXPECT_THAT(ErrorOf("Conv2d", ConvArgs({1, 3, 3, 3}, {1, 1, 3, 4}, 4, {1, 1, 1}, {0, 0, 0, 0})),
              HasSubstr("stride must hold 4 values, got 3"));
  EXPECT_THAT(ErrorOf("Conv2d", ConvArgs({1, 3, 3}, {1, 1, 3, 4}, 4, {1, 1, 1, 1}, {0, 0, 0, 0})),
              HasSubstr("in must have rank 4"));
  // A parameter that is neither $Shape nor $Const.
  Operands o;
  o.F32({1, 3, 3, 3})
      .F32({1, 1, 3, 4})
      .F32({4})
      .Data(TensorType(DType::kInt32, {4}))
      .Shape({0, 0, 0, 0});
  EXPECT_THAT(ErrorOf("Conv2d", o), HasSubstr("Conv2d stride must be a $Shape or $Const"));
}

TEST(ShapeInference, DepthwiseAndTransposed) {
  EXPECT_EQ(OutDims("DepthWiseConv2d",
                    ConvArgs({1, 4, 4, 3}, {3, 3, 1, 6}, 6, {1, 1, 1, 1}, {1, 1, 1, 1})),
            (Dims{1, 4, 4, 6}));
  EXPECT_THAT(ErrorOf("DepthWiseConv2d",
                      ConvArgs({1, 4, 4, 3}, {3, 3, 1, 4}, 4, {1, 1, 1, 1}, {1, 1, 1, 1})),
              HasSubstr("not a multiple of the input depth 3"));
  EXPECT_THAT(ErrorOf("DepthWiseConv2d",
                      ConvArgs({1, 4, 4, 3}, {3, 3, 3, 3}, 3, {1, 1, 1, 1}, {1, 1, 1, 1})),
              HasSubstr("in-depth 1"));
  // (3-1)*2 + 3 - 1 - 1 = 5, plus output padding 1 on the width.
  Operands t = ConvArgs({1, 3, 3, 2}, {3, 3, 2, 4}, 4, {1, 2, 2, 1}, {1, 1, 1, 1});
  t.Shape({0, 0, 1, 0});
  EXPECT_EQ(OutDims("TransposeConv2d", t), (Dims{1, 5, 6, 4}));
}

TEST(ShapeInference, FullyConnectedAndMatMul) {
  Operands fc;
  fc.F32({2, 3, 8}).F32({5, 8}).F32({5});
  EXPECT_EQ(OutDims("FullyConnected", fc), (Dims{2, 3, 5}));
  Operands bad;
  bad.F32({2, 7}).F32({5, 8});
  EXPECT_THAT(ErrorOf("FullyConnected", bad), HasSubstr("in depth 7 does not match weights [5,8]"));
  Operands mm;
  mm.F32({4, 1, 2, 3}).F32({5, 3, 6});
  EXPECT_EQ(OutDims("MatMul", mm), (Dims{4, 5, 2, 6}));
  Operands mbad;
  mbad.F32({2, 3}).F32({4, 6});
  EXPECT_THAT(ErrorOf("MatMul", mbad), HasSubstr("inner dims differ"));
}

TEST(ShapeInference, BroadcastingAndUnary) {
  Operands o;
  o.F32({2, 1, 4}).F32({3, 1});
  EXPECT_EQ(OutDims("ElementWiseAdd", o), (Dims{2, 3, 4}));
  Operands bad;
  bad.F32({2, 3}).F32({4});
  EXPECT_THAT(ErrorOf("ElementWiseMultiply", bad),
              HasSubstr("ElementWiseMultiply: shapes [2,3] and [4] do not broadcast"));
  for (const char* op : {"Relu", "Relu1", "Relu6", "Sigmoid", "Tanh", "HardSwish", "Gelu", "Erf",
                         "Exp", "Log", "Sqrt", "Neg", "Abs"}) {
    Operands u;
    u.F32({3, 2});
    EXPECT_EQ(OutDims(op, u), (Dims{3, 2})) << op;
  }
  Operands rx;
  rx.F32({3}).Float(4.0);
  EXPECT_EQ(OutDims("ReluX", rx), (Dims{3}));
  Operands mm;
  mm.F32({3}).Float(2.0).Float(1.0);
  EXPECT_THAT(ErrorOf("ReluMinMax", mm), HasSubstr("min 2 is greater than max 1"));
  Operands hs;
  hs.F32({3}).Float(0.2).Float(0.5);
  EXPECT_EQ(OutDims("HardSigmoid", hs), (Dims{3}));
  Operands multi;
  multi.Data(TensorType(DType::kMulti, {}));
  EXPECT_THAT(ErrorOf("Relu", multi), HasSubstr("select one output with $Out"));
}

TEST(ShapeInference, Normalization) {
  Operands s;
  s.F32({2, 5}).Int(-1);
  EXPECT_EQ(OutDims("Softmax", s), (Dims{2, 5}));
  Operands sbad;
  sbad.F32({2, 5}).Int(2);
  EXPECT_THAT(ErrorOf("Softmax", sbad), HasSubstr("Softmax axis 2 is out of range for rank 2"));
  Operands ln;
  ln.F32({2, 3, 4}).F32({4}).F32({1}).Float(1e-5);
  EXPECT_EQ(OutDims("LayerNorm", ln), (Dims{2, 3, 4}));
  Operands ln2;
  ln2.F32({2, 3, 4}).F32({3, 4}).F32({4}).Float(1e-5).Int(1);
  EXPECT_EQ(OutDims("LayerNorm", ln2), (Dims{2, 3, 4}));
  Operands lnbad;
  lnbad.F32({2, 3, 4}).F32({3}).F32({4}).Float(1e-5);
  EXPECT_THAT(ErrorOf("LayerNorm", lnbad), HasSubstr("gamma [3] does not broadcast"));
  Operands bn;
  bn.F32({1, 2, 2, 3}).F32({3}).F32({3});
  EXPECT_EQ(OutDims("Batchnorm", bn), (Dims{1, 2, 2, 3}));
  Operands bnbad;
  bnbad.F32({1, 2, 2, 3}).F32({2}).F32({3});
  EXPECT_THAT(ErrorOf("Batchnorm", bnbad), HasSubstr("scale must be [3]"));
}

TEST(ShapeInference, Reductions) {
  Operands r;
  r.F32({2, 3, 4}).Shape({1, 2});
  EXPECT_EQ(OutDims("ReduceMean", r), (Dims{2, 1, 1}));
  Operands r2;
  r2.F32({2, 3, 4}).Ints({-1}).Int(0);
  EXPECT_EQ(OutDims("ReduceSum", r2), (Dims{2, 3}));
  Operands all;
  all.F32({2, 3}).Ints({}).Int(0);
  EXPECT_EQ(OutDims("ReduceMax", all), (Dims{}));
  Operands bad;
  bad.F32({2, 3}).Ints({1, -1});
  EXPECT_THAT(ErrorOf("ReduceMax", bad), HasSubstr("listed twice"));
  Operands bad2;
  bad2.F32({2, 3}).Ints({3});
  EXPECT_THAT(ErrorOf("ReduceMax", bad2), HasSubstr("out of range"));
}

TEST(ShapeInference, ReshapeTransposeConcat) {
  Operands r;
  r.F32({2, 3, 4}).Shape({6, 4});
  EXPECT_EQ(OutDims("Reshape", r), (Dims{6, 4}));
  Operands r2;
  r2.F32({2, 3, 4}).Ints({4, -1});
  EXPECT_EQ(OutDims("Reshape", r2), (Dims{4, 6}));
  Operands rbad;
  rbad.F32({2, 3, 4}).Shape({5, 5});
  EXPECT_THAT(ErrorOf("Reshape", rbad), HasSubstr("shape [5,5] holds 25 elements"));
  Operands t;
  t.F32({2, 3, 4}).Shape({2, 0, 1});
  EXPECT_EQ(OutDims("Transpose", t), (Dims{4, 2, 3}));
  Operands tbad;
  tbad.F32({2, 3, 4}).Shape({0, 0, 1});
  EXPECT_THAT(ErrorOf("Transpose", tbad), HasSubstr("not a permutation"));
  Operands c;
  c.Int(1).F32({2, 3}).F32({2, 5}).F32({2, 1});
  EXPECT_EQ(OutDims("Concat", c), (Dims{2, 9}));
  Operands cbad;
  cbad.Int(1).F32({2, 3}).F32({3, 5});
  EXPECT_THAT(ErrorOf("Concat", cbad), HasSubstr("input 2 [3,5] does not match input 1 [2,3]"));
}

TEST(ShapeInference, Slices) {
  Operands s;
  s.F32({4, 5}).Shape({1, 2}).Shape({2, 3});
  EXPECT_EQ(OutDims("Slice_shape", s), (Dims{2, 3}));
  Operands sbad;
  sbad.F32({4, 5}).Shape({1, 3}).Shape({2, 3});
  EXPECT_THAT(ErrorOf("Slice_shape", sbad), HasSubstr("outside dim 1"));
  Operands ss;  // x[1:, ::-2] of a [4,5]: 3 x 3
  ss.F32({4, 5}).Ints({1, -1}).Ints({100, -100}).Ints({1, -2});
  EXPECT_EQ(OutDims("StridedSlice", ss), (Dims{3, 3}));
  Operands ssbad;
  ssbad.F32({4, 5}).Ints({0, 0}).Ints({1, 1}).Ints({1, 0});
  EXPECT_THAT(ErrorOf("StridedSlice", ssbad), HasSubstr("stride of dim 1 is 0"));
}

TEST(ShapeInference, SplitAndOut) {
  Operands s;
  s.F32({2, 6}).Int(1).Shape({1, 2, 3});
  auto r = Infer("Split", s);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[2].dims, (Dims{2, 3}));
  Operands sbad;
  sbad.F32({2, 6}).Int(1).Shape({1, 2});
  EXPECT_THAT(ErrorOf("Split", sbad), HasSubstr("add up to 3, not dim 1 (6)"));
  Operands out;
  out.Multi(*r).Shape({0, 0, 3, 1});
  EXPECT_EQ(OutDims("$Out", out), (Dims{2, 2}));
  Operands outbad;
  outbad.Multi(*r).Shape({0, 0, 3, 3});
  EXPECT_THAT(ErrorOf("$Out", outbad), HasSubstr("output 3 of 3 does not exist"));
  Operands notmulti;
  notmulti.F32({2}).Shape({0, 0, 1, 0});
  EXPECT_THAT(ErrorOf("$Out", notmulti), HasSubstr("must be a Multi value"));
}

TEST(ShapeInference, PadPoolResize) {
  Operands p;
  p.F32({2, 3}).Shape({1, 0, 2, 1});
  EXPECT_EQ(OutDims("Pad", p), (Dims{3, 6}));
  Operands preflect;
  preflect.F32({2, 3}).Shape({0, 0, 3, 0}).Int(2);
  EXPECT_THAT(ErrorOf("Pad", preflect), HasSubstr("too large for mode 2"));
  Operands pool;
  pool.F32({1, 5, 5, 2}).Shape({1, 3, 3, 1}).Shape({1, 2, 2, 1}).Shape({1, 1, 1, 1});
  EXPECT_EQ(OutDims("PoolMax2d", pool), (Dims{1, 3, 3, 2}));
  Operands gap;
  gap.F32({1, 7, 7, 8}).Shape({1, 7, 7, 1}).Shape({1, 1, 1, 1}).Shape({0, 0, 0, 0}).Int(0);
  EXPECT_EQ(OutDims("PoolAvg2d", gap), (Dims{1, 1, 1, 8}));
  Operands pbad;
  pbad.F32({1, 2, 2, 1}).Shape({1, 3, 3, 1}).Shape({1, 1, 1, 1}).Shape({0, 0, 0, 0});
  EXPECT_THAT(ErrorOf("PoolMax2d", pbad), HasSubstr("window 3 is larger than the padded input 2"));
  Operands rs;
  rs.F32({1, 2, 3, 4}).Shape({1, 4, 6, 4}).Int(1);
  EXPECT_EQ(OutDims("Resize", rs), (Dims{1, 4, 6, 4}));
  Operands rbad;
  rbad.F32({1, 2, 3, 4}).Shape({1, 4, 6, 5}).Int(1);
  EXPECT_THAT(ErrorOf("Resize", rbad), HasSubstr("must keep batch and depth"));
  Operands rmode;
  rmode.F32({1, 2, 3, 4}).Shape({1, 4, 6, 4}).Int(2);
  EXPECT_THAT(ErrorOf("Resize", rmode), HasSubstr("mode must be 0 (nearest) or 1 (bilinear)"));
  Operands rb;
  rb.F32({1, 2, 3, 4}).Shape({1, 3, 3, 4});
  EXPECT_EQ(OutDims("ResizeBilinear", rb), (Dims{1, 3, 3, 4}));
}

TEST(ShapeInference, OutputEncodingRule) {
  const TensorType q8(DType::kQUInt8, {4}, 128, 0.5f);
  Operands x;
  x.Data(q8).Data(q8);
  // Default: the first data input's encoding.
  auto r = Infer("ElementWiseAdd", x);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0], q8);
  // A declared encoding wins (dims still computed).
  auto d = Infer("ElementWiseAdd", x, {TensorType(DType::kQUInt8, {99}, 3, 0.25f)});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)[0], TensorType(DType::kQUInt8, {4}, 3, 0.25f));
  // A declared type from another family is rejected.
  EXPECT_THAT(ErrorOf("ElementWiseAdd", x, {TensorType(DType::kFloat32, {4})}),
              HasSubstr("declared output dtype Float32 does not fit input a"));
  // Quantize and Cast need a declared type; Dequantize defaults to Float32.
  Operands f;
  f.F32({4});
  EXPECT_THAT(ErrorOf("Quantize", f), HasSubstr("needs a declared output type"));
  EXPECT_THAT(ErrorOf("Cast", f), HasSubstr("needs a declared output type"));
  auto qz = Infer("Quantize", f, {q8});
  ASSERT_TRUE(qz.ok());
  EXPECT_EQ((*qz)[0], q8);
  EXPECT_THAT(ErrorOf("Quantize", f, {TensorType(DType::kFloat16, {4})}),
              HasSubstr("does not fit"));
  Operands q;
  q.Data(q8);
  auto dq = Infer("Dequantize", q);
  ASSERT_TRUE(dq.ok());
  EXPECT_EQ((*dq)[0], TensorType(DType::kFloat32, {4}));
  EXPECT_THAT(ErrorOf("Dequantize", f), HasSubstr("x must be quantized"));
  auto cast = Infer("Cast", f, {TensorType(DType::kInt32, {})});
  ASSERT_TRUE(cast.ok());
  EXPECT_EQ((*cast)[0], TensorType(DType::kInt32, {4}));
}

TEST(ShapeInference, LogicAndIndexing) {
  // Comparisons: broadcast dims, Bool whatever the operands.
  const TensorType q8(DType::kQUInt8, {4}, 128, 0.5f);
  Operands cmp;
  cmp.Data(q8).F32({3, 1});
  auto c = Infer("ElementWiseLess", cmp);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)[0], TensorType(DType::kBool, {3, 4}));
  EXPECT_THAT(ErrorOf("ElementWiseLess", cmp, {TensorType(DType::kQUInt8, {})}),
              HasSubstr("declared output 0 dtype QUInt8 is not Bool"));
  // Select: the condition must be Bool; the result is a's type.
  Operands sel;
  sel.Data(TensorType(DType::kBool, {2, 1}))
      .Data(TensorType(DType::kInt64, {3}))
      .Data(TensorType(DType::kInt64, {}));
  auto s = Infer("ElementWiseSelect", sel);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], TensorType(DType::kInt64, {2, 3}));
  Operands selbad;
  selbad.F32({2}).F32({2}).F32({2});
  EXPECT_THAT(ErrorOf("ElementWiseSelect", selbad), HasSubstr("condition must be Bool"));
  // Tile, Gather.
  Operands tile;
  tile.F32({2, 3}).Shape({2, 1});
  EXPECT_EQ(OutDims("Tile", tile), (Dims{4, 3}));
  Operands tilebad;
  tilebad.F32({2, 3}).Shape({2});
  EXPECT_THAT(ErrorOf("Tile", tilebad), HasSubstr("multiples must hold 2 values"));
  Operands gather;
  gather.F32({5, 4, 3}).Data(TensorType(DType::kInt64, {2, 2})).Int(-2);
  EXPECT_EQ(OutDims("Gather", gather), (Dims{5, 2, 2, 3}));
  Operands gatherbad;
  gatherbad.F32({5}).F32({2});
  EXPECT_THAT(ErrorOf("Gather", gatherbad), HasSubstr("indices must be Int32 or Int64"));
  // Argmax: keep_dims, and the index dtype.
  Operands arg;
  arg.F32({2, 3, 4}).Int(1).Int(0);
  auto a = Infer("Argmax", arg);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ((*a)[0], TensorType(DType::kInt32, {2, 4}));
  EXPECT_THAT(ErrorOf("Argmax", arg, {TensorType(DType::kFloat32, {})}),
              HasSubstr("is not Int32 or Int64"));
  Operands argflag;
  argflag.F32({2}).Int(0).Int(2);
  EXPECT_THAT(ErrorOf("Argmin", argflag), HasSubstr("keep_dims must be 0 or 1"));
  // TopK: two outputs; k within the dim.
  Operands topk;
  topk.F32({2, 5}).Int(3);
  auto t = Infer("TopK", topk, {TensorType(), TensorType(DType::kInt64, {})});
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 2u);
  EXPECT_EQ((*t)[0], TensorType(DType::kFloat32, {2, 3}));
  EXPECT_EQ((*t)[1], TensorType(DType::kInt64, {2, 3}));
  Operands topkbad;
  topkbad.F32({2, 5}).Int(6);
  EXPECT_THAT(ErrorOf("TopK", topkbad), HasSubstr("k 6 is outside [0, 5]"));
  Operands cum;
  cum.F32({2, 5}).Int(-1).Int(1).Int(0);
  EXPECT_EQ(OutDims("CumulativeSum", cum), (Dims{2, 5}));
}

TEST(ShapeInference, ParamReaders) {
  Operands o;
  o.Shape({1, 2, 2, 1}).Ints({-1, 3}).Float(2.5);
  auto s = ReadIntParam(o.span()[0], "p");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s, (std::vector<int64_t>{1, 2, 2, 1}));
  auto c = ReadIntParam(o.span()[1], "p");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c, (std::vector<int64_t>{-1, 3}));
  EXPECT_FALSE(ReadIntScalarParam(o.span()[1], "p").ok());
  EXPECT_EQ(*ReadFloatScalarParam(o.span()[2], "p"), 2.5);
  auto half = ReadIntParam(o.span()[2], "p");
  EXPECT_THAT(std::string(half.status().message()), HasSubstr("p must hold integers"));
}

TEST(ShapeInference, NodeOutputTypesFromGraph) {
  Graph g;
  NodeId x = g.AddInput("x", TensorType(DType::kFloat32, {2, 6}));
  Node axis;
  axis.op = "$Shape";
  axis.outputs.push_back(TensorType(DType::kInt32, {1}));
  NodeId a = g.AddNode(axis);
  Node sizes = axis;
  sizes.outputs[0] = TensorType(DType::kInt32, {4, 2});
  NodeId sz = g.AddNode(sizes);
  Node split;
  split.op = "Split";
  split.inputs = {{x, 0}, {a, 0}, {sz, 0}};
  split.outputs.push_back(TensorType(DType::kMulti, {}));
  NodeId sp = g.AddNode(split);
  Node sel = axis;
  sel.outputs[0] = TensorType(DType::kInt32, {0, 0, 2, 1});
  NodeId se = g.AddNode(sel);
  Node out;
  out.op = "$Out";
  out.inputs = {{sp, 0}, {se, 0}};
  out.outputs.push_back(TensorType(DType::kFloat32, {}));
  NodeId o = g.AddNode(out);
  auto t = InferNodeOutputTypes(g, o);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ((*t)[0], TensorType(DType::kFloat32, {2, 2}));
}

}  // namespace
}  // namespace egret
