#include "egret/egraph/op_traits.h"

#include <algorithm>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "egret/graph/op_table.h"
#include "egret/support/diagnostic.h"

namespace egret {

OpTable OpTable::Default() {
  OpTable t;
  for (const OpDef& d : AllOpDefs()) {
    if (!d.algebra.any()) continue;
    t.Set(d.name, OpTraits{.arity = d.max_inputs(),
                           .commutative = d.algebra.commutative,
                           .associative = d.algebra.associative,
                           .broadcast_associative = d.algebra.broadcast_associative,
                           .idempotent = d.algebra.idempotent,
                           .involution = d.algebra.involution});
  }
  return t;
}

void OpTable::Set(std::string_view op, OpTraits traits) { traits_[Symbol::Intern(op)] = traits; }

const OpTraits* OpTable::Find(Symbol op) const {
  auto it = traits_.find(op);
  return it == traits_.end() ? nullptr : &it->second;
}

std::vector<std::pair<Symbol, OpTraits>> OpTable::Entries() const {
  std::vector<std::pair<Symbol, OpTraits>> out(traits_.begin(), traits_.end());
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first.str() < b.first.str(); });
  return out;
}

absl::Status OpTable::Parse(std::string_view text, std::string_view file) {
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    ++line_no;
    size_t hash = line.find('#');
    if (hash != absl::string_view::npos) line = line.substr(0, hash);
    std::vector<absl::string_view> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (words.empty()) continue;
    OpTraits t;
    for (size_t i = 1; i < words.size(); ++i) {
      absl::string_view w = words[i];
      if (absl::ConsumePrefix(&w, "arity=")) {
        if (!absl::SimpleAtoi(w, &t.arity) || t.arity < -1) {
          return BadInput(SourceLocation{std::string(file), line_no, 0},
                          "bad arity '" + std::string(w) + "'");
        }
      } else if (w == "commutative") {
        t.commutative = true;
      } else if (w == "associative") {
        t.associative = true;
      } else if (w == "broadcast_associative") {
        t.broadcast_associative = true;
      } else if (w == "idempotent") {
        t.idempotent = true;
      } else if (w == "involution") {
        t.involution = true;
      } else if (w == "side_effecting") {
        t.side_effecting = true;
      } else {
        return BadInput(SourceLocation{std::string(file), line_no, 0},
                        "unknown op trait '" + std::string(w) + "'");
      }
    }
    if ((t.commutative || t.associative || t.idempotent) && t.arity != 2) {
      return BadInput(SourceLocation{std::string(file), line_no, 0},
                      "commutative/associative/idempotent ops must have arity=2");
    }
    if (t.broadcast_associative && !t.associative) {
      return BadInput(SourceLocation{std::string(file), line_no, 0},
                      "broadcast_associative needs associative");
    }
    if (t.involution && t.arity != 1) {
      return BadInput(SourceLocation{std::string(file), line_no, 0},
                      "involution ops must have arity=1");
    }
    Set(std::string_view(words[0].data(), words[0].size()), t);
  }
  return absl::OkStatus();
}

}  // namespace egret
