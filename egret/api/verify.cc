#include "egret/api/verify.h"

#include <utility>

#include "egret/executor/test_data.h"
#include "egret/executor/verify.h"

namespace egret::api {

absl::StatusOr<VerifyResult> Verify(const Graph& reference, const Graph& candidate,
                                    const VerifyOptions& options) {
  absl::StatusOr<std::vector<Tensor>> inputs = MakeRandomInputs(reference, options.seed);
  if (!inputs.ok()) return inputs.status();
  egret::VerifyOptions vo;
  vo.rtol = options.rtol;
  vo.atol = options.atol;
  vo.quant_steps = options.quant_steps;
  vo.threads = options.threads;
  vo.max_live_bytes = options.memory_limit_bytes;
  absl::StatusOr<VerifyReport> report =
      VerifyGraphs(reference, "reference", candidate, "candidate", *inputs, vo);
  if (!report.ok()) return report.status();
  VerifyResult out;
  switch (report->verdict()) {
    case VerifyVerdict::kOk:
      out.status = VerifyStatus::kOk;
      break;
    case VerifyVerdict::kFailed:
      out.status = VerifyStatus::kFailed;
      break;
    case VerifyVerdict::kIncomplete:
      out.status = VerifyStatus::kIncomplete;
      break;
  }
  for (const OutputCheck& o : report->outputs) {
    VerifyResult::Output r;
    r.name = o.label;
    r.verified = o.not_verified.empty();
    r.reason = o.not_verified;
    r.elements = o.elements;
    r.mismatches = o.diff.mismatches;
    r.max_abs_error = o.diff.max_abs;
    r.max_rel_error = o.diff.max_rel;
    r.atol = o.atol;
    r.atol_source = o.atol_source;
    out.outputs.push_back(std::move(r));
  }
  out.text = report->ToString();
  return out;
}

}  // namespace egret::api
