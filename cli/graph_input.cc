#include "cli/graph_input.h"

#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "egret/io/graph_io.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/rules/rule_set.h"

namespace egret::cli {

void GraphInputFlags::AddTo(CLI::App* cmd) {
  cmd->add_option("--dim", dims_,
                  "NAME=N: size of a symbolic ONNX input dim (repeatable; .onnx only)");
  cmd->add_option("--default-dim", default_dim_,
                  "Size of any other symbolic ONNX input dim (default: such a dim is an error)")
      ->check(CLI::PositiveNumber);
}

absl::StatusOr<Graph> GraphInputFlags::Load(const std::string& path) const {
  OnnxImportOptions options;
  options.default_dim = default_dim_;
  for (const std::string& d : dims_) {
    const size_t eq = d.rfind('=');
    int64_t n = 0;
    if (eq == std::string::npos || eq == 0 || !absl::SimpleAtoi(d.substr(eq + 1), &n) || n < 1) {
      return absl::InvalidArgumentError(
          absl::StrFormat("egret: error: --dim '%s': expected NAME=N with N >= 1", d));
    }
    options.dim_params[d.substr(0, eq)] = n;
  }
  return LoadGraph(path, options);
}

std::vector<std::string> DefaultRuleFiles() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path dir = exe.parent_path().parent_path() / "share" / "egret" / "rules";
  if (ec || !std::filesystem::exists(dir / "hvx_ops.rules")) dir = EGRET_RULES_DIR;
  return rules::ShippedRuleFiles(dir.string());
}

}  // namespace egret::cli
