// The Float32 paths of the elementwise kernels (binary arithmetic with
// broadcasting, the clamps, negation, absolute value, Batchnorm) give
// exactly the bits of the executor's definition: compute in double, round
// once to float. Operands are random floats from 2^-35 to 2^26, with NaN,
// infinities and signed zeros mixed in, in the broadcast shapes
// the fast loops special-case (same shape, per-channel, scalar) and the
// general strided case.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "egret/backend/executor.h"
#include "graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;

std::vector<double> RandomFloats(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> mant(-2.0, 2.0);
  std::uniform_int_distribution<int> expo(-140, 100);
  std::uniform_int_distribution<int> special(0, 19);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    switch (special(rng)) {
      case 0:
        v.push_back(std::nan(""));
        break;
      case 1:
        v.push_back(inf);
        break;
      case 2:
        v.push_back(-inf);
        break;
      case 3:
        v.push_back(-0.0);
        break;
      case 4:
        v.push_back(0.0);
        break;
      default:
        v.push_back(static_cast<float>(std::ldexp(mant(rng), expo(rng) / 4)));
    }
  }
  return v;
}

int64_t Count(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

// Bit equality, any NaN equal to any NaN.
bool SameFloat(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

std::vector<float> RunFloat32(GraphBuilder& b, ValueRef out) {
  b.Output(out);
  ExecuteOptions options;
  options.threads = 1;
  auto r = Execute(b.graph(), {}, options);
  EXPECT_TRUE(r.ok()) << r.status();
  std::vector<float> v;
  if (!r.ok()) return v;
  const Tensor& t = (*r)[0];
  EXPECT_EQ(t.type().dtype, DType::kFloat32);
  v.resize(static_cast<size_t>(t.num_elements()));
  std::memcpy(v.data(), t.bytes().data(), v.size() * sizeof(float));
  return v;
}

// The element of a (dims ad) that numpy broadcasting reads for element i of
// an output of dims od.
int64_t Source(const Dims& ad, const Dims& od, int64_t i) {
  int64_t src = 0, stride = 1;
  for (int d = static_cast<int>(od.size()) - 1; d >= 0; --d) {
    const int64_t coord = i % od[d];
    i /= od[d];
    const int ai = d - static_cast<int>(od.size() - ad.size());
    if (ai < 0) continue;
    if (ad[ai] != 1) src += coord * stride;
    stride *= ad[ai];
  }
  return src;
}

struct BinaryCase {
  std::string op;
  std::function<double(double, double)> f;
};

TEST(Float32Paths, BinaryOpsAreBitExactInEveryBroadcastShape) {
  const std::vector<BinaryCase> ops = {
      {"ElementWiseAdd", [](double x, double y) { return x + y; }},
      {"ElementWiseSubtract", [](double x, double y) { return x - y; }},
      {"ElementWiseMultiply", [](double x, double y) { return x * y; }},
      {"ElementWiseDivide", [](double x, double y) { return x / y; }},
      {"ElementWiseMaximum", [](double x, double y) { return std::isnan(x) || x > y ? x : y; }},
      {"ElementWiseMinimum", [](double x, double y) { return std::isnan(x) || x < y ? x : y; }}};
  const std::vector<std::pair<Dims, Dims>> shapes = {
      {{2, 3, 4, 8}, {2, 3, 4, 8}},  // same shape
      {{2, 3, 4, 8}, {8}},           // per channel (NHWC)
      {{1, 1, 1, 8}, {2, 3, 4, 8}},  // per channel on the left
      {{2, 3, 4, 8}, {}},            // scalar
      {{2, 3, 1, 8}, {1, 1, 4, 1}},  // both broadcast, strided inner axis
      {{5, 1}, {1, 7}}};
  std::mt19937 rng(11);
  for (const BinaryCase& op : ops) {
    for (const auto& [ad, bd] : shapes) {
      SCOPED_TRACE(op.op + " " + std::to_string(ad.size()) + "x" + std::to_string(bd.size()));
      GraphBuilder g;
      const std::vector<double> a = RandomFloats(Count(ad), rng);
      const std::vector<double> b = RandomFloats(Count(bd), rng);
      ValueRef y = g.Op(op.op, {g.F32(ad, a), g.F32(bd, b)});
      const Dims od = g.graph().node(y.node).outputs[0].dims;
      const std::vector<float> got = RunFloat32(g, y);
      ASSERT_EQ(static_cast<int64_t>(got.size()), Count(od));
      int mismatches = 0;
      for (int64_t i = 0; i < Count(od); ++i) {
        const float want = static_cast<float>(op.f(a[Source(ad, od, i)], b[Source(bd, od, i)]));
        if (!SameFloat(got[i], want)) ++mismatches;
      }
      EXPECT_EQ(mismatches, 0);
    }
  }
}

TEST(Float32Paths, ClampsNegationAbsAndBatchnormAreBitExact) {
  std::mt19937 rng(12);
  const Dims d = {2, 3, 5, 8};
  const std::vector<double> x = RandomFloats(Count(d), rng);
  // 0.1 and 6.3 are not floats: the bounds round, which changes no result.
  struct UnaryCase {
    std::string op;
    std::vector<double> params;
    std::function<double(double)> f;
  };
  const std::vector<UnaryCase> ops = {
      {"Relu", {}, [](double v) { return std::max(v, 0.0); }},
      {"Relu6", {}, [](double v) { return std::min(std::max(v, 0.0), 6.0); }},
      {"ReluX", {6.3}, [](double v) { return std::min(std::max(v, 0.0), 6.3); }},
      {"ReluMinMax", {0.1, 6.3}, [](double v) { return std::min(std::max(v, 0.1), 6.3); }},
      {"Neg", {}, [](double v) { return -v; }},
      {"Abs", {}, [](double v) { return std::fabs(v); }}};
  for (const UnaryCase& op : ops) {
    SCOPED_TRACE(op.op);
    GraphBuilder g;
    std::vector<ValueRef> in = {g.F32(d, x)};
    for (double p : op.params) in.push_back(g.Scalar(p));
    const std::vector<float> got = RunFloat32(g, g.Op(op.op, in));
    ASSERT_EQ(got.size(), x.size());
    int mismatches = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!SameFloat(got[i], static_cast<float>(op.f(x[i])))) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0);
  }
  GraphBuilder g;
  const std::vector<double> scale = RandomFloats(8, rng), offset = RandomFloats(8, rng);
  const std::vector<float> got =
      RunFloat32(g, g.Op("Batchnorm", {g.F32(d, x), g.F32({8}, scale), g.F32({8}, offset)}));
  ASSERT_EQ(got.size(), x.size());
  int mismatches = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float want = static_cast<float>(x[i] * scale[i % 8] + offset[i % 8]);
    if (!SameFloat(got[i], want)) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace egret
