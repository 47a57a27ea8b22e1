// Value parsing for the graph JSON reader: the Reader members that read one
// JSON value into egret's form and check it, with a message at its pointer
// when it is wrong. Scalars (GetInt, GetString, GetDouble, where "nan",
// "inf" and "-inf" stand for the non-finite numbers), tensor types and their
// per-axis encodings, attributes (a subgraph attribute is read by a Reader of
// its own), graph options, provenance, and one element of constant data in
// its dtype's storage form. The structure around them is in
// graph_json_reader.cc.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/graph_json_internal.h"
#include "egret/support/status_macros.h"

namespace egret::graph_json_internal {

absl::Status Reader::CheckMembers(const Json& obj, const std::string& ptr,
                                  std::initializer_list<std::string_view> allowed) const {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end()) {
      return Fail(Child(ptr, it.key()), absl::StrCat("unknown member ", Quote(it.key())));
    }
  }
  return absl::OkStatus();
}

absl::Status Reader::GetInt(const Json& j, const std::string& ptr, int64_t* out) const {
  // An integer literal beyond uint64 (99999999999999999999) reaches here as
  // a float; say so rather than "expected an integer".
  if (j.is_number_float() && std::abs(j.get<double>()) >= 0x1p63 &&
      std::trunc(j.get<double>()) == j.get<double>()) {
    return Fail(ptr, "integer out of range");
  }
  EGRET_RETURN_IF_ERROR(Expect(j, ptr, j.is_number_integer(), "an integer"));
  if (j.is_number_unsigned() &&
      j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Fail(ptr, "integer out of range");
  }
  *out = j.get<int64_t>();
  return absl::OkStatus();
}

absl::Status Reader::GetString(const Json& j, const std::string& ptr, std::string* out) const {
  EGRET_RETURN_IF_ERROR(Expect(j, ptr, j.is_string(), "a string"));
  *out = j.get<std::string>();
  return absl::OkStatus();
}

// A number, or one of the strings "nan", "inf", "-inf" (JSON has no literal
// for non-finite numbers).
absl::Status Reader::GetDouble(const Json& j, const std::string& ptr, double* out) const {
  if (j.is_number()) {
    *out = j.get<double>();
    return absl::OkStatus();
  }
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "nan") {
      *out = std::numeric_limits<double>::quiet_NaN();
      return absl::OkStatus();
    }
    if (s == "inf" || s == "+inf" || s == "-inf") {
      *out = (s == "-inf" ? -1 : 1) * std::numeric_limits<double>::infinity();
      return absl::OkStatus();
    }
    return Fail(ptr,
                absl::StrCat("expected a number, \"nan\", \"inf\" or \"-inf\", got ", Quote(s)));
  }
  return Expect(j, ptr, false, "a number");
}

absl::StatusOr<TensorType> Reader::ReadType(const Json& j, const std::string& ptr) const {
  EGRET_RETURN_IF_ERROR(Expect(j, ptr, j.is_object(), "an object (a tensor type)"));
  EGRET_RETURN_IF_ERROR(
      CheckMembers(j, ptr, {"kind", "dtype", "shape", "zero_offset", "stepsize", "per_axis"}));
  TensorType type;
  if (auto k = j.find("kind"); k != j.end()) {
    std::string kind;
    EGRET_RETURN_IF_ERROR(GetString(*k, Child(ptr, "kind"), &kind));
    std::optional<ValueKind> parsed = ParseValueKind(kind);
    if (!parsed.has_value()) {
      return Fail(Child(ptr, "kind"),
                  absl::StrCat("unknown kind ", Quote(kind),
                               " (expected Tensor, Sequence, OptionalTensor or OptionalSequence)"));
    }
    type.kind = *parsed;
  }
  auto dt = j.find("dtype");
  if (dt == j.end()) return Fail(ptr, "missing member 'dtype'");
  std::string name;
  EGRET_RETURN_IF_ERROR(GetString(*dt, Child(ptr, "dtype"), &name));
  std::optional<DType> parsed = ParseDType(name);
  if (!parsed.has_value() || *parsed == DType::kUnknown) {
    return Fail(
        Child(ptr, "dtype"),
        absl::StrCat("unknown dtype ", Quote(name),
                     " (expected QUInt8, QUInt16, QInt16, Float32, Int32, QInt32, QInt8, "
                     "Float16, Int64, Bool, Float64, UInt32, UInt64, BFloat16, None or Multi)"));
  }
  type.dtype = *parsed;
  if (auto sh = j.find("shape"); sh != j.end()) {
    const std::string sptr = Child(ptr, "shape");
    EGRET_RETURN_IF_ERROR(Expect(*sh, sptr, sh->is_array(), "an array of dims"));
    if (sh->size() > static_cast<size_t>(kMaxRank)) {
      return Fail(sptr, absl::StrCat("rank ", sh->size(), " exceeds the maximum of ", kMaxRank));
    }
    for (size_t i = 0; i < sh->size(); ++i) {
      int64_t d = 0;
      EGRET_RETURN_IF_ERROR(GetInt((*sh)[i], Child(sptr, i), &d));
      if (d < 0) return Fail(Child(sptr, i), absl::StrCat("negative dim ", d));
      if (d > kMaxElements) {
        return Fail(Child(sptr, i), absl::StrCat("dim ", d, " is above ", kMaxElementsText));
      }
      type.dims.push_back(d);
    }
    if (!ElementCount(type.dims).has_value()) {
      return Fail(sptr, absl::StrCat("shape has more than ", kMaxElementsText, " elements"));
    }
  }
  if (auto z = j.find("zero_offset"); z != j.end()) {
    int64_t v = 0;
    EGRET_RETURN_IF_ERROR(GetInt(*z, Child(ptr, "zero_offset"), &v));
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      return Fail(Child(ptr, "zero_offset"), absl::StrCat("zero_offset ", v, " is not an int32"));
    }
    type.zero_offset = static_cast<int32_t>(v);
  }
  if (auto s = j.find("stepsize"); s != j.end()) {
    const std::string sptr = Child(ptr, "stepsize");
    EGRET_RETURN_IF_ERROR(Expect(*s, sptr, s->is_number(), "a number"));
    double v = s->get<double>();
    if (!(std::abs(v) <= std::numeric_limits<float>::max())) {
      return Fail(sptr, "stepsize is out of the range of a float");
    }
    type.stepsize = static_cast<float>(v);
  }
  if (auto q = j.find("per_axis"); q != j.end()) {
    EGRET_RETURN_IF_ERROR(ReadPerAxis(*q, Child(ptr, "per_axis"), &type));
  }
  if (!type.is_tensor() &&
      (!type.dims.empty() || type.per_axis || type.zero_offset != 0 || type.stepsize != 1.0f)) {
    return Fail(ptr, absl::StrCat("a ", std::string(ValueKindName(type.kind)),
                                  " type has no shape and no encoding"));
  }
  return type;
}

absl::Status Reader::ReadPerAxis(const Json& j, const std::string& ptr, TensorType* type) const {
  EGRET_RETURN_IF_ERROR(Expect(j, ptr, j.is_object(), "an object (a per-axis encoding)"));
  EGRET_RETURN_IF_ERROR(CheckMembers(j, ptr, {"axis", "zero_offsets", "stepsizes", "block_size"}));
  for (const char* key : {"axis", "zero_offsets", "stepsizes"}) {
    if (!j.contains(key)) return Fail(ptr, absl::StrCat("missing member '", key, "'"));
  }
  int64_t axis = 0;
  EGRET_RETURN_IF_ERROR(GetInt(j.at("axis"), Child(ptr, "axis"), &axis));
  std::vector<float> steps;
  std::vector<int32_t> zeros;
  const std::string sptr = Child(ptr, "stepsizes"), zptr = Child(ptr, "zero_offsets");
  const Json& sj = j.at("stepsizes");
  const Json& zj = j.at("zero_offsets");
  EGRET_RETURN_IF_ERROR(Expect(sj, sptr, sj.is_array(), "an array of numbers"));
  EGRET_RETURN_IF_ERROR(Expect(zj, zptr, zj.is_array(), "an array of integers"));
  for (size_t i = 0; i < sj.size(); ++i) {
    EGRET_RETURN_IF_ERROR(Expect(sj[i], Child(sptr, i), sj[i].is_number(), "a number"));
    steps.push_back(static_cast<float>(std::clamp(sj[i].get<double>(), -1e38, 1e38)));
  }
  for (size_t i = 0; i < zj.size(); ++i) {
    int64_t z = 0;
    EGRET_RETURN_IF_ERROR(GetInt(zj[i], Child(zptr, i), &z));
    zeros.push_back(static_cast<int32_t>(std::clamp<int64_t>(z, INT32_MIN, INT32_MAX)));
  }
  int64_t block_size = 0;
  if (auto b = j.find("block_size"); b != j.end()) {
    EGRET_RETURN_IF_ERROR(GetInt(*b, Child(ptr, "block_size"), &block_size));
    if (block_size <= 0) return Fail(Child(ptr, "block_size"), "must be positive");
  }
  const int a = static_cast<int>(std::clamp<int64_t>(axis, -1, kMaxRank));
  absl::Status st = type->SetPerAxis(a, std::move(steps), std::move(zeros), block_size);
  if (!st.ok()) return Fail(ptr, std::string(st.message()));
  return absl::OkStatus();
}

absl::Status Reader::ReadProvenance(const Json& j, const std::string& ptr, Provenance* out) const {
  EGRET_RETURN_IF_ERROR(Expect(j, ptr, j.is_object(), "an object"));
  EGRET_RETURN_IF_ERROR(CheckMembers(j, ptr, {"from", "rules"}));
  std::vector<std::string> from, rules;
  for (auto [key, list] : {std::pair{"from", &from}, std::pair{"rules", &rules}}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    const std::string lptr = Child(ptr, key);
    EGRET_RETURN_IF_ERROR(Expect(*it, lptr, it->is_array(), "an array of strings"));
    list->resize(it->size());
    for (size_t i = 0; i < it->size(); ++i) {
      EGRET_RETURN_IF_ERROR(GetString((*it)[i], Child(lptr, i), &(*list)[i]));
    }
  }
  *out = Provenance(std::move(from), std::move(rules));
  return absl::OkStatus();
}

absl::StatusOr<AttrValue> Reader::ReadAttr(const Json& j, const std::string& ptr) const {
  if (j.is_number_integer()) {
    int64_t v = 0;
    EGRET_RETURN_IF_ERROR(GetInt(j, ptr, &v));
    return AttrValue(v);
  }
  if (j.is_number_float()) return AttrValue(j.get<double>());
  if (j.is_string()) return AttrValue(j.get<std::string>());
  if (j.is_array()) {
    bool all_int =
        std::all_of(j.begin(), j.end(), [](const Json& e) { return e.is_number_integer(); });
    if (all_int) {
      std::vector<int64_t> v(j.size());
      for (size_t i = 0; i < j.size(); ++i)
        EGRET_RETURN_IF_ERROR(GetInt(j[i], Child(ptr, i), &v[i]));
      return AttrValue(std::move(v));
    }
    std::vector<double> v(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      EGRET_RETURN_IF_ERROR(Expect(j[i], Child(ptr, i), j[i].is_number(), "a number"));
      v[i] = j[i].get<double>();
    }
    return AttrValue(std::move(v));
  }
  if (j.is_object() && j.size() == 1) {
    auto it = j.begin();
    const std::string vptr = Child(ptr, it.key());
    if (it.key() == "graph") {
      // A subgraph: read by a reader of its own (its node names are its own
      // scope), with pointers into the same text.
      const Json& gj = it.value();
      EGRET_RETURN_IF_ERROR(Expect(gj, vptr, gj.is_object(), "an object"));
      EGRET_RETURN_IF_ERROR(CheckMembers(gj, vptr, {"name", "nodes", "inputs", "outputs"}));
      Reader sub(text_, file_, sidecar_dir_, max_file_bytes_);
      auto g = std::make_shared<Graph>();
      if (auto nm = gj.find("name"); nm != gj.end()) {
        std::string name;
        EGRET_RETURN_IF_ERROR(GetString(*nm, Child(vptr, "name"), &name));
        g->set_name(std::move(name));
      }
      EGRET_RETURN_IF_ERROR(sub.ReadBody(gj, vptr, g.get()));
      return AttrValue(GraphPtr(std::move(g)));
    }
    if (it.key() == "float") {
      double v = 0;
      EGRET_RETURN_IF_ERROR(GetDouble(it.value(), vptr, &v));
      return AttrValue(v);
    }
    if (it.key() == "floats" || it.key() == "ints") {
      const Json& a = it.value();
      EGRET_RETURN_IF_ERROR(Expect(a, vptr, a.is_array(), "an array"));
      if (it.key() == "ints") {
        std::vector<int64_t> v(a.size());
        for (size_t i = 0; i < a.size(); ++i) {
          EGRET_RETURN_IF_ERROR(GetInt(a[i], Child(vptr, i), &v[i]));
        }
        return AttrValue(std::move(v));
      }
      std::vector<double> v(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        EGRET_RETURN_IF_ERROR(GetDouble(a[i], Child(vptr, i), &v[i]));
      }
      return AttrValue(std::move(v));
    }
  }
  return Fail(ptr,
              absl::StrCat("expected an attribute value (integer, number, string, array "
                           "of numbers, or {\"float\"|\"floats\"|\"ints\"|\"graph\": ...}), got ",
                           KindOf(j)));
}

absl::StatusOr<OptionValue> Reader::ReadOption(const Json& j, const std::string& ptr) const {
  if (j.is_boolean()) return OptionValue(j.get<bool>());
  if (j.is_number_integer()) {
    int64_t v = 0;
    EGRET_RETURN_IF_ERROR(GetInt(j, ptr, &v));
    return OptionValue(v);
  }
  if (j.is_number_float()) return OptionValue(j.get<double>());
  if (j.is_string()) return OptionValue(j.get<std::string>());
  if (j.is_object() && j.size() == 1 && j.begin().key() == "float") {
    double v = 0;
    EGRET_RETURN_IF_ERROR(GetDouble(j.begin().value(), Child(ptr, "float"), &v));
    return OptionValue(v);
  }
  return Fail(ptr, absl::StrCat("expected an option value (true/false, integer, number, string "
                                "or {\"float\": ...}), got ",
                                KindOf(j)));
}

absl::Status Reader::ReadElement(const Json& j, const std::string& ptr, DType dtype,
                                 uint8_t* dst) const {
  if (IsFloat(dtype)) {
    double v = 0;
    EGRET_RETURN_IF_ERROR(GetDouble(j, ptr, &v));
    // The largest magnitude that rounds to a finite value of the dtype: just
    // below the midpoint between its largest finite value and the next
    // power of two (the midpoint itself rounds to even, which is infinity).
    // The writer prints the shortest decimal that reads back as the same
    // value, and for Float32's largest that is above it (3.4028235e+38).
    double max = std::nextafter(0x1p128 - 0x1p103, 0.0);
    if (dtype == DType::kFloat16) max = std::nextafter(65520.0, 0.0);
    if (dtype == DType::kBFloat16) max = std::bit_cast<float>(uint32_t{0x7f7f7fffu});
    if (dtype == DType::kFloat64) max = std::numeric_limits<double>::max();
    if (std::isfinite(v) && std::abs(v) > max) {
      // The shortest decimal that reads back as v (StrCat's six digits
      // would print -3.40282e+38, which looks in range).
      char text[32];
      const std::to_chars_result printed = std::to_chars(text, text + sizeof text, v);
      return Fail(ptr, absl::StrCat("value ", std::string(text, printed.ptr),
                                    " is out of the range of ", std::string(DTypeName(dtype))));
    }
    if (dtype == DType::kFloat64) {
      std::memcpy(dst, &v, 8);
      return absl::OkStatus();
    }
    // Between float's largest and the midpoint: that largest (a conversion
    // of a double out of float's range is undefined).
    constexpr double kFloatMax = std::numeric_limits<float>::max();
    if (std::isfinite(v) && std::abs(v) > kFloatMax) v = std::copysign(kFloatMax, v);
    float f = static_cast<float>(v);
    if (dtype == DType::kFloat16 || dtype == DType::kBFloat16) {
      uint16_t h = dtype == DType::kFloat16 ? FloatToHalf(f) : FloatToBFloat16(f);
      std::memcpy(dst, &h, 2);
    } else {
      std::memcpy(dst, &f, 4);
    }
    return absl::OkStatus();
  }
  if (dtype == DType::kUInt64 && j.is_number_unsigned()) {
    // The whole range, beyond int64's maximum too.
    const uint64_t u = j.get<uint64_t>();
    std::memcpy(dst, &u, 8);
    return absl::OkStatus();
  }
  if (!j.is_number_integer()) {
    return Fail(ptr, absl::StrCat("expected an integer storage value of ",
                                  std::string(DTypeName(dtype)), ", got ", KindOf(j)));
  }
  int64_t v = 0;
  EGRET_RETURN_IF_ERROR(GetInt(j, ptr, &v));
  if (v < StorageMin(dtype) || v > StorageMax(dtype)) {
    return Fail(ptr,
                absl::StrCat("value ", v, " is out of the range of ", std::string(DTypeName(dtype)),
                             " [", StorageMin(dtype), ", ", StorageMax(dtype), "]"));
  }
  // Storage is little-endian; copy the low bytes of v (the host is little-endian).
  std::memcpy(dst, &v, static_cast<size_t>(ElementSize(dtype)));
  return absl::OkStatus();
}

}  // namespace egret::graph_json_internal
