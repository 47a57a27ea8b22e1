// The ONNX-semantics kernels of opaque "onnx.<Op>" nodes, run through the
// executor as the importer leaves them: ONNX attributes on the node, absent
// optional inputs listed in "onnx.absent_inputs", declared output types.
// The ONNX conformance suite (tests/onnx) covers the ops broadly; these are
// readable examples of the edge cases.
// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "onnx_node.h"

namespace egret {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

TensorType F32(Dims d) { return TensorType(DType::kFloat32, std::move(d)); }
TensorType I64(Dims d) { return TensorType(DType::kInt64, std::move(d)); }

using In = testing::OnnxInput;
using testing::ErrorOf;
using testing::RunOnnx;

using testing::Values;

TEST(OnnxKernels, RoundTakesHalvesToEven) {
  auto r =
      RunOnnx("onnx.Round", {{F32({8}), {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, 2.6}}}, {F32({8})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(-2, -2, 0, 0, 2, 2, 2, 3));
  EXPECT_TRUE(std::signbit((*r)[0].GetReal(2)));  // -0.5 rounds to -0
}

TEST(OnnxKernels, ModFollowsTheDivisorsSignUnlessFmod) {
  const In x{I64({4}), {-4, 7, -7, 5}};
  const In y{I64({4}), {3, -3, -3, 0}};
  auto python = RunOnnx("onnx.Mod", {x, y}, {I64({4})});
  ASSERT_TRUE(python.ok()) << python.status();
  EXPECT_THAT(Values((*python)[0]), ElementsAre(2, -2, -1, 0));  // by zero: 0
  auto c = RunOnnx("onnx.Mod", {x, y}, {I64({4})}, {{"fmod", int64_t{1}}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(Values((*c)[0]), ElementsAre(-1, 1, -1, 0));
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.Mod", {{F32({1}), {1}}, {F32({1}), {2}}}, {F32({1})})),
              HasSubstr("onnx.Mod: fmod must be 1 for floating-point inputs"));
}

// Integer Div truncates toward zero (ONNX Runtime's and C's quotient), not
// toward minus infinity; by zero it is 0.
TEST(OnnxKernels, IntegerDivTruncatesTowardZero) {
  const In x{I64({5}), {7, -7, 7, -7, 3}};
  const In y{I64({5}), {2, 2, -2, -1, 0}};
  auto r = RunOnnx("onnx.Div", {x, y}, {I64({5})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(3, -3, -3, 7, 0));
}

// ONNX's uint8 is egret's QUInt8 with the plain encoding: bits shifted past
// the 8-bit width are lost.
TEST(OnnxKernels, BitShiftWrapsAtTheElementWidth) {
  const TensorType u8(DType::kQUInt8, {3});
  auto r = RunOnnx("onnx.BitShift", {{u8, {200, 3, 255}}, {u8, {1, 2, 8}}}, {u8},
                   {{"direction", std::string("LEFT")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(144, 12, 0));
}

// The forms the importer keeps opaque: a diagonal (a repeated subscript)
// with an ellipsis, three operands, and the implicit output (the labels used
// once, alphabetically), in Float64.
TEST(OnnxKernels, EinsumDiagonalsAndThreeOperands) {
  auto diag = RunOnnx("onnx.Einsum", {{F32({2, 2, 2}), {1, 2, 3, 4, 5, 6, 7, 8}}}, {F32({2, 2})},
                      {{"equation", std::string("...ii ->...i")}});
  ASSERT_TRUE(diag.ok()) << diag.status();
  EXPECT_THAT(Values((*diag)[0]), ElementsAre(1, 4, 5, 8));
  // a[i] * b[i, j] * c[j], summed over i and j.
  auto three = RunOnnx("onnx.Einsum",
                       {{F32({2}), {1, 2}}, {F32({2, 2}), {1, 2, 3, 4}}, {F32({2}), {10, 100}}},
                       {F32({})}, {{"equation", std::string("i,ij,j->")}});
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_THAT(Values((*three)[0]), ElementsAre(1 * 10 + 2 * 100 + 2 * 3 * 10 + 2 * 4 * 100));
  const TensorType f64(DType::kFloat64, {2, 2});
  auto implicit = RunOnnx("onnx.Einsum", {{f64, {0.1, 0.2, 0.3, 0.4}}},
                          {TensorType(DType::kFloat64, {2, 2})}, {{"equation", std::string("ji")}});
  ASSERT_TRUE(implicit.ok()) << implicit.status();
  EXPECT_THAT(Values((*implicit)[0]), ElementsAre(0.1, 0.3, 0.2, 0.4));  // "ji" -> "ij"
}

TEST(OnnxKernels, PReluBroadcastsTheSlopeOverX) {
  // X [2, 3], slope [3]: one slope per column.
  auto r = RunOnnx("onnx.PRelu", {{F32({2, 3}), {-1, -2, 3, 4, -5, -6}}, {F32({3}), {0.5, 2, 10}}},
                   {F32({2, 3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(-0.5, -4, 3, 4, -10, -60));
  // The slope broadcasts to X, not X to the slope.
  EXPECT_THAT(
      ErrorOf(RunOnnx("onnx.PRelu", {{F32({3}), {1, 2, 3}}, {F32({2, 3}), {}}}, {F32({2, 3})})),
      HasSubstr("slope Float32[2,3] does not broadcast to X Float32[3]"));
}

TEST(OnnxKernels, GatherElementsTakesNegativeAxesAndIndices) {
  // data [2, 3], along axis -1 (columns): index -1 is the last column.
  auto r = RunOnnx("onnx.GatherElements",
                   {{F32({2, 3}), {1, 2, 3, 4, 5, 6}}, {I64({2, 2}), {-1, 0, 1, 1}}}, {F32({2, 2})},
                   {{"axis", int64_t{-1}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(3, 1, 5, 5));
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.GatherElements",
                              {{F32({2, 3}), {1, 2, 3, 4, 5, 6}}, {I64({1, 1}), {3}}},
                              {F32({1, 1})}, {{"axis", int64_t{1}}})),
              HasSubstr("onnx.GatherElements: index 3 is out of range for an axis of 3"));
}

// Opset 18 moved the axes of reductions from an attribute to input 1.
TEST(OnnxKernels, ReduceTakesAxesFromTheInputAndCountsNegativeOnesFromTheEnd) {
  const In data{F32({2, 3}), {1, -2, 3, 4, 5, -6}};
  auto r =
      RunOnnx("onnx.ReduceL1", {data, {I64({1}), {-1}}}, {F32({2})}, {{"keepdims", int64_t{0}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(6, 15));
  // No axes: every axis, unless noop_with_empty_axes makes it the identity.
  auto all = RunOnnx("onnx.ReduceMin", {data}, {F32({1, 1})});
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(Values((*all)[0]), ElementsAre(-6));
  auto noop = RunOnnx("onnx.ReduceMin", {data, {I64({0}), {}}}, {F32({2, 3})},
                      {{"noop_with_empty_axes", int64_t{1}}});
  ASSERT_TRUE(noop.ok()) << noop.status();
  EXPECT_THAT(Values((*noop)[0]), ElementsAre(1, -2, 3, 4, 5, -6));
}

TEST(OnnxKernels, ReduceLogSumExpDoesNotOverflow) {
  auto r = RunOnnx("onnx.ReduceLogSumExp", {{F32({2}), {1000, 1000}}}, {F32({1})},
                   {{"axes", std::vector<int64_t>{0}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR((*r)[0].GetReal(0), 1000 + std::log(2.0), 1e-3);
}

// The importer drops an absent optional input and lists its ONNX position:
// here Dropout(data, <no ratio>, training_mode). Read by position, the
// second input is training_mode (true), so the default ratio 0.5 applies and
// the output would be random: unimplemented. Read naively, it would be a
// ratio of 1 at inference.
TEST(OnnxKernels, AbsentOptionalInputsKeepTheOthersPositions) {
  const In data{F32({2}), {1, 2}};
  const In yes{TensorType(DType::kBool, {}), {1}};
  const Attributes absent = {{"onnx.absent_inputs", std::vector<int64_t>{1}}};
  // training_mode (position 2) is true and ratio (position 1) the default
  // 0.5 (read as ratio, true would be 1, which is out of range): each
  // element is dropped or scaled by 2.
  auto training = RunOnnx("onnx.Dropout", {data, yes}, {F32({2})}, absent);
  ASSERT_TRUE(training.ok()) << training.status();
  const std::vector<double> t = Values((*training)[0]);
  EXPECT_TRUE(t[0] == 0 || t[0] == 2) << t[0];
  EXPECT_TRUE(t[1] == 0 || t[1] == 4) << t[1];
  // At inference the output is the input and the mask all true.
  auto inference = RunOnnx("onnx.Dropout", {data}, {F32({2}), TensorType(DType::kBool, {2})});
  ASSERT_TRUE(inference.ok()) << inference.status();
  EXPECT_THAT(Values((*inference)[0]), ElementsAre(1, 2));
  EXPECT_THAT(Values((*inference)[1]), ElementsAre(1, 1));
}

TEST(OnnxKernels, TriluKeepsADiagonalOffsetByK) {
  const In x{F32({3, 3}), {1, 2, 3, 4, 5, 6, 7, 8, 9}};
  auto upper = RunOnnx("onnx.Trilu", {x, {I64({}), {1}}}, {F32({3, 3})});
  ASSERT_TRUE(upper.ok()) << upper.status();
  EXPECT_THAT(Values((*upper)[0]), ElementsAre(0, 2, 3, 0, 0, 6, 0, 0, 0));
  auto lower = RunOnnx("onnx.Trilu", {x, {I64({}), {-1}}}, {F32({3, 3})}, {{"upper", int64_t{0}}});
  ASSERT_TRUE(lower.ok()) << lower.status();
  EXPECT_THAT(Values((*lower)[0]), ElementsAre(0, 0, 0, 4, 0, 0, 7, 8, 0));
}

TEST(OnnxKernels, ScatterElementsCombinesDuplicateIndices) {
  auto r =
      RunOnnx("onnx.ScatterElements",
              {{F32({1, 4}), {1, 1, 1, 1}}, {I64({1, 3}), {1, -3, 3}}, {F32({1, 3}), {2, 3, 4}}},
              {F32({1, 4})}, {{"axis", int64_t{1}}, {"reduction", std::string("add")}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(1, 6, 1, 5));  // -3 is index 1
}

TEST(OnnxKernels, OneHotCountsNegativeIndicesFromDepth) {
  // depth 3, values [off, on] = [0, 5], new axis -2 (before the last).
  auto r = RunOnnx("onnx.OneHot", {{I64({2}), {-1, 7}}, {I64({}), {3}}, {F32({2}), {0, 5}}},
                   {F32({3, 2})}, {{"axis", int64_t{-2}}});
  ASSERT_TRUE(r.ok()) << r.status();
  // Column 0 is index -1 = 2; column 1 (index 7) is out of range: all off.
  EXPECT_THAT(Values((*r)[0]), ElementsAre(0, 0, 0, 0, 5, 0));
}

TEST(OnnxKernels, DepthToSpaceModesOrderChannelsDifferently) {
  std::vector<double> x(8);
  for (int i = 0; i < 8; ++i) x[i] = i;
  const In in{F32({1, 8, 1, 1}), x};
  auto dcr = RunOnnx("onnx.DepthToSpace", {in}, {F32({1, 2, 2, 2})}, {{"blocksize", int64_t{2}}});
  ASSERT_TRUE(dcr.ok()) << dcr.status();
  EXPECT_THAT(Values((*dcr)[0]), ElementsAre(0, 2, 4, 6, 1, 3, 5, 7));
  auto crd = RunOnnx("onnx.DepthToSpace", {in}, {F32({1, 2, 2, 2})},
                     {{"blocksize", int64_t{2}}, {"mode", std::string("CRD")}});
  ASSERT_TRUE(crd.ok()) << crd.status();
  EXPECT_THAT(Values((*crd)[0]), ElementsAreArray(x));
  // SpaceToDepth undoes DCR.
  auto back = RunOnnx("onnx.SpaceToDepth", {{F32({1, 2, 2, 2}), Values((*dcr)[0])}},
                      {F32({1, 8, 1, 1})}, {{"blocksize", int64_t{2}}});
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(Values((*back)[0]), ElementsAreArray(x));
}

// Before opset 13 Hardmax sees its input as a matrix [prod(dims[:axis]),
// prod(dims[axis:])]; from 13 it runs along the one axis.
TEST(OnnxKernels, HardmaxAxisSemanticsDependOnTheOpset) {
  const In x{F32({1, 2, 2}), {1, 4, 3, 2}};
  auto v13 = RunOnnx("onnx.Hardmax", {x}, {F32({1, 2, 2})},
                     {{"axis", int64_t{1}}, {"onnx.opset", int64_t{13}}});
  ASSERT_TRUE(v13.ok()) << v13.status();
  EXPECT_THAT(Values((*v13)[0]), ElementsAre(0, 1, 1, 0));  // per column
  auto v11 = RunOnnx("onnx.Hardmax", {x}, {F32({1, 2, 2})},
                     {{"axis", int64_t{1}}, {"onnx.opset", int64_t{11}}});
  ASSERT_TRUE(v11.ok()) << v11.status();
  EXPECT_THAT(Values((*v11)[0]), ElementsAre(0, 1, 0, 0));  // over all 4
}

TEST(OnnxKernels, UniqueKeepsFirstOccurrenceOrderWhenUnsorted) {
  const In x{F32({6}), {2, 1, 1, 3, 4, 3}};
  const std::vector<TensorType> outs = {F32({4}), I64({4}), I64({6}), I64({4})};
  auto r = RunOnnx("onnx.Unique", {x}, outs, {{"sorted", int64_t{0}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(2, 1, 3, 4));
  EXPECT_THAT(Values((*r)[1]), ElementsAre(0, 1, 3, 4));
  EXPECT_THAT(Values((*r)[2]), ElementsAre(0, 1, 1, 2, 3, 2));
  EXPECT_THAT(Values((*r)[3]), ElementsAre(1, 2, 2, 1));
  auto sorted = RunOnnx("onnx.Unique", {x}, outs);
  ASSERT_TRUE(sorted.ok()) << sorted.status();
  EXPECT_THAT(Values((*sorted)[0]), ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(Values((*sorted)[2]), ElementsAre(1, 0, 0, 2, 3, 2));
}

// NonZero's output shape depends on the data: it must match the declaration.
TEST(OnnxKernels, DataDependentShapesMustMatchTheDeclaredOutput) {
  const In x{F32({2, 2}), {1, 0, 0, 3}};
  auto r = RunOnnx("onnx.NonZero", {x}, {I64({2, 2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(0, 1, 0, 1));  // (0,0) and (1,1)
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.NonZero", {x}, {I64({2, 3})})),
              HasSubstr("node 'node' (#1): onnx.NonZero: output 0 is declared Int64[2,3] but "
                        "the op computes 4 elements"));
}

// A malformed node (from a hand-built graph or an invalid model) is an error
// naming the op, never an out-of-range read.
TEST(OnnxKernels, MalformedNodesAreErrors) {
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.Tan", {}, {F32({1})})),
              HasSubstr("onnx.Tan: needs 1 inputs, has 0"));
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.GatherND", {{F32({2}), {1, 2}}}, {F32({1})})),
              HasSubstr("onnx.GatherND: input 1 is required"));
  // A scalar has no axis 0.
  EXPECT_THAT(ErrorOf(RunOnnx("onnx.ReduceProd", {{F32({}), {3}}}, {F32({})},
                              {{"axes", std::vector<int64_t>{0}}})),
              HasSubstr("onnx.ReduceProd: axis 0 is out of range for rank 0"));
}

TEST(OnnxKernels, DetOfABatchOfMatrices) {
  // [[1, 2], [3, 4]] (-2) and a singular [[2, 4], [1, 2]] (0).
  auto r = RunOnnx("onnx.Det", {{F32({2, 2, 2}), {1, 2, 3, 4, 2, 4, 1, 2}}}, {F32({2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(-2, 0));
}

TEST(OnnxKernels, CastLikeTruncatesToIntegers) {
  auto r = RunOnnx("onnx.CastLike", {{F32({3}), {1.7, -1.7, 2.5}}, {I64({0}), {}}}, {I64({3})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values((*r)[0]), ElementsAre(1, -1, 2));
}

}  // namespace
}  // namespace egret
