// A pattern's paths (PatternPaths) and the walk up them (PathWalker): the
// paths of a pattern's places, and, on random e-graphs, that every match's
// root is reached by walking up from the class of each of its nodes and each
// of its variables alone, while a walk does not pass a parent of another op
// or with the class at another operand.
#include "egret/egraph/pattern_paths.h"

#include <random>
#include <string>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/matcher.h"
#include "egret/egraph/pattern.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::Leaf;

CompiledPattern Compiled(std::string_view text) {
  absl::StatusOr<Pattern> p = ParsePattern(text);
  EXPECT_TRUE(p.ok()) << p.status();
  absl::StatusOr<CompiledPattern> cp = CompilePattern(*p);
  EXPECT_TRUE(cp.ok()) << cp.status();
  return *std::move(cp);
}

// "op:step,step" for an op place, "?:step,..." for a variable; a step is
// "op/operand", from the place up.
std::vector<std::string> Describe(const std::vector<PatternPath>& paths) {
  std::vector<std::string> out;
  for (const PatternPath& p : paths) {
    std::string s = p.var ? "?" : std::string(p.op.str());
    s += ":";
    for (size_t i = 0; i < p.up.size(); ++i) {
      if (i > 0) s += ",";
      s += std::string(p.up[i].op.str()) + "/" + std::to_string(p.up[i].operand);
    }
    out.push_back(s);
  }
  return out;
}

TEST(PatternPathsTest, EachPlaceUpToTheRoot) {
  EXPECT_EQ(Describe(PatternPaths(Compiled("(F (G ?x (H ?y)) ?z)"))),
            (std::vector<std::string>{"F:", "G:F/0", "H:G/1,F/0", "?:F/1", "?:G/0,F/0",
                                      "?:H/0,G/1,F/0"}));
  // A repeated variable has a path per occurrence; the same path twice is
  // kept once.
  EXPECT_EQ(Describe(PatternPaths(Compiled("(F ?a ?a)"))),
            (std::vector<std::string>{"F:", "?:F/0", "?:F/1"}));
  EXPECT_EQ(Describe(PatternPaths(Compiled("(F (G ?a) (G ?a))"))),
            (std::vector<std::string>{"F:", "G:F/0", "G:F/1", "?:G/0,F/0", "?:G/0,F/1"}));
  // A binding names an op place's class: no path of its own.
  EXPECT_EQ(Describe(PatternPaths(Compiled("(F ?t=(G ?a))"))),
            (std::vector<std::string>{"F:", "G:F/0", "?:G/0,F/0"}));
  EXPECT_TRUE(PatternPaths(Compiled("?x")).empty());
}

TEST(PathWalkerTest, FollowsOnlyTheStepsOpAndOperand) {
  EGraph g;
  const Id a = Leaf(g, "a"), b = Leaf(g, "b");
  const Id ga = AddOp(g, "G", {a});
  const Id f = AddOp(g, "F", {ga, b});   // F(G(a), b)
  const Id f2 = AddOp(g, "F", {b, ga});  // F(b, G(a)): G(a) at the other operand
  AddOp(g, "K", {ga, b});                // another op over G(a)
  g.Rebuild();
  const std::vector<PatternPath> paths = PatternPaths(Compiled("(F (G ?x) ?y)"));
  ASSERT_EQ(Describe(paths), (std::vector<std::string>{"F:", "G:F/0", "?:F/1", "?:G/0,F/0"}));
  PathWalker w;
  w.Begin(g.num_ids());
  const Id from_a[] = {a};
  w.Walk(g, paths[3], from_a);  // ?x = a
  EXPECT_EQ(w.roots(), std::vector<Id>{f});
  EXPECT_TRUE(w.Reached(f));
  EXPECT_FALSE(w.Reached(f2));
  w.Begin(g.num_ids());
  const Id from_ga[] = {ga};
  w.Walk(g, paths[1], from_ga);  // G(a) at the G place
  EXPECT_EQ(w.roots(), std::vector<Id>{f});
  w.Begin(g.num_ids());
  w.Walk(g, paths[2], from_ga);  // G(a) as ?y: F(b, G(a))
  EXPECT_EQ(w.roots(), std::vector<Id>{f2});
  w.Walk(g, paths[2], from_ga);  // each root once per Begin
  EXPECT_EQ(w.roots(), std::vector<Id>{f2});
}

// Random e-graphs of F (binary), G and H (unary) over a few leaves, with
// merges; for each pattern and each match, a walk from one of its places'
// class alone reaches the match's root.
TEST(PathWalkerTest, EveryMatchRootIsReachedFromEachPlace) {
  const char* kPatterns[] = {
      "(F ?x ?y)",         "(F (G ?x) ?y)",     "(F ?a (F ?b ?c))",          "(F (F ?a ?b) ?c)",
      "(G (H (F ?x ?y)))", "(F (G ?a) (H ?a))", "(H (F (G ?x) (G (H ?y))))", "(F ?t=(G ?x) ?t)"};
  size_t checked = 0;
  for (uint32_t seed = 0; seed < 20; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    EGraph g;
    std::vector<Id> terms = {Leaf(g, "a"), Leaf(g, "b"), Leaf(g, "c")};
    auto pick = [&] { return terms[rng() % terms.size()]; };
    while (terms.size() < 60) {
      const uint32_t k = rng() % 4;
      terms.push_back(k == 0   ? AddOp(g, "G", {pick()})
                      : k == 1 ? AddOp(g, "H", {pick()})
                               : AddOp(g, "F", {pick(), pick()}));
    }
    for (int i = 0; i < 6; ++i) ::egret::testing::Merge(g, pick(), pick());
    g.Rebuild();
    for (const char* text : kPatterns) {
      SCOPED_TRACE(text);
      const CompiledPattern pat = Compiled(text);
      const std::vector<PatternPath> paths = PatternPaths(pat);
      // The op of each node slot (pre-order: the Binds' order).
      std::vector<Symbol> slot_op;
      for (const MatchInstr& in : pat.program()) {
        if (in.kind == MatchInstr::kBind) slot_op.push_back(in.op);
      }
      PathWalker w;
      Matcher(pat).MatchAll(g, [&](const MatchView& m) {
        auto reached_from = [&](Id c, bool var, Symbol op) {
          w.Begin(g.num_ids());
          const Id from[] = {g.Find(c)};
          for (const PatternPath& p : paths) {
            if (p.var == var && (var || p.op == op)) w.Walk(g, p, from);
          }
          return w.Reached(g.Find(m.root));
        };
        for (size_t k = 0; k < m.nodes.size(); ++k) {
          EXPECT_TRUE(reached_from(g.NodeClass(m.nodes[k]), false, slot_op[k])) << "node " << k;
          ++checked;
        }
        for (size_t v = 0; v < m.subst.size(); ++v) {
          EXPECT_TRUE(reached_from(m.subst[v], true, Symbol())) << "variable " << v;
          ++checked;
        }
        return true;
      });
    }
  }
  EXPECT_GT(checked, 5000u);
}

}  // namespace
}  // namespace egret
