// ONNX math ops egret keeps opaque: unary ones (out[i] = f(in[i]) with ONNX's
// definition of f), the binary Mod, BitShift and integer Div (numpy
// broadcasting) and Einsum by its definition.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
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

// Div, which the importer keeps opaque on integer types (egret's
// ElementWiseDivide is real division): the quotient truncated toward zero, as
// ONNX Runtime and C compute it. An integer division by zero is 0 (ONNX leaves
// it undefined). On floating-point types, real division.
Result Div(const KernelContext& c) {
  if (!IsOnnxInteger(c.outputs[0])) return BinaryOp(c, [](double x, double y) { return x / y; });
  if (auto r = IntegerBinaryOp(c, [](__int128 a, __int128 b) -> __int128 {
        return b == 0 ? 0 : a / b;  // C's truncation; no overflow in 128 bits
      })) {
    return *std::move(r);
  }
  return BinaryOp(c, [](double x, double y) {
    const auto a = static_cast<int64_t>(x);
    const auto b = static_cast<int64_t>(y);
    if (b == 0) return 0.0;
    return static_cast<double>(b == -1 ? -a : a / b);  // a / -1 overflows for INT64_MIN
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

// Einsum by its definition, for the forms the importer keeps opaque
// (diagonals such as "...ii->...i", three or more operands): every
// combination of label values, the operands' elements multiplied and summed
// into the output's, in double. "..." stands for the same broadcast dims in
// every operand (aligned at the right); an equation without "->" outputs
// the ellipsis dims, then the labels used once, in alphabetical order.
Result Einsum(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  std::string eq;
  for (char ch : OnnxArgs(c).Str("equation", "")) {
    if (ch != ' ') eq.push_back(ch);
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms = absl::StrSplit(lhs, ',');
  if (terms.size() != c.inputs.size()) {
    return KernelError(c, absl::StrFormat("equation '%s' has %d operands, the node %d", eq,
                                          terms.size(), c.inputs.size()));
  }
  // Labels: 'a'..'z', 'A'..'Z' as themselves, ellipsis dim k (from the
  // right) as 256 + k.
  constexpr int kEllipsis = 256;
  int ellipsis_rank = 0;
  std::vector<std::vector<int>> labels(terms.size());
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string& t = terms[i];
    const size_t dots = t.find("...");
    const int letters = static_cast<int>(t.size()) - (dots == std::string::npos ? 0 : 3);
    const int rank = c.In(static_cast<int>(i)).type().rank();
    const int er = dots == std::string::npos ? 0 : rank - letters;
    if (er < 0 || (dots == std::string::npos && letters != rank)) {
      return KernelError(
          c, absl::StrFormat("operand %d's subscripts '%s' do not fit rank %d", i, t, rank));
    }
    ellipsis_rank = std::max(ellipsis_rank, er);
    for (size_t k = 0; k < t.size(); ++k) {
      if (k == dots) {
        for (int e = er - 1; e >= 0; --e) labels[i].push_back(kEllipsis + e);
        k += 2;
        continue;
      }
      if (!std::isalpha(static_cast<unsigned char>(t[k]))) {
        return KernelError(c, absl::StrFormat("bad subscript '%c' in '%s'", t[k], eq));
      }
      labels[i].push_back(static_cast<unsigned char>(t[k]));
    }
  }
  std::map<int, int64_t> size;  // label -> dim (broadcast: a 1 gives way)
  std::map<int, int> uses;
  for (size_t i = 0; i < labels.size(); ++i) {
    const Dims& d = c.InDims(static_cast<int>(i));
    for (size_t k = 0; k < labels[i].size(); ++k) {
      auto [it, fresh] = size.emplace(labels[i][k], d[k]);
      if (!fresh && it->second != d[k]) {
        if (it->second != 1 && d[k] != 1) {
          return KernelError(
              c, absl::StrFormat("subscript dims %d and %d differ in '%s'", it->second, d[k], eq));
        }
        it->second = std::max(it->second, d[k]);
      }
      ++uses[labels[i][k]];
    }
  }
  std::vector<int> out;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    for (size_t k = 0; k < rhs.size(); ++k) {
      if (rhs.compare(k, 3, "...") == 0) {
        for (int e = ellipsis_rank - 1; e >= 0; --e) out.push_back(kEllipsis + e);
        k += 2;
      } else if (size.count(static_cast<unsigned char>(rhs[k])) != 0) {
        out.push_back(static_cast<unsigned char>(rhs[k]));
      } else {
        return KernelError(c, absl::StrFormat("output subscript '%c' is no operand's", rhs[k]));
      }
    }
  } else {
    for (int e = ellipsis_rank - 1; e >= 0; --e) out.push_back(kEllipsis + e);
    for (const auto& [label, n] : uses) {
      if (label < kEllipsis && n == 1) out.push_back(label);
    }
  }
  // Every label: the output's, then the summed ones.
  std::vector<int> all = out;
  for (const auto& [label, n] : size) {
    if (std::find(all.begin(), all.end(), label) == all.end()) all.push_back(label);
  }
  Dims out_dims;
  for (int label : out) out_dims.push_back(size.at(label));
  EGRET_RETURN_IF_ERROR(CheckOnnxOutput(c, 0, out_dims));
  // Per operand, its stride for each label of `all` (0 where it lacks the
  // label or broadcasts it).
  std::vector<std::vector<double>> values;
  std::vector<std::vector<int64_t>> stride(labels.size(), std::vector<int64_t>(all.size(), 0));
  for (size_t i = 0; i < labels.size(); ++i) {
    values.push_back(ReadReals(c.In(static_cast<int>(i))));
    const Dims& d = c.InDims(static_cast<int>(i));
    int64_t s = 1;
    for (int k = static_cast<int>(labels[i].size()) - 1; k >= 0; --k) {
      const size_t a = std::find(all.begin(), all.end(), labels[i][k]) - all.begin();
      if (d[k] != 1) stride[i][a] += s;  // a repeated label: the diagonal
      s *= d[k];
    }
  }
  int64_t n_out = 1, n_all = 1;
  for (size_t a = 0; a < all.size(); ++a) (a < out.size() ? n_out : n_all) *= size.at(all[a]);
  std::vector<double> result(static_cast<size_t>(n_out), 0.0);
  std::vector<int64_t> idx(all.size(), 0);
  for (int64_t o = 0; o < n_out * n_all; ++o) {
    double p = 1;
    for (size_t i = 0; i < labels.size(); ++i) {
      int64_t off = 0;
      for (size_t a = 0; a < all.size(); ++a) off += idx[a] * stride[i][a];
      p *= values[i][off];
    }
    int64_t r = 0;
    for (size_t a = 0; a < out.size(); ++a) r = r * size.at(all[a]) + idx[a];
    result[r] += p;
    for (int a = static_cast<int>(all.size()) - 1; a >= 0; --a) {
      if (++idx[a] < size.at(all[a])) break;
      idx[a] = 0;
    }
  }
  return OnnxResult(c, result);
}

}  // namespace

void RegisterOnnxMathKernels(KernelTable& t) {
  t.emplace("onnx.Einsum", Einsum);
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
  t.emplace("onnx.Div", Div);
  t.emplace("onnx.BitShift", BitShift);
}

}  // namespace egret::backend_internal
