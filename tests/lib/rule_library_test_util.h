// What the rule library tests (tests/lib/rule_library*_test.cc) share: the
// shipped library, optimizing with it and verifying the result, and a ramp
// of values and a 3x3 convolution to build graphs from.
#ifndef EGRET_TESTS_LIB_RULE_LIBRARY_TEST_UTIL_H_
#define EGRET_TESTS_LIB_RULE_LIBRARY_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "egret/pipeline/optimize.h"
#include "tests/graph/graph_builder.h"
#include "tests/lib/shipped_library.h"

namespace egret {

using testing::GraphBuilder;

inline const rules::RuleSet& Library() { return testing::ShippedLibrary(); }

using testing::CountOp;

// Optimizes `g` with the library and checks what must hold for every rule
// (testing::OptimizeWithLibrary).
inline Graph OptimizeAndVerify(const Graph& g) {
  return std::move(testing::OptimizeWithLibrary(g, 7, {.rtol = 1e-4, .atol = 1e-5}).graph);
}

inline std::vector<double> Ramp(int n, double from, double step) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = from + step * i;
  return v;
}

// A 3x3 convolution of an [1,6,6,4] input to 8 channels, with or without
// dilation (6 or 5 inputs).
inline ValueRef Conv(GraphBuilder& b, ValueRef in, const std::string& op, bool dilation) {
  const int cout = 8, fcin = op == "DepthWiseConv2d" ? 1 : 4;
  ValueRef f = b.F32({3, 3, fcin, cout}, Ramp(9 * fcin * cout, -0.5, 0.01));
  ValueRef bias = b.F32({cout}, Ramp(cout, -0.2, 0.05));
  std::vector<ValueRef> ins = {in, f, bias, b.Shape({1, 1, 1, 1}), b.Shape({1, 1, 1, 1})};
  if (dilation) ins.push_back(b.Shape({1, 1, 1, 1}));
  return b.Op(op, ins);
}

}  // namespace egret

#endif  // EGRET_TESTS_LIB_RULE_LIBRARY_TEST_UTIL_H_
