#include "egret/rules_compile/function_binding.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "egret/rules/parser.h"
#include "egret/rules_compile/compiler.h"

namespace egret::rules {
namespace {

bool Implemented(const FunctionLibrary& lib, ExprKind form, const std::string& name) {
  switch (form) {
    case ExprKind::kExternalConstraint:
      return lib.FindConstraint(name) != nullptr;
    case ExprKind::kShapeFnApply:
      return lib.FindShapeFn(name) != nullptr;
    case ExprKind::kAutoSplitShapeFnApply:
      return lib.FindAutoSplitShapeFn(name) != nullptr;
    case ExprKind::kExternalReplace:
      return lib.FindReplace(name) != nullptr;
    case ExprKind::kCppName:
      return false;  // a C++ value egret cannot compute
    default:
      return true;
  }
}

// The forms `name` is implemented for, e.g. "EXTERNAL_CONSTRAINT" ("" if none).
std::string ImplementedForms(const FunctionLibrary& lib, const std::string& name) {
  std::string out;
  for (ExprKind k : {ExprKind::kExternalConstraint, ExprKind::kShapeFnApply,
                     ExprKind::kAutoSplitShapeFnApply, ExprKind::kExternalReplace}) {
    if (Implemented(lib, k, name))
      absl::StrAppend(&out, out.empty() ? "" : ", ", std::string(ExprKindName(k)));
  }
  return out;
}

void Collect(const Expr& e, const FunctionLibrary& lib,
             absl::flat_hash_set<std::pair<std::string, ExprKind>>* seen,
             std::vector<UnboundCall>* out) {
  if (!Implemented(lib, e.kind, e.name) && seen->insert({e.name, e.kind}).second) {
    out->push_back(UnboundCall{e.name, e.kind, e.origin, ImplementedForms(lib, e.name)});
  }
  for (const ExprPtr& a : e.args) {
    if (a != nullptr) Collect(*a, lib, seen, out);
  }
}

}  // namespace

std::string UnboundCall::ToString() const {
  if (form == ExprKind::kCppName) {
    return absl::StrCat("C++ name '", function, "' (", origin.loc.ToString(), ")");
  }
  return absl::StrCat(std::string(ExprKindName(form)), " function '", function, "' (",
                      origin.loc.ToString(), ")");
}

std::string SkippedRule::Reason() const {
  std::string out = "no implementation of ";
  for (size_t i = 0; i < calls.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ", calls[i].ToString());
  }
  return out;
}

std::vector<UnboundCall> UnboundCalls(const Rule& rule, const FunctionLibrary& library) {
  absl::flat_hash_set<std::pair<std::string, ExprKind>> seen;
  std::vector<UnboundCall> out;
  if (rule.constraint != nullptr) Collect(*rule.constraint, library, &seen, &out);
  if (rule.replacement != nullptr) Collect(*rule.replacement, library, &seen, &out);
  return out;
}

std::vector<SkippedRule> RulesWithUnboundCalls(const RuleSet& set, const FunctionLibrary& library) {
  std::vector<SkippedRule> out;
  for (size_t i = 0; i < set.rules.size(); ++i) {
    if (i < set.valid.size() && !set.valid[i]) continue;
    std::vector<UnboundCall> calls = UnboundCalls(set.rules[i], library);
    if (calls.empty()) continue;
    out.push_back(SkippedRule{RuleLabel(set.rules[i]), set.rules[i].loc(), std::move(calls)});
  }
  return out;
}

void WarnSkippedRules(const std::vector<SkippedRule>& skipped, DiagnosticList* diags) {
  for (const SkippedRule& r : skipped) {
    for (const UnboundCall& c : r.calls) {
      if (c.form == ExprKind::kCppName) {
        diags->Add(DiagnosticAt(
            Severity::kWarning, c.origin,
            absl::StrCat("'", c.function, "' is a C++ name egret cannot evaluate: the rule ",
                         r.rule, " is kept but not run")));
        continue;
      }
      const std::string why =
          c.implemented_as.empty()
              ? "not built in, registered or loaded from a --plugin"
              : absl::StrCat("it is implemented for ", c.implemented_as, " only");
      diags->Add(DiagnosticAt(Severity::kWarning, c.origin,
                              absl::StrCat("external function '", c.function, "' has no ",
                                           std::string(ExprKindName(c.form)), " implementation (",
                                           why, "): the rule ", r.rule, " is kept but not run")));
    }
  }
}

}  // namespace egret::rules
