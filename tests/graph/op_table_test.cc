// The op table's rows (egret/graph/op_table.h) are well formed, and the
// docs/ops.md generator lists every row.
#include "egret/graph/op_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "egret/graph/op_table_markdown.h"

namespace egret {
namespace {

using ::testing::HasSubstr;

TEST(OpTable, RowsAreWellFormed) {
  OpGroup group = OpGroup::kConvolution;
  for (const OpDef& d : AllOpDefs()) {
    EXPECT_TRUE(IsKnownOp(d.name)) << d.name;
    EXPECT_LE(group, d.group) << d.name << ": rows of one docs section must be together";
    group = d.group;
    EXPECT_EQ(FindOpDef(d.name), &d);
    EXPECT_LE(d.min_inputs(), d.max_inputs() == kVariadic ? 1000 : d.max_inputs()) << d.name;
    if (d.max_inputs() != kVariadic) {
      for (int i = 0; i < d.max_inputs(); ++i) EXPECT_FALSE(d.InputName(i).empty()) << d.name;
      EXPECT_TRUE(d.InputName(d.max_inputs()).empty()) << d.name;
    }
    for (size_t i = 0; i < d.operands.size(); ++i) {
      const OperandDef& o = d.operands[i];
      const bool last = i + 1 == d.operands.size();
      EXPECT_TRUE(!o.variadic || last) << d.name << " " << o.name << ": variadic but not last";
      EXPECT_TRUE(o.optional || i == 0 || !d.operands[i - 1].optional)
          << d.name << " " << o.name << ": required after an optional operand";
      EXPECT_TRUE(o.optional || o.default_value.empty()) << d.name << " " << o.name;
    }
    if (d.algebra.commutative || d.algebra.associative || d.algebra.idempotent) {
      EXPECT_TRUE(d.min_inputs() == 2 && d.max_inputs() == 2) << d.name << ": binary traits";
    }
    if (d.algebra.involution) {
      EXPECT_TRUE(d.min_inputs() == 1 && d.max_inputs() == 1) << d.name << ": involution";
    }
    EXPECT_FALSE(d.doc.empty()) << d.name;
    EXPECT_FALSE(d.results.empty()) << d.name;
  }
  EXPECT_TRUE(IsKnownOp("Relu.fp16"));
  EXPECT_EQ(BaseOpName("Conv2d.opt.tcm"), "Conv2d");
  EXPECT_FALSE(IsKnownOp("MyOnnxOp"));
  const OpDef* conv = FindOpDef("Conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->min_inputs(), 5);
  EXPECT_EQ(conv->max_inputs(), 8);
  EXPECT_FALSE(conv->IsParam(1));
  EXPECT_TRUE(conv->IsParam(3));
  EXPECT_EQ(conv->InputName(4), "pads");
  EXPECT_EQ(conv->InputNames(), "in filter bias stride pads dilation act_min act_max");
  const OpDef* concat = FindOpDef("Concat");
  EXPECT_EQ(concat->min_inputs(), 2);
  EXPECT_EQ(concat->max_inputs(), kVariadic);
  EXPECT_TRUE(concat->IsParam(0));
  EXPECT_FALSE(concat->IsParam(7));
  EXPECT_EQ(concat->InputName(7), "x");
  EXPECT_EQ(FindOpDef("Split")->num_results, kVariadic);
  EXPECT_EQ(FindOpDef("FullyConnected")->OnnxOps(),
            (std::vector<std::string_view>{"Gemm", "MatMul"}));
  EXPECT_TRUE(FindOpDef("Relu6")->OnnxOps().empty());
}

TEST(OpTable, MarkdownListsEveryOpWithItsColumns) {
  const std::string md = OpTableMarkdown();
  for (const OpDef& d : AllOpDefs()) {
    EXPECT_THAT(md, HasSubstr("| `" + std::string(d.name) + "` |")) << d.name;
  }
  EXPECT_THAT(md, HasSubstr("| `ElementWiseMaximum` | max(a, b) | `a` data<br>`b` data: "
                            "broadcasts with a | broadcast of a and b | commutative, "
                            "associative (across broadcasting), idempotent | Max, LeakyRelu | "
                            "hvx_ops.rules |"));
  EXPECT_THAT(md, HasSubstr("`dilation` param, optional = `all 1`: ints [1,dh,dw,1]"));
  EXPECT_THAT(md, HasSubstr("`x` data, variadic: equal dims except on axis"));
  EXPECT_THAT(md, HasSubstr("| variadic: one per size"));
  EXPECT_THAT(md, HasSubstr("| `$Const` | a constant tensor: the node's data | none |"));
  EXPECT_THAT(md, HasSubstr("| none | off HTP |"));
  EXPECT_EQ(md.back(), '\n');
}

}  // namespace
}  // namespace egret
