// The rule checker's state and the services the typing rows (forms_*.cc,
// form_table.h) use: typing an operand, holding it to an OperandRule,
// reporting errors, split-tag scopes and external functions. Internal to the
// rules stage; the entry point is CheckRule() in checker.h.
#ifndef EGRET_RULES_CHECKER_INTERNAL_H_
#define EGRET_RULES_CHECKER_INTERNAL_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "egret/rules/ast.h"
#include "egret/rules/external_functions.h"
#include "egret/rules/form_table.h"
#include "egret/support/diagnostic.h"

namespace egret::rules {

inline bool IsIntType(Type t) { return t == Type::kInt || t == Type::kSize; }
inline bool IsNumType(Type t) { return IsIntType(t) || t == Type::kFloat; }
// An operand or a construction: what a replacement may be.
inline bool IsReplacementType(Type t) {
  return t == Type::kOpRef || t == Type::kShape || t == Type::kNode || t == Type::kOp;
}
inline bool IsIntLiteral(const Expr& e) {
  return e.kind == ExprKind::kIntConst || e.kind == ExprKind::kSizeConst;
}
// The wider of two number types (int < size < float).
Type PromoteTypes(Type a, Type b);
// "an int", "an operand reference", ... as errors name a type.
std::string DescribeType(Type t);
// The form's name in messages: its spelling.
std::string FormName(const Expr& e);

class Checker {
 public:
  Checker(Rule& rule, const ExternalFunctionRegistry& externals, DiagnosticList* diags)
      : rule_(rule), ext_(externals), diags_(diags) {}

  // Checks the whole rule; true when no error was found.
  bool Run();

  // --- for typing rows ---
  // Types `e` (and its operands) and records the type in e.type.
  Type Check(Expr& e, bool at_root = false);
  // The declarative part of e's row: every operand typed and held to its
  // rule, in order, then the result rule.
  Type TypeByRow(Expr& e);
  // Types operand `i` of `e` and holds it to the row's rule for it; false when
  // the operand is invalid or not accepted. `type` receives its type.
  bool CheckOperand(Expr& e, size_t i, Type* type = nullptr);
  // Holds operand `i` of type `t` to `rule` (an error when `t` is valid and
  // not accepted); false when not accepted or invalid.
  bool Want(Expr& e, size_t i, Type t, OperandRule rule);
  void Error(const Expr& at, std::string message);
  void Warning(const Expr& at, std::string message);
  // SPLIT_* and other split references: size, or an error when no enclosing
  // AUTOSPLIT/OP_ITER has the tag.
  Type SplitRef(Expr& e);
  // An AUTOSPLIT/OP_ITER: its tag must not be used by another one.
  void DeclareSplit(Expr& e);
  // The scope of an AUTOSPLIT/OP_ITER body; LeaveSplit() says whether the
  // body used the tag.
  void EnterSplit(const std::string& tag) { scopes_.push_back({tag, false}); }
  bool LeaveSplit();
  // An external function call: when declared, with the declared arity
  // (`given` operands) unless it is an EXTERNAL_CONSTRAINT.
  void CheckExternal(Expr& e, size_t given);
  bool HasTag(const std::string& tag) const { return tags_.contains(tag); }
  bool in_constraint() const { return in_constraint_; }
  // Gives the C++ name `e` (ExprKind::kCppName) the type `want` of the place
  // it is used in when that is a scalar or dtype type (else leaves it a
  // bool); returns its type.
  Type AdoptCppName(Expr& e, Type want);

 private:
  struct Scope {
    std::string tag;
    bool used;
  };

  void Emit(Severity sev, const Origin& o, std::string msg);
  void CheckMatch();
  void CollectMatch(const MatchNode& m, absl::flat_hash_map<std::string, const MatchNode*>* lets);
  void FindInside(const MatchNode& m, const std::string& tag);
  Type CheckInner(Expr& e, bool at_root);

  Rule& rule_;
  const ExternalFunctionRegistry& ext_;
  DiagnosticList* diags_;
  bool ok_ = true;
  bool in_constraint_ = false;
  absl::flat_hash_set<std::string> tags_;
  absl::flat_hash_set<std::string> emitted_;
  absl::flat_hash_map<std::string, SourceLocation> split_tags_;
  std::vector<Scope> scopes_;
};

}  // namespace egret::rules

#endif  // EGRET_RULES_CHECKER_INTERNAL_H_
