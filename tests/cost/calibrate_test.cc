// Calibration: a fit recovers the parameters that generated synthetic
// measurements, shrugs off an outlier, keeps a parameter the data cannot see
// at its prior, and is deterministic; cross-validation holds out whole
// architectures; the error statistics are the textbook ones.
#include "egret/cost/calibrate.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace egret::cost {
namespace {

DeviceParams Truth() {
  DeviceParams d = PublicPrior("truth", "Test");
  d.fitted = {/*matrix8=*/8000,   /*matrix16=*/3000, /*hvx=*/1.5,
              /*ddr=*/40,         /*dispatch=*/3000,
              /*inference=*/90000};
  return d;
}

// Synthetic networks: a mix of matrix, vector and memory-bound nodes, float
// and 8-bit, sized over three orders of magnitude; measured = the truth's
// prediction.
std::vector<CalibrationSample> Synthetic(const DeviceParams& truth, int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<CalibrationSample> out;
  for (int i = 0; i < n; ++i) {
    CalibrationSample s;
    s.arch = "net" + std::to_string(i);
    s.precision = i % 2 == 0 ? "float" : "w8a8";
    const double scale = std::pow(10, 3 * u(rng));
    const int nodes = 20 + static_cast<int>(200 * u(rng));
    for (int k = 0; k < nodes; ++k) {
      NodeWork w;
      w.dispatched = true;
      const double r = u(rng);
      if (r < 0.4) {
        (s.precision == "float" ? w.matrix16_macs : w.matrix8_macs) = scale * 2e5 * u(rng);
        w.vector_cycles = 1e12;
        w.ddr_bytes = scale * 2e2 * u(rng);
      } else if (r < 0.8) {
        w.vector_cycles = scale * 300 * u(rng);
      } else {
        w.ddr_bytes = scale * 2e4 * u(rng);
      }
      w.rule_cost = w.vector_cycles < 1e11 ? w.vector_cycles : 10;
      s.work.push_back(w);
    }
    s.measured_ms = PredictMs(truth, s.work);
    out.push_back(std::move(s));
  }
  return out;
}

TEST(CalibrateTest, AFitRecoversTheParametersThatMadeTheMeasurements) {
  const DeviceParams truth = Truth();
  const std::vector<CalibrationSample> samples = Synthetic(truth, 30, 1);
  FitOptions o;
  o.prior_weight = 1e-6;
  const FitResult fit = FitDevice(samples, PublicPrior("fit", "Test"), o);
  for (int j = 0; j < kNumFitParams; ++j) {
    EXPECT_NEAR(fit.device.fitted[j] / truth.fitted[j], 1.0, 0.05)
        << FitParamKey(static_cast<FitParam>(j));
  }
  for (const CalibrationSample& s : samples) {
    EXPECT_NEAR(PredictMs(fit.device, s.work) / s.measured_ms, 1.0, 0.02) << s.arch;
  }
  EXPECT_NE(fit.device.origin[0].find("fitted"), std::string::npos);
  // Deterministic.
  EXPECT_EQ(FitDevice(samples, PublicPrior("fit", "Test"), o).device.fitted, fit.device.fitted);
}

TEST(CalibrateTest, OneWildOutlierBarelyMovesTheFit) {
  const DeviceParams truth = Truth();
  std::vector<CalibrationSample> samples = Synthetic(truth, 30, 2);
  samples[3].measured_ms *= 5;
  const FitResult fit = FitDevice(samples, PublicPrior("fit", "Test"));
  int close = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (i == 3) continue;
    close += std::abs(PredictMs(fit.device, samples[i].work) / samples[i].measured_ms - 1) < 0.1;
  }
  EXPECT_GE(close, 27);
}

TEST(CalibrateTest, AParameterTheDataCannotSeeStaysAtItsPrior) {
  DeviceParams truth = Truth();
  std::vector<CalibrationSample> samples = Synthetic(truth, 20, 3);
  for (CalibrationSample& s : samples) {
    for (NodeWork& w : s.work) w.ddr_bytes = 0;
    s.measured_ms = PredictMs(truth, s.work);
  }
  const DeviceParams prior = PublicPrior("fit", "Test");
  const FitResult fit = FitDevice(samples, prior);
  EXPECT_NEAR(fit.device.at(FitParam::kDdr) / prior.at(FitParam::kDdr), 1.0, 0.01);
}

TEST(CalibrateTest, CrossValidationHoldsOutWholeArchitectures) {
  const DeviceParams truth = Truth();
  std::vector<CalibrationSample> samples = Synthetic(truth, 12, 4);
  // Two samples of one architecture, one of them wrong by 3x: held out
  // together, neither informs the other's prediction.
  samples[1].arch = samples[0].arch;
  samples[1].measured_ms *= 3;
  int folds = 0;
  const std::vector<Prediction> p =
      CrossValidate(samples, PublicPrior("fit", "Test"), {}, [&folds](int, int) { ++folds; });
  EXPECT_EQ(folds, 11);
  ASSERT_EQ(p.size(), samples.size());
  EXPECT_NEAR(p[0].held_out_ms / samples[0].measured_ms, 1.0, 0.1);
  for (const Prediction& x : p) {
    EXPECT_GT(x.held_out_ms, 0);
    EXPECT_GT(x.rule_held_out_ms, 0);
  }
}

TEST(CalibrateTest, RuleScaleIsTheMedianRatio) {
  std::vector<CalibrationSample> s(3);
  const double cycles[] = {100, 200, 400};
  const double ms[] = {1, 4, 4};  // ratios 0.01, 0.02, 0.01
  for (int i = 0; i < 3; ++i) {
    NodeWork w;
    w.rule_cost = cycles[i];
    s[i].work = {w};
    s[i].measured_ms = ms[i];
  }
  EXPECT_NEAR(FitRuleScale(s), 0.01, 1e-12);
  EXPECT_DOUBLE_EQ(RuleCostCycles(s[1]), 200);
}

TEST(CalibrateTest, SummaryStatistics) {
  const ErrorStats s = Summarize({1.1, 2.0, 2.7, 5.0, 4.0}, {1, 2, 3, 4, 5});
  EXPECT_EQ(s.n, 5);
  // Relative errors 0.1, 0, 0.1, 0.25, 0.2: median 0.1; p90 between 0.2 and 0.25.
  EXPECT_NEAR(s.median, 0.1, 1e-12);
  EXPECT_NEAR(s.p90, 0.23, 1e-12);
  EXPECT_NEAR(s.spearman, 0.9, 1e-12);
  EXPECT_NEAR(Summarize({1, 1, 2}, {1, 2, 3}).spearman, std::sqrt(0.75), 1e-12);
}

}  // namespace
}  // namespace egret::cost
