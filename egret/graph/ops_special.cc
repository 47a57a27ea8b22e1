// The special ops of the op table: graph structure, never HVX ops ($Const,
// $Shape, *Input, $Out): their rows, and the shape functions they name.
#include <cstdint>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/graph/op_rows_internal.h"
#include "egret/graph/shape_functions_internal.h"
#include "egret/support/status_macros.h"

namespace egret::shape_internal {

ShapeResult InferOut(const ShapeContext& c) {
  if (c.T(0).dtype != DType::kMulti) {
    return c.Error(absl::StrFormat("multi must be a Multi value, got %s", c.T(0).ToString()));
  }
  EGRET_ASSIGN_OR_RETURN(auto sel, c.Ints(1));
  if (sel.empty()) return c.Error("selector is empty");
  const int64_t n = static_cast<int64_t>(c.in[0].multi.size());
  int64_t k = sel.back();
  if (sel.size() >= 2 && sel[sel.size() - 2] != n) {
    return c.Error(
        absl::StrFormat("selector says %d outputs, the producer has %d", sel[sel.size() - 2], n));
  }
  if (k < 0 || k >= n) return c.Error(absl::StrFormat("output %d of %d does not exist", k, n));
  return Types{c.in[0].multi[k]};
}

ShapeResult InferLeaf(const ShapeContext& c) {
  if (!c.options.declared.empty()) return Types{c.options.declared[0]};
  return c.Error("has no declared output type");
}

// Special ops (OpGroup::kSpecial).
std::vector<OpDef> SpecialRows() {
  using G = OpGroup;
  return {
      // --- Special ops: graph structure, never HVX ops.
      {.name = "$Const",
       .group = G::kSpecial,
       .doc = "a constant tensor: the node's data",
       .results = "the type of its data",
       .shape_fn = InferLeaf,
       .off_htp = true,
       .onnx = "Constant ConstantOfShape"},
      {.name = "$Shape",
       .group = G::kSpecial,
       .doc = "a parameter value held in its type's dims; no data, no memory",
       .results = "Int32 whose dims are the value",
       .shape_fn = InferLeaf,
       .off_htp = true,
       .onnx = "none"},
      {.name = "*Input",
       .group = G::kSpecial,
       .doc = "a graph input",
       .results = "its declared type",
       .shape_fn = InferLeaf,
       .off_htp = true,
       .onnx = "none"},
      {.name = "$Out",
       .group = G::kSpecial,
       .doc = "selects one output of a multi-output producer",
       .operands = {Data("multi", "a Multi value"), Ints("selector", "ints [0,0,n_out,k]")},
       .results = "output k of the producer",
       .shape_fn = InferOut,
       .off_htp = true,
       .onnx = "none"},
  };
}

}  // namespace egret::shape_internal
