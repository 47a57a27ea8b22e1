// ONNX math ops egret keeps opaque: unary ones (out[i] = f(in[i]) with ONNX's
// definition of f) and the binary Mod and BitShift (numpy broadcasting).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "absl/strings/str_format.h"
#include "egret/backend/kernels/onnx/onnx_kernels_internal.h"
#include "egret/graph/shape_inference.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

template <double (*F)(double)>
Result Map(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  std::vector<double> v = ReadReals(c.In(0));
  for (double& x : v) x = F(x);
  return OnnxResult(c, v);
}

double Sin(double x) { return std::sin(x); }
double Cos(double x) { return std::cos(x); }
double Tan(double x) { return std::tan(x); }
double Asin(double x) { return std::asin(x); }
double Acos(double x) { return std::acos(x); }
double Atan(double x) { return std::atan(x); }
double Sinh(double x) { return std::sinh(x); }
double Cosh(double x) { return std::cosh(x); }
double Asinh(double x) { return std::asinh(x); }
double Acosh(double x) { return std::acosh(x); }
double Atanh(double x) { return std::atanh(x); }
double Reciprocal(double x) { return 1.0 / x; }
double Floor(double x) { return std::floor(x); }
double Ceil(double x) { return std::ceil(x); }
double Sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }  // NaN stays NaN
double IsNaN(double x) { return std::isnan(x) ? 1.0 : 0.0; }

// Round: to the nearest integer, halves to the even one (independent of the
// floating-point environment's rounding mode); keeps the sign of a zero
// result (-0.5 -> -0), as numpy does.
double Round(double x) {
  const double f = std::floor(x);
  const double diff = x - f;
  double r;
  if (diff > 0.5) {
    r = f + 1;
  } else if (diff < 0.5) {
    r = f;
  } else {
    r = std::fmod(f, 2.0) == 0.0 ? f : f + 1;  // a tie (NaN and infinities go above)
  }
  return std::copysign(r, x);
}

Result IsInf(const KernelContext& c) {
  const OnnxArgs args(c);
  const bool pos = args.Int("detect_positive", 1) != 0;
  const bool neg = args.Int("detect_negative", 1) != 0;
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  std::vector<double> v = ReadReals(c.In(0));
  for (double& x : v) x = std::isinf(x) && (x > 0 ? pos : neg) ? 1.0 : 0.0;
  return OnnxResult(c, v);
}

// Applies f to the numpy broadcast of inputs 0 and 1 into the declared
// output.
template <typename F>
Result BinaryOp(const KernelContext& c, F f) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 2));
  EGRET_ASSIGN_OR_RETURN(Dims dims, BroadcastDims(c.InDims(0), c.InDims(1)));
  if (dims != c.outputs[0].dims) {
    return KernelError(c, absl::StrFormat("inputs broadcast to %s, the output is declared %s",
                                          TensorType(c.outputs[0].dtype, dims).ToString(),
                                          c.outputs[0].ToString()));
  }
  const std::vector<double> out =
      BroadcastBinary(ReadReals(c.In(0)), c.InDims(0), ReadReals(c.In(1)), c.InDims(1), dims, f);
  return OnnxResult(c, out);
}

// BinaryOp exactly, for plain integer inputs and output (Int32, Int64,
// UInt32, UInt64: a double merges 64-bit values above 2^53): f maps two
// 128-bit integers to one, stored saturated. Nullopt for other types.
template <typename F>
std::optional<Result> IntegerBinaryOp(const KernelContext& c, F f) {
  if (c.inputs.size() < 2 || c.outputs.size() != 1 || c.inputs[0].value == nullptr ||
      c.inputs[1].value == nullptr || !IsPlainInteger(c.In(0).type().dtype) ||
      !IsPlainInteger(c.In(1).type().dtype) || !IsPlainInteger(c.outputs[0].dtype)) {
    return std::nullopt;
  }
  absl::StatusOr<Dims> dims = BroadcastDims(c.InDims(0), c.InDims(1));
  if (!dims.ok() || *dims != c.outputs[0].dims) return std::nullopt;  // BinaryOp says why
  const std::vector<__int128> a = ReadIntegers(c.In(0)), b = ReadIntegers(c.In(1));
  std::vector<Tensor> out;
  out.push_back(MakeIntegerTensor(
      c.outputs[0], BroadcastBinaryAs<__int128>(a, c.InDims(0), b, c.InDims(1), *dims, f)));
  return Result(std::move(out));
}

// Mod: with fmod = 0 (integers only) the remainder takes the divisor's sign,
// as Python's %; with fmod = 1 it takes the dividend's, as C's fmod. An
// integer remainder by zero is 0 (ONNX leaves it undefined).
Result Mod(const KernelContext& c) {
  const OnnxArgs args(c);
  const bool fmod = args.Int("fmod", 0) != 0;
  const bool integer = IsOnnxInteger(c.outputs[0]);
  if (!integer && !fmod) return KernelError(c, "fmod must be 1 for floating-point inputs");
  if (!integer) return BinaryOp(c, [](double x, double y) { return std::fmod(x, y); });
  if (auto r = IntegerBinaryOp(c, [fmod](__int128 a, __int128 b) -> __int128 {
        if (b == 0) return 0;
        __int128 m = a % b;  // no overflow in 128 bits
        if (!fmod && m != 0 && ((m < 0) != (b < 0))) m += b;
        return m;
      })) {
    return *std::move(r);
  }
  return BinaryOp(c, [fmod](double x, double y) {
    const auto a = static_cast<int64_t>(x);
    const auto b = static_cast<int64_t>(y);
    if (b == 0) return 0.0;
    int64_t r = b == -1 ? 0 : a % b;  // a % -1 overflows for INT64_MIN
    if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
    return static_cast<double>(r);
  });
}

// BitShift on unsigned integers: bits shifted out of the element's width
// are lost, and a shift by the width or more gives 0.
Result BitShift(const KernelContext& c) {
  const OnnxArgs args(c);
  const std::string dir = args.Str("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") {
    return KernelError(c, absl::StrFormat("direction must be LEFT or RIGHT, not '%s'", dir));
  }
  const TensorType& ot = c.outputs[0];
  if (!IsOnnxInteger(ot)) return KernelError(c, "needs an unsigned integer type");
  const int bits = ElementSize(ot.dtype) * 8;
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const bool left = dir == "LEFT";
  if (auto r = IntegerBinaryOp(c, [bits, mask, left](__int128 x, __int128 y) -> __int128 {
        if (y < 0 || y >= bits) return 0;
        const auto v = static_cast<uint64_t>(x);
        const auto s = static_cast<int>(y);
        return left ? (v << s) & mask : v >> s;
      })) {
    return *std::move(r);
  }
  return BinaryOp(c, [bits, mask, left](double x, double y) {
    if (y < 0 || y >= bits) return 0.0;
    const auto v = static_cast<uint64_t>(x);
    const auto s = static_cast<int>(y);
    return static_cast<double>(left ? (v << s) & mask : v >> s);
  });
}

}  // namespace

void RegisterOnnxMathKernels(KernelTable& t) {
  t.emplace("onnx.Sin", Map<Sin>);
  t.emplace("onnx.Cos", Map<Cos>);
  t.emplace("onnx.Tan", Map<Tan>);
  t.emplace("onnx.Asin", Map<Asin>);
  t.emplace("onnx.Acos", Map<Acos>);
  t.emplace("onnx.Atan", Map<Atan>);
  t.emplace("onnx.Sinh", Map<Sinh>);
  t.emplace("onnx.Cosh", Map<Cosh>);
  t.emplace("onnx.Asinh", Map<Asinh>);
  t.emplace("onnx.Acosh", Map<Acosh>);
  t.emplace("onnx.Atanh", Map<Atanh>);
  t.emplace("onnx.Reciprocal", Map<Reciprocal>);
  t.emplace("onnx.Floor", Map<Floor>);
  t.emplace("onnx.Ceil", Map<Ceil>);
  t.emplace("onnx.Round", Map<Round>);
  t.emplace("onnx.Sign", Map<Sign>);
  t.emplace("onnx.IsNaN", Map<IsNaN>);
  t.emplace("onnx.IsInf", IsInf);
  t.emplace("onnx.Mod", Mod);
  t.emplace("onnx.BitShift", BitShift);
}

}  // namespace egret::backend_internal
