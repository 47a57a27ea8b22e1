#include "egret/rules/rule_set.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "egret/rules/checker.h"

namespace egret::rules {
namespace {

void AddParsed(PreprocessedFile pp, DiagnosticList* diags, RuleSet* set) {
  for (const auto& [loc, text] : pp.external_fn_annotations) {
    set->externals.AddAnnotation(loc, text, diags);
  }
  ParsedFile parsed = ParseRuleTokens(pp.tokens, diags);
  for (Rule& r : parsed.rules) set->rules.push_back(std::move(r));
  for (OpImplementation& op : parsed.ops) set->ops.Add(std::move(op));
  for (TensorProperties& p : parsed.tensor_properties) {
    set->tensor_properties.push_back(std::move(p));
  }
  for (ParamOrder& p : parsed.param_orders) set->param_orders.push_back(std::move(p));
}

// Checks every rule once all files (and so all annotations) are read.
void CheckAll(DiagnosticList* diags, RuleSet* set) {
  set->valid.assign(set->rules.size(), false);
  for (size_t i = 0; i < set->rules.size(); ++i) {
    set->valid[i] = CheckRule(set->rules[i], set->externals, diags);
  }
}

}  // namespace

absl::StatusOr<RuleSet> LoadRuleSources(const std::vector<RuleSource>& sources,
                                        ExternalFunctionRegistry externals,
                                        const PreprocessOptions& options, DiagnosticList* diags) {
  RuleSet set;
  set.externals = std::move(externals);
  // Files that include the same headers get the same header diagnostics
  // (a missing include inside an SDK header): each is reported once.
  absl::flat_hash_set<std::string> reported;
  for (const RuleSource& source : sources) {
    DiagnosticList file_diags;
    absl::StatusOr<PreprocessedFile> pp =
        source.text ? PreprocessText(*source.text, source.name, options, &file_diags)
                    : PreprocessFile(source.name, options, &file_diags);
    for (const Diagnostic& d : file_diags.all()) {
      if (reported.insert(d.ToString()).second) diags->Add(d);
    }
    if (!pp.ok()) return pp.status();
    AddParsed(*std::move(pp), diags, &set);
  }
  CheckAll(diags, &set);
  return set;
}

absl::StatusOr<RuleSet> LoadRuleFiles(const std::vector<std::string>& paths,
                                      const PreprocessOptions& options, DiagnosticList* diags) {
  std::vector<RuleSource> sources;
  for (const std::string& path : paths) sources.push_back(RuleSource::File(path));
  return LoadRuleSources(sources, ExternalFunctionRegistry::WithBuiltins(), options, diags);
}

RuleSet LoadRuleText(std::string_view text, const std::string& filename,
                     const PreprocessOptions& options, DiagnosticList* diags) {
  // Only a file can fail to load.
  return *LoadRuleSources({RuleSource::Text(filename, std::string(text))},
                          ExternalFunctionRegistry::WithBuiltins(), options, diags);
}

std::vector<std::string> ShippedRuleFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const char* f : {"hvx_ops.rules", "cleanup.rules", "algebra.rules", "fusion.rules",
                        "quantization.rules", "tiling.rules"}) {
    files.push_back(dir + "/" + f);
  }
  return files;
}

}  // namespace egret::rules
