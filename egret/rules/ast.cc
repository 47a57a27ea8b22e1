#include "egret/rules/ast.h"

#include <array>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"

namespace egret::rules {
namespace {

constexpr std::array<std::string_view, 10> kTypeNames = {
    "invalid", "bool", "int", "size", "float", "dtype", "opref", "shape", "node", "op"};

struct KindName {
  ExprKind kind;
  std::string_view name;
};

// In the order of ExprKind (checked by a static_assert on the count and by
// the loop in ExprKindName()).
constexpr KindName kKindNames[] = {
    {ExprKind::kBoolConst, "bool"},
    {ExprKind::kIntConst, "int"},
    {ExprKind::kSizeConst, "size"},
    {ExprKind::kFloatConst, "float"},
    {ExprKind::kDTypeConst, "dtype"},
    {ExprKind::kLayoutChunkSize, "LAYOUT_CHUNKSIZE"},
    {ExprKind::kOptionInt, "OPTION_INT"},
    {ExprKind::kOptionUint, "OPTION_UINT"},
    {ExprKind::kOptionBool, "OPTION_BOOL"},
    {ExprKind::kOptionFloat, "OPTION_FLOAT"},
    {ExprKind::kToUint, "UINT"},
    {ExprKind::kToInt, "INT"},
    {ExprKind::kToFloat, "FLOAT"},
    {ExprKind::kToDType, "DTYPE"},
    {ExprKind::kNot, "NOT"},
    {ExprKind::kNeg, "NEG"},
    {ExprKind::kAbs, "ABS"},
    {ExprKind::kIsPow2, "IS_POW2"},
    {ExprKind::kSelect, "SELECT"},
    {ExprKind::kRoundUp, "ROUNDUP"},
    {ExprKind::kCeilDiv, "CEILDIV"},
    {ExprKind::kLcm, "LCM"},
    {ExprKind::kBitAnd, "BIT_AND"},
    {ExprKind::kBitOr, "BIT_OR"},
    {ExprKind::kAnd, "AND"},
    {ExprKind::kOr, "OR"},
    {ExprKind::kXor, "XOR"},
    {ExprKind::kAdd, "ADD"},
    {ExprKind::kMul, "MUL"},
    {ExprKind::kMin, "MIN"},
    {ExprKind::kMax, "MAX"},
    {ExprKind::kSub, "SUB"},
    {ExprKind::kDiv, "DIV"},
    {ExprKind::kRem, "REM"},
    {ExprKind::kMod, "MOD"},
    {ExprKind::kEq, "EQ"},
    {ExprKind::kNe, "NE"},
    {ExprKind::kLt, "LT"},
    {ExprKind::kGt, "GT"},
    {ExprKind::kLe, "LE"},
    {ExprKind::kGe, "GE"},
    {ExprKind::kTag, "tag"},
    {ExprKind::kInputOf, "INPUT_OF"},
    {ExprKind::kOutputOf, "OUTPUT_OF"},
    {ExprKind::kRankOf, "RANK_OF"},
    {ExprKind::kDimOf, "DIM_OF"},
    {ExprKind::kStepsizeOf, "STEPSIZE_OF"},
    {ExprKind::kZeroOffsetOf, "ZERO_OFFSET_OF"},
    {ExprKind::kDTypeOf, "DTYPE_OF"},
    {ExprKind::kElementSizeOf, "ELEMENTSIZE_OF"},
    {ExprKind::kInputsOf, "INPUTS_OF"},
    {ExprKind::kOutputsOf, "OUTPUTS_OF"},
    {ExprKind::kSameEncoding, "SAME_ENCODING"},
    {ExprKind::kSameOp, "SAME_OP"},
    {ExprKind::kIsOp, "IS_OP"},
    {ExprKind::kProducerFor, "PRODUCER_FOR"},
    {ExprKind::kIsEmpty, "IS_EMPTY"},
    {ExprKind::kIsEmptyDim, "IS_EMPTY_DIM"},
    {ExprKind::kConstValInt, "CONSTVAL_INT"},
    {ExprKind::kConstValIntValid, "CONSTVAL_INT_VALID"},
    {ExprKind::kConstValFloat, "CONSTVAL_FLOAT"},
    {ExprKind::kConstValFloatValid, "CONSTVAL_FLOAT_VALID"},
    {ExprKind::kSplitDim, "SPLIT_DIM"},
    {ExprKind::kSplitStart, "SPLIT_START"},
    {ExprKind::kSplitSize, "SPLIT_SIZE"},
    {ExprKind::kExternalConstraint, "EXTERNAL_CONSTRAINT"},
    {ExprKind::kOp, "Op"},
    {ExprKind::kWrapOp, "WrapOp"},
    {ExprKind::kWrapOpAlways, "WrapOpAlways"},
    {ExprKind::kGenShape, "gen_Shape"},
    {ExprKind::kGenShapeOf, "gen_ShapeOf"},
    {ExprKind::kGenConstScalarF32, "gen_ConstScalar_f32"},
    {ExprKind::kGenConstScalarI32, "gen_ConstScalar_i32"},
    {ExprKind::kGenConstArrF32, "gen_ConstArr_f32"},
    {ExprKind::kGenConstArrI32, "gen_ConstArr_i32"},
    {ExprKind::kGenConstArrValsI32, "gen_ConstArr_vals_i32"},
    {ExprKind::kAutoSplit, "AUTOSPLIT"},
    {ExprKind::kOpIter, "OP_ITER"},
    {ExprKind::kIterInputOf, "ITER_INPUT_OF"},
    {ExprKind::kAutoSplitShapeFnApply, "AUTOSPLIT_SHAPEFN_APPLY"},
    {ExprKind::kWithSize, "WITH_SIZE"},
    {ExprKind::kWithType, "WITH_TYPE"},
    {ExprKind::kWithSameOutput, "WITH_SAME_OUTPUT"},
    {ExprKind::kWithOutputType, "WITH_OUTPUT_TYPE"},
    {ExprKind::kWithMultiOut, "WITH_MULTI_OUT"},
    {ExprKind::kResizeDim, "ResizeDim"},
    {ExprKind::kWithSameId, "WITH_SAME_ID"},
    {ExprKind::kWithSplitHistory, "WITH_SPLIT_HISTORY"},
    {ExprKind::kExternalReplace, "EXTERNAL_REPLACE"},
    {ExprKind::kShapeFnApply, "SHAPEFN_APPLY"},
};
static_assert(sizeof(kKindNames) / sizeof(kKindNames[0]) ==
              static_cast<size_t>(ExprKind::kShapeFnApply) + 1);

std::string FloatText(double v) {
  if (std::isinf(v)) return v > 0 ? "INF" : "NEG_INF";
  std::string s = absl::StrFormat("%.9g", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string Quote(const std::string& s) { return absl::StrCat("\"", s, "\""); }

nlohmann::json OriginJson(const Origin& o) {
  nlohmann::json j = o.loc.ToString();
  return j;
}

}  // namespace

std::string_view TypeName(Type t) { return kTypeNames[static_cast<size_t>(t)]; }

std::string_view ExprKindName(ExprKind k) {
  const KindName& kn = kKindNames[static_cast<size_t>(k)];
  return kn.kind == k ? kn.name : std::string_view("?");
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
    case ExprKind::kLayoutChunkSize:
      return absl::StrCat("LAYOUT_CHUNKSIZE(", e.name, ",", e.int_value, ")");
    case ExprKind::kTag:
      return Quote(e.name);
    default:
      break;
  }
  std::string out = absl::StrCat(std::string(ExprKindName(e.kind)), "(");
  bool first = true;
  auto sep = [&] {
    if (!first) out += ",";
    first = false;
  };
  // IS_OP and PRODUCER_FOR write their op string after the operand.
  const bool name_last = e.kind == ExprKind::kIsOp || e.kind == ExprKind::kProducerFor;
  const bool name_is_string = e.kind == ExprKind::kOp || e.kind == ExprKind::kWrapOp ||
                              e.kind == ExprKind::kWrapOpAlways ||
                              (e.kind >= ExprKind::kOptionInt && e.kind <= ExprKind::kOptionFloat);
  const bool name_first = !e.name.empty() && !name_is_string && !name_last;
  if (name_first) {
    sep();
    out += e.name;
  }
  if (name_is_string) {
    sep();
    out += Quote(e.name);
  }
  // The split tag's position: second operand of AUTOSPLIT/OP_ITER/ITER_INPUT_OF
  // and AUTOSPLIT_SHAPEFN_APPLY; the only operand of SPLIT_*.
  size_t tag_pos = e.kind == ExprKind::kAutoSplit || e.kind == ExprKind::kOpIter ||
                           e.kind == ExprKind::kIterInputOf
                       ? 1
                       : 0;
  bool tag_done = e.split_tag.empty() || e.kind == ExprKind::kAutoSplitShapeFnApply;
  if (e.kind == ExprKind::kAutoSplitShapeFnApply) {
    sep();
    out += Quote(e.split_tag);
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (!tag_done && i == tag_pos) {
      sep();
      out += Quote(e.split_tag);
      tag_done = true;
    }
    sep();
    out += ToString(*e.args[i]);
  }
  if (!tag_done) {
    sep();
    out += Quote(e.split_tag);
  }
  if (name_last) {
    sep();
    out += Quote(e.name);
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
