// egret/onnx/transpose_reshape_internal.h: when a Transpose and a Reshape
// commute. Each case is checked on values: both sides of the identity are
// computed on an iota tensor and compared element by element.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/transpose_reshape_internal.h"

namespace egret::onnx_export {
namespace {

Tensor Iota(const DimList& dims) {
  Dims d(dims.begin(), dims.end());
  TensorType t(DType::kFloat32, d);
  std::vector<double> v(t.num_elements());
  std::iota(v.begin(), v.end(), 0.0);
  return Tensor::FromValues(t, v);
}

Tensor Reshaped(const Tensor& t, const DimList& dims) {
  return onnx_internal::ReshapeTensor(t, Dims(dims.begin(), dims.end()));
}

void ExpectSame(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.type().dims, b.type().dims);
  ASSERT_EQ(a.bytes().size(), b.bytes().size());
  EXPECT_TRUE(std::equal(a.bytes().begin(), a.bytes().end(), b.bytes().begin()));
}

// TransposeTensor against the definition (out[i] = in[i permuted], one
// element at a time) for every element size, the batched-matrix path
// (sizes that are not multiples of its tile) and the general one.
TEST(TransposeTensor, MatchesTheDefinition) {
  struct Case {
    DimList dims;
    std::vector<int> perm;
  };
  const std::vector<Case> cases = {
      {{70, 45}, {1, 0}},           {{3, 33, 65}, {0, 2, 1}},
      {{2, 3, 4, 5}, {0, 1, 3, 2}}, {{2, 3, 4, 5}, {0, 2, 3, 1}},
      {{2, 3, 4, 5}, {3, 1, 0, 2}}, {{7}, {0}},
      {{1, 40, 1}, {2, 1, 0}},      {{}, {}},
  };
  for (const DType dt : {DType::kQUInt8, DType::kFloat16, DType::kFloat32, DType::kInt64}) {
    for (const Case& k : cases) {
      SCOPED_TRACE(::testing::Message() << DTypeName(dt) << " perm of rank " << k.dims.size());
      const Dims in(k.dims.begin(), k.dims.end());
      TensorType t(dt, in);
      std::vector<double> v(static_cast<size_t>(t.num_elements()));
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 251);
      const Tensor x = Tensor::FromValues(t, v);
      const Tensor y = onnx_internal::TransposeTensor(x, k.perm);
      const int rank = static_cast<int>(in.size());
      Dims out(static_cast<size_t>(rank));
      for (int i = 0; i < rank; ++i) out[i] = in[k.perm[i]];
      ASSERT_EQ(y.type().dims, out);
      std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
      for (int64_t e = 0; e < y.num_elements(); ++e) {
        int64_t src = 0;  // the input element at out index idx
        std::vector<int64_t> in_idx(static_cast<size_t>(rank));
        for (int i = 0; i < rank; ++i) in_idx[k.perm[i]] = idx[i];
        for (int i = 0; i < rank; ++i) src = src * in[i] + in_idx[i];
        ASSERT_EQ(y.GetValue(e), x.GetValue(src)) << "element " << e;
        for (int i = rank - 1; i >= 0; --i) {
          if (++idx[i] < out[i]) break;
          idx[i] = 0;
        }
      }
    }
  }
}

TEST(ReshapeGroups, SplitsMergesAndUnitDims) {
  auto g = ReshapeGroups({2, 6, 1, 5}, {2, 2, 3, 5, 1});
  ASSERT_TRUE(g);
  ASSERT_EQ(g->size(), 5u);  // 2 | 6 -> 2,3 | 1 -> () | 5 | () -> 1
  EXPECT_EQ((*g)[1].in_begin, 1);
  EXPECT_EQ((*g)[1].in_end, 2);
  EXPECT_EQ((*g)[1].out_begin, 1);
  EXPECT_EQ((*g)[1].out_end, 3);
  EXPECT_EQ((*g)[2].in_end - (*g)[2].in_begin, 1);  // the 1 that vanishes
  EXPECT_EQ((*g)[2].out_end - (*g)[2].out_begin, 0);
  EXPECT_EQ((*g)[4].in_end - (*g)[4].in_begin, 0);  // the 1 that appears
  EXPECT_EQ((*g)[4].out_end - (*g)[4].out_begin, 1);
  EXPECT_FALSE(ReshapeGroups({2, 3}, {5}));
  auto whole = ReshapeGroups({4, 6}, {6, 4});  // no common split: one group of both
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->size(), 1u);
  EXPECT_FALSE(ReshapeGroups({0, 3}, {3}));
}

// A channel shuffle spelled in NHWC on an NCHW tensor: Transpose to NHWC,
// split C, swap, merge. The split goes below the first Transpose.
TEST(TransposeReshape, SinkTheNhwcTransposeBelowTheChannelSplit) {
  const DimList x = {1, 6, 2, 3};  // NCHW
  const PermList to_nhwc = {0, 2, 3, 1};
  const DimList split = {1, 2, 3, 2, 3};  // [N, H, W, g, C/g]
  Tensor nhwc = onnx_internal::TransposeTensor(Iota(x), to_nhwc);
  auto s = SinkTransposeThroughReshape({1, 2, 3, 6}, split, to_nhwc);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->inner, (DimList{1, 2, 3, 2, 3}));
  EXPECT_EQ(s->perm, (PermList{0, 3, 4, 1, 2}));
  ExpectSame(Reshaped(nhwc, split),
             onnx_internal::TransposeTensor(Reshaped(Iota(x), s->inner), s->perm));
  // Merging H and W passes it (they are in order in NCHW too); merging W
  // and C does not (C comes before W in NCHW).
  auto hw = SinkTransposeThroughReshape({1, 2, 3, 6}, {1, 6, 6}, to_nhwc);
  ASSERT_TRUE(hw);
  ExpectSame(Reshaped(nhwc, {1, 6, 6}),
             onnx_internal::TransposeTensor(Reshaped(Iota(x), hw->inner), hw->perm));
  EXPECT_FALSE(SinkTransposeThroughReshape({1, 2, 3, 6}, {1, 2, 18}, to_nhwc));
}

TEST(TransposeReshape, HoistTheNchwTransposeAboveTheChannelMerge) {
  const DimList y = {1, 2, 3, 3, 2};  // [N, H, W, C/g, g] after the shuffle
  const DimList merged = {1, 2, 3, 6};
  const PermList to_nchw = {0, 3, 1, 2};
  auto h = HoistTransposeAboveReshape(y, merged, to_nchw);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->perm, (PermList{0, 3, 4, 1, 2}));
  EXPECT_EQ(h->dims, (DimList{1, 6, 2, 3}));
  ExpectSame(onnx_internal::TransposeTensor(Reshaped(Iota(y), merged), to_nchw),
             Reshaped(onnx_internal::TransposeTensor(Iota(y), h->perm), h->dims));
  // A perm that reorders the dims a Reshape split cannot move above it.
  EXPECT_FALSE(HoistTransposeAboveReshape({6}, {2, 3}, {1, 0}));
  EXPECT_FALSE(HoistTransposeAboveReshape({2, 3, 4}, {2, 3, 4}, {0, 2}));  // rank mismatch
}

// Unit dims that appear or vanish on the way.
TEST(TransposeReshape, UnitDims) {
  const DimList x = {4, 1, 6};
  const PermList p = {2, 0, 1};   // -> [6, 4, 1]
  const DimList out = {2, 3, 4};  // splits 6, drops the 1
  Tensor t = onnx_internal::TransposeTensor(Iota(x), p);
  auto s = SinkTransposeThroughReshape({6, 4, 1}, out, p);
  ASSERT_TRUE(s);
  ExpectSame(Reshaped(t, out),
             onnx_internal::TransposeTensor(Reshaped(Iota(x), s->inner), s->perm));
  const DimList y = {2, 1, 3};
  auto h = HoistTransposeAboveReshape(y, {1, 2, 3, 1}, {2, 0, 1, 3});
  ASSERT_TRUE(h);
  ExpectSame(onnx_internal::TransposeTensor(Reshaped(Iota(y), {1, 2, 3, 1}), {2, 0, 1, 3}),
             Reshaped(onnx_internal::TransposeTensor(Iota(y), h->perm), h->dims));
}

}  // namespace
}  // namespace egret::onnx_export
