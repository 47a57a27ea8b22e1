// String tensors (DType String, graph/tensor.h): Cast to and from STRING
// (CastLike shares it) and StringNormalizer.
//
// Numbers are written as ONNX's reference writes them: a float as the
// shortest decimal that reads back as the same value of its type (at most 9
// significant digits for Float32, Float16 and BFloat16, 17 for Float64, in
// printf's %g form: "0.9767611", "1e-05"), NaN as "NaN" and infinities as
// "INF" / "-INF"; integers in decimal; Bool as "True" / "False". Text is
// read as a number by strtod (so "NaN", "INF", "+INF", "-INF", "1e3" and
// hexadecimal floats), the whole string or it is an error, then converted to
// the target type as a computed value is (MakeOnnxTensor: an integer type
// truncates toward zero).
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// The shortest %g text of `v` that reads back as `v` in a float
// (`single`) or a double.
std::string FloatText(double v, bool single) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  const int max_digits = single ? 9 : 17;
  char buf[64];
  for (int p = 1; p <= max_digits; ++p) {
    std::snprintf(buf, sizeof(buf), "%.*g", p, v);
    const double back = std::strtod(buf, nullptr);
    if (single ? static_cast<float>(back) == static_cast<float>(v) : back == v) break;
  }
  return buf;
}

// Element i of numeric tensor `t` as text.
std::string ElementText(const Tensor& t, int64_t i) {
  const DType d = t.type().dtype;
  if (IsFloat(d)) return FloatText(t.GetReal(i), d != DType::kFloat64);
  if (d == DType::kBool) return t.GetValue(i) != 0 ? "True" : "False";
  if (d == DType::kInt64 || d == DType::kUInt64) {
    // Exact: read the stored 64 bits.
    const uint8_t* p = t.bytes().data() + i * 8;
    if (d == DType::kUInt64) {
      uint64_t u;
      std::memcpy(&u, p, 8);
      return absl::StrFormat("%u", u);
    }
    int64_t s;
    std::memcpy(&s, p, 8);
    return absl::StrFormat("%d", s);
  }
  return absl::StrFormat("%.0f", t.GetReal(i));  // the narrower integers, exactly
}

}  // namespace

Result CastStrings(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const Tensor& x = c.In(0);
  const TensorType& out = c.outputs[0];
  if (!x.type().is_tensor() || !out.is_tensor()) return KernelError(c, "casts tensors only");
  if (out.dims != x.type().dims) {
    return KernelError(c, absl::StrFormat("output is declared %s for an input %s", out.ToString(),
                                          x.type().ToString()));
  }
  const int64_t n = x.num_elements();
  if (IsString(out.dtype)) {
    std::vector<std::string> text;
    text.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      text.push_back(IsString(x.type().dtype) ? x.strings()[i] : ElementText(x, i));
    }
    EGRET_ASSIGN_OR_RETURN(Tensor t, Tensor::FromStrings(out, std::move(text)));
    std::vector<Tensor> r;
    r.push_back(std::move(t));
    return r;
  }
  std::vector<double> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const std::string& s = x.strings()[i];
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) {
      return KernelError(c, absl::StrFormat("element %d, \"%s\", is not a number", i,
                                            absl::CHexEscape(s.substr(0, 64))));
    }
    values[i] = v;
  }
  return OnnxResult(c, values);
}

namespace {

Result Cast(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  if (IsString(c.In(0).type().dtype) || IsString(c.outputs[0].dtype)) return CastStrings(c);
  return OnnxResult(c, ReadReals(c.In(0)));
}

// StringNormalizer: X is [C] or [1, C]; the elements equal to a stopword
// (compared as they are, or ASCII-lowercased both sides unless
// is_case_sensitive) are dropped, and the rest change case (ASCII only:
// other bytes are kept; the locale attribute is not read) as
// case_change_action says (NONE, LOWER, UPPER). When nothing is left the
// output is one empty string, [1] or [1, 1].
Result StringNormalizer(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs a(c);
  const Tensor& x = c.In(0);
  const Dims& d = x.type().dims;
  if (!IsString(x.type().dtype) || !x.type().is_tensor() ||
      !(d.size() == 1 || (d.size() == 2 && d[0] == 1))) {
    return KernelError(c, absl::StrFormat("input must be a String tensor [C] or [1, C], got %s",
                                          x.type().ToString()));
  }
  const std::string action = a.Str("case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER") {
    return KernelError(c, absl::StrFormat("unknown case_change_action '%s'", action));
  }
  const bool sensitive = a.Int("is_case_sensitive", 0) != 0;
  absl::flat_hash_set<std::string> stop;
  for (const std::string& w : a.Strings("stopwords").value_or(std::vector<std::string>())) {
    stop.insert(sensitive ? w : absl::AsciiStrToLower(w));
  }
  std::vector<std::string> kept;
  for (const std::string& s : x.strings()) {
    if (stop.contains(sensitive ? s : absl::AsciiStrToLower(s))) continue;
    kept.push_back(action == "LOWER"   ? absl::AsciiStrToLower(s)
                   : action == "UPPER" ? absl::AsciiStrToUpper(s)
                                       : s);
  }
  if (kept.empty()) kept.emplace_back();
  Dims out_dims = d;
  out_dims.back() = static_cast<int64_t>(kept.size());
  if (c.outputs.empty() || c.outputs[0].dims != out_dims || !IsString(c.outputs[0].dtype)) {
    return KernelError(
        c, absl::StrFormat("output is declared %s but keeps %d strings",
                           c.outputs.empty() ? "nothing" : c.outputs[0].ToString(), kept.size()));
  }
  EGRET_ASSIGN_OR_RETURN(Tensor t, Tensor::FromStrings(c.outputs[0], std::move(kept)));
  std::vector<Tensor> r;
  r.push_back(std::move(t));
  return r;
}

}  // namespace

bool TakesStrings(std::string_view op) {
  return op == "onnx.Cast" || op == "onnx.CastLike" || op == "onnx.StringNormalizer";
}

void RegisterOnnxStringKernels(KernelTable& t) {
  t.emplace("onnx.Cast", Cast);
  t.emplace("onnx.StringNormalizer", StringNormalizer);
}

}  // namespace egret::backend_internal
