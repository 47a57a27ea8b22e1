// The Float32 and Float16 paths of the elementwise kernels (binary arithmetic
// with broadcasting, the clamps, negation, absolute value, Batchnorm, Cast)
// give exactly the bits of the executor's definition: compute in double, round
// once to float (and a Float16 result from that float to half). Operands are
// random floats from 2^-35 to 2^26, with NaN, infinities and signed zeros
// mixed in, in the broadcast shapes the fast loops special-case (same shape,
// per-channel, scalar) and the general strided case. Kernels that take over
// an input's storage at its last use (KernelContext::reusable) never touch a
// value another node, or the caller, still reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/executor.h"
#include "egret/graph/tensor.h"
#include "tests/graph/graph_builder.h"

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

// Runs b with `out` as its output on one thread; its elements as stored, of
// dtype `want` (T: float for Float32, uint16_t for Float16).
template <typename T>
std::vector<T> RunAs(GraphBuilder& b, ValueRef out, DType want) {
  b.Output(out);
  ExecuteOptions options;
  options.threads = 1;
  auto r = Execute(b.graph(), {}, options);
  EXPECT_TRUE(r.ok()) << r.status();
  std::vector<T> v;
  if (!r.ok()) return v;
  const Tensor& t = (*r)[0];
  EXPECT_EQ(t.type().dtype, want);
  v.resize(static_cast<size_t>(t.num_elements()));
  std::memcpy(v.data(), t.bytes().data(), v.size() * sizeof(T));
  return v;
}

std::vector<float> RunFloat32(GraphBuilder& b, ValueRef out) {
  return RunAs<float>(b, out, DType::kFloat32);
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

// Computed (not constant) values, so that kernels may reuse their storage:
// n = Neg(x) feeds two readers, is read twice by one node, or is a graph
// output; each case must leave n intact for every other reader.
TEST(ReusedStorage, ValuesStillReadElsewhereAreNeverOverwritten) {
  std::mt19937 rng(13);
  const Dims d = {2, 3, 4, 8};
  const std::vector<double> x = RandomFloats(Count(d), rng);
  auto run = [&](auto build) {
    GraphBuilder g;
    ValueRef n = g.Op("Neg", {g.F32(d, x)});
    for (ValueRef out : build(g, n)) g.Output(out);
    ExecuteOptions options;
    options.threads = 1;
    auto r = Execute(g.graph(), {}, options);
    EXPECT_TRUE(r.ok()) << r.status();
    std::vector<std::vector<float>> outs;
    for (const Tensor& t : r.ok() ? *r : std::vector<Tensor>{}) {
      std::vector<float> v(static_cast<size_t>(t.num_elements()));
      std::memcpy(v.data(), t.bytes().data(), v.size() * sizeof(float));
      outs.push_back(std::move(v));
    }
    return outs;
  };
  auto expect_all = [&](const std::vector<float>& got, auto f) {
    ASSERT_EQ(got.size(), x.size());
    int mismatches = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!SameFloat(got[i], static_cast<float>(f(x[i])))) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0);
  };
  auto neg = [](double v) { return -v; };
  auto relu_neg = [](double v) { return std::max(-v, 0.0); };
  {
    SCOPED_TRACE("two readers");
    auto outs = run([](GraphBuilder& g, ValueRef n) {
      return std::vector<ValueRef>{g.Op("Relu", {n}), g.Op("Abs", {n})};
    });
    ASSERT_EQ(outs.size(), 2u);
    expect_all(outs[0], relu_neg);
    expect_all(outs[1], [](double v) { return std::fabs(v); });
  }
  {
    SCOPED_TRACE("read twice by one node");
    auto outs = run([](GraphBuilder& g, ValueRef n) {
      return std::vector<ValueRef>{g.Op("ElementWiseSubtract", {n, g.Op("Relu", {n})}), n};
    });
    ASSERT_EQ(outs.size(), 2u);
    expect_all(outs[0], [](double v) { return -v - std::max(-v, 0.0); });
    expect_all(outs[1], neg);
  }
  {
    SCOPED_TRACE("a graph output");
    auto outs = run([](GraphBuilder& g, ValueRef n) {
      return std::vector<ValueRef>{g.Op("Relu", {n}), n};
    });
    ASSERT_EQ(outs.size(), 2u);
    expect_all(outs[0], relu_neg);
    expect_all(outs[1], neg);
  }
  {
    SCOPED_TRACE("last use: in place, through a reshape and a broadcast add");
    auto outs = run([&](GraphBuilder& g, ValueRef n) {
      ValueRef r = g.Op("Reshape", {g.Op("Relu", {n}), g.Shape({6, 32})});
      ValueRef sum = g.Op("ElementWiseAdd", {g.F32({32}, std::vector<double>(32, 0.5)), r});
      return std::vector<ValueRef>{g.Op("Batchnorm", {sum, g.F32({32}, std::vector<double>(32, 2)),
                                                      g.F32({32}, std::vector<double>(32, 1))})};
    });
    ASSERT_EQ(outs.size(), 1u);
    expect_all(outs[0], [](double v) {
      return static_cast<double>(static_cast<float>(std::max(-v, 0.0) + 0.5)) * 2 + 1;
    });
  }
}

// The Float16 value nearest (ties to even) the float nearest v, as the
// executor stores a Float16 result.
uint16_t HalfOf(double v) { return FloatToHalf(static_cast<float>(v)); }

std::vector<uint16_t> RunFloat16(GraphBuilder& b, ValueRef out) {
  return RunAs<uint16_t>(b, out, DType::kFloat16);
}

bool SameHalf(uint16_t a, uint16_t b) {
  return a == b || (std::isnan(HalfToFloat(a)) && std::isnan(HalfToFloat(b)));
}

// Float16 operands (random halves, NaN, infinities, subnormals) through the
// float paths: each result is the double result rounded to float, then to
// half, bit for bit; operands computed by a node, so reusable, and constants.
TEST(Float16Paths, ElementwiseAndCastAreBitExact) {
  std::mt19937 rng(14);
  const Dims d = {3, 5, 16};
  auto random_halves = [&] {
    std::uniform_int_distribution<int> bits(0, 0xFFFF);
    std::vector<double> v;
    for (int64_t i = 0; i < Count(d); ++i)
      v.push_back(HalfToFloat(static_cast<uint16_t>(bits(rng))));
    return v;
  };
  const std::vector<double> a = random_halves(), b = random_halves();
  auto f16 = [&](GraphBuilder& g, const std::vector<double>& v) {
    return g.Const(TensorType(DType::kFloat16, d), v);
  };
  const std::vector<BinaryCase> binary = {
      {"ElementWiseAdd", [](double x, double y) { return x + y; }},
      {"ElementWiseMultiply", [](double x, double y) { return x * y; }},
      {"ElementWiseDivide", [](double x, double y) { return x / y; }},
      {"ElementWiseMaximum", [](double x, double y) { return std::isnan(x) || x > y ? x : y; }}};
  for (const BinaryCase& op : binary) {
    SCOPED_TRACE(op.op);
    GraphBuilder g;
    // Relu(a) is computed: an operand the kernel may take over.
    ValueRef lhs = g.Op("Relu", {f16(g, a)});
    const std::vector<uint16_t> got = RunFloat16(g, g.Op(op.op, {lhs, f16(g, b)}));
    ASSERT_EQ(got.size(), a.size());
    int mismatches = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      const double relu = a[i] < 0 ? 0.0 : a[i];  // as std::max(x, 0): -0 and NaN stay
      if (!SameHalf(got[i], HalfOf(op.f(relu, b[i])))) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0);
  }
  {
    SCOPED_TRACE("Sigmoid (computed in double)");
    GraphBuilder g;
    const std::vector<uint16_t> got = RunFloat16(g, g.Op("Sigmoid", {f16(g, a)}));
    ASSERT_EQ(got.size(), a.size());
    int mismatches = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!SameHalf(got[i], HalfOf(1.0 / (1.0 + std::exp(-a[i]))))) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0);
  }
}

// Cast widens every one of the 65536 halves exactly (NaN payloads as
// HalfToFloat keeps them) and narrows floats as FloatToHalf does: halfway
// cases, overflow, subnormals, NaNs with payloads.
TEST(Float16Paths, CastConvertsEveryHalfAndNarrowsLikeFloatToHalf) {
  // Stored bit for bit (a constant made from values would canonicalize NaNs).
  std::vector<uint8_t> bytes;
  for (uint32_t h = 0; h < 65536; ++h) {
    bytes.push_back(static_cast<uint8_t>(h & 0xFF));
    bytes.push_back(static_cast<uint8_t>(h >> 8));
  }
  absl::StatusOr<Tensor> halves = Tensor::FromBytes(TensorType(DType::kFloat16, {65536}), bytes);
  ASSERT_TRUE(halves.ok()) << halves.status();
  GraphBuilder g;
  ValueRef in = {g.graph().AddConstant("halves", std::make_shared<Tensor>(*std::move(halves))), 0};
  ValueRef wide = g.Op("Cast", {in}, {TensorType(DType::kFloat32, {65536})});
  const std::vector<float> got = RunFloat32(g, wide);
  ASSERT_EQ(got.size(), 65536u);
  int mismatches = 0;
  for (uint32_t h = 0; h < 65536; ++h) {
    const float want = HalfToFloat(static_cast<uint16_t>(h));
    if (std::memcmp(&got[h], &want, sizeof(float)) != 0) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);

  std::mt19937 rng(15);
  std::uniform_int_distribution<uint32_t> bits;
  std::vector<float> floats;
  for (uint32_t h = 0; h < 65536; h += 7) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    floats.push_back(f);
    // Just above, at and below the halfway point to the next half.
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    for (uint32_t delta : {0xFFFu, 0x1000u, 0x1001u}) {
      const uint32_t w = u + delta;
      float g2;
      std::memcpy(&g2, &w, sizeof g2);
      floats.push_back(g2);
    }
  }
  for (int i = 0; i < 4096; ++i) {
    const uint32_t u = bits(rng);
    float f;
    std::memcpy(&f, &u, sizeof f);
    floats.push_back(f);  // NaNs with random payloads among them
  }
  const int64_t n = static_cast<int64_t>(floats.size());
  GraphBuilder g2;
  ValueRef src =
      g2.Const(TensorType(DType::kFloat32, {n}), std::vector<double>(floats.begin(), floats.end()));
  // Through a computed value too (Neg twice), which the Cast may reuse.
  ValueRef twice = g2.Op("Neg", {g2.Op("Neg", {src})});
  const std::vector<uint16_t> narrow =
      RunFloat16(g2, g2.Op("Cast", {twice}, {TensorType(DType::kFloat16, {n})}));
  ASSERT_EQ(static_cast<int64_t>(narrow.size()), n);
  mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    // The constant holds the float through double (a signalling NaN quieted).
    const uint16_t want = FloatToHalf(static_cast<float>(static_cast<double>(floats[i])));
    if (narrow[i] != want) ++mismatches;
  }
  EXPECT_EQ(mismatches, 0);
}

// Runs Quantize(Neg(x)) to `qt` (and its Dequantize when `and_back`) on one
// thread; the stored values must be what Tensor::SetReal stores for each
// -float(x[i]). Returns the run's outputs (empty on failure).
std::vector<Tensor> QuantizeLikeSetReal(const std::vector<double>& x, const TensorType& qt,
                                        bool and_back) {
  const Dims d = qt.dims;
  GraphBuilder g;
  ValueRef q = g.Op("Quantize", {g.Op("Neg", {g.F32(d, x)})}, {qt});
  g.Output(q);
  if (and_back) g.Output(g.Op("Dequantize", {q}, {TensorType(DType::kFloat32, d)}));
  ExecuteOptions options;
  options.threads = 1;
  auto r = Execute(g.graph(), {}, options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return {};
  Tensor want(qt);
  for (int64_t i = 0; i < Count(d); ++i) {
    want.SetReal(i, static_cast<double>(-static_cast<float>(x[static_cast<size_t>(i)])));
  }
  int mismatches = 0;
  for (int64_t i = 0; i < Count(d); ++i) {
    if ((*r)[0].GetValue(i) != want.GetValue(i) && ++mismatches <= 3) {
      ADD_FAILURE() << "element " << i << " (" << -static_cast<float>(x[static_cast<size_t>(i)])
                    << " / " << qt.StepsizeAt(0) << "): stored " << (*r)[0].GetValue(i)
                    << ", SetReal stores " << want.GetValue(i);
    }
  }
  EXPECT_EQ(mismatches, 0);
  return *std::move(r);
}

// Quantize and Dequantize loop over typed storage; each element must be what
// Tensor::SetReal / GetReal give it (per-tensor, per-axis on the last and on a
// leading axis, every quantized dtype), for random values, NaN, infinities,
// exact halfway quotients and values far out of range.
TEST(QuantizePaths, QuantizeAndDequantizeMatchSetRealAndGetReal) {
  std::mt19937 rng(16);
  const Dims d = {3, 4, 6};
  std::vector<double> x = RandomFloats(Count(d), rng);
  for (size_t i = 0; i < x.size(); i += 5) x[i] = 0.25 * static_cast<double>(i % 41) - 5.0;
  auto per_axis = [&](int axis, int32_t z) {
    auto q = std::make_shared<AxisQuantization>();
    q->axis = axis;
    for (int64_t c = 0; c < d[axis]; ++c) {
      q->stepsizes.push_back(0.25f * static_cast<float>(c + 1));
      q->zero_offsets.push_back(z + static_cast<int32_t>(c));
    }
    return q;
  };
  for (DType dt :
       {DType::kQUInt8, DType::kQInt8, DType::kQUInt16, DType::kQInt16, DType::kQInt32}) {
    const int32_t z = dt == DType::kQUInt8 || dt == DType::kQUInt16 ? 7 : -3;
    std::vector<TensorType> types = {TensorType(dt, d, z, 0.5f), TensorType(dt, d, z, 0.5f),
                                     TensorType(dt, d, z, 0.5f)};
    types[1].per_axis = per_axis(2, z);
    types[2].per_axis = per_axis(0, z);
    for (const TensorType& qt : types) {
      SCOPED_TRACE(qt.ToString());
      const std::vector<Tensor> r = QuantizeLikeSetReal(x, qt, /*and_back=*/true);
      ASSERT_EQ(r.size(), 2u);
      int mismatches = 0;
      for (int64_t i = 0; i < Count(d); ++i) {
        const float f = static_cast<float>(r[0].GetReal(i));
        if (!SameFloat(static_cast<float>(r[1].GetReal(i)), f)) ++mismatches;
      }
      EXPECT_EQ(mismatches, 0);
    }
  }
}

// Values next to a halfway quotient (k + 1/2) * step quantize as SetReal
// stores them (the quotient in float, halves to even): with random steps,
// about 3 % of such floats round the other way when the quotient is
// computed any other way (by the reciprocal, in double). Each sits among
// 1024 random values, so that a kernel that quantizes in blocks and redoes
// the blocks near a tie another way would show a missed one. Also: values
// that saturate, and steps whose reciprocal is not a normal float.
TEST(QuantizePaths, NearHalfwayValuesRoundLikeSetReal) {
  std::mt19937 rng(23);
  std::vector<float> steps = {0.1f, 1.0f / 3.0f, 7.0f, 1e-39f, 3e38f};
  std::uniform_real_distribution<float> log2_step(-12.0f, 2.0f);
  for (int i = 0; i < 4; ++i) steps.push_back(std::exp2(log2_step(rng)));
  std::uniform_real_distribution<float> u(-120.0f, 120.0f);
  for (float step : steps) {
    std::vector<double> x;
    for (int k = -25; k <= 25; ++k) {
      const float tie = (static_cast<float>(k) + 0.5f) * step;
      float below = tie, above = tie;
      for (int j = 0; j < 3; ++j) {
        for (float v : {below, above}) {
          x.push_back(v);
          for (int r = 0; r < 1024; ++r) x.push_back(u(rng) * step);
        }
        below = std::nextafter(below, -INFINITY);
        above = std::nextafter(above, INFINITY);
      }
    }
    for (double v : {1e30, -1e30, 70000.0 * step, -70000.0 * step}) x.push_back(v);
    const Dims d = {static_cast<int64_t>(x.size())};
    for (DType dt : {DType::kQUInt8, DType::kQInt16}) {
      const TensorType qt(dt, d, dt == DType::kQUInt8 ? 128 : 0, step);
      SCOPED_TRACE(qt.ToString());
      QuantizeLikeSetReal(x, qt, /*and_back=*/false);
    }
  }
}

// Cast between every pair of dtypes stores what Tensor::GetValue and
// SetValue give element by element (its definition): floats to integers
// truncated, then rounded and saturated; anything to Bool "not zero"; NaN,
// infinities, halfway values and values out of every range included.
// Transpose moves stored elements: for every permutation of a rank-4
// tensor whose dims cross the 32-element tiles of the NCHW <-> NHWC path
// (and are not multiples of them), every element lands where the index
// formula says, for 1-, 2-, 4- and 8-byte dtypes and 1 and 2 threads.
void CheckEveryPermutation(const Dims& dims) {
  const int64_t n = Count(dims);
  std::vector<double> values(n);
  for (int64_t i = 0; i < n; ++i) values[i] = static_cast<double>(i % 97);
  std::vector<int64_t> perm = {0, 1, 2, 3};
  do {
    Dims od(4);
    for (int d = 0; d < 4; ++d) od[d] = dims[perm[d]];
    for (DType dt : {DType::kQUInt8, DType::kFloat16, DType::kFloat32, DType::kInt64}) {
      for (int threads : {1, 2}) {
        SCOPED_TRACE(absl::StrCat(perm[0], perm[1], perm[2], perm[3], " ",
                                  std::string(DTypeName(dt)), " ", threads, " threads"));
        GraphBuilder g;
        ValueRef x = g.Const(TensorType(dt, dims), values);
        std::vector<double> p(perm.begin(), perm.end());
        ValueRef t = g.Op("Transpose", {x, g.Ints(p)});
        g.Output(t);
        ExecuteOptions options;
        options.threads = threads;
        auto r = Execute(g.graph(), {}, options);
        ASSERT_TRUE(r.ok()) << r.status();
        int mismatches = 0;
        for (int64_t i = 0; i < n; ++i) {
          // Output index i as (o0, o1, o2, o3), and the input index it reads.
          int64_t rest = i, in_index = 0;
          int64_t o[4];
          for (int d = 3; d >= 0; --d) {
            o[d] = rest % od[d];
            rest /= od[d];
          }
          int64_t idx[4];
          for (int d = 0; d < 4; ++d) idx[perm[d]] = o[d];
          for (int d = 0; d < 4; ++d) in_index = in_index * dims[d] + idx[d];
          if ((*r)[0].GetValue(i) != values[in_index] && ++mismatches <= 3) {
            ADD_FAILURE() << "output " << i << ": got " << (*r)[0].GetValue(i) << ", want "
                          << values[in_index];
          }
        }
      }
    }
  } while (std::next_permutation(perm.begin(), perm.end()));
}

TEST(TransposePaths, EveryPermutationPutsEveryElementInPlace) {
  // The second shape has an axis of size 1, which the kernel drops before
  // merging the axes that stay consecutive.
  for (const Dims& dims : {Dims{2, 37, 33, 5}, Dims{37, 1, 33, 5}}) {
    CheckEveryPermutation(dims);
  }
}

TEST(CastPaths, EveryDtypePairMatchesGetValueAndSetValue) {
  std::mt19937 rng(18);
  std::vector<double> values = {0.0,   -0.0,   0.5,   -0.5,   1.5,   2.5,
                                -2.5,  127.5,  128.0, -129.0, 255.5, 256,
                                65535, -32769, 1e10,  -1e10,  3e38,  std::nan("")};
  std::uniform_real_distribution<double> wide(-70000.0, 70000.0);
  while (values.size() < 5000) values.push_back(std::round(wide(rng) * 4) / 4);
  values.push_back(std::numeric_limits<double>::infinity());
  values.push_back(-std::numeric_limits<double>::infinity());
  const int64_t n = static_cast<int64_t>(values.size());
  const std::vector<DType> dtypes = {
      DType::kFloat32, DType::kFloat16, DType::kInt32,   DType::kInt64,  DType::kBool,
      DType::kQUInt8,  DType::kQInt8,   DType::kQUInt16, DType::kQInt16, DType::kQInt32};
  for (DType from : dtypes) {
    // The input as `from` stores the values (Tensor::FromValues).
    const TensorType in_type(from, {n});
    const Tensor in = Tensor::FromValues(in_type, values);
    for (DType to : dtypes) {
      SCOPED_TRACE(std::string(DTypeName(from)) + " -> " + std::string(DTypeName(to)));
      GraphBuilder g;
      ValueRef src = {g.graph().AddConstant("in", std::make_shared<Tensor>(in)), 0};
      ValueRef cast = g.Op("Cast", {src}, {TensorType(to, {n})});
      g.Output(cast);
      ExecuteOptions options;
      options.threads = 2;
      auto r = Execute(g.graph(), {}, options);
      ASSERT_TRUE(r.ok()) << r.status();
      Tensor want{TensorType(to, {n})};
      const bool truncate = IsFloat(from) && !IsFloat(to) && to != DType::kBool;
      for (int64_t i = 0; i < n; ++i) {
        const double v = in.GetValue(i);
        want.SetValue(i, truncate ? std::trunc(v) : v);
      }
      EXPECT_TRUE((*r)[0] == want);
    }
  }
}

// The streaming kernels split their loops over the threads (ParallelFor) once
// a tensor has 2 * 32768 elements; every thread count gives the same bytes
// as one thread.
TEST(ThreadedPaths, EveryThreadCountGivesTheSameBits) {
  std::mt19937 rng(17);
  const Dims d = {1, 48, 40, 72};  // 138,240 elements: split in two and more
  const std::vector<double> x = RandomFloats(Count(d), rng);
  std::vector<double> ch = RandomFloats(72, rng);
  GraphBuilder g;
  ValueRef in = g.F32(d, x);
  ValueRef relu = g.Op("Relu", {g.Op("Neg", {in})});
  ValueRef sum = g.Op("ElementWiseAdd", {relu, g.F32({72}, ch)});
  ValueRef bn = g.Op("Batchnorm", {sum, g.F32({72}, ch), g.F32({72}, ch)});
  ValueRef tr = g.Op("Transpose", {bn, g.Ints({0, 3, 1, 2})});
  ValueRef half = g.Op("Cast", {tr}, {TensorType(DType::kFloat16, {1, 72, 48, 40})});
  ValueRef sig = g.Op("Sigmoid", {half});
  ValueRef q = g.Op("Quantize", {sum}, {TensorType(DType::kQUInt8, d, 128, 0.05f)});
  ValueRef dq = g.Op("Dequantize", {q}, {TensorType(DType::kFloat32, d)});
  for (ValueRef v : {tr, sig, q, dq}) g.Output(v);
  std::vector<std::vector<Tensor>> runs;
  for (int threads : {1, 2, 3}) {
    ExecuteOptions options;
    options.threads = threads;
    auto r = Execute(g.graph(), {}, options);
    ASSERT_TRUE(r.ok()) << r.status();
    runs.push_back(*std::move(r));
  }
  for (size_t k = 1; k < runs.size(); ++k) {
    ASSERT_EQ(runs[k].size(), runs[0].size());
    for (size_t o = 0; o < runs[0].size(); ++o) {
      EXPECT_TRUE(runs[k][o] == runs[0][o]) << "output " << o << " with " << k + 1 << " threads";
    }
  }
}

}  // namespace
}  // namespace egret
