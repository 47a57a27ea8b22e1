// Cast, QNN_Cast, Quantize and Dequantize.
#include <cmath>

#include "egret/backend/kernels/kernels_internal.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// Cast converts stored numbers: float to an integer type truncates toward
// zero, anything to Bool is "not zero", other conversions round and saturate.
// Quantized storage values are converted as the integers they are.
Result Cast(const KernelContext& c) {
  const Tensor& in = c.In(0);
  const TensorType& ot = c.outputs[0];
  Tensor out(ot);
  const bool truncate = IsFloat(in.type().dtype) && !IsFloat(ot.dtype);
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    double v = in.GetValue(i);
    out.SetValue(i, truncate && ot.dtype != DType::kBool ? std::trunc(v) : v);
  }
  std::vector<Tensor> result;
  result.push_back(std::move(out));
  return result;
}

// QNN_Cast, Quantize and Dequantize keep the real value; the output type's
// encoding does the rest (q = round(r / stepsize) + zero_offset, saturated;
// a float output rounds to its precision, an Int32 one to an integer).
Result Requantize(const KernelContext& c) {
  std::vector<Tensor> result;
  result.push_back(MakeTensor(c.outputs[0], ReadReals(c.In(0))));
  return result;
}

}  // namespace

void RegisterConvertKernels(KernelTable& t) {
  t.emplace("Cast", Cast);
  t.emplace("QNN_Cast", Requantize);
  t.emplace("Quantize", Requantize);
  t.emplace("Dequantize", Requantize);
}

}  // namespace egret::backend_internal
