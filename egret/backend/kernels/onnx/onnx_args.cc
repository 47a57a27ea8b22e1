#include <algorithm>
#include <variant>

#include "absl/strings/str_format.h"
#include "egret/backend/kernels/onnx/onnx_kernels_internal.h"

namespace egret::backend_internal {

namespace {
constexpr std::string_view kAbsentInputs = "onnx.absent_inputs";

const AttrValue* Find(const KernelContext& c, std::string_view name) {
  if (c.attrs == nullptr) return nullptr;
  auto it = c.attrs->find(name);
  return it == c.attrs->end() ? nullptr : &it->second;
}
}  // namespace

OnnxArgs::OnnxArgs(const KernelContext& c) : c_(c) {
  std::vector<int64_t> absent;
  if (const AttrValue* v = Find(c, kAbsentInputs)) {
    if (const auto* ints = std::get_if<std::vector<int64_t>>(v)) absent = *ints;
  }
  int next = 0;
  const int present = static_cast<int>(c.inputs.size());
  for (int k = 0; next < present; ++k) {
    if (std::find(absent.begin(), absent.end(), k) != absent.end()) {
      position_.push_back(-1);
    } else {
      position_.push_back(next++);
    }
  }
}

const Tensor* OnnxArgs::Input(int k) const {
  if (k < 0 || k >= static_cast<int>(position_.size()) || position_[k] < 0) return nullptr;
  return c_.inputs[position_[k]].value;
}

int64_t OnnxArgs::Int(std::string_view name, int64_t def) const {
  const AttrValue* v = Find(c_, name);
  if (v == nullptr) return def;
  if (const auto* i = std::get_if<int64_t>(v)) return *i;
  return def;
}

double OnnxArgs::Float(std::string_view name, double def) const {
  const AttrValue* v = Find(c_, name);
  if (v == nullptr) return def;
  if (const auto* d = std::get_if<double>(v)) return *d;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  return def;
}

std::string OnnxArgs::Str(std::string_view name, std::string def) const {
  const AttrValue* v = Find(c_, name);
  if (v == nullptr) return def;
  if (const auto* s = std::get_if<std::string>(v)) return *s;
  return def;
}

std::optional<std::vector<int64_t>> OnnxArgs::Ints(std::string_view name) const {
  const AttrValue* v = Find(c_, name);
  if (v == nullptr) return std::nullopt;
  if (const auto* i = std::get_if<std::vector<int64_t>>(v)) return *i;
  return std::nullopt;
}

std::optional<std::vector<double>> OnnxArgs::Floats(std::string_view name) const {
  const AttrValue* v = Find(c_, name);
  if (v == nullptr) return std::nullopt;
  if (const auto* d = std::get_if<std::vector<double>>(v)) return *d;
  return std::nullopt;
}

absl::StatusOr<int> OnnxAxis(const KernelContext& c, int64_t axis, int rank) {
  if (axis < -rank || axis >= std::max(rank, 1)) {
    return KernelError(c, absl::StrFormat("axis %d is out of range for rank %d", axis, rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace egret::backend_internal
