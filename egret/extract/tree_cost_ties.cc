#include "egret/extract/tree_cost_ties.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <span>

namespace egret::extract {
namespace {

constexpr double kUnit = 0x1p-53;  // a double's unit roundoff
// A pair needs about as many steps as there are classes between it and the
// classes its two trees share; a pair that shares nothing would expand both
// whole trees.
constexpr int kMaxSteps = 64;
constexpr size_t kMaxTerms = 256;
// All the Compares of one TreeCostTies together: at most this many term
// visits per node of the problem, so that the tree pass stays linear on any
// input.
constexpr int64_t kBudgetPerNode = 16;
constexpr int64_t kBudgetBase = 1 << 16;

}  // namespace

TreeCostTies::TreeCostTies(const ExtractionProblem& p, const std::vector<double>& cost,
                           const Choice& choice, const std::vector<uint32_t>& rounds,
                           const std::vector<uint8_t>& final)
    : p_(p),
      cost_(cost),
      choice_(choice),
      rounds_(rounds),
      final_(final),
      budget_(kBudgetPerNode * static_cast<int64_t>(p.num_nodes()) + kBudgetBase) {}

bool TreeCostTies::Close(double a, uint32_t rounds_a, double b, uint32_t rounds_b) {
  // Each cost is within rounds * kUnit of its exact value, relatively; one
  // more rounding for the subtraction.
  const double bound = (std::abs(a) * (rounds_a + 1.0) + std::abs(b) * (rounds_b + 1.0)) * kUnit;
  return std::abs(a - b) <= bound;
}

void TreeCostTies::Add(ClassId c, int64_t times) {
  // terms_ is short (a few classes): a linear search keeps it sorted.
  auto it = terms_.begin();
  while (it != terms_.end() && it->c < c) ++it;
  if (it != terms_.end() && it->c == c) {
    it->times += times;
    if (it->times == 0) terms_.erase(it);
  } else {
    terms_.insert(it, {c, times});
  }
}

TreeCostTies::Order TreeCostTies::Compare(ENodeId a, ENodeId b) {
  // The usual tie, a node and its commuted twin: the same cost over the
  // same children in another order.
  const std::span<const ClassId> ka = p_.children(a), kb = p_.children(b);
  if (p_.cost(a) == p_.cost(b) && ka.size() == kb.size() && ka.size() <= 4) {
    bool same = true;  // every child of a as often among b's
    for (size_t i = 0; i < ka.size() && same; ++i) {
      same = std::count(ka.begin(), ka.end(), ka[i]) == std::count(kb.begin(), kb.end(), ka[i]);
    }
    if (same) return Order::kEqual;
  }
  // tree(a) - tree(b) = fixed + sum of times * cost[c] over terms_.
  double fixed = p_.cost(a) - p_.cost(b);
  double fixed_error = (std::abs(p_.cost(a)) + std::abs(p_.cost(b))) * kUnit;
  terms_.clear();
  for (ClassId ch : ka) Add(ch, 1);
  for (ClassId ch : kb) Add(ch, -1);
  for (int step = 0;; ++step) {
    // The sum, and a bound on its error: each term's own (rounds * kUnit
    // relative) plus the summation's (one rounding per term and for the
    // multiplication).
    const double summing = static_cast<double>(terms_.size() + 2);
    double sum = fixed, error = fixed_error * summing;
    size_t widest = 0;
    double widest_error = -1;
    for (size_t i = 0; i < terms_.size(); ++i) {
      const Term& t = terms_[i];
      const double v = static_cast<double>(t.times) * cost_[t.c];
      if (!std::isfinite(v) || std::abs(v) == std::numeric_limits<double>::max()) {
        return Order::kUnknown;  // not computable, or saturated
      }
      sum += v;
      const double e = std::abs(v) * (rounds_[t.c] + summing) * kUnit;
      error += e;
      if (e > widest_error) {
        widest_error = e;
        widest = i;
      }
    }
    if (sum < -error) return Order::kLess;
    if (sum > error) return Order::kGreater;
    if (terms_.empty()) return Order::kEqual;
    budget_ -= static_cast<int64_t>(terms_.size()) + 1;
    if (step == kMaxSteps || terms_.size() > kMaxTerms || budget_ < 0) return Order::kUnknown;
    // Replace the term that contributes the most error by its class's node.
    const Term t = terms_[widest];
    const ENodeId n = choice_.node[t.c];
    if (!final_[t.c] || n == kNoENode) return Order::kUnknown;
    terms_.erase(terms_.begin() + static_cast<std::ptrdiff_t>(widest));
    const double own = static_cast<double>(t.times) * p_.cost(n);
    fixed += own;
    fixed_error += std::abs(own) * kUnit + std::abs(fixed) * kUnit;
    for (ClassId ch : p_.children(n)) Add(ch, t.times);
  }
}

}  // namespace egret::extract
