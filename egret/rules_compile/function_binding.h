// Binding a rule set's external-function calls (EXTERNAL_CONSTRAINT,
// SHAPEFN_APPLY, AUTOSPLIT_SHAPEFN_APPLY, EXTERNAL_REPLACE) to the
// implementations of a FunctionLibrary, as a linker binds symbols.
//
// A rule that calls a function the library has no implementation of (of the
// kind its form needs) cannot run. It is not an error: the rule is kept in the
// rule set, `egret rules check` reports it as a warning, and the compiler
// (compiler.h: CompileRules) leaves it out, listing it among the skipped
// rules. Loading an implementation (FunctionLibrary::Register*, a plugin:
// plugin_loader.h) makes it run.
//
// A C++ name in a constraint (ExprKind::kCppName: an identifier egret does
// not know, such as a flag the package's C++ defines) is treated the same
// way: an unbound call that no library implements.
#ifndef EGRET_RULES_COMPILE_FUNCTION_BINDING_H_
#define EGRET_RULES_COMPILE_FUNCTION_BINDING_H_

#include <string>
#include <vector>

#include "egret/rules/ast.h"
#include "egret/rules/rule_set.h"
#include "egret/rules_compile/shape_functions.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

// One call of a function with no implementation, or one C++ name
// (form kCppName, `function` the name).
struct UnboundCall {
  std::string function;
  ExprKind form = ExprKind::kShapeFnApply;  // the calling form
  Origin origin;                            // the first such call in the rule
  // The forms the library implements `function` for instead, e.g.
  // "EXTERNAL_CONSTRAINT"; empty when none.
  std::string implemented_as;

  // "SHAPEFN_APPLY function 'pad_total_for_qnn' (file:83:18)".
  std::string ToString() const;
};

// A rule left out because of its unbound calls.
struct SkippedRule {
  std::string rule;  // its label, "PASS@file:line"
  SourceLocation loc;
  std::vector<UnboundCall> calls;

  // "no implementation of SHAPEFN_APPLY function 'f' (file:83:18), ..." .
  std::string Reason() const;
};

// The calls of `rule` whose function `library` does not implement for the
// calling form; one per (function, form), at its first call, in rule order
// (constraint, then replacement).
std::vector<UnboundCall> UnboundCalls(const Rule& rule, const FunctionLibrary& library);

// Every valid rule of `set` with an unbound call, in file order.
std::vector<SkippedRule> RulesWithUnboundCalls(const RuleSet& set, const FunctionLibrary& library);

// One warning per unbound call of `skipped`, at the call: "external function
// 'f' has no SHAPEFN_APPLY implementation (...): the rule PASS@file:line is
// kept but not run", or for a C++ name "'X' is a C++ name egret cannot
// evaluate: the rule PASS@file:line is kept but not run".
void WarnSkippedRules(const std::vector<SkippedRule>& skipped, DiagnosticList* diags);

}  // namespace egret::rules

#endif  // EGRET_RULES_COMPILE_FUNCTION_BINDING_H_
