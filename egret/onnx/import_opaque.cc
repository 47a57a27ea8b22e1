// Opaque nodes: an ONNX op egret cannot map is kept as "onnx.<Op>", typed by
// ONNX's shape inference or the model's value_info.
#include "absl/strings/escaping.h"
#include "egret/graph/string_list.h"
#include "egret/onnx/importer_internal.h"
#include "egret/onnx/kept_graph_internal.h"

namespace egret::onnx_import {

namespace {

// A TENSOR attribute of at most this many elements also keeps its values.
constexpr int64_t kMaxTensorAttrValues = 16;

TensorType FromOnnxTypeOrUnknown(const onnx::TypeProto& tp, bool* ok) {
  *ok = false;
  absl::StatusOr<std::optional<TensorType>> container = onnx_internal::ContainerTypeFromOnnx(tp);
  if (!container.ok()) return {};
  if (container->has_value()) {
    *ok = true;
    return **container;
  }
  if (!tp.has_tensor_type() || !tp.tensor_type().has_shape()) return {};
  absl::StatusOr<DType> dt = DTypeFromOnnx(tp.tensor_type().elem_type());
  if (!dt.ok()) return {};
  Dims d;
  for (const auto& dim : tp.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return {};
    d.push_back(dim.dim_value());
  }
  *ok = true;
  return TensorType(*dt, d);
}

// Whether the ranks and attribute lengths of a convolution or pooling node
// agree, as ONNX requires: X (and W) of one rank r >= 2, kernel_shape,
// strides, dilations, output_padding and output_shape of r - 2 values, pads
// of 2 (r - 2). ONNX 1.12's shape inference for these ops trusts that and
// reads past the end of the input shape when it does not (a segfault, found
// by fuzzing: F5 in docs/reliability.md), so a node that disagrees is never
// handed to it. `rank(i)` is input i's rank, or -1 when unknown or absent.
template <typename RankOf>
bool ConvPoolShapesAgree(const onnx::NodeProto& node, RankOf rank) {
  static const absl::flat_hash_map<std::string_view, std::pair<int, int>> kXW = {
      {"Conv", {0, 1}},        {"ConvInteger", {0, 1}},  {"ConvTranspose", {0, 1}},
      {"QLinearConv", {0, 3}}, {"AveragePool", {0, -1}}, {"MaxPool", {0, -1}},
      {"LpPool", {0, -1}},     {"MaxUnpool", {0, -1}}};
  if (!node.domain().empty() && node.domain() != "ai.onnx") return true;
  auto it = kXW.find(node.op_type());
  if (it == kXW.end()) return true;
  const int r = rank(it->second.first);
  if (r < 2) return false;
  if (it->second.second >= 0 && node.input_size() > it->second.second &&
      !node.input(it->second.second).empty() && rank(it->second.second) != r) {
    return false;
  }
  const int spatial = r - 2;
  for (const onnx::AttributeProto& a : node.attribute()) {
    const std::string& k = a.name();
    const int want = k == "pads" ? 2 * spatial
                     : k == "kernel_shape" || k == "strides" || k == "dilations" ||
                             k == "output_padding" || k == "output_shape"
                         ? spatial
                         : -1;  // not a per-axis list
    if (want >= 0 && a.ints_size() != want) return false;
  }
  return true;
}

}  // namespace

std::optional<onnx::ModelProto> Importer::InferCurrentNode() {
  auto rank = [&](int i) -> int {
    if (i >= cur_->input_size() || !Has(i)) return -1;
    auto it = values_.find(InName(i));
    return it == values_.end() ? -1 : static_cast<int>(it->second.type.dims.size());
  };
  if (!ConvPoolShapesAgree(*cur_, rank)) return std::nullopt;
  onnx::ModelProto m;
  m.set_ir_version(model_.ir_version() > 0 ? model_.ir_version() : 7);
  *m.mutable_opset_import() = model_.opset_import();
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("node");
  // The node's inputs, and what its subgraphs read from outside (spelled as
  // they spell it), typed as imported; small constants with their data.
  std::vector<std::pair<std::string, std::string>> ins;  // (ONNX name, importer name)
  for (int i = 0; i < cur_->input_size(); ++i) {
    if (Has(i)) ins.emplace_back(InName(i), InName(i));
  }
  for (const std::string& raw : OuterReads(*cur_)) ins.emplace_back(raw, Resolve(raw));
  absl::flat_hash_set<std::string> seen;
  for (const auto& [name, known] : ins) {
    auto it = values_.find(known);
    if (it == values_.end() || !seen.insert(name).second) continue;
    const Value& v = it->second;
    onnx::TypeProto type;
    if (!onnx_internal::TypeToOnnx(v.type, &type)) continue;
    if (!v.type.is_tensor()) {
      // A container's egret type has no element shapes; ONNX's, where known,
      // lets inference type what is taken out of it (SequenceAt).
      if (auto c = container_types_.find(known); c != container_types_.end()) type = *c->second;
    }
    onnx::ValueInfoProto* vi = g->add_input();
    vi->set_name(name);
    *vi->mutable_type() = std::move(type);
    if (v.constant && v.type.num_elements() <= kMaxInferInitializer) {
      onnx::TensorProto* init = g->add_initializer();
      TensorToProto(*v.constant, init);
      init->set_name(name);
    }
  }
  *g->add_node() = *cur_;
  try {
    onnx::shape_inference::InferShapes(m);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return m;
}

std::vector<std::optional<TensorType>> Importer::InferOnnxOutputTypes() {
  std::vector<std::optional<TensorType>> result(cur_->output_size());
  std::optional<onnx::ModelProto> m = InferCurrentNode();
  if (!m) return result;
  for (const auto& vi : m->graph().value_info()) {
    for (int k = 0; k < cur_->output_size(); ++k) {
      if (vi.name() != Out(k) || Out(k).empty()) continue;
      if (vi.type().has_sequence_type() || vi.type().has_optional_type()) {
        container_types_[Out(k)] = &owned_types_.emplace_back(vi.type());
      }
      bool ok;
      TensorType t = FromOnnxTypeOrUnknown(vi.type(), &ok);
      if (ok) result[k] = t;
    }
  }
  return result;
}

namespace {
std::string AttrSummary(const onnx::GraphProto& g) {
  return absl::StrFormat("<graph '%s': %d nodes>", g.name(), g.node_size());
}

}  // namespace

absl::Status Importer::DoOpaque(std::string_view reason, const ControlFlow* cf) {
  const onnx::NodeProto& node = *cur_;
  std::string op = "onnx.";
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    absl::StrAppend(&op, node.domain(), ".");
  absl::StrAppend(&op, node.op_type());
  Node n;
  n.op = op;
  std::vector<int64_t> absent;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!Has(i)) {
      absent.push_back(i);
      continue;
    }
    EGRET_ASSIGN_OR_RETURN(auto r, Get(InName(i), kPlain));
    n.inputs.push_back(r);
  }
  for (const auto& a : node.attribute()) {
    switch (a.type()) {
      case onnx::AttributeProto::INT:
        n.attrs[a.name()] = static_cast<int64_t>(a.i());
        break;
      case onnx::AttributeProto::FLOAT:
        n.attrs[a.name()] = static_cast<double>(a.f());
        break;
      case onnx::AttributeProto::STRING:
        n.attrs[a.name()] = a.s();
        break;
      case onnx::AttributeProto::INTS:
        n.attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end());
        break;
      case onnx::AttributeProto::FLOATS:
        n.attrs[a.name()] = std::vector<double>(a.floats().begin(), a.floats().end());
        break;
      case onnx::AttributeProto::STRINGS:
        n.attrs[a.name()] = absl::StrJoin(a.strings(), ",");
        n.attrs[absl::StrCat(std::string(kStringListAttrPrefix), a.name())] =
            EncodeStringList(std::vector<std::string>(a.strings().begin(), a.strings().end()));
        break;
      case onnx::AttributeProto::GRAPH:
        if (cf != nullptr && cf->bodies.contains(a.name())) {
          n.attrs[a.name()] = cf->bodies.find(a.name())->second;
        } else {
          n.attrs[a.name()] = AttrSummary(a.g());
          if (cf == nullptr) n.attrs[KeptGraphKey(a.name())] = onnx_internal::KeepGraph(a.g());
        }
        break;
      case onnx::AttributeProto::TENSOR: {
        n.attrs[a.name()] =
            absl::StrFormat("<tensor %s [%s]>", onnx_internal::OnnxTypeName(a.t().data_type()),
                            absl::StrJoin(a.t().dims(), ","));
        n.attrs[absl::StrCat(std::string(onnx_internal::kTensorProtoAttrPrefix), a.name())] =
            absl::Base64Escape(a.t().SerializeAsString());
        // A small tensor's values too, for the op's kernel (ConstantOfShape's
        // value); "onnx." attributes are not written back to ONNX.
        absl::StatusOr<Tensor> t = TensorFromProto(a.t());
        if (t.ok() && t->num_elements() <= kMaxTensorAttrValues) {
          std::vector<double> values;
          for (int64_t i = 0; i < t->num_elements(); ++i) values.push_back(t->GetReal(i));
          n.attrs[absl::StrCat("onnx.tensor.", a.name())] = std::move(values);
        }
        break;
      }
      default:
        n.attrs[a.name()] = std::string("<unsupported attribute>");
    }
  }
  if (onnx_internal::KeepsAnyGraph(n.attrs)) {
    // Bodies kept as ONNX (kept_graph_internal.h): what they read from the
    // enclosing scopes, constants too, becomes inputs of the node.
    std::vector<std::string> reads = OuterReads(node);
    for (const std::string& raw : reads) {
      if (!values_.contains(Resolve(raw))) {
        return absl::InvalidArgumentError(
            absl::StrFormat("a subgraph reads '%s', which no enclosing scope defines", raw));
      }
      EGRET_ASSIGN_OR_RETURN(ValueRef r, Get(Resolve(raw), kPlain));
      n.inputs.push_back(r);
    }
    if (!reads.empty()) {
      n.attrs[std::string(kCapturedAttr)] = static_cast<int64_t>(reads.size());
      n.attrs[std::string(kKeptReadsAttr)] = EncodeStringList(reads);
    }
  }
  if (cf != nullptr && !cf->captured.empty()) {
    n.inputs.insert(n.inputs.end(), cf->captured.begin(), cf->captured.end());
    n.attrs[std::string(kCapturedAttr)] = static_cast<int64_t>(cf->captured.size());
  }
  if (cf != nullptr) {
    for (const auto& [key, value] : cf->attrs) n.attrs[key] = value;
  }
  if (!absent.empty()) n.attrs["onnx.absent_inputs"] = absent;
  n.attrs["onnx.opset"] = static_cast<int64_t>(opset_);  // semantics may depend on it
  if (!reason.empty()) n.attrs["onnx.unmapped"] = std::string(reason);
  int last = node.output_size() - 1;
  while (last >= 0 && Out(last).empty()) --last;
  std::vector<std::optional<TensorType>> inferred =
      cf != nullptr ? cf->types : InferOnnxOutputTypes();
  inferred.resize(node.output_size());
  for (int k = 0; k <= last; ++k) {
    std::optional<TensorType> t = inferred[k];
    if (!t && !Out(k).empty()) {
      auto it = declared_types_.find(Out(k));
      if (it != declared_types_.end()) {
        bool ok;
        TensorType d = FromOnnxTypeOrUnknown(*it->second, &ok);
        if (ok) t = d;
      }
    }
    if (!t) {
      if (OutputUsed(k)) {
        return absl::UnimplementedError(absl::StrFormat(
            "unmapped op (kept opaque%s%s): the type of output '%s' is unknown (ONNX shape "
            "inference gives none): declare its element type and static dims in the model's "
            "value_info (no option gives an output's type)",
            reason.empty() ? "" : ": ", reason, Out(k)));
      }
      t = ScalarType(DType::kFloat32);  // an output nothing reads
      t->dims.push_back(0);
      n.attrs["onnx.untyped_outputs"] = static_cast<int64_t>(k);
    }
    n.outputs.push_back(*t);
  }
  if (n.outputs.empty()) return absl::InvalidArgumentError("has no outputs");
  std::string name;
  for (int k = 0; k <= last && name.empty(); ++k) name = Out(k);
  n.name = Unique(name);
  NodeId id = g_.AddNode(std::move(n));
  for (int k = 0; k <= last; ++k) {
    if (OutputUsed(k)) SetValue(Out(k), ValueRef{id, static_cast<uint32_t>(k)}, kPlain);
  }
  return absl::OkStatus();
}

}  // namespace egret::onnx_import
