// The graph JSON reader: ParseGraphJson and ReadGraphJson (graph_json.h).
// The text is checked before and after nlohmann parses it (nesting depth,
// syntax with its position, overflowing numbers, duplicate keys); then the
// Reader walks the document: the header (format, version, name, options),
// the sidecar it loads and checks, the nodes in two passes (nodes and their
// names, then the inputs, which may refer to any node), the graph inputs and
// outputs, and last Validate and the declared types. The values inside
// (types, attributes, constant elements) are read by graph_json_values.cc.
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/declared_types.h"
#include "egret/graph/graph_json.h"
#include "egret/graph/graph_json_internal.h"
#include "egret/support/status_macros.h"

namespace egret {
namespace graph_json_internal {

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
  graph.ReserveNodes(graph.num_nodes() + nodes_.size());
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

}  // namespace graph_json_internal

using graph_json_internal::FindDuplicateKey;
using graph_json_internal::FindOverflowingNumber;
using graph_json_internal::FindTooDeep;
using graph_json_internal::Json;
using graph_json_internal::OneLine;
using graph_json_internal::Quote;
using graph_json_internal::Reader;

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
}  // namespace egret
