// Checking that two graphs compute the same thing: both run on the reference
// executor (backend/executor.h) on the same inputs, and their outputs are
// compared element by element. Behind `egret verify` and `egret optimize
// --verify`.
#ifndef EGRET_EXECUTOR_VERIFY_H_
#define EGRET_EXECUTOR_VERIFY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/executor/rounding_bound.h"
#include "egret/executor/test_data.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"

namespace egret {

struct VerifyOptions {
  // An element is within tolerance when |b - a| <= atol + rtol * |a| (a: the
  // reference's value).
  double rtol = 1e-4;
  double atol = 1e-5;
  // An output that is quantized, or the Dequantize of a quantized tensor, in
  // the reference may also differ by this many steps of that encoding (its
  // largest stepsize): two equal real values computed in a different order
  // may round to neighbouring grid points. The output's atol is then at
  // least quant_steps * step.
  double quant_steps = 1.0;
  // A float output may also differ by this fraction of its largest magnitude
  // in the reference: float32 reassociation errors (a folded BatchNorm, a
  // convolution split into tiles) scale with the magnitudes summed, not with
  // an element that came out near zero by cancellation. An output that fails
  // with atol is compared again with magnitude_rtol * max |reference| when
  // that is larger, and reported with it when it passes. 0: off.
  double magnitude_rtol = 1e-5;
  // Also allow, per output, the bound that follows from where the candidate
  // rounds differently from the reference (backend/rounding_bound.h: a fused
  // island rounds once where the reference rounded twice, and that carries
  // through the ops after it). The output's atol is then at least that
  // bound. Off: quant_steps alone (`--quant-steps` given by the user).
  bool derive_rounding_bound = true;
  // Each executor run fails with kResourceExhausted when its computed values
  // alive at once would exceed this many bytes (ExecuteOptions::
  // max_live_bytes); 0: no limit.
  int64_t max_live_bytes = 0;
  // Threads each executor run may use (ExecuteOptions::threads); 0: every
  // core.
  int threads = 0;
};

struct OutputCheck {
  std::string label;     // the reference's output name, or "#k" when unnamed
  OutputDiff diff;       // candidate against reference
  int64_t elements = 0;  // elements compared
  double atol = 0;       // the absolute tolerance it was compared with
  // Where atol came from: "atol" (VerifyOptions::atol), "quant-steps"
  // (quant_steps steps of the output's encoding), "rounding bound" (derived
  // from where the graphs round differently: `rounding`).
  std::string atol_source;
  // The derived bound (when VerifyOptions::derive_rounding_bound).
  RoundingBound rounding;
  // Why the output was not compared ("" when it was): the reference or the
  // candidate cannot compute it, because it depends on an op with no
  // reference kernel (e.g. an opaque onnx.If), or its value is a random draw
  // without a seed (it depends on a node DrawsWithoutSeed, executor.h, names:
  // any value from the op's distribution is right, so there is nothing to
  // compare). Not a failure.
  std::string not_verified;
};

// The outcome of a verification. kOk only when every output was compared
// and each is within tolerance; kFailed when a compared output is not
// (whatever else was or was not compared); kIncomplete when every compared
// output is within tolerance but at least one output was not compared. A
// caller never reports kIncomplete as a pass: `egret optimize --verify` and
// `egret verify` exit 3 (kExitUnverified) on it and optimize writes nothing
// unless --allow-unverified is given.
enum class VerifyVerdict { kOk, kFailed, kIncomplete };
// "ok", "failed", "incomplete".
std::string_view VerifyVerdictName(VerifyVerdict v);

struct VerifyReport {
  VerifyOptions options;
  std::vector<OutputCheck> outputs;  // one per graph output, in order
  // The most bytes of computed values alive at once in the executor's run of
  // the reference and of the candidate (ExecuteStats::peak_live_bytes).
  int64_t reference_peak_live_bytes = 0;
  int64_t candidate_peak_live_bytes = 0;

  VerifyVerdict verdict() const;
  // verdict() == kOk: every output compared, each within tolerance.
  bool ok() const { return verdict() == VerifyVerdict::kOk; }
  // Some compared output is outside tolerance.
  bool failed() const { return verdict() == VerifyVerdict::kFailed; }
  // Outputs that were not compared.
  size_t not_verified() const;
  // One line per output, then the verdict, each ending in '\n':
  //   output out: max abs error 0, max rel error 0, 0 of 2048 elements outside tolerance: ok
  //   output state: not verified: the reference depends on node 'If_0' (onnx.If), which has no
  //   reference kernel
  //   verify: incomplete (1 of 2 outputs not verified: state) (rtol 0.0001, atol 1e-05)
  // The last line is "verify: ok (...)", "verify: FAILED (...)" or, as above,
  // "verify: incomplete (N of M outputs not verified: a, b, ...) (...)".
  std::string ToString() const;
  // The outputs not compared, with why, on one line, "" when there are none:
  //   state: the reference depends on node 'If_0' (onnx.If), ...; other: ...
  std::string Unverified() const;
  // The outputs outside tolerance on one line, "" when ok():
  //   output out: 3 of 2048 elements outside tolerance (max abs error 0.5); output ...
  std::string Failures() const;
};

// The name of graph output k, or "#k" when it has none.
std::string OutputLabel(const Graph& g, size_t k);
// The quantization step of graph output k: its stepsize when it is quantized,
// that of the tensor it dequantizes when a Dequantize computes it, else 0.
double QuantizationStep(const Graph& g, size_t k);

// Runs `reference` and `candidate` on `inputs` (one per graph input, of the
// reference's input types) and compares their outputs. An output either graph
// cannot compute, because it depends on an op with no reference kernel, or
// that depends on a random draw without a seed (DrawsWithoutSeed, executor.h)
// is reported as not verified and the others are still compared. A report whose
// ok() is false is a success of this call. Fails when the graphs' inputs differ in
// number or type, when either graph fails to run or when their outputs differ
// in number or dims; the message starts with the offending graph's name
// ("b.json: error: input 0 is Float32[2], in a.json it is Float32[3]") and
// the code is the executor's (kInvalidArgument for mismatches).
absl::StatusOr<VerifyReport> VerifyGraphs(const Graph& reference, std::string_view reference_name,
                                          const Graph& candidate, std::string_view candidate_name,
                                          absl::Span<const Tensor> inputs,
                                          const VerifyOptions& options = {});

// The two halves of VerifyGraphs, for checking several candidates against
// one reference run (the executor is the slow part on a real network).
struct ReferenceOutputs {
  std::vector<Tensor> outputs;      // the reference's outputs on the inputs it ran on
  std::vector<std::string> labels;  // OutputLabel of each
  std::vector<double> steps;        // QuantizationStep of each
  // Per output, why the reference could not compute it ("" when it did; the
  // output is then a Tensor of the unknown TensorType()), or why its value
  // is not to be compared (it depends on an unseeded random draw).
  std::vector<std::string> unavailable;
  int64_t peak_live_bytes = 0;  // the run's ExecuteStats::peak_live_bytes
  // The reference graph itself (RunReference sets it; it must outlive this):
  // what the rounding bound of a candidate is derived against.
  const Graph* graph = nullptr;
};
// Runs `reference` on `inputs`; an error starts with `reference_name`.
absl::StatusOr<ReferenceOutputs> RunReference(const Graph& reference,
                                              std::string_view reference_name,
                                              absl::Span<const Tensor> inputs,
                                              int64_t max_live_bytes = 0, int threads = 0);
// Runs `candidate` on `inputs` (those `expected` was computed on) and compares
// its outputs with `expected`'s, as VerifyGraphs does after its input check;
// an error starts with `candidate_name`.
absl::StatusOr<VerifyReport> VerifyAgainst(const ReferenceOutputs& expected, const Graph& candidate,
                                           std::string_view candidate_name,
                                           absl::Span<const Tensor> inputs,
                                           const VerifyOptions& options = {});

}  // namespace egret

#endif  // EGRET_EXECUTOR_VERIFY_H_
