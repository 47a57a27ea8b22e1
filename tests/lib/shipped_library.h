// Test helper: egret's shipped rule library (rules/lib/), loaded once.
#ifndef EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_
#define EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "egret/backend/test_data.h"
#include "egret/backend/verify.h"
#include "egret/rules/rule_set.h"

namespace egret::testing {

inline const rules::RuleSet& ShippedLibrary() {
  static const rules::RuleSet* const kSet = [] {
    DiagnosticList diags;
    absl::StatusOr<rules::RuleSet> set = rules::LoadRuleFiles(
        rules::ShippedRuleFiles(std::string(EGRET_SOURCE_DIR) + "/egret/rules/lib"), {}, &diags);
    EXPECT_TRUE(set.ok()) << set.status();
    EXPECT_FALSE(diags.has_errors()) << diags.ToString();
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

}  // namespace egret::testing

#endif  // EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_
