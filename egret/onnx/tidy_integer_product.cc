// The tidy pass's integer products (write_tidy_internal.h,
// FuseIntegerProducts): the float spelling of an integer convolution or
// matrix product, as the importer lowers ConvInteger and MatMulInteger
// (docs/onnx-import.md) and the writer writes it back, becomes that integer
// op again, reading the integers themselves.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/write_tidy_internal.h"

namespace egret::onnx_export::tidy {
namespace {

bool IsStandard(const onnx::NodeProto& n, std::string_view op) {
  return n.op_type() == op && n.domain().empty();
}

bool Is8Bit(int32_t elem) {
  return elem == onnx::TensorProto::UINT8 || elem == onnx::TensorProto::INT8;
}

int64_t CastTo(const onnx::NodeProto& n) {
  const onnx::AttributeProto* to = FindAttr(n, "to");
  return to == nullptr ? 0 : to->i();
}

}  // namespace

int32_t Tidier::ElemTypeOf(const std::string& name) const {
  if (const onnx::TensorProto* init = Init(name)) return init->data_type();
  for (const auto& i : gp_->input()) {
    if (i.name() == name) {
      return i.type().has_tensor_type() ? i.type().tensor_type().elem_type() : 0;
    }
  }
  auto it = producer_.find(name);
  if (it == producer_.end()) return 0;
  const onnx::NodeProto& n = out_[it->second];
  if (IsStandard(n, "Cast")) return static_cast<int32_t>(CastTo(n));
  if (IsStandard(n, "DynamicQuantizeLinear")) {
    // y and y_zero_point are uint8, y_scale float.
    return n.output_size() > 1 && n.output(1) == name ? onnx::TensorProto::FLOAT
                                                      : onnx::TensorProto::UINT8;
  }
  return 0;
}

std::optional<int64_t> Tidier::NumElementsOf(const std::string& name) const {
  if (const onnx::TensorProto* init = Init(name)) {
    int64_t n = 1;
    for (int64_t d : init->dims()) n *= d;
    return n;
  }
  auto it = producer_.find(name);
  if (it != producer_.end()) {
    const onnx::NodeProto& n = out_[it->second];
    // DynamicQuantizeLinear's scale and zero point are scalars.
    if (IsStandard(n, "DynamicQuantizeLinear") && n.output(0) != name) return 1;
    // A Cast keeps its input's dims.
    if (IsStandard(n, "Cast")) return NumElementsOf(n.input(0));
  }
  if (std::optional<std::vector<int64_t>> d = DimsOf(name)) {
    int64_t n = 1;
    for (int64_t k : *d) n *= k;
    return n;
  }
  return std::nullopt;
}

std::optional<Tidier::IntegerOperand> Tidier::IntegerActivation(const std::string& name) const {
  auto it = producer_.find(name);
  if (it == producer_.end()) return std::nullopt;
  const onnx::NodeProto& n = out_[it->second];
  auto cast_of_8bit = [this](const std::string& t) -> std::optional<std::string> {
    auto p = producer_.find(t);
    if (p == producer_.end()) return std::nullopt;
    const onnx::NodeProto& c = out_[p->second];
    if (!IsStandard(c, "Cast") || CastTo(c) != onnx::TensorProto::FLOAT || c.input_size() != 1 ||
        !Is8Bit(ElemTypeOf(c.input(0)))) {
      return std::nullopt;
    }
    return c.input(0);
  };
  if (IsStandard(n, "Cast")) {
    std::optional<std::string> q = cast_of_8bit(name);
    if (!q) return std::nullopt;
    return IntegerOperand{*q, ""};
  }
  // Sub(Cast(q), Cast(zero)): zero a scalar of q's type.
  if (!IsStandard(n, "Sub") || n.input_size() != 2) return std::nullopt;
  std::optional<std::string> q = cast_of_8bit(n.input(0)), zero = cast_of_8bit(n.input(1));
  if (!q || !zero || ElemTypeOf(*q) != ElemTypeOf(*zero) || NumElementsOf(*zero) != 1) {
    return std::nullopt;
  }
  return IntegerOperand{*q, *zero};
}

std::optional<Tidier::IntegerOperand> Tidier::IntegerWeight(const std::string& name,
                                                            int64_t channel_axis) const {
  auto it = producer_.find(name);
  if (it == producer_.end()) return std::nullopt;
  const onnx::NodeProto& n = out_[it->second];
  if (!IsStandard(n, "DequantizeLinear") || n.input_size() < 2) return std::nullopt;
  const onnx::TensorProto* q = Init(n.input(0));
  const onnx::TensorProto* scale = Init(n.input(1));
  if (q == nullptr || scale == nullptr || !Is8Bit(q->data_type())) return std::nullopt;
  // A scale of 1: the stored integers are the values.
  absl::StatusOr<Tensor> s = onnx_internal::TensorFromProto(*scale);
  if (!s.ok()) return std::nullopt;
  for (int64_t i = 0; i < s->num_elements(); ++i) {
    if (s->GetReal(i) != 1.0) return std::nullopt;
  }
  const bool has_zero = n.input_size() > 2 && !n.input(2).empty();
  if (!has_zero) return IntegerOperand{n.input(0), ""};
  const onnx::TensorProto* zero = Init(n.input(2));
  if (zero == nullptr || zero->data_type() != q->data_type()) return std::nullopt;
  std::optional<int64_t> count = NumElementsOf(n.input(2));
  if (!count) return std::nullopt;
  if (*count != 1) {
    // Per channel: 1-D along the integer op's channel axis.
    const onnx::AttributeProto* axis = FindAttr(n, "axis");
    const int64_t rank = q->dims_size();
    int64_t a = axis == nullptr ? 1 : axis->i();
    if (a < 0) a += rank;
    if (zero->dims_size() != 1 || a != channel_axis || channel_axis >= rank ||
        q->dims(static_cast<int>(channel_axis)) != *count) {
      return std::nullopt;
    }
  }
  return IntegerOperand{n.input(0), n.input(2)};
}

void Tidier::FuseIntegerProducts() {
  absl::flat_hash_map<std::string, int> reads;
  for (const auto& n : out_) {
    for (const auto& in : n.input()) ++reads[in];
  }
  std::vector<bool> drop(out_.size(), false);
  bool any = false;
  for (size_t i = 0; i < out_.size(); ++i) {
    const onnx::NodeProto& cast = out_[i];
    if (!IsStandard(cast, "Cast") || CastTo(cast) != onnx::TensorProto::INT32 ||
        cast.input_size() != 1) {
      continue;
    }
    const std::string& y = cast.input(0);
    auto p = producer_.find(y);
    if (p == producer_.end() || reads[y] != 1 || pinned_.contains(y)) continue;
    onnx::NodeProto& op = out_[p->second];
    const bool conv = IsStandard(op, "Conv");
    if (!conv && !IsStandard(op, "MatMul")) continue;
    if (op.input_size() < 2 || op.output_size() != 1) continue;
    // A bias is gone when zero (DropZeroBiases).
    if (conv && op.input_size() > 2 && !op.input(2).empty()) continue;
    // ConvInteger's w zero point may be per output channel (axis 0 of
    // OIHW); MatMulInteger's per column (the last axis of a 2-D b).
    const onnx::TensorProto* w_init = nullptr;
    if (auto wp = producer_.find(op.input(1)); wp != producer_.end()) {
      const onnx::NodeProto& dq = out_[wp->second];
      if (dq.input_size() > 0) w_init = Init(dq.input(0));
    }
    if (w_init == nullptr || (!conv && w_init->dims_size() != 2)) continue;
    std::optional<IntegerOperand> x = IntegerActivation(op.input(0));
    std::optional<IntegerOperand> w = IntegerWeight(op.input(1), conv ? 0 : 1);
    if (!x || !w) continue;
    onnx::NodeProto fused;
    fused.set_op_type(conv ? "ConvInteger" : "MatMulInteger");
    fused.set_name(op.name());
    fused.set_doc_string(op.doc_string());
    for (const std::string& in : {x->integers, w->integers, x->zero, w->zero}) {
      fused.add_input(in);
    }
    while (fused.input(fused.input_size() - 1).empty()) fused.mutable_input()->RemoveLast();
    fused.add_output(cast.output(0));
    if (conv) *fused.mutable_attribute() = op.attribute();
    op = std::move(fused);
    drop[i] = true;
    any = true;
  }
  if (!any) return;
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(out_[i]));
  }
  out_ = std::move(kept);
  IndexProducers();
}

}  // namespace egret::onnx_export::tidy
