#include "egret/egraph/pattern.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace egret {

Pattern Pattern::Var(std::string name) {
  Pattern p;
  p.kind_ = Kind::kVar;
  p.name_ = std::move(name);
  return p;
}

Pattern Pattern::Op(std::string_view op, std::vector<Pattern> children) {
  Pattern p;
  p.kind_ = Kind::kOp;
  p.op_ = Symbol::Intern(op);
  p.children_ = std::move(children);
  return p;
}

Pattern Pattern::OpVarIn(std::string_view op, std::vector<Pattern> children) {
  Pattern p = Op(op, std::move(children));
  p.variadic_ = true;
  return p;
}

Pattern& Pattern::As(std::string name) {
  name_ = std::move(name);
  return *this;
}

Pattern& Pattern::WithPayload(Payload payload) {
  payload_ = payload;
  return *this;
}

std::string Pattern::ToString() const {
  if (is_var()) return "?" + name_;
  std::string out;
  if (!name_.empty()) absl::StrAppend(&out, "?", name_, "=");
  std::string head(op_.str());
  if (payload_.has_value()) absl::StrAppend(&head, "#", *payload_);
  if (children_.empty() && !variadic_) return out + head;
  absl::StrAppend(&out, "(", head);
  for (const Pattern& c : children_) absl::StrAppend(&out, " ", c.ToString());
  if (variadic_) out += " ...";
  out += ")";
  return out;
}

namespace {

class PatternParser {
 public:
  explicit PatternParser(std::string_view text) : text_(text) {}

  absl::StatusOr<Pattern> ParseAll() {
    absl::StatusOr<Pattern> p = Parse();
    if (!p.ok()) return p;
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the pattern");
    return p;
  }

 private:
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(absl::StrFormat("pattern offset %d: %s", pos_, what));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string_view Word() {
    size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
           text_[pos_] != '(' && text_[pos_] != ')' && text_[pos_] != '=') {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  absl::StatusOr<Pattern> Head(std::string_view word) {
    size_t hash = word.rfind('#');
    if (hash == std::string_view::npos || hash == 0) return Pattern::Op(word);
    uint32_t payload;
    std::string_view digits = word.substr(hash + 1);
    if (!absl::SimpleAtoi(absl::string_view(digits.data(), digits.size()), &payload)) {
      return Pattern::Op(word);  // '#' is part of the op name
    }
    Pattern p = Pattern::Op(word.substr(0, hash));
    p.WithPayload(payload);
    return p;
  }

  absl::StatusOr<Pattern> Parse() {
    SkipSpace();
    if (pos_ >= text_.size()) return Error("expected a pattern");
    if (text_[pos_] == '?') {
      ++pos_;
      std::string_view name = Word();
      if (name.empty()) return Error("empty variable name");
      if (pos_ < text_.size() && text_[pos_] == '=') {
        ++pos_;
        absl::StatusOr<Pattern> inner = Parse();
        if (!inner.ok()) return inner;
        if (inner->is_var()) return Error("a binding must name an op pattern");
        inner->As(std::string(name));
        return inner;
      }
      return Pattern::Var(std::string(name));
    }
    if (text_[pos_] == ')') return Error("unexpected ')'");
    if (text_[pos_] != '(') {
      std::string_view word = Word();
      if (word.empty()) return Error("expected an op name");
      return Head(word);
    }
    ++pos_;
    SkipSpace();
    std::string_view word = Word();
    if (word.empty()) return Error("expected an op name after '('");
    absl::StatusOr<Pattern> head = Head(word);
    if (!head.ok()) return head;
    std::vector<Pattern> children;
    bool variadic = false;
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) return Error("missing ')'");
      if (text_[pos_] == ')') {
        ++pos_;
        break;
      }
      if (text_.substr(pos_, 3) == "...") {
        pos_ += 3;
        variadic = true;
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != ')') return Error("'...' must come last");
        continue;
      }
      absl::StatusOr<Pattern> child = Parse();
      if (!child.ok()) return child;
      children.push_back(*std::move(child));
    }
    Pattern p = variadic ? Pattern::OpVarIn(head->op().str(), std::move(children))
                         : Pattern::Op(head->op().str(), std::move(children));
    if (head->payload().has_value()) p.WithPayload(*head->payload());
    return p;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

struct Compiler {
  CompiledPattern* out;
  std::vector<MatchInstr>* program;
  std::vector<std::string>* vars;
  std::vector<uint16_t>* var_regs;
  absl::flat_hash_map<std::string, uint16_t> regs{{"*", 0}};
  int next_reg = 1;
  int next_slot = 0;
  int depth = 0;

  void BindName(const std::string& name, uint16_t reg) {
    auto [it, inserted] = regs.try_emplace(name, reg);
    if (inserted) {
      vars->push_back(name);
      var_regs->push_back(reg);
      return;
    }
    MatchInstr cmp;
    cmp.kind = MatchInstr::kCompare;
    cmp.in = it->second;
    cmp.out = reg;
    program->push_back(cmp);
  }

  absl::Status Compile(const Pattern& p, uint16_t reg, int level) {
    if (p.is_var()) {
      if (p.name().empty()) return absl::InvalidArgumentError("pattern variable without a name");
      BindName(p.name(), reg);
      return absl::OkStatus();
    }
    if (p.op().str().empty()) return absl::InvalidArgumentError("pattern op without a name");
    depth = std::max(depth, level + 1);
    if (!p.name().empty()) BindName(p.name(), reg);
    if (next_reg + p.children().size() > 0xFFFF || next_slot >= 0xFFFF) {
      return absl::InvalidArgumentError("pattern too large");
    }
    MatchInstr bind;
    bind.kind = MatchInstr::kBind;
    bind.in = reg;
    bind.op = p.op();
    bind.arity = static_cast<uint16_t>(p.children().size());
    bind.variadic = p.variadic();
    bind.out = static_cast<uint16_t>(next_reg);
    bind.slot = static_cast<uint16_t>(next_slot++);
    if (p.payload().has_value()) {
      bind.check_payload = true;
      bind.payload = *p.payload();
    }
    next_reg += bind.arity;
    program->push_back(bind);
    // Variables first, so that a failing Compare prunes before deeper Binds.
    for (size_t i = 0; i < p.children().size(); ++i) {
      if (p.children()[i].is_var()) {
        absl::Status s = Compile(p.children()[i], static_cast<uint16_t>(bind.out + i), level + 1);
        if (!s.ok()) return s;
      }
    }
    for (size_t i = 0; i < p.children().size(); ++i) {
      if (!p.children()[i].is_var()) {
        absl::Status s = Compile(p.children()[i], static_cast<uint16_t>(bind.out + i), level + 1);
        if (!s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

absl::StatusOr<Pattern> ParsePattern(std::string_view text) {
  return PatternParser(text).ParseAll();
}

int CompiledPattern::VarIndex(std::string_view name) const {
  for (size_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<CompiledPattern> CompilePattern(const Pattern& pattern) {
  CompiledPattern out;
  Compiler c{&out, &out.program_, &out.vars_, &out.var_regs_};
  absl::Status s = c.Compile(pattern, 0, 0);
  if (!s.ok()) return s;
  out.root_is_var_ = pattern.is_var();
  out.root_op_ = pattern.is_var() ? Symbol() : pattern.op();
  out.depth_ = c.depth;
  for (const MatchInstr& in : out.program_) {
    if (in.kind == MatchInstr::kBind &&
        std::find(out.ops_.begin(), out.ops_.end(), in.op) == out.ops_.end()) {
      out.ops_.push_back(in.op);
    }
  }
  out.num_nodes_ = c.next_slot;
  out.num_regs_ = c.next_reg;
  out.source_ = pattern.ToString();
  return out;
}

}  // namespace egret
