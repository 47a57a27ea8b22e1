#include "cli/extractor_option.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "egret/extract/extractor_registry.h"

namespace egret::cli {

void AddExtractorOption(CLI::App* cmd, std::string* name) {
  const extract::Extractor& fallback = extract::DefaultExtractor();
  *name = std::string(fallback.name);
  std::string help =
      absl::StrCat(extract::ExtractorNameList(), " (default ", std::string(fallback.name), ")");
  for (const extract::Extractor& e : extract::Extractors()) {
    absl::StrAppend(&help, "\n  ", std::string(e.name), ": ", std::string(e.description));
  }
  cmd->add_option("--extractor", *name, help);
}

const extract::Extractor* ExtractorOption(std::string_view command, const std::string& name) {
  absl::StatusOr<const extract::Extractor*> e = extract::LookupExtractor(name);
  if (!e.ok()) {
    std::fprintf(stderr, "egret %s: error: --extractor: %s\n", std::string(command).c_str(),
                 std::string(e.status().message()).c_str());
    return nullptr;
  }
  return *e;
}

}  // namespace egret::cli
