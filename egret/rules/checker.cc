#include "egret/rules/checker.h"

#include <iterator>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "egret/rules/checker_internal.h"
#include "egret/rules/form_table.h"
#include "egret/rules/parser.h"

namespace egret::rules {
namespace {

std::string Ordinal(size_t i) {
  static const char* kNames[] = {"first", "second", "third", "fourth", "fifth"};
  return i < 5 ? kNames[i] : absl::StrCat("operand ", i + 1, " of the");
}

bool AnyType(Type) { return true; }
bool IsBoolType(Type t) { return t == Type::kBool; }
bool IsScalarType(Type t) { return IsNumType(t) || t == Type::kBool; }
bool IsScalarOrDType(Type t) { return IsScalarType(t) || t == Type::kDType; }
bool IsDTypeType(Type t) { return t == Type::kDType; }
bool IsOpRefType(Type t) { return t == Type::kOpRef; }
bool IsOpType(Type t) { return t == Type::kOp; }

struct OperandRuleSpec {
  OperandRule rule;
  bool (*accepts)(Type);
  const char* what;  // "the ... operand of X must be <what>, not ..."
};

// In the order of OperandRule.
constexpr OperandRuleSpec kOperandRules[] = {
    {OperandRule::kAny, AnyType, ""},
    {OperandRule::kBool, IsBoolType, "a bool"},
    {OperandRule::kNumber, IsNumType, "a number"},
    {OperandRule::kInteger, IsIntType, "an integer (int or size)"},
    {OperandRule::kNumberOrBool, IsScalarType, "a number or a bool"},
    {OperandRule::kScalar, IsScalarType, "a scalar (int, size, float or bool)"},
    {OperandRule::kScalarOrDType, IsScalarOrDType, "a number, a bool or a dtype"},
    {OperandRule::kDType, IsDTypeType, "a dtype"},
    {OperandRule::kZeroOffset, IsIntType, "an integer (the zero offset)"},
    {OperandRule::kStepSize, IsNumType, "a number (the step size)"},
    {OperandRule::kOperandRef, IsOpRefType, "an operand reference"},
    {OperandRule::kExistingRef, IsOpRefType, "an existing operand reference"},
    {OperandRule::kValue, IsReplacementType, "an operand or a construction"},
    {OperandRule::kNonOpRef, IsOpRefType, "an existing operand reference"},
    {OperandRule::kNonOpShape, IsReplacementType,
     "an existing operand reference or a shape construction"},
    {OperandRule::kLastOp, IsOpType, "an op construction"},
};

constexpr bool InOperandRuleOrder() {
  for (size_t i = 0; i < std::size(kOperandRules); ++i) {
    if (static_cast<size_t>(kOperandRules[i].rule) != i) return false;
  }
  return std::size(kOperandRules) == static_cast<size_t>(OperandRule::kLastOp) + 1;
}
static_assert(InOperandRuleOrder(), "kOperandRules must list every OperandRule in order");

const OperandRuleSpec& SpecOf(OperandRule r) { return kOperandRules[static_cast<size_t>(r)]; }

}  // namespace

Type PromoteTypes(Type a, Type b) {
  if (a == Type::kFloat || b == Type::kFloat) return Type::kFloat;
  if (a == Type::kSize || b == Type::kSize) return Type::kSize;
  return Type::kInt;
}

std::string DescribeType(Type t) {
  switch (t) {
    case Type::kOpRef:
      return "an operand reference";
    case Type::kShape:
      return "a shape construction";
    case Type::kNode:
      return "a constructed constant";
    case Type::kOp:
      return "an op construction";
    case Type::kBool:
      return "a bool";
    case Type::kInt:
      return "an int";
    case Type::kSize:
      return "a size";
    case Type::kFloat:
      return "a float";
    case Type::kDType:
      return "a dtype";
    case Type::kInvalid:
      break;
  }
  return "invalid";
}

std::string FormName(const Expr& e) { return std::string(ExprKindName(e.kind)); }

namespace {

const Expr* FindStar(const Expr& e) {
  if (e.kind == ExprKind::kTag) return e.name == "*" ? &e : nullptr;
  if (e.kind != ExprKind::kSelect) return nullptr;
  if (const Expr* s = FindStar(*e.args[1])) return s;
  return FindStar(*e.args[2]);
}

}  // namespace

bool Checker::Run() {
  CheckMatch();
  in_constraint_ = true;
  Type c = Check(*rule_.constraint, false);
  if (c != Type::kInvalid && c != Type::kBool) {
    Error(*rule_.constraint,
          absl::StrCat("the constraint must be a bool expression, not ", DescribeType(c)));
  }
  in_constraint_ = false;
  Expr& r = *rule_.replacement;
  Type t = Check(r, true);
  if (r.kind == ExprKind::kTag && r.name == "*") {
    Error(r, "the replacement may not be \"*\"");
  } else if (r.kind == ExprKind::kSelect) {
    if (const Expr* star = FindStar(r)) {
      Error(*star, "the replacement is a SELECT that can yield \"*\"");
    }
  }
  if (t != Type::kInvalid && !IsReplacementType(t)) {
    Error(r, absl::StrCat("the replacement must be an operand or a construction, not ",
                          DescribeType(t)));
  }
  return ok_;
}

void Checker::Emit(Severity sev, const Origin& o, std::string msg) {
  std::string key = absl::StrCat(o.loc.ToString(), "|", static_cast<int>(sev), "|", msg);
  if (!emitted_.insert(std::move(key)).second) return;
  if (sev == Severity::kError) ok_ = false;
  diags_->Add(DiagnosticAt(sev, o, std::move(msg)));
}

void Checker::Error(const Expr& at, std::string message) {
  Emit(Severity::kError, at.origin, std::move(message));
}

void Checker::Warning(const Expr& at, std::string message) {
  Emit(Severity::kWarning, at.origin, std::move(message));
}

// --- match ---

void Checker::CheckMatch() {
  absl::flat_hash_map<std::string, const MatchNode*> lets;
  CollectMatch(rule_.match, &lets);
  tags_.insert("*");
}

void Checker::CollectMatch(const MatchNode& m,
                           absl::flat_hash_map<std::string, const MatchNode*>* lets) {
  switch (m.kind) {
    case MatchKind::kTag:
      if (m.tag == "*") {
        Emit(Severity::kError, m.origin,
             "\"*\" names the root of the match and cannot be used as an operand tag in it");
      }
      tags_.insert(m.tag);
      return;
    case MatchKind::kLet: {
      if (m.tag == "*") {
        Emit(Severity::kError, m.origin,
             "\"*\" names the root of the match and cannot be bound by LET");
      }
      tags_.insert(m.tag);
      auto [it, fresh] = lets->emplace(m.tag, &m);
      if (!fresh) {
        Diagnostic d =
            DiagnosticAt(Severity::kError, m.origin,
                         absl::StrCat("tag \"", m.tag, "\" is already bound by another LET"));
        d.notes.emplace_back(it->second->loc(), "the other LET is here");
        ok_ = false;
        diags_->Add(std::move(d));
      }
      FindInside(m.operands[0], m.tag);
      CollectMatch(m.operands[0], lets);
      return;
    }
    case MatchKind::kOp:
    case MatchKind::kOpVarIn:
      for (const MatchNode& o : m.operands) CollectMatch(o, lets);
      return;
  }
}

// Reports uses of `tag` inside the operand of its own LET.
void Checker::FindInside(const MatchNode& m, const std::string& tag) {
  if ((m.kind == MatchKind::kTag || m.kind == MatchKind::kLet) && m.tag == tag) {
    Emit(Severity::kError, m.origin,
         absl::StrCat("tag \"", tag, "\" of a LET appears inside the LET's own operand"));
  }
  for (const MatchNode& o : m.operands) FindInside(o, tag);
}

// --- expressions ---

Type Checker::AdoptCppName(Expr& e, Type want) {
  if (e.type == Type::kInvalid) return e.type;
  if (IsNumType(want) || want == Type::kBool || want == Type::kDType) e.type = want;
  return e.type;
}

// A type a value of `rule` may have (the first it accepts), for a C++ name.
static Type ExampleType(OperandRule rule) {
  for (Type t : {Type::kBool, Type::kInt, Type::kFloat, Type::kDType}) {
    if (SpecOf(rule).accepts(t)) return t;
  }
  return Type::kInvalid;
}

bool Checker::Want(Expr& e, size_t i, Type t, OperandRule rule) {
  if (t == Type::kInvalid) return false;
  const OperandRuleSpec& spec = SpecOf(rule);
  if (e.args[i]->kind == ExprKind::kCppName && rule != OperandRule::kAny) {
    // A C++ name takes the type its place wants, when that is a value.
    Type want = ExampleType(rule);
    if (want == Type::kInvalid) {
      Error(*e.args[i], absl::StrCat("unknown name '", e.args[i]->name, "' (the ", Ordinal(i),
                                     " operand of ", FormName(e), " must be ", spec.what, ")"));
      return false;
    }
    t = AdoptCppName(*e.args[i], want);
  }
  if ((rule == OperandRule::kNonOpRef || rule == OperandRule::kNonOpShape) && t == Type::kOp) {
    Error(*e.args[i], absl::StrCat("the ", Ordinal(i), " operand of ", FormName(e),
                                   " must not be an op construction"));
    return false;
  }
  if (spec.accepts(t)) return true;
  Error(*e.args[i],
        absl::StrCat("the ", rule == OperandRule::kLastOp ? "last" : Ordinal(i), " operand of ",
                     FormName(e), " must be ", spec.what, ", not ", DescribeType(t)));
  return false;
}

bool Checker::CheckOperand(Expr& e, size_t i, Type* type) {
  Type t = Check(*e.args[i], false);
  if (type != nullptr) *type = t;
  return Want(e, i, t, FormOf(e.kind).typing.Operand(i));
}

Type Checker::TypeByRow(Expr& e) {
  const FormTyping& typing = FormOf(e.kind).typing;
  bool ok = true;
  Type promoted = Type::kInt;
  if (typing.operands_first) {
    absl::InlinedVector<Type, 4> types;
    for (const ExprPtr& a : e.args) types.push_back(Check(*a));
    for (size_t i = 0; i < e.args.size(); ++i) {
      ok &= Want(e, i, types[i], typing.Operand(i));
      if (ok) promoted = PromoteTypes(promoted, types[i]);
    }
  } else {
    for (size_t i = 0; i < e.args.size(); ++i) {
      Type t;
      ok &= CheckOperand(e, i, &t);
      if (ok) promoted = PromoteTypes(promoted, t);
    }
  }
  switch (typing.result) {
    case ResultRule::kFixed:
      return typing.type;
    case ResultRule::kFixedIfValid:
      return ok ? typing.type : Type::kInvalid;
    case ResultRule::kPromoted:
      return ok ? promoted : Type::kInvalid;
  }
  return Type::kInvalid;
}

Type Checker::SplitRef(Expr& e) {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    if (it->tag == e.split_tag) {
      it->used = true;
      return Type::kSize;
    }
  }
  Error(e, absl::StrCat(FormName(e), " with split tag \"", e.split_tag,
                        "\" must be inside the last operand of an AUTOSPLIT or OP_ITER with "
                        "that split tag"));
  return Type::kInvalid;
}

void Checker::DeclareSplit(Expr& e) {
  auto [it, fresh] = split_tags_.emplace(e.split_tag, e.origin.loc);
  if (!fresh) {
    Diagnostic d = DiagnosticAt(Severity::kError, e.origin,
                                absl::StrCat("split tag \"", e.split_tag,
                                             "\" is already used by another AUTOSPLIT or OP_ITER"));
    d.notes.emplace_back(it->second, "the other use is here");
    ok_ = false;
    diags_->Add(std::move(d));
  }
}

bool Checker::LeaveSplit() {
  const bool used = scopes_.back().used;
  scopes_.pop_back();
  return used;
}

void Checker::CheckExternal(Expr& e, size_t given) {
  const ExternalFunction* f = ext_.Find(e.name);
  // An undeclared function is not an error: whether an implementation is
  // loaded is for the binding to the function library (function_binding.h),
  // which keeps the rule and skips it when none is. Only declared functions
  // have a known arity.
  if (f == nullptr) return;
  if (e.kind != ExprKind::kExternalConstraint && !f->AcceptsArity(given)) {
    const bool one = f->RuleArity() == 1 && f->optional_operands == 0 && f->also_accepts.empty();
    Error(e, absl::StrCat("external function '", e.name, "' takes ", f->ArityText(), " operand",
                          one ? "" : "s", " in ", FormName(e), ", got ", given));
  }
}

Type Checker::Check(Expr& e, bool at_root) {
  e.type = CheckInner(e, at_root);
  return e.type;
}

Type Checker::CheckInner(Expr& e, bool at_root) {
  const FormRow& row = FormOf(e.kind);
  if (in_constraint_ && row.category == FormCategory::kReplacement) {
    Error(e,
          absl::StrCat(FormName(e), " is a replacement form and cannot be used in a constraint"));
    return Type::kInvalid;
  }
  if (!e.macro.empty()) {
    if (const MacroRow* m = FindMacro(e.macro); m != nullptr && m->typing != nullptr) {
      return m->typing(*this, e, at_root);
    }
  }
  if (row.typing.custom != nullptr) return row.typing.custom(*this, e, at_root);
  return TypeByRow(e);
}

bool CheckRule(Rule& rule, const ExternalFunctionRegistry& externals, DiagnosticList* diags) {
  if (!rule.constraint || !rule.replacement) return false;
  return Checker(rule, externals, diags).Run();
}

}  // namespace egret::rules
