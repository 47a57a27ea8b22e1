// The tidy pass's zero biases (write_tidy_internal.h, DropZeroBiases): a
// convolution's bias known to be all zeros is left out (ONNX's B is
// optional), as egret's convolutions always have one and the input often
// had none.
#include <string>
#include <utility>

#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/write_tidy_internal.h"

namespace egret::onnx_export::tidy {

bool Tidier::KnownZero(const std::string& name, int depth) const {
  auto values = [this](const std::string& n) -> std::optional<Tensor> {
    const onnx::TensorProto* init = Init(n);
    if (init == nullptr) return std::nullopt;
    absl::StatusOr<Tensor> t = onnx_internal::TensorFromProto(*init);
    if (!t.ok()) return std::nullopt;
    return *std::move(t);
  };
  if (std::optional<Tensor> t = values(name)) {
    for (int64_t i = 0; i < t->num_elements(); ++i) {
      if (t->GetValue(i) != 0) return false;
    }
    return true;
  }
  auto it = producer_.find(name);
  if (it == producer_.end() || depth > 4) return false;
  const onnx::NodeProto& n = out_[it->second];
  if ((n.op_type() == "Cast" && n.domain().empty()) && n.input_size() == 1)
    return KnownZero(n.input(0), depth + 1);
  if (n.op_type() != "DequantizeLinear" || !n.domain().empty() || n.input_size() < 1) return false;
  if (n.input_size() < 3 || n.input(2).empty()) return KnownZero(n.input(0), depth + 1);
  // (x - zero) * scale is 0 where x equals its (per-tensor) zero point.
  std::optional<Tensor> x = values(n.input(0)), zero = values(n.input(2));
  if (!x || !zero || zero->num_elements() != 1) return false;
  for (int64_t i = 0; i < x->num_elements(); ++i) {
    if (x->GetValue(i) != zero->GetValue(0)) return false;
  }
  return true;
}

void Tidier::DropZeroBiases() {
  for (onnx::NodeProto& n : out_) {
    if ((n.op_type() != "Conv" && n.op_type() != "ConvTranspose") || !n.domain().empty() ||
        n.input_size() != 3 || n.input(2).empty() || !KnownZero(n.input(2))) {
      continue;
    }
    n.mutable_input()->RemoveLast();
  }
}

}  // namespace egret::onnx_export::tidy
