// What the ONNX reader tests (tests/onnx/onnx_reader_*test.cc) share: op
// histograms, float test data, running an imported graph on the reference
// executor, and an NCHW convolution by its ONNX definition.
#ifndef EGRET_TESTS_ONNX_ONNX_READER_TEST_UTIL_H_
#define EGRET_TESTS_ONNX_ONNX_READER_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "egret/executor/executor.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"

namespace egret {

inline std::map<std::string, int> Histogram(const Graph& g) {
  std::map<std::string, int> h;
  for (const Node& n : g.nodes()) ++h[n.op];
  return h;
}

inline NodeId FindOp(const Graph& g, std::string_view op) {
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (g.node(id).op == op) return id;
  }
  return kNoNode;
}

inline std::vector<float> Iota(int64_t n, float scale = 0.1f, float offset = -1.0f) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = offset + scale * static_cast<float>(i % 23) + 0.01f * i;
  return v;
}

inline Tensor FloatTensor(Dims dims, const std::vector<float>& v) {
  Tensor t(TensorType(DType::kFloat32, std::move(dims)));
  for (size_t i = 0; i < v.size(); ++i) t.SetValue(static_cast<int64_t>(i), v[i]);
  return t;
}

inline std::vector<double> RunGraph(const Graph& g, const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = Execute(g, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  std::vector<double> v;
  if (!out.ok()) return v;
  for (int64_t i = 0; i < (*out)[0].num_elements(); ++i) v.push_back((*out)[0].GetReal(i));
  return v;
}

inline void ExpectNear(const std::vector<double>& a, const std::vector<double>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-4) << "element " << i;
}

// NCHW convolution, the ONNX definition, for checking the NHWC import.
inline std::vector<double> ConvNchw(const std::vector<float>& x, Dims xd,
                                    const std::vector<float>& w, Dims wd, int64_t group,
                                    int64_t pad, int64_t stride) {
  const int64_t n = xd[0], c = xd[1], h = xd[2], wi = xd[3];
  const int64_t co = wd[0], cg = wd[1], kh = wd[2], kw = wd[3];
  const int64_t oh = (h + 2 * pad - kh) / stride + 1, ow = (wi + 2 * pad - kw) / stride + 1;
  std::vector<double> out(n * co * oh * ow, 0.0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t o = 0; o < co; ++o)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xx = 0; xx < ow; ++xx) {
          double s = 0;
          const int64_t g = o / (co / group);
          for (int64_t k = 0; k < cg; ++k)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                int64_t iy = y * stride - pad + ky, ix = xx * stride - pad + kx;
                if (iy < 0 || ix < 0 || iy >= h || ix >= wi) continue;
                s += x[((b * c + g * cg + k) * h + iy) * wi + ix] *
                     w[((o * cg + k) * kh + ky) * kw + kx];
              }
          out[((b * co + o) * oh + y) * ow + xx] = s;
        }
  (void)c;
  return out;
}

inline Tensor TypedTensor(TensorType type, const std::vector<double>& v) {
  Tensor t(std::move(type));
  for (size_t i = 0; i < v.size(); ++i) t.SetValue(static_cast<int64_t>(i), v[i]);
  return t;
}

// Every output of g, as real values.
inline std::vector<std::vector<double>> RunOutputs(const Graph& g,
                                                   const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> out = Execute(g, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  std::vector<std::vector<double>> all;
  if (!out.ok()) return all;
  for (const Tensor& t : *out) {
    all.emplace_back();
    for (int64_t i = 0; i < t.num_elements(); ++i) all.back().push_back(t.GetReal(i));
  }
  return all;
}

}  // namespace egret

#endif  // EGRET_TESTS_ONNX_ONNX_READER_TEST_UTIL_H_
