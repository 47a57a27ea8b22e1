// The ILP extractor on e-graphs that encode a max-cut
// (ilp_extractor_internal.h): recognising them, an eigenvalue bound on
// their DAG cost and a local search for their cut.
//
// The shape (extraction-gym's maxsat family): one root class with one node
// whose children are the variable classes; each variable class has two
// nodes of cost 0 (the two sides) whose children are clause classes; each
// clause class has one node of cost w <= 0 without children, used by
// exactly two nodes, the same side of two variable classes, and for each
// pair of variables {i, j} there are exactly two such clauses, one per
// side, of the same cost w_ij. A choice puts each variable on a side; a
// clause is paid when a node using it is chosen, so an edge whose ends are
// on the same side pays w_ij once and a cut edge twice: the DAG cost is
// root + sum w_ij + sum over cut edges of w_ij, and minimising it is a
// maximum cut with weights |w_ij|. For the weighted Laplacian L and any
// side vector s in {-1, 1}^n, the cut is s^T L s / 4 <= n lambda_max(L) / 4
// (Mohar and Poljak), so the DAG cost is at least root + sum w_ij -
// n lambda_max(L) / 4. lambda_max comes from cyclic Jacobi rotations to
// machine precision, bounded by Gershgorin's discs of the rotated matrix and
// raised by a relative margin for rounding.
//
// Why: the ILP's relaxation satisfies every clause at x = 1/2 and CBC does
// not close the gap in 10 s; on hamming6-2 and johnson8-4-4 this bound is
// the DAG heuristic's cost, which is then proven optimal without a solver
// (docs/history/extraction-rounds.md, "An eigenvalue bound for max-cut e-graphs"). On
// the sparser files the bound is far (a Goemans-Williamson SDP bound would
// still be 6-8 % away), and the DAG heuristic's cut is not optimal: 1-flip
// local search from many starts improves three of them (docs/history/extraction-rounds.md,
// "Neighbourhoods sized by work").
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "egret/extract/choice.h"
#include "egret/extract/ilp_extractor_internal.h"

namespace egret::extract::ilp_internal {
namespace {

// An upper bound on the largest eigenvalue of the symmetric n x n matrix
// `a` (row-major), tight to rounding: cyclic Jacobi rotations, then
// Gershgorin's discs.
double LargestEigenvalueBound(std::vector<double> a, size_t n) {
  auto at = [&](size_t i, size_t j) -> double& { return a[i * n + j]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, diag = 0;
    for (size_t i = 0; i < n; ++i) {
      diag += at(i, i) * at(i, i);
      for (size_t j = i + 1; j < n; ++j) off += at(i, j) * at(i, j);
    }
    if (off <= 1e-30 * std::max(1.0, diag)) break;
    for (size_t p = 0; p < n; ++p) {
      for (size_t q = p + 1; q < n; ++q) {
        const double apq = at(p, q);
        if (std::abs(apq) < 1e-300) continue;
        const double theta = (at(q, q) - at(p, p)) / (2 * apq);
        const double t =
            (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (size_t k = 0; k < n; ++k) {  // columns p and q
          const double akp = at(k, p), akq = at(k, q);
          at(k, p) = c * akp - s * akq;
          at(k, q) = s * akp + c * akq;
        }
        for (size_t k = 0; k < n; ++k) {  // rows p and q
          const double apk = at(p, k), aqk = at(q, k);
          at(p, k) = c * apk - s * aqk;
          at(q, k) = s * apk + c * aqk;
        }
      }
    }
  }
  // Rotations keep the eigenvalues, so Gershgorin's discs of the rotated
  // matrix bound them: an upper bound even if the sweeps did not converge.
  double best = -kInf;
  for (size_t i = 0; i < n; ++i) {
    double radius = 0;
    for (size_t j = 0; j < n; ++j) radius += j == i ? 0.0 : std::abs(at(i, j));
    best = std::max(best, at(i, i) + radius);
  }
  return best;
}

}  // namespace

std::optional<MaxCutShape> RecognizeMaxCut(const ExtractionProblem& p) {
  if (!p.has_negative_costs() || p.roots().size() != 1) return std::nullopt;
  const ClassId root = p.roots()[0];
  if (p.class_size(root) != 1) return std::nullopt;
  const ENodeId root_node = p.class_begin(root);
  const size_t nc = p.num_classes();
  // Variables: the root node's children, each with two nodes of cost 0.
  std::vector<int32_t> var(nc, -1);
  MaxCutShape shape;
  shape.root_node = root_node;
  for (ClassId v : p.children(root_node)) {
    if (v == root || var[v] >= 0 || p.class_size(v) != 2) return std::nullopt;
    for (ENodeId x = p.class_begin(v); x < p.class_end(v); ++x) {
      if (p.cost(x) != 0) return std::nullopt;
    }
    var[v] = static_cast<int32_t>(shape.vars.size());
    shape.vars.push_back(v);
  }
  const size_t n = shape.vars.size();
  if (n < 2 || n > kMaxCutBoundVariables) return std::nullopt;
  // Clauses: every other class; per pair of variables, the cost of the
  // clause of each side (NaN: none yet).
  struct Pair {
    double side[2] = {std::nan(""), std::nan("")};
  };
  absl::flat_hash_map<std::pair<int32_t, int32_t>, Pair> pairs;
  shape.constant = p.cost(root_node);
  for (ClassId c = 0; c < nc; ++c) {
    if (c == root || var[c] >= 0) continue;
    if (p.class_size(c) != 1) return std::nullopt;
    const ENodeId k = p.class_begin(c);
    const double w = p.cost(k);
    if (!p.children(k).empty() || w > 0) return std::nullopt;
    const std::span<const ENodeId> users = p.parents(c);
    if (users.size() != 2) return std::nullopt;
    const ClassId a = p.node_class(users[0]), b = p.node_class(users[1]);
    if (var[a] < 0 || var[b] < 0 || a == b) return std::nullopt;
    const int side_a = static_cast<int>(users[0] - p.class_begin(a));
    const int side_b = static_cast<int>(users[1] - p.class_begin(b));
    if (side_a != side_b) return std::nullopt;
    const std::pair<int32_t, int32_t> key = std::minmax(var[a], var[b]);
    double& slot = pairs[key].side[side_a];
    if (!std::isnan(slot)) return std::nullopt;  // two clauses of one side
    slot = w;
  }
  // Each variable's nodes use clause classes only (checked through the
  // clauses' users above, except for other children).
  for (ClassId v : shape.vars) {
    for (ENodeId x = p.class_begin(v); x < p.class_end(v); ++x) {
      for (ClassId d : p.children(x)) {
        if (d == root || var[d] >= 0) return std::nullopt;
      }
    }
  }
  shape.weight.assign(n * n, 0.0);
  for (const auto& [key, pair] : pairs) {
    if (std::isnan(pair.side[0]) || std::isnan(pair.side[1]) || pair.side[0] != pair.side[1]) {
      return std::nullopt;
    }
    const double w = -pair.side[0];  // the edge's weight, >= 0
    shape.constant -= w;
    const auto [i, j] = key;
    shape.weight[i * n + j] += w;
    shape.weight[j * n + i] += w;
  }
  return shape;
}

std::optional<double> MaxCutLowerBound(const ExtractionProblem& p) {
  std::optional<MaxCutShape> shape = RecognizeMaxCut(p);
  if (!shape.has_value()) return std::nullopt;
  const size_t n = shape->vars.size();
  std::vector<double> laplacian(n * n, 0.0);
  double norm = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      const double w = shape->weight[i * n + j];
      if (i == j || w == 0) continue;
      laplacian[i * n + i] += w;
      laplacian[i * n + j] -= w;
      norm += 2 * w;
    }
  }
  const double lambda = LargestEigenvalueBound(std::move(laplacian), n);
  // Jacobi's eigenvalues are exact to a few units of rounding times the
  // matrix's norm; a margin far above that keeps the bound a bound.
  const double lambda_up = lambda + 1e-9 * std::max(1.0, norm);
  return shape->constant - static_cast<double>(n) * lambda_up / 4;
}

std::optional<Choice> MaxCutLocalSearch(const ExtractionProblem& p, const Choice& start) {
  std::optional<MaxCutShape> shape = RecognizeMaxCut(p);
  if (!shape.has_value()) return std::nullopt;
  const size_t n = shape->vars.size();
  const std::vector<double>& w = shape->weight;
  // side[i] in {-1, 1}: node class_begin + 0 or + 1 of variable i. h = W s;
  // flipping i changes the cut by s_i h_i.
  std::vector<double> side(n), h(n), best_side;
  double best_cut = -kInf;
  auto climb = [&] {
    for (size_t i = 0; i < n; ++i) {
      h[i] = 0;
      for (size_t j = 0; j < n; ++j) h[i] += w[i * n + j] * side[j];
    }
    double cut = 0;
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i + 1; j < n; ++j) cut += w[i * n + j] * (1 - side[i] * side[j]) / 2;
    }
    // Best improvement first; every flip raises the cut, so this ends.
    for (;;) {
      size_t flip = n;
      double gain = 1e-9;
      for (size_t i = 0; i < n; ++i) {
        if (side[i] * h[i] > gain) {
          gain = side[i] * h[i];
          flip = i;
        }
      }
      if (flip == n) break;
      cut += gain;
      side[flip] = -side[flip];
      for (size_t j = 0; j < n; ++j) h[j] += 2 * w[j * n + flip] * side[flip];
    }
    if (cut > best_cut + 1e-9) {
      best_cut = cut;
      best_side = side;
    }
  };
  // From the start's sides, then from kMaxCutRestarts pseudo-random ones
  // (a fixed seed: deterministic).
  for (size_t i = 0; i < n; ++i) {
    const ENodeId x = start.node.size() > shape->vars[i] ? start.node[shape->vars[i]] : kNoENode;
    side[i] = x == p.class_begin(shape->vars[i]) + 1 ? 1.0 : -1.0;
  }
  climb();
  uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int r = 0; r < kMaxCutRestarts; ++r) {
    for (size_t i = 0; i < n; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      side[i] = (state >> 63) != 0 ? 1.0 : -1.0;
    }
    climb();
  }
  // The choice: the root node, each variable's side, and the clauses its
  // sides use.
  Choice choice(p.num_classes());
  for (ClassId c = 0; c < p.num_classes(); ++c) choice.node[c] = p.class_begin(c);
  choice.node[p.node_class(shape->root_node)] = shape->root_node;
  for (size_t i = 0; i < n; ++i) {
    choice.node[shape->vars[i]] = p.class_begin(shape->vars[i]) + (best_side[i] > 0 ? 1 : 0);
  }
  return RestrictToReachable(p, choice);
}

}  // namespace egret::extract::ilp_internal
