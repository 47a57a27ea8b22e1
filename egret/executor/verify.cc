#include "egret/executor/verify.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "egret/executor/executor.h"

namespace egret {
namespace {

absl::Status Named(std::string_view name, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrFormat("%s: error: %s", name, s.message()));
}

// " (atol 0.1: rounding bound of 1 fused rounding)" when an output's atol is
// not VerifyOptions::atol; for a failed output whose bound could not be
// derived, also where it stopped.
std::string AtolNote(const OutputCheck& o, const VerifyOptions& options) {
  std::string note;
  if (o.atol_source == "rounding bound") {
    const RoundingBound& r = o.rounding;
    std::vector<std::string> why;
    if (r.removed_roundings > 0) {
      why.push_back(absl::StrFormat("%d removed rounding%s", r.removed_roundings,
                                    r.removed_roundings == 1 ? "" : "s"));
    }
    if (r.added_roundings > 0) {
      why.push_back(absl::StrFormat("%d added rounding%s", r.added_roundings,
                                    r.added_roundings == 1 ? "" : "s"));
    }
    note = absl::StrFormat(" (atol %g: rounding bound, %s)", o.atol, absl::StrJoin(why, ", "));
  } else if (o.atol_source == "quant-steps") {
    note = absl::StrFormat(" (atol %g: %g quantization step)", o.atol, options.quant_steps);
  } else if (o.atol_source == "output magnitude") {
    note = absl::StrFormat(" (atol %g: %g of the output's largest magnitude)", o.atol,
                           options.magnitude_rtol);
  }
  if (!o.diff.within_tolerance() && !o.rounding.unbounded_at.empty()) {
    absl::StrAppendFormat(&note, " (no rounding bound past %s)", o.rounding.unbounded_at);
  }
  return note;
}

// magnitude_rtol of the largest finite magnitude of float output `ref` (0
// for a quantized output, step > 0, or with the option off).
double MagnitudeAtol(const Tensor& ref, double step, const VerifyOptions& options) {
  if (step > 0 || options.magnitude_rtol <= 0 || !IsFloat(ref.type().dtype)) return 0;
  double largest = 0;
  for (int64_t i = 0; i < ref.num_elements(); ++i) {
    const double v = std::abs(ref.GetReal(i));
    if (std::isfinite(v)) largest = std::max(largest, v);
  }
  return options.magnitude_rtol * largest;
}

// Marks, in `unavailable` (one reason per graph output of `g`, "" when
// computed), each output that depends on a node drawing random values without
// a seed (DrawsWithoutSeed): it has no value to compare.
void MarkUnseededDraws(const Graph& g, std::vector<std::string>* unavailable) {
  absl::StatusOr<std::vector<NodeId>> order = g.TopologicalOrder();
  if (!order.ok()) return;  // the executor reports the malformed graph
  std::vector<NodeId> drawn_by(g.num_nodes(), kNoNode);
  bool any = false;
  for (NodeId id : *order) {
    if (DrawsWithoutSeed(g, id)) {
      drawn_by[id] = id;
      any = true;
      continue;
    }
    for (const ValueRef& in : g.node(id).inputs) {
      if (drawn_by[in.node] != kNoNode) drawn_by[id] = drawn_by[in.node];
    }
  }
  if (!any) return;
  for (size_t k = 0; k < unavailable->size() && k < g.outputs().size(); ++k) {
    const NodeId r = drawn_by[g.outputs()[k].value.node];
    if (r == kNoNode || !(*unavailable)[k].empty()) continue;
    (*unavailable)[k] = absl::StrFormat(
        "depends on node %s (%s), which draws random values without a seed (no value to compare)",
        g.NodeLabel(r), g.node(r).op);
  }
}

}  // namespace

std::string_view VerifyVerdictName(VerifyVerdict v) {
  switch (v) {
    case VerifyVerdict::kOk:
      return "ok";
    case VerifyVerdict::kFailed:
      return "failed";
    case VerifyVerdict::kIncomplete:
      return "incomplete";
  }
  return "?";
}

VerifyVerdict VerifyReport::verdict() const {
  bool complete = true;
  for (const OutputCheck& o : outputs) {
    if (!o.not_verified.empty()) {
      complete = false;
    } else if (!o.diff.within_tolerance()) {
      return VerifyVerdict::kFailed;
    }
  }
  return complete ? VerifyVerdict::kOk : VerifyVerdict::kIncomplete;
}

size_t VerifyReport::not_verified() const {
  size_t n = 0;
  for (const OutputCheck& o : outputs) n += o.not_verified.empty() ? 0 : 1;
  return n;
}

std::string VerifyReport::ToString() const {
  std::string out;
  for (const OutputCheck& o : outputs) {
    if (!o.not_verified.empty()) {
      absl::StrAppendFormat(&out, "output %s: not verified: %s\n", o.label, o.not_verified);
      continue;
    }
    absl::StrAppendFormat(&out,
                          "output %s: max abs error %g, max rel error %g, %d of %d elements "
                          "outside tolerance%s: %s\n",
                          o.label, o.diff.max_abs, o.diff.max_rel, o.diff.mismatches, o.elements,
                          AtolNote(o, options), o.diff.within_tolerance() ? "ok" : "FAIL");
  }
  std::vector<std::string> unverified;
  for (const OutputCheck& o : outputs) {
    if (!o.not_verified.empty()) unverified.push_back(o.label);
  }
  std::string verdict_text;
  switch (verdict()) {
    case VerifyVerdict::kOk:
      verdict_text = "ok";
      break;
    case VerifyVerdict::kFailed:
      verdict_text = unverified.empty() ? "FAILED"
                                        : absl::StrFormat("FAILED, %d of %d outputs not verified",
                                                          unverified.size(), outputs.size());
      break;
    case VerifyVerdict::kIncomplete:
      verdict_text =
          absl::StrFormat("incomplete (%d of %d outputs not verified: %s)", unverified.size(),
                          outputs.size(), absl::StrJoin(unverified, ", "));
      break;
  }
  absl::StrAppendFormat(&out, "verify: %s (rtol %g, atol %g)\n", verdict_text, options.rtol,
                        options.atol);
  return out;
}

std::string VerifyReport::Unverified() const {
  std::string out;
  for (const OutputCheck& o : outputs) {
    if (o.not_verified.empty()) continue;
    absl::StrAppendFormat(&out, "%s%s: %s", out.empty() ? "" : "; ", o.label, o.not_verified);
  }
  return out;
}

std::string VerifyReport::Failures() const {
  std::string out;
  for (const OutputCheck& o : outputs) {
    if (!o.not_verified.empty() || o.diff.within_tolerance()) continue;
    absl::StrAppendFormat(
        &out, "%soutput %s: %d of %d elements outside tolerance (max abs error %g)",
        out.empty() ? "" : "; ", o.label, o.diff.mismatches, o.elements, o.diff.max_abs);
  }
  return out;
}

double QuantizationStep(const Graph& g, size_t k) {
  const ValueRef v = g.outputs()[k].value;
  const TensorType& t = g.TypeOf(v);
  if (IsQuantized(t.dtype)) return t.stepsize;
  const Node& n = g.node(v.node);
  if (n.op == "Dequantize" && !n.inputs.empty() && IsQuantized(g.TypeOf(n.inputs[0]).dtype)) {
    return g.TypeOf(n.inputs[0]).stepsize;
  }
  return 0;
}

std::string OutputLabel(const Graph& g, size_t k) {
  const std::string& name = g.outputs()[k].name;
  return name.empty() ? absl::StrFormat("#%d", k) : name;
}

absl::StatusOr<VerifyReport> VerifyGraphs(const Graph& reference, std::string_view reference_name,
                                          const Graph& candidate, std::string_view candidate_name,
                                          absl::Span<const Tensor> inputs,
                                          const VerifyOptions& options) {
  if (reference.inputs().size() != candidate.inputs().size()) {
    return Named(candidate_name, absl::InvalidArgumentError(absl::StrFormat(
                                     "has %d inputs, %s has %d", candidate.inputs().size(),
                                     reference_name, reference.inputs().size())));
  }
  for (size_t k = 0; k < reference.inputs().size(); ++k) {
    const TensorType& ta = reference.node(reference.inputs()[k]).outputs[0];
    const TensorType& tb = candidate.node(candidate.inputs()[k]).outputs[0];
    if (ta != tb) {
      return Named(candidate_name, absl::InvalidArgumentError(absl::StrFormat(
                                       "input %d is %s, in %s it is %s", k, tb.ToString(),
                                       reference_name, ta.ToString())));
    }
  }
  absl::StatusOr<ReferenceOutputs> expected =
      RunReference(reference, reference_name, inputs, options.max_live_bytes, options.threads);
  if (!expected.ok()) return expected.status();
  return VerifyAgainst(*expected, candidate, candidate_name, inputs, options);
}

absl::StatusOr<ReferenceOutputs> RunReference(const Graph& reference,
                                              std::string_view reference_name,
                                              absl::Span<const Tensor> inputs,
                                              int64_t max_live_bytes, int threads) {
  ReferenceOutputs out;
  ExecuteStats stats;
  ExecuteOptions run;
  run.max_live_bytes = max_live_bytes;
  run.threads = threads;
  run.unavailable = &out.unavailable;
  run.stats = &stats;
  absl::StatusOr<std::vector<Tensor>> outputs = Execute(reference, inputs, run);
  if (!outputs.ok()) return Named(reference_name, outputs.status());
  out.outputs = *std::move(outputs);
  out.peak_live_bytes = stats.peak_live_bytes;
  out.graph = &reference;
  MarkUnseededDraws(reference, &out.unavailable);
  for (size_t k = 0; k < out.outputs.size(); ++k) {
    out.labels.push_back(OutputLabel(reference, k));
    out.steps.push_back(QuantizationStep(reference, k));
  }
  return out;
}

absl::StatusOr<VerifyReport> VerifyAgainst(const ReferenceOutputs& expected, const Graph& candidate,
                                           std::string_view candidate_name,
                                           absl::Span<const Tensor> inputs,
                                           const VerifyOptions& options) {
  std::vector<std::string> unavailable;
  ExecuteStats stats;
  ExecuteOptions run;
  run.max_live_bytes = options.max_live_bytes;
  run.threads = options.threads;
  run.unavailable = &unavailable;
  run.stats = &stats;
  absl::StatusOr<std::vector<Tensor>> actual = Execute(candidate, inputs, run);
  if (!actual.ok()) return Named(candidate_name, actual.status());
  if (actual->size() != expected.outputs.size()) {
    return Named(candidate_name,
                 absl::InvalidArgumentError(absl::StrFormat(
                     "%d outputs, expected %d", actual->size(), expected.outputs.size())));
  }
  MarkUnseededDraws(candidate, &unavailable);
  // Compare the outputs both graphs computed; the rest are not verified.
  VerifyReport report;
  report.options = options;
  report.reference_peak_live_bytes = expected.peak_live_bytes;
  report.candidate_peak_live_bytes = stats.peak_live_bytes;
  std::vector<RoundingBound> bounds;
  if (options.derive_rounding_bound && expected.graph != nullptr) {
    bounds = DeriveRoundingBounds(*expected.graph, candidate);
  }
  for (size_t k = 0; k < actual->size(); ++k) {
    const double step = k < expected.steps.size() ? expected.steps[k] : 0;
    OutputCheck check;
    check.label = expected.labels[k];
    check.atol = std::max(options.atol, options.quant_steps * step);
    check.atol_source = check.atol > options.atol ? "quant-steps" : "atol";

    if (k < bounds.size()) {
      check.rounding = bounds[k];
      if (std::isfinite(bounds[k].bound) && bounds[k].bound > check.atol) {
        check.atol = bounds[k].bound;
        check.atol_source = "rounding bound";
      }
    }
    // (A step's 1e-4 margin absorbs the float32 rounding of dequantized values.)
    const double atol = check.atol > options.atol ? check.atol * (1 + 1e-4) : check.atol;
    if (k < expected.unavailable.size() && !expected.unavailable[k].empty()) {
      check.not_verified = absl::StrCat("the reference ", expected.unavailable[k]);
    } else if (!unavailable[k].empty()) {
      check.not_verified = absl::StrCat("the candidate ", unavailable[k]);
    } else {
      absl::StatusOr<std::vector<OutputDiff>> diff =
          CompareOutputs(absl::MakeConstSpan(&(*actual)[k], 1),
                         absl::MakeConstSpan(&expected.outputs[k], 1), options.rtol, atol);
      if (!diff.ok()) {
        return Named(candidate_name,
                     absl::Status(diff.status().code(),
                                  absl::StrFormat("output %d: %s", k, diff.status().message())));
      }
      check.diff = (*diff)[0];
      check.elements = expected.outputs[k].num_elements();
      // A float output that fails only by float32 reassociation: its atol
      // grows to magnitude_rtol of its largest magnitude (reported so only
      // when that was needed and enough; a failure is reported with atol).
      const double grown = MagnitudeAtol(expected.outputs[k], step, options);
      if (!check.diff.within_tolerance() && grown > atol) {
        diff = CompareOutputs(absl::MakeConstSpan(&(*actual)[k], 1),
                              absl::MakeConstSpan(&expected.outputs[k], 1), options.rtol, grown);
        if (diff.ok() && (*diff)[0].within_tolerance()) {
          check.diff = (*diff)[0];
          check.atol = grown;
          check.atol_source = "output magnitude";
        }
      }
    }
    report.outputs.push_back(std::move(check));
  }
  return report;
}

}  // namespace egret
