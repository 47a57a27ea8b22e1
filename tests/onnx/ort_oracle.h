// ONNX Runtime as an oracle: runs an ONNX model on ONNX Runtime's CPU provider
// (npm's onnxruntime-node, which scripts/fetch-models installs into the model
// cache) through the node script tests/onnx/ort_run.js, on inputs given as
// egret tensors, and compares egret's reference executor with it. Used by
// tests/onnx/ort_oracle_test.cc and bench/model_results.cc.
#ifndef EGRET_TESTS_ONNX_ORT_ORACLE_H_
#define EGRET_TESTS_ONNX_ORT_ORACLE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/graph/graph.h"
#include "egret/graph/tensor.h"

namespace egret::testing {

// $EGRET_MODEL_CACHE, else ~/.cache/egret/models.
std::string ModelCache();

// "" when node and onnxruntime-node are there, else why not (naming what to
// run to get them).
std::string OrtUnavailableReason();

struct OrtOutputs {
  std::vector<std::string> names;  // the model's output names, in order
  std::vector<Tensor> tensors;     // read in the types the caller asked for
  double run_ms = 0;               // ONNX Runtime's session.run wall time
};

// How ONNX Runtime runs a model. With graph optimizations off it computes
// each node of the model as written: a QDQ model's DequantizeLinear, float op
// and QuantizeLinear, which is what the model means. On, it fuses them into
// its integer kernels, whose u8 x s8 products are added in pairs in a
// saturating int16 on x86 CPUs without VNNI (as oneDNN's,
// egret/executor/kernels/dnnl_support.h), so there its results are not the
// model's.
struct OrtRunOptions {
  int threads = 1;       // intra-op threads
  bool optimize = true;  // graphOptimizationLevel 'all' (else 'disabled')
};

// Runs the model at `model` on `feeds` (graph input name -> tensor) and
// reads output k as `types[k]` (the .npy element type must be that type's
// storage type). Errors carry ONNX Runtime's own message.
absl::StatusOr<OrtOutputs> RunOnOrt(const std::string& model,
                                    const std::vector<std::pair<std::string, Tensor>>& feeds,
                                    const std::vector<TensorType>& types,
                                    const OrtRunOptions& options = {});

// egret's reference executor against ONNX Runtime on one model.
struct OracleComparison {
  size_t outputs = 0;   // graph outputs
  size_t verified = 0;  // outputs both computed and compared
  double max_abs = 0;   // largest |egret - ONNX Runtime| over the compared outputs
  // "output y: 3 of 10 elements differ (max abs error 0.5, max rel error 2)"
  std::vector<std::string> mismatches;
  // "output s (depends on node 'If_0' (onnx.If), which has no reference kernel)"
  std::vector<std::string> not_verified;
  double egret_ms = 0;  // Execute's wall time
  double ort_ms = 0;    // ONNX Runtime's run time
};

// Runs `g` (imported from `model`) on `inputs` (one per g.inputs()) with
// Execute, and `model` on ONNX Runtime with the same inputs plus `frozen`
// (graph inputs egret imported as constants), and compares output by output
// (|a - e| <= atol + rtol * |e|). Output names must agree.
absl::StatusOr<OracleComparison> CompareWithOrt(
    const std::string& model, const Graph& g, const std::vector<Tensor>& inputs,
    const std::vector<std::pair<std::string, Tensor>>& frozen, double rtol, double atol,
    const OrtRunOptions& options = {});

}  // namespace egret::testing

#endif  // EGRET_TESTS_ONNX_ORT_ORACLE_H_
