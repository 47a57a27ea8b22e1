// The rule front end's top-level API: read rule files (op-package C++ sources
// or bare .rules files), preprocess, parse and check them.
#ifndef EGRET_RULES_RULE_SET_H_
#define EGRET_RULES_RULE_SET_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/rules/ast.h"
#include "egret/rules/external_functions.h"
#include "egret/rules/op_registry.h"
#include "egret/rules/parser.h"
#include "egret/rules/rule_source.h"
#include "egret/rules_pp/preprocessor.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

struct RuleSet {
  // Every rule that parsed, in file order (files in the order given), each
  // with its numeric priority. Rules with check errors are included (their
  // types may be kInvalid); `valid` says which passed the checker.
  std::vector<Rule> rules;
  std::vector<bool> valid;
  OpRegistry ops;
  std::vector<TensorProperties> tensor_properties;
  std::vector<ParamOrder> param_orders;
  // The functions declared to the loader (LoadRuleFiles, LoadRuleText: the
  // built-ins) plus every one declared by an EXTERNAL_SHAPEFN annotation.
  ExternalFunctionRegistry externals;
};

// Preprocesses and parses each source in order, then checks every rule
// against `externals` (what the caller declares: usually the built-ins plus
// the functions it implements) extended by the sources' EXTERNAL_SHAPEFN
// annotations. Diagnostics of every kind go to `diags`; the result holds
// whatever could be read. Fails (kNotFound / kResourceExhausted, message
// naming the file) only when a file cannot be read (a text source never
// fails); nothing is returned for the other sources then.
absl::StatusOr<RuleSet> LoadRuleSources(const std::vector<RuleSource>& sources,
                                        ExternalFunctionRegistry externals,
                                        const PreprocessOptions& options, DiagnosticList* diags);

// Preprocesses, parses and checks each file. Diagnostics of every kind go to
// `diags`; the result holds whatever could be read. Returns a non-OK status
// (kNotFound / kResourceExhausted, message naming the file) only when a file
// cannot be read; nothing is returned for the other files then.
absl::StatusOr<RuleSet> LoadRuleFiles(const std::vector<std::string>& paths,
                                      const PreprocessOptions& options, DiagnosticList* diags);

// The same for one text held in memory (named `filename` in diagnostics).
RuleSet LoadRuleText(std::string_view text, const std::string& filename,
                     const PreprocessOptions& options, DiagnosticList* diags);

// The files of egret's shipped rule library (rules/lib/, docs/rule-library.md)
// in `dir`, in load order: implementations first, then cleanup, algebra,
// fusion and tiling rules.
std::vector<std::string> ShippedRuleFiles(const std::string& dir);

}  // namespace egret::rules

#endif  // EGRET_RULES_RULE_SET_H_
