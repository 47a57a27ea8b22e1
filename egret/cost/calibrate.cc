#include "egret/cost/calibrate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"

namespace egret::cost {
namespace {

constexpr int kP = kNumFitParams;
using Vec = std::array<double, kP>;

DeviceParams WithLogParams(const DeviceParams& base, const Vec& theta) {
  DeviceParams d = base;
  for (int j = 0; j < kP; ++j) d.fitted[j] = std::exp(theta[j]);
  return d;
}

// log(predicted / measured) per sample.
std::vector<double> Residuals(const std::vector<CalibrationSample>& samples,
                              const DeviceParams& base, const Vec& theta) {
  const DeviceParams d = WithLogParams(base, theta);
  std::vector<double> r(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    r[i] = std::log(PredictMs(d, samples[i].work) / samples[i].measured_ms);
  }
  return r;
}

double Huber(double r, double delta) {
  const double a = std::abs(r);
  return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}

double Objective(const std::vector<double>& r, const Vec& theta, const Vec& theta0, double lambda,
                 double delta) {
  double f = 0;
  for (double x : r) f += Huber(x, delta);
  for (int j = 0; j < kP; ++j) f += 0.5 * lambda * (theta[j] - theta0[j]) * (theta[j] - theta0[j]);
  return f;
}

// Solves a (kP x kP) * x = b by Gaussian elimination with partial pivoting;
// false when singular.
bool Solve(std::array<Vec, kP> a, Vec b, Vec* x) {
  for (int c = 0; c < kP; ++c) {
    int piv = c;
    for (int r = c + 1; r < kP; ++r) {
      if (std::abs(a[r][c]) > std::abs(a[piv][c])) piv = r;
    }
    if (std::abs(a[piv][c]) < 1e-300) return false;
    std::swap(a[c], a[piv]);
    std::swap(b[c], b[piv]);
    for (int r = c + 1; r < kP; ++r) {
      const double f = a[r][c] / a[c][c];
      for (int k = c; k < kP; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  for (int c = kP - 1; c >= 0; --c) {
    double v = b[c];
    for (int k = c + 1; k < kP; ++k) v -= a[c][k] * (*x)[k];
    (*x)[c] = v / a[c][c];
  }
  return true;
}

std::vector<double> Ranks(const std::vector<double>& v) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&v](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double r = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) rank[idx[k]] = r;
    i = j + 1;
  }
  return rank;
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

FitResult FitDevice(const std::vector<CalibrationSample>& samples, const DeviceParams& prior,
                    const FitOptions& options) {
  Vec theta0{};
  for (int j = 0; j < kP; ++j) theta0[j] = std::log(prior.fitted[j]);
  const double lambda = options.prior_weight * static_cast<double>(samples.size());
  const double delta = options.huber_delta;
  Vec theta = theta0;
  std::vector<double> r = Residuals(samples, prior, theta);
  double f = Objective(r, theta, theta0, lambda, delta);
  double mu = 1e-3;
  int it = 0;
  for (; it < options.max_iterations; ++it) {
    // The Jacobian of the residuals by forward differences.
    constexpr double h = 1e-6;
    std::vector<Vec> jac(samples.size());
    for (int j = 0; j < kP; ++j) {
      Vec t = theta;
      t[j] += h;
      const std::vector<double> rj = Residuals(samples, prior, t);
      for (size_t i = 0; i < samples.size(); ++i) jac[i][j] = (rj[i] - r[i]) / h;
    }
    // IRLS weights of the Huber loss; the normal equations with the prior.
    std::array<Vec, kP> a{};
    Vec g{};
    for (size_t i = 0; i < samples.size(); ++i) {
      const double w = std::abs(r[i]) <= delta ? 1.0 : delta / std::abs(r[i]);
      for (int j = 0; j < kP; ++j) {
        g[j] += w * jac[i][j] * r[i];
        for (int k = 0; k < kP; ++k) a[j][k] += w * jac[i][j] * jac[i][k];
      }
    }
    for (int j = 0; j < kP; ++j) {
      a[j][j] += lambda;
      g[j] += lambda * (theta[j] - theta0[j]);
    }
    bool improved = false, converged = false;
    for (int tries = 0; tries < 20 && !improved; ++tries) {
      std::array<Vec, kP> damped = a;
      for (int j = 0; j < kP; ++j) damped[j][j] += mu * std::max(a[j][j], 1e-12);
      Vec neg_g{};
      for (int j = 0; j < kP; ++j) neg_g[j] = -g[j];
      Vec step{};
      if (!Solve(damped, neg_g, &step)) {
        mu *= 10;
        continue;
      }
      Vec t = theta;
      // Steps of more than a factor e^3 per iteration are clipped.
      for (int j = 0; j < kP; ++j) t[j] += std::clamp(step[j], -3.0, 3.0);
      std::vector<double> rt = Residuals(samples, prior, t);
      const double ft = Objective(rt, t, theta0, lambda, delta);
      if (std::isfinite(ft) && ft < f) {
        const double gain = f - ft;
        theta = t;
        r = std::move(rt);
        f = ft;
        mu = std::max(mu / 3, 1e-9);
        improved = true;
        converged = gain < 1e-9 * f;
      } else {
        mu *= 4;
      }
    }
    if (!improved || converged) break;
  }
  FitResult out;
  out.device = WithLogParams(prior, theta);
  for (int j = 0; j < kP; ++j) {
    out.device.origin[j] =
        absl::StrFormat("fitted by egret calibrate on %d measured networks (prior %.6g)",
                        samples.size(), prior.fitted[j]);
  }
  out.loss = f;
  out.iterations = it;
  return out;
}

double RuleCostCycles(const CalibrationSample& s) {
  double c = 0;
  for (const NodeWork& w : s.work) c += w.rule_cost;
  return c;
}

double FitRuleScale(const std::vector<CalibrationSample>& samples) {
  std::vector<double> logs;
  for (const CalibrationSample& s : samples) {
    const double c = RuleCostCycles(s);
    if (c > 0) logs.push_back(std::log(s.measured_ms / c));
  }
  return logs.empty() ? 1.0 : std::exp(Quantile(logs, 0.5));
}

std::vector<Prediction> CrossValidate(const std::vector<CalibrationSample>& samples,
                                      const DeviceParams& prior, const FitOptions& options,
                                      const std::function<void(int, int)>& progress) {
  std::vector<Prediction> out(samples.size());
  const DeviceParams all = FitDevice(samples, prior, options).device;
  const double all_scale = FitRuleScale(samples);
  std::vector<std::string> archs;
  for (const CalibrationSample& s : samples) {
    if (std::find(archs.begin(), archs.end(), s.arch) == archs.end()) archs.push_back(s.arch);
  }
  for (size_t i = 0; i < samples.size(); ++i) {
    out[i].fitted_ms = PredictMs(all, samples[i].work);
    out[i].rule_fitted_ms = all_scale * RuleCostCycles(samples[i]);
  }
  for (size_t a = 0; a < archs.size(); ++a) {
    if (progress) progress(static_cast<int>(a) + 1, static_cast<int>(archs.size()));
    std::vector<CalibrationSample> train;
    for (const CalibrationSample& s : samples) {
      if (s.arch != archs[a]) train.push_back(s);
    }
    if (train.empty()) continue;
    const DeviceParams d = FitDevice(train, prior, options).device;
    const double scale = FitRuleScale(train);
    for (size_t i = 0; i < samples.size(); ++i) {
      if (samples[i].arch != archs[a]) continue;
      out[i].held_out_ms = PredictMs(d, samples[i].work);
      out[i].rule_held_out_ms = scale * RuleCostCycles(samples[i]);
    }
  }
  return out;
}

ErrorStats Summarize(const std::vector<double>& predicted, const std::vector<double>& measured) {
  ErrorStats s;
  s.n = static_cast<int>(predicted.size());
  if (predicted.empty() || predicted.size() != measured.size()) return s;
  std::vector<double> rel;
  for (size_t i = 0; i < predicted.size(); ++i) {
    rel.push_back(std::abs(predicted[i] / measured[i] - 1));
  }
  s.median = Quantile(rel, 0.5);
  s.p90 = Quantile(rel, 0.9);
  if (predicted.size() < 2) return s;
  const std::vector<double> rp = Ranks(predicted), rm = Ranks(measured);
  const double n = static_cast<double>(rp.size());
  const double mean = (n + 1) / 2;
  double cov = 0, vp = 0, vm = 0;
  for (size_t i = 0; i < rp.size(); ++i) {
    cov += (rp[i] - mean) * (rm[i] - mean);
    vp += (rp[i] - mean) * (rp[i] - mean);
    vm += (rm[i] - mean) * (rm[i] - mean);
  }
  s.spearman = vp > 0 && vm > 0 ? cov / std::sqrt(vp * vm) : 0;
  return s;
}

}  // namespace egret::cost
