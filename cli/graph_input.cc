#include "cli/graph_input.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/data_dir.h"
#include "egret/graph/checked_math.h"
#include "egret/io/graph_io.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/rules/rule_set.h"

namespace egret::cli {

void GraphInputFlags::AddTo(CLI::App* cmd) {
  cmd->add_option("--dim", dims_,
                  "NAME=N: size of a symbolic ONNX input dim (repeatable; .onnx only)");
  cmd->add_option("--default-dim", default_dim_,
                  "Size of any other symbolic ONNX input dim (default: such a dim is an error)")
      ->check(CLI::Range(int64_t{1}, kMaxElements).description("N >= 1"));
  cmd->add_option(
      "--input-shape", input_shapes_,
      "INPUT=AxBx.. or INPUT=A,B,..: the whole shape of an ONNX graph input (repeatable; "
      ".onnx only)");
  cmd->add_option("--input-value", input_values_,
                  "INPUT=V[,V...]: freeze an ONNX graph input to these values, one per element or "
                  "one for all (repeatable; .onnx only)");
}

absl::StatusOr<Graph> GraphInputFlags::Load(const std::string& path) const { return Load(path, 0); }

absl::StatusOr<Graph> GraphInputFlags::Load(const std::string& path, int64_t unsized_dim) const {
  OnnxImportOptions options;
  options.default_dim = default_dim_ > 0 ? default_dim_ : unsized_dim;
  for (const std::string& d : dims_) {
    const size_t eq = d.rfind('=');
    int64_t n = 0;
    if (eq == std::string::npos || eq == 0 || !absl::SimpleAtoi(d.substr(eq + 1), &n) || n < 1 ||
        n > kMaxElements) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "egret: error: --dim '%s': expected NAME=N with 1 <= N <= %s", d, kMaxElementsText));
    }
    options.dim_params[d.substr(0, eq)] = n;
  }
  for (const std::string& s : input_shapes_) {
    const size_t eq = s.rfind('=');
    Dims dims;
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < s.size();
    for (absl::string_view part :
         absl::StrSplit(ok ? s.substr(eq + 1) : "", absl::ByAnyChar("x,"))) {
      int64_t n = 0;
      ok = ok && absl::SimpleAtoi(part, &n) && n >= 1 && n <= kMaxElements &&
           dims.size() < static_cast<size_t>(kMaxRank);
      dims.push_back(n);
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "egret: error: --input-shape '%s': expected INPUT=AxBx... or INPUT=A,B,... with every "
          "dim >= 1",
          s));
    }
    options.input_shapes[s.substr(0, eq)] = dims;
  }
  for (const std::string& s : input_values_) {
    const size_t eq = s.rfind('=');
    std::vector<double> values;
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < s.size();
    for (absl::string_view part : absl::StrSplit(ok ? s.substr(eq + 1) : "", ',')) {
      double v = 0;
      ok = ok && absl::SimpleAtod(part, &v) && std::isfinite(v);
      values.push_back(v);
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "egret: error: --input-value '%s': expected INPUT=V[,V...] with finite numbers", s));
    }
    options.input_numbers[s.substr(0, eq)] = values;
  }
  options.symbolic_dim_hint = "--dim NAME=N, --default-dim N or --input-shape INPUT=AxB";
  options.suggest_cli_flags = true;
  options.memory_limit_bytes = memory_limit_bytes;
  options.memory_limit_hint = "--memory-limit; 'none' lifts it";
  return LoadGraph(path, options);
}

std::vector<std::string> DefaultRuleFiles() {
  return rules::ShippedRuleFiles(DataDir("rules", "hvx_ops.rules", EGRET_RULES_DIR));
}

}  // namespace egret::cli
