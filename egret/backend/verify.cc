#include "egret/backend/verify.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "egret/backend/executor.h"

namespace egret {
namespace {

absl::Status Named(std::string_view name, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrFormat("%s: error: %s", name, s.message()));
}

}  // namespace

bool VerifyReport::ok() const {
  for (const OutputCheck& o : outputs) {
    if (!o.diff.within_tolerance()) return false;
  }
  return true;
}

std::string VerifyReport::ToString() const {
  std::string out;
  for (const OutputCheck& o : outputs) {
    absl::StrAppendFormat(&out,
                          "output %s: max abs error %g, max rel error %g, %d of %d elements "
                          "outside tolerance: %s\n",
                          o.label, o.diff.max_abs, o.diff.max_rel, o.diff.mismatches, o.elements,
                          o.diff.within_tolerance() ? "ok" : "FAIL");
  }
  absl::StrAppendFormat(&out, "%s (rtol %g, atol %g)\n", ok() ? "verify: ok" : "verify: FAILED",
                        options.rtol, options.atol);
  return out;
}

std::string VerifyReport::Failures() const {
  std::string out;
  for (const OutputCheck& o : outputs) {
    if (o.diff.within_tolerance()) continue;
    absl::StrAppendFormat(
        &out, "%soutput %s: %d of %d elements outside tolerance (max abs error %g)",
        out.empty() ? "" : "; ", o.label, o.diff.mismatches, o.elements, o.diff.max_abs);
  }
  return out;
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
  absl::StatusOr<ReferenceOutputs> expected = RunReference(reference, reference_name, inputs);
  if (!expected.ok()) return expected.status();
  return VerifyAgainst(*expected, candidate, candidate_name, inputs, options);
}

absl::StatusOr<ReferenceOutputs> RunReference(const Graph& reference,
                                              std::string_view reference_name,
                                              absl::Span<const Tensor> inputs) {
  absl::StatusOr<std::vector<Tensor>> outputs = Execute(reference, inputs);
  if (!outputs.ok()) return Named(reference_name, outputs.status());
  ReferenceOutputs out;
  out.outputs = *std::move(outputs);
  for (size_t k = 0; k < out.outputs.size(); ++k) out.labels.push_back(OutputLabel(reference, k));
  return out;
}

absl::StatusOr<VerifyReport> VerifyAgainst(const ReferenceOutputs& expected, const Graph& candidate,
                                           std::string_view candidate_name,
                                           absl::Span<const Tensor> inputs,
                                           const VerifyOptions& options) {
  absl::StatusOr<std::vector<Tensor>> actual = Execute(candidate, inputs);
  if (!actual.ok()) return Named(candidate_name, actual.status());
  absl::StatusOr<std::vector<OutputDiff>> diffs =
      CompareOutputs(*actual, expected.outputs, options.rtol, options.atol);
  if (!diffs.ok()) return Named(candidate_name, diffs.status());
  VerifyReport report;
  report.options = options;
  for (size_t k = 0; k < diffs->size(); ++k) {
    report.outputs.push_back(
        OutputCheck{expected.labels[k], (*diffs)[k], expected.outputs[k].num_elements()});
  }
  return report;
}

}  // namespace egret
