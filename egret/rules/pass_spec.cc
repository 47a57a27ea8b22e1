#include "egret/rules/pass_spec.h"

#include <optional>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "egret/rules/cpp_cast.h"
#include "egret/rules/number_literal.h"
#include "egret/rules/pass_groups.h"

namespace egret::rules {
namespace {

constexpr int64_t kLimit = int64_t{1} << 40;
constexpr int kMaxDepth = 100;

class PassExpr {
 public:
  PassExpr(const std::vector<Token>& toks, size_t begin, size_t end)
      : toks_(toks), i_(begin), end_(end) {}

  PassSpecValue Run() {
    if (i_ >= end_) return Fail(i_, "expected a pass position (e.g. EARLY, TILING+10 or 3050)");
    std::optional<int64_t> v = Sum(0);
    if (v && i_ < end_) {
      return Fail(i_, absl::StrCat("unexpected '", toks_[i_].text, "' in the pass position"));
    }
    if (!v) return std::move(out_);
    out_.ok = true;
    out_.priority = *v;
    return std::move(out_);
  }

 private:
  const Token& Tok(size_t i) const { return toks_[i < toks_.size() ? i : toks_.size() - 1]; }
  bool Punct(std::string_view p) const { return i_ < end_ && toks_[i_].IsPunct(p); }
  PassSpecValue Fail(size_t at, std::string msg) {
    if (out_.error.empty()) {
      out_.error = std::move(msg);
      out_.error_tok = at < end_ ? at : end_;
    }
    out_.ok = false;
    return out_;
  }
  std::optional<int64_t> Bad(size_t at, std::string msg) {
    Fail(at, std::move(msg));
    return std::nullopt;
  }
  std::optional<int64_t> Checked(size_t at, __int128 v) {
    if (v > kLimit || v < -kLimit) return Bad(at, "pass position is too large");
    return static_cast<int64_t>(v);
  }

  std::optional<int64_t> Sum(int depth) {
    std::optional<int64_t> a = Product(depth);
    while (a && (Punct("+") || Punct("-"))) {
      const size_t op = i_++;
      std::optional<int64_t> b = Product(depth);
      if (!b) return std::nullopt;
      a = Checked(op, toks_[op].text == "+" ? __int128{*a} + *b : __int128{*a} - *b);
    }
    return a;
  }

  std::optional<int64_t> Product(int depth) {
    std::optional<int64_t> a = Unary(depth);
    while (a && (Punct("*") || Punct("/") || Punct("%"))) {
      const size_t op = i_++;
      std::optional<int64_t> b = Unary(depth);
      if (!b) return std::nullopt;
      if (toks_[op].text == "*") {
        a = Checked(op, __int128{*a} * *b);
      } else if (*b == 0) {
        return Bad(op, "division by zero in the pass position");
      } else {
        a = toks_[op].text == "/" ? *a / *b : *a % *b;
      }
    }
    return a;
  }

  // Reads a type name at i_ (`std::` allowed); nullopt (i_ unchanged) if
  // there is none.
  std::optional<CppType> TypeName() {
    size_t j = i_;
    if (j + 1 < end_ && toks_[j].IsIdent("std") && toks_[j + 1].IsPunct("::")) j += 2;
    std::string words;
    while (j < end_ && toks_[j].kind == TokenKind::kIdentifier && IsCppTypeWord(toks_[j].text)) {
      if (!words.empty()) words += ' ';
      words += toks_[j].text;
      ++j;
    }
    std::optional<CppType> t = CppTypeNamed(words);
    if (t) i_ = j;
    return t;
  }

  std::optional<int64_t> Cast(size_t at, const CppType& t, std::optional<int64_t> v) {
    if (!v) return std::nullopt;
    if (t.kind == CppType::Kind::kFloat) return v;  // exact for pass values
    return Checked(at, CastInteger(*v, t));
  }

  std::optional<int64_t> Unary(int depth) {
    if (depth > kMaxDepth) return Bad(i_, "pass position nested too deeply");
    if (i_ >= end_) return Bad(i_, "expected a number or a pass-group name");
    const size_t at = i_;
    const Token& t = toks_[i_];
    if (t.IsPunct("+") || t.IsPunct("-")) {
      ++i_;
      std::optional<int64_t> v = Unary(depth + 1);
      if (!v) return std::nullopt;
      return t.text == "-" ? -*v : *v;
    }
    if (t.IsPunct("(")) {
      ++i_;
      if (std::optional<CppType> type = TypeName()) {  // C-style cast
        if (!Punct(")")) return Bad(i_, "expected ')' after the type of a cast");
        ++i_;
        return Cast(at, *type, Unary(depth + 1));
      }
      std::optional<int64_t> v = Sum(depth + 1);
      if (!v) return std::nullopt;
      if (!Punct(")")) return Bad(i_, "expected ')' in the pass position");
      ++i_;
      return v;
    }
    if (t.kind == TokenKind::kNumber) {
      NumberValue n = ParseNumber(t.text, false);
      if (!n.error.empty()) return Bad(at, n.error);
      if (n.is_float) {
        return Bad(at, absl::StrCat("the pass position must be an integer, not '", t.text, "'"));
      }
      ++i_;
      return Checked(at, n.i);
    }
    if (t.IsIdent("static_cast")) {
      ++i_;
      if (!Punct("<")) return Bad(i_, "expected '<' after static_cast");
      ++i_;
      std::optional<CppType> type = TypeName();
      if (!type) return Bad(i_, "expected an integer type in static_cast");
      if (!Punct(">")) return Bad(i_, "expected '>' after the type of static_cast");
      ++i_;
      return Cast(at, *type, Parenthesized(depth));
    }
    if (t.kind == TokenKind::kIdentifier) {
      if (std::optional<CppType> type = TypeName()) {  // functional cast
        return Cast(at, *type, Parenthesized(depth));
      }
      std::optional<int64_t> v = PassGroupValue(t.text);
      if (!v) {
        return Bad(at, absl::StrCat("unknown pass group '", t.text, "'"));
      }
      out_.names.push_back(t.text);
      ++i_;
      return v;
    }
    return Bad(at, absl::StrCat("expected a number or a pass-group name, found '", t.text, "'"));
  }

  std::optional<int64_t> Parenthesized(int depth) {
    if (!Punct("(")) return Bad(i_, "expected '(' after the type of a cast");
    ++i_;
    std::optional<int64_t> v = Sum(depth + 1);
    if (!v) return std::nullopt;
    if (!Punct(")")) return Bad(i_, "expected ')' at the end of the cast");
    ++i_;
    return v;
  }

  const std::vector<Token>& toks_;
  size_t i_;
  size_t end_;
  PassSpecValue out_;
};

}  // namespace

PassSpecValue EvaluatePassSpec(const std::vector<Token>& toks, size_t begin, size_t end) {
  return PassExpr(toks, begin, end).Run();
}

std::optional<PassSpecDeviation> PassSpecBeyondGrammar(const std::vector<Token>& toks, size_t begin,
                                                       size_t end) {
  constexpr char kRule[] =
      "(pass_spec ::= <name> | <name> '+' <integer_const>, the constant decimal with no sign or "
      "suffix); the HTP's parser may reject it";
  // The items as written: a token, or the run of tokens one macro use gave.
  struct Item {
    size_t tok;
    bool macro;
  };
  std::vector<Item> items;
  for (size_t i = begin; i < end; ++i) {
    const Token& t = toks[i];
    if (!t.expanded_from.empty() && !items.empty() && items.back().macro) {
      const Token& first = toks[items.back().tok];
      if (first.expanded_from == t.expanded_from &&
          first.expansion_loc.file == t.expansion_loc.file &&
          first.expansion_loc.line == t.expansion_loc.line &&
          first.expansion_loc.col == t.expansion_loc.col) {
        continue;
      }
    }
    items.push_back({i, !t.expanded_from.empty()});
  }
  if (items.empty()) return std::nullopt;
  auto fail = [&](size_t k, std::string what) {
    return PassSpecDeviation{items[k].tok, absl::StrCat(what, " ", kRule)};
  };
  const Token& first = toks[items[0].tok];
  if (!items[0].macro && first.kind != TokenKind::kIdentifier) {
    return fail(0, absl::StrCat("a pass position that starts with '", first.text,
                                "' is not in the HTP rule grammar"));
  }
  if (items.size() == 1) return std::nullopt;
  const Token& op = toks[items[1].tok];
  if (items[1].macro || !op.IsPunct("+")) {
    return fail(1, absl::StrCat("'", op.text,
                                "' after the pass-group name is not in the HTP rule grammar"));
  }
  if (items.size() == 2) return std::nullopt;  // EvaluatePassSpec rejected it already
  const Token& n = toks[items[2].tok];
  const bool decimal = !items[2].macro && n.kind == TokenKind::kNumber &&
                       n.text.find_first_not_of("0123456789") == std::string::npos &&
                       (n.text.size() == 1 || n.text[0] != '0');
  if (!decimal) {
    std::string what;
    if (items[2].macro) {
      what = absl::StrCat("a pass offset given by macro '", n.expanded_from, "'");
    } else if (n.kind == TokenKind::kNumber) {
      what = absl::StrCat("pass offset '", n.text, "'");
    } else {
      what = absl::StrCat("a pass offset starting with '", n.text, "'");
    }
    return fail(2, absl::StrCat(what, " is not a plain decimal constant in the HTP rule grammar"));
  }
  if (items.size() > 3) {
    return fail(3, absl::StrCat("'", toks[items[3].tok].text,
                                "' after the pass offset is not in the HTP rule grammar"));
  }
  return std::nullopt;
}

int64_t MapOldSchemePriority(int64_t p) {
  // (old start, current group) in ascending old value.
  static constexpr std::pair<int64_t, std::string_view> kOld[] = {
      {0, "BEGIN"},    {100, "GRAPH_CLEANUP"}, {500, "PRE_QNN"}, {1000, "QNN"},
      {2000, "EARLY"}, {3000, "MIDDLE"},       {4000, "LATE"},
  };
  if (p < 0) return p;
  int64_t start = 0;
  std::string_view group = "BEGIN";
  for (const auto& [old, name] : kOld) {
    if (p >= old) {
      start = old;
      group = name;
    }
  }
  return *PassGroupValue(group) + (p - start);
}

}  // namespace egret::rules
