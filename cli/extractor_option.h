// The --extractor option of `egret extract` and `egret optimize`, derived from
// the extractor registry (extract/extractor_registry.h): its help lists every
// registered extractor with its description, and an unknown name is an error
// listing the registered names.
#ifndef EGRET_CLI_EXTRACTOR_OPTION_H_
#define EGRET_CLI_EXTRACTOR_OPTION_H_

#include <string>
#include <string_view>

#include "CLI/CLI.hpp"
#include "egret/extract/extractor.h"

namespace egret::cli {

// Adds `--extractor NAME` to `cmd`, stored in *name, which it sets to the
// default extractor's name.
void AddExtractorOption(CLI::App* cmd, std::string* name);

// The registered extractor named `name`. Otherwise prints "egret COMMAND:
// error: --extractor: unknown extractor 'NAME' (expected tree, greedy, dag or
// ilp)" on stderr and returns null (the caller exits with kExitBadInput).
const extract::Extractor* ExtractorOption(std::string_view command, const std::string& name);

}  // namespace egret::cli

#endif  // EGRET_CLI_EXTRACTOR_OPTION_H_
