// Nodes of egret's own ONNX domain, "egret.htp" (docs/onnx-export.md): what
// the writer (onnx_writer.h) emits for an op ONNX lacks, read back as that
// egret op. The op string, implementation, cost and output encodings are
// attributes; the output dims come from the value_info the writer declares.
#include "egret/graph/dtype.h"
#include "egret/onnx/importer_internal.h"
#include "egret/onnx/onnx_writer.h"

namespace egret::onnx_import {

absl::Status Importer::DoEgretNode() {
  const onnx::AttributeProto* op = Attr("egret_op");
  if (op == nullptr || op->s().empty()) {
    return absl::InvalidArgumentError("egret.htp node without an 'egret_op' attribute");
  }
  Node n;
  n.op = op->s();
  for (int i = 0; i < cur_->input_size(); ++i) {
    if (!Has(i)) return absl::InvalidArgumentError("egret.htp nodes have no absent inputs");
    EGRET_ASSIGN_OR_RETURN(ValueRef r, Get(InName(i), kPlain));
    n.inputs.push_back(r);
  }
  if (const auto* a = Attr("implementation")) n.attrs[std::string(kImplAttr)] = a->s();
  if (const auto* a = Attr("cost")) n.attrs[std::string(kCostAttr)] = static_cast<double>(a->f());
  const std::vector<int64_t> dtypes = AttrInts("out_dtypes").value_or(std::vector<int64_t>{});
  const std::vector<int64_t> zeros = AttrInts("out_zero_offsets").value_or(std::vector<int64_t>{});
  const std::vector<double> steps = AttrFloats("out_stepsizes").value_or(std::vector<double>{});
  for (int k = 0; k < cur_->output_size(); ++k) {
    auto it = declared_types_.find(Out(k));
    if (it == declared_types_.end() || !it->second->has_tensor_type()) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", Out(k), "' has no value_info (egret.htp outputs must)"));
    }
    TensorType t;
    const auto& tt = it->second->tensor_type();
    for (const auto& dim : tt.shape().dim()) {
      if (!dim.has_dim_value() || dim.dim_value() < 0) {
        return absl::InvalidArgumentError(absl::StrCat("output '", Out(k), "' has no static dims"));
      }
      t.dims.push_back(dim.dim_value());
    }
    EGRET_ASSIGN_OR_RETURN(t.dtype, DTypeFromOnnx(tt.elem_type()));
    if (static_cast<size_t>(k) < dtypes.size()) {
      std::optional<DType> d = DTypeFromValue(static_cast<int>(dtypes[k]));
      if (d && IsConcrete(*d) && ElementSize(*d) == ElementSize(t.dtype)) t.dtype = *d;
    }
    if (IsQuantized(t.dtype) && static_cast<size_t>(k) < zeros.size() &&
        static_cast<size_t>(k) < steps.size() && steps[k] > 0) {
      t.zero_offset = static_cast<int32_t>(zeros[k]);
      t.stepsize = static_cast<float>(steps[k]);
    }
    n.outputs.push_back(t);
  }
  if (n.outputs.empty()) return absl::InvalidArgumentError("has no outputs");
  n.name = Unique(cur_->name().empty() ? Out(0) : cur_->name());
  const NodeId id = g_.AddNode(std::move(n));
  for (int k = 0; k < cur_->output_size(); ++k) {
    if (OutputUsed(k)) SetValue(Out(k), ValueRef{id, static_cast<uint32_t>(k)}, kPlain);
  }
  return absl::OkStatus();
}

}  // namespace egret::onnx_import
