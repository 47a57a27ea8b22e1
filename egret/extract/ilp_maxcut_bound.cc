// The ILP extractor's eigenvalue bound for e-graphs that encode a max-cut
// (ilp_extractor_internal.h).
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
// (docs/extraction.md, "An eigenvalue bound for max-cut e-graphs").
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

std::optional<double> MaxCutLowerBound(const ExtractionProblem& p) {
  if (!p.has_negative_costs() || p.roots().size() != 1) return std::nullopt;
  const ClassId root = p.roots()[0];
  if (p.class_size(root) != 1) return std::nullopt;
  const ENodeId root_node = p.class_begin(root);
  const size_t nc = p.num_classes();
  // Variables: the root node's children, each with two nodes of cost 0.
  std::vector<int32_t> var(nc, -1);
  size_t n = 0;
  for (ClassId v : p.children(root_node)) {
    if (v == root || var[v] >= 0 || p.class_size(v) != 2) return std::nullopt;
    for (ENodeId x = p.class_begin(v); x < p.class_end(v); ++x) {
      if (p.cost(x) != 0) return std::nullopt;
    }
    var[v] = static_cast<int32_t>(n++);
  }
  if (n < 2 || n > kMaxCutBoundVariables) return std::nullopt;
  // Clauses: every other class; per pair of variables, the cost of the
  // clause of each side (NaN: none yet).
  struct Pair {
    double side[2] = {std::nan(""), std::nan("")};
  };
  absl::flat_hash_map<std::pair<int32_t, int32_t>, Pair> pairs;
  double constant = p.cost(root_node);
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
  for (ClassId v = 0; v < nc; ++v) {
    if (var[v] < 0) continue;
    for (ENodeId x = p.class_begin(v); x < p.class_end(v); ++x) {
      for (ClassId d : p.children(x)) {
        if (d == root || var[d] >= 0) return std::nullopt;
      }
    }
  }
  std::vector<double> laplacian(n * n, 0.0);
  double norm = 0;
  for (const auto& [key, pair] : pairs) {
    if (std::isnan(pair.side[0]) || std::isnan(pair.side[1]) || pair.side[0] != pair.side[1]) {
      return std::nullopt;
    }
    const double w = -pair.side[0];  // the edge's weight, >= 0
    constant -= w;
    const auto [i, j] = key;
    laplacian[i * n + i] += w;
    laplacian[j * n + j] += w;
    laplacian[i * n + j] -= w;
    laplacian[j * n + i] -= w;
    norm += 4 * w;
  }
  const double lambda = LargestEigenvalueBound(std::move(laplacian), n);
  // Jacobi's eigenvalues are exact to a few units of rounding times the
  // matrix's norm; a margin far above that keeps the bound a bound.
  const double lambda_up = lambda + 1e-9 * std::max(1.0, norm);
  return constant - static_cast<double>(n) * lambda_up / 4;
}

}  // namespace egret::extract::ilp_internal
