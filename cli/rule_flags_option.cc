#include "cli/rule_flags_option.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "egret/rules/rule_flags.h"

namespace egret::cli {

void AddRuleFlagsOption(CLI::App* cmd, std::vector<std::string>* names) {
  std::string help =
      "Let the rules gated by a rule flag run (repeatable): " + rules::RunFlagNames();
  for (const rules::RunFlag& f : rules::RunFlags()) {
    absl::StrAppend(&help, "\n  ", std::string(f.name), ": rules flagged ",
                    std::string(f.rule_flag));
  }
  cmd->add_option("--flag", *names, help)->allow_extra_args(false);
}

std::optional<uint32_t> RuleFlagsOption(std::string_view command,
                                        const std::vector<std::string>& names) {
  absl::StatusOr<uint32_t> bits = rules::ParseRunFlags(names);
  if (!bits.ok()) {
    std::fprintf(stderr, "egret %s: error: --flag: %s\n", std::string(command).c_str(),
                 std::string(bits.status().message()).c_str());
    return std::nullopt;
  }
  return *bits;
}

}  // namespace egret::cli
