// Test helpers: egret's shipped rule library (rules/lib/), loaded once, and
// what every test of it checks after optimizing with it.
#ifndef EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_
#define EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"
#include "egret/pipeline/optimize.h"
#include "egret/rules/rule_set.h"
#include "nlohmann/json.hpp"

namespace egret::testing {

inline const rules::RuleSet& ShippedLibrary() {
  static const rules::RuleSet* const kSet = [] {
    DiagnosticList diags;
    absl::StatusOr<rules::RuleSet> set = rules::LoadRuleFiles(
        rules::ShippedRuleFiles(std::string(EGRET_SOURCE_DIR) + "/egret/rules/lib"), {}, &diags);
    EXPECT_TRUE(set.ok()) << set.status();
    EXPECT_FALSE(diags.has_errors()) << diags.ToString();
    // No warning either: in particular no form beyond the HTP rule grammar
    // (docs/rule-language.md), which the HTP's own parser may reject.
    EXPECT_EQ(diags.warning_count(), 0) << diags.ToString();
    return new rules::RuleSet(set.ok() ? *std::move(set) : rules::RuleSet{});
  }();
  return *kSet;
}

// Checks on the reference executor (backend/verify.h) that `output` computes
// `input`'s outputs on random inputs made from `seed`, within `options`.
inline void ExpectSameOutputs(const Graph& input, const Graph& output, uint64_t seed,
                              const VerifyOptions& options) {
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(input, seed);
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<VerifyReport> report =
      VerifyGraphs(input, "input", output, "optimized", *inputs, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(report->ok()) << report->ToString();
}

// The number of nodes of `op` in `g`.
inline int CountOp(const Graph& g, std::string_view op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

// The first node of `op` in `g`, or null.
inline const Node* FindOp(const Graph& g, std::string_view op) {
  for (const Node& node : g.nodes()) {
    if (node.op == op) return &node;
  }
  return nullptr;
}

// Optimizes `g` with the shipped library and checks what must hold for every
// rule: no rule issue, a cost not higher than the input's, and the same
// outputs on random inputs made from `seed`, within `options`.
inline OptimizeResult OptimizeWithLibrary(const Graph& g, uint64_t seed,
                                          const VerifyOptions& options) {
  DiagnosticList diags;
  absl::StatusOr<OptimizeResult> r = Optimize(g, ShippedLibrary(), {}, &diags);
  EXPECT_TRUE(r.ok()) << r.status();
  if (!r.ok()) return OptimizeResult();
  EXPECT_TRUE(r->rule_issues.empty()) << ToJson(*r)["rule_issues"].dump();
  EXPECT_LE(r->output_cost, r->input_cost);
  ExpectSameOutputs(g, r->graph, seed, options);
  return *std::move(r);
}

}  // namespace egret::testing

#endif  // EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_
