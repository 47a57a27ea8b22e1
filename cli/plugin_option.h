// The --plugin option of every command that compiles rules (optimize, compare,
// rules check/list/dump): function plugins (egret/rules_compile/plugin_abi.h,
// docs/plugins.md) whose functions rules may call, loaded in order over the
// built-in functions.
#ifndef EGRET_CLI_PLUGIN_OPTION_H_
#define EGRET_CLI_PLUGIN_OPTION_H_

#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "egret/rules/external_functions.h"
#include "egret/rules/rule_set.h"
#include "egret/rules_compile/function_binding.h"
#include "egret/rules_compile/shape_functions.h"

namespace egret::cli {

// Adds `--plugin FILE` (repeatable) to `cmd`, stored in *paths.
void AddPluginOption(CLI::App* cmd, std::vector<std::string>* paths);

// The functions rules may call: the built-ins plus each plugin's, as
// implementations (`library`) and declarations for the checker (`declared`).
struct RuleFunctions {
  rules::FunctionLibrary library = rules::FunctionLibrary::WithBuiltins();
  rules::ExternalFunctionRegistry declared = rules::ExternalFunctionRegistry::WithBuiltins();
};

// Loads `paths` in order. On a bad plugin prints its one-line error
// ("<file>: error: ...") on stderr and returns nullopt (exit kExitBadInput).
std::optional<RuleFunctions> LoadRuleFunctions(const std::vector<std::string>& paths);

// Reads the rule files like rules::LoadRuleFiles, checking calls against
// `fns.declared`, then warns (in `diags`) about each rule that calls a
// function `fns.library` has no implementation of (rules/function_binding.h),
// which it lists in `skipped` (may be null).
absl::StatusOr<rules::RuleSet> LoadRulesWith(const std::vector<std::string>& files,
                                             const rules::PreprocessOptions& options,
                                             const RuleFunctions& fns, DiagnosticList* diags,
                                             std::vector<rules::SkippedRule>* skipped = nullptr);

// What skipped rules lack, for a summary line: "no implementation of: f, g;
// C++ names: X" lists the functions with no implementation apart from the C++
// names of constraints (rules/function_binding.h); a part with no names is
// left out ("C++ names: X"). Each list keeps the names' order, without repeats.
std::string MissingNamesText(const std::vector<std::string>& functions,
                             const std::vector<std::string>& cpp_names);
// The text for the unbound calls of `skipped`, in order of first appearance.
std::string MissingNamesText(const std::vector<rules::SkippedRule>& skipped);

}  // namespace egret::cli

#endif  // EGRET_CLI_PLUGIN_OPTION_H_
