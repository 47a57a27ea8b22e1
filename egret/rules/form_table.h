// The rule language's forms, one row each: how a form is spelled, what
// operands it takes (its signature) and how the checker types it. The parser
// (parser_expressions.cc) reads spellings and signatures from here, the checker
// (checker.cc) the typing, the AST printer (ast.cc) the spelling and the
// signature; the grammar macros (IS_QUINT8, DIM_*, SAME_SHAPE, ...) are rows
// of their own with the expansion the parser applies.
//
// A form's evaluation lives in the rules_compile stage, in rows keyed by the
// same ExprKind (form_evaluators_internal.h): how guard.cc computes a
// constraint form on e-class data and how replacement.cc builds a replacement
// form. The split follows the stages: this half (rules) is read by code that
// does not link the e-graph (the parser and checker, the rules fuzz target),
// the evaluator half needs the e-graph, so one row per form and stage.
// tests/rules/form_table_test.cc walks both halves and fails on a form without
// typing, without the evaluator or builder its category needs, or missing from
// docs/rule-language.md.
//
// Adding a constraint predicate: an ExprKind (ast.h), a row in
// forms_constraint.cc (spelling, signature, typing), a row in
// evaluators_constraint.cc (evaluator), a line in docs/rule-language.md.
#ifndef EGRET_RULES_FORM_TABLE_H_
#define EGRET_RULES_FORM_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "egret/graph/dtype.h"
#include "egret/rules/ast.h"

namespace egret::rules {

class Checker;  // checker_internal.h

// What a form's value is, which says where it may be written and which
// evaluator it needs (form_evaluators_internal.h).
enum class FormCategory : uint8_t {
  kConstraint,   // a scalar (bool, int, size, float, dtype): a guard scalar evaluator
  kReference,    // an existing node (a tag, INPUT_OF, OUTPUT_OF): a guard reference
                 // evaluator and a builder (it is also a replacement value)
  kSelect,       // SELECT: a scalar, a reference or a replacement value: all three
  kReplacement,  // a construction, only in replacements: a builder
};

// What an operand must be. The checker types the operand and, when its type
// is valid but not accepted, reports "the <ordinal> operand of <FORM> must be
// <what>, not <its type>" (checker.cc has the table of predicates and words).
enum class OperandRule : uint8_t {
  kAny,            // only typed
  kBool,           // a bool
  kNumber,         // int, size or float
  kInteger,        // int or size
  kNumberOrBool,   // UINT, FLOAT
  kScalar,         // int, size, float or bool (EXTERNAL_CONSTRAINT)
  kScalarOrDType,  // INT
  kDType,          // a dtype
  kZeroOffset,     // an integer, "(the zero offset)"
  kStepSize,       // a number, "(the step size)"
  kOperandRef,     // an operand reference
  kExistingRef,    // an existing operand reference (the same, worded for replacements)
  kValue,          // an operand or a construction (operands of Op, ...)
  kNonOpRef,       // kExistingRef, and an op construction gets "must not be an op construction"
  kNonOpShape,     // the same for an existing operand reference or a shape construction
  kLastOp,         // an op construction, named "the last operand" (modifiers)
};

// How a form's result type follows from its operands.
enum class ResultRule : uint8_t {
  kFixed,         // `type`, whatever the operands
  kFixedIfValid,  // `type` when every operand is accepted, else invalid
  kPromoted,      // the widest operand type (int < size < float) when every
                  // operand is accepted, else invalid
};

// Types a form whose typing is not only operand rules and a result rule (e.g.
// SELECT, AUTOSPLIT, the comparisons). It may call Checker::TypeByRow for the
// row's declarative part. `at_root`: the node is the replacement's root or a
// root SELECT's branch.
using CustomTyping = Type (*)(Checker& checker, Expr& e, bool at_root);

inline constexpr size_t kMaxOperandRules = 4;

struct FormTyping {
  ResultRule result = ResultRule::kFixed;
  Type type = Type::kInvalid;
  // Rules for the expression operands in order; the last one also covers any
  // further operands. None: operands are only typed.
  std::array<OperandRule, kMaxOperandRules> operands{};
  uint8_t num_operands = 0;
  // All operands are typed before any is held to its rule (else each operand
  // in turn): the order of the diagnostics when several operands are wrong.
  bool operands_first = false;
  CustomTyping custom = nullptr;  // when set, it types the form instead

  // The rule of expression operand `i`.
  OperandRule Operand(size_t i) const {
    if (num_operands == 0) return OperandRule::kAny;
    return operands[i < num_operands ? i : num_operands - 1];
  }
};

// Row builders: Returns(Type::kBool, {OperandRule::kOperandRef}), Promoted(...),
// Custom(fn) or Custom(fn, <declarative part fn uses>), OperandsFirst(...).
constexpr FormTyping Returns(Type t, std::initializer_list<OperandRule> ops = {},
                             ResultRule result = ResultRule::kFixed) {
  FormTyping f;
  f.result = result;
  f.type = t;
  for (OperandRule r : ops) f.operands[f.num_operands++] = r;
  return f;
}
constexpr FormTyping ReturnsIfValid(Type t, std::initializer_list<OperandRule> ops) {
  return Returns(t, ops, ResultRule::kFixedIfValid);
}
constexpr FormTyping Promoted(std::initializer_list<OperandRule> ops) {
  return Returns(Type::kInvalid, ops, ResultRule::kPromoted);
}
constexpr FormTyping Custom(CustomTyping fn, FormTyping base = {}) {
  base.custom = fn;
  return base;
}
constexpr FormTyping OperandsFirst(FormTyping base) {
  base.operands_first = true;
  return base;
}

// One form. `signature` lists its written operands, one letter each:
//   e  an expression (an Expr in `args`)
//   g  an operand tag (a string constant) as a kTag in `args`
//   s  an op name (a string constant) into `name`
//   o  an option name (a string constant) into `name`
//   t  a split tag (a string constant) into `split_tag`
//   n  a C identifier (a function or tensor class name) into `name`
//   i  an integer constant into `int_value`
// A '*' after a letter repeats it zero or more times. Literal forms (numbers,
// strings, DType::X, OK/true/false) have no signature and are not callable.
struct FormRow {
  ExprKind kind;
  std::string_view spelling;  // "DIM_OF", "Op", ...; literals: "int", "tag", ...
  FormCategory category;
  const char* signature;      // nullptr for a literal
  const char* alt_signature;  // another accepted operand list, or nullptr
  FormTyping typing;

  bool callable() const { return signature != nullptr; }
  // The signature that fits `count` written operands, or nullptr.
  const char* SignatureFor(size_t count) const;
};

// The row of a kind (every kind has one).
const FormRow& FormOf(ExprKind kind);
// The callable form spelled `spelling`, or nullptr.
const FormRow* FindForm(std::string_view spelling);
// Every row, in ExprKind order.
absl::Span<const FormRow* const> AllForms();

// Minimum and maximum (-1: unbounded) operand counts of a signature.
std::pair<size_t, int> SignatureArity(std::string_view signature);
bool SignatureFits(std::string_view signature, size_t count);
// "2 operands", "at least 1 operand", "2 or 3 operands" (`alt` may be null).
std::string SignatureArityText(const char* signature, const char* alt);
// The letter of written operand `i` of `count` under `signature` (which fits
// the count): the starred letter absorbs the surplus.
char SignatureLetter(std::string_view signature, size_t i, size_t count);

// --- grammar macros ------------------------------------------------------------

// The operands of a macro call, converted under its signature: expressions in
// `args`, the name and split tag operands in `name`, `split_tag`.
struct MacroCall {
  Origin origin;  // of the macro's name
  std::vector<ExprPtr> args;
  std::string name;
  std::string split_tag;
};

struct MacroRow;
// Builds the core-form tree of a call (its root gets Expr::macro).
using MacroExpansion = ExprPtr (*)(const MacroRow& row, MacroCall& call);

// A grammar macro: expanded by the parser into core forms (ast.h lists the
// expansions). `typing`, when set, types the expansion as a whole (the
// checker calls it at the root of the expansion instead of the root's row).
struct MacroRow {
  std::string_view spelling;
  const char* signature;  // letters as in FormRow
  MacroExpansion expand;
  DType dtype = DType::kUnknown;  // IS_<DTYPE>: the dtype compared with
  int dim = 0;                    // DIM_<NAME>: the dim read
  CustomTyping typing = nullptr;
};

// The macro spelled `spelling`, or nullptr.
const MacroRow* FindMacro(std::string_view spelling);
absl::Span<const MacroRow> AllMacros();

}  // namespace egret::rules

#endif  // EGRET_RULES_FORM_TABLE_H_
