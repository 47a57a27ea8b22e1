// The op table (egret/graph/op_table.h) against the stages keyed by it: every
// row has a shape function, a reference kernel (egret/executor/kernels), an HVX
// cost in the shipped library (egret/rules/lib/hvx_ops.rules) unless it is
// marked off-HTP, and an ONNX mapping (or an explicit "none") whose ONNX ops
// the importer really handles. Each failure names the op and what is missing.
#include <string>
#include <string_view>

#include "egret/executor/executor.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/onnx_reader.h"
#include "gtest/gtest.h"
#include "shipped_library.h"

namespace egret {
namespace {

TEST(OpTableConsistency, EveryOpHasAShapeFunction) {
  for (const OpDef& d : AllOpDefs()) {
    EXPECT_NE(d.shape_fn, nullptr) << d.name << ": no shape function in its op-table row";
  }
}

TEST(OpTableConsistency, EveryOpHasAReferenceKernel) {
  for (const OpDef& d : AllOpDefs()) {
    EXPECT_TRUE(HasKernel(d.name))
        << d.name << ": no reference kernel (register one in egret/executor/kernels)";
  }
}

TEST(OpTableConsistency, EveryOnHtpOpHasAnHvxCost) {
  const rules::OpRegistry& shipped = testing::ShippedLibrary().ops;
  ASSERT_GT(shipped.size(), 0u) << "the shipped library did not load";
  for (const OpDef& d : AllOpDefs()) {
    if (d.off_htp) {
      EXPECT_FALSE(shipped.Contains(d.name))
          << d.name << ": marked off-HTP in the op table, but egret/rules/lib registers an "
          << "implementation of it";
    } else {
      EXPECT_TRUE(shipped.Contains(d.name))
          << d.name << ": no HVX cost (DEF_PACKAGE_OP_AND_COST... in "
          << "egret/rules/lib/hvx_ops.rules) and not marked off-HTP in the op table";
    }
  }
}

TEST(OpTableConsistency, EveryShippedImplementationIsOfATableOp) {
  for (const rules::OpImplementation& impl : testing::ShippedLibrary().ops.all()) {
    EXPECT_TRUE(IsKnownOp(impl.op_name)) << impl.loc.ToString() << ": " << impl.op_name
                                         << " is registered but has no row in the op table";
  }
}

TEST(OpTableConsistency, EveryOpHasAnOnnxMappingOrNone) {
  for (const OpDef& d : AllOpDefs()) {
    if (d.onnx.empty()) {
      ADD_FAILURE() << d.name << ": no ONNX mapping; list the ONNX ops or write \"none\"";
      continue;
    }
    if (d.onnx == "none") continue;
    for (std::string_view onnx_op : d.OnnxOps()) {
      EXPECT_TRUE(IsOnnxOpMapped(onnx_op))
          << d.name << ": lists ONNX op '" << onnx_op
          << "', which the ONNX importer (egret/onnx/onnx_reader.cc) does not handle";
    }
  }
}

}  // namespace
}  // namespace egret
