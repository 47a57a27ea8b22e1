// Least-squares fit of y = c * x^k in log-log space, for the growth exponents
// of the scaling study (bench/scaling, docs/scaling.md).
#ifndef EGRET_BENCH_POWER_LAW_H_
#define EGRET_BENCH_POWER_LAW_H_

#include <optional>
#include <utility>
#include <vector>

namespace egret {

struct PowerLawFit {
  double exponent = 0;     // k: the slope of log y against log x
  double coefficient = 0;  // c
  double r2 = 0;           // coefficient of determination of the log-log line
  int points = 0;          // the points used
};

// Fits the points with x > 0 and y > 0 (others are left out). Needs at least
// two usable points with distinct x; otherwise nullopt.
std::optional<PowerLawFit> FitPowerLaw(const std::vector<std::pair<double, double>>& points);

// Repeated measurements (x, y) reduced to one point per x, the least y of
// those that are numbers (NaN, not measured, gives way to any number; an x
// with none keeps NaN), in increasing x. On a machine shared with other work,
// interference only adds time: the fastest of repeated runs is the best
// estimate of the work's own cost.
std::vector<std::pair<double, double>> LeastPerX(
    const std::vector<std::pair<double, double>>& points);

}  // namespace egret

#endif  // EGRET_BENCH_POWER_LAW_H_
