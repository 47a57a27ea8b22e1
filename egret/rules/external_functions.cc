#include "egret/rules/external_functions.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace egret::rules {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitSemicolons(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == ';') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

bool IsIdentChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The type name of a parameter: its first identifier that is not a
// qualifier, with namespaces dropped ("hnnx::Split_Context const &s" ->
// "Split_Context", "const OpRef &" -> "OpRef").
std::string_view TypeNameOf(std::string_view param) {
  size_t i = 0;
  while (i < param.size()) {
    if (!IsIdentChar(param[i])) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < param.size() && IsIdentChar(param[i])) ++i;
    std::string_view word = param.substr(start, i - start);
    if (word == "const" || word == "volatile" || word == "struct" || word == "class") continue;
    if (i + 1 < param.size() && param[i] == ':' && param[i + 1] == ':') {
      i += 2;  // a namespace qualifier: the name follows
      continue;
    }
    return word;
  }
  return {};
}

}  // namespace

bool IsContextParam(std::string_view type) {
  std::string_view name = TypeNameOf(type);
  return name == "split" || name == "Split_Context" || name == "Replacement" || name == "OpDef";
}

std::optional<size_t> ExternalFunction::RuleArity() const {
  if (variadic) return std::nullopt;
  size_t n = 0;
  for (const std::string& p : params) {
    if (!IsContextParam(p)) ++n;
  }
  return n;
}

bool ExternalFunction::AcceptsArity(size_t n) const {
  std::optional<size_t> max = RuleArity();
  if (!max) return true;
  if (n <= *max && n + optional_operands >= *max) return true;
  for (size_t a : also_accepts) {
    if (a == n) return true;
  }
  return false;
}

std::string ExternalFunction::ArityText() const {
  std::optional<size_t> max = RuleArity();
  if (!max) return "any number of";
  std::string out = optional_operands == 0
                        ? absl::StrCat(*max)
                        : absl::StrCat(*max - std::min(optional_operands, *max), " to ", *max);
  for (size_t a : also_accepts) absl::StrAppend(&out, " or ", a);
  return out;
}

ExternalFunctionRegistry ExternalFunctionRegistry::WithBuiltins() {
  ExternalFunctionRegistry r;
  auto add = [&r](std::string name, std::vector<std::string> params, size_t optional,
                  std::string ret = "OpRef") {
    ExternalFunction f;
    f.name = std::move(name);
    f.return_type = std::move(ret);
    f.params = std::move(params);
    f.optional_operands = optional;
    f.builtin = true;
    r.Register(std::move(f));
  };
  const std::string rpx = "Replacement &";
  const std::string ctx = "Split_Context const &";
  add("simple_split_start", {rpx, ctx, "OpRef"}, 0);
  add("simple_split_size", {rpx, ctx, "OpRef"}, 0);
  add("simpledim_split_start", {rpx, ctx, "OpRef", "int"}, 0);
  add("simpledim_split_size", {rpx, ctx, "OpRef", "int"}, 0);
  // (in, stride, taps, dilation): egret's TYPICAL_CONV_SLICE passes all four
  // to both; the SDK's passes (in, stride) to the start, whose taps and
  // dilation are unused, and (in, stride, taps, dilation) to the size. The
  // stride is an int or an operand (a stride shape).
  add("conv_valid_split_start", {rpx, ctx, "OpRef", "stride", "int", "int"}, 2);
  add("conv_valid_split_size", {rpx, ctx, "OpRef", "stride", "int", "int"}, 1);
  // Constraints on the e-graph's uses of an operand (shape_functions.h).
  add("has_only_one_consumer", {"OpRef"}, 0, "bool");
  add("has_n_consumers", {"OpRef", "int"}, 0, "bool");
  return r;
}

void ExternalFunctionRegistry::Register(ExternalFunction fn) {
  std::string key = fn.name;
  fns_.insert_or_assign(std::move(key), std::move(fn));
}

const ExternalFunction* ExternalFunctionRegistry::Find(std::string_view name) const {
  auto it = fns_.find(std::string(name));
  return it == fns_.end() ? nullptr : &it->second;
}

void ExternalFunctionRegistry::AddAnnotation(const SourceLocation& loc, std::string_view text,
                                             DiagnosticList* diags) {
  // Tolerate the braces being included.
  std::string_view body = Trim(text);
  if (!body.empty() && body.front() == '{') body.remove_prefix(1);
  if (!body.empty() && body.back() == '}') body.remove_suffix(1);
  bool any = false;
  for (std::string_view decl : SplitSemicolons(body)) {
    decl = Trim(decl);
    if (decl.empty()) continue;
    any = true;
    size_t open = decl.find('(');
    size_t close = decl.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
        !Trim(decl.substr(close + 1)).empty()) {
      diags->Error(loc, absl::StrCat("malformed EXTERNAL_SHAPEFN declaration '", std::string(decl),
                                     "': expected '<return type> <name>(<parameter types>)'"));
      continue;
    }
    std::string_view head = Trim(decl.substr(0, open));
    size_t name_start = head.size();
    while (name_start > 0 && IsIdentChar(head[name_start - 1])) --name_start;
    std::string_view name = head.substr(name_start);
    std::string_view ret = Trim(head.substr(0, name_start));
    if (name.empty() || ret.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) {
      diags->Error(loc, absl::StrCat("malformed EXTERNAL_SHAPEFN declaration '", std::string(decl),
                                     "': expected '<return type> <name>(<parameter types>)'"));
      continue;
    }
    ExternalFunction f;
    f.name = std::string(name);
    f.return_type = std::string(ret);
    f.loc = loc;
    std::string_view params = Trim(decl.substr(open + 1, close - open - 1));
    if (!params.empty() && params != "void") {
      // Split on commas outside <...> and (...).
      int depth = 0;
      size_t start = 0;
      for (size_t i = 0; i <= params.size(); ++i) {
        char c = i < params.size() ? params[i] : ',';
        if (c == '<' || c == '(') ++depth;
        if (c == '>' || c == ')') --depth;
        if (c == ',' && depth <= 0) {
          std::string_view p = Trim(params.substr(start, i - start));
          if (p == "...") {
            f.variadic = true;
          } else {
            f.params.emplace_back(p);
          }
          start = i + 1;
        }
      }
    }
    if (auto it = fns_.find(f.name); it != fns_.end() && it->second.builtin) {
      // Re-declaring a built-in: keep it, and accept the declared count too.
      if (std::optional<size_t> n = f.RuleArity(); n && !it->second.AcceptsArity(*n)) {
        it->second.also_accepts.push_back(*n);
      }
      continue;
    }
    Register(std::move(f));
  }
  if (!any) diags->Error(loc, "empty EXTERNAL_SHAPEFN annotation");
}

}  // namespace egret::rules
