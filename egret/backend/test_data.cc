#include "egret/backend/test_data.h"

#include <cmath>

#include "absl/strings/str_format.h"
#include "egret/backend/kernels/kernels_internal.h"

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

absl::StatusOr<std::vector<OutputDiff>> CompareOutputs(absl::Span<const Tensor> actual,
                                                       absl::Span<const Tensor> expected,
                                                       double rtol, double atol) {
  if (actual.size() != expected.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%d outputs against %d expected", actual.size(), expected.size()));
  }
  std::vector<OutputDiff> diffs;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i].type().dims != expected[i].type().dims) {
      return absl::InvalidArgumentError(absl::StrFormat("output %d is %s, expected %s", i,
                                                        actual[i].type().ToString(),
                                                        expected[i].type().ToString()));
    }
    const std::vector<double> a = backend_internal::ReadReals(actual[i]);
    const std::vector<double> e = backend_internal::ReadReals(expected[i]);
    OutputDiff d;
    for (size_t k = 0; k < a.size(); ++k) {
      if (std::isnan(a[k]) || std::isnan(e[k])) {
        if (std::isnan(a[k]) != std::isnan(e[k])) {
          ++d.mismatches;
          d.max_abs = d.max_rel = INFINITY;
        }
        continue;
      }
      if (a[k] == e[k]) continue;  // also equal infinities
      const double abs = std::fabs(a[k] - e[k]);
      const double rel = e[k] == 0 ? INFINITY : abs / std::fabs(e[k]);
      d.max_abs = std::max(d.max_abs, abs);
      d.max_rel = std::max(d.max_rel, rel);
      if (!(abs <= atol + rtol * std::fabs(e[k]))) ++d.mismatches;
    }
    diffs.push_back(d);
  }
  return diffs;
}

}  // namespace egret
