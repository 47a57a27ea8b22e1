// Test helper: egret's shipped rule library (rules/lib/), loaded once.
#ifndef EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_
#define EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_

#include <gtest/gtest.h>

#include <string>

#include "egret/rules/rule_set.h"

namespace egret::testing {

inline const rules::RuleSet& ShippedLibrary() {
  static const rules::RuleSet* const kSet = [] {
    DiagnosticList diags;
    absl::StatusOr<rules::RuleSet> set = rules::LoadRuleFiles(
        rules::ShippedRuleFiles(std::string(EGRET_SOURCE_DIR) + "/rules/lib"), {}, &diags);
    EXPECT_TRUE(set.ok()) << set.status();
    EXPECT_FALSE(diags.has_errors()) << diags.ToString();
    return new rules::RuleSet(set.ok() ? *std::move(set) : rules::RuleSet{});
  }();
  return *kSet;
}

}  // namespace egret::testing

#endif  // EGRET_TESTS_LIB_SHIPPED_LIBRARY_H_
