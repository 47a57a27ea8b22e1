// Helpers shared by the e-graph tests.
#ifndef EGRET_TESTS_EGRAPH_TEST_UTIL_H_
#define EGRET_TESTS_EGRAPH_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/pattern.h"
#include "egret/egraph/rewrite.h"
#include "egret/egraph/runner.h"
#include "gtest/gtest.h"

namespace egret::testing {

inline TensorType F32(Dims dims = {4}) { return TensorType(DType::kFloat32, std::move(dims)); }
// The type of a multi-output op.
inline TensorType MultiType() {
  TensorType t;
  t.dtype = DType::kMulti;
  return t;
}

// Adds op(children) of type `type`, failing the test on error.
inline Id AddOp(EGraph& g, std::string_view op, std::vector<Id> children,
                const TensorType& type = F32(), Payload payload = kNoPayload) {
  absl::StatusOr<Id> id = g.Add(ENodeView{Symbol::Intern(op), payload, children}, type);
  EXPECT_TRUE(id.ok()) << id.status();
  return id.ok() ? *id : kNoId;
}

// A constant of type F32() whose every element is v.
inline ConstTensorPtr Filled(double v) {
  return std::make_shared<const Tensor>(Tensor::FromValues(F32(), {v, v, v, v}));
}

inline Id Leaf(EGraph& g, std::string_view name, const TensorType& type = F32()) {
  return AddOp(g, name, {}, type);
}

// The rule `name` rewriting matches of `lhs` (pattern syntax) by `applier`,
// with an optional guard; fails the test when lhs does not parse.
inline Rewrite MakeRule(std::string name, std::string_view lhs, Applier applier,
                        Guard guard = nullptr) {
  absl::StatusOr<Pattern> p = ParsePattern(lhs);
  EXPECT_TRUE(p.ok()) << p.status();
  absl::StatusOr<Rewrite> r =
      MakeRewrite(std::move(name), *p, std::move(applier), std::move(guard));
  EXPECT_TRUE(r.ok()) << r.status();
  return *std::move(r);
}

inline bool Merge(EGraph& g, Id a, Id b) {
  absl::StatusOr<bool> r = g.Union(a, b);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() && *r;
}

// Runner options for tests that compare two runs: `iterations` per phase,
// `nodes`, a match limit of `match_limit` that bans rules for two
// iterations (doubling, scheduler.h), invariants checked after each rebuild.
inline RunnerOptions BanningOptions(size_t iterations, size_t nodes, size_t match_limit) {
  RunnerOptions o;
  o.limits.iterations = iterations;
  o.limits.nodes = nodes;
  o.limits.seconds = 600;
  o.backoff.match_limit = match_limit;
  o.backoff.ban_length = 2;
  o.check_invariants = true;
  return o;
}

// Whether class c (any of its ids) holds a constant.
inline bool HasConst(const EGraph& g, Id c) { return g.HasConstant(g.Find(c)); }

// `size` random terms, rebuilt: the leaves a and b, the constants 0 and 10,
// then F(t) and H(t) (a quarter each) and G(t, u) (half) of earlier terms.
inline std::vector<Id> RandomTerms(EGraph& g, uint32_t seed, int size) {
  std::mt19937 rng(seed);
  std::vector<Id> terms = {Leaf(g, "a"), Leaf(g, "b"), g.AddConstant(Filled(0)),
                           g.AddConstant(Filled(10))};
  auto pick = [&] { return terms[rng() % terms.size()]; };
  while (static_cast<int>(terms.size()) < size) {
    const uint32_t k = rng() % 4;
    terms.push_back(k == 0   ? AddOp(g, "F", {pick()})
                    : k == 1 ? AddOp(g, "H", {pick()})
                             : AddOp(g, "G", {pick(), pick()}));
  }
  g.Rebuild();
  return terms;
}

// For each of `terms`, the index of the first term in its class.
inline std::vector<size_t> Partition(const EGraph& g, const std::vector<Id>& terms) {
  std::vector<size_t> out;
  for (size_t i = 0; i < terms.size(); ++i) {
    size_t first = 0;
    while (g.Find(terms[first]) != g.Find(terms[i])) ++first;
    out.push_back(first);
  }
  return out;
}

}  // namespace egret::testing

#endif  // EGRET_TESTS_EGRAPH_TEST_UTIL_H_
