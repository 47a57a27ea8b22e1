// What the ONNX Runtime contrib-op tests (tests/onnx/ort_contrib_*test.cc)
// share: a builder with the com.microsoft opset, a small ramp of weights, and
// CheckAgainstOrt, which imports a model (nothing may stay opaque) and
// compares egret's reference executor with ONNX Runtime on seeded random
// inputs, optionally after optimizing with the shipped rules.
#ifndef EGRET_TESTS_ONNX_ORT_CONTRIB_TEST_UTIL_H_
#define EGRET_TESTS_ONNX_ORT_CONTRIB_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/executor/test_data.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/pipeline/optimize.h"
#include "egret/support/file_io.h"
#include "tests/lib/shipped_library.h"
#include "tests/onnx/onnx_builder.h"
#include "tests/onnx/ort_oracle.h"

namespace egret {

namespace fs = std::filesystem;
using testing::CompareWithOrt;
using testing::OnnxBuilder;
using testing::OracleComparison;
using testing::OrtUnavailableReason;

inline constexpr char kMs[] = "com.microsoft";

// A builder with the com.microsoft opset imported.
inline OnnxBuilder MsBuilder(int opset = 17) {
  OnnxBuilder b(opset);
  b.Opset(kMs, 1);
  return b;
}

inline std::vector<float> Ramp(int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = scale * static_cast<float>((i * 7) % 13 - 6);
  return v;
}

// Imports `b`'s model, checks that every op was mapped, and compares every
// output of egret's run with ONNX Runtime's on random inputs, except those
// named in `given` (int32 values).
inline void CheckAgainstOrt(const std::string& name, const OnnxBuilder& b,
                            const std::map<std::string, std::vector<int32_t>>& given = {},
                            bool optimize = false, double tolerance = 1e-4) {
  SCOPED_TRACE(name);
  if (const std::string why = OrtUnavailableReason(); !why.empty()) GTEST_SKIP() << why;
  const fs::path dir = fs::path(::testing::TempDir()) / absl::StrCat("ort_contrib_", name);
  fs::create_directories(dir);
  const std::string model = (dir / "model.onnx").string();
  ASSERT_TRUE(WriteFileAtomically(model, b.Bytes()).ok());
  absl::StatusOr<Graph> g = ReadOnnx(model);
  ASSERT_TRUE(g.ok()) << g.status();
  for (const Node& n : g->nodes()) ASSERT_TRUE(IsKnownOp(n.op)) << name << ": " << n.op;
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(*g, /*seed=*/17);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  for (size_t i = 0; i < g->inputs().size(); ++i) {
    auto it = given.find(g->node(g->inputs()[i]).name);
    if (it == given.end()) continue;
    std::vector<double> v(it->second.begin(), it->second.end());
    (*inputs)[i] = Tensor::FromValues((*inputs)[i].type(), v);
  }
  std::vector<const Graph*> graphs = {&*g};
  absl::StatusOr<OptimizeResult> r;
  if (optimize) {  // and the graph optimized with the shipped rules
    DiagnosticList diags;
    r = Optimize(*g, testing::ShippedLibrary(), {}, &diags);
    ASSERT_TRUE(r.ok()) << r.status();
    graphs.push_back(&r->graph);
  }
  for (const Graph* graph : graphs) {
    absl::StatusOr<OracleComparison> c =
        CompareWithOrt(model, *graph, *inputs, {}, tolerance, tolerance);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->verified, c->outputs) << absl::StrJoin(c->not_verified, "; ");
    EXPECT_TRUE(c->mismatches.empty()) << name << ": " << absl::StrJoin(c->mismatches, "; ");
  }
  fs::remove_all(dir);
}

}  // namespace egret

#endif  // EGRET_TESTS_ONNX_ORT_CONTRIB_TEST_UTIL_H_
