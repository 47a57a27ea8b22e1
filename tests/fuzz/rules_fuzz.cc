// libFuzzer target for the rule front end: any bytes go through the
// preprocessor (with the prelude), then through the parser and checker. Nothing may crash, hang,
// leak or break the token-stream contract. Built and run by run_fuzz.cmake (clang only).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "egret/rules/rule_set.h"
#include "egret/rules_pp/preprocessor.h"
#include "fuzz_util.h"

using egret::fuzz::Check;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace egret::rules;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  PreprocessOptions options;
  options.follow_includes = false;
  options.max_tokens = size_t{1} << 16;
  options.defines = {"FUZZ=1"};
  egret::DiagnosticList diags;
  absl::StatusOr<PreprocessedFile> pp = PreprocessText(text, "fuzz.cc", options, &diags);
  Check(pp.ok(), "PreprocessText returned an error status");
  Check(!pp->tokens.empty(), "empty token stream");
  for (size_t i = 0; i + 1 < pp->tokens.size(); ++i) {
    const Token& t = pp->tokens[i];
    Check(t.kind != TokenKind::kEnd, "kEnd before the end");
    Check(!t.text.empty(), "empty token text");
    Check(!t.loc.file.empty(), "token without a file");
    Check(t.expanded_from.empty() == t.expansion_loc.file.empty(),
          "expanded_from and expansion_loc disagree");
  }
  Check(pp->tokens.back().kind == TokenKind::kEnd, "no kEnd at the end");
  for (const egret::Diagnostic& d : diags.all()) Check(!d.message.empty(), "empty diagnostic");
  (void)TokensToText(pp->tokens);
  egret::DiagnosticList diags2;
  RuleSet rules = LoadRuleText(text, "fuzz.cc", options, &diags2);
  (void)rules;
  return 0;
}
