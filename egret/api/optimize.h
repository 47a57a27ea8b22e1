// Optimizing a graph with loaded rules, and what the optimizer reports back,
// as typed fields (the CLI's `--report` JSON holds the same and more).
//
//   1. every rule of `rules` is compiled into an e-graph rewrite;
//   2. the graph is saturated with them, one phase per rule priority (pass),
//      under the limits of the options, together with egret's built-in
//      algebra (commutativity, ...) and constant folding;
//   3. the cheapest equivalent graph under the HVX cost model is extracted
//      with the chosen extractor and lowered: each computing node of the
//      result names its implementation and cost (attributes "egret.impl",
//      "egret.cost") and its provenance (graph.h);
//   4. its memory is planned.
// docs/library.md walks through a complete use; docs/rewrite-semantics.md
// gives the semantics.
#ifndef EGRET_API_OPTIMIZE_H_
#define EGRET_API_OPTIMIZE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "egret/api/rules.h"
#include "egret/graph/graph.h"
#include "egret/support/diagnostic.h"

namespace egret::api {

// The extractors Optimize can use, by name ("tree", "dag", ... ; each with a
// one-line description), in the order a help text lists them.
struct ExtractorInfo {
  std::string name;
  std::string description;
};
std::vector<ExtractorInfo> Extractors();

struct OptimizeOptions {
  // The name of one of Extractors(). "dag" counts a shared value once, as
  // running the graph does, and is fast; "ilp" is optimal but slow.
  std::string extractor = "dag";
  // For the "ilp" extractor: stop the solver after this long and keep its
  // best solution.
  double ilp_time_limit_seconds = 10.0;
  // Saturation limits: iterations per phase; e-nodes, seconds and bytes of
  // e-graph memory (0: unlimited) for the whole run. Reaching one is not an
  // error: the best graph found so far is extracted (see stop_reason). The
  // seconds cover extraction too: the extractor gets what is left (dag's
  // local search stops at the deadline, ilp_time_limit_seconds is cut to it).
  int64_t max_iterations = 30;
  int64_t max_enodes = 10'000;
  double time_limit_seconds = 5.0;
  int64_t memory_limit_bytes = 0;
  // Between phases, false keeps the whole e-graph; true extracts the best
  // graph and starts the next phase from it (smaller, but forgets
  // alternatives).
  bool reseed_between_phases = false;
  // Fold ops whose inputs are all constants (small outputs only).
  bool constant_folding = true;
  // egret's built-in equivalences (commutativity, associativity, ...).
  bool builtin_rewrites = true;
  // An op with no HTP implementation (an ONNX op egret keeps opaque, say)
  // normally runs off the HTP, priced as a CPU fallback; true makes it an
  // error instead.
  bool htp_only = false;
  // Values for the rules' OPTION_* constraints, over the graph's own options.
  Options option_overrides;
  // Switches that let gated rules run (`egret optimize --flag NAME`): a rule
  // flagged relaxed_precision_flag runs only with "relaxed_precision", one
  // flagged fold_relu_flag only with "fold_relu" (the rule flags' spellings
  // are accepted too). The other rule flags need no switch
  // (docs/rule-language.md). An unknown name is an error.
  std::vector<std::string> rule_flags;
  // The result is for another runtime (an ONNX file), not for the HTP, as
  // `egret optimize -o OUT.onnx` optimizes: the rules of the HTP's tiling
  // and memory-placement passes are left out (counted in
  // rules_left_out_device_lowering), and integer weights that constant
  // folding would turn into floats stay integers behind their Dequantize
  // (docs/onnx-export.md, "Against the input").
  bool for_other_runtimes = false;
  // A device file (JSON, `egret calibrate`'s output; egret ships
  // share/egret/devices/snapdragon-8-gen-3.json and others, in the source
  // tree egret/cost/devices/): price in predicted nanoseconds on that device
  // (the latency model, docs/cost-model.md) instead of the HVX cost model's
  // cycles. Empty: the HVX cost model. A file that cannot be read or parsed
  // is an error naming it.
  std::string device_file;
  // When set, called with one line (no newline) per iteration and per phase.
  std::function<void(const std::string&)> progress;
  // When set, polled often during saturation (on the calling thread; it must
  // be cheap): true cancels the call, which then fails with kCancelled
  // (a caller's Ctrl-C, or a compiler giving up).
  std::function<bool()> should_stop;
};

struct OptimizeResult {
  Graph graph;  // the optimized graph, lowered (see the file comment)

  // HVX cost model estimates (cycles) of the input graph and of `graph`, or
  // with a device file their predicted nanoseconds on the device (without
  // its per-inference time). input_cost is +inf when the input uses an op
  // with no implementation.
  double input_cost = 0;
  double output_cost = 0;

  // Computing ops (not parameters, constants or inputs) by op, in op order.
  struct OpCount {
    std::string op;
    int64_t before = 0;  // in the input graph
    int64_t after = 0;   // in `graph`
  };
  std::vector<OpCount> ops;
  // Ops of `graph` with nodes no HTP implementation computes (the op has
  // none, or none for the nodes' tensor types), run off the HTP (a CPU
  // fallback, priced as such): how many nodes of each and why ("no
  // implementation of onnx.LSTM is registered", "no Float32 implementation
  // of Conv2d (registered: QUInt8 crouton)"), in op order.
  struct OffHtpOp {
    std::string op;
    int64_t nodes = 0;
    std::vector<std::string> reasons;  // distinct, sorted
  };
  std::vector<OffHtpOp> off_htp;

  // Every rewrite that ran, in the order first run: a loaded rule under its
  // label "PASS@file:line" (the file is its RuleSource's name), a built-in
  // under its name ("comm-ElementWiseAdd", "constant-fold", ...); how often
  // its pattern and guard matched and how often it changed the e-graph,
  // summed over the phases. Rules of phases that did not run (after a limit
  // ended the run) are absent.
  struct RuleUse {
    std::string rule;
    int64_t matches = 0;
    int64_t applications = 0;
  };
  std::vector<RuleUse> rules;

  // Rules left out because a switch they need was not in
  // OptimizeOptions::rule_flags, and the switches that would bring them in
  // ("relaxed_precision"), in the order of the help text.
  int64_t rules_left_out = 0;
  std::vector<std::string> rules_left_out_need;
  // With OptimizeOptions::for_other_runtimes: the rules of device-lowering
  // passes left out.
  int64_t rules_left_out_device_lowering = 0;

  // What the rewrites did, in ops, most frequent first: `count` result
  // nodes of `kind` ("fused", "recognized", "folded", "rewrote", "tiled")
  // with op `op` standing for input nodes of ops `from_ops` (besides `op`).
  // The summary line `changes:` of `egret optimize` says the same.
  struct Change {
    std::string kind;
    std::string op;
    std::vector<std::string> from_ops;
    int64_t count = 0;
  };
  std::vector<Change> changes;

  // Rules whose rewrites misfired at run time (a built node of the wrong
  // type, an external function's error, ...): the rule and its messages.
  // Such a rewrite is skipped; the result is still valid.
  struct RuleIssue {
    std::string rule;
    std::vector<std::string> messages;
  };
  std::vector<RuleIssue> rule_issues;

  // Rules that were not run because they call an external function with no
  // implementation in the Functions the rules were loaded with: the rule and
  // one reason per missing function ("SHAPEFN_APPLY function 'f'
  // (file:line:col)").
  struct SkippedRule {
    std::string rule;
    std::vector<std::string> reasons;
  };
  std::vector<SkippedRule> skipped_rules;

  // How saturation ended: "Saturated", "IterationLimit", "NodeLimit",
  // "ClassLimit", "TimeLimit" or "MemoryLimit"; and iterations over all phases.
  // (A run that should_stop ended is an error, kCancelled, not a result.)
  std::string stop_reason;
  int64_t iterations = 0;

  std::string extractor;  // the extractor's name

  // Peak bytes of live tensors when running `graph` in its planned order,
  // and the same for the input graph.
  int64_t peak_bytes = 0;
  int64_t input_peak_bytes = 0;

  double total_ms = 0;  // wall time of the call
};

// Optimizes `input` with `rules`. `input` must be valid (Graph::Validate).
// An op with no implementation in `rules` is kept and priced as a CPU
// fallback (listed in off_htp). Errors: kInvalidArgument for an invalid
// graph, an unknown extractor or rule flag (the message lists the known
// ones) or, with
// htp_only, an output no HTP implementation can compute (naming the op);
// kFailedPrecondition when a rule
// fails to compile (each reported in `diags`, which may be null); kCancelled
// when options.should_stop returned true.
absl::StatusOr<OptimizeResult> Optimize(const Graph& input, const Rules& rules,
                                        const OptimizeOptions& options, DiagnosticList* diags);

}  // namespace egret::api

#endif  // EGRET_API_OPTIMIZE_H_
