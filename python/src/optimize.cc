// optimize: the CLI's `egret optimize GRAPH [-o OUT.onnx] --report R --verify`
// as one call (cli/optimize_command.cc, whose steps and defaults it follows
// so that both give the same result): the options checked, the graph
// optimized with the pipeline, optionally verified on the reference executor,
// and the result graph returned with the --report JSON. The GIL is released
// while egret works; Ctrl-C or a failing Python function stops it
// (call_scope.h).
#include "egret/pipeline/optimize.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/api/rules_internal.h"
#include "egret/cost/device_params.h"
#include "egret/executor/verify.h"
#include "egret/extract/extractor_registry.h"
#include "egret/graph/json_text.h"
#include "egret/pipeline/changes.h"
#include "egret/pipeline/phase_mode.h"
#include "egret/pipeline/verify_optimized.h"
#include "egret/rules/rule_flags.h"
#include "python/src/bindings.h"
#include "python/src/call_scope.h"
#include "python/src/errors.h"
#include "python/src/graph.h"

namespace egret::python {
namespace {

// The CLI's limits (cli/limit_options.cc): a count of 0 is no limit.
constexpr double kNoTimeLimitSeconds = 1e9;

size_t CountLimit(int64_t n) { return n <= 0 ? std::numeric_limits<size_t>::max() : size_t(n); }

struct Args {
  std::vector<std::string> rule_flags;
  std::string extractor;
  std::string device;
  std::string devices_dir;
  std::string phase_mode;
  Options options;
  int64_t iter_limit = 30;
  int64_t node_limit = 100'000;
  double time_limit = 30;          // <= 0: none
  int64_t memory_limit_bytes = 0;  // 0: none
  bool for_other_runtimes = true;
  bool constant_folding = true;
  bool htp_only = false;
  bool verify = true;
  uint64_t seed = 0;
  VerifyOptions verify_options;
};

// The pipeline's options from `args`, as RunOptimize sets them.
absl::StatusOr<OptimizeOptions> PipelineOptions(const Args& args, const api::Rules& rules) {
  OptimizeOptions o;
  o.option_overrides = args.options;
  o.device_lowering = !args.for_other_runtimes;
  o.keep_quantized_weights = args.for_other_runtimes;
  absl::StatusOr<uint32_t> flags = rules::ParseRunFlags(args.rule_flags);
  if (!flags.ok()) return flags.status();
  o.rule_flags = *flags;
  absl::StatusOr<const extract::Extractor*> extractor = extract::LookupExtractor(args.extractor);
  if (!extractor.ok()) return extractor.status();
  o.extractor = *extractor;
  std::optional<PhaseMode> mode = ParsePhaseMode(args.phase_mode);
  if (!mode) {
    return absl::InvalidArgumentError(
        absl::StrCat("phase_mode must be keep or reseed, not '", args.phase_mode, "'"));
  }
  o.phase_mode = *mode;
  o.limits.iterations = CountLimit(args.iter_limit);
  o.limits.nodes = CountLimit(args.node_limit);
  o.limits.seconds =
      args.time_limit > 0 ? std::min(args.time_limit, kNoTimeLimitSeconds) : kNoTimeLimitSeconds;
  o.limits.memory_bytes = static_cast<size_t>(std::max<int64_t>(args.memory_limit_bytes, 0));
  o.limits.memory_from_rss = true;
  o.ilp_time_limit_seconds = o.limits.seconds;
  o.constant_folding = args.constant_folding;
  o.cpu_fallback = !args.htp_only;
  if (!args.device.empty()) {
    absl::StatusOr<cost::DeviceParams> d = cost::LoadDevice(args.device, args.devices_dir);
    if (!d.ok()) return d.status();
    o.device = std::make_shared<const cost::DeviceParams>(*std::move(d));
  }
  o.functions = &rules.impl().functions;
  return o;
}

struct Outcome {
  OptimizeResult result;
  std::string verify_text;  // the verify report as the CLI prints it ("" without verify)
};

// Optimizes and verifies as RunOptimize and its VerifyResult do. Runs without the GIL.
absl::StatusOr<Outcome> Run(const Graph& input, const api::Rules& rules, const Args& args,
                            OptimizeOptions options, DiagnosticList* diags) {
  absl::StatusOr<OptimizeResult> r = Optimize(input, rules.impl().set, options, diags);
  if (!r.ok()) return r.status();
  Outcome out{*std::move(r), ""};
  if (!args.verify) return out;
  VerifyOptions vo = args.verify_options;
  vo.max_live_bytes = static_cast<int64_t>(options.limits.memory_bytes);
  absl::StatusOr<VerifyReport> v = VerifyOptimized(input, "<model>", &out.result, args.seed, vo);
  if (!v.ok()) return v.status();
  out.verify_text = v->ToString();
  return out;
}

}  // namespace

void RegisterOptimize(py::module_& m) {
  m.def(
      "optimize",
      [](const GraphPtr& input, const std::shared_ptr<api::Rules>& rules,
         const std::vector<std::string>& rule_flags, const std::string& extractor,
         const std::string& device, const std::string& devices_dir, const std::string& phase_mode,
         const std::map<std::string, std::variant<bool, int64_t, double, std::string>>& options,
         int64_t iter_limit, int64_t node_limit, double time_limit, int64_t memory_limit,
         bool for_other_runtimes, bool constant_folding, bool htp_only, bool verify, uint64_t seed,
         double rtol, double atol, int threads) {
        Args args;
        args.rule_flags = rule_flags;
        args.extractor = extractor;
        args.device = device;
        args.devices_dir = devices_dir;
        args.phase_mode = phase_mode;
        for (const auto& [name, value] : options) {
          std::visit([&, n = name](const auto& v) { args.options[n] = v; }, value);
        }
        args.iter_limit = iter_limit;
        args.node_limit = node_limit;
        args.time_limit = time_limit;
        args.memory_limit_bytes = memory_limit;
        args.for_other_runtimes = for_other_runtimes;
        args.constant_folding = constant_folding;
        args.htp_only = htp_only;
        args.verify = verify;
        args.seed = seed;
        args.verify_options.rtol = rtol;
        args.verify_options.atol = atol;
        args.verify_options.threads = threads;
        OptimizeOptions pipeline = ValueOrThrow(PipelineOptions(args, *rules));

        CallScope scope;
        DiagnosticList diags;
        std::optional<absl::StatusOr<Outcome>> outcome;
        {
          py::gil_scoped_release release;
          pipeline.limits.should_stop = [&scope] { return scope.ShouldStop(); };
          outcome.emplace(Run(*input, *rules, args, std::move(pipeline), &diags));
        }
        scope.RaiseIfStopped();
        if (!outcome->ok()) {
          absl::Status s = outcome->status();
          if (diags.has_errors()) {
            s = absl::Status(s.code(), absl::StrCat(diags.ToString(), s.message()));
          }
          ThrowStatus(s);
        }
        Outcome& o = **outcome;
        std::vector<std::string> warnings;
        for (const Diagnostic& d : diags.all()) warnings.push_back(d.ToString());
        for (const RuleIssue& issue : o.result.rule_issues) {
          for (const std::string& msg : issue.messages) warnings.push_back(msg);
        }
        py::dict out;
        out["report"] = DumpJson(ToJson(o.result));
        out["changes_text"] = ChangesText(o.result.changes);
        out["verify_text"] = o.verify_text;
        out["warnings"] = warnings;
        out["graph"] = std::make_shared<Graph>(std::move(o.result.graph));
        return out;
      },
      py::arg("input"), py::arg("rules"), py::arg("rule_flags"), py::arg("extractor"),
      py::arg("device"), py::arg("devices_dir"), py::arg("phase_mode"), py::arg("options"),
      py::arg("iter_limit"), py::arg("node_limit"), py::arg("time_limit"), py::arg("memory_limit"),
      py::arg("for_other_runtimes"), py::arg("constant_folding"), py::arg("htp_only"),
      py::arg("verify"), py::arg("seed"), py::arg("rtol"), py::arg("atol"), py::arg("threads"));
}

}  // namespace egret::python
