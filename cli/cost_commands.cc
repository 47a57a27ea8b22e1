// egret cost GRAPH [--device NAME|FILE] [--rules FILE...] [--top N] [--quantized-io]
//
// Prices GRAPH as it is (no optimization): with --device, its predicted
// latency on that device ("latency: X ms") and the op kinds that take the
// most time; always its rule-cost model price in HVX cycles.
//
// egret calibrate MEASUREMENTS.tsv --models DIR --chipset NAME -o DEVICE.json
//     [--name NAME] [--runtime qnn_dlc] [--table FILE.tsv] [--svg FILE.svg]
//     [--no-cross-validate] [--progress] [--nodes FILE.tsv] [--float-io]
//
// Fits a device's latency-model parameters (cost/calibrate.h) to measured
// whole-network latencies: the rows of MEASUREMENTS.tsv (the format of
// ../shared/aihub/latency.tsv: columns model, precision, chipset, runtime,
// inference_ms) for one chipset and runtime, each network read from DIR
// (<model>.onnx for float, <model>.w8a8.onnx for w8a8; a "/" in a model name
// is a "."), optimized as `egret optimize` does and priced node by node.
// Prints the fit and, unless --no-cross-validate, its leave-one-architecture-
// out validation beside the rule-cost model's; writes the device file (-o),
// per-network predictions (--table), a scatter plot (--svg) and every priced
// node's shapes and work (--nodes, for fitting variants of the model outside
// egret). Quantized rows are priced with quantized graph I/O
// (cost/quantized_io.h) unless --float-io. Rows whose
// network file is missing are left out and counted. Exit 0 on success, 2 on
// bad input (a malformed file, no usable row).
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/device_option.h"
#include "cli/graph_input.h"
#include "cli/limit_options.h"
#include "cli/plugin_option.h"
#include "egret/cost/calibrate.h"
#include "egret/cost/graph_cost.h"
#include "egret/cost/latency_model.h"
#include "egret/cost/make_cost_model.h"
#include "egret/cost/vtcm.h"
#include "egret/graph/dtype.h"
#include "egret/pipeline/optimize.h"
#include "egret/pipeline/svg_chart.h"
#include "egret/rules/rule_set.h"
#include "egret/support/diagnostic.h"
#include "egret/support/file_io.h"

namespace egret::cli {
namespace {

struct CostArgs {
  std::string graph;
  std::string device;
  std::vector<std::string> rules;
  int top = 8;
  bool nodes = false;
  bool quantized_io = false;
  GraphInputFlags input;
};

struct CalibrateArgs {
  std::string measurements;
  std::string models;
  std::string chipset;
  std::string name;
  std::string runtime = "qnn_dlc";
  std::string output;
  std::string table;
  std::string svg;
  std::string nodes;
  bool no_cross_validate = false;
  bool progress = false;
  bool float_io = false;
  std::vector<std::string> rules;
  LimitFlags limits;
};

// The rule set of `files` (the shipped library when empty), or null after
// printing why.
std::unique_ptr<rules::RuleSet> LoadRuleSet(const std::vector<std::string>& files) {
  std::optional<RuleFunctions> fns = LoadRuleFunctions({});
  if (!fns) return nullptr;
  DiagnosticList diags;
  absl::StatusOr<rules::RuleSet> set =
      LoadRulesWith(files.empty() ? DefaultRuleFiles() : files, {}, *fns, &diags);
  std::cerr << diags.ToString();
  if (!set.ok()) {
    std::fprintf(stderr, "egret: error: %s\n", std::string(set.status().message()).c_str());
    return nullptr;
  }
  if (diags.has_errors()) return nullptr;
  return std::make_unique<rules::RuleSet>(*std::move(set));
}

int RunCost(const CostArgs& args) {
  bool ok = true;
  std::shared_ptr<const cost::DeviceParams> device = DeviceOption(args.device, &ok);
  if (!ok) return kExitBadInput;
  absl::StatusOr<Graph> g = args.input.Load(args.graph);
  if (!g.ok()) {
    std::fprintf(stderr, "%s\n", std::string(g.status().message()).c_str());
    return ExitCodeFor(g.status());
  }
  std::unique_ptr<rules::RuleSet> set = LoadRuleSet(args.rules);
  if (set == nullptr) return kExitBadInput;
  const cost::HvxCostModel rules_model = cost::MakeCostModel(set->ops, {}, g->options());
  const int64_t vtcm = device != nullptr ? device->vtcm_bytes : rules_model.vtcm_bytes();
  const cost::GraphWork work = cost::GraphWorkOf(*g, rules_model, vtcm, args.quantized_io);
  double cycles = 0;
  for (const cost::NodeWork& w : work.work) cycles += w.rule_cost;
  if (device != nullptr) {
    std::printf("latency: %.4g ms (predicted for %s, docs/cost-model.md)\n",
                cost::PredictMs(*device, work.work), device->name.c_str());
    const std::vector<cost::OpTime> by_op = cost::TimeByOp(*device, work);
    double total = 0;
    for (const cost::OpTime& t : by_op) total += t.ms;
    std::printf("time by op:");
    for (size_t i = 0; i < by_op.size() && static_cast<int>(i) < args.top; ++i) {
      std::printf("%s %s %.3g ms (%.0f%%, %d nodes)", i == 0 ? "" : ",", by_op[i].op.c_str(),
                  by_op[i].ms, total > 0 ? 100 * by_op[i].ms / total : 0.0, by_op[i].nodes);
    }
    std::printf("%s\n", by_op.size() > static_cast<size_t>(args.top) ? ", ..." : "");
    std::printf("per inference: %.3g ms\n", device->at(cost::FitParam::kInference) / 1e6);
    if (args.nodes) {
      for (size_t i = 0; i < work.work.size(); ++i) {
        const cost::NodeWork& w = work.work[i];
        std::printf(
            "  %s: %.4g us (matrix MACs int8 %.4g, 16-bit %.4g; HVX cycles %.4g; DDR bytes "
            "%.4g%s)\n",
            work.ops[i].c_str(), cost::NodeTimeNs(*device, w) / 1e3, w.matrix8_macs,
            w.matrix16_macs, w.vector_cycles, w.ddr_bytes, w.off_htp ? "; off the HTP" : "");
      }
    }
  }
  std::printf("cost: %.6g HVX cycles (rule-cost model)\n", cycles);
  return kExitOk;
}

// --- calibrate ---------------------------------------------------------------

struct Row {
  std::string model, precision;
  double ms = 0;
};

// The rows of `path` for `chipset` and `runtime`; a malformed row is an
// error naming its line and column.
absl::StatusOr<std::vector<Row>> ReadMeasurements(const std::string& path,
                                                  const std::string& chipset,
                                                  const std::string& runtime,
                                                  std::vector<std::string>* chipsets_seen) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  // The columns read, and where the header puts each.
  constexpr std::array<const char*, 5> kColumns = {"model", "precision", "chipset", "runtime",
                                                   "inference_ms"};
  enum { kModel, kPrecision, kChipset, kRuntime, kMs };
  std::array<size_t, kColumns.size()> at = {};
  std::vector<Row> rows;
  size_t header_size = 0;  // 0: no header yet
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> cells = absl::StrSplit(line, '\t');
    if (header_size == 0) {
      for (size_t c = 0; c < kColumns.size(); ++c) {
        at[c] = std::find(cells.begin(), cells.end(), kColumns[c]) - cells.begin();
        if (at[c] == cells.size()) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "%s:%d:1: error: the header has no '%s' column (it needs model, precision, "
              "chipset, runtime and inference_ms, tab-separated)",
              path, line_no, kColumns[c]));
        }
      }
      header_size = cells.size();
      continue;
    }
    if (cells.size() != header_size) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s:%d:1: error: %d columns, the header has %d", path, line_no,
                          cells.size(), header_size));
    }
    const std::string& chip = cells[at[kChipset]];
    if (std::find(chipsets_seen->begin(), chipsets_seen->end(), chip) == chipsets_seen->end()) {
      chipsets_seen->push_back(chip);
    }
    if (chip != chipset || cells[at[kRuntime]] != runtime) continue;
    Row r{cells[at[kModel]], cells[at[kPrecision]], 0};
    const std::string& ms = cells[at[kMs]];
    if (!absl::SimpleAtod(ms, &r.ms) || !std::isfinite(r.ms) || r.ms <= 0) {
      size_t column = 1;  // of the cell's first character
      for (size_t i = 0; i < at[kMs]; ++i) column += cells[i].size() + 1;
      return absl::InvalidArgumentError(
          absl::StrFormat("%s:%d:%d: error: inference_ms '%s' is not a positive number", path,
                          line_no, column, ms));
    }
    rows.push_back(std::move(r));
  }
  if (header_size == 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":1:1: error: no header line"));
  }
  return rows;
}

std::string ModelFile(const std::string& dir, const Row& r) {
  std::string stem = r.model;
  std::replace(stem.begin(), stem.end(), '/', '.');
  const std::string suffix = r.precision == "float" ? ".onnx" : "." + r.precision + ".onnx";
  return (std::filesystem::path(dir) / (stem + suffix)).string();
}

std::string DefaultDeviceName(const std::string& chipset) {
  std::string out;
  for (char c : chipset) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string ShapeText(const TensorType& t) {
  return absl::StrCat(std::string(DTypeName(t.dtype)), "[", absl::StrJoin(t.dims, ","), "]");
}

// The --nodes rows of one network: every node GraphWorkOf prices, with its
// id, op, implementation, output and input types (each input marked by its
// producer's op and id) and its work.
void AppendNodeRows(const Row& r, const Graph& g, const cost::HvxCostModel& rules,
                    const std::vector<cost::NodeWork>& work, std::string* out) {
  size_t next = 0;  // work has one entry per node priced, in node order
  cost::GraphProfiler profiler(g);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (n.op == kConstOp || n.op == kShapeOp || n.op == kInputOp) continue;
    const cost::NodeProfile p = profiler.Profile(id);
    const cost::NodeCost c = rules.Cost(n.op, p);
    const cost::NodeWork& w = work[next++];
    std::vector<std::string> outs, ins;
    for (const TensorType& t : n.outputs) outs.push_back(ShapeText(t));
    for (const ValueRef& v : n.inputs) {
      ins.push_back(absl::StrCat(g.node(v.node).op, "#", v.node, ":", ShapeText(g.TypeOf(v))));
    }
    absl::StrAppendFormat(
        out, "%s\t%s\t%.6g\t%d\t%s\t%s\t%s\t%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.6g\t%d\t%d\t%d\n",
        r.model, r.precision, r.ms, id, n.op, c.impl, absl::StrJoin(outs, " "),
        absl::StrJoin(ins, " "), w.rule_cost, w.matrix8_macs, w.matrix16_macs, w.vector_cycles,
        w.ddr_bytes, w.dispatched, p.epilogue, p.constant_inputs);
  }
}

std::string StatsText(const cost::ErrorStats& s) {
  return absl::StrFormat("%6.1f%% %6.1f%% %5.2f", 100 * s.median, 100 * s.p90, s.spearman);
}

int RunCalibrate(const CalibrateArgs& args) {
  std::vector<std::string> chipsets;
  absl::StatusOr<std::vector<Row>> rows =
      ReadMeasurements(args.measurements, args.chipset, args.runtime, &chipsets);
  if (!rows.ok()) {
    std::fprintf(stderr, "%s\n", std::string(rows.status().message()).c_str());
    return ExitCodeFor(rows.status());
  }
  if (rows->empty()) {
    std::fprintf(
        stderr, "%s: error: no rows for chipset '%s' and runtime '%s' (chipsets in the file: %s)\n",
        args.measurements.c_str(), args.chipset.c_str(), args.runtime.c_str(),
        absl::StrJoin(chipsets, ", ").c_str());
    return kExitBadInput;
  }
  std::optional<RunnerLimits> limits = ParseLimitFlags("calibrate", args.limits);
  if (!limits) return kExitBadInput;
  // Each network is optimized as `egret optimize` would, with its limits.
  OptimizeOptions optimize;
  optimize.limits = *limits;
  optimize.ilp_time_limit_seconds = limits->seconds;
  std::unique_ptr<rules::RuleSet> set = LoadRuleSet(args.rules);
  if (set == nullptr) return kExitBadInput;
  const bool progress = args.progress || isatty(STDERR_FILENO);
  std::vector<cost::CalibrationSample> samples;
  std::string node_rows =
      "model\tprecision\tmeasured_ms\tnode\top\timpl\toutputs\tinputs\trule_cycles\t"
      "matrix8_macs\tmatrix16_macs\tvector_cycles\tddr_bytes\tdispatched\tepilogue\t"
      "constant_inputs\n";
  std::map<std::string, int> left_out;  // reason -> rows
  GraphInputFlags input;
  for (size_t i = 0; i < rows->size(); ++i) {
    const Row& r = (*rows)[i];
    const std::string file = ModelFile(args.models, r);
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
      ++left_out[absl::StrCat("no ", r.precision, " network file")];
      continue;
    }
    if (progress) {
      std::fprintf(stderr, "egret calibrate: [%zu/%zu] %s\n", i + 1, rows->size(), file.c_str());
    }
    absl::StatusOr<Graph> g = input.Load(file);
    if (!g.ok()) {
      std::fprintf(stderr, "%s\n", std::string(g.status().message()).c_str());
      return ExitCodeFor(g.status());
    }
    DiagnosticList diags;
    absl::StatusOr<OptimizeResult> opt = Optimize(*g, *set, optimize, &diags);
    if (!opt.ok()) {
      std::fprintf(stderr, "%s: error: %s\n", file.c_str(),
                   std::string(opt.status().message()).c_str());
      return kExitCheckFailed;
    }
    const cost::HvxCostModel rules_model = cost::MakeCostModel(set->ops, {}, opt->graph.options());
    cost::CalibrationSample s;
    s.arch = r.model;
    s.precision = r.precision;
    s.measured_ms = r.ms;
    // Quantized networks are measured with quantized graph I/O (AI Hub
    // compiles them with --quantize_io) unless --float-io says otherwise.
    const bool quantized_io = r.precision != "float" && !args.float_io;
    s.work = cost::GraphWorkOf(opt->graph, rules_model, cost::kDefaultVtcmBytes, quantized_io).work;
    if (!args.nodes.empty()) AppendNodeRows(r, opt->graph, rules_model, s.work, &node_rows);
    samples.push_back(std::move(s));
  }
  if (samples.empty()) {
    std::fprintf(stderr, "%s: error: none of the %zu rows has a network file in %s\n",
                 args.measurements.c_str(), rows->size(), args.models.c_str());
    return kExitBadInput;
  }
  const std::string name = args.name.empty() ? DefaultDeviceName(args.chipset) : args.name;
  const cost::DeviceParams prior = cost::PublicPrior(name, args.chipset);
  const cost::FitResult fit = cost::FitDevice(samples, prior);
  cost::DeviceParams device = fit.device;

  std::map<std::string, int> by_precision;
  for (const cost::CalibrationSample& s : samples) ++by_precision[s.precision];
  std::vector<std::string> counts, left;
  for (const auto& [p, n] : by_precision) counts.push_back(absl::StrCat(n, " ", p));
  for (const auto& [why, n] : left_out) left.push_back(absl::StrCat(n, " (", why, ")"));
  const std::string seen = absl::StrFormat(
      "%s, %s: %d measured networks (%s)%s", args.chipset, args.runtime, samples.size(),
      absl::StrJoin(counts, ", "), left.empty() ? "" : "; left out " + absl::StrJoin(left, ", "));
  std::printf("calibrate: %s\n", seen.c_str());
  std::printf("fitted (%d iterations):", fit.iterations);
  for (int j = 0; j < cost::kNumFitParams; ++j) {
    std::printf("%s %s %.4g", j == 0 ? "" : ",",
                std::string(cost::FitParamKey(static_cast<cost::FitParam>(j))).c_str(),
                device.fitted[j]);
  }
  std::printf("\n");
  device.notes.push_back(absl::StrCat("fitted on ", seen, " from ", args.measurements));
  const std::string io = args.float_io ? "every network priced with float graph I/O (--float-io)"
                                       : "quantized networks priced with quantized graph I/O "
                                         "(their boundary Quantize and Dequantize off the HTP)";
  std::printf("graph I/O: %s\n", io.c_str());
  device.notes.push_back(io);

  std::vector<cost::Prediction> pred;
  if (!args.no_cross_validate) {
    std::function<void(int, int)> on_fold;
    if (progress) {
      on_fold = [](int k, int n) {
        std::fprintf(stderr, "egret calibrate: leave-one-out fit %d of %d\n", k, n);
      };
    }
    pred = cost::CrossValidate(samples, prior, {}, on_fold);
    std::printf("%-10s %3s   %-22s %-22s   %-22s %-22s\n", "", "", "latency model: fit",
                "leave-one-arch-out", "rule-cost model: fit", "leave-one-arch-out");
    std::printf("%-10s %3s   %-22s %-22s   %-22s %-22s\n", "precision", "n", "median    p90  rho",
                "median    p90  rho", "median    p90  rho", "median    p90  rho");
    std::vector<std::string> groups;
    for (const auto& [p, n] : by_precision) groups.push_back(p);
    groups.push_back("all");
    for (const std::string& grp : groups) {
      std::vector<double> m, f, h, rf, rh;
      for (size_t i = 0; i < samples.size(); ++i) {
        if (grp != "all" && samples[i].precision != grp) continue;
        m.push_back(samples[i].measured_ms);
        f.push_back(pred[i].fitted_ms);
        h.push_back(pred[i].held_out_ms);
        rf.push_back(pred[i].rule_fitted_ms);
        rh.push_back(pred[i].rule_held_out_ms);
      }
      const std::string line =
          absl::StrFormat("%-10s %3d   %-22s %-22s   %-22s %-22s", grp, m.size(),
                          StatsText(cost::Summarize(f, m)), StatsText(cost::Summarize(h, m)),
                          StatsText(cost::Summarize(rf, m)), StatsText(cost::Summarize(rh, m)));
      std::printf("%s\n", line.c_str());
      const cost::ErrorStats held = cost::Summarize(h, m);
      const cost::ErrorStats rule_held = cost::Summarize(rh, m);
      device.notes.push_back(absl::StrFormat(
          "leave-one-architecture-out, %s (%d networks): median relative error %.1f%%, 90th "
          "percentile %.1f%%, Spearman %.2f; the rule-cost model with one fitted scale: %.1f%%, "
          "%.1f%%, %.2f",
          grp, m.size(), 100 * held.median, 100 * held.p90, held.spearman, 100 * rule_held.median,
          100 * rule_held.p90, rule_held.spearman));
    }
  }

  FileTransaction txn;
  absl::Status st = txn.Stage(args.output, cost::DeviceParamsJson(device));
  if (st.ok() && !args.table.empty()) {
    std::string t =
        "model\tprecision\tmeasured_ms\tpredicted_ms\theld_out_ms\trule_predicted_ms\t"
        "rule_held_out_ms\n";
    for (size_t i = 0; i < samples.size(); ++i) {
      const cost::Prediction p = pred.empty() ? cost::Prediction{} : pred[i];
      absl::StrAppendFormat(&t, "%s\t%s\t%.4g\t%.4g\t%.4g\t%.4g\t%.4g\n", samples[i].arch,
                            samples[i].precision, samples[i].measured_ms,
                            pred.empty() ? cost::PredictMs(device, samples[i].work) : p.fitted_ms,
                            p.held_out_ms, p.rule_fitted_ms, p.rule_held_out_ms);
    }
    st = txn.Stage(args.table, t);
  }
  if (st.ok() && !args.nodes.empty()) st = txn.Stage(args.nodes, node_rows);
  if (st.ok() && !args.svg.empty() && !pred.empty()) {
    LogLogChart chart;
    chart.title =
        absl::StrFormat("%s: predicted (leave one architecture out) vs measured", args.chipset);
    chart.x_label = "measured latency (ms)";
    chart.y_label = "predicted latency (ms)";
    double lo = 1e300, hi = 0;
    for (const auto& [p, n] : by_precision) {
      LineSeries lat, rule;
      lat.name = absl::StrCat("latency model, ", p);
      rule.name = absl::StrCat("rule-cost model, ", p);
      lat.markers_only = rule.markers_only = true;
      for (size_t i = 0; i < samples.size(); ++i) {
        if (samples[i].precision != p) continue;
        lat.points.emplace_back(samples[i].measured_ms, pred[i].held_out_ms);
        rule.points.emplace_back(samples[i].measured_ms, pred[i].rule_held_out_ms);
        lat.labels.push_back(samples[i].arch);
        rule.labels.push_back(samples[i].arch);
        lo = std::min(lo, samples[i].measured_ms);
        hi = std::max(hi, samples[i].measured_ms);
      }
      chart.series.push_back(std::move(lat));
      chart.series.push_back(std::move(rule));
    }
    LineSeries diagonal;
    diagonal.name = "predicted = measured";
    diagonal.points = {{lo, lo}, {hi, hi}};
    diagonal.dashed = true;
    chart.series.push_back(std::move(diagonal));
    st = txn.Stage(args.svg, LogLogSvg(chart));
  }
  if (st.ok()) st = txn.Commit();
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", std::string(st.message()).c_str());
    return ExitCodeFor(st);
  }
  std::vector<std::string> wrote = {args.output};
  if (!args.table.empty()) wrote.push_back(args.table);
  if (!args.svg.empty() && !pred.empty()) wrote.push_back(args.svg);
  if (!args.nodes.empty()) wrote.push_back(args.nodes);
  std::printf("wrote %s\n", absl::StrJoin(wrote, ", ").c_str());
  return kExitOk;
}

}  // namespace

void RegisterCostCommands(CLI::App& app, int* exit_code) {
  auto cost_args = std::make_shared<CostArgs>();
  CLI::App* cost = app.add_subcommand(
      "cost",
      "Price a graph as it is: predicted latency on a device (--device), and its rule cost");
  cost->add_option("graph", cost_args->graph, "Graph file (.json or .onnx)")->required();
  cost->add_option("--device", cost_args->device, kDeviceHelp);
  cost->add_option("--rules", cost_args->rules,
                   "Rule files whose op registrations price HVX ops (default: the shipped "
                   "library)");
  cost->add_option("--top", cost_args->top, "How many op kinds to list (8)")
      ->check(CLI::Range(1, 1000));
  cost->add_flag("--nodes", cost_args->nodes, "With --device: every node's time and work");
  cost->add_flag("--quantized-io", cost_args->quantized_io,
                 "The graph's inputs and outputs are passed quantized: its boundary Quantize "
                 "and Dequantize take no time (docs/cost-model.md)");
  cost_args->input.AddTo(cost);
  cost->callback([cost_args, exit_code]() { *exit_code = RunCost(*cost_args); });

  auto cal = std::make_shared<CalibrateArgs>();
  CLI::App* c = app.add_subcommand(
      "calibrate", "Fit a device's latency model to measured whole-network latencies");
  c->add_option("measurements", cal->measurements,
                "Measurements (TSV with columns model, precision, chipset, runtime, "
                "inference_ms, like ../shared/aihub/latency.tsv)")
      ->required();
  c->add_option("--models", cal->models,
                "Directory of the measured networks: <model>.onnx (float), "
                "<model>.<precision>.onnx (scripts/make-aihub-models writes them)")
      ->required();
  c->add_option("--chipset", cal->chipset, "The chipset whose rows to fit (\"Snapdragon 8 Gen 3\")")
      ->required();
  c->add_option("-o,--output", cal->output, "The device file to write (JSON)")->required();
  c->add_option("--name", cal->name, "The device's name (default: from the chipset)");
  c->add_option("--runtime", cal->runtime, "The runtime whose rows to fit (qnn_dlc)");
  c->add_option("--table", cal->table, "Write per-network predictions (TSV)");
  c->add_option("--svg", cal->svg, "Write a scatter plot of predicted vs measured (SVG)");
  c->add_option("--rules", cal->rules, "Rule files (default: the shipped library)");
  c->add_option("--nodes", cal->nodes,
                "Write every priced node's op, types and work, per network (TSV)");
  c->add_flag("--no-cross-validate", cal->no_cross_validate,
              "Skip the leave-one-architecture-out validation");
  c->add_flag("--progress", cal->progress, "Progress lines on stderr even when not a terminal");
  c->add_flag("--float-io", cal->float_io,
              "Price quantized networks with float graph I/O (their boundary Quantize and "
              "Dequantize on the HTP); by default they are measured with quantized I/O");
  AddLimitOptions(c, &cal->limits);
  c->callback([cal, exit_code]() { *exit_code = RunCalibrate(*cal); });
}

}  // namespace egret::cli
