// Fitting a device (cost/device_params.h) to measured whole-network
// latencies, and judging the fit on networks it did not see. `egret
// calibrate` reads the measurements and prices the networks; this is the
// arithmetic (docs/cost-model.md, "Calibration").
//
// The fit minimizes, over the logarithms of the fitted parameters (so they
// stay positive),
//
//   sum over samples of huber(log(predicted / measured))
//     + prior_weight * samples * sum over parameters of (log p - log prior)^2
//
// by iteratively reweighted Levenberg-Marquardt from the prior. Errors are
// relative (logarithmic), so a 0.3 ms network weighs as much as a 100 ms one;
// the Huber loss counts a sample beyond `huber_delta` linearly, so a few
// outliers do not drag the fit; the weak prior keeps a parameter the data
// cannot see (e.g. DDR bandwidth when nothing spills) at its public figure.
// Deterministic: the same samples give the same bits.
#ifndef EGRET_COST_CALIBRATE_H_
#define EGRET_COST_CALIBRATE_H_

#include <functional>
#include <string>
#include <vector>

#include "egret/cost/device_params.h"
#include "egret/cost/latency_model.h"

namespace egret::cost {

// One measured network.
struct CalibrationSample {
  std::string arch;       // the architecture: leave-one-out holds out all its samples
  std::string precision;  // "float", "w8a8", ...
  double measured_ms = 0;
  std::vector<NodeWork> work;  // its nodes (GraphWorkOf)
};

struct FitOptions {
  double huber_delta = 0.2;     // in log units (about 22 %)
  double prior_weight = 0.005;  // per sample and parameter
  int max_iterations = 200;
};

struct FitResult {
  DeviceParams device;  // the prior with its fitted values replaced
  double loss = 0;      // the objective at the end
  int iterations = 0;
};

// Fits `prior`'s parameters to `samples` (at least one). The result's
// origins say "fitted" with the number of samples.
FitResult FitDevice(const std::vector<CalibrationSample>& samples, const DeviceParams& prior,
                    const FitOptions& options = {});

// The rule-cost model as a latency predictor, for comparison: its graph cost
// (HVX cycles, summed NodeWork::rule_cost) times one scale, the median ratio
// of measured ms to cycles over `samples`.
double FitRuleScale(const std::vector<CalibrationSample>& samples);
double RuleCostCycles(const CalibrationSample& s);

// Per sample: the prediction of a fit on every sample, and the prediction of
// a fit that never saw the sample's architecture (leave one architecture
// out), for the latency model and for the scaled rule-cost model.
struct Prediction {
  double fitted_ms = 0;
  double held_out_ms = 0;
  double rule_fitted_ms = 0;
  double rule_held_out_ms = 0;
};
// `progress` (may be null) is called once per architecture held out.
std::vector<Prediction> CrossValidate(const std::vector<CalibrationSample>& samples,
                                      const DeviceParams& prior, const FitOptions& options,
                                      const std::function<void(int, int)>& progress = nullptr);

// Relative errors |predicted / measured - 1|: their median and 90th
// percentile (linear interpolation between order statistics), and
// Spearman's rank correlation of predicted and measured (ties averaged).
struct ErrorStats {
  int n = 0;
  double median = 0;
  double p90 = 0;
  double spearman = 0;
};
ErrorStats Summarize(const std::vector<double>& predicted, const std::vector<double>& measured);

}  // namespace egret::cost

#endif  // EGRET_COST_CALIBRATE_H_
