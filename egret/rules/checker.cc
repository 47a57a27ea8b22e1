#include "egret/rules/checker.h"

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "egret/rules/parser.h"

namespace egret::rules {
namespace {

bool IsInt(Type t) { return t == Type::kInt || t == Type::kSize; }
bool IsNum(Type t) { return IsInt(t) || t == Type::kFloat; }
bool IsScalar(Type t) { return IsNum(t) || t == Type::kBool; }
bool IsRepl(Type t) {
  return t == Type::kOpRef || t == Type::kShape || t == Type::kNode || t == Type::kOp;
}

Type Promote(Type a, Type b) {
  if (a == Type::kFloat || b == Type::kFloat) return Type::kFloat;
  if (a == Type::kSize || b == Type::kSize) return Type::kSize;
  return Type::kInt;
}

std::string Describe(Type t) {
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

bool IsReplacementForm(ExprKind k) { return k >= ExprKind::kOp; }

bool IsIntLiteral(const Expr& e) {
  return e.kind == ExprKind::kIntConst || e.kind == ExprKind::kSizeConst;
}

std::string Ordinal(size_t i) {
  static const char* kNames[] = {"first", "second", "third", "fourth", "fifth"};
  return i < 5 ? kNames[i] : absl::StrCat("operand ", i + 1, " of the");
}

class Checker {
 public:
  Checker(Rule& rule, const ExternalFunctionRegistry& ext, DiagnosticList* diags)
      : rule_(rule), ext_(ext), diags_(diags) {}

  bool Run() {
    CheckMatch();
    in_constraint_ = true;
    Type c = Check(*rule_.constraint, false);
    if (c != Type::kInvalid && c != Type::kBool) {
      Err(*rule_.constraint,
          absl::StrCat("the constraint must be a bool expression, not ", Describe(c)));
    }
    in_constraint_ = false;
    Expr& r = *rule_.replacement;
    Type t = Check(r, true);
    if (r.kind == ExprKind::kTag && r.name == "*") {
      Err(r, "the replacement may not be \"*\"");
    } else if (r.kind == ExprKind::kSelect) {
      if (const Expr* star = FindStar(r)) {
        Err(*star, "the replacement is a SELECT that can yield \"*\"");
      }
    }
    if (t != Type::kInvalid && !IsRepl(t)) {
      Err(r,
          absl::StrCat("the replacement must be an operand or a construction, not ", Describe(t)));
    }
    return ok_;
  }

 private:
  void Emit(Severity sev, const Origin& o, std::string msg) {
    std::string key = absl::StrCat(o.loc.ToString(), "|", static_cast<int>(sev), "|", msg);
    if (!emitted_.insert(std::move(key)).second) return;
    if (sev == Severity::kError) ok_ = false;
    diags_->Add(DiagnosticAt(sev, o, std::move(msg)));
  }
  void Err(const Expr& e, std::string msg) { Emit(Severity::kError, e.origin, std::move(msg)); }
  void Err(const MatchNode& m, std::string msg) {
    Emit(Severity::kError, m.origin, std::move(msg));
  }

  // --- match ---
  void CheckMatch() {
    absl::flat_hash_map<std::string, const MatchNode*> lets;
    CollectMatch(rule_.match, &lets);
    tags_.insert("*");
  }

  void CollectMatch(const MatchNode& m, absl::flat_hash_map<std::string, const MatchNode*>* lets) {
    switch (m.kind) {
      case MatchKind::kTag:
        if (m.tag == "*") {
          Err(m, "\"*\" names the root of the match and cannot be used as an operand tag in it");
        }
        tags_.insert(m.tag);
        return;
      case MatchKind::kLet: {
        if (m.tag == "*") {
          Err(m, "\"*\" names the root of the match and cannot be bound by LET");
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
  void FindInside(const MatchNode& m, const std::string& tag) {
    if ((m.kind == MatchKind::kTag || m.kind == MatchKind::kLet) && m.tag == tag) {
      Err(m, absl::StrCat("tag \"", tag, "\" of a LET appears inside the LET's own operand"));
    }
    for (const MatchNode& o : m.operands) FindInside(o, tag);
  }

  // --- expressions ---
  static const Expr* FindStar(const Expr& e) {
    if (e.kind == ExprKind::kTag) return e.name == "*" ? &e : nullptr;
    if (e.kind != ExprKind::kSelect) return nullptr;
    if (const Expr* s = FindStar(*e.args[1])) return s;
    return FindStar(*e.args[2]);
  }

  // Expects operand i of e to satisfy `pred`; `what` describes the expected type.
  bool Want(Expr& e, size_t i, Type t, bool (*pred)(Type), const char* what) {
    if (t == Type::kInvalid) return false;
    if (pred(t)) return true;
    Err(*e.args[i], absl::StrCat("the ", Ordinal(i), " operand of ", Name(e), " must be ", what,
                                 ", not ", Describe(t)));
    return false;
  }

  static std::string Name(const Expr& e) { return std::string(ExprKindName(e.kind)); }

  Type CheckSplitRef(Expr& e) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (it->tag == e.split_tag) {
        it->used = true;
        return Type::kSize;
      }
    }
    Err(e, absl::StrCat(Name(e), " with split tag \"", e.split_tag,
                        "\" must be inside the last operand of an AUTOSPLIT or OP_ITER with "
                        "that split tag"));
    return Type::kInvalid;
  }

  void DeclareSplit(Expr& e) {
    auto [it, fresh] = split_tags_.emplace(e.split_tag, e.origin.loc);
    if (!fresh) {
      Diagnostic d =
          DiagnosticAt(Severity::kError, e.origin,
                       absl::StrCat("split tag \"", e.split_tag,
                                    "\" is already used by another AUTOSPLIT or OP_ITER"));
      d.notes.emplace_back(it->second, "the other use is here");
      ok_ = false;
      diags_->Add(std::move(d));
    }
  }

  void CheckExternal(Expr& e, size_t given) {
    const ExternalFunction* f = ext_.Find(e.name);
    if (f == nullptr) {
      Err(e, absl::StrCat("unknown external function '", e.name,
                          "' (not built in, and not declared by an EXTERNAL_SHAPEFN annotation "
                          "comment)"));
      return;
    }
    if (std::optional<size_t> n = f->RuleArity();
        n && e.kind != ExprKind::kExternalConstraint && *n != given) {
      Err(e, absl::StrCat("external function '", e.name, "' takes ", *n, " operand",
                          *n == 1 ? "" : "s", " in ", Name(e), ", got ", given));
    }
  }

  // Checks an operand in a replacement position; returns its type.
  Type ReplOperand(Expr& e, size_t i) {
    Type t = Check(*e.args[i], false);
    Want(e, i, t, IsRepl, "an operand or a construction");
    return t;
  }

  Type CheckAutosplitSlice(Expr& e) {
    // WITH_SIZE(size, WITH_TYPE(in, Op("Slice_shape", in, start, size)))
    Expr& size = *e.args[0];
    Expr& wt = *e.args[1];
    Expr& in = *wt.args[0];
    Expr& op = *wt.args[1];
    Expr& start = *op.args[1];
    Type tin = Check(in, false);
    Check(*op.args[0], false);
    Type tstart = Check(start, false);
    Type tsize = Check(size, false);
    Check(*op.args[2], false);
    const std::string& m = e.macro;
    if (tin != Type::kInvalid && tin != Type::kOpRef) {
      Err(in, absl::StrCat("the first operand of ", m,
                           " must be an existing operand reference, "
                           "not ",
                           Describe(tin)));
    }
    if (m == "AUTOSPLIT_SLICE") {
      for (auto [x, t, which] : {std::tuple<Expr*, Type, const char*>{&start, tstart, "second"},
                                 {&size, tsize, "third"}}) {
        if (t != Type::kInvalid && !YieldsOpRefOrShape(*x)) {
          Err(*x, absl::StrCat("the ", which,
                               " operand of AUTOSPLIT_SLICE must be an existing "
                               "operand reference or a shape construction, not ",
                               Describe(t)));
        }
      }
    }
    op.type = wt.type = Type::kOp;
    return Type::kOp;
  }

  static bool YieldsOpRefOrShape(const Expr& e) {
    if (e.kind == ExprKind::kSelect) {
      return YieldsOpRefOrShape(*e.args[1]) && YieldsOpRefOrShape(*e.args[2]);
    }
    return e.type == Type::kOpRef || e.type == Type::kShape;
  }

  Type Check(Expr& e, bool at_root) {
    e.type = CheckInner(e, at_root);
    return e.type;
  }

  Type CheckInner(Expr& e, bool at_root) {
    if (in_constraint_ && IsReplacementForm(e.kind)) {
      Err(e, absl::StrCat(Name(e), " is a replacement form and cannot be used in a constraint"));
      return Type::kInvalid;
    }
    const size_t n = e.args.size();
    switch (e.kind) {
      case ExprKind::kBoolConst:
        return Type::kBool;
      case ExprKind::kIntConst:
        return Type::kInt;
      case ExprKind::kSizeConst:
      case ExprKind::kLayoutChunkSize:
        return Type::kSize;
      case ExprKind::kFloatConst:
        return Type::kFloat;
      case ExprKind::kDTypeConst:
        return Type::kDType;
      case ExprKind::kOptionInt:
        return Type::kInt;
      case ExprKind::kOptionUint:
        return Type::kSize;
      case ExprKind::kOptionBool:
        return Type::kBool;
      case ExprKind::kOptionFloat:
        return Type::kFloat;
      case ExprKind::kToUint:
      case ExprKind::kToFloat: {
        Type t = Check(*e.args[0], false);
        Want(e, 0, t, IsScalar, "a number or a bool");
        return e.kind == ExprKind::kToUint ? Type::kSize : Type::kFloat;
      }
      case ExprKind::kToInt: {
        Type t = Check(*e.args[0], false);
        Want(
            e, 0, t, [](Type x) { return IsScalar(x) || x == Type::kDType; },
            "a number, a bool or a dtype");
        return Type::kInt;
      }
      case ExprKind::kToDType: {
        Type t = Check(*e.args[0], false);
        Want(e, 0, t, IsInt, "an integer (int or size)");
        return Type::kDType;
      }
      case ExprKind::kNot: {
        Type t = Check(*e.args[0], false);
        Want(
            e, 0, t, [](Type x) { return x == Type::kBool; }, "a bool");
        return Type::kBool;
      }
      case ExprKind::kNeg:
      case ExprKind::kAbs: {
        Type t = Check(*e.args[0], false);
        if (!Want(e, 0, t, IsNum, "a number")) return Type::kInvalid;
        return t;
      }
      case ExprKind::kIsPow2: {
        Type t = Check(*e.args[0], false);
        Want(e, 0, t, IsInt, "an integer (int or size)");
        return Type::kBool;
      }
      case ExprKind::kSelect:
        return CheckSelect(e, at_root);
      case ExprKind::kRoundUp:
      case ExprKind::kCeilDiv:
      case ExprKind::kLcm:
      case ExprKind::kBitAnd:
      case ExprKind::kBitOr: {
        Type a = Check(*e.args[0], false);
        Type b = Check(*e.args[1], false);
        bool ok = Want(e, 0, a, IsInt, "an integer (int or size)");
        ok &= Want(e, 1, b, IsInt, "an integer (int or size)");
        if (e.kind == ExprKind::kRoundUp && IsIntLiteral(*e.args[1])) {
          int64_t v = e.args[1]->int_value;
          if (v <= 0 || (v & (v - 1)) != 0) {
            Err(*e.args[1],
                absl::StrCat("the second operand of ROUNDUP must be a power of 2, not ", v));
          }
        }
        return ok ? Promote(a, b) : Type::kInvalid;
      }
      case ExprKind::kAnd:
      case ExprKind::kOr:
      case ExprKind::kXor:
        for (size_t i = 0; i < n; ++i) {
          Type t = Check(*e.args[i], false);
          Want(
              e, i, t, [](Type x) { return x == Type::kBool; }, "a bool");
        }
        return Type::kBool;
      case ExprKind::kAdd:
      case ExprKind::kMul:
      case ExprKind::kMin:
      case ExprKind::kMax:
      case ExprKind::kSub:
      case ExprKind::kDiv:
      case ExprKind::kRem:
      case ExprKind::kMod: {
        const bool integral = e.kind == ExprKind::kRem || e.kind == ExprKind::kMod;
        bool ok = true;
        Type result = Type::kInt;
        for (size_t i = 0; i < n; ++i) {
          Type t = Check(*e.args[i], false);
          ok &= integral ? Want(e, i, t, IsInt, "an integer (int or size)")
                         : Want(e, i, t, IsNum, "a number");
          if (ok) result = Promote(result, t);
        }
        return ok ? result : Type::kInvalid;
      }
      case ExprKind::kEq:
      case ExprKind::kNe:
      case ExprKind::kLt:
      case ExprKind::kGt:
      case ExprKind::kLe:
      case ExprKind::kGe: {
        Type a = Check(*e.args[0], false);
        Type b = Check(*e.args[1], false);
        if (a == Type::kInvalid || b == Type::kInvalid) return Type::kBool;
        const bool equality = e.kind == ExprKind::kEq || e.kind == ExprKind::kNe;
        if (IsNum(a) && IsNum(b)) return Type::kBool;
        if (equality && a == b && (a == Type::kDType || a == Type::kBool)) return Type::kBool;
        if (!equality && (a == Type::kDType || b == Type::kDType)) {
          Err(e, absl::StrCat("dtype values can only be compared with EQ and NE, not ", Name(e)));
        } else {
          Err(e, absl::StrCat(Name(e), " cannot compare ", Describe(a), " with ", Describe(b)));
        }
        return Type::kBool;
      }
      case ExprKind::kTag:
        if (!tags_.contains(e.name)) {
          Err(e, absl::StrCat("operand tag \"", e.name, "\" does not appear in the match"));
          return Type::kInvalid;
        }
        return Type::kOpRef;
      case ExprKind::kInputOf:
      case ExprKind::kOutputOf: {
        Type a = Check(*e.args[0], false);
        Type b = Check(*e.args[1], false);
        bool ok = Want(
            e, 0, a, [](Type x) { return x == Type::kOpRef; }, "an operand reference");
        ok &= Want(e, 1, b, IsInt, "an integer (int or size)");
        return ok ? Type::kOpRef : Type::kInvalid;
      }
      case ExprKind::kRankOf:
      case ExprKind::kDimOf:
      case ExprKind::kStepsizeOf:
      case ExprKind::kZeroOffsetOf:
      case ExprKind::kDTypeOf:
      case ExprKind::kElementSizeOf:
      case ExprKind::kInputsOf:
      case ExprKind::kOutputsOf:
      case ExprKind::kSameEncoding:
      case ExprKind::kSameOp:
      case ExprKind::kIsOp:
      case ExprKind::kProducerFor:
      case ExprKind::kIsEmpty:
      case ExprKind::kIsEmptyDim:
      case ExprKind::kConstValInt:
      case ExprKind::kConstValIntValid:
      case ExprKind::kConstValFloat:
      case ExprKind::kConstValFloatValid:
        return CheckProperty(e);
      case ExprKind::kSplitDim:
      case ExprKind::kSplitStart:
      case ExprKind::kSplitSize:
        return CheckSplitRef(e);
      case ExprKind::kExternalConstraint: {
        CheckExternal(e, n);
        Check(*e.args[0], false);
        for (size_t i = 1; i < n; ++i) {
          Type t = Check(*e.args[i], false);
          Want(e, i, t, IsScalar, "a scalar (int, size, float or bool)");
        }
        return Type::kBool;
      }
      // --- replacement forms ---
      case ExprKind::kOp:
        for (size_t i = 0; i < n; ++i) ReplOperand(e, i);
        return Type::kOp;
      case ExprKind::kWrapOp:
      case ExprKind::kWrapOpAlways:
        ReplOperand(e, 0);
        return Type::kOp;
      case ExprKind::kGenShape:
      case ExprKind::kGenConstArrValsI32:
        for (size_t i = 0; i < n; ++i) {
          Type t = Check(*e.args[i], false);
          Want(e, i, t, IsInt, "an integer (int or size)");
        }
        return e.kind == ExprKind::kGenShape ? Type::kShape : Type::kNode;
      case ExprKind::kGenShapeOf: {
        Type t = Check(*e.args[0], false);
        if (t == Type::kShape) {
          Emit(Severity::kWarning, e.origin, "gen_ShapeOf of a shape construction is redundant");
        } else {
          Want(
              e, 0, t, [](Type x) { return x == Type::kOpRef; }, "an existing operand reference");
        }
        return Type::kShape;
      }
      case ExprKind::kGenConstScalarF32:
      case ExprKind::kGenConstScalarI32: {
        Type t = Check(*e.args[0], false);
        if (e.kind == ExprKind::kGenConstScalarF32) {
          Want(e, 0, t, IsNum, "a number");
        } else {
          Want(e, 0, t, IsInt, "an integer (int or size)");
        }
        return Type::kNode;
      }
      case ExprKind::kGenConstArrF32:
      case ExprKind::kGenConstArrI32: {
        Type v = Check(*e.args[0], false);
        Type c = Check(*e.args[1], false);
        if (e.kind == ExprKind::kGenConstArrF32) {
          Want(e, 0, v, IsNum, "a number");
        } else {
          Want(e, 0, v, IsInt, "an integer (int or size)");
        }
        Want(e, 1, c, IsInt, "an integer (int or size)");
        return Type::kNode;
      }
      case ExprKind::kAutoSplit:
      case ExprKind::kOpIter:
        return CheckIteration(e, at_root);
      case ExprKind::kIterInputOf: {
        Type s = CheckSplitRef(e);
        Type t = Check(*e.args[0], false);
        Want(
            e, 0, t, [](Type x) { return x == Type::kOpRef; }, "an operand reference");
        return s == Type::kInvalid ? Type::kInvalid : Type::kNode;
      }
      case ExprKind::kAutoSplitShapeFnApply:
      case ExprKind::kShapeFnApply: {
        Type s = e.kind == ExprKind::kAutoSplitShapeFnApply ? CheckSplitRef(e) : Type::kShape;
        CheckExternal(e, n);
        for (size_t i = 0; i < n; ++i) Check(*e.args[i], false);
        return s == Type::kInvalid ? Type::kInvalid : Type::kShape;
      }
      case ExprKind::kExternalReplace:
        if (!at_root) {
          Err(e,
              "EXTERNAL_REPLACE may only be the root of the replacement or in SELECTs at "
              "the root");
        }
        CheckExternal(e, 0);
        return Type::kOp;
      case ExprKind::kWithSize:
      case ExprKind::kWithType:
      case ExprKind::kWithSameOutput:
      case ExprKind::kWithOutputType:
      case ExprKind::kWithMultiOut:
      case ExprKind::kResizeDim:
      case ExprKind::kWithSameId:
      case ExprKind::kWithSplitHistory:
        return CheckModifier(e);
    }
    return Type::kInvalid;
  }

  Type CheckProperty(Expr& e) {
    const size_t n = e.args.size();
    Type a = Check(*e.args[0], false);
    bool ok = Want(
        e, 0, a, [](Type x) { return x == Type::kOpRef; }, "an operand reference");
    for (size_t i = 1; i < n; ++i) {
      Type t = Check(*e.args[i], false);
      if (e.kind == ExprKind::kSameEncoding || e.kind == ExprKind::kSameOp) {
        ok &= Want(
            e, i, t, [](Type x) { return x == Type::kOpRef; }, "an operand reference");
      } else {
        ok &= Want(e, i, t, IsInt, "an integer (int or size)");
      }
    }
    switch (e.kind) {
      case ExprKind::kRankOf:
      case ExprKind::kDimOf:
      case ExprKind::kElementSizeOf:
      case ExprKind::kInputsOf:
      case ExprKind::kOutputsOf:
        return Type::kSize;
      case ExprKind::kStepsizeOf:
      case ExprKind::kConstValFloat:
        return Type::kFloat;
      case ExprKind::kZeroOffsetOf:
      case ExprKind::kConstValInt:
        return Type::kInt;
      case ExprKind::kDTypeOf:
        return Type::kDType;
      default:
        return Type::kBool;
    }
  }

  Type CheckSelect(Expr& e, bool at_root) {
    Type c = Check(*e.args[0], false);
    Want(
        e, 0, c, [](Type x) { return x == Type::kBool; }, "a bool");
    Type a = Check(*e.args[1], at_root);
    Type b = Check(*e.args[2], at_root);
    if (a == Type::kInvalid || b == Type::kInvalid) return Type::kInvalid;
    if (IsNum(a) && IsNum(b)) return Promote(a, b);
    if (a == b) return a;
    if (IsRepl(a) && IsRepl(b)) {
      if (a == Type::kOp || b == Type::kOp) return Type::kOp;
      return Type::kNode;
    }
    Err(e, absl::StrCat("the second and third operands of SELECT have different types (",
                        std::string(TypeName(a)), " and ", std::string(TypeName(b)), ")"));
    return Type::kInvalid;
  }

  Type CheckIteration(Expr& e, bool at_root) {
    const bool autosplit = e.kind == ExprKind::kAutoSplit;
    if (autosplit && !at_root) {
      Err(e, "AUTOSPLIT may only be the root of the replacement or in SELECTs at the root");
    }
    DeclareSplit(e);
    const size_t last = e.args.size() - 1;
    if (!autosplit) {
      Type init = Check(*e.args[0], false);
      if (init != Type::kInvalid && e.args[0]->kind != ExprKind::kOp && init != Type::kOpRef) {
        Err(*e.args[0], absl::StrCat("the first operand of OP_ITER must be Op(...) or an existing "
                                     "operand reference, not ",
                                     Describe(init)));
      }
    }
    // The integer operands (AUTOSPLIT: dim, chunk; OP_ITER: from, to) are
    // outside the split context.
    for (size_t i = autosplit ? 0 : 1; i < last; ++i) {
      Type t = Check(*e.args[i], false);
      Want(e, i, t, IsInt, "an integer (int or size)");
    }
    scopes_.push_back({e.split_tag, false});
    ReplOperand(e, last);
    const bool used = scopes_.back().used;
    scopes_.pop_back();
    if (autosplit && !used) {
      Err(e, absl::StrCat("AUTOSPLIT with split tag \"", e.split_tag,
                          "\" does not use the tag in its last operand (e.g. SPLIT_START(\"",
                          e.split_tag, "\") or TYPICAL_SLICE(..., \"", e.split_tag, "\"))"));
    }
    return Type::kOp;
  }

  Type CheckModifier(Expr& e) {
    if (e.kind == ExprKind::kWithSize &&
        (e.macro == "AUTOSPLIT_SLICE" || e.macro == "TYPICAL_SLICE" ||
         e.macro == "CHANGEDIM_SLICE")) {
      return CheckAutosplitSlice(e);
    }
    const size_t last = e.args.size() - 1;
    switch (e.kind) {
      case ExprKind::kWithSize: {
        Type t = Check(*e.args[0], false);
        if (t == Type::kOp) {
          Err(*e.args[0], "the first operand of WITH_SIZE must not be an op construction");
        } else {
          Want(e, 0, t, IsRepl, "an existing operand reference or a shape construction");
        }
        break;
      }
      case ExprKind::kWithType:
      case ExprKind::kWithSameOutput:
      case ExprKind::kWithSameId:
      case ExprKind::kWithSplitHistory: {
        Type t = Check(*e.args[0], false);
        if (t == Type::kOp) {
          Err(*e.args[0],
              absl::StrCat("the first operand of ", Name(e), " must not be an op construction"));
        } else {
          Want(
              e, 0, t, [](Type x) { return x == Type::kOpRef; }, "an existing operand reference");
        }
        if (e.kind == ExprKind::kWithSplitHistory && e.args.size() == 3) {
          Type s = Check(*e.args[1], false);
          if (!IsIntLiteral(*e.args[1])) {
            if (s != Type::kInvalid) {
              Err(*e.args[1],
                  "the second operand of a 3-operand WITH_SPLIT_HISTORY must be an "
                  "integer constant");
            }
          }
        }
        break;
      }
      case ExprKind::kWithOutputType: {
        Type d = Check(*e.args[0], false);
        Type z = Check(*e.args[1], false);
        Type s = Check(*e.args[2], false);
        Want(
            e, 0, d, [](Type x) { return x == Type::kDType; }, "a dtype");
        Want(e, 1, z, IsInt, "an integer (the zero offset)");
        Want(e, 2, s, IsNum, "a number (the step size)");
        break;
      }
      case ExprKind::kWithMultiOut: {
        Type t = Check(*e.args[0], false);
        Want(e, 0, t, IsInt, "an integer (int or size)");
        break;
      }
      case ExprKind::kResizeDim: {
        for (size_t i = 0; i < 2; ++i) {
          Type t = Check(*e.args[i], false);
          Want(e, i, t, IsInt, "an integer (int or size)");
        }
        break;
      }
      default:
        break;
    }
    Type t = Check(*e.args[last], false);
    if (t != Type::kInvalid && t != Type::kOp) {
      Err(*e.args[last], absl::StrCat("the last operand of ", Name(e),
                                      " must be an op construction, not ", Describe(t)));
    }
    return Type::kOp;
  }

  struct Scope {
    std::string tag;
    bool used;
  };

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

}  // namespace

bool CheckRule(Rule& rule, const ExternalFunctionRegistry& externals, DiagnosticList* diags) {
  if (!rule.constraint || !rule.replacement) return false;
  return Checker(rule, externals, diags).Run();
}

}  // namespace egret::rules
