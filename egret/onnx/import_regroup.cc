#include <algorithm>
#include <charconv>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/graph_json.h"
#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/import_regroup_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/writer_internal.h"

namespace egret::onnx_import {

namespace {

using onnx_record::DocLine;
using onnx_record::kGroupTag;
using onnx_record::kPermutedTag;
using onnx_record::kRecordTag;
using onnx_record::kSplatTag;
using onnx_record::kTensorPrefix;
using onnx_record::kUnnamedPrefix;

// A record parsed back into its small graph. Records never name a sidecar
// (the writer keeps every constant inline): one that does is refused rather
// than letting a file pull in another file.
std::optional<Graph> ParseRecord(std::string_view doc, uint64_t max_bytes) {
  std::optional<std::string_view> text = DocLine(doc, kRecordTag);
  if (!text || text->find("\"sidecar\"") != std::string_view::npos) return std::nullopt;
  absl::StatusOr<Graph> g = ParseGraphJson(*text, "record", "", max_bytes);
  if (!g.ok()) return std::nullopt;
  return *std::move(g);
}

// A value record (ValueRecord): one "*Input" node, one output.
struct ValueInfo {
  std::string egret_name;
  TensorType type;
  std::string onnx_name;
  Provenance provenance;
};

std::optional<ValueInfo> ParseValueRecord(std::string_view doc, uint64_t max_bytes) {
  std::optional<Graph> g = ParseRecord(doc, max_bytes);
  if (!g || g->num_nodes() != 1 || g->node(0).op != kInputOp || g->outputs().size() != 1) {
    return std::nullopt;
  }
  return ValueInfo{g->node(0).name, g->node(0).outputs[0], g->outputs()[0].name,
                   g->node(0).provenance};
}

// Every field of the two graphs but the order of the initializers.
bool SameGraphProto(const onnx::GraphProto& a, const onnx::GraphProto& b) {
  auto same_list = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (int i = 0; i < x.size(); ++i) {
      if (x.Get(i).SerializeAsString() != y.Get(i).SerializeAsString()) return false;
    }
    return true;
  };
  auto sorted = [](const auto& list) {
    std::vector<std::string> v;
    for (const auto& t : list) v.push_back(t.SerializeAsString());
    std::sort(v.begin(), v.end());
    return v;
  };
  return a.name() == b.name() && a.doc_string() == b.doc_string() &&
         same_list(a.node(), b.node()) && same_list(a.input(), b.input()) &&
         same_list(a.output(), b.output()) && same_list(a.value_info(), b.value_info()) &&
         sorted(a.initializer()) == sorted(b.initializer()) && a.sparse_initializer_size() == 0 &&
         b.sparse_initializer_size() == 0;
}

class Regrouper {
 public:
  Regrouper(const onnx::ModelProto& model, const OnnxImportOptions& options)
      : gp_(model.graph()), max_bytes_(options.max_file_bytes) {}

  std::optional<Graph> Run();

 private:
  // The value of ONNX tensor `name`: a graph input, an earlier group's
  // output or a constant from the initializers.
  std::optional<ValueRef> Value(const std::string& name);
  std::optional<ValueRef> Constant(const std::string& name);
  // Rebuilds the egret node of the group whose record is in `doc` (the doc
  // string of its first ONNX node).
  bool Group(std::string_view doc);
  // The groups whose ONNX nodes the writer's tidy pass removed, recorded in
  // `doc` (kBeforeTag lines), rebuilt in order.
  bool GroupsBefore(std::string_view doc);
  // A copy of record node `p` ("$Shape" or "$Const"), shared by name.
  std::optional<ValueRef> Copy(const Node& p);
  // Takes initializer `t` (its name must be new).
  bool AddInitializer(const onnx::TensorProto& t);
  // The initializer a kSplatTag ConstantOfShape node stands for, added.
  bool AddSplat(const onnx::NodeProto& node);

  const onnx::GraphProto& gp_;
  uint64_t max_bytes_;
  Graph g_;
  absl::flat_hash_map<std::string, ValueRef> values_;
  absl::flat_hash_map<std::string, const onnx::TensorProto*> initializers_;
  absl::flat_hash_map<std::string, const onnx::TensorProto*> permuted_;  // by source name
  absl::flat_hash_map<std::string, NodeId> copies_;                      // by egret name
  std::deque<onnx::TensorProto> splats_;  // the initializers AddSplat made
};

bool Regrouper::AddInitializer(const onnx::TensorProto& t) {
  if (!initializers_.emplace(t.name(), &t).second) return false;
  if (DocLine(t.doc_string(), kPermutedTag)) {
    std::optional<ValueInfo> info = ParseValueRecord(t.doc_string(), max_bytes_);
    if (info) permuted_.emplace(info->onnx_name, &t);
  }
  return true;
}

bool Regrouper::AddSplat(const onnx::NodeProto& node) {
  if (node.op_type() != "ConstantOfShape" || !node.domain().empty() || node.input_size() != 1 ||
      node.output_size() != 1 || node.attribute_size() != 1 ||
      node.attribute(0).name() != "value" || !node.attribute(0).has_t()) {
    return false;
  }
  // The doc string the initializer had: the node's, after the tag line.
  const std::string& doc = node.doc_string();
  const size_t eol = doc.find('\n');
  if (eol == std::string::npos || doc.substr(0, eol) != kSplatTag) return false;
  const onnx::TensorProto& value = node.attribute(0).t();
  auto shape_it = initializers_.find(node.input(0));
  if (shape_it == initializers_.end() || value.dims_size() != 1 || value.dims(0) != 1 ||
      value.raw_data().empty()) {
    return false;
  }
  absl::StatusOr<Tensor> shape = onnx_internal::TensorFromProto(*shape_it->second);
  if (!shape.ok() || shape->type().dtype != DType::kInt64 || shape->type().rank() != 1) {
    return false;
  }
  std::vector<int64_t> dims(static_cast<size_t>(shape->num_elements()));
  if (dims.size() > static_cast<size_t>(kMaxRank)) return false;
  std::memcpy(dims.data(), shape->bytes().data(), dims.size() * sizeof(int64_t));
  // The same limit as the file: a small file must not expand into a huge
  // tensor here.
  const std::string& element = value.raw_data();
  std::optional<int64_t> n = ElementCount(dims);
  if (!n || *n == 0 ||
      static_cast<uint64_t>(*n) > max_bytes_ / static_cast<uint64_t>(element.size())) {
    return false;
  }
  onnx::TensorProto& t = splats_.emplace_back();
  t.set_name(node.output(0));
  for (int64_t d : dims) t.add_dims(d);
  t.set_data_type(value.data_type());
  std::string raw;
  raw.reserve(static_cast<size_t>(*n) * element.size());
  for (int64_t i = 0; i < *n; ++i) raw.append(element);
  t.set_raw_data(std::move(raw));
  t.set_doc_string(doc.substr(eol + 1));
  return AddInitializer(t);
}

std::optional<ValueRef> Regrouper::Value(const std::string& name) {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  return Constant(name);
}

std::optional<ValueRef> Regrouper::Constant(const std::string& name) {
  std::optional<ValueInfo> info;
  std::optional<Tensor> value;
  if (auto it = initializers_.find(name); it != initializers_.end()) {
    info = ParseValueRecord(it->second->doc_string(), max_bytes_);
    if (!info || info->onnx_name != name) return std::nullopt;
    absl::StatusOr<Tensor> t = onnx_internal::TensorFromProto(*it->second);
    if (!t.ok()) return std::nullopt;
    value = *std::move(t);
  } else if (auto pt = permuted_.find(name); pt != permuted_.end()) {
    // A constant only read transposed: undo the transpose.
    info = ParseValueRecord(pt->second->doc_string(), max_bytes_);
    std::optional<std::string_view> perm_text = DocLine(pt->second->doc_string(), kPermutedTag);
    if (!info || !perm_text) return std::nullopt;
    std::vector<int> perm;
    for (std::string_view rest = *perm_text; perm.size() <= 64;) {
      int d = 0;
      auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), d);
      if (ec != std::errc() || end == rest.data()) return std::nullopt;
      perm.push_back(d);
      rest.remove_prefix(static_cast<size_t>(end - rest.data()));
      if (rest.empty()) break;
      if (rest[0] != ',') return std::nullopt;
      rest.remove_prefix(1);
    }
    absl::StatusOr<Tensor> t = onnx_internal::TensorFromProto(*pt->second);
    if (!t.ok() || static_cast<int>(perm.size()) != t->type().rank()) return std::nullopt;
    std::vector<int> inverse(perm.size(), -1);
    for (size_t i = 0; i < perm.size(); ++i) {
      if (perm[i] < 0 || perm[i] >= static_cast<int>(perm.size()) || inverse[perm[i]] >= 0) {
        return std::nullopt;
      }
      inverse[perm[i]] = static_cast<int>(i);
    }
    value = onnx_internal::TransposeTensor(*t, inverse);
  } else {
    return std::nullopt;
  }
  // The stored numbers in the recorded type (its encoding). A constant the
  // tidy pass broadcast to a higher rank has leading 1s the record lacks.
  if ((value->type().dims != info->type.dims &&
       (!permuted_.contains(name) || value->num_elements() != info->type.num_elements())) ||
      ElementSize(value->type().dtype) != ElementSize(info->type.dtype) ||
      !IsConcrete(info->type.dtype)) {
    return std::nullopt;
  }
  absl::StatusOr<Tensor> typed = Tensor::FromBytes(info->type, value->bytes());
  if (!typed.ok()) return std::nullopt;
  const NodeId id =
      g_.AddConstant(info->egret_name, std::make_shared<const Tensor>(*std::move(typed)));
  g_.mutable_node(id).provenance = std::move(info->provenance);
  values_[name] = ValueRef{id, 0};
  return ValueRef{id, 0};
}

std::optional<ValueRef> Regrouper::Copy(const Node& p) {
  if (auto it = copies_.find(p.name); it != copies_.end()) {
    const Node& q = g_.node(it->second);
    if (q.op != p.op || q.outputs != p.outputs) return std::nullopt;
    return ValueRef{it->second, 0};
  }
  if (p.name.empty()) return std::nullopt;
  Node copy = p;
  if (std::string_view(p.name).substr(0, 1) == kUnnamedPrefix) copy.name.clear();
  const NodeId id = g_.AddNode(std::move(copy));
  copies_[p.name] = id;
  return ValueRef{id, 0};
}

bool Regrouper::Group(std::string_view doc) {
  std::optional<Graph> mini = ParseRecord(doc, max_bytes_);
  if (!mini) return false;
  NodeId main = kNoNode;
  for (NodeId id = 0; id < mini->num_nodes(); ++id) {
    const std::string& op = mini->node(id).op;
    if (op == kInputOp || op == kShapeOp || op == kConstOp) continue;
    if (main != kNoNode) return false;
    main = id;
  }
  if (main == kNoNode) return false;
  const Node& m = mini->node(main);
  Node n = m;
  n.inputs.clear();
  for (const ValueRef& in : m.inputs) {
    const Node& p = mini->node(in.node);
    std::optional<ValueRef> v;
    if (p.op == kInputOp) {
      const std::string_view prefix = kTensorPrefix;
      if (p.name.substr(0, prefix.size()) != prefix) return false;
      v = Value(p.name.substr(prefix.size()));
    } else if (p.op == kShapeOp || p.op == kConstOp) {
      v = Copy(p);
    }
    if (!v) return false;
    n.inputs.push_back(*v);
  }
  if (mini->outputs().size() != m.outputs.size()) return false;
  // Names are unique: Validate checks at the end.
  const NodeId id = g_.AddNode(std::move(n));
  // Known ops must type-check against their producers (the writer trusts
  // the graphs it is given).
  if (IsKnownOp(g_.node(id).op)) {
    absl::StatusOr<std::vector<TensorType>> types = InferNodeOutputTypes(g_, id);
    if (!types.ok() || types->size() != g_.node(id).outputs.size()) return false;
    for (size_t k = 0; k < types->size(); ++k) {
      if ((*types)[k].dims != g_.node(id).outputs[k].dims ||
          (*types)[k].dtype != g_.node(id).outputs[k].dtype) {
        return false;
      }
    }
  }
  for (size_t k = 0; k < mini->outputs().size(); ++k) {
    const GraphOutput& o = mini->outputs()[k];
    if (o.value != ValueRef{main, static_cast<uint32_t>(k)} || values_.contains(o.name)) {
      return false;
    }
    values_[o.name] = ValueRef{id, static_cast<uint32_t>(k)};
  }
  return true;
}

bool Regrouper::GroupsBefore(std::string_view doc) {
  const std::string_view tag = onnx_record::kBeforeTag;
  while (!doc.empty()) {
    const size_t end = doc.find('\n');
    std::string_view line = doc.substr(0, end);
    if (line.substr(0, tag.size()) == tag) {
      line.remove_prefix(tag.size());
      if (!Group(std::string(kRecordTag) + std::string(line))) return false;
    }
    if (end == std::string_view::npos) break;
    doc.remove_prefix(end + 1);
  }
  return true;
}

std::optional<Graph> Regrouper::Run() {
  g_.set_name(gp_.name());
  for (const auto& t : gp_.initializer()) {
    if (!AddInitializer(t)) return std::nullopt;
  }
  for (const auto& node : gp_.node()) {
    if (DocLine(node.doc_string(), kSplatTag) && !AddSplat(node)) return std::nullopt;
  }
  for (const auto& in : gp_.input()) {
    std::optional<ValueInfo> info = ParseValueRecord(in.doc_string(), max_bytes_);
    if (!info || info->onnx_name != in.name() || values_.contains(in.name())) {
      return std::nullopt;
    }
    const NodeId id = g_.AddInput(info->egret_name, info->type);
    g_.mutable_node(id).provenance = std::move(info->provenance);
    values_[in.name()] = ValueRef{id, 0};
  }
  // Groups are runs of ONNX nodes with one group tag; what follows the last
  // group is the Identity nodes of graph outputs named apart from their value.
  absl::flat_hash_map<std::string, std::string> aliases;
  std::string current;
  absl::flat_hash_map<std::string, bool> seen;
  for (const auto& node : gp_.node()) {
    if (!GroupsBefore(node.doc_string())) return std::nullopt;
    std::optional<std::string_view> tag = DocLine(node.doc_string(), kGroupTag);
    if (!tag) {
      if (DocLine(node.doc_string(), kSplatTag)) continue;  // AddSplat took it
      if (node.op_type() != "Identity" || !node.domain().empty() || node.input_size() != 1 ||
          node.output_size() != 1) {
        return std::nullopt;
      }
      aliases[node.output(0)] = node.input(0);
      current.clear();
      continue;
    }
    if (!aliases.empty()) return std::nullopt;
    if (*tag == current) continue;
    current = std::string(*tag);
    if (!seen.emplace(current, true).second || !Group(node.doc_string())) return std::nullopt;
  }
  if (!GroupsBefore(gp_.doc_string())) return std::nullopt;
  for (const auto& o : gp_.output()) {
    auto a = aliases.find(o.name());
    std::optional<ValueRef> v = Value(a == aliases.end() ? o.name() : a->second);
    if (!v) return std::nullopt;
    g_.AddOutput(*v, o.name());
  }
  if (!g_.Validate().ok()) return std::nullopt;
  // The soundness check: the writer must write this graph as the model is.
  onnx_export::Writer w(g_, "regroup", OnnxWriteOptions{});
  absl::StatusOr<onnx::ModelProto> again;
  try {
    again = w.Run();
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!again.ok() || !SameGraphProto(again->graph(), gp_)) return std::nullopt;
  return std::move(g_);
}

}  // namespace

std::optional<Graph> RegroupEgretModel(const onnx::ModelProto& model,
                                       const OnnxImportOptions& options) {
  // Options that change what the plain import builds (layout, frozen or
  // resized inputs) leave the model to it, and so do named dims (the plain
  // import checks that the model has them).
  if (model.producer_name() != "egret" || !model.has_graph() || !options.nhwc ||
      !options.input_values.empty() || !options.input_numbers.empty() ||
      !options.input_shapes.empty() || !options.dim_params.empty()) {
    return std::nullopt;
  }
  std::optional<Graph> g = Regrouper(model, options).Run();
  if (!g) return std::nullopt;
  // The options, which nothing in ONNX says otherwise (a missing or
  // malformed graph record leaves them empty).
  for (const auto& kv : model.metadata_props()) {
    if (kv.key() != onnx_record::kGraphKey || kv.value().find("\"sidecar\"") != std::string::npos) {
      continue;
    }
    absl::StatusOr<Graph> r = ParseGraphJson(kv.value(), "record", "", options.max_file_bytes);
    if (r.ok()) g->mutable_options() = r->options();
  }
  return g;
}

}  // namespace egret::onnx_import
