// The maxsat encoding of max-cut as an extraction problem, shared by the ILP
// extractor's tests (its eigenvalue bound, its neighbourhood search).
#ifndef EGRET_TESTS_EXTRACT_MAXCUT_PROBLEM_H_
#define EGRET_TESTS_EXTRACT_MAXCUT_PROBLEM_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/extract/problem.h"
#include "gtest/gtest.h"

namespace egret::extract {

// A graph on `n` vertices: root -> variables, each with nodes p and n (cost
// 0); per edge {i, j} one clause class used by p_i and p_j, one used by n_i
// and n_j, both of cost -w. With `mixed`, the first edge's second clause is
// used by p_i and n_j instead.
inline ExtractionProblem MaxCutProblem(int n, const std::vector<std::pair<int, int>>& edges,
                                       double w, bool mixed = false) {
  ExtractionProblemBuilder b;
  const ClassId root = b.AddClass("root");
  std::vector<ClassId> vars;
  for (int i = 0; i < n; ++i) vars.push_back(b.AddClass("v" + std::to_string(i)));
  std::vector<std::vector<ClassId>> pos(n), neg(n);
  for (size_t e = 0; e < edges.size(); ++e) {
    const auto [i, j] = edges[e];
    const ClassId cp = b.AddClass("p" + std::to_string(e)),
                  cn = b.AddClass("n" + std::to_string(e));
    b.AddNode(cp, "clause", -w, std::vector<ClassId>{});
    b.AddNode(cn, "clause", -w, std::vector<ClassId>{});
    pos[i].push_back(cp);
    pos[j].push_back(cp);
    neg[i].push_back(cn);
    (mixed && e == 0 ? pos : neg)[j].push_back(cn);
  }
  b.AddNode(root, "root", 0, vars);
  for (int i = 0; i < n; ++i) {
    b.AddNode(vars[i], "p", 0, pos[i]);
    b.AddNode(vars[i], "n", 0, neg[i]);
  }
  b.AddRoot(root);
  absl::StatusOr<ExtractionProblem> built = std::move(b).Build();
  EXPECT_TRUE(built.ok()) << built.status();
  return *std::move(built);
}

}  // namespace egret::extract

#endif  // EGRET_TESTS_EXTRACT_MAXCUT_PROBLEM_H_
