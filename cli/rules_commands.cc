// egret rules check|list|dump: read rule files (op-package sources or .rules
// files) through the rule front end and report on them.
//
//   egret rules check [-I DIR]... [-D NAME[=VALUE]]... [--no-prelude] [--plugin LIB]...
//                     [--flag NAME]... FILE...
//       diagnostics on stderr, then "N rules, M op implementations, E errors,
//       W warnings" on stdout, followed by ", S rules not run (no
//       implementation of: f, g)" when rules call external functions that are
//       neither built in nor in a --plugin (each such call is a warning), and
//       by ", K rules left out (they need --flag relaxed_precision)" when rules
//       are gated by a rule flag whose --flag was not given
//       (rules/rule_flags.h); exit 1 if any error, 2 if a file is unreadable,
//       a plugin bad or a --flag unknown.
//   egret rules list [options] FILE...
//       one row per rule: pass spec, priority, root op, file:line.
//   egret rules dump --json [options] FILE...
//       the typed syntax trees, op registry and records as JSON.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/plugin_option.h"
#include "cli/rule_flags_option.h"
#include "egret/cost/cost_expr.h"
#include "egret/graph/json_text.h"
#include "egret/rules/rule_flags.h"
#include "egret/rules/rule_set.h"
#include "egret/support/diagnostic.h"
#include "nlohmann/json.hpp"

namespace egret::cli {
namespace {

struct RulesArgs {
  std::vector<std::string> files;
  std::vector<std::string> include_dirs;
  std::vector<std::string> defines;
  std::vector<std::string> plugins;
  bool no_prelude = false;
  bool json = false;
  std::vector<std::string> flags;  // check only
};

void AddCommonOptions(CLI::App* cmd, RulesArgs* args) {
  cmd->add_option("FILE", args->files, "Rule files (op-package .cc/.h sources or .rules)")
      ->required();
  // One value per -I / -D (so that FILE... after them stays positional).
  cmd->add_option("-I", args->include_dirs, "Add a directory to the #include search path")
      ->allow_extra_args(false);
  cmd->add_option("-D", args->defines, "Define a macro: NAME or NAME=VALUE")
      ->allow_extra_args(false);
  cmd->add_flag("--no-prelude", args->no_prelude, "Do not predefine egret's helper macros");
  AddPluginOption(cmd, &args->plugins);
}

// Loads the plugins and the files; prints the diagnostics on stderr. Returns
// the exit code for a bad plugin or a failure to read a file (2) through
// *exit, or the set; `skipped` (may be null) gets the rules that call a
// function with no implementation.
std::optional<rules::RuleSet> Load(const RulesArgs& args, DiagnosticList* diags, int* exit,
                                   std::vector<rules::SkippedRule>* skipped = nullptr) {
  std::optional<RuleFunctions> fns = LoadRuleFunctions(args.plugins);
  if (!fns) {
    *exit = kExitBadInput;
    return std::nullopt;
  }
  rules::PreprocessOptions options;
  options.include_dirs = args.include_dirs;
  options.defines = args.defines;
  options.use_prelude = !args.no_prelude;
  absl::StatusOr<rules::RuleSet> set = LoadRulesWith(args.files, options, *fns, diags, skipped);
  std::cerr << diags->ToString();
  if (!set.ok()) {
    std::cerr << set.status().message() << "\n";
    *exit = kExitBadInput;
    return std::nullopt;
  }
  *exit = diags->has_errors() ? kExitCheckFailed : kExitOk;
  return *std::move(set);
}

std::string RootOp(const rules::Rule& r) { return r.match.op; }

int RunCheck(const RulesArgs& args) {
  std::optional<uint32_t> flags = RuleFlagsOption("rules check", args.flags);
  if (!flags) return kExitBadInput;
  DiagnosticList diags;
  int exit = kExitOk;
  std::vector<rules::SkippedRule> skipped;
  std::optional<rules::RuleSet> set = Load(args, &diags, &exit, &skipped);
  if (!set) return exit;
  std::cout << absl::StrFormat("%d rules, %d op implementations, %d errors, %d warnings",
                               set->rules.size(), set->ops.size(), diags.error_count(),
                               diags.warning_count());
  if (!skipped.empty()) {
    std::cout << absl::StrFormat(", %d rule%s not run (%s)", skipped.size(),
                                 skipped.size() == 1 ? "" : "s", MissingNamesText(skipped));
  }
  if (const rules::LeftOutRules left = rules::RulesLeftOut(*set, *flags); left.count > 0) {
    std::cout << ", " << left.ToString();
  }
  std::cout << "\n";
  return exit;
}

int RunList(const RulesArgs& args) {
  DiagnosticList diags;
  int exit = kExitOk;
  std::optional<rules::RuleSet> set = Load(args, &diags, &exit);
  if (!set) return exit;
  size_t w_pass = 4, w_op = 7;
  for (const rules::Rule& r : set->rules) {
    w_pass = std::max(w_pass, r.PassSpec().size());
    w_op = std::max(w_op, RootOp(r).size());
  }
  std::cout << absl::StrFormat("%-*s  %8s  %-*s  %s\n", w_pass, "PASS", "PRIORITY", w_op, "ROOT_OP",
                               "LOCATION");
  for (const rules::Rule& r : set->rules) {
    std::cout << absl::StrFormat("%-*s  %8d  %-*s  %s:%d\n", w_pass, r.PassSpec(), r.priority, w_op,
                                 RootOp(r), r.loc().file, r.loc().line);
  }
  return exit;
}

int RunDump(const RulesArgs& args) {
  DiagnosticList diags;
  int exit = kExitOk;
  std::optional<rules::RuleSet> set = Load(args, &diags, &exit);
  if (!set) return exit;
  nlohmann::json out;
  out["rules"] = nlohmann::json::array();
  for (size_t i = 0; i < set->rules.size(); ++i) {
    nlohmann::json j = rules::ToJson(set->rules[i]);
    j["valid"] = static_cast<bool>(set->valid[i]);
    out["rules"].push_back(std::move(j));
  }
  out["ops"] = nlohmann::json::array();
  for (const rules::OpImplementation& op : set->ops.all()) {
    nlohmann::json j;
    j["op"] = op.op_name;
    j["impl"] = op.impl;
    j["form"] = op.form;
    j["cost"] = op.cost.ToString();
    if (std::optional<double> v = cost::EvaluateCost(op.cost)) j["cost_cycles"] = *v;
    j["flags"] = op.flags;
    j["loc"] = op.loc.ToString();
    out["ops"].push_back(std::move(j));
  }
  out["tensor_properties"] = nlohmann::json::array();
  for (const rules::TensorProperties& p : set->tensor_properties) {
    out["tensor_properties"].push_back({{"loc", p.loc.ToString()}, {"args", p.args}});
  }
  out["param_orders"] = nlohmann::json::array();
  for (const rules::ParamOrder& p : set->param_orders) {
    out["param_orders"].push_back({{"loc", p.loc.ToString()}, {"op", p.op_name}, {"args", p.args}});
  }
  out["external_functions"] = nlohmann::json::array();
  std::vector<const rules::ExternalFunction*> fns;
  for (const auto& [name, fn] : set->externals.all()) {
    if (!fn.builtin) fns.push_back(&fn);
  }
  std::sort(fns.begin(), fns.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (const rules::ExternalFunction* fn : fns) {
    out["external_functions"].push_back({{"name", fn->name},
                                         {"return_type", fn->return_type},
                                         {"params", fn->params},
                                         {"loc", fn->loc.ToString()}});
  }
  std::cout << DumpJson(out, 2) << "\n";
  return exit;
}

}  // namespace

void RegisterRulesCommands(CLI::App& app, int* exit_code) {
  CLI::App* rules = app.add_subcommand("rules", "Read, check and inspect optimization rule files");
  rules->require_subcommand(1);
  {
    auto args = std::make_shared<RulesArgs>();
    CLI::App* check = rules->add_subcommand(
        "check", "Preprocess, parse and check rule files; print diagnostics and a summary");
    AddCommonOptions(check, args.get());
    AddRuleFlagsOption(check, &args->flags);
    check->callback([args, exit_code] { *exit_code = RunCheck(*args); });
  }
  {
    auto args = std::make_shared<RulesArgs>();
    CLI::App* list =
        rules->add_subcommand("list", "Print one row per rule: pass, priority, root op, file:line");
    AddCommonOptions(list, args.get());
    list->callback([args, exit_code] { *exit_code = RunList(*args); });
  }
  {
    auto args = std::make_shared<RulesArgs>();
    CLI::App* dump = rules->add_subcommand("dump", "Print the typed rule syntax trees");
    AddCommonOptions(dump, args.get());
    dump->add_flag("--json", args->json, "JSON output (the only format)")->required();
    dump->callback([args, exit_code] { *exit_code = RunDump(*args); });
  }
}

}  // namespace egret::cli
