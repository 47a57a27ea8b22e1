#include "egret/rules/ast.h"

#include <array>
#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/rules/form_table.h"
#include "nlohmann/json.hpp"

namespace egret::rules {
namespace {

constexpr std::array<std::string_view, 10> kTypeNames = {
    "invalid", "bool", "int", "size", "float", "dtype", "opref", "shape", "node", "op"};

std::string FloatText(double v) {
  if (std::isinf(v)) return v > 0 ? "INF" : "NEG_INF";
  std::string s = absl::StrFormat("%.9g", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string Quote(const std::string& s) { return absl::StrCat("\"", s, "\""); }

// The letters of a signature that are not expression operands (name, split
// tag, integer): written operands that are not in Expr::args.
size_t NonExpressionLetters(std::string_view signature) {
  size_t n = 0;
  for (size_t i = 0; i < signature.size(); ++i) {
    const char c = signature[i];
    const bool starred = i + 1 < signature.size() && signature[i + 1] == '*';
    if (c != 'e' && c != 'g' && c != '*' && !starred) ++n;
  }
  return n;
}

nlohmann::json OriginJson(const Origin& o) {
  nlohmann::json j = o.loc.ToString();
  return j;
}

}  // namespace

std::string_view TypeName(Type t) { return kTypeNames[static_cast<size_t>(t)]; }

std::string_view ExprKindName(ExprKind k) { return FormOf(k).spelling; }

ExprPtr NewExpr(ExprKind kind, const Origin& origin) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->origin = origin;
  return e;
}

uint32_t RuleFlagBit(std::string_view name) {
  static constexpr std::pair<std::string_view, uint32_t> kFlags[] = {
      {"relaxed_precision_flag", kRelaxedPrecision},
      {"cse_after_always", kCseAfterAlways},
      {"cse_after_if", kCseAfterIf},
      {"cp_after_always", kCpAfterAlways},
      {"cp_after_if", kCpAfterIf},
      {"fold_relu_flag", kFoldRelu},
      {"explicit_autosplit_flag", kExplicitAutosplit},
  };
  for (const auto& [n, bit] : kFlags) {
    if (n == name) return bit;
  }
  return 0;
}

ExprPtr Expr::Clone() const {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->type = type;
  e->origin = origin;
  e->name = name;
  e->split_tag = split_tag;
  e->int_value = int_value;
  e->float_value = float_value;
  e->dtype = dtype;
  e->macro = macro;
  e->args.reserve(args.size());
  for (const ExprPtr& a : args) e->args.push_back(a->Clone());
  return e;
}

std::string Rule::PassSpec() const {
  return has_offset ? absl::StrCat(pass_name, "+", pass_offset) : pass_name;
}

std::string ToString(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kBoolConst:
      return e.int_value ? "true" : "false";
    case ExprKind::kIntConst:
      return absl::StrCat(e.int_value);
    case ExprKind::kSizeConst:
      return absl::StrCat(e.int_value, "u");
    case ExprKind::kFloatConst:
      return FloatText(e.float_value);
    case ExprKind::kDTypeConst:
      return absl::StrCat("DType::", std::string(DTypeName(e.dtype)));
    case ExprKind::kTag:
      return Quote(e.name);
    case ExprKind::kCppName:
      return e.name;
    default:
      break;
  }
  // A call: its written operands in the order of its signature.
  const FormRow& row = FormOf(e.kind);
  std::string out = absl::StrCat(std::string(row.spelling), "(");
  bool first = true;
  auto sep = [&] {
    if (!first) out += ",";
    first = false;
  };
  const char* spec = nullptr;
  for (const char* s : {row.signature, row.alt_signature}) {
    if (s != nullptr && SignatureFits(s, e.args.size() + NonExpressionLetters(s))) {
      spec = s;
      break;
    }
  }
  if (spec == nullptr) {  // not a tree the parser builds: the fields, then the operands
    if (!e.name.empty()) {
      sep();
      out += e.name;
    }
    if (!e.split_tag.empty()) {
      sep();
      out += Quote(e.split_tag);
    }
    for (const ExprPtr& a : e.args) {
      sep();
      out += ToString(*a);
    }
    return out + ")";
  }
  const size_t written = e.args.size() + NonExpressionLetters(spec);
  size_t next_arg = 0;
  for (size_t k = 0; k < written; ++k) {
    switch (SignatureLetter(spec, k, written)) {
      case 'e':
      case 'g':
        if (next_arg < e.args.size()) {
          sep();
          out += ToString(*e.args[next_arg++]);
        }
        break;
      case 's':
      case 'o':
        sep();
        out += Quote(e.name);
        break;
      case 't':
        if (!e.split_tag.empty()) {
          sep();
          out += Quote(e.split_tag);
        }
        break;
      case 'n':
        if (!e.name.empty()) {
          sep();
          out += e.name;
        }
        break;
      case 'i':
        sep();
        absl::StrAppend(&out, e.int_value);
        break;
      default:
        break;
    }
  }
  out += ")";
  return out;
}

std::string ToString(const MatchNode& m) {
  switch (m.kind) {
    case MatchKind::kTag:
      return Quote(m.tag);
    case MatchKind::kLet:
      return absl::StrCat("LET(", Quote(m.tag), ",", ToString(m.operands[0]), ")");
    case MatchKind::kOp:
    case MatchKind::kOpVarIn: {
      std::string out = absl::StrCat(m.kind == MatchKind::kOp ? "Op(" : "OpVarIn(", Quote(m.op));
      for (const MatchNode& o : m.operands) absl::StrAppend(&out, ",", ToString(o));
      return out + ")";
    }
  }
  return "";
}

nlohmann::json ToJson(const Expr& e) {
  nlohmann::json j;
  j["kind"] = std::string(ExprKindName(e.kind));
  j["type"] = std::string(TypeName(e.type));
  j["loc"] = OriginJson(e.origin);
  if (!e.origin.pp_macro.empty()) j["pp_macro"] = e.origin.pp_macro;
  if (!e.macro.empty()) j["macro"] = e.macro;
  switch (e.kind) {
    case ExprKind::kBoolConst:
      j["value"] = e.int_value != 0;
      break;
    case ExprKind::kIntConst:
    case ExprKind::kSizeConst:
    case ExprKind::kLayoutChunkSize:
      j["value"] = e.int_value;
      break;
    case ExprKind::kFloatConst:
      if (std::isinf(e.float_value)) {
        j["value"] = FloatText(e.float_value);
      } else {
        j["value"] = e.float_value;
      }
      break;
    case ExprKind::kDTypeConst:
      j["value"] = std::string(DTypeName(e.dtype));
      break;
    default:
      break;
  }
  if (!e.name.empty()) j["name"] = e.name;
  if (!e.split_tag.empty()) j["split_tag"] = e.split_tag;
  if (!e.args.empty()) {
    nlohmann::json args = nlohmann::json::array();
    for (const ExprPtr& a : e.args) args.push_back(ToJson(*a));
    j["args"] = std::move(args);
  }
  return j;
}

nlohmann::json ToJson(const MatchNode& m) {
  nlohmann::json j;
  static constexpr std::string_view kNames[] = {"Op", "OpVarIn", "tag", "LET"};
  j["kind"] = std::string(kNames[static_cast<size_t>(m.kind)]);
  j["loc"] = OriginJson(m.origin);
  if (!m.origin.pp_macro.empty()) j["pp_macro"] = m.origin.pp_macro;
  if (!m.op.empty()) j["op"] = m.op;
  if (!m.tag.empty()) j["tag"] = m.tag;
  if (!m.operands.empty()) {
    nlohmann::json ops = nlohmann::json::array();
    for (const MatchNode& o : m.operands) ops.push_back(ToJson(o));
    j["operands"] = std::move(ops);
  }
  return j;
}

nlohmann::json ToJson(const Rule& r) {
  nlohmann::json j;
  j["loc"] = OriginJson(r.origin);
  j["form"] = r.form;
  j["pass"] = r.PassSpec();
  j["priority"] = r.priority;
  j["flags"] = r.flags;
  j["match"] = ToJson(r.match);
  if (r.constraint) j["constraint"] = ToJson(*r.constraint);
  if (r.replacement) j["replacement"] = ToJson(*r.replacement);
  return j;
}

}  // namespace egret::rules
