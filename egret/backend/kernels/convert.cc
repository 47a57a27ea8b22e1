// Cast, QNN_Cast, Quantize and Dequantize.
#include <algorithm>
#include <cmath>

#include "egret/backend/kernels/dnnl_support.h"
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
  std::vector<Tensor> result;
  // The same dtype: the stored values themselves. Float16 <-> Float32: as
  // below (a float widened exactly; a float narrowed as SetValue does).
  if (in.type().dtype == ot.dtype && IsConcrete(ot.dtype)) {
    const absl::Span<const uint8_t> b = in.bytes();
    result.push_back(*Tensor::FromBytes(ot, std::vector<uint8_t>(b.begin(), b.end())));
    return result;
  }
  if ((in.type().dtype == DType::kFloat16 && ot.dtype == DType::kFloat32) ||
      (in.type().dtype == DType::kFloat32 && ot.dtype == DType::kFloat16)) {
    const FloatsIn x(in);
    FloatsOut y(ot);
    std::copy(x.data(), x.data() + x.size(), y.data());
    result.push_back(y.Finish());
    return result;
  }
  Tensor out(ot);
  const bool truncate = IsFloat(in.type().dtype) && !IsFloat(ot.dtype);
  for (int64_t i = 0; i < in.num_elements(); ++i) {
    double v = in.GetValue(i);
    out.SetValue(i, truncate && ot.dtype != DType::kBool ? std::trunc(v) : v);
  }
  result.push_back(std::move(out));
  return result;
}

// QNN_Cast, Quantize and Dequantize keep the real value; the output type's
// encoding does the rest (q = round(r / stepsize) + zero_offset, saturated;
// a float output rounds to its precision, an Int32 one to an integer).
Result Requantize(const KernelContext& c) {
  std::vector<Tensor> result;
  const TensorType& ot = c.outputs[0];
  // Through floats when that is exact: a float or quantized value read as
  // float (ReadRealsAs rounds its real value once), stored in a float type
  // (a Float16 from that float, as MakeTensor does) or quantized (SetReal
  // divides the value rounded to float).
  if (FloatComputable(*c.inputs[0].type) &&
      (ot.dtype == DType::kFloat32 || ot.dtype == DType::kFloat16 || IsQuantized(ot.dtype))) {
    const FloatsIn x(c.In(0));
    if (IsQuantized(ot.dtype)) {
      Tensor out(ot);
      if (QuantizeFloats(x.span(), out)) {
        result.push_back(std::move(out));
        return result;
      }
    } else {
      FloatsOut y(ot);
      std::copy(x.data(), x.data() + x.size(), y.data());
      result.push_back(y.Finish());
      return result;
    }
  }
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
