// Binary elementwise ops between Dequantize and Quantize nodes, as ONNX QDQ
// graphs import a residual Add: the op reads the quantized values through
// the Dequantize nodes and stores its float result through the Quantize
// (executor.cc, ReadsThroughDequantize), a chunk at a time. The bytes must
// be exactly those of running the three nodes apart: each operand
// dequantized to float (what a Dequantize stores), the op in float, the
// result quantized as Tensor::SetReal does.
// GCC 12 reports a false "maybe uninitialized" inside absl::InlinedVector's
// move when TensorType{dtype, Dims{...}} temporaries are inlined (as in
// dnnl_kernels_test.cc).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/graph/tensor.h"
#include "tests/graph/graph_builder.h"

namespace egret {
namespace {

using testing::GraphBuilder;
using testing::RandomStorage;

struct BinaryOp {
  std::string name;
  std::function<float(float, float)> f;
};

std::vector<BinaryOp> Ops() {
  return {{"ElementWiseAdd", [](float x, float y) { return x + y; }},
          {"ElementWiseSubtract", [](float x, float y) { return x - y; }},
          {"ElementWiseMultiply", [](float x, float y) { return x * y; }},
          {"ElementWiseMaximum", [](float x, float y) { return x > y ? x : y; }},
          {"ElementWiseMinimum", [](float x, float y) { return x < y ? x : y; }}};
}

// What a Dequantize to Float32 stores for element i.
float Dequantized(const Tensor& t, int64_t i) { return static_cast<float>(t.GetReal(i)); }

struct Case {
  Dims a_dims, b_dims;
  bool quantize_out = true;  // else the op's Float32 result is the output
  int threads = 1;
};

// Runs [Quantize](op(Dequantize(a), Dequantize(b))) and checks it against
// the nodes computed apart, element by element, and that only the op ran.
void Check(const BinaryOp& op, const Case& k, std::mt19937& rng) {
  SCOPED_TRACE(op.name + (k.quantize_out ? " quantized" : " float") + " on " +
               std::to_string(k.threads) + " threads, b " + std::to_string(k.b_dims.size()) + "-d");
  const TensorType at(DType::kQUInt8, k.a_dims, 131, 0.0173f);
  const TensorType bt(DType::kQInt8, k.b_dims, -9, 0.0311f);
  const TensorType f32(DType::kFloat32, {});
  const TensorType qt(DType::kQUInt8, {}, 97, 0.0427f);
  GraphBuilder g;
  const std::vector<double> aq = RandomStorage(at, rng), bq = RandomStorage(bt, rng);
  const ValueRef a = g.Const(at, aq), b = g.Const(bt, bq);
  ValueRef r = g.Op(op.name, {g.Op("Dequantize", {a}, {f32}), g.Op("Dequantize", {b}, {f32})});
  if (k.quantize_out) r = g.Op("Quantize", {r}, {qt});
  g.Output(r);
  ExecuteOptions options;
  options.threads = k.threads;
  ExecuteStats stats;
  options.stats = &stats;
  auto got = Execute(g.graph(), {}, options);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(stats.nodes_run, 1);

  const Tensor ta = Tensor::FromValues(at, aq), tb = Tensor::FromValues(bt, bq);
  const Tensor& out = (*got)[0];
  Tensor want(out.type());
  const Dims& od = out.type().dims;
  int mismatches = 0;
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    // b broadcasts along every axis where it has size 1.
    int64_t bi = 0, stride = 1, bstride = 1;
    for (int d = static_cast<int>(od.size()) - 1; d >= 0; --d) {
      const int64_t coord = i / stride % od[d];
      if (k.b_dims[d] != 1) bi += coord * bstride;
      bstride *= k.b_dims[d];
      stride *= od[d];
    }
    const float v = op.f(Dequantized(ta, i), Dequantized(tb, bi));
    want.SetReal(i, static_cast<double>(v));
    if (out.GetValue(i) != want.GetValue(i) && ++mismatches <= 3) {
      ADD_FAILURE() << "element " << i << ": got " << out.GetValue(i) << ", apart "
                    << want.GetValue(i);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(QuantizedElementwise, ReadThroughDequantizeAndStoreThroughQuantize) {
  std::mt19937 rng(4);
  for (const BinaryOp& op : Ops()) {
    Check(op, {{1, 33, 35, 7}, {1, 33, 35, 7}, true, 1}, rng);
    Check(op, {{1, 33, 35, 7}, {1, 33, 35, 7}, false, 1}, rng);
    // Enough elements for two threads' chunks.
    Check(op, {{1, 64, 64, 20}, {1, 64, 64, 20}, true, 2}, rng);
    // A broadcast operand: the whole-tensor float path, still read through.
    Check(op, {{1, 9, 10, 20}, {1, 1, 1, 20}, true, 1}, rng);
  }
}

}  // namespace
}  // namespace egret
