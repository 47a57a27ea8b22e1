// The --flag option of the commands that optimize (`egret optimize`, `egret
// compare`) and of `egret rules check`: the switches that let gated rules run
// (rules/rule_flags.h: `--flag relaxed_precision` for rules flagged
// relaxed_precision_flag, `--flag fold_relu` for fold_relu_flag). Its help
// lists the known names, and an unknown name is an error listing them.
#ifndef EGRET_CLI_RULE_FLAGS_OPTION_H_
#define EGRET_CLI_RULE_FLAGS_OPTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"

namespace egret::cli {

// Adds the repeatable `--flag NAME` to `cmd`, stored in *names.
void AddRuleFlagsOption(CLI::App* cmd, std::vector<std::string>* names);

// The RuleFlag bits of `names`. Otherwise prints "egret COMMAND: error:
// --flag: unknown rule flag 'NAME' (known: relaxed_precision, fold_relu)" on
// stderr and returns nullopt (the caller exits with kExitBadInput).
std::optional<uint32_t> RuleFlagsOption(std::string_view command,
                                        const std::vector<std::string>& names);

}  // namespace egret::cli

#endif  // EGRET_CLI_RULE_FLAGS_OPTION_H_
