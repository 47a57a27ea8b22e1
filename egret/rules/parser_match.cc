// The match pattern of a rule: a raw tree read as Op(...) / OpVarIn(...)
// nodes, operand tags and LET(tag, Op(...)) bindings (ast.h, MatchNode).
#include <string>

#include "absl/strings/str_cat.h"
#include "egret/rules/parser_internal.h"

namespace egret::rules::internal {

// --- match -------------------------------------------------------------------------

bool Parser::ConvertMatch(const Raw& r, MatchNode* out, bool root) {
  out->origin = OriginOf(Tok(r.tok));
  if (r.kind == Raw::kString) {
    if (root) {
      Error(r, "the root of a match must be Op(...) or OpVarIn(...), not an operand tag");
      return false;
    }
    if (r.bad_string) return false;
    out->kind = MatchKind::kTag;
    out->tag = r.text;
    return true;
  }
  if (r.kind == Raw::kCall && r.text == "LET") {
    if (root) {
      Error(r, "LET cannot be the root of a match");
      return false;
    }
    if (r.args.size() != 2) {
      Error(r, absl::StrCat("LET expects 2 operands (tag, Op or OpVarIn), got ", r.args.size()));
      return false;
    }
    if (r.args[0].kind != Raw::kString) {
      Error(r.args[0], "the first operand of LET must be an operand tag (a string constant)");
      return false;
    }
    if (r.args[0].bad_string) return false;
    const Raw& inner = r.args[1];
    if (inner.kind != Raw::kCall || (inner.text != "Op" && inner.text != "OpVarIn")) {
      Error(inner, "the second operand of LET must be Op(...) or OpVarIn(...)");
      return false;
    }
    out->kind = MatchKind::kLet;
    out->tag = r.args[0].text;
    out->operands.emplace_back();
    return ConvertMatch(inner, &out->operands.back(), false);
  }
  if (r.kind == Raw::kCall && (r.text == "Op" || r.text == "OpVarIn")) {
    out->kind = r.text == "Op" ? MatchKind::kOp : MatchKind::kOpVarIn;
    if (r.args.empty() || r.args[0].kind != Raw::kString) {
      Error(
          r.args.empty() ? r : r.args[0],
          absl::StrCat("the first operand of ", r.text, " must be an op name (a string constant)"));
      return false;
    }
    if (r.args[0].bad_string) return false;
    out->op = r.args[0].text;
    bool ok = true;
    out->operands.resize(r.args.size() - 1);
    for (size_t k = 1; k < r.args.size(); ++k) {
      ok &= ConvertMatch(r.args[k], &out->operands[k - 1], false);
    }
    return ok;
  }
  Error(r, root ? "the root of a match must be Op(...) or OpVarIn(...)"
                : absl::StrCat("expected an operand tag, Op, OpVarIn or LET in a match, found '",
                               Tok(r.tok).text, "'"));
  return false;
}

}  // namespace egret::rules::internal
