#include "egret/egraph/rewrite.h"

#include <memory>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"

namespace egret {
namespace {

// The rhs as a flat post-order program: each step either reads a variable or
// adds an op node whose operands are earlier steps.
struct RhsStep {
  int var = -1;  // >= 0: the match's substitution entry; -1: an op node; -2: the root
  Symbol op;
  Payload payload = kNoPayload;
  std::vector<int> operands;  // indices of earlier steps
};

absl::Status Flatten(const Pattern& p, const CompiledPattern& lhs, std::vector<RhsStep>& steps) {
  if (p.is_var()) {
    RhsStep s;
    if (p.name() == "*") {
      s.var = -2;
    } else {
      s.var = lhs.VarIndex(p.name());
      if (s.var < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("right-hand side variable ?", p.name(), " is not bound by the left"));
      }
    }
    steps.push_back(std::move(s));
    return absl::OkStatus();
  }
  if (p.variadic()) return absl::InvalidArgumentError("'...' is not allowed on a right-hand side");
  RhsStep s;
  s.op = p.op();
  s.payload = p.payload().value_or(kNoPayload);
  for (const Pattern& c : p.children()) {
    absl::Status st = Flatten(c, lhs, steps);
    if (!st.ok()) return st;
    s.operands.push_back(static_cast<int>(steps.size()) - 1);
  }
  steps.push_back(std::move(s));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Rewrite> MakeRewrite(std::string name, const Pattern& lhs, Applier applier,
                                    Guard guard) {
  absl::StatusOr<CompiledPattern> compiled = CompilePattern(lhs);
  if (!compiled.ok()) return compiled.status();
  if (!applier) return absl::InvalidArgumentError(absl::StrCat("rule '", name, "' has no applier"));
  Rewrite r;
  r.name = std::move(name);
  r.pattern = *std::move(compiled);
  r.lookahead = guard ? 1 : 0;
  r.guard = std::move(guard);
  r.applier = std::move(applier);
  return r;
}

absl::StatusOr<Applier> PatternApplier(const CompiledPattern& lhs, const Pattern& rhs) {
  auto steps = std::make_shared<std::vector<RhsStep>>();
  absl::Status st = Flatten(rhs, lhs, *steps);
  if (!st.ok()) return st;
  return Applier([steps](EGraph& g, const MatchView& m) -> std::optional<Id> {
    absl::InlinedVector<Id, 8> ids(steps->size(), kNoId);
    const TypeId type = g.TypeIdOf(g.Find(m.root));
    absl::InlinedVector<Id, 4> operands;
    for (size_t i = 0; i < steps->size(); ++i) {
      const RhsStep& s = (*steps)[i];
      if (s.var >= 0) {
        ids[i] = m.subst[s.var];
      } else if (s.var == -2) {
        ids[i] = m.root;
      } else {
        operands.clear();
        for (int k : s.operands) operands.push_back(ids[k]);
        absl::StatusOr<Id> id = g.Add(ENodeView{s.op, s.payload, operands}, type);
        if (!id.ok()) return std::nullopt;  // recorded in g.conflicts()
        ids[i] = *id;
      }
    }
    return ids.back();
  });
}

absl::StatusOr<Rewrite> MakeRewrite(std::string name, std::string_view lhs, std::string_view rhs,
                                    Guard guard) {
  absl::StatusOr<Pattern> l = ParsePattern(lhs);
  if (!l.ok()) return l.status();
  absl::StatusOr<Pattern> r = ParsePattern(rhs);
  if (!r.ok()) return r.status();
  absl::StatusOr<CompiledPattern> compiled = CompilePattern(*l);
  if (!compiled.ok()) return compiled.status();
  absl::StatusOr<Applier> applier = PatternApplier(*compiled, *r);
  if (!applier.ok()) return applier.status();
  return MakeRewrite(std::move(name), *l, *std::move(applier), std::move(guard));
}

}  // namespace egret
