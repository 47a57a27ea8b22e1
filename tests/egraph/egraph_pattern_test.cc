#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/matcher.h"
#include "egret/egraph/pattern.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::Leaf;
using ::egret::testing::Merge;

CompiledPattern Compile(std::string_view text) {
  absl::StatusOr<Pattern> p = ParsePattern(text);
  EXPECT_TRUE(p.ok()) << p.status();
  absl::StatusOr<CompiledPattern> c = CompilePattern(*p);
  EXPECT_TRUE(c.ok()) << c.status();
  return *c;
}

// All matches as (root, subst...) tuples.
std::set<std::vector<Id>> AllMatches(const EGraph& g, const CompiledPattern& p) {
  std::set<std::vector<Id>> out;
  Matcher m(p);
  m.MatchAll(g, [&](const MatchView& mv) {
    std::vector<Id> v{mv.root};
    v.insert(v.end(), mv.subst.begin(), mv.subst.end());
    out.insert(v);
    return true;
  });
  return out;
}

TEST(PatternTest, ParseAndPrintRoundTrip) {
  for (std::string_view text : {"(ElementWiseAdd ?a (ElementWiseAdd ?b ?c))", "(Concat ?a ?b ...)",
                                "?t=(Relu ?x)", "$Const", "(Op#3 ?a)", "?x"}) {
    absl::StatusOr<Pattern> p = ParsePattern(text);
    ASSERT_TRUE(p.ok()) << text << ": " << p.status();
    EXPECT_EQ(p->ToString(), text);
  }
  EXPECT_FALSE(ParsePattern("(Add ?a").ok());
  EXPECT_FALSE(ParsePattern("(Add ?a) x").ok());
  EXPECT_FALSE(ParsePattern("(Add ... ?a)").ok());
  EXPECT_FALSE(ParsePattern("?").ok());
  EXPECT_FALSE(ParsePattern(")").ok());
}

TEST(PatternTest, CompiledShape) {
  CompiledPattern p = Compile("(Add ?a (Add ?b ?c))");
  EXPECT_EQ(p.vars(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(p.depth(), 2);
  EXPECT_EQ(p.num_nodes(), 2);
  EXPECT_EQ(p.root_op().str(), "Add");
  EXPECT_EQ(p.VarIndex("b"), 1);
  EXPECT_EQ(p.VarIndex("zz"), -1);
  CompiledPattern nl = Compile("(Mul ?x ?x)");
  EXPECT_EQ(nl.vars().size(), 1u);
  EXPECT_EQ(std::count_if(nl.program().begin(), nl.program().end(),
                          [](const MatchInstr& i) { return i.kind == MatchInstr::kCompare; }),
            1);
}

TEST(PatternTest, MatchesNestedPatterns) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b"), c = Leaf(g, "c");
  Id bc = AddOp(g, "Add", {b, c});
  Id abc = AddOp(g, "Add", {a, bc});
  AddOp(g, "Add", {abc, c});
  g.Rebuild();
  auto m = AllMatches(g, Compile("(Add ?x (Add ?y ?z))"));
  EXPECT_EQ(m, (std::set<std::vector<Id>>{{abc, a, b, c}}));
  EXPECT_EQ(AllMatches(g, Compile("(Add ?x ?y)")).size(), 3u);
  EXPECT_EQ(AllMatches(g, Compile("(Mul ?x ?y)")).size(), 0u);
}

TEST(PatternTest, NonlinearPatternsRequireSameClass) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  Id aa = AddOp(g, "Mul", {a, a});
  Id ab = AddOp(g, "Mul", {a, b});
  g.Rebuild();
  CompiledPattern sq = Compile("(Mul ?x ?x)");
  EXPECT_EQ(AllMatches(g, sq), (std::set<std::vector<Id>>{{aa, a}}));
  // After a = b, Mul(a, b) is a square too (and congruent to Mul(a, a)).
  Merge(g, a, b);
  g.Rebuild();
  auto m = AllMatches(g, sq);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(*m.begin(), (std::vector<Id>{g.Find(ab), g.Find(a)}));
  // Repeated variable across levels.
  Id t = AddOp(g, "Sub", {aa, a});
  g.Rebuild();
  EXPECT_EQ(AllMatches(g, Compile("(Sub (Mul ?x ?y) ?x)")),
            (std::set<std::vector<Id>>{{g.Find(t), g.Find(a), g.Find(a)}}));
  EXPECT_TRUE(AllMatches(g, Compile("(Sub (Mul ?x ?y) (Relu ?x))")).empty());
}

TEST(PatternTest, VariadicMatchesAtLeastTheListedInputs) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b"), c = Leaf(g, "c");
  Id c1 = AddOp(g, "Concat", {a});
  Id c2 = AddOp(g, "Concat", {a, b});
  Id c3 = AddOp(g, "Concat", {a, b, c});
  g.Rebuild();
  EXPECT_EQ(AllMatches(g, Compile("(Concat ?x ?y ...)")),
            (std::set<std::vector<Id>>{{c2, a, b}, {c3, a, b}}));
  EXPECT_EQ(AllMatches(g, Compile("(Concat ...)")), (std::set<std::vector<Id>>{{c1}, {c2}, {c3}}));
  EXPECT_EQ(AllMatches(g, Compile("(Concat ?x ?y)")), (std::set<std::vector<Id>>{{c2, a, b}}));
}

TEST(PatternTest, BindingsAndRootName) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id r = AddOp(g, "Relu", {a});
  Id s = AddOp(g, "Sigmoid", {r});
  g.Rebuild();
  CompiledPattern p = Compile("(Sigmoid ?inner=(Relu ?x))");
  EXPECT_EQ(p.vars(), (std::vector<std::string>{"inner", "x"}));
  EXPECT_EQ(AllMatches(g, p), (std::set<std::vector<Id>>{{s, r, a}}));
  // "*" names the root: (Relu *) never matches here.
  EXPECT_TRUE(AllMatches(g, Compile("(Relu ?*)")).empty());
}

TEST(PatternTest, PayloadFilter) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id p1 = AddOp(g, "Op", {a}, testing::F32(), 1);
  AddOp(g, "Op", {a}, testing::F32(), 2);
  g.Rebuild();
  EXPECT_EQ(AllMatches(g, Compile("(Op#1 ?x)")), (std::set<std::vector<Id>>{{p1, a}}));
  EXPECT_EQ(AllMatches(g, Compile("(Op ?x)")).size(), 2u);
}

TEST(PatternTest, MatchesSeeOnlyTheLastRebuild) {
  // Adding and merging during matching does not change what is matched.
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  AddOp(g, "Add", {a, b});
  g.Rebuild();
  CompiledPattern p = Compile("(Add ?x ?y)");
  Matcher m(p);
  size_t n = 0;
  m.MatchAll(g, [&](const MatchView& mv) {
    ++n;
    Id swapped = AddOp(g, "Add", {mv.subst[1], mv.subst[0]});
    EXPECT_TRUE(g.Union(mv.root, swapped).ok());
    return true;
  });
  EXPECT_EQ(n, 1u);
  g.Rebuild();
  EXPECT_EQ(m.CountAll(g), 2u);
}

// Every match as (root, subst..., nodes...), with the semi-naive filter of
// Matcher::set_min_stamp when `min_stamp` is given.
std::set<std::vector<Id>> MatchesWithNodes(const EGraph& g, const CompiledPattern& p,
                                           std::optional<uint64_t> min_stamp) {
  std::set<std::vector<Id>> out;
  Matcher m(p);
  if (min_stamp) m.set_min_stamp(*min_stamp);
  m.MatchAll(g, [&](const MatchView& mv) {
    std::vector<Id> v{mv.root};
    v.insert(v.end(), mv.subst.begin(), mv.subst.end());
    v.insert(v.end(), mv.nodes.begin(), mv.nodes.end());
    out.insert(v);
    return true;
  });
  return out;
}

TEST(PatternTest, MinStampReportsExactlyTheMatchesWithAFreshNode) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b"), c = Leaf(g, "c"), d = Leaf(g, "d");
  Id p = AddOp(g, "Add", {b, c});
  AddOp(g, "Add", {a, p});
  g.Rebuild();
  const uint64_t e1 = g.epoch();
  Id r = AddOp(g, "Add", {c, d});
  AddOp(g, "Add", {a, r});  // a new match at a new root node
  AddOp(g, "Add", {d, p});  // a new root node over an old inner node
  g.Rebuild();
  const uint64_t e2 = g.epoch();
  // A merge moves one class's nodes into the other (fresh NodeStamp) and
  // re-canonicalizes the loser's parents (fresh NodeContentStamp).
  ASSERT_TRUE(Merge(g, p, r));
  g.Rebuild();
  CompiledPattern assoc = Compile("(Add ?a (Add ?b ?c))");
  const size_t nvars = assoc.vars().size();
  for (uint64_t since : {uint64_t{0}, e1, e2, g.epoch()}) {
    std::set<std::vector<Id>> expected;
    for (const std::vector<Id>& m : MatchesWithNodes(g, assoc, std::nullopt)) {
      const NodeIdx root = m[1 + nvars], inner = m[2 + nvars];
      if (g.NodeContentStamp(root) >= since || g.NodeStamp(inner) >= since) expected.insert(m);
    }
    EXPECT_EQ(MatchesWithNodes(g, assoc, since), expected) << "since epoch " << since;
  }
  // Not vacuous: Add(a, P) and Add(d, P) over the merged class P = {Add(b, c),
  // Add(c, d)} make 4 matches, of which the filter since e1 drops one (the
  // old Add(a, p) over the old Add(b, c), whose class kept its nodes).
  EXPECT_EQ(MatchesWithNodes(g, assoc, e1).size(), 3u);
  EXPECT_EQ(MatchesWithNodes(g, assoc, std::nullopt).size(), 4u);
  EXPECT_TRUE(MatchesWithNodes(g, assoc, g.epoch()).empty());
}

// ClassChangeEpoch bounds the stamps of a class's nodes, and it is what lets
// the semi-naive matcher skip an unchanged class without reading its nodes.
TEST(PatternTest, ClassChangeEpochBoundsTheStampsOfItsNodes) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b"), c = Leaf(g, "c"), d = Leaf(g, "d");
  Id ab = AddOp(g, "Add", {a, b});
  Id cd = AddOp(g, "Add", {c, d});
  Id top = AddOp(g, "Add", {ab, cd});
  g.Rebuild();
  const uint64_t e1 = g.epoch();
  AddOp(g, "Add", {d, c});
  Id dc = AddOp(g, "Add", {d, c});
  ASSERT_TRUE(Merge(g, cd, dc));
  g.Rebuild();
  cd = g.Find(cd);
  // ab was not touched since e1; cd received Add(d, c).
  EXPECT_LT(g.ClassChangeEpoch(ab), e1);
  EXPECT_GE(g.ClassChangeEpoch(cd), e1);
  for (Id cls : g.Classes()) {
    for (NodeIdx n : g.ClassNodes(cls)) {
      EXPECT_LE(g.NodeStamp(n), g.ClassChangeEpoch(cls));
      EXPECT_LE(g.NodeContentStamp(n), g.NodeStamp(n));
    }
  }
  // Since e1, (Add ?x (Add ?y ?z)) matches only through the changed class
  // cd: top over Add(d, c) (top's other child ab is old and its nodes too).
  CompiledPattern assoc = Compile("(Add ?x (Add ?y ?z))");
  const std::set<std::vector<Id>> fresh = MatchesWithNodes(g, assoc, e1);
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ((*fresh.begin())[0], g.Find(top));
  EXPECT_EQ((*fresh.begin())[2], g.Find(d));
  EXPECT_EQ(MatchesWithNodes(g, assoc, std::nullopt).size(), 2u);
}

TEST(PatternTest, VariablePatternMatchesEveryClass) {
  EGraph g;
  Leaf(g, "a");
  Leaf(g, "b");
  g.Rebuild();
  EXPECT_EQ(AllMatches(g, Compile("?x")).size(), 2u);
}

}  // namespace
}  // namespace egret
