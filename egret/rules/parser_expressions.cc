// Constraints and replacements: a raw tree given its meaning as an
// expression (ast.h): constants, DType::<tag>, operand tags, C++ names, and
// calls of the forms and grammar macros of form_table.h, whose operands are
// read by the letters of the row's signature.
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/rules/number_literal.h"
#include "egret/rules/parser_internal.h"

namespace egret::rules::internal {

// --- constraints and replacements -----------------------------------------------------

ExprPtr Parser::MakeTag(const Raw& a) {
  ExprPtr e = NewExpr(ExprKind::kTag, OriginOf(Tok(a.tok)));
  e->name = a.text;
  return e;
}

bool Parser::OperandString(const Raw& a, const char* what, std::string* out) {
  if (a.kind != Raw::kString) {
    Error(a,
          absl::StrCat("expected ", what, " (a string constant), found '", Tok(a.tok).text, "'"));
    return false;
  }
  if (a.bad_string) return false;
  *out = a.text;
  return true;
}

ExprPtr Parser::Convert(const Raw& r) {
  const Origin origin = OriginOf(Tok(r.tok));
  switch (r.kind) {
    case Raw::kString: {
      if (r.bad_string) return nullptr;
      return MakeTag(r);
    }
    case Raw::kNumber: {
      NumberValue v = ParseNumber(r.text, r.negative);
      if (!v.error.empty()) {
        Error(r, v.error);
        return nullptr;
      }
      if (!v.warning.empty()) Warning(Tok(r.tok), v.warning);
      if (v.is_float) {
        ExprPtr e = NewExpr(ExprKind::kFloatConst, origin);
        e->float_value = v.f;
        return e;
      }
      ExprPtr e = NewExpr(v.is_size ? ExprKind::kSizeConst : ExprKind::kIntConst, origin);
      e->int_value = v.i;
      return e;
    }
    case Raw::kQualified: {
      if (r.scope != "DType") {
        Error(r, absl::StrCat("unknown name '", r.scope, "::", r.text,
                              "' (only DType::<tag> is "
                              "allowed)"));
        return nullptr;
      }
      std::optional<DType> dt = ParseDType(r.text);
      if (!dt) {
        Error(Tok(r.tok + 2), absl::StrCat("'", r.text, "' is not a tag of the DType enum"));
        return nullptr;
      }
      ExprPtr e = NewExpr(ExprKind::kDTypeConst, origin);
      e->dtype = *dt;
      return e;
    }
    case Raw::kIdent: {
      if (r.text == "OK" || r.text == "true" || r.text == "false") {
        ExprPtr e = NewExpr(ExprKind::kBoolConst, origin);
        e->int_value = r.text != "false";
        return e;
      }
      if (r.text == "INF" || r.text == "NEG_INF") {
        ExprPtr e = NewExpr(ExprKind::kFloatConst, origin);
        e->float_value = r.text == "INF" ? std::numeric_limits<double>::infinity()
                                         : -std::numeric_limits<double>::infinity();
        return e;
      }
      if (FindForm(r.text) != nullptr || FindMacro(r.text) != nullptr || r.text == "LET" ||
          r.text == "OpVarIn") {
        Error(r, absl::StrCat("'", r.text, "' needs operands in parentheses"));
        return nullptr;
      }
      // Any other identifier is a C++ name the package supplies: the checker
      // accepts it in a constraint (a rule egret keeps but cannot run) and
      // reports it elsewhere as an unknown name.
      CheckGrammarName(r.tok);
      ExprPtr e = NewExpr(ExprKind::kCppName, origin);
      e->name = r.text;
      return e;
    }
    case Raw::kCall:
      return ConvertCall(r);
  }
  return nullptr;
}

bool Parser::ConvertOperands(const Raw& r, std::string_view spec, Expr* e,
                             std::vector<ExprPtr>* children) {
  bool ok = true;
  const size_t n = r.args.size();
  for (size_t k = 0; k < n; ++k) {
    const Raw& a = r.args[k];
    switch (SignatureLetter(spec, k, n)) {
      case 'e': {
        ExprPtr c = Convert(a);
        ok &= c != nullptr;
        children->push_back(std::move(c));
        break;
      }
      case 'g': {
        std::string tag;
        if (OperandString(a, "an operand tag", &tag)) {
          children->push_back(MakeTag(a));
        } else {
          ok = false;
          children->push_back(nullptr);
        }
        break;
      }
      case 's':
        ok &= OperandString(a, "an op name", &e->name);
        break;
      case 'o':
        ok &= OperandString(a, "an option name", &e->name);
        break;
      case 't':
        ok &= OperandString(a, "a split tag", &e->split_tag);
        break;
      case 'n':
        if (a.kind != Raw::kIdent) {
          Error(a, absl::StrCat("expected a name (a C identifier), found '", Tok(a.tok).text, "'"));
          ok = false;
        } else {
          CheckGrammarName(a.tok);
          e->name = a.text;
        }
        break;
      case 'i': {
        NumberValue v;
        if (a.kind == Raw::kNumber) v = ParseNumber(a.text, a.negative);
        if (a.kind != Raw::kNumber || v.is_float || !v.error.empty()) {
          Error(a, absl::StrCat("expected an integer constant, found '", Tok(a.tok).text, "'"));
          ok = false;
        } else {
          e->int_value = v.i;
        }
        break;
      }
      default:
        break;
    }
  }
  return ok;
}

ExprPtr Parser::ConvertCall(const Raw& r) {
  const Origin origin = OriginOf(Tok(r.tok));
  if (const MacroRow* m = FindMacro(r.text)) return ConvertMacro(r, *m);
  const FormRow* f = FindForm(r.text);
  if (f == nullptr) {
    if (r.text == "LET" || r.text == "OpVarIn") {
      Error(r, absl::StrCat(r.text, " may only be used in a match"));
    } else {
      Error(r, absl::StrCat("unknown function '", r.text, "'"));
    }
    return nullptr;
  }
  const char* spec = f->SignatureFor(r.args.size());
  if (spec == nullptr) {
    Error(r, absl::StrCat(r.text, " expects ", SignatureArityText(f->signature, f->alt_signature),
                          ", got ", r.args.size()));
    return nullptr;
  }
  ExprPtr e = NewExpr(f->kind, origin);
  if (!ConvertOperands(r, spec, e.get(), &e->args)) return nullptr;
  return e;
}

ExprPtr Parser::ConvertMacro(const Raw& r, const MacroRow& m) {
  if (!SignatureFits(m.signature, r.args.size())) {
    Error(r, absl::StrCat(r.text, " expects ", SignatureArityText(m.signature, nullptr), ", got ",
                          r.args.size()));
    return nullptr;
  }
  Expr holder;  // receives name / split_tag operands
  MacroCall call;
  call.origin = OriginOf(Tok(r.tok));
  if (!ConvertOperands(r, m.signature, &holder, &call.args)) return nullptr;
  call.name = std::move(holder.name);
  call.split_tag = std::move(holder.split_tag);
  ExprPtr e = m.expand(m, call);
  if (e->macro.empty()) e->macro = r.text;
  return e;
}

}  // namespace egret::rules::internal
