#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/string_list.h"
#include "egret/onnx/kept_graph_internal.h"

namespace egret::onnx_internal {

std::string KeepGraph(const onnx::GraphProto& g) {
  return absl::Base64Escape(g.SerializeAsString());
}

absl::StatusOr<onnx::GraphProto> SerializedGraph(const Attributes& attrs, std::string_view key) {
  auto it = attrs.find(key);
  const std::string* text = it == attrs.end() ? nullptr : std::get_if<std::string>(&it->second);
  std::string bytes;
  onnx::GraphProto g;
  if (text == nullptr || !absl::Base64Unescape(*text, &bytes) || !g.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute ", std::string(key), " is not a serialized ONNX graph"));
  }
  return g;
}

absl::StatusOr<onnx::GraphProto> KeptGraph(const Attributes& attrs, std::string_view name) {
  const std::string key = KeptGraphKey(name);
  if (!attrs.contains(key)) {
    return absl::NotFoundError(absl::StrCat("no kept body for ", std::string(name)));
  }
  return SerializedGraph(attrs, key);
}

absl::StatusOr<std::vector<std::string>> KeptReads(const Attributes& attrs) {
  auto it = attrs.find(kKeptReadsAttr);
  if (it == attrs.end()) return std::vector<std::string>();
  const auto* text = std::get_if<std::string>(&it->second);
  std::optional<std::vector<std::string>> list =
      text == nullptr ? std::nullopt : DecodeStringList(*text);
  if (!list) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute ", it->first, " is not a list of strings"));
  }
  return *std::move(list);
}

bool KeepsAnyGraph(const Attributes& attrs) {
  auto it = attrs.lower_bound(kKeptGraphAttrPrefix);
  return it != attrs.end() && it->first.rfind(kKeptGraphAttrPrefix, 0) == 0;
}

absl::flat_hash_set<std::string> OwnNames(const onnx::GraphProto& g) {
  absl::flat_hash_set<std::string> defined;
  for (const auto& in : g.input()) defined.insert(in.name());
  for (const auto& init : g.initializer()) defined.insert(init.name());
  for (const auto& n : g.node()) defined.insert(n.output().begin(), n.output().end());
  return defined;
}

void RenameOuterReads(onnx::GraphProto* g,
                      const absl::flat_hash_map<std::string, std::string>& renamed) {
  // What `g` defines is its own: those outer names are not read here.
  const absl::flat_hash_set<std::string> own = OwnNames(*g);
  absl::flat_hash_map<std::string, std::string> visible;
  for (const auto& [from, to] : renamed) {
    if (!own.contains(from)) visible.emplace(from, to);
  }
  if (visible.empty()) return;
  auto rename = [&](std::string* name) {
    auto it = visible.find(*name);
    if (it != visible.end()) *name = it->second;
  };
  for (auto& n : *g->mutable_node()) {
    for (std::string& in : *n.mutable_input()) rename(&in);
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) RenameOuterReads(a.mutable_g(), visible);
      for (auto& sub : *a.mutable_graphs()) RenameOuterReads(&sub, visible);
    }
  }
  for (auto& o : *g->mutable_output()) rename(o.mutable_name());
  for (auto& vi : *g->mutable_value_info()) rename(vi.mutable_name());
}

void AddDefinedNames(const onnx::GraphProto& g, absl::flat_hash_set<std::string>* names) {
  for (const auto& in : g.input()) names->insert(in.name());
  for (const auto& init : g.initializer()) names->insert(init.name());
  for (const auto& n : g.node()) {
    names->insert(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      if (a.has_g()) AddDefinedNames(a.g(), names);
      for (const auto& sub : a.graphs()) AddDefinedNames(sub, names);
    }
  }
}

}  // namespace egret::onnx_internal
