// The graph JSON writer: WriteGraphJson, StageGraphJson and
// GraphToJsonString (graph_json.h). Values become JSON in their normalized
// form (floats as the shortest decimal that reads back, non-finite numbers
// as "nan"/"inf"/"-inf", types, attributes, options, constant elements),
// nodes without a name get a generated one, large constants go to a sidecar
// named by the hash of its contents, and the text is laid out one value per
// line unless it fits in 120 columns. Writing stages the sidecar before the
// JSON that names it, and removes the replaced graph's sidecars after.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/graph_json.h"
#include "egret/graph/graph_json_internal.h"
#include "egret/support/status_macros.h"

namespace egret {
namespace {

using graph_json_internal::Fnv1a64;
using graph_json_internal::Hex64;
using graph_json_internal::Json;
using graph_json_internal::kFormatName;
using graph_json_internal::kFormatVersion;

// Sidecar entries start at multiples of this (friendly to mmap and vector loads).
constexpr int64_t kSidecarAlign = 64;

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
      if (!node.provenance.from().empty()) pv["from"] = node.provenance.from();
      if (!node.provenance.rules().empty()) pv["rules"] = node.provenance.rules();
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
