// egret ops [--markdown]
//
// Prints egret's op vocabulary from the op table (egret/graph/op_table.h): one
// line per op with its operands ("[...]" optional, "..." variadic, "$" marks a
// parameter) and what it computes; with --markdown, docs/ops.md as generated
// from the table (`egret ops --markdown > docs/ops.md`).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "egret/graph/op_table.h"
#include "egret/graph/op_table_markdown.h"
#include "egret/support/diagnostic.h"

namespace egret::cli {
namespace {

// "Conv2d(in, filter, bias, $stride, $pads[, $dilation, $act_min, $act_max])".
std::string Signature(const OpDef& d) {
  std::string s = std::string(d.name) + "(";
  bool in_optional = false;
  for (size_t i = 0; i < d.operands.size(); ++i) {
    const OperandDef& o = d.operands[i];
    if (o.optional && !in_optional) {
      s += "[";
      in_optional = true;
    }
    if (i > 0) s += ", ";
    s += o.param ? "$" : "";
    s += o.name;
    s += o.variadic ? "..." : "";
  }
  return s + (in_optional ? "])" : ")");
}

}  // namespace

void RegisterOpsCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("ops", "List egret's ops (the op table), or docs/ops.md");
  auto markdown = std::make_shared<bool>(false);
  cmd->add_flag("--markdown", *markdown, "Print docs/ops.md as generated from the op table");
  cmd->callback([markdown, exit_code] {
    if (*markdown) {
      std::fputs(OpTableMarkdown().c_str(), stdout);
    } else {
      for (const OpDef& d : AllOpDefs()) {
        std::printf("%s: %s\n", Signature(d).c_str(), std::string(d.doc).c_str());
      }
    }
    *exit_code = kExitOk;
  });
}

}  // namespace egret::cli
