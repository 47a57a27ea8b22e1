#include "egret/rules/rule_set.h"

#include <utility>

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

absl::StatusOr<RuleSet> LoadRuleFiles(const std::vector<std::string>& paths,
                                      const PreprocessOptions& options, DiagnosticList* diags) {
  RuleSet set;
  set.externals = ExternalFunctionRegistry::WithBuiltins();
  for (const std::string& path : paths) {
    absl::StatusOr<PreprocessedFile> pp = PreprocessFile(path, options, diags);
    if (!pp.ok()) return pp.status();
    AddParsed(*std::move(pp), diags, &set);
  }
  CheckAll(diags, &set);
  return set;
}

RuleSet LoadRuleText(std::string_view text, const std::string& filename,
                     const PreprocessOptions& options, DiagnosticList* diags) {
  RuleSet set;
  set.externals = ExternalFunctionRegistry::WithBuiltins();
  absl::StatusOr<PreprocessedFile> pp = PreprocessText(text, filename, options, diags);
  if (pp.ok()) AddParsed(*std::move(pp), diags, &set);
  CheckAll(diags, &set);
  return set;
}

std::vector<std::string> ShippedRuleFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (const char* f :
       {"hvx_ops.rules", "cleanup.rules", "algebra.rules", "fusion.rules", "tiling.rules"}) {
    files.push_back(dir + "/" + f);
  }
  return files;
}

}  // namespace egret::rules
