// Checking that an optimized graph computes what its input computes: both run
// on egret's reference executor on the same seeded random inputs and their
// outputs are compared element by element, as `egret verify` and `egret
// optimize --verify` do (docs/library.md).
//
// The status is kOk only when every output was compared and each is within
// tolerance. An output that depends on an op the reference executor has no
// kernel for is not compared: the status is then kIncomplete (never kOk), and
// the output says why. A compiler should treat kIncomplete as "not checked".
#ifndef EGRET_API_VERIFY_H_
#define EGRET_API_VERIFY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/graph/graph.h"

namespace egret::api {

struct VerifyOptions {
  // An element is within tolerance when |b - a| <= atol + rtol * |a| (a: the
  // reference's value), with atol raised per output as below.
  double rtol = 1e-4;
  double atol = 1e-5;
  // A quantized output (or the dequantization of one) may also differ by this
  // many steps of its encoding; and by the bound derived from where the
  // candidate rounds differently from the reference, when that is larger.
  double quant_steps = 1.0;
  uint64_t seed = 0;               // of the random inputs
  int threads = 0;                 // executor threads; 0: every core
  int64_t memory_limit_bytes = 0;  // per executor run, live values; 0: no limit
};

enum class VerifyStatus { kOk, kFailed, kIncomplete };

struct VerifyResult {
  VerifyStatus status = VerifyStatus::kFailed;
  struct Output {
    std::string name;  // the reference's output name, or "#k"
    bool verified = false;
    std::string reason;  // why it was not compared ("" when verified)
    // When verified:
    int64_t elements = 0;
    int64_t mismatches = 0;  // elements outside tolerance
    double max_abs_error = 0;
    double max_rel_error = 0;
    double atol = 0;          // the absolute tolerance it was compared with
    std::string atol_source;  // "atol", "quant-steps" or "rounding bound"
  };
  std::vector<Output> outputs;  // one per graph output, in order
  std::string text;             // the report as `egret verify` prints it
};

// Runs `reference` and `candidate` on the same random inputs (of `reference`'s
// input types) and compares their outputs. A mismatch or an incomplete check
// is a successful call (see status). Errors: kInvalidArgument when the graphs'
// inputs or outputs differ in number or type, or either graph is malformed;
// kResourceExhausted over memory_limit_bytes; the executor's error when a
// graph fails to run.
absl::StatusOr<VerifyResult> Verify(const Graph& reference, const Graph& candidate,
                                    const VerifyOptions& options = {});

}  // namespace egret::api

#endif  // EGRET_API_VERIFY_H_
