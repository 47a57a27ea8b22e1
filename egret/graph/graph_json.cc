#include "egret/graph/graph_json.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/declared_types.h"
#include "egret/support/diagnostic.h"
#include "egret/support/status_macros.h"
#include "nlohmann/json.hpp"

namespace egret {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kFormatName = "egret-graph";
constexpr int64_t kFormatVersion = 1;
// Sidecar entries start at multiples of this (friendly to mmap and vector loads).
constexpr int64_t kSidecarAlign = 64;

// ---------------------------------------------------------------------------
// Locating a JSON pointer in the text (used on the error path only).

size_t SkipWs(std::string_view t, size_t p) {
  while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r')) ++p;
  return p;
}

// `p` is at an opening quote; returns the position after the closing one.
size_t SkipString(std::string_view t, size_t p) {
  ++p;
  while (p < t.size() && t[p] != '"') p += t[p] == '\\' ? 2 : 1;
  return std::min(p + 1, t.size());
}

// `p` is at the first character of a value; returns the position after it.
size_t SkipValue(std::string_view t, size_t p) {
  if (p >= t.size()) return p;
  if (t[p] == '"') return SkipString(t, p);
  if (t[p] == '{' || t[p] == '[') {
    int depth = 0;
    while (p < t.size()) {
      char c = t[p];
      if (c == '"') {
        p = SkipString(t, p);
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      ++p;
      if (depth == 0) break;
    }
    return p;
  }
  while (p < t.size() && std::string_view(",]} \t\r\n").find(t[p]) == std::string_view::npos) ++p;
  return p;
}

std::vector<std::string> PointerTokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  size_t p = 1;
  while (true) {
    size_t slash = pointer.find('/', p);
    std::string_view raw = pointer.substr(p, slash == std::string_view::npos ? slash : slash - p);
    std::string tok;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size()) {
        tok += raw[i + 1] == '1' ? '/' : '~';
        ++i;
      } else {
        tok += raw[i];
      }
    }
    tokens.push_back(std::move(tok));
    if (slash == std::string_view::npos) break;
    p = slash + 1;
  }
  return tokens;
}

// Byte offset of the value at `pointer` in the (valid JSON) `text`, or of the
// deepest enclosing value found.
size_t LocateValue(std::string_view text, std::string_view pointer) {
  size_t pos = SkipWs(text, 0);
  for (const std::string& tok : PointerTokens(pointer)) {
    if (pos >= text.size()) return pos;
    const size_t container = pos;
    bool found = false;
    if (text[pos] == '{') {
      pos = SkipWs(text, pos + 1);
      while (pos < text.size() && text[pos] == '"') {
        size_t key_end = SkipString(text, pos);
        std::string key;
        try {
          key = Json::parse(text.substr(pos, key_end - pos)).get<std::string>();
        } catch (const Json::exception&) {
        }
        pos = SkipWs(text, key_end);
        if (pos < text.size() && text[pos] == ':') pos = SkipWs(text, pos + 1);
        if (key == tok) {
          found = true;
          break;
        }
        pos = SkipWs(text, SkipValue(text, pos));
        if (pos < text.size() && text[pos] == ',') pos = SkipWs(text, pos + 1);
      }
    } else if (text[pos] == '[') {
      size_t index = 0;
      auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), index);
      if (ec != std::errc() || ptr != tok.data() + tok.size()) return container;
      pos = SkipWs(text, pos + 1);
      for (size_t i = 0; pos < text.size() && text[pos] != ']'; ++i) {
        if (i == index) {
          found = true;
          break;
        }
        pos = SkipWs(text, SkipValue(text, pos));
        if (pos < text.size() && text[pos] == ',') pos = SkipWs(text, pos + 1);
      }
    }
    if (!found) return container;
  }
  return pos;
}

// Finds the first array or object nested deeper than `max_depth` (its
// offset), so that pathological input is refused before nlohmann builds it.
// Stops early (nullopt) at a byte no JSON text can hold there: the parser
// reports that error first, with its own position.
// In valid JSON `text`, the offset of the first key that repeats a key of
// the same object, and that key (decoded); nullopt when there is none.
std::optional<std::pair<size_t, std::string>> FindDuplicateKey(std::string_view text) {
  std::vector<absl::flat_hash_set<std::string>> objects;  // one per open object
  std::vector<bool> is_object;                            // per open container
  bool expect_key = false;
  for (size_t p = 0; p < text.size(); ++p) {
    switch (text[p]) {
      case '{':
        is_object.push_back(true);
        objects.emplace_back();
        expect_key = true;
        break;
      case '[':
        is_object.push_back(false);
        break;
      case '}':
      case ']':
        if (!is_object.empty()) {
          if (is_object.back()) objects.pop_back();
          is_object.pop_back();
        }
        expect_key = false;
        break;
      case ',':
        expect_key = !is_object.empty() && is_object.back();
        break;
      case '"': {
        const size_t end = SkipString(text, p);
        if (expect_key && !objects.empty()) {
          std::string_view raw = text.substr(p + 1, end - p - 2);
          std::string key(raw);
          if (raw.find('\\') != std::string_view::npos) {
            try {
              key = Json::parse(text.substr(p, end - p)).get<std::string>();
            } catch (const Json::exception&) {
            }
          }
          if (!objects.back().insert(key).second) return std::make_pair(p, key);
          expect_key = false;
        }
        p = end - 1;
        break;
      }
      default:
        break;
    }
  }
  return std::nullopt;
}

// In `text` (JSON that nlohmann refused with "number overflow"), the offset
// and spelling of the first number literal outside a string that does not fit
// a double (1e400); nullopt when there is none.
std::optional<std::pair<size_t, std::string>> FindOverflowingNumber(std::string_view text) {
  for (size_t p = 0; p < text.size(); ++p) {
    const char c = text[p];
    if (c == '"') {
      p = SkipString(text, p) - 1;
      continue;
    }
    if (c != '-' && !(c >= '0' && c <= '9')) continue;
    size_t end = p + 1;
    while (end < text.size() &&
           std::string_view("0123456789.eE+-").find(text[end]) != std::string_view::npos) {
      ++end;
    }
    std::string token(text.substr(p, end - p));
    if (std::isinf(std::strtod(token.c_str(), nullptr))) return std::make_pair(p, token);
    p = end - 1;
  }
  return std::nullopt;
}

std::optional<size_t> FindTooDeep(std::string_view text, int max_depth) {
  int depth = 0;
  for (size_t p = 0; p < text.size(); ++p) {
    unsigned char c = static_cast<unsigned char>(text[p]);
    switch (c) {
      case '"':
        for (++p; p < text.size() && text[p] != '"'; ++p) {
          if (static_cast<unsigned char>(text[p]) < 0x20) return std::nullopt;
          if (text[p] == '\\') ++p;
        }
        break;
      case '[':
      case '{':
        if (++depth > max_depth) return p;
        break;
      case ']':
      case '}':
        --depth;
        break;
      default:
        if (std::string_view(" \t\r\n,:-+.0123456789eEtruefalsn").find(static_cast<char>(c)) ==
            std::string_view::npos) {
          return std::nullopt;
        }
    }
  }
  return std::nullopt;
}

// Printable, single-line form of a message that may quote user bytes.
std::string OneLine(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += absl::StrFormat("\\x%02x", c);
    }
  }
  return out;
}

std::string Quote(std::string_view s) { return absl::StrCat("'", OneLine(s), "'"); }

std::string Child(const std::string& ptr, std::string_view key) {
  std::string out = ptr + "/";
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Child(const std::string& ptr, size_t index) { return absl::StrCat(ptr, "/", index); }

std::string KindOf(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "true/false";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::null:
      return "null";
    default:
      return "an unsupported value";
  }
}

uint64_t Fnv1a64(std::string_view data) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string Hex64(uint64_t v) { return absl::StrFormat("%016x", v); }

// ---------------------------------------------------------------------------
// Reader.

class Reader {
 public:
  Reader(std::string_view text, std::string_view file, std::string_view sidecar_dir,
         uint64_t max_file_bytes)
      : text_(text), file_(file), sidecar_dir_(sidecar_dir), max_file_bytes_(max_file_bytes) {}

  absl::StatusOr<Graph> Read(const Json& root);
  // The nodes, inputs and outputs of the graph object `root` at pointer
  // `base` (the whole file, or a subgraph attribute's "graph" member) into
  // `graph`, validated.
  absl::Status ReadBody(const Json& root, const std::string& base, Graph* graph);

 private:
  absl::Status Fail(const std::string& ptr, std::string_view message) const {
    SourceLocation loc = LocationOf(file_, text_, LocateValue(text_, ptr));
    // The pointer holds member names as written (a "\n" in a key is a line
    // break): printed in OneLine's form, so that the error stays one line.
    return BadInput(
        loc, absl::StrCat("at ", ptr.empty() ? "/" : OneLine(ptr), ": ", std::string(message)));
  }
  absl::Status Expect(const Json& j, const std::string& ptr, bool ok, std::string_view what) const {
    if (ok) return absl::OkStatus();
    return Fail(ptr, absl::StrCat("expected ", std::string(what), ", got ", KindOf(j)));
  }
  absl::Status CheckMembers(const Json& obj, const std::string& ptr,
                            std::initializer_list<std::string_view> allowed) const;
  absl::Status GetInt(const Json& j, const std::string& ptr, int64_t* out) const;
  absl::Status GetString(const Json& j, const std::string& ptr, std::string* out) const;
  absl::Status GetDouble(const Json& j, const std::string& ptr, double* out) const;

  absl::StatusOr<TensorType> ReadType(const Json& j, const std::string& ptr) const;
  absl::Status ReadPerAxis(const Json& j, const std::string& ptr, TensorType* type) const;
  absl::StatusOr<AttrValue> ReadAttr(const Json& j, const std::string& ptr) const;
  // {"from": [names], "rules": [names]}, both optional.
  absl::Status ReadProvenance(const Json& j, const std::string& ptr, Provenance* out) const;
  absl::StatusOr<OptionValue> ReadOption(const Json& j, const std::string& ptr) const;
  absl::Status ReadNode(const Json& j, const std::string& ptr, Node* node);
  absl::Status ReadData(const Json& j, const std::string& ptr, const TensorType& type, Node* node);
  absl::Status ReadElement(const Json& j, const std::string& ptr, DType dtype, uint8_t* dst) const;
  absl::Status LoadSidecar(const Json& j, const std::string& ptr);
  absl::StatusOr<ValueRef> ResolveRef(const Json& j, const std::string& ptr) const;

  std::string_view text_;
  std::string_view file_;
  std::string_view sidecar_dir_;
  uint64_t max_file_bytes_;

  std::vector<Node> nodes_;
  absl::flat_hash_map<std::string_view, NodeId> by_name_;  // views into nodes_
  std::optional<std::string> sidecar_;
  absl::flat_hash_map<std::pair<int64_t, int64_t>, ConstTensorPtr> sidecar_tensors_;
};

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
  for (auto [key, list] : {std::pair{"from", &out->from}, std::pair{"rules", &out->rules}}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    const std::string lptr = Child(ptr, key);
    EGRET_RETURN_IF_ERROR(Expect(*it, lptr, it->is_array(), "an array of strings"));
    list->resize(it->size());
    for (size_t i = 0; i < it->size(); ++i) {
      EGRET_RETURN_IF_ERROR(GetString((*it)[i], Child(lptr, i), &(*list)[i]));
    }
  }
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
    // The largest magnitude that rounds to a finite value of the dtype.
    double max = std::numeric_limits<float>::max();
    if (dtype == DType::kFloat16) max = 65519.0;
    if (dtype == DType::kBFloat16) max = std::bit_cast<float>(uint32_t{0x7f7f7fffu});
    if (dtype == DType::kFloat64) max = std::numeric_limits<double>::max();
    if (std::isfinite(v) && std::abs(v) > max) {
      return Fail(ptr, absl::StrCat("value ", v, " is out of the range of ",
                                    std::string(DTypeName(dtype))));
    }
    if (dtype == DType::kFloat64) {
      std::memcpy(dst, &v, 8);
      return absl::OkStatus();
    }
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

absl::Status Reader::LoadSidecar(const Json& j, const std::string& ptr) {
  EGRET_RETURN_IF_ERROR(Expect(j, ptr, j.is_object(), "an object"));
  EGRET_RETURN_IF_ERROR(CheckMembers(j, ptr, {"file", "bytes", "fnv1a64"}));
  auto f = j.find("file");
  auto b = j.find("bytes");
  if (f == j.end()) return Fail(ptr, "missing member 'file'");
  if (b == j.end()) return Fail(ptr, "missing member 'bytes'");
  std::string name;
  const std::string fptr = Child(ptr, "file");
  EGRET_RETURN_IF_ERROR(GetString(*f, fptr, &name));
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return Fail(fptr, absl::StrCat("sidecar ", Quote(name),
                                   " must be a plain file name (it lives beside the graph file)"));
  }
  int64_t bytes = 0;
  EGRET_RETURN_IF_ERROR(GetInt(*b, Child(ptr, "bytes"), &bytes));
  std::string path =
      sidecar_dir_.empty() ? name : absl::StrCat(std::string(sidecar_dir_), "/", name);
  // Confined to the graph's directory: a symlink is refused unread.
  absl::StatusOr<std::string> data =
      ReadFileInDir(std::string(sidecar_dir_), name, max_file_bytes_);
  if (!data.ok()) {
    std::string why_s(data.status().message());
    std::string_view why = why_s;
    if (size_t e = why.find(": error: "); e != std::string_view::npos) why.remove_prefix(e + 9);
    return Fail(fptr, absl::StrCat("cannot read sidecar ", Quote(path), ": ", std::string(why)));
  }
  if (static_cast<int64_t>(data->size()) != bytes) {
    return Fail(Child(ptr, "bytes"), absl::StrCat("sidecar ", Quote(path), " has ", data->size(),
                                                  " bytes, expected ", bytes));
  }
  if (auto h = j.find("fnv1a64"); h != j.end()) {
    std::string want;
    EGRET_RETURN_IF_ERROR(GetString(*h, Child(ptr, "fnv1a64"), &want));
    std::string got = Hex64(Fnv1a64(*data));
    if (want != got) {
      return Fail(Child(ptr, "fnv1a64"),
                  absl::StrCat("sidecar ", Quote(path), " has checksum ", got, ", expected ",
                               Quote(want), " (stale or corrupt sidecar)"));
    }
  }
  sidecar_ = std::move(*data);
  return absl::OkStatus();
}

absl::Status Reader::ReadData(const Json& j, const std::string& ptr, const TensorType& type,
                              Node* node) {
  if (!IsConcrete(type.dtype)) {
    return Fail(ptr, absl::StrCat("a constant of dtype ", std::string(DTypeName(type.dtype)),
                                  " cannot hold data"));
  }
  const int64_t n = type.num_elements();
  const int64_t size = type.byte_size();
  if (j.is_array()) {
    if (static_cast<int64_t>(j.size()) != n) {
      return Fail(ptr, absl::StrCat("data has ", j.size(), " values, type ", type.ToString(),
                                    " needs ", n));
    }
    std::vector<uint8_t> bytes(static_cast<size_t>(size));
    const int es = ElementSize(type.dtype);
    for (int64_t i = 0; i < n; ++i) {
      EGRET_RETURN_IF_ERROR(
          ReadElement(j[static_cast<size_t>(i)], Child(ptr, i), type.dtype, bytes.data() + i * es));
    }
    absl::StatusOr<Tensor> t = Tensor::FromBytes(type, bytes);
    if (!t.ok()) return Fail(ptr, std::string(t.status().message()));
    node->constant = std::make_shared<const Tensor>(*std::move(t));
    return absl::OkStatus();
  }
  if (!j.is_object()) {
    return Expect(j, ptr, false, "an array of values or {\"offset\", \"length\"} in the sidecar");
  }
  EGRET_RETURN_IF_ERROR(CheckMembers(j, ptr, {"offset", "length"}));
  auto o = j.find("offset");
  auto l = j.find("length");
  if (o == j.end()) return Fail(ptr, "missing member 'offset'");
  if (l == j.end()) return Fail(ptr, "missing member 'length'");
  int64_t offset = 0;
  int64_t length = 0;
  EGRET_RETURN_IF_ERROR(GetInt(*o, Child(ptr, "offset"), &offset));
  EGRET_RETURN_IF_ERROR(GetInt(*l, Child(ptr, "length"), &length));
  if (offset < 0) return Fail(Child(ptr, "offset"), "negative offset");
  if (length != size) {
    return Fail(Child(ptr, "length"), absl::StrCat("data length ", length, " bytes, type ",
                                                   type.ToString(), " needs ", size));
  }
  if (!sidecar_.has_value()) {
    return Fail(ptr, "data refers to the sidecar, but the graph has no 'sidecar' member");
  }
  const int64_t have = static_cast<int64_t>(sidecar_->size());
  if (offset > have || length > have - offset) {
    return Fail(ptr, absl::StrCat("bytes [", offset, ", ", offset + length,
                                  ") are past the end of the sidecar (", have, " bytes)"));
  }
  auto key = std::make_pair(offset, length);
  if (auto it = sidecar_tensors_.find(key);
      it != sidecar_tensors_.end() && it->second->type() == type) {
    node->constant = it->second;  // the same bytes: share one tensor
    return absl::OkStatus();
  }
  const uint8_t* begin = reinterpret_cast<const uint8_t*>(sidecar_->data()) + offset;
  absl::StatusOr<Tensor> t = Tensor::FromBytes(type, absl::MakeConstSpan(begin, length));
  if (!t.ok()) return Fail(ptr, std::string(t.status().message()));
  node->constant = std::make_shared<const Tensor>(*std::move(t));
  sidecar_tensors_.emplace(key, node->constant);
  return absl::OkStatus();
}

absl::Status Reader::ReadNode(const Json& j, const std::string& ptr, Node* node) {
  EGRET_RETURN_IF_ERROR(Expect(j, ptr, j.is_object(), "an object (a node)"));
  EGRET_RETURN_IF_ERROR(
      CheckMembers(j, ptr, {"name", "op", "inputs", "outputs", "attrs", "data", "provenance"}));
  auto op = j.find("op");
  if (op == j.end()) return Fail(ptr, "missing member 'op'");
  EGRET_RETURN_IF_ERROR(GetString(*op, Child(ptr, "op"), &node->op));
  if (node->op.empty()) return Fail(Child(ptr, "op"), "empty op");
  if (auto nm = j.find("name"); nm != j.end()) {
    EGRET_RETURN_IF_ERROR(GetString(*nm, Child(ptr, "name"), &node->name));
  }
  if (auto in = j.find("inputs"); in != j.end()) {
    EGRET_RETURN_IF_ERROR(Expect(*in, Child(ptr, "inputs"), in->is_array(), "an array"));
    if (node->op == kInputOp && !in->empty()) {
      return Fail(Child(ptr, "inputs"), "an *Input node has no inputs");
    }
  }
  auto outs = j.find("outputs");
  if (outs == j.end()) return Fail(ptr, "missing member 'outputs'");
  const std::string optr = Child(ptr, "outputs");
  EGRET_RETURN_IF_ERROR(Expect(*outs, optr, outs->is_array(), "an array of tensor types"));
  if (outs->empty()) return Fail(optr, "a node needs at least one output");
  for (size_t k = 0; k < outs->size(); ++k) {
    absl::StatusOr<TensorType> t = ReadType((*outs)[k], Child(optr, k));
    if (!t.ok()) return t.status();
    node->outputs.push_back(*std::move(t));
  }
  if (auto at = j.find("attrs"); at != j.end()) {
    const std::string aptr = Child(ptr, "attrs");
    EGRET_RETURN_IF_ERROR(Expect(*at, aptr, at->is_object(), "an object"));
    for (auto it = at->begin(); it != at->end(); ++it) {
      absl::StatusOr<AttrValue> v = ReadAttr(it.value(), Child(aptr, it.key()));
      if (!v.ok()) return v.status();
      node->attrs[it.key()] = *std::move(v);
    }
  }
  if (auto pv = j.find("provenance"); pv != j.end()) {
    EGRET_RETURN_IF_ERROR(ReadProvenance(*pv, Child(ptr, "provenance"), &node->provenance));
  }
  auto data = j.find("data");
  if (IsConstantOp(node->op)) {
    if (node->outputs.size() != 1) {
      return Fail(optr, absl::StrCat("a ", node->op, " node has exactly one output, got ",
                                     node->outputs.size()));
    }
    if (data == j.end()) return Fail(ptr, absl::StrCat("missing member 'data' of a ", node->op));
    EGRET_RETURN_IF_ERROR(ReadData(*data, Child(ptr, "data"), node->outputs[0], node));
  } else if (data != j.end()) {
    return Fail(Child(ptr, "data"), absl::StrCat("only ", std::string(kConstOp),
                                                 " nodes carry data, not ", Quote(node->op)));
  }
  return absl::OkStatus();
}

// "name" (output 0), "name:k", or {"node": "name", "output": k}.
absl::StatusOr<ValueRef> Reader::ResolveRef(const Json& j, const std::string& ptr) const {
  std::string name;
  int64_t output = 0;
  bool explicit_output = false;
  if (j.is_object()) {
    EGRET_RETURN_IF_ERROR(CheckMembers(j, ptr, {"node", "output"}));
    auto n = j.find("node");
    if (n == j.end()) return Fail(ptr, "missing member 'node'");
    EGRET_RETURN_IF_ERROR(GetString(*n, Child(ptr, "node"), &name));
    if (auto o = j.find("output"); o != j.end()) {
      EGRET_RETURN_IF_ERROR(GetInt(*o, Child(ptr, "output"), &output));
      if (output < 0) return Fail(Child(ptr, "output"), "negative output index");
    }
    explicit_output = true;
  } else {
    EGRET_RETURN_IF_ERROR(
        Expect(j, ptr, j.is_string(), "a value reference (\"node\" or \"node:k\")"));
    name = j.get<std::string>();
  }
  auto it = by_name_.find(name);
  if (it == by_name_.end() && !explicit_output) {
    // Not a node name as a whole: try "node:k".
    size_t colon = name.rfind(':');
    if (colon != std::string::npos && colon + 1 < name.size()) {
      std::string_view digits = std::string_view(name).substr(colon + 1);
      uint32_t k = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
      if (ec == std::errc() && end == digits.data() + digits.size()) {
        auto base = by_name_.find(std::string_view(name).substr(0, colon));
        if (base != by_name_.end()) {
          it = base;
          output = k;
          name.resize(colon);
        }
      }
    }
  }
  if (it == by_name_.end()) return Fail(ptr, absl::StrCat("no node named ", Quote(name)));
  const Node& producer = nodes_[it->second];
  if (output >= static_cast<int64_t>(producer.outputs.size())) {
    return Fail(ptr, absl::StrCat("node ", Quote(name), " has ", producer.outputs.size(),
                                  " output(s); there is no output ", output));
  }
  return ValueRef{it->second, static_cast<uint32_t>(output)};
}

absl::StatusOr<Graph> Reader::Read(const Json& root) {
  EGRET_RETURN_IF_ERROR(Expect(root, "", root.is_object(), "an object"));
  EGRET_RETURN_IF_ERROR(CheckMembers(
      root, "", {"format", "version", "name", "options", "sidecar", "nodes", "inputs", "outputs"}));
  auto fmt = root.find("format");
  if (fmt == root.end() || !fmt->is_string() || fmt->get_ref<const std::string&>() != kFormatName) {
    return Fail(fmt == root.end() ? "" : "/format",
                absl::StrCat("not an egret graph: expected \"format\": \"",
                             std::string(kFormatName), "\""));
  }
  auto ver = root.find("version");
  if (ver == root.end()) return Fail("", "missing member 'version'");
  int64_t version = 0;
  EGRET_RETURN_IF_ERROR(GetInt(*ver, "/version", &version));
  if (version != kFormatVersion) {
    return Fail("/version", absl::StrCat("unsupported version ", version,
                                         " (this egret reads version ", kFormatVersion, ")"));
  }
  Graph graph;
  if (auto nm = root.find("name"); nm != root.end()) {
    std::string name;
    EGRET_RETURN_IF_ERROR(GetString(*nm, "/name", &name));
    graph.set_name(std::move(name));
  }
  if (auto opts = root.find("options"); opts != root.end()) {
    EGRET_RETURN_IF_ERROR(Expect(*opts, "/options", opts->is_object(), "an object"));
    for (auto it = opts->begin(); it != opts->end(); ++it) {
      absl::StatusOr<OptionValue> v = ReadOption(it.value(), Child("/options", it.key()));
      if (!v.ok()) return v.status();
      graph.mutable_options()[it.key()] = *std::move(v);
    }
  }
  if (auto sc = root.find("sidecar"); sc != root.end()) {
    EGRET_RETURN_IF_ERROR(LoadSidecar(*sc, "/sidecar"));
  }
  EGRET_RETURN_IF_ERROR(ReadBody(root, "", &graph));
  return graph;
}

absl::Status Reader::ReadBody(const Json& root, const std::string& base, Graph* graph_out) {
  Graph& graph = *graph_out;
  const std::string nodes_ptr = Child(base, "nodes");
  const std::string inputs_ptr = Child(base, "inputs");
  const std::string outputs_ptr = Child(base, "outputs");
  auto nodes = root.find("nodes");
  if (nodes == root.end()) return Fail(base, "missing member 'nodes'");
  EGRET_RETURN_IF_ERROR(Expect(*nodes, nodes_ptr, nodes->is_array(), "an array of nodes"));
  if (nodes->size() >= kNoNode) return Fail(nodes_ptr, "too many nodes");

  // Pass 1: nodes without their inputs, and the name table.
  nodes_.resize(nodes->size());
  for (size_t i = 0; i < nodes->size(); ++i) {
    EGRET_RETURN_IF_ERROR(ReadNode((*nodes)[i], Child(nodes_ptr, i), &nodes_[i]));
  }
  by_name_.reserve(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].name.empty()) continue;
    auto [it, inserted] = by_name_.emplace(nodes_[i].name, static_cast<NodeId>(i));
    if (!inserted) {
      return Fail(Child(Child(nodes_ptr, i), "name"),
                  absl::StrCat("duplicate node name ", Quote(nodes_[i].name), " (first used by ",
                               Child(nodes_ptr, it->second), ")"));
    }
  }
  // Pass 2: inputs, which may refer to any node.
  for (size_t i = 0; i < nodes_.size(); ++i) {
    auto in = (*nodes)[i].find("inputs");
    if (in == (*nodes)[i].end()) continue;
    const std::string iptr = Child(Child(nodes_ptr, i), "inputs");
    for (size_t k = 0; k < in->size(); ++k) {
      absl::StatusOr<ValueRef> ref = ResolveRef((*in)[k], Child(iptr, k));
      if (!ref.ok()) return ref.status();
      nodes_[i].inputs.push_back(*ref);
    }
  }

  std::vector<NodeId> inputs;
  if (auto in = root.find("inputs"); in != root.end()) {
    EGRET_RETURN_IF_ERROR(Expect(*in, inputs_ptr, in->is_array(), "an array of node names"));
    absl::flat_hash_set<NodeId> seen;
    for (size_t k = 0; k < in->size(); ++k) {
      const std::string ptr = Child(inputs_ptr, k);
      absl::StatusOr<ValueRef> ref = ResolveRef((*in)[k], ptr);
      if (!ref.ok()) return ref.status();
      if (nodes_[ref->node].op != kInputOp) {
        return Fail(ptr, absl::StrCat("graph input ", Quote(nodes_[ref->node].name),
                                      " is not an *Input node"));
      }
      if (!seen.insert(ref->node).second) {
        return Fail(
            ptr, absl::StrCat("graph input ", Quote(nodes_[ref->node].name), " is listed twice"));
      }
      inputs.push_back(ref->node);
    }
  } else {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].op == kInputOp) inputs.push_back(static_cast<NodeId>(i));
    }
  }
  if (auto outs = root.find("outputs"); outs != root.end()) {
    EGRET_RETURN_IF_ERROR(Expect(*outs, outputs_ptr, outs->is_array(), "an array"));
    for (size_t k = 0; k < outs->size(); ++k) {
      const std::string ptr = Child(outputs_ptr, k);
      const Json& o = (*outs)[k];
      std::string name;
      const Json* value = &o;
      std::string vptr = ptr;
      if (o.is_object() && o.contains("value")) {
        EGRET_RETURN_IF_ERROR(CheckMembers(o, ptr, {"value", "name"}));
        if (auto nm = o.find("name"); nm != o.end()) {
          EGRET_RETURN_IF_ERROR(GetString(*nm, Child(ptr, "name"), &name));
        }
        value = &o["value"];
        vptr = Child(ptr, "value");
      }
      absl::StatusOr<ValueRef> ref = ResolveRef(*value, vptr);
      if (!ref.ok()) return ref.status();
      graph.AddOutput(*ref, std::move(name));
    }
  }

  by_name_.clear();  // views into nodes_, which move into the graph
  for (Node& n : nodes_) graph.AddNode(std::move(n));
  graph.mutable_inputs() = std::move(inputs);
  NodeId culprit = kNoNode;
  if (absl::Status s = graph.Validate(&culprit); !s.ok()) {
    return Fail(culprit == kNoNode ? base : Child(nodes_ptr, culprit), std::string(s.message()));
  }
  if (absl::Status s = CheckAllDeclaredTypes(graph, &culprit); !s.ok()) {
    return Fail(Child(Child(nodes_ptr, culprit), "outputs"), std::string(s.message()));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Writer.

// The double whose shortest decimal form is the shortest decimal that reads
// back as `f`: 0.05f is written as 0.05, not 0.05000000074505806.
double ShortDouble(float f) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf) - 1, f);
  if (ec != std::errc()) return f;
  *end = '\0';
  return std::strtod(buf, nullptr);
}

Json NonFinite(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

Json FloatJson(float f) { return std::isfinite(f) ? Json(ShortDouble(f)) : NonFinite(f); }

Json DoubleJson(double d) { return std::isfinite(d) ? Json(d) : NonFinite(d); }

Json TypeJson(const TensorType& t) {
  Json j = Json::object();
  if (!t.is_tensor()) {
    j["kind"] = std::string(ValueKindName(t.kind));
    j["dtype"] = std::string(DTypeName(t.dtype));
    return j;
  }
  j["dtype"] = std::string(DTypeName(t.dtype));
  Json shape = Json::array();
  for (int64_t d : t.dims) shape.push_back(d);
  j["shape"] = std::move(shape);
  if (t.per_axis) {
    Json q = Json::object();
    q["axis"] = t.per_axis->axis;
    Json steps = Json::array();
    for (float f : t.per_axis->stepsizes) steps.push_back(FloatJson(f));
    q["stepsizes"] = std::move(steps);
    q["zero_offsets"] = t.per_axis->zero_offsets;
    if (t.per_axis->block_size > 0) q["block_size"] = t.per_axis->block_size;
    j["per_axis"] = std::move(q);
    return j;
  }
  if (t.zero_offset != 0) j["zero_offset"] = t.zero_offset;
  if (t.stepsize != 1.0f) j["stepsize"] = FloatJson(t.stepsize);
  return j;
}

Json GraphJson(const Graph& graph, const GraphWriteOptions& options, std::string* sidecar,
               absl::flat_hash_map<const Tensor*, int64_t>* sidecar_offset);

Json AttrJson(const AttrValue& v) {
  struct Visitor {
    // A subgraph: {"graph": {"name", "nodes", "inputs", "outputs"}}, its
    // constants inline.
    Json operator()(const GraphPtr& g) const {
      Json j = Json::object();
      j["graph"] = GraphJson(*g, GraphWriteOptions{}, nullptr, nullptr);
      return j;
    }
    Json operator()(int64_t i) const { return i; }
    Json operator()(double d) const {
      if (std::isfinite(d)) return d;
      Json j = Json::object();
      j["float"] = NonFinite(d);
      return j;
    }
    Json operator()(const std::string& s) const { return s; }
    Json operator()(const std::vector<int64_t>& v) const {
      Json a = Json::array();
      for (int64_t i : v) a.push_back(i);
      return a;
    }
    Json operator()(const std::vector<double>& v) const {
      Json a = Json::array();
      bool plain = !v.empty();
      for (double d : v) {
        plain = plain && std::isfinite(d);
        a.push_back(DoubleJson(d));
      }
      if (plain) return a;
      Json j = Json::object();
      j["floats"] = std::move(a);
      return j;
    }
  };
  return std::visit(Visitor{}, v);
}

Json OptionJson(const OptionValue& v) {
  if (const double* d = std::get_if<double>(&v); d != nullptr && !std::isfinite(*d)) {
    Json j = Json::object();
    j["float"] = NonFinite(*d);
    return j;
  }
  return std::visit([](const auto& x) { return Json(x); }, v);
}

Json ElementJson(const Tensor& t, int64_t i) {
  const uint8_t* p = t.bytes().data() + i * ElementSize(t.type().dtype);
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.type().dtype) {
    case DType::kQUInt8:
    case DType::kQUInt4:
    case DType::kBool:
      return load(uint8_t{});
    case DType::kQInt8:
    case DType::kQInt4:
      return load(int8_t{});
    case DType::kQUInt16:
      return load(uint16_t{});
    case DType::kQInt16:
      return load(int16_t{});
    case DType::kInt32:
    case DType::kQInt32:
      return load(int32_t{});
    case DType::kInt64:
      return load(int64_t{});
    case DType::kFloat32:
      return FloatJson(load(float{}));
    case DType::kFloat16:
      return FloatJson(HalfToFloat(load(uint16_t{})));
    case DType::kBFloat16:
      return FloatJson(BFloat16ToFloat(load(uint16_t{})));
    case DType::kFloat64:
      return DoubleJson(load(double{}));
    case DType::kUInt32:
      return load(uint32_t{});
    case DType::kUInt64:
      return load(uint64_t{});
    default:
      return nullptr;
  }
}

// Compact one-line form: `{"a": 1, "b": [1, 2]}`.
void DumpCompact(const Json& j, std::string* out) {
  if (j.is_object()) {
    out->push_back('{');
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out->append(", ");
      first = false;
      out->append(Json(it.key()).dump());
      out->append(": ");
      DumpCompact(it.value(), out);
    }
    out->push_back('}');
  } else if (j.is_array()) {
    out->push_back('[');
    for (size_t i = 0; i < j.size(); ++i) {
      if (i > 0) out->append(", ");
      DumpCompact(j[i], out);
    }
    out->push_back(']');
  } else {
    out->append(j.dump());
  }
}

// Pretty form: a value goes on one line when it fits in 120 columns, and
// arrays of numbers and strings always do; otherwise one member per line.
void DumpPretty(const Json& j, int indent, std::string* out) {
  constexpr size_t kWidth = 120;
  bool flat = !j.is_structured() || j.empty() ||
              (j.is_array() &&
               std::none_of(j.begin(), j.end(), [](const Json& e) { return e.is_structured(); }));
  std::string compact;
  if (!flat) {
    DumpCompact(j, &compact);
    flat = compact.size() + static_cast<size_t>(indent) <= kWidth;
  }
  if (flat) {
    if (compact.empty()) DumpCompact(j, &compact);
    out->append(compact);
    return;
  }
  const std::string pad(static_cast<size_t>(indent) + 2, ' ');
  out->push_back(j.is_object() ? '{' : '[');
  bool first = true;
  size_t i = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++i) {
    out->append(first ? "\n" : ",\n");
    first = false;
    out->append(pad);
    if (j.is_object()) {
      out->append(Json(it.key()).dump());
      out->append(": ");
    }
    DumpPretty(it.value(), indent + 2, out);
  }
  out->push_back('\n');
  out->append(static_cast<size_t>(indent), ' ');
  out->push_back(j.is_object() ? '}' : ']');
}

// "g.json.0123456789abcdef.bin" for "g.json" and a sidecar's contents.
std::string SidecarNameFor(std::string_view base, std::string_view sidecar) {
  return absl::StrCat(std::string(base), ".", Hex64(Fnv1a64(sidecar)), ".bin");
}

// Whether `name` is a sidecar name the writer may have made for `base`:
// base + ".bin" (before content-named sidecars) or base + ".<16 hex>.bin".
bool IsSidecarNameOf(std::string_view name, std::string_view base) {
  if (name.size() <= base.size() || name.substr(0, base.size()) != base) return false;
  std::string_view rest = name.substr(base.size());
  if (rest == ".bin") return true;
  if (rest.size() != 1 + 16 + 4 || rest[0] != '.' || rest.substr(17) != ".bin") return false;
  for (char c : rest.substr(1, 16)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Builds the JSON text; large constants are appended to *sidecar (when not
// null) and referenced from the text, which names the sidecar
// SidecarNameFor(graph_file_name, *sidecar).
// The format stores numeric tensor data only: a constant sequence or
// optional (which no importer makes) or String tensor cannot be written.
absl::Status CheckNoContainerConstant(const Graph& graph) {
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const Node& node = graph.node(id);
    if (node.constant &&
        (!node.constant->type().is_tensor() || IsString(node.constant->type().dtype))) {
      return absl::UnimplementedError(absl::StrCat(
          "cannot write the graph as JSON: node ", graph.NodeLabel(id), " is a constant ",
          node.constant->type().ToString(), " (the format holds numeric constant tensors only)"));
    }
    for (const auto& [name, value] : node.attrs) {
      if (const auto* body = std::get_if<GraphPtr>(&value); body != nullptr && *body != nullptr) {
        EGRET_RETURN_IF_ERROR(CheckNoContainerConstant(**body));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Serialize(const Graph& graph, const GraphWriteOptions& options,
                                      std::string_view graph_file_name, std::string* sidecar) {
  EGRET_RETURN_IF_ERROR(graph.Validate());
  EGRET_RETURN_IF_ERROR(CheckNoContainerConstant(graph));
  Json root = Json::object();
  root["format"] = std::string(kFormatName);
  root["version"] = kFormatVersion;
  if (!graph.name().empty()) root["name"] = graph.name();
  if (!graph.options().empty()) {
    Json opts = Json::object();
    for (const auto& [key, value] : graph.options()) opts[key] = OptionJson(value);
    root["options"] = std::move(opts);
  }
  absl::flat_hash_map<const Tensor*, int64_t> sidecar_offset;
  Json body = GraphJson(graph, options, sidecar, &sidecar_offset);
  if (sidecar != nullptr && !sidecar->empty()) {
    Json sc = Json::object();
    sc["file"] = SidecarNameFor(graph_file_name, *sidecar);
    sc["bytes"] = static_cast<int64_t>(sidecar->size());
    sc["fnv1a64"] = Hex64(Fnv1a64(*sidecar));
    root["sidecar"] = std::move(sc);
  }
  for (auto it = body.begin(); it != body.end(); ++it) {
    if (it.key() != "name") root[it.key()] = std::move(it.value());
  }

  std::string text;
  try {
    DumpPretty(root, 0, &text);
  } catch (const Json::exception& e) {
    // E.g. a node name that is not valid UTF-8.
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot write the graph as JSON: ", e.id == 316 ? "a name is not valid UTF-8 (" : "(",
        e.what(), ")"));
  }
  text.push_back('\n');
  return text;
}

// The name, nodes, inputs and outputs of `graph`; constants over
// options.max_inline_elements go to *sidecar when it is not null.
Json GraphJson(const Graph& graph, const GraphWriteOptions& options, std::string* sidecar,
               absl::flat_hash_map<const Tensor*, int64_t>* sidecar_offset_ptr) {
  const size_t n = graph.num_nodes();
  absl::flat_hash_map<const Tensor*, int64_t> local_offsets;
  absl::flat_hash_map<const Tensor*, int64_t>& sidecar_offset =
      sidecar_offset_ptr != nullptr ? *sidecar_offset_ptr : local_offsets;

  // Names: keep the given ones, generate "<op>_<id>" for the others.
  std::vector<std::string> names(n);
  absl::flat_hash_set<std::string> taken;
  for (NodeId id = 0; id < n; ++id) {
    if (!graph.node(id).name.empty()) taken.insert(graph.node(id).name);
  }
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = graph.node(id);
    if (!node.name.empty()) {
      names[id] = node.name;
      continue;
    }
    std::string base;
    for (char c : node.op) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') base += c;
    }
    if (base.empty()) base = "node";
    std::string candidate = absl::StrCat(base, "_", id);
    for (int k = 1; taken.contains(candidate); ++k) candidate = absl::StrCat(base, "_", id, "_", k);
    taken.insert(candidate);
    names[id] = std::move(candidate);
  }
  auto ref = [&](ValueRef v) -> Json {
    const std::string& name = names[v.node];
    if (v.output == 0) return name;  // an exact name always wins when reading
    std::string s = absl::StrCat(name, ":", v.output);
    if (!taken.contains(s)) return s;
    Json j = Json::object();
    j["node"] = name;
    j["output"] = v.output;
    return j;
  };

  Json root = Json::object();
  if (!graph.name().empty()) root["name"] = graph.name();
  Json nodes = Json::array();
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = graph.node(id);
    Json j = Json::object();
    j["name"] = names[id];
    j["op"] = node.op;
    if (!node.inputs.empty()) {
      Json in = Json::array();
      for (const ValueRef& v : node.inputs) in.push_back(ref(v));
      j["inputs"] = std::move(in);
    }
    Json outs = Json::array();
    for (const TensorType& t : node.outputs) outs.push_back(TypeJson(t));
    j["outputs"] = std::move(outs);
    if (!node.attrs.empty()) {
      Json attrs = Json::object();
      for (const auto& [key, value] : node.attrs) attrs[key] = AttrJson(value);
      j["attrs"] = std::move(attrs);
    }
    if (!node.provenance.empty()) {
      Json pv = Json::object();
      if (!node.provenance.from.empty()) pv["from"] = node.provenance.from;
      if (!node.provenance.rules.empty()) pv["rules"] = node.provenance.rules;
      j["provenance"] = std::move(pv);
    }
    if (node.constant) {
      const Tensor& t = *node.constant;
      if (sidecar != nullptr && t.num_elements() > options.max_inline_elements) {
        auto [it, inserted] = sidecar_offset.emplace(&t, 0);
        if (inserted) {
          size_t aligned = (sidecar->size() + kSidecarAlign - 1) / kSidecarAlign * kSidecarAlign;
          sidecar->resize(aligned, '\0');
          it->second = static_cast<int64_t>(aligned);
          sidecar->append(reinterpret_cast<const char*>(t.bytes().data()), t.bytes().size());
        }
        Json d = Json::object();
        d["offset"] = it->second;
        d["length"] = static_cast<int64_t>(t.bytes().size());
        j["data"] = std::move(d);
      } else {
        Json d = Json::array();
        for (int64_t i = 0; i < t.num_elements(); ++i) d.push_back(ElementJson(t, i));
        j["data"] = std::move(d);
      }
    }
    nodes.push_back(std::move(j));
  }
  root["nodes"] = std::move(nodes);
  Json inputs = Json::array();
  for (NodeId id : graph.inputs()) inputs.push_back(names[id]);
  root["inputs"] = std::move(inputs);
  Json outputs = Json::array();
  for (const GraphOutput& o : graph.outputs()) {
    Json j = Json::object();
    j["value"] = ref(o.value);
    if (!o.name.empty()) j["name"] = o.name;
    outputs.push_back(std::move(j));
  }
  root["outputs"] = std::move(outputs);
  return root;
}

}  // namespace

absl::StatusOr<Graph> ParseGraphJson(std::string_view text, std::string_view filename,
                                     std::string_view sidecar_dir, uint64_t max_file_bytes) {
  if (std::optional<size_t> deep = FindTooDeep(text, kMaxJsonDepth)) {
    return BadInput(LocationOf(filename, text, *deep),
                    absl::StrCat("JSON nested deeper than ", kMaxJsonDepth, " levels"));
  }
  Json root;
  try {
    root = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // e.byte is the 1-based index of the last byte read.
    size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string_view what = e.what();
    if (size_t p = what.find(": "); p != std::string_view::npos) {
      what.remove_prefix(p + 2);  // drop "[json.exception...] parse error at line L, column C"
    }
    if (size_t p = what.find("; last read"); p != std::string_view::npos) what = what.substr(0, p);
    return BadInput(LocationOf(filename, text, offset),
                    absl::StrCat("invalid JSON: ", OneLine(what)));
  } catch (const Json::exception& e) {
    // nlohmann's "number overflow" (a literal beyond a double, 1e400) has no
    // position: find the literal.
    if (auto big = FindOverflowingNumber(text)) {
      return BadInput(LocationOf(filename, text, big->first),
                      absl::StrCat("number ", OneLine(big->second), " is out of range"));
    }
    return BadInput(SourceLocation{std::string(filename), 0, 0},
                    absl::StrCat("invalid JSON: ", OneLine(e.what())));
  }
  // nlohmann keeps one of two equal keys silently; a graph file with one is
  // ambiguous, so it is an error.
  if (auto dup = FindDuplicateKey(text)) {
    return BadInput(LocationOf(filename, text, dup->first),
                    absl::StrCat("duplicate key ", Quote(dup->second)));
  }
  try {
    Reader reader(text, filename, sidecar_dir, max_file_bytes);
    return reader.Read(root);
  } catch (const Json::exception& e) {
    // Not expected (every access is checked); keep a malformed file from
    // ever escaping as an exception.
    return BadInput(SourceLocation{std::string(filename), 0, 0}, OneLine(e.what()));
  }
}

absl::StatusOr<Graph> ReadGraphJson(const std::string& path, uint64_t max_file_bytes) {
  absl::StatusOr<std::string> text = ReadFile(path, max_file_bytes);
  if (!text.ok()) return text.status();
  std::string dir = std::filesystem::path(path).parent_path().string();
  return ParseGraphJson(*text, path, dir, max_file_bytes);
}

absl::Status StageGraphJson(const Graph& graph, const std::string& path,
                            const GraphWriteOptions& options, FileTransaction* txn) {
  const std::filesystem::path p(path);
  const std::string base = p.filename().string();
  const std::string dir = p.parent_path().string();
  std::string sidecar;
  absl::StatusOr<std::string> text = Serialize(graph, options, base, &sidecar);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat(path, ": error: ", text.status().message()));
  }
  std::string sidecar_name;
  if (!sidecar.empty()) {
    sidecar_name = SidecarNameFor(base, sidecar);
    // The sidecar first: the JSON naming it is committed after it.
    EGRET_RETURN_IF_ERROR(
        txn->Stage(dir.empty() ? sidecar_name : absl::StrCat(dir, "/", sidecar_name), sidecar));
  }
  EGRET_RETURN_IF_ERROR(txn->Stage(path, *text));
  // Sidecars of the graph this one replaces go once the new JSON is in place.
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name != sidecar_name && IsSidecarNameOf(name, base)) {
      txn->RemoveAfterCommit(e.path().string());
    }
  }
  return absl::OkStatus();
}

absl::Status WriteGraphJson(const Graph& graph, const std::string& path,
                            const GraphWriteOptions& options) {
  FileTransaction txn;
  EGRET_RETURN_IF_ERROR(StageGraphJson(graph, path, options, &txn));
  return txn.Commit();
}

absl::StatusOr<std::string> GraphToJsonString(const Graph& graph) {
  return Serialize(graph, GraphWriteOptions{}, "", nullptr);
}

}  // namespace egret
