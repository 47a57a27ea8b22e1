#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/graph_json.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/egret_record_internal.h"

namespace egret::onnx_record {

namespace {

// Graph JSON on one line: the writer's line breaks and indentation are
// whitespace between tokens (a string value holds its newlines escaped).
std::string OneLine(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] != '\n') {
      out.push_back(json[i]);
      continue;
    }
    while (i + 1 < json.size() && json[i + 1] == ' ') ++i;
  }
  return out;
}

// `g` as graph JSON on one line.
absl::StatusOr<std::string> OneLineJson(const Graph& g) {
  absl::StatusOr<std::string> json = GraphToJsonString(g);
  if (!json.ok()) return json.status();
  return OneLine(*json);
}

}  // namespace

std::optional<std::string_view> DocLine(std::string_view doc, std::string_view tag) {
  while (!doc.empty()) {
    const size_t end = doc.find('\n');
    std::string_view line = doc.substr(0, end);
    if (line.substr(0, tag.size()) == tag) return line.substr(tag.size());
    if (end == std::string_view::npos) break;
    doc.remove_prefix(end + 1);
  }
  return std::nullopt;
}

absl::StatusOr<std::string> NodeRecord(const Graph& g, NodeId id,
                                       const std::function<std::string(ValueRef)>& onnx_name) {
  const Node& n = g.node(id);
  const OpDef* def = FindOpDef(n.op);
  Graph mini;
  absl::flat_hash_map<ValueRef, NodeId> made;
  Node copy = n;
  copy.inputs.clear();
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ValueRef in = n.inputs[i];
    const Node& p = g.node(in.node);
    auto it = made.find(in);
    if (it == made.end()) {
      NodeId m;
      // An unnamed copy is named "#<id>" (the reader shares copies by name).
      std::string name = p.name.empty() ? absl::StrCat(kUnnamedPrefix, in.node) : p.name;
      if (p.op == kShapeOp) {
        Node s = p;
        s.inputs.clear();
        s.name = std::move(name);
        m = mini.AddNode(std::move(s));
      } else if (p.op == kConstOp && def != nullptr && def->IsParam(static_cast<int>(i))) {
        m = mini.AddConstant(std::move(name), p.constant);
        mini.mutable_node(m).provenance = p.provenance;
      } else {
        m = mini.AddInput(absl::StrCat(kTensorPrefix, onnx_name(in)), g.TypeOf(in));
      }
      it = made.emplace(in, m).first;
    }
    copy.inputs.push_back(ValueRef{it->second, 0});
  }
  const NodeId main = mini.AddNode(std::move(copy));
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const ValueRef v{id, static_cast<uint32_t>(k)};
    mini.AddOutput(ValueRef{main, static_cast<uint32_t>(k)}, onnx_name(v));
  }
  return OneLineJson(mini);
}

absl::StatusOr<std::string> ValueRecord(const std::string& egret_name, const TensorType& type,
                                        const std::string& onnx_name,
                                        const Provenance& provenance) {
  Graph mini;
  const NodeId id = mini.AddInput(egret_name, type);
  mini.mutable_node(id).provenance = provenance;
  mini.AddOutput(ValueRef{id, 0}, onnx_name);
  return OneLineJson(mini);
}

absl::StatusOr<std::string> GraphRecord(const Graph& g) {
  Graph mini;
  mini.set_name(g.name());
  mini.mutable_options() = g.options();
  return OneLineJson(mini);
}

namespace {

// `doc` without the lines that carry a record tag.
std::string WithoutRecordLines(std::string_view doc) {
  std::string out;
  while (!doc.empty()) {
    const size_t end = doc.find('\n');
    std::string_view line = doc.substr(0, end);
    bool tagged = false;
    for (std::string_view tag :
         {std::string_view(kGroupTag), std::string_view(kRecordTag), std::string_view(kPermutedTag),
          std::string_view(kSplatTag), std::string_view(kBeforeTag)}) {
      tagged = tagged || line.substr(0, tag.size()) == tag;
    }
    if (!tagged) {
      if (!out.empty()) out += '\n';
      out.append(line.data(), line.size());
    }
    if (end == std::string_view::npos) break;
    doc.remove_prefix(end + 1);
  }
  return out;
}

void StripGraph(onnx::GraphProto* g) {
  g->set_doc_string(WithoutRecordLines(g->doc_string()));
  for (auto& n : *g->mutable_node()) n.set_doc_string(WithoutRecordLines(n.doc_string()));
  for (auto& t : *g->mutable_initializer()) t.set_doc_string(WithoutRecordLines(t.doc_string()));
  for (auto& i : *g->mutable_input()) i.set_doc_string(WithoutRecordLines(i.doc_string()));
}

}  // namespace

void StripRecords(onnx::ModelProto* model) {
  StripGraph(model->mutable_graph());
  google::protobuf::RepeatedPtrField<onnx::StringStringEntryProto> kept;
  for (const auto& kv : model->metadata_props()) {
    if (kv.key() != kGraphKey) *kept.Add() = kv;
  }
  model->mutable_metadata_props()->Swap(&kept);
}

}  // namespace egret::onnx_record
