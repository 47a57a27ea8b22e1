// The scaling study's helpers: the power-law fit and the least of repeated
// runs (bench/power_law.h), and runs in a forked child (bench/child_run.h).
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "bench/child_run.h"
#include "bench/power_law.h"
#include "gtest/gtest.h"

namespace egret {
namespace {

TEST(PowerLawTest, RecoversExponentAndCoefficient) {
  std::vector<std::pair<double, double>> pts;
  for (double x : {1e3, 2e3, 5e3, 1e4, 1e5}) pts.emplace_back(x, 3.0 * std::pow(x, 1.5));
  std::optional<PowerLawFit> f = FitPowerLaw(pts);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->exponent, 1.5, 1e-9);
  EXPECT_NEAR(f->coefficient, 3.0, 1e-6);
  EXPECT_NEAR(f->r2, 1.0, 1e-12);
  EXPECT_EQ(f->points, 5);
}

TEST(PowerLawTest, LeastSquaresOverNoisyPoints) {
  // Three equally spaced log x: the least-squares slope is that of the end
  // points, log10(20000 / 2) / 2 = 2, whatever the middle point; the middle
  // point off the line only lowers R².
  std::optional<PowerLawFit> f = FitPowerLaw({{1, 2}, {10, 50}, {100, 20000}});
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->exponent, 2.0, 1e-9);
  EXPECT_LT(f->r2, 1.0);
}

TEST(PowerLawTest, NeedsTwoDistinctPositivePoints) {
  EXPECT_FALSE(FitPowerLaw({}).has_value());
  EXPECT_FALSE(FitPowerLaw({{10, 1}}).has_value());
  EXPECT_FALSE(FitPowerLaw({{10, 1}, {10, 2}}).has_value());
  EXPECT_FALSE(FitPowerLaw({{10, 1}, {0, 2}, {20, -1}}).has_value());
}

TEST(PowerLawTest, LeastPerXKeepsEachSizesFastestRun) {
  // Runs of two sizes, interleaved; one run of the larger one measured
  // nothing (NaN), one size measured nothing at all.
  const std::vector<std::pair<double, double>> runs = {{1000, 12}, {100, 3}, {1000, NAN}, {100, 2},
                                                       {1000, 9},  {100, 4}, {10, NAN}};
  const std::vector<std::pair<double, double>> least = LeastPerX(runs);
  ASSERT_EQ(least.size(), 3u);
  EXPECT_EQ(least[0].first, 10);
  EXPECT_TRUE(std::isnan(least[0].second));
  EXPECT_EQ(least[1], (std::pair<double, double>{100, 2}));
  EXPECT_EQ(least[2], (std::pair<double, double>{1000, 9}));
  // The fit of the least values: 2 -> 9 over a decade.
  std::optional<PowerLawFit> f = FitPowerLaw(least);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->exponent, std::log10(9.0 / 2.0), 1e-9);
  EXPECT_EQ(f->points, 2);
}

TEST(ChildRunTest, PassesTheOutputBack) {
  const std::string big(100000, 'x');  // more than a pipe buffer
  ChildRun r = RunInChild([&] { return "pid " + std::to_string(getpid()) + big; });
  ASSERT_TRUE(r.exited_ok);
  EXPECT_FALSE(r.timed_out);
  // The child's pid, not ours, and all of the text.
  ASSERT_GT(r.output.size(), big.size());
  EXPECT_NE(r.output.substr(0, r.output.size() - big.size()), "pid " + std::to_string(getpid()));
  EXPECT_EQ(r.output.substr(r.output.size() - big.size()), big);
}

TEST(ChildRunTest, KillsARunOverItsTime) {
  ChildRun r = RunInChild(
      [] {
        sleep(30);
        return std::string("late");
      },
      0.3);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited_ok);
  EXPECT_EQ(r.output, "");
  EXPECT_LT(r.seconds, 5);
  EXPECT_GE(r.seconds, 0.3);
}

TEST(ChildRunTest, ACrashIsNotAnOutput) {
  ChildRun r = RunInChild([]() -> std::string { std::abort(); });
  EXPECT_FALSE(r.exited_ok);
  EXPECT_FALSE(r.timed_out);
}

}  // namespace
}  // namespace egret
