#include "cli/plugin_option.h"

#include <cstdio>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "egret/rules_compile/function_binding.h"
#include "egret/rules_compile/plugin_loader.h"

namespace egret::cli {

void AddPluginOption(CLI::App* cmd, std::vector<std::string>* paths) {
  cmd->add_option("--plugin", *paths,
                  "Load external functions for rules from a shared library built against "
                  "egret/rules_compile/plugin_abi.h (repeatable; docs/plugins.md)")
      ->allow_extra_args(false);
}

std::optional<RuleFunctions> LoadRuleFunctions(const std::vector<std::string>& paths) {
  RuleFunctions fns;
  for (const std::string& path : paths) {
    absl::StatusOr<rules::PluginInfo> info = rules::LoadPlugin(path, &fns.library, &fns.declared);
    if (!info.ok()) {
      std::fprintf(stderr, "%s\n", std::string(info.status().message()).c_str());
      return std::nullopt;
    }
  }
  return fns;
}

absl::StatusOr<rules::RuleSet> LoadRulesWith(const std::vector<std::string>& files,
                                             const rules::PreprocessOptions& options,
                                             const RuleFunctions& fns, DiagnosticList* diags,
                                             std::vector<rules::SkippedRule>* skipped) {
  std::vector<rules::RuleSource> sources;
  for (const std::string& f : files) sources.push_back(rules::RuleSource::File(f));
  absl::StatusOr<rules::RuleSet> set =
      rules::LoadRuleSources(sources, fns.declared, options, diags);
  if (!set.ok()) return set;
  std::vector<rules::SkippedRule> unbound = rules::RulesWithUnboundCalls(*set, fns.library);
  rules::WarnSkippedRules(unbound, diags);
  if (skipped != nullptr) *skipped = std::move(unbound);
  return set;
}

std::string MissingNamesText(const std::vector<std::string>& functions,
                             const std::vector<std::string>& cpp_names) {
  auto distinct = [](const std::vector<std::string>& names) {
    absl::flat_hash_set<std::string> seen;
    std::vector<std::string> out;
    for (const std::string& n : names) {
      if (seen.insert(n).second) out.push_back(n);
    }
    return absl::StrJoin(out, ", ");
  };
  std::string out;
  if (!functions.empty()) absl::StrAppend(&out, "no implementation of: ", distinct(functions));
  if (!cpp_names.empty()) {
    absl::StrAppend(&out, out.empty() ? "" : "; ", "C++ names: ", distinct(cpp_names));
  }
  return out;
}

std::string MissingNamesText(const std::vector<rules::SkippedRule>& skipped) {
  std::vector<std::string> functions, cpp_names;
  for (const rules::SkippedRule& r : skipped) {
    for (const rules::UnboundCall& c : r.calls) {
      (c.form == rules::ExprKind::kCppName ? cpp_names : functions).push_back(c.function);
    }
  }
  return MissingNamesText(functions, cpp_names);
}

}  // namespace egret::cli
