// Binary elementwise ops with numpy broadcasting.
#include <algorithm>
#include <cmath>
#include <optional>

#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/parallel.h"
#include "egret/executor/kernels/simd.h"

namespace egret::backend_internal {
namespace {

// Whether the float path computes the op: every input a Float32 or
// Float16 value, or a quantized one read through a Dequantize to Float32
// (KernelContext::through: read as that Dequantize's floats); the output
// Float32 or Float16, or stored through a Quantize (KernelContext::
// stored_through: the floats stored as that Quantize would).
bool FloatPath(const KernelContext& c) {
  auto is_float = [](DType t) { return t == DType::kFloat32 || t == DType::kFloat16; };
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const TensorType* t = c.inputs[i].type;
    if (t == nullptr || !(is_float(t->dtype) || (c.through >> i & 1) != 0)) return false;
  }
  return c.outputs.size() == 1 && (is_float(c.outputs[0].dtype) || c.stored_through);
}

// The float path for operands of the output's own dims, a chunk at a time:
// each chunk of an operand read as floats (FloatsAt: a quantized one
// dequantized into a buffer in cache), f applied, the chunk stored (a
// quantized output quantized by QuantizeFloatsInto). The same bits as
// dequantizing, computing and quantizing whole tensors, without their
// float copies in memory. Nullopt when a type is not of that form
// (Float16, per-axis encodings).
template <typename F>
std::optional<Tensor> ChunkedBinary(const KernelContext& c, F f) {
  const TensorType& ot = c.outputs[0];
  const Dims& od = ot.dims;
  if (c.InDims(0) != od || c.InDims(1) != od) return std::nullopt;
  const auto chunkable = [](const TensorType& t) {
    return t.dtype == DType::kFloat32 || (IsQuantized(t.dtype) && !t.per_axis);
  };
  if (!chunkable(c.In(0).type()) || !chunkable(c.In(1).type()) || !chunkable(ot)) {
    return std::nullopt;
  }
  const bool float_out = ot.dtype == DType::kFloat32;
  // The operands' types and bytes, taken before an operand's storage may
  // move into the output (the storage itself does not move).
  const TensorType at = c.In(0).type(), bt = c.In(1).type();
  const uint8_t* const a = c.In(0).bytes().data();
  const uint8_t* const b = c.In(1).bytes().data();
  // In place over a Float32 operand the executor gives up: each element is
  // written after its own reads.
  Tensor* reuse = nullptr;
  for (int i = 0; i < 2 && float_out && reuse == nullptr; ++i) {
    Tensor* r = c.Reusable(i);
    if (r != nullptr && r->type().byte_size() == ot.byte_size()) reuse = r;
  }
  std::optional<Tensor> out;
  if (reuse != nullptr) {
    out.emplace(std::move(*reuse));
    out->Retype(ot);
  } else {
    out.emplace(Tensor::Uninitialized(ot));  // every element is stored below
  }
  uint8_t* const bytes = out->mutable_bytes().data();
  const int64_t esize = ElementSize(ot.dtype);
  constexpr int64_t kChunk = 1024;
  ParallelFor(ot.num_elements(), kElementwiseGrain, [&](int64_t first, int64_t last) {
    float a_chunk[kChunk], b_chunk[kChunk], o_chunk[kChunk];
    for (int64_t start = first; start < last; start += kChunk) {
      const int64_t m = std::min(kChunk, last - start);
      const float* const x = FloatsAt(at, a, start, m, a_chunk);
      const float* const y = FloatsAt(bt, b, start, m, b_chunk);
      float* const o = float_out ? reinterpret_cast<float*>(bytes) + start : o_chunk;
      WithWidestVectors([=]() __attribute__((always_inline)) {
        for (int64_t i = 0; i < m; ++i) o[i] = f(x[i], y[i]);
      });
      if (!float_out) QuantizeFloatsInto(o, m, ot, bytes + start * esize);
    }
  });
  return out;
}

// f is a generic lambda: called with floats when the operation is exact in
// float (exact_in_float) and FloatPath holds, with doubles otherwise.
template <typename F>
absl::StatusOr<std::vector<Tensor>> Binary(const KernelContext& c, F f,
                                           bool exact_in_float = true) {
  std::vector<Tensor> result;
  if (exact_in_float && FloatPath(c)) {
    if (std::optional<Tensor> t = ChunkedBinary(c, f)) {
      result.push_back(*std::move(t));
      return result;
    }
    const FloatsIn a(c.In(0));
    const FloatsIn b(c.In(1));
    // In place over an operand of the output's shape the executor gives up.
    const Dims& od = c.outputs[0].dims;
    Tensor* reuse = c.InDims(0) == od ? c.Reusable(0) : nullptr;
    if (reuse == nullptr && c.InDims(1) == od) reuse = c.Reusable(1);
    FloatsOut out(c.outputs[0], reuse);
    BroadcastBinaryInto<float>(a.data(), c.InDims(0), b.data(), c.InDims(1), od, out.data(), f);
    result.push_back(out.Finish());
    return result;
  }
  const std::vector<double> out = BroadcastBinary(
      ReadReals(c.In(0)), c.InDims(0), ReadReals(c.In(1)), c.InDims(1), c.outputs[0].dims, f);
  result.push_back(MakeTensor(c.outputs[0], out));
  return result;
}

absl::StatusOr<std::vector<Tensor>> Add(const KernelContext& c) {
  return Binary(c, [](auto x, auto y) { return x + y; });
}
absl::StatusOr<std::vector<Tensor>> Subtract(const KernelContext& c) {
  return Binary(c, [](auto x, auto y) { return x - y; });
}
absl::StatusOr<std::vector<Tensor>> Multiply(const KernelContext& c) {
  return Binary(c, [](auto x, auto y) { return x * y; });
}
absl::StatusOr<std::vector<Tensor>> Divide(const KernelContext& c) {
  // Integer division truncates toward zero, as in C and ONNX.
  if (IsPlainInteger(c.outputs[0].dtype)) {
    return Binary(c, [](double x, double y) { return y == 0 ? 0.0 : std::trunc(x / y); });
  }
  return Binary(c, [](auto x, auto y) { return x / y; });
}
// Maximum and Minimum of plain integers select one operand exactly (through
// 128-bit integers: a double merges Int64 and UInt64 values above 2^53).
template <typename Pick>
std::optional<std::vector<Tensor>> SelectIntegers(const KernelContext& c, Pick pick) {
  if (c.inputs.size() != 2 || c.outputs.size() != 1 || !IsPlainInteger(c.outputs[0].dtype) ||
      !IsPlainInteger(c.In(0).type().dtype) || !IsPlainInteger(c.In(1).type().dtype)) {
    return std::nullopt;
  }
  const std::vector<__int128> a = ReadIntegers(c.In(0)), b = ReadIntegers(c.In(1));
  const std::vector<__int128> out =
      BroadcastBinaryAs<__int128>(a, c.InDims(0), b, c.InDims(1), c.outputs[0].dims, pick);
  std::vector<Tensor> result;
  result.push_back(MakeIntegerTensor(c.outputs[0], out));
  return result;
}

absl::StatusOr<std::vector<Tensor>> Maximum(const KernelContext& c) {
  if (auto r = SelectIntegers(c, [](__int128 x, __int128 y) { return x > y ? x : y; })) {
    return *std::move(r);
  }
  return Binary(c, [](auto x, auto y) { return std::isnan(x) || x > y ? x : y; });
}
absl::StatusOr<std::vector<Tensor>> Minimum(const KernelContext& c) {
  if (auto r = SelectIntegers(c, [](__int128 x, __int128 y) { return x < y ? x : y; })) {
    return *std::move(r);
  }
  return Binary(c, [](auto x, auto y) { return std::isnan(x) || x < y ? x : y; });
}
absl::StatusOr<std::vector<Tensor>> Power(const KernelContext& c) {
  return Binary(
      c, [](double x, double y) { return std::pow(x, y); }, /*exact_in_float=*/false);
}

}  // namespace

void RegisterElementwiseKernels(KernelTable& t) {
  t.emplace("ElementWiseAdd", Add);
  t.emplace("ElementWiseSubtract", Subtract);
  t.emplace("ElementWiseMultiply", Multiply);
  t.emplace("ElementWiseDivide", Divide);
  t.emplace("ElementWiseMaximum", Maximum);
  t.emplace("ElementWiseMinimum", Minimum);
  t.emplace("ElementWisePower", Power);
}

}  // namespace egret::backend_internal
