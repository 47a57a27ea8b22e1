#include "egret/rules_compile/compiler.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/rules/pass_groups.h"
#include "egret/rules/rule_flags.h"
#include "egret/rules_compile/read_scope.h"

namespace egret::rules {
namespace {

struct MatchBuilder {
  int next_slot = 0;
  absl::flat_hash_map<std::string, int> node_slots;  // LET tag -> node slot
  std::vector<std::string> tags;                     // every tag, first occurrence order

  absl::StatusOr<Pattern> Build(const MatchNode& m) {
    switch (m.kind) {
      case MatchKind::kTag:
        if (m.tag == "*") return BadInput(m.loc(), "\"*\" cannot be used as a tag in a match");
        tags.push_back(m.tag);
        return Pattern::Var(m.tag);
      case MatchKind::kLet: {
        if (m.operands.size() != 1) return BadInput(m.loc(), "LET needs one operand");
        int slot = next_slot;  // the inner op's slot (pre-order)
        absl::StatusOr<Pattern> inner = Build(m.operands[0]);
        if (!inner.ok()) return inner.status();
        if (inner->is_var()) return BadInput(m.loc(), "LET must wrap Op or OpVarIn");
        node_slots[m.tag] = slot;
        tags.push_back(m.tag);
        inner->As(m.tag);
        return inner;
      }
      case MatchKind::kOp:
      case MatchKind::kOpVarIn: {
        ++next_slot;
        std::vector<Pattern> children;
        for (const MatchNode& c : m.operands) {
          absl::StatusOr<Pattern> p = Build(c);
          if (!p.ok()) return p.status();
          children.push_back(*std::move(p));
        }
        return m.kind == MatchKind::kOp ? Pattern::Op(m.op, std::move(children))
                                        : Pattern::OpVarIn(m.op, std::move(children));
      }
    }
    return BadInput(m.loc(), "unknown match form");
  }
};

}  // namespace

absl::StatusOr<CompiledMatch> CompileMatch(const MatchNode& match) {
  if (match.kind != MatchKind::kOp && match.kind != MatchKind::kOpVarIn) {
    return BadInput(match.loc(), "the root of a match must be Op or OpVarIn");
  }
  MatchBuilder b;
  absl::StatusOr<Pattern> p = b.Build(match);
  if (!p.ok()) return p.status();
  absl::StatusOr<CompiledPattern> cp = CompilePattern(*p);
  if (!cp.ok()) return BadInput(match.loc(), std::string(cp.status().message()));
  CompiledMatch out;
  out.pattern = *std::move(p);
  out.bindings["*"] = TagSlot{-1, 0};
  for (const std::string& t : b.tags) {
    TagSlot s;
    s.var = cp->VarIndex(t);
    auto it = b.node_slots.find(t);
    if (it != b.node_slots.end()) s.node = it->second;
    out.bindings[t] = s;
  }
  return out;
}

namespace {

const FunctionLibrary& Builtins() {
  static const FunctionLibrary* builtins = new FunctionLibrary(FunctionLibrary::WithBuiltins());
  return *builtins;
}

}  // namespace

std::string RuleLabel(const Rule& rule) {
  return absl::StrFormat("%s@%s:%d", rule.PassSpec(), rule.loc().file, rule.loc().line);
}

absl::StatusOr<CompiledRule> CompileRule(const Rule& rule, const CompileOptions& options) {
  const FunctionLibrary* functions = options.functions ? options.functions : &Builtins();
  absl::StatusOr<CompiledMatch> match = CompileMatch(rule.match);
  if (!match.ok()) return match.status();
  CompiledRule out;
  out.priority = rule.priority;
  out.loc = rule.loc();
  out.label = RuleLabel(rule);
  out.log = std::make_shared<RuleLog>();
  // The bindings must outlive nothing: compiled closures copy the slots.
  ExprEnv env;
  env.bindings = &match->bindings;
  env.options = &options.options;
  env.functions = functions;
  Guard guard;
  if (rule.constraint != nullptr) {
    absl::StatusOr<Guard> g = CompileGuard(*rule.constraint, env);
    if (!g.ok()) return g.status();
    guard = *std::move(g);
  }
  absl::StatusOr<Applier> applier =
      CompileReplacement(rule, out.label, match->bindings, &options.options, functions, out.log);
  if (!applier.ok()) return applier.status();
  absl::StatusOr<Rewrite> rw =
      MakeRewrite(out.label, match->pattern, *std::move(applier), std::move(guard));
  if (!rw.ok()) return BadInput(rule.loc(), std::string(rw.status().message()));
  out.rewrite = *std::move(rw);
  // The incremental search must look as far as the guard and the replacement
  // navigate (INPUT_OF chains), plus one level for reading a class's nodes.
  int depth = rule.constraint ? NavigationDepth(*rule.constraint) : 0;
  depth = std::max(depth, NavigationDepth(*rule.replacement));
  out.rewrite.lookahead = 1 + depth;
  // What they read (read_scope.h) says which matches found again need not be
  // applied again (Rewrite::reads).
  out.rewrite.reads = ReplacementReads(*rule.replacement, match->bindings);
  if (rule.constraint) {
    // The wider of the two: Rewrite::Reads runs from the widest.
    out.rewrite.reads =
        std::min(out.rewrite.reads, ConstraintReads(*rule.constraint, match->bindings));
  }
  return out;
}

std::vector<CompiledRule> CompileRules(const RuleSet& set, const CompileOptions& options,
                                       DiagnosticList* diags, std::vector<SkippedRule>* skipped) {
  const FunctionLibrary& functions = options.functions ? *options.functions : Builtins();
  std::vector<CompiledRule> out;
  for (size_t i = 0; i < set.rules.size(); ++i) {
    if (i < set.valid.size() && !set.valid[i]) continue;
    if (!RuleRuns(set.rules[i], options.rule_flags)) continue;
    if (!options.device_lowering && IsDeviceLoweringPass(set.rules[i].priority)) continue;
    if (std::vector<UnboundCall> calls = UnboundCalls(set.rules[i], functions); !calls.empty()) {
      if (skipped != nullptr) {
        skipped->push_back(
            SkippedRule{RuleLabel(set.rules[i]), set.rules[i].loc(), std::move(calls)});
      }
      continue;
    }
    absl::StatusOr<CompiledRule> r = CompileRule(set.rules[i], options);
    if (!r.ok()) {
      Diagnostic d;
      d.severity = Severity::kError;
      d.loc = set.rules[i].loc();
      d.message = std::string(r.status().message());
      // The message is already "file:line:col: error: ..." formatted.
      const std::string prefix = d.loc.ToString() + ": error: ";
      if (d.message.rfind(prefix, 0) == 0) d.message = d.message.substr(prefix.size());
      diags->Add(std::move(d));
      continue;
    }
    out.push_back(*std::move(r));
  }
  return out;
}

std::vector<std::pair<int64_t, std::vector<size_t>>> GroupByPriority(
    const std::vector<CompiledRule>& rules) {
  std::map<int64_t, std::vector<size_t>> groups;
  for (size_t i = 0; i < rules.size(); ++i) groups[rules[i].priority].push_back(i);
  return {groups.begin(), groups.end()};
}

}  // namespace egret::rules
