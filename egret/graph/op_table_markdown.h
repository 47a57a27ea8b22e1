// docs/ops.md, generated from the op table (op_table.h): the conventions and
// the output-type rule, then per section one table row per op (operands with
// kind, optional/variadic, default and constraint; results; algebraic traits;
// the ONNX ops mapped onto it; HVX cost status) and the section's notes.
// `egret ops --markdown` prints it; a test fails when docs/ops.md differs.
#ifndef EGRET_GRAPH_OP_TABLE_MARKDOWN_H_
#define EGRET_GRAPH_OP_TABLE_MARKDOWN_H_

#include <string>

namespace egret {

// The whole Markdown page, ending in a newline.
std::string OpTableMarkdown();

}  // namespace egret

#endif  // EGRET_GRAPH_OP_TABLE_MARKDOWN_H_
