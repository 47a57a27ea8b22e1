// Helpers shared by the e-graph tests.
#ifndef EGRET_TESTS_EGRAPH_TEST_UTIL_H_
#define EGRET_TESTS_EGRAPH_TEST_UTIL_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/pattern.h"
#include "egret/egraph/rewrite.h"
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

}  // namespace egret::testing

#endif  // EGRET_TESTS_EGRAPH_TEST_UTIL_H_
