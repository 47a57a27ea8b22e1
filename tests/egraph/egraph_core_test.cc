#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/invariants.h"
#include "egret/graph/op_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace egret {
namespace {

using ::egret::testing::AddOp;
using ::egret::testing::F32;
using ::egret::testing::Leaf;
using ::egret::testing::Merge;
using ::testing::HasSubstr;

TEST(EGraphTest, HashConsSharesEqualNodes) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  Id x = AddOp(g, "ElementWiseAdd", {a, b});
  Id y = AddOp(g, "ElementWiseAdd", {a, b});
  Id z = AddOp(g, "ElementWiseAdd", {b, a});
  EXPECT_EQ(x, y);
  EXPECT_NE(x, z);
  EXPECT_EQ(g.num_nodes(), 4u);
  EXPECT_EQ(g.num_classes(), 4u);
  Id ab[2] = {a, b};
  EXPECT_EQ(g.Lookup(ENodeView{Symbol::Intern("ElementWiseAdd"), 0, ab}), std::optional<Id>(x));
  Id ba_c[2] = {b, b};
  EXPECT_EQ(g.Lookup(ENodeView{Symbol::Intern("ElementWiseAdd"), 0, ba_c}), std::nullopt);
  EXPECT_TRUE(CheckInvariants(g).ok());
}

TEST(EGraphTest, PayloadDistinguishesNodes) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id x = AddOp(g, "Opaque", {a}, F32(), 1);
  Id y = AddOp(g, "Opaque", {a}, F32(), 2);
  EXPECT_NE(x, y);
}

TEST(EGraphTest, UnionAndRebuildRestoreCongruence) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  Id fa = AddOp(g, "Relu", {a});
  Id fb = AddOp(g, "Relu", {b});
  Id gfa = AddOp(g, "Sigmoid", {fa});
  Id gfb = AddOp(g, "Sigmoid", {fb});
  EXPECT_TRUE(Merge(g, a, b));
  EXPECT_FALSE(Merge(g, a, b));  // already equal
  EXPECT_FALSE(g.clean());
  EXPECT_NE(g.Find(fa), g.Find(fb));  // deferred
  EXPECT_EQ(g.Rebuild(), 2u);         // Relu and Sigmoid by congruence
  EXPECT_TRUE(g.clean());
  EXPECT_EQ(g.Find(fa), g.Find(fb));
  EXPECT_EQ(g.Find(gfa), g.Find(gfb));
  EXPECT_EQ(g.num_classes(), 3u);
  EXPECT_EQ(g.num_nodes(), 4u);  // a, b, Relu, Sigmoid (duplicates removed)
  EXPECT_TRUE(CheckInvariants(g).ok()) << CheckInvariants(g);
}

// Nodes of arity 0-2 keep their operands in their record, larger ones
// outside it: both read back, hash-cons and repair alike.
TEST(EGraphTest, OperandsOfEveryArityReadBackAndRepair) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b"), c = Leaf(g, "c"), d = Leaf(g, "d");
  Id u1 = AddOp(g, "Relu", {c});
  Id u2 = AddOp(g, "Relu", {d});
  Id p1 = AddOp(g, "ElementWiseAdd", {a, c});
  Id p2 = AddOp(g, "ElementWiseAdd", {a, d});
  Id t1 = AddOp(g, "Concat", {a, b, c});
  Id t2 = AddOp(g, "Concat", {a, b, d});
  Id q1 = AddOp(g, "Concat", {c, a, b, c, b});
  Id q2 = AddOp(g, "Concat", {d, a, b, c, b});
  EXPECT_EQ(AddOp(g, "Concat", {a, b, c}), t1);  // hash-cons hit
  for (Id x : {u1, u2, p1, p2, t1, t2, q1, q2}) EXPECT_EQ(g.ClassNodes(x).size(), 1u);
  const ENodeView v = g.Node(g.ClassNodes(q1)[0]);
  EXPECT_EQ(std::vector<Id>(v.children.begin(), v.children.end()),
            (std::vector<Id>{c, a, b, c, b}));
  EXPECT_EQ(g.Node(g.ClassNodes(u1)[0]).children.size(), 1u);
  EXPECT_EQ(g.Node(g.ClassNodes(a)[0]).children.size(), 0u);
  EXPECT_TRUE(Merge(g, c, d));
  EXPECT_EQ(g.Rebuild(), 4u);  // Relu, Add, both Concats
  for (auto [x, y] : {std::pair{u1, u2}, {p1, p2}, {t1, t2}, {q1, q2}}) {
    EXPECT_EQ(g.Find(x), g.Find(y));
  }
  const ENodeView w = g.Node(g.ClassNodes(g.Find(q1))[0]);
  const Id cd = g.Find(c);
  EXPECT_EQ(std::vector<Id>(w.children.begin(), w.children.end()),
            (std::vector<Id>{cd, a, b, cd, b}));
  EXPECT_EQ(g.num_nodes(), 8u);  // 4 leaves (c = d), one node of each other op
  EXPECT_TRUE(CheckInvariants(g).ok()) << CheckInvariants(g);
}

TEST(EGraphTest, UnionRefusesDifferentTypes) {
  EGraph g;
  Id a = Leaf(g, "a", F32({2}));
  Id b = Leaf(g, "b", TensorType(DType::kInt32, {2}));
  g.set_rule_context("bad-rule");
  absl::StatusOr<bool> r = g.Union(a, b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(r.status().message(), HasSubstr("bad-rule"));
  EXPECT_THAT(r.status().message(), HasSubstr("Float32[2]"));
  EXPECT_THAT(r.status().message(), HasSubstr("Int32[2]"));
  ASSERT_EQ(g.conflicts().size(), 1u);
  EXPECT_EQ(g.conflicts()[0].rule, "bad-rule");
  EXPECT_EQ(g.conflicts()[0].a, a);
  EXPECT_EQ(g.conflicts()[0].b, b);
  EXPECT_NE(g.Find(a), g.Find(b));
  EXPECT_TRUE(g.clean());
}

TEST(EGraphTest, HashConsHitWithOtherTypeIsConflict) {
  EGraph g;
  Id a = Leaf(g, "a");
  AddOp(g, "Relu", {a}, TensorType(DType::kFloat16, {4}));
  absl::StatusOr<Id> r =
      g.Add(ENodeView{Symbol::Intern("Relu"), 0, {&a, 1}}, TensorType(DType::kInt32, {4}));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("Float16[4]"));
  EXPECT_THAT(r.status().message(), HasSubstr("Int32[4]"));
  EXPECT_EQ(g.num_conflicts(), 1u);
}

TEST(EGraphTest, CongruenceWithDifferentTypesIsRefusedNotMerged) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  Id fa = AddOp(g, "Relu", {a}, TensorType(DType::kFloat16, {4}));
  Id fb = AddOp(g, "Relu", {b}, TensorType(DType::kInt32, {4}));
  EXPECT_TRUE(Merge(g, a, b));
  g.Rebuild();
  EXPECT_NE(g.Find(fa), g.Find(fb));
  EXPECT_EQ(g.num_conflicts(), 1u);
  EXPECT_TRUE(CheckInvariants(g).ok()) << CheckInvariants(g);
}

// A conversion's output type, and a quantized result's encoding, are part of
// the node: Quantize[T1](x) and Quantize[T2](x) are two values, not a
// conflict, and they stay two after their operands merge.
TEST(EGraphTest, DeclaredTypesAreOperandsOfConversions) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  const TensorType t1(DType::kQUInt8, {4}, 128, 0.5f), t2(DType::kQUInt8, {4}, 0, 0.25f);
  Id qa1 = AddOp(g, "Quantize", {a}, t1);
  Id qa2 = AddOp(g, "Quantize", {a}, t2);
  Id qb1 = AddOp(g, "Quantize", {b}, t1);
  Id ca = AddOp(g, "Cast", {a}, TensorType(DType::kFloat16, {4}));
  Id cb = AddOp(g, "Cast", {a}, TensorType(DType::kInt32, {4}));
  EXPECT_NE(qa1, qa2);
  EXPECT_NE(ca, cb);
  EXPECT_EQ(AddOp(g, "Quantize", {a}, t1), qa1);  // still hash-consed
  EXPECT_TRUE(Merge(g, a, b));
  g.Rebuild();
  EXPECT_EQ(g.Find(qa1), g.Find(qb1));
  EXPECT_NE(g.Find(qa1), g.Find(qa2));
  EXPECT_EQ(g.num_conflicts(), 0u);
  EXPECT_TRUE(CheckInvariants(g).ok()) << CheckInvariants(g);
}

TEST(EGraphTest, VolatileOpsNeverMerge) {
  EGraph g;
  Id i1 = Leaf(g, "*Input");
  Id i2 = Leaf(g, "*Input");
  EXPECT_NE(i1, i2);
  Id a = Leaf(g, "a");
  Id o1 = AddOp(g, "*Output", {a});
  Id o2 = AddOp(g, "*Output", {a});
  EXPECT_NE(o1, o2);
  // Even after their operands merge, they stay apart.
  Id r1 = AddOp(g, "*Read", {i1});
  Id r2 = AddOp(g, "*Read", {i2});
  EXPECT_TRUE(Merge(g, i1, i2));
  g.Rebuild();
  EXPECT_NE(g.Find(r1), g.Find(r2));
  EXPECT_TRUE(CheckInvariants(g).ok()) << CheckInvariants(g);
}

TEST(EGraphTest, SideEffectingOpsFromTableNeverMerge) {
  OpTable ops = OpTable::Default();
  OpTraits t;
  t.side_effecting = true;
  ops.Set("Print", t);
  EGraph g(ops);
  Id a = Leaf(g, "a");
  EXPECT_NE(AddOp(g, "Print", {a}), AddOp(g, "Print", {a}));
  EXPECT_EQ(AddOp(g, "Relu", {a}), AddOp(g, "Relu", {a}));
}

TEST(EGraphTest, ConstantsInternByContent) {
  EGraph g;
  TensorType t(DType::kFloat32, {2});
  auto c1 = std::make_shared<Tensor>(Tensor::FromValues(t, {1.0, 2.0}));
  auto c2 = std::make_shared<Tensor>(Tensor::FromValues(t, {1.0, 2.0}));
  auto c3 = std::make_shared<Tensor>(Tensor::FromValues(t, {1.0, 3.0}));
  Id a = g.AddConstant(c1), b = g.AddConstant(c2), c = g.AddConstant(c3);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  ASSERT_NE(g.ConstantOf(a), nullptr);
  EXPECT_EQ(*g.ConstantOf(a), *c1);
  EXPECT_EQ(g.TypeOf(a), t);
  // Merging different constants is refused.
  absl::StatusOr<bool> r = g.Union(a, c);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("constants differ"));
  // A class merged with a constant gets it.
  Id x = Leaf(g, "x", t);
  EXPECT_TRUE(Merge(g, x, a));
  g.Rebuild();
  ASSERT_NE(g.ConstantOf(g.Find(x)), nullptr);
  EXPECT_EQ(*g.ConstantOf(g.Find(x)), *c1);
  EXPECT_TRUE(CheckInvariants(g).ok());
}

TEST(EGraphTest, ShapesKeepTheirDims) {
  EGraph g;
  Id s1 = g.AddShape({1, 2, 2, 1});
  Id s2 = g.AddShape({1, 2, 2, 1});
  Id s3 = g.AddShape({1, 4, 4, 1});
  EXPECT_EQ(s1, s2);
  EXPECT_NE(s1, s3);
  EXPECT_EQ(g.TypeOf(s3), TensorType(DType::kInt32, {1, 4, 4, 1}));
}

TEST(EGraphTest, MultiOutputThroughOut) {
  EGraph g;
  Id a = Leaf(g, "a");
  Id split = AddOp(g, "Split", {a}, testing::MultiType());
  absl::StatusOr<Id> o0 = g.AddOut(split, 2, 0, F32({2}));
  absl::StatusOr<Id> o1 = g.AddOut(split, 2, 1, F32({2}));
  absl::StatusOr<Id> o0b = g.AddOut(split, 2, 0, F32({2}));
  ASSERT_TRUE(o0.ok() && o1.ok() && o0b.ok());
  EXPECT_NE(*o0, *o1);
  EXPECT_EQ(*o0, *o0b);
  ENodeView out = g.Node(g.ClassNodes(*o1)[0]);
  EXPECT_EQ(out.op.str(), "$Out");
  ASSERT_EQ(out.children.size(), 2u);
  EXPECT_EQ(out.children[0], split);
  EXPECT_EQ(g.TypeOf(out.children[1]), TensorType(DType::kInt32, {0, 0, 2, 1}));
  // The type a caller interns ahead (AddGraph) is the one AddOut builds.
  EXPECT_EQ(g.TypeOf(out.children[1]), EGraph::OutIndexType(2, 1));
}

TEST(EGraphTest, ClassNodesSortedAndIndexedByOp) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  Id x = AddOp(g, "Relu", {a});
  Id y = AddOp(g, "Sigmoid", {b});
  Id z = AddOp(g, "Relu", {b});
  Merge(g, x, y);
  Merge(g, y, z);
  g.Rebuild();
  Id c = g.Find(x);
  EXPECT_EQ(g.ClassNodes(c).size(), 3u);
  EXPECT_EQ(g.ClassNodesWithOp(c, Symbol::Intern("Relu")).size(), 2u);
  EXPECT_EQ(g.ClassNodesWithOp(c, Symbol::Intern("Sigmoid")).size(), 1u);
  EXPECT_EQ(g.ClassNodesWithOp(c, Symbol::Intern("Tanh")).size(), 0u);
  absl::Span<const Id> relus = g.ClassesWithOp(Symbol::Intern("Relu"));
  EXPECT_EQ(std::vector<Id>(relus.begin(), relus.end()), std::vector<Id>{c});
}

TEST(EGraphTest, OpIndexFollowsMergesAcrossRebuilds) {
  // The op index is updated incrementally: after merges, rebuilds, new
  // classes and a union not rebuilt yet, it lists exactly the classes
  // canonical at the first call after the rebuild that hold the op.
  EGraph g;
  const Symbol relu = Symbol::Intern("Relu"), sig = Symbol::Intern("Sigmoid");
  auto list = [&](Symbol op) {
    absl::Span<const Id> s = g.ClassesWithOp(op);
    return std::vector<Id>(s.begin(), s.end());
  };
  Id a = Leaf(g, "a"), b = Leaf(g, "b"), c = Leaf(g, "c");
  Id x = AddOp(g, "Relu", {a});
  Id y = AddOp(g, "Sigmoid", {b});
  Id z = AddOp(g, "Relu", {c});
  EXPECT_EQ(list(relu), (std::vector<Id>{x, z}));
  EXPECT_EQ(list(sig), (std::vector<Id>{y}));
  Merge(g, x, y);  // the merged class holds both ops
  g.Rebuild();
  const Id xy = g.Find(x);
  EXPECT_EQ(list(sig), (std::vector<Id>{xy}));
  EXPECT_EQ(list(relu), xy < z ? (std::vector<Id>{xy, z}) : (std::vector<Id>{z, xy}));
  // A class created after the first call of the epoch is appended.
  Id w = AddOp(g, "Sigmoid", {c});
  EXPECT_EQ(list(sig), (std::vector<Id>{xy, w}));
  g.Rebuild();
  // A union after the rebuild, not rebuilt yet: its loser is dropped at the
  // first call of the new epoch, the winner's list does not grow until the
  // next rebuild.
  Merge(g, z, w);
  const Id zw = g.Find(z), loser = zw == z ? w : z;
  std::vector<Id> relus = list(relu), sigs = list(sig);
  EXPECT_EQ(std::count(relus.begin(), relus.end(), loser), 0);
  EXPECT_EQ(std::count(sigs.begin(), sigs.end(), loser), 0);
  g.Rebuild();
  EXPECT_EQ(list(relu), xy < zw ? (std::vector<Id>{xy, zw}) : (std::vector<Id>{zw, xy}));
  EXPECT_EQ(list(sig), xy < zw ? (std::vector<Id>{xy, zw}) : (std::vector<Id>{zw, xy}));
  EXPECT_TRUE(CheckInvariants(g).ok());
}

TEST(EGraphTest, ClassNodesSortedByContent) {
  // A class of binary nodes of one op (sorted by operand keys) and the same
  // class with a node of another op (sorted by NodeLess): both in content order.
  for (bool mixed : {false, true}) {
    EGraph g;
    std::vector<Id> l;
    for (int i = 0; i < 6; ++i) l.push_back(Leaf(g, "l" + std::to_string(i)));
    Id first = AddOp(g, "ElementWiseAdd", {l[3], l[1]});
    for (auto [x, y] : std::vector<std::pair<int, int>>{{0, 5}, {3, 0}, {1, 2}, {0, 4}, {3, 2}}) {
      Merge(g, first, AddOp(g, "ElementWiseAdd", {l[x], l[y]}));
    }
    if (mixed) Merge(g, first, AddOp(g, "Relu", {l[5]}));
    g.Rebuild();
    absl::Span<const NodeIdx> nodes = g.ClassNodes(g.Find(first));
    ASSERT_EQ(nodes.size(), mixed ? 7u : 6u);
    for (size_t i = 1; i < nodes.size(); ++i) {
      ENodeView p = g.Node(nodes[i - 1]), q = g.Node(nodes[i]);
      if (p.op != q.op) {
        EXPECT_LT(p.op, q.op);
        continue;
      }
      EXPECT_LT(std::make_pair(p.children[0], p.children[1]),
                std::make_pair(q.children[0], q.children[1]))
          << "at " << i << (mixed ? " (mixed)" : "");
    }
  }
}

TEST(EGraphTest, ChangeLogRecordsNewAndMergedClasses) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  Id fa = AddOp(g, "Relu", {a});
  // b has more parents, so a's class is merged into b's and fa's node (a
  // parent of the merged-away class) is re-canonicalized.
  AddOp(g, "Sigmoid", {b});
  AddOp(g, "Tanh", {b});
  size_t pos = g.change_log_size();
  EXPECT_EQ(pos, 5u);
  Merge(g, a, b);
  g.Rebuild();
  std::vector<Id> changed;
  for (Id c : g.change_log(pos)) changed.push_back(g.Find(c));
  EXPECT_THAT(changed, ::testing::Contains(g.Find(a)));
  EXPECT_THAT(changed, ::testing::Contains(g.Find(fa)));  // its node was re-canonicalized
}

TEST(EGraphTest, AddToClassJoinsTheClassAtRebuild) {
  EGraph g;
  Id a = Leaf(g, "a"), b = Leaf(g, "b");
  Id ab = AddOp(g, "ElementWiseAdd", {a, b});
  Symbol add = Symbol::Intern("ElementWiseAdd");
  const size_t ids = g.num_ids();
  Id ba_ch[2] = {b, a};
  absl::StatusOr<Id> r = g.AddToClass(ENodeView{add, 0, ba_ch}, ab);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, ab);
  EXPECT_EQ(g.num_ids(), ids);             // no class was made
  EXPECT_EQ(g.ClassNodes(ab).size(), 1u);  // lists are stable until Rebuild
  EXPECT_FALSE(g.clean());
  EXPECT_EQ(g.Lookup(ENodeView{add, 0, ba_ch}), ab);
  g.Rebuild();
  EXPECT_EQ(g.ClassNodes(ab).size(), 2u);
  EXPECT_EQ(g.num_nodes(), 4u);
  EXPECT_TRUE(CheckInvariants(g).ok()) << CheckInvariants(g);
  // A hit returns the equal node's class, for the caller to union.
  Id ab_ch[2] = {a, b};
  EXPECT_EQ(*g.AddToClass(ENodeView{add, 0, ab_ch}, a), ab);
  // A hit of another type is refused.
  Id c = AddOp(g, "Relu", {a}, TensorType(DType::kInt32, {4}));
  EXPECT_FALSE(g.AddToClass(ENodeView{add, 0, ab_ch}, c).ok());
}

TEST(EGraphTest, AddPairDoesWhatAddAndAddToClassDo) {
  // One script of adds run twice, through Add/AddToClass and through
  // AddPair/AddPairToClass: the same ids, errors, sizes and conflicts.
  const TensorType i32(DType::kInt32, {4});
  auto run = [&](bool pair, std::vector<std::string>& out) {
    EGraph g;
    Id a = Leaf(g, "a"), b = Leaf(g, "b"), c = Leaf(g, "c"), k = Leaf(g, "k", i32);
    Symbol add = Symbol::Intern("ElementWiseAdd");
    const TypeId f32 = g.InternType(F32());
    auto add2 = [&](Id x, Id y, TypeId t) {
      Id ch[2] = {x, y};
      return pair ? g.AddPair(add, 0, x, y, t) : g.Add(ENodeView{add, 0, ch}, t);
    };
    auto to_class = [&](Id x, Id y, Id cls) {
      Id ch[2] = {x, y};
      return pair ? g.AddPairToClass(add, 0, x, y, cls) : g.AddToClass(ENodeView{add, 0, ch}, cls);
    };
    auto note = [&](const absl::StatusOr<Id>& r) {
      out.push_back(r.ok() ? std::to_string(*r) : std::string(r.status().message()));
    };
    Id ab = *add2(a, b, f32);
    note(add2(a, b, f32));                // a hit
    note(add2(a, b, g.InternType(i32)));  // a hit of another type: refused
    note(to_class(b, a, ab));             // new member of ab's class
    note(to_class(b, a, c));              // a hit: ab's class, for the caller to union
    note(to_class(a, b, k));              // a hit of another type: refused
    EXPECT_TRUE(Merge(g, a, c));          // non-canonical operands from here on
    note(add2(c, b, f32));                // finds a + b through Find
    note(to_class(b, c, ab));             // finds b + a (a member since the add above)
    g.Rebuild();
    note(add2(ab, c, f32));     // new class
    note(to_class(c, ab, ab));  // new member
    out.push_back(std::to_string(g.num_nodes()) + " " + std::to_string(g.num_classes()) + " " +
                  std::to_string(g.num_conflicts()) + " " + std::to_string(g.version()));
  };
  std::vector<std::string> general, pair;
  run(false, general);
  run(true, pair);
  EXPECT_EQ(pair, general);
  EXPECT_THAT(general[1], HasSubstr("types differ"));
}

// A node that a rebuild finds to be a duplicate dies. Without derivations
// its record is reused by the next node stored, which reads back as itself;
// the dead node is gone from every parent list, so the reused record is no
// false parent of the old node's operands. With derivations, records stay.
TEST(EGraphTest, DeadRecordsAreReusedWithoutDerivations) {
  for (bool derivations : {true, false}) {
    SCOPED_TRACE(derivations ? "derivations" : "no derivations");
    EGraph g;
    g.set_record_derivations(derivations);
    Id a = Leaf(g, "a"), b = Leaf(g, "b"), c = Leaf(g, "c");
    Id fa = AddOp(g, "f", {a, c});
    Id fb = AddOp(g, "f", {b, c});
    Id h = AddOp(g, "h", {fb, b});
    Merge(g, a, b);
    g.Rebuild();  // f(b, c) dies: it is f(a, c) now
    ASSERT_EQ(g.Find(fa), g.Find(fb));
    ASSERT_EQ(g.num_nodes(), 5u);
    const size_t stored = g.num_stored_nodes();
    EXPECT_EQ(stored, 6u);
    Id k = AddOp(g, "k", {h, fa});
    EXPECT_EQ(g.num_stored_nodes(), derivations ? stored + 1 : stored);
    ASSERT_EQ(g.ClassNodes(k).size(), 1u);
    const ENodeView v = g.Node(g.ClassNodes(k)[0]);
    EXPECT_EQ(v.op.str(), "k");
    EXPECT_THAT(std::vector<Id>(v.children.begin(), v.children.end()),
                ::testing::ElementsAre(g.Find(h), g.Find(fa)));
    // c's one live parent is f(a, c); without derivations the dead f(b, c)
    // was dropped from the list (with them it may stay, as a dead entry).
    absl::Span<const NodeIdx> parents = g.ClassParents(c);
    EXPECT_EQ(std::count_if(parents.begin(), parents.end(), [&](NodeIdx p) { return g.IsLive(p); }),
              1);
    if (!derivations) {
      EXPECT_EQ(parents.size(), 1u);
    }
    Merge(g, c, k);
    g.Rebuild();
    absl::Status inv = CheckInvariants(g);
    EXPECT_TRUE(inv.ok()) << inv;
  }
}

TEST(EGraphTest, MemoryAccountingGrows) {
  EGraph g;
  size_t before = g.ApproxMemoryBytes();
  Id prev = Leaf(g, "a");
  for (int i = 0; i < 1000; ++i) prev = AddOp(g, "Relu", {prev});
  EXPECT_GT(g.ApproxMemoryBytes(), before + 1000 * 16);
}

TEST(OpTableTest, DefaultsAndParse) {
  OpTable t = OpTable::Default();
  const OpTraits* add = t.Find(Symbol::Intern("ElementWiseAdd"));
  ASSERT_NE(add, nullptr);
  EXPECT_TRUE(add->commutative && add->associative);
  EXPECT_FALSE(add->idempotent);
  const OpTraits* mx = t.Find(Symbol::Intern("ElementWiseMaximum"));
  ASSERT_NE(mx, nullptr);
  EXPECT_TRUE(mx->commutative && mx->associative && mx->idempotent);
  EXPECT_TRUE(t.Find(Symbol::Intern("ElementWiseMinimum"))->commutative);
  EXPECT_TRUE(t.Find(Symbol::Intern("ElementWiseMultiply"))->associative);
  // Across broadcasting: Multiply, Maximum, Minimum; not Add (op_table.h).
  EXPECT_TRUE(t.Find(Symbol::Intern("ElementWiseMultiply"))->broadcast_associative);
  EXPECT_TRUE(mx->broadcast_associative);
  EXPECT_FALSE(add->broadcast_associative);
  EXPECT_EQ(t.Find(Symbol::Intern("Conv2d")), nullptr);

  EXPECT_TRUE(t.Parse("# comment\nMyMax arity=2 commutative associative idempotent\n"
                      "Print side_effecting\n",
                      "ops.txt")
                  .ok());
  EXPECT_TRUE(t.Find(Symbol::Intern("MyMax"))->idempotent);
  EXPECT_TRUE(t.Find(Symbol::Intern("Print"))->side_effecting);
  absl::Status bad = t.Parse("X arity=2 fancy\n", "ops.txt");
  EXPECT_FALSE(bad.ok());
  EXPECT_THAT(bad.message(), HasSubstr("ops.txt:1"));
  EXPECT_THAT(bad.message(), HasSubstr("fancy"));
  EXPECT_FALSE(t.Parse("\nY arity=1 commutative\n", "o").ok());
  EXPECT_TRUE(t.Parse("MyMul arity=2 commutative associative broadcast_associative\n", "o").ok());
  EXPECT_TRUE(t.Find(Symbol::Intern("MyMul"))->broadcast_associative);
  absl::Status alone = t.Parse("Z arity=2 broadcast_associative\n", "o");
  EXPECT_THAT(alone.message(), HasSubstr("needs associative"));
}

// Every default trait is keyed by an op of the op table: a trait under a name
// no op has (as `ElementWiseNeg` once was, leaving Neg(Neg(a)) uncancelled)
// never applies.
TEST(OpTableTest, DefaultTraitsNameExistingOps) {
  const OpTable t = OpTable::Default();
  EXPECT_FALSE(t.Entries().empty());
  for (const auto& [op, traits] : t.Entries()) {
    EXPECT_TRUE(IsKnownOp(op.str())) << op.str();
    const OpDef* def = FindOpDef(op.str());
    ASSERT_NE(def, nullptr) << op.str();
    EXPECT_EQ(traits.involution, def->algebra.involution) << op.str();
    EXPECT_EQ(traits.commutative, def->algebra.commutative) << op.str();
  }
  const OpTraits* neg = t.Find(Symbol::Intern("Neg"));
  ASSERT_NE(neg, nullptr);
  EXPECT_TRUE(neg->involution);
  EXPECT_EQ(t.Find(Symbol::Intern("ElementWiseNeg")), nullptr);
}

}  // namespace
}  // namespace egret
