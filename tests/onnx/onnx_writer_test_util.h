// What the ONNX writer tests (tests/onnx/onnx_writer*_test.cc) share: source
// paths, parsing written bytes, the node-for-node and same-values comparisons
// of a graph with its read-back ONNX form, and the written model of a JSON
// test graph.
#ifndef EGRET_TESTS_ONNX_ONNX_WRITER_TEST_UTIL_H_
#define EGRET_TESTS_ONNX_ONNX_WRITER_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/io/graph_io.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/support/file_io.h"
#include "onnx/onnx_pb.h"

namespace egret {

using ::testing::HasSubstr;

inline std::string Src(const std::string& rel) { return absl::StrCat(EGRET_SOURCE_DIR, "/", rel); }

inline onnx::ModelProto Parse(const std::string& bytes) {
  onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

// Node for node: every named node of `a` has a node of the same name in `b`
// with the same op, attributes, output types (quantization included),
// constant data, provenance and inputs (by producer name and output; an
// unnamed producer, such as a "$Shape" in the examples, by its op and type),
// and `b` has as many unnamed nodes; the same graph inputs and outputs in
// order. Node ids may differ.
inline void ExpectSameGraph(const Graph& a, const Graph& b) {
  EXPECT_EQ(a.name(), b.name());
  EXPECT_TRUE(a.options() == b.options());
  auto by_name = [](const Graph& g, int* unnamed) {
    std::map<std::string, NodeId> m;
    for (NodeId id = 0; id < g.num_nodes(); ++id) {
      if (g.node(id).name.empty()) {
        ++*unnamed;
        continue;
      }
      EXPECT_TRUE(m.emplace(g.node(id).name, id).second) << g.node(id).name;
    }
    return m;
  };
  auto ref = [](const Graph& g, ValueRef v) {
    const Node& p = g.node(v.node);
    if (!p.name.empty()) return absl::StrCat(p.name, ":", v.output);
    std::string s = absl::StrCat("(unnamed ", p.op, " ", p.outputs[v.output].ToString());
    if (p.constant) {
      for (int64_t e = 0; e < p.constant->num_elements(); ++e)
        absl::StrAppend(&s, " ", p.constant->GetValue(e));
    }
    return absl::StrCat(s, ")");
  };
  int ua = 0, ub = 0;
  const std::map<std::string, NodeId> na = by_name(a, &ua), nb = by_name(b, &ub);
  EXPECT_EQ(ua, ub) << "unnamed nodes";
  ASSERT_EQ(na.size(), nb.size());
  for (const auto& [name, ia] : na) {
    SCOPED_TRACE(name);
    auto it = nb.find(name);
    ASSERT_NE(it, nb.end());
    const Node& x = a.node(ia);
    const Node& y = b.node(it->second);
    EXPECT_EQ(x.op, y.op);
    EXPECT_TRUE(x.attrs == y.attrs);
    EXPECT_TRUE(x.provenance == y.provenance);
    ASSERT_EQ(x.outputs.size(), y.outputs.size());
    for (size_t k = 0; k < x.outputs.size(); ++k) {
      EXPECT_EQ(x.outputs[k], y.outputs[k])
          << x.outputs[k].ToString() << " vs " << y.outputs[k].ToString();
    }
    ASSERT_EQ(x.constant == nullptr, y.constant == nullptr);
    if (x.constant) {
      EXPECT_TRUE(*x.constant == *y.constant);
    }
    ASSERT_EQ(x.inputs.size(), y.inputs.size());
    for (size_t i = 0; i < x.inputs.size(); ++i) {
      EXPECT_EQ(ref(a, x.inputs[i]), ref(b, y.inputs[i])) << "input " << i;
    }
  }
  ASSERT_EQ(a.inputs().size(), b.inputs().size());
  for (size_t i = 0; i < a.inputs().size(); ++i) {
    EXPECT_EQ(a.node(a.inputs()[i]).name, b.node(b.inputs()[i]).name);
  }
  ASSERT_EQ(a.outputs().size(), b.outputs().size());
  for (size_t k = 0; k < a.outputs().size(); ++k) {
    EXPECT_EQ(a.outputs()[k].name, b.outputs()[k].name);
    EXPECT_EQ(ref(a, a.outputs()[k].value), ref(b, b.outputs()[k].value));
  }
}

// `back` (read from ONNX) computes what `g` computes on seeded inputs:
// float outputs to 1e-6, quantized outputs within one step (the plain import
// computes a quantized op as Dequantize -> float op -> Quantize).
inline void ExpectSameValues(const Graph& g, const std::string& path, const Graph& back) {
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(g, 7);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  // Feed the read-back graph the same stored numbers in its input types.
  std::vector<Tensor> back_inputs;
  for (size_t i = 0; i < inputs->size(); ++i) {
    const TensorType& t = back.node(back.inputs()[i]).outputs[0];
    std::vector<uint8_t> raw((*inputs)[i].bytes().begin(), (*inputs)[i].bytes().end());
    absl::StatusOr<Tensor> x = Tensor::FromBytes(t, raw);
    ASSERT_TRUE(x.ok()) << x.status();
    back_inputs.push_back(*x);
  }
  absl::StatusOr<ReferenceOutputs> ref = RunReference(g, path, *inputs);
  ASSERT_TRUE(ref.ok()) << ref.status();
  absl::StatusOr<ReferenceOutputs> got = RunReference(back, "out.onnx", back_inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t k = 0; k < ref->outputs.size(); ++k) {
    const Tensor& a = ref->outputs[k];
    const Tensor& b = got->outputs[k];
    ASSERT_EQ(a.num_elements(), b.num_elements());
    const double step = IsQuantized(a.type().dtype) ? a.type().stepsize : 0;
    double max_abs = 0;
    for (int64_t e = 0; e < a.num_elements(); ++e) {
      // The read-back output holds the same stored numbers; compare real values.
      const double av = a.GetReal(e);
      const double bv = IsQuantized(a.type().dtype)
                            ? a.type().stepsize * (b.GetValue(e) - a.type().zero_offset)
                            : b.GetReal(e);
      max_abs = std::max(max_abs, std::abs(av - bv));
    }
    EXPECT_LE(max_abs, step + 1e-6) << "output " << k;
    std::printf("round trip %s output %zu: max abs %g (step %g)\n", path.c_str(), k, max_abs, step);
  }
}

inline bool HasOp(const Graph& g, std::string_view op) {
  for (const Node& n : g.nodes()) {
    if (n.op == op) return true;
  }
  return false;
}

// The written model of the JSON graph at `rel`.
inline onnx::ModelProto Written(const std::string& rel, Graph* g) {
  absl::StatusOr<Graph> loaded = LoadGraph(Src(rel));
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  *g = *loaded;
  absl::StatusOr<std::string> bytes = WriteOnnxBytes(*g, "out.onnx");
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return Parse(bytes.ok() ? *bytes : "");
}

}  // namespace egret

#endif  // EGRET_TESTS_ONNX_ONNX_WRITER_TEST_UTIL_H_
