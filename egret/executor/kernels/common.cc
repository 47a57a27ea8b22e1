// What the kernels share besides converting tensors (reals.cc): AllFloats,
// strides and gathers, the fused activation clamp, KernelError, and the
// table of every reference kernel.
#include <algorithm>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {

bool AllFloats(const KernelContext& c) {
  auto is_float = [](DType t) { return t == DType::kFloat32 || t == DType::kFloat16; };
  for (const OperandInfo& in : c.inputs) {
    if (in.type == nullptr || !is_float(in.type->dtype)) return false;
  }
  for (const TensorType& t : c.outputs) {
    if (!is_float(t.dtype)) return false;
  }
  return true;
}

std::vector<int64_t> RowMajorStrides(const Dims& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * dims[d + 1];
  return s;
}

std::vector<int64_t> BroadcastStrides(const Dims& in, const Dims& out) {
  std::vector<int64_t> s(out.size(), 0);
  const std::vector<int64_t> rs = RowMajorStrides(in);
  const size_t lead = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) s[lead + d] = in[d] == 1 ? 0 : rs[d];
  return s;
}

std::vector<double> GatherAxes(absl::Span<const double> in, const Dims& in_dims,
                               const std::vector<std::vector<int64_t>>& map, double fill) {
  int64_t n = 1;
  for (const auto& m : map) n *= static_cast<int64_t>(m.size());
  std::vector<double> out(static_cast<size_t>(n));
  GatherAxesInto<double>(in.data(), in_dims, map, fill, out.data());
  return out;
}

bool CopiesBytes(const TensorType& in, const TensorType& out) {
  return IsConcrete(in.dtype) && in.SameEncoding(out) && !in.per_axis && !out.per_axis;
}

Tensor GatherTensor(const Tensor& in, const TensorType& type,
                    const std::vector<std::vector<int64_t>>& map) {
  if (std::optional<Tensor> out = MoveStoredElements(in, type, [&](const auto* from, auto* to) {
        GatherAxesInto(from, in.type().dims, map, std::remove_pointer_t<decltype(to)>{}, to);
      })) {
    return *std::move(out);
  }
  return MakeTensor(type, GatherAxes(ReadReals(in), in.type().dims, map, 0));
}

absl::StatusOr<std::optional<ActivationClamp>> ReadActivationClamp(const KernelContext& c,
                                                                   int first) {
  if (!c.Has(first)) return std::nullopt;
  EGRET_ASSIGN_OR_RETURN(auto lo, ReadFloatScalarParam(c.inputs[first], "act_min"));
  EGRET_ASSIGN_OR_RETURN(auto hi, ReadFloatScalarParam(c.inputs[first + 1], "act_max"));
  return ActivationClamp{lo, hi};
}

absl::Status ApplyActivationClamp(const KernelContext& c, int first, std::vector<double>& out) {
  EGRET_ASSIGN_OR_RETURN(const std::optional<ActivationClamp> clamp, ReadActivationClamp(c, first));
  if (!clamp) return absl::OkStatus();
  for (double& v : out) v = std::min(std::max(v, clamp->lo), clamp->hi);
  return absl::OkStatus();
}

absl::Status KernelError(const KernelContext& c, std::string_view message) {
  return absl::InvalidArgumentError(absl::StrFormat("%s: %s", c.op, message));
}

const KernelTable& Kernels() {
  static const KernelTable* const kTable = [] {
    auto* t = new KernelTable();
    RegisterElementwiseKernels(*t);
    RegisterActivationKernels(*t);
    RegisterConvKernels(*t);
    RegisterMatMulKernels(*t);
    RegisterNormKernels(*t);
    RegisterReduceKernels(*t);
    RegisterShapeKernels(*t);
    RegisterPoolKernels(*t);
    RegisterResizeKernels(*t);
    RegisterConvertKernels(*t);
    RegisterLogicKernels(*t);
    RegisterIndexKernels(*t);
    RegisterOnnxMathKernels(*t);
    RegisterOnnxActivationKernels(*t);
    RegisterOnnxReduceKernels(*t);
    RegisterOnnxIndexKernels(*t);
    RegisterOnnxTensorKernels(*t);
    RegisterOnnxShapeKernels(*t);
    RegisterOnnxRandomKernels(*t);
    RegisterOnnxTextKernels(*t);
    RegisterOnnxRnnKernels(*t);
    RegisterOnnxLossKernels(*t);
    RegisterOnnxPoolKernels(*t);
    RegisterOnnxSamplingKernels(*t);
    RegisterOnnxDetectionKernels(*t);
    RegisterOnnxConvTransposeKernels(*t);
    RegisterOnnxBatchNormKernels(*t);
    RegisterOnnxNormKernels(*t);
    RegisterOnnxSignalKernels(*t);
    RegisterOnnxTrainingKernels(*t);
    RegisterOnnxQuantizeKernels(*t);
    RegisterOnnxControlFlowKernels(*t);
    RegisterOnnxSequenceKernels(*t);
    RegisterOnnxStringKernels(*t);
    return t;
  }();
  return *kTable;
}

}  // namespace egret::backend_internal
