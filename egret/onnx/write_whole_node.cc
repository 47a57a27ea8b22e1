// The writer's whole-node mappings (writer_internal.h): EmitCustom writes a
// node with no standard ONNX op in egret's domain (its op, implementation,
// cost and output encodings as attributes, its outputs typed in value_info);
// EmitOpaque writes an opaque "onnx.<Op>" node back as that ONNX op, with its
// absent inputs, list attributes and subgraphs (each by a body writer of its
// own).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/executor/runtime_body.h"
#include "egret/graph/op_table.h"
#include "egret/graph/string_list.h"
#include "egret/onnx/kept_graph_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/writer_internal.h"
#include "egret/support/status_macros.h"

namespace egret::onnx_export {

absl::Status Writer::EmitCustom() {
  const Node& n = Cur();
  std::vector<std::string> ins;
  for (int i = 0; i < NumIn(); ++i) {
    const Node& p = g_.node(In(i).node);
    if (p.op == kShapeOp) {
      std::vector<double> d(InType(i).dims.begin(), InType(i).dims.end());
      Tensor t = Tensor::FromValues(TensorType(DType::kInt32, {static_cast<int64_t>(d.size())}), d);
      ins.push_back(Initializer(t, absl::StrCat(Name(In(i)), "/shape")));
    } else {
      ins.push_back(Name(In(i)));
    }
  }
  std::vector<std::string> outs;
  int count = static_cast<int>(n.outputs.size());
  if (n.outputs.size() == 1 && n.outputs[0].dtype == DType::kMulti) {
    auto it = multi_count_.find(cur_);
    count = it == multi_count_.end() ? 1 : it->second;
    for (int k = 0; k < count; ++k) {
      outs.push_back(absl::StrCat(OutName(0), ":", k));
      used_.insert(outs.back());
    }
  } else {
    for (int k = 0; k < count; ++k) outs.push_back(OutName(k));
  }
  onnx::NodeProto* p = Add(BaseOpName(n.op), ins, outs, kEgretOnnxDomain);
  AttrStr(p, "egret_op", n.op);
  for (const auto& [key, value] : n.attrs) {
    if (key == kImplAttr) {
      if (const auto* s = std::get_if<std::string>(&value)) AttrStr(p, "implementation", *s);
    } else if (key == kCostAttr) {
      if (const auto* d = std::get_if<double>(&value)) AttrFloat(p, "cost", *d);
    }
  }
  std::vector<int64_t> zeros;
  std::vector<double> steps;
  std::vector<int64_t> dtypes;
  for (const TensorType& t : n.outputs) {
    zeros.push_back(t.zero_offset);
    steps.push_back(t.stepsize);
    dtypes.push_back(static_cast<int64_t>(t.dtype));
  }
  AttrInts(p, "out_dtypes", dtypes);
  AttrInts(p, "out_zero_offsets", zeros);
  AttrFloats(p, "out_stepsizes", steps);
  // Typed in value_info: no ONNX tool can infer the type of a custom op.
  for (int k = 0; k < static_cast<int>(n.outputs.size()); ++k) {
    if (n.outputs[k].dtype == DType::kMulti) continue;
    types_[OutName(k)] = n.outputs[k];
    EGRET_ASSIGN_OR_RETURN(int32_t elem, ElemType(n.outputs[k]));
    SetValueInfo(gp_->add_value_info(), OutName(k), n.outputs[k], elem);
  }
  return absl::OkStatus();
}

absl::Status Writer::EmitOpaque() {
  const Node& n = Cur();
  std::string_view rest = std::string_view(n.op).substr(5);  // after "onnx."
  std::string domain, op_type(rest);
  if (size_t dot = rest.rfind('.'); dot != std::string_view::npos) {
    domain = std::string(rest.substr(0, dot));
    op_type = std::string(rest.substr(dot + 1));
    if (options_.standard_only) {
      return NodeError(absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("domain '", domain, "' is not standard ONNX (standard-only)"));
    }
  }
  // A batched Scan (before opset 9) has another signature than the written
  // opset's.
  if (op_type == "Scan" && domain.empty()) {
    if (auto it = n.attrs.find("onnx.opset"); it != n.attrs.end()) {
      if (const auto* v = std::get_if<int64_t>(&it->second); v != nullptr && *v < 9) {
        return NodeError(absl::StatusCode::kUnimplemented,
                         absl::StrCat("a Scan of opset ", *v, " cannot be written at opset ",
                                      kOnnxWriteOpset, " (its signature changed in opset 9)"));
      }
    }
  }
  // The importer records the ONNX input positions that were left out
  // ("onnx.absent_inputs"); they are empty names again.
  std::vector<int64_t> absent;
  if (auto it = n.attrs.find("onnx.absent_inputs"); it != n.attrs.end()) {
    if (const auto* v = std::get_if<std::vector<int64_t>>(&it->second)) absent = *v;
  }
  // Captured values (kCapturedAttr) are read by the bodies by name, not
  // inputs of the ONNX node.
  int64_t captured = 0;
  if (auto it = n.attrs.find(kCapturedAttr); it != n.attrs.end()) {
    if (const auto* v = std::get_if<int64_t>(&it->second)) captured = *v;
  }
  const int explicit_inputs = NumIn() - static_cast<int>(captured);
  if (captured < 0 || explicit_inputs < 0) {
    return NodeError(absl::StatusCode::kInvalidArgument, "captures more values than it has inputs");
  }
  std::vector<std::string> ins, outs;
  for (int i = 0, pos = 0; i < explicit_inputs; ++pos) {
    if (std::find(absent.begin(), absent.end(), pos) != absent.end()) {
      ins.push_back("");
    } else {
      ins.push_back(Name(In(i++)));
    }
  }
  for (int k = 0; k < static_cast<int>(n.outputs.size()); ++k) outs.push_back(OutName(k));
  onnx::NodeProto* p = Add(op_type, ins, outs, domain);
  // A body kept as ONNX for import at run time (SequenceMap): its inputs
  // after the formal ones are the captured values, read by their names in
  // the model it came from.
  const bool runtime_body = n.attrs.contains(kRuntimeBodyAttr);
  if (runtime_body) {
    absl::StatusOr<onnx::GraphProto> body =
        onnx_internal::SerializedGraph(n.attrs, kRuntimeBodyAttr);
    if (!body.ok()) return NodeError(body.status().code(), std::string(body.status().message()));
    if (body->input_size() < captured) {
      return NodeError(absl::StatusCode::kInvalidArgument,
                       "its body has fewer inputs than the node captures");
    }
    if (captured > 0) {
      return NodeError(absl::StatusCode::kUnimplemented,
                       "its body reads values of the enclosing graph, which egret cannot write "
                       "back under their new names");
    }
    onnx::AttributeProto* a = p->add_attribute();
    a->set_name("body");
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = *std::move(body);
  }
  for (const auto& [key, value] : n.attrs) {
    if (runtime_body && key == "body") continue;  // the importer's summary of it
    // A STRINGS attribute: its list, not the comma-joined summary.
    if (auto list = n.attrs.find(absl::StrCat(std::string(kStringListAttrPrefix), key));
        list != n.attrs.end()) {
      const auto* text = std::get_if<std::string>(&list->second);
      std::optional<std::vector<std::string>> strings =
          text == nullptr ? std::nullopt : DecodeStringList(*text);
      if (!strings) {
        return NodeError(absl::StatusCode::kInvalidArgument,
                         absl::StrCat("attribute ", list->first, " is not a list of strings"));
      }
      onnx::AttributeProto* a = p->add_attribute();
      a->set_name(key);
      a->set_type(onnx::AttributeProto::STRINGS);
      for (std::string& e : *strings) a->add_strings(std::move(e));
      continue;
    }
    // A TENSOR attribute: the tensor, not the summary.
    if (auto whole =
            n.attrs.find(absl::StrCat(std::string(onnx_internal::kTensorProtoAttrPrefix), key));
        whole != n.attrs.end()) {
      const auto* text = std::get_if<std::string>(&whole->second);
      std::string bytes;
      onnx::AttributeProto* a = p->add_attribute();
      if (text == nullptr || !absl::Base64Unescape(*text, &bytes) ||
          !a->mutable_t()->ParseFromString(bytes)) {
        return NodeError(absl::StatusCode::kInvalidArgument,
                         absl::StrCat("attribute ", whole->first, " is not an ONNX tensor"));
      }
      a->set_name(key);
      a->set_type(onnx::AttributeProto::TENSOR);
      continue;
    }
    // A body kept as ONNX (kept_graph_internal.h): its reads of the
    // enclosing scopes renamed to the names of the node's captured inputs.
    if (const std::string kept_key = KeptGraphKey(key); n.attrs.contains(kept_key)) {
      absl::StatusOr<onnx::GraphProto> kept = onnx_internal::SerializedGraph(n.attrs, kept_key);
      if (!kept.ok()) return NodeError(kept.status().code(), std::string(kept.status().message()));
      absl::StatusOr<std::vector<std::string>> listed = onnx_internal::KeptReads(n.attrs);
      if (!listed.ok()) {
        return NodeError(listed.status().code(), std::string(listed.status().message()));
      }
      const std::vector<std::string>& reads = *listed;
      if (static_cast<int64_t>(reads.size()) != captured) {
        return NodeError(absl::StatusCode::kInvalidArgument,
                         absl::StrFormat("its kept subgraphs read %d names of the enclosing "
                                         "scopes, and it captures %d values",
                                         reads.size(), captured));
      }
      absl::flat_hash_map<std::string, std::string> renamed;
      for (size_t j = 0; j < reads.size(); ++j) {
        renamed.emplace(reads[j], Name(In(explicit_inputs + static_cast<int>(j))));
      }
      onnx_internal::RenameOuterReads(&*kept, renamed);
      onnx::AttributeProto* a = p->add_attribute();
      a->set_name(key);
      a->set_type(onnx::AttributeProto::GRAPH);
      *a->mutable_g() = *std::move(kept);
      continue;
    }
    // egret's own annotations and the importer's ("onnx.opset", ...).
    if (key.rfind("egret.", 0) == 0 || key.rfind("onnx.", 0) == 0) continue;
    if (const auto* i = std::get_if<int64_t>(&value)) AttrInt(p, key, *i);
    if (const auto* d = std::get_if<double>(&value)) AttrFloat(p, key, *d);
    if (const auto* s = std::get_if<std::string>(&value)) AttrStr(p, key, *s);
    if (const auto* is = std::get_if<std::vector<int64_t>>(&value)) AttrInts(p, key, *is);
    if (const auto* fs = std::get_if<std::vector<double>>(&value)) AttrFloats(p, key, *fs);
    if (const auto* g = std::get_if<GraphPtr>(&value); g != nullptr && *g != nullptr) {
      const Graph& body = **g;
      if (body.inputs().size() < static_cast<size_t>(captured)) {
        return NodeError(
            absl::StatusCode::kInvalidArgument,
            absl::StrCat("subgraph '", key, "' has fewer inputs than the node captures"));
      }
      // The body's captured inputs are the last `captured` ones.
      absl::StatusOr<onnx::GraphProto> gp;
      {
        Writer sub(body, file_, options_);
        sub.is_body_ = true;
        const size_t formal = body.inputs().size() - captured;
        for (int64_t j = 0; j < captured; ++j) {
          sub.outer_names_[body.inputs()[formal + j]] = Name(In(explicit_inputs + j));
          sub.types_[Name(In(explicit_inputs + j))] = InType(explicit_inputs + j);
        }
        sub.used_ = used_;
        sub.node_names_ = node_names_;
        gp = sub.WriteBodyGraph(key);
        if (gp.ok()) {
          used_ = std::move(sub.used_);
          node_names_ = std::move(sub.node_names_);
          domains_.insert(sub.domains_.begin(), sub.domains_.end());
        }
      }
      if (!gp.ok()) return gp.status();
      onnx::AttributeProto* a = p->add_attribute();
      a->set_name(key);
      a->set_type(onnx::AttributeProto::GRAPH);
      *a->mutable_g() = *std::move(gp);
    }
  }
  for (int k = 0; k < static_cast<int>(n.outputs.size()); ++k) types_[OutName(k)] = n.outputs[k];
  return absl::OkStatus();
}

}  // namespace egret::onnx_export
