// What the reference executor's kernel tests (tests/executor/kernels*_test.cc)
// share: running a GraphBuilder graph or a single op over constants, a
// float ramp, a 1e-5 matcher and a broadcasting binary op.
#ifndef EGRET_TESTS_EXECUTOR_KERNELS_TEST_UTIL_H_
#define EGRET_TESTS_EXECUTOR_KERNELS_TEST_UTIL_H_

// GCC's -O2 flow analysis reports a false "uninitialized" in
// absl::InlinedVector's move of an empty inline Dims (TensorType(t, {})).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "egret/executor/executor.h"
#include "tests/graph/graph_builder.h"

namespace egret {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using testing::GraphBuilder;
using ::testing::Pointwise;

inline std::vector<double> Iota(int n, double first = 1) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = first + i;
  return v;
}

// Runs b's graph (graph inputs become the given float32 values) and returns
// the real values of output `k`; *dims receives its dims.
inline std::vector<double> RunGraph(GraphBuilder& b,
                                    std::vector<std::vector<double>> input_values = {},
                                    Dims* dims = nullptr, size_t k = 0) {
  std::vector<Tensor> inputs;
  const Graph& g = b.graph();
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    Tensor t(g.node(g.inputs()[i]).outputs[0]);
    for (int64_t e = 0; e < t.num_elements(); ++e) t.SetReal(e, input_values.at(i).at(e));
    inputs.push_back(std::move(t));
  }
  auto out = Execute(g, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  const Tensor& t = out->at(k);
  if (dims) *dims = t.type().dims;
  std::vector<double> v;
  for (int64_t e = 0; e < t.num_elements(); ++e) v.push_back(t.GetReal(e));
  return v;
}

// A single-op graph over constant inputs; returns output 0.
inline std::vector<double> RunOp(GraphBuilder& b, ValueRef out, Dims* dims = nullptr) {
  b.Output(out);
  return RunGraph(b, {}, dims);
}

inline auto Near(const std::vector<double>& v) { return Pointwise(DoubleNear(1e-5), v); }

inline std::vector<double> BinaryOp(const std::string& op, Dims da, std::vector<double> a, Dims db,
                                    std::vector<double> bv, Dims* d = nullptr) {
  GraphBuilder b;
  auto y = b.Op(op, {b.F32(std::move(da), std::move(a)), b.F32(std::move(db), std::move(bv))});
  return RunOp(b, y, d);
}

}  // namespace egret

#endif  // EGRET_TESTS_EXECUTOR_KERNELS_TEST_UTIL_H_
