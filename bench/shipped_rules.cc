#include "bench/shipped_rules.h"

#include <cstdio>
#include <string>

namespace egret {

std::optional<rules::RuleSet> LoadShippedRules(std::string_view program) {
  DiagnosticList diags;
  absl::StatusOr<rules::RuleSet> lib = rules::LoadRuleFiles(
      rules::ShippedRuleFiles(std::string(EGRET_SOURCE_DIR) + "/egret/rules/lib"), {}, &diags);
  if (!lib.ok() || diags.has_errors()) {
    std::fprintf(stderr, "%s: error: the rule library does not load\n%s",
                 std::string(program).c_str(), diags.ToString().c_str());
    return std::nullopt;
  }
  return *std::move(lib);
}

}  // namespace egret
