#include "egret/executor/test_data.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/kernels_internal.h"

namespace egret {
namespace {

// splitmix64: a tiny generator whose output depends only on the seed.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [lo, hi].
  int64_t Int(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(Next() % span);
  }

 private:
  uint64_t state_;
};

}  // namespace

absl::StatusOr<std::vector<Tensor>> MakeRandomInputs(const Graph& g, uint64_t seed) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    const TensorType& type = g.node(g.inputs()[i]).outputs.at(0);
    if (!IsConcrete(type.dtype)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("input %s has dtype %s, which holds no data", g.NodeLabel(g.inputs()[i]),
                          DTypeName(type.dtype)));
    }
    if (!type.is_tensor()) {
      return absl::UnimplementedError(absl::StrFormat(
          "input %s is a %s: egret cannot make random data for it (its element shapes are not "
          "part of its type)",
          g.NodeLabel(g.inputs()[i]), type.ToString()));
    }
    Rng rng(seed * 0x100000001b3ull + i);
    Tensor t(type);
    const int64_t n = t.num_elements();
    for (int64_t k = 0; k < n; ++k) {
      if (IsFloat(type.dtype)) {
        t.SetValue(k, 2.0 * rng.Uniform() - 1.0);
      } else if (IsQuantized(type.dtype)) {
        t.SetValue(k, static_cast<double>(rng.Int(StorageMin(type.dtype), StorageMax(type.dtype))));
      } else if (type.dtype == DType::kBool) {
        t.SetValue(k, static_cast<double>(rng.Int(0, 1)));
      } else {
        t.SetValue(k, static_cast<double>(rng.Int(0, 15)));
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

namespace {

// Adds to `d` the comparison of tensor or container `a` with `e`; `what`
// names the value in errors ("output 2", "output 2 element 0").
absl::Status Compare(const Tensor& a, const Tensor& e, const std::string& what, double rtol,
                     double atol, OutputDiff& d) {
  if (a.type().kind != e.type().kind || a.type().dims != e.type().dims ||
      a.elements().size() != e.elements().size()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s is %s%s, expected %s%s", what, a.type().ToString(),
        a.type().is_tensor() ? "" : absl::StrFormat(" of %d", a.elements().size()),
        e.type().ToString(),
        e.type().is_tensor() ? "" : absl::StrFormat(" of %d", e.elements().size())));
  }
  for (size_t k = 0; k < a.elements().size(); ++k) {
    if (absl::Status s = Compare(a.elements()[k], e.elements()[k],
                                 absl::StrFormat("%s element %d", what, k), rtol, atol, d);
        !s.ok()) {
      return s;
    }
  }
  if (!a.type().is_tensor()) return absl::OkStatus();
  const std::vector<double> av = backend_internal::ReadReals(a);
  const std::vector<double> ev = backend_internal::ReadReals(e);
  for (size_t k = 0; k < av.size(); ++k) {
    if (std::isnan(av[k]) || std::isnan(ev[k])) {
      if (std::isnan(av[k]) != std::isnan(ev[k])) {
        ++d.mismatches;
        d.max_abs = d.max_rel = INFINITY;
      }
      continue;
    }
    if (av[k] == ev[k]) continue;  // also equal infinities
    const double abs = std::fabs(av[k] - ev[k]);
    const double rel = ev[k] == 0 ? INFINITY : abs / std::fabs(ev[k]);
    d.max_abs = std::max(d.max_abs, abs);
    d.max_rel = std::max(d.max_rel, rel);
    if (!(abs <= atol + rtol * std::fabs(ev[k]))) ++d.mismatches;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<OutputDiff>> CompareOutputs(absl::Span<const Tensor> actual,
                                                       absl::Span<const Tensor> expected,
                                                       double rtol, double atol) {
  if (actual.size() != expected.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%d outputs against %d expected", actual.size(), expected.size()));
  }
  std::vector<OutputDiff> diffs;
  for (size_t i = 0; i < actual.size(); ++i) {
    OutputDiff d;
    if (absl::Status s =
            Compare(actual[i], expected[i], absl::StrFormat("output %d", i), rtol, atol, d);
        !s.ok()) {
      return s;
    }
    diffs.push_back(d);
  }
  return diffs;
}

}  // namespace egret
