// egret info GRAPH: what a graph holds, and its planned peak memory.
// egret convert IN -o OUT [--format json|dot|onnx] [--onnx-standard-only]
//               [--onnx-external-data]:
// normalizes a graph file, renders it as Graphviz DOT or writes it as ONNX
// (docs/onnx-export.md), either way: JSON <-> ONNX.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/graph_input.h"
#include "egret/backend/memory_plan.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/graph.h"
#include "egret/graph/op_table.h"
#include "egret/graph/saturated_count.h"
#include "egret/io/graph_io.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/support/diagnostic.h"

namespace egret::cli {
namespace {

std::string OptionText(const OptionValue& v) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return absl::StrCat(i); }
    std::string operator()(double d) const { return absl::StrFormat("%g", d); }
    std::string operator()(const std::string& s) const { return absl::StrCat("\"", s, "\""); }
  };
  return std::visit(Visitor{}, v);
}

void PrintSummary(const Graph& g, std::ostream& out) {
  if (!g.name().empty()) out << "graph: " << g.name() << "\n";
  absl::flat_hash_map<std::string, int> histogram;
  absl::flat_hash_set<const Tensor*> tensors;
  int64_t const_bytes = 0;
  for (const Node& n : g.nodes()) {
    ++histogram[n.op];
    if (n.constant && tensors.insert(n.constant.get()).second) {
      const_bytes = SaturatingAdd(const_bytes, n.constant->type().byte_size());
    }
  }
  out << "nodes: " << g.num_nodes() << "\n";
  out << "constant data: " << SaturatedCountText(const_bytes) << " bytes in " << tensors.size()
      << " tensor(s)\n";
  std::vector<std::pair<std::string, int>> ops(histogram.begin(), histogram.end());
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  size_t width = 0;
  for (const auto& [op, count] : ops) width = std::max(width, op.size());
  out << "ops:\n";
  for (const auto& [op, count] : ops) {
    out << "  " << op << std::string(width - op.size() + 2, ' ') << count << "\n";
  }
  // Ops egret has no semantics for (e.g. ONNX ops the importer could not map):
  // kept as they are, never rewritten, costed or executed.
  std::vector<std::string> opaque;
  for (const auto& [op, count] : ops) {
    if (!IsKnownOp(op)) opaque.push_back(absl::StrCat(op, " x", count));
  }
  if (!opaque.empty()) out << "opaque ops: " << absl::StrJoin(opaque, ", ") << "\n";
  out << "inputs:\n";
  for (NodeId id : g.inputs()) {
    out << "  " << g.node(id).name << ": " << g.node(id).outputs[0].ToString() << "\n";
  }
  out << "outputs:\n";
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    const GraphOutput& o = g.outputs()[k];
    std::string value = g.node(o.value.node).name.empty() ? absl::StrCat("#", o.value.node)
                                                          : g.node(o.value.node).name;
    if (o.value.output != 0) absl::StrAppend(&value, ":", o.value.output);
    out << "  " << (o.name.empty() ? absl::StrCat("#", k) : o.name) << " = " << value << ": "
        << g.TypeOf(o.value).ToString() << "\n";
  }
  if (!g.options().empty()) {
    out << "options:\n";
    for (const auto& [key, value] : g.options()) {
      out << "  " << key << " = " << OptionText(value) << "\n";
    }
  }
  // docs/memory-plan.md
  absl::StatusOr<MemoryPlan> plan = PlanMemory(g);
  if (plan.ok()) {
    out << absl::StrFormat(
        "memory: peak %s bytes (file order %s, lower bound %s), arena %s bytes, %s bytes in all "
        "buffers\n",
        SaturatedCountText(plan->peak_bytes), SaturatedCountText(plan->naive_peak_bytes),
        SaturatedCountText(plan->lower_bound_bytes), SaturatedCountText(plan->arena_bytes),
        SaturatedCountText(plan->total_bytes));
  }
}

// An ONNX model's inputs as it declares them, symbolic dims by name:
//   input signature:
//     input: FLOAT[batch,3,224,224]
// true when some dim has no size.
bool PrintOnnxSignature(const std::vector<OnnxInputSignature>& inputs, std::ostream& out) {
  bool unsized = false;
  out << "input signature:\n";
  for (const OnnxInputSignature& in : inputs) {
    out << "  " << in.name << ": " << in.elem_type;
    if (in.has_shape) {
      out << "[" << absl::StrJoin(in.dims, ",") << "]";
      for (const std::string& d : in.dims) {
        unsized |= d.empty() || !absl::ascii_isdigit(static_cast<unsigned char>(d[0]));
      }
    } else {
      out << " (no shape)";
    }
    out << "\n";
  }
  return unsized;
}

// For an ONNX model, its input signature first; when the flags leave some
// dims without a size, the rest is computed with them taken as 1, with a
// note saying so, or, when the model cannot be imported so, says why.
int RunInfo(const std::string& path, const GraphInputFlags& input) {
  absl::StatusOr<std::optional<GraphFormat>> format = DetectGraphFormat(path);
  if (!format.ok()) return ReportError(format.status());
  const bool onnx = *format == GraphFormat::kOnnx;
  bool unsized = false;
  if (onnx) {
    absl::StatusOr<std::vector<OnnxInputSignature>> sig = ReadOnnxInputSignature(path);
    if (!sig.ok()) return ReportError(sig.status());
    unsized = PrintOnnxSignature(*sig, std::cout);
  }
  absl::StatusOr<Graph> g = input.Load(path);
  if (!g.ok() && unsized && g.status().code() == absl::StatusCode::kUnimplemented) {
    const std::string why(g.status().message());
    g = input.Load(path, 1);
    if (!g.ok()) {
      std::cout << "summary: not available until the unsized dims are given (" << why << ")\n";
      return kExitOk;
    }
    std::cout << "note: below, input dims without a size are taken as 1 (give them with --dim "
                 "NAME=N, --default-dim N or --input-shape INPUT=AxB)\n";
  }
  if (!g.ok()) return ReportError(g.status());
  PrintSummary(*g, std::cout);
  return kExitOk;
}

int RunConvert(const std::string& in, const std::string& out, const std::string& format,
               const OnnxWriteOptions& onnx, const GraphInputFlags& input) {
  std::optional<GraphFormat> fmt;
  if (!format.empty()) fmt = ParseGraphFormat(format);  // checked by CLI11
  absl::StatusOr<Graph> g = input.Load(in);
  if (!g.ok()) return ReportError(g.status());
  absl::Status s = SaveGraph(*g, out, fmt, onnx);
  if (!s.ok()) return ReportError(s);
  return kExitOk;
}

}  // namespace

void RegisterGraphCommands(CLI::App& app, int* exit_code) {
  {
    CLI::App* info = app.add_subcommand(
        "info",
        "Print a graph's node count, op histogram, inputs, outputs, options and peak memory");
    auto path = std::make_shared<std::string>();
    auto input = std::make_shared<GraphInputFlags>();
    info->add_option("GRAPH", *path, "Graph file (.json or .onnx)")->required();
    input->AddTo(info);
    info->callback([path, input, exit_code] { *exit_code = RunInfo(*path, *input); });
  }
  {
    CLI::App* convert = app.add_subcommand(
        "convert",
        "Read a graph and write it normalized (.json), as ONNX (.onnx) or as Graphviz DOT (.dot)");
    auto in = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>();
    auto input = std::make_shared<GraphInputFlags>();
    convert->add_option("IN", *in, "Input graph file (.json or .onnx)")->required();
    input->AddTo(convert);
    convert->add_option("-o,--output", *out, "Output file; its extension picks the format")
        ->required();
    convert
        ->add_option("--format", *format,
                     "Output format, overriding the extension (default: by extension, else json)")
        ->check(CLI::IsMember({"json", "dot", "onnx"}));
    auto onnx = std::make_shared<OnnxWriteOptions>();
    convert->add_flag("--onnx-standard-only", onnx->standard_only,
                      "ONNX output: default-domain ops only; a node that needs the egret.htp or "
                      "another domain is an error and nothing is written");
    convert->add_flag("--onnx-external-data", onnx->external_data, kOnnxExternalDataHelp);
    convert->callback([in, out, format, onnx, input, exit_code] {
      *exit_code = RunConvert(*in, *out, *format, *onnx, *input);
    });
  }
}

}  // namespace egret::cli
