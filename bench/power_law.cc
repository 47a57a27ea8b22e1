#include "bench/power_law.h"

#include <cmath>
#include <map>

namespace egret {

std::optional<PowerLawFit> FitPowerLaw(const std::vector<std::pair<double, double>>& points) {
  std::vector<std::pair<double, double>> logs;
  for (const auto& [x, y] : points) {
    if (x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y)) {
      logs.emplace_back(std::log(x), std::log(y));
    }
  }
  const double n = static_cast<double>(logs.size());
  if (logs.size() < 2) return std::nullopt;
  double mx = 0, my = 0;
  for (const auto& [lx, ly] : logs) mx += lx / n, my += ly / n;
  double sxx = 0, sxy = 0, syy = 0;
  for (const auto& [lx, ly] : logs) {
    sxx += (lx - mx) * (lx - mx);
    sxy += (lx - mx) * (ly - my);
    syy += (ly - my) * (ly - my);
  }
  if (sxx <= 0) return std::nullopt;
  PowerLawFit fit;
  fit.exponent = sxy / sxx;
  fit.coefficient = std::exp(my - fit.exponent * mx);
  fit.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
  fit.points = static_cast<int>(logs.size());
  return fit;
}

std::vector<std::pair<double, double>> LeastPerX(
    const std::vector<std::pair<double, double>>& points) {
  std::map<double, double> least;
  for (const auto& [x, y] : points) {
    auto [it, added] = least.emplace(x, y);
    if (!added && (std::isnan(it->second) || y < it->second)) it->second = y;
  }
  return {least.begin(), least.end()};
}

}  // namespace egret
