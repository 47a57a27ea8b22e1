// OnnxArgs (an opaque ONNX node's inputs by position and attributes by name) and
// the helpers the ONNX-semantics kernels share (onnx_kernels_internal.h).
#include <algorithm>
#include <cmath>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/graph/string_list.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {

namespace {
constexpr std::string_view kAbsentInputs = "onnx.absent_inputs";
constexpr std::string_view kUntypedOutputs = "onnx.untyped_outputs";

const AttrValue* Find(const KernelContext& c, std::string_view name) {
  if (c.attrs == nullptr) return nullptr;
  auto it = c.attrs->find(name);
  return it == c.attrs->end() ? nullptr : &it->second;
}

// Output k is the importer's stand-in for an output nothing reads.
bool IsPlaceholder(const KernelContext& c, int k) {
  return c.outputs[k].num_elements() == 0 && Find(c, kUntypedOutputs) != nullptr;
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

absl::StatusOr<const Tensor*> OnnxArgs::Required(int k) const {
  const Tensor* t = Input(k);
  if (t == nullptr) return KernelError(c_, absl::StrFormat("input %d is required", k));
  return t;
}

bool OnnxArgs::HasAttr(std::string_view name) const { return Find(c_, name) != nullptr; }

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

absl::StatusOr<std::vector<int64_t>> OnnxArgs::IntsOfLength(std::string_view name, size_t length,
                                                            int64_t def) const {
  std::optional<std::vector<int64_t>> v = Ints(name);
  if (!v) return std::vector<int64_t>(length, def);
  if (v->size() != length) {
    return KernelError(c_,
                       absl::StrFormat("%s has %d values, expected %d", name, v->size(), length));
  }
  return *std::move(v);
}

std::optional<std::vector<double>> OnnxArgs::Floats(std::string_view name) const {
  const AttrValue* v = Find(c_, name);
  if (v == nullptr) return std::nullopt;
  if (const auto* d = std::get_if<std::vector<double>>(v)) return *d;
  return std::nullopt;
}

std::optional<std::vector<std::string>> OnnxArgs::Strings(std::string_view name) const {
  const AttrValue* v =
      Find(c_, absl::StrCat(std::string(kStringListAttrPrefix), std::string(name)));
  if (v == nullptr) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(v)) return DecodeStringList(*s);
  return std::nullopt;
}

absl::Status NeedInputs(const KernelContext& c, int n) {
  if (static_cast<int>(c.inputs.size()) < n) {
    return KernelError(c, absl::StrFormat("needs %d inputs, has %d", n, c.inputs.size()));
  }
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    if (c.inputs[i].value == nullptr) {
      return KernelError(c, absl::StrFormat("input %d holds no data", i));
    }
  }
  return absl::OkStatus();
}

std::vector<int64_t> ReadInts(const Tensor& t) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(t.num_elements()));
  for (double v : ReadReals(t)) out.push_back(static_cast<int64_t>(std::trunc(v)));
  return out;
}

bool IsOnnxInteger(const TensorType& type) {
  if (IsPlainInteger(type.dtype)) return true;
  return IsQuantized(type.dtype) && type.stepsize == 1.0f && type.zero_offset == 0;
}

Tensor MakeOnnxTensor(const TensorType& type, absl::Span<const double> reals) {
  if (!IsOnnxInteger(type) && type.dtype != DType::kBool) return MakeTensor(type, reals);
  std::vector<double> v(reals.begin(), reals.end());
  for (double& x : v) {
    if (type.dtype == DType::kBool) {
      x = x != 0.0 ? 1.0 : 0.0;
    } else {
      x = std::trunc(x);  // then saturated; NaN becomes 0
    }
  }
  return MakeTensor(type, v);
}

std::vector<int64_t> ReductionGroups(const Dims& d, const std::vector<bool>& reduced,
                                     int64_t* groups) {
  const int rank = static_cast<int>(d.size());
  // Group strides over the input's axes: 0 on reduced axes.
  std::vector<int64_t> gstride(rank, 0);
  int64_t s = 1, n = 1;
  for (int i = rank - 1; i >= 0; --i) {
    n *= d[i];
    if (!reduced[i]) {
      gstride[i] = s;
      s *= d[i];
    }
  }
  *groups = s;
  std::vector<int64_t> out(static_cast<size_t>(n));
  std::vector<int64_t> idx(rank, 0);
  int64_t g = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = g;
    for (int k = rank - 1; k >= 0; --k) {
      ++idx[k];
      g += gstride[k];
      if (idx[k] < d[k]) break;
      g -= gstride[k] * d[k];
      idx[k] = 0;
    }
  }
  return out;
}

absl::Status CheckOutputCount(const KernelContext& c, int k, int64_t n) {
  const TensorType& t = c.outputs[k];
  if (t.num_elements() == n) return absl::OkStatus();
  if (t.dtype == DType::kFloat32 && t.dims == Dims{0} && Find(c, kUntypedOutputs) != nullptr) {
    return absl::OkStatus();
  }
  return KernelError(c, absl::StrFormat("output %d is declared %s but the op computes %d elements",
                                        k, t.ToString(), n));
}

absl::StatusOr<int> OnnxAxis(const KernelContext& c, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return KernelError(c, absl::StrFormat("axis %d is out of range for rank %d", axis, rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

absl::Status CheckOnnxOutput(const KernelContext& c, int k, const Dims& dims) {
  if (k >= static_cast<int>(c.outputs.size())) {
    return KernelError(c, absl::StrFormat("computes output %d, the node declares %d outputs", k,
                                          c.outputs.size()));
  }
  const TensorType& declared = c.outputs[k];
  if (declared.dims != dims && !IsPlaceholder(c, k)) {
    TensorType computed = declared;
    computed.dims = dims;
    return KernelError(c, absl::StrFormat("output %d is declared %s but its inputs give %s", k,
                                          declared.ToString(), computed.ToString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> OnnxOutput(const KernelContext& c, int k, const Dims& dims,
                                  absl::Span<const double> values) {
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, k, dims));
  const TensorType& declared = c.outputs[k];
  if (declared.dims != dims) return Tensor(declared);  // a placeholder nothing reads
  if (static_cast<int64_t>(values.size()) != declared.num_elements()) {
    return absl::InternalError(absl::StrFormat("%s: output %d has %d values for %s", c.op, k,
                                               values.size(), declared.ToString()));
  }
  return MakeTensor(declared, values);
}

absl::StatusOr<std::vector<Tensor>> OnnxResult(const KernelContext& c,
                                               absl::Span<const double> values) {
  EGRET_RETURN_IF_ERROR(CheckOutputCount(c, 0, static_cast<int64_t>(values.size())));
  std::vector<Tensor> out;
  out.push_back(MakeOnnxTensor(c.outputs[0], values));
  return out;
}

}  // namespace egret::backend_internal
