// "did you mean" for a mistyped subcommand or option: `egret optimise`
// suggests optimize, `egret optimize --out x` suggests --output.
#ifndef EGRET_CLI_DID_YOU_MEAN_H_
#define EGRET_CLI_DID_YOU_MEAN_H_

#include <string>
#include <string_view>
#include <vector>

#include "CLI/CLI.hpp"

namespace egret::cli {

// The closest of `candidates` to `word`: one that starts with it (at least
// three characters given), or one within edit distance max(1, |word| / 4)
// ignoring case; "" when none is close.
std::string ClosestName(std::string_view word, const std::vector<std::string>& candidates);

// For a parse error of `app` (the top-level app) whose message names
// arguments that were not expected, " (did you mean 'optimize'?)" for the
// first one with a close subcommand or option name of the subcommand being
// parsed; "" otherwise.
std::string DidYouMean(const CLI::App& app, const CLI::Error& error);

}  // namespace egret::cli

#endif  // EGRET_CLI_DID_YOU_MEAN_H_
