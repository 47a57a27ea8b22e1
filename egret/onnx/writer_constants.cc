// The ONNX writer's initializers (writer_internal.h): small ones written
// from tensors (TensorToProto) and cached scalars, the constants' own
// initializers with their doc strings and records, the large constants
// written only when something reads them (WriteDeferredConstants), and splat
// initializers rewritten as ConstantOfShape nodes.
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/memory_limit_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/writer_internal.h"

namespace egret::onnx_export {

using onnx_internal::TensorToProto;

std::string Writer::Initializer(const Tensor& t, std::string_view base) {
  std::string name = Fresh(base);
  onnx::TensorProto* p = gp_->add_initializer();
  TensorToProto(t, p);
  p->set_name(name);
  types_[name] = t.type();
  return name;
}

std::string Writer::Int64s(const std::vector<int64_t>& v) {
  std::string key = absl::StrCat("i64:", absl::StrJoin(v, ","));
  auto it = scalar_cache_.find(key);
  if (it != scalar_cache_.end()) return it->second;
  std::vector<double> d(v.begin(), v.end());
  Tensor t = Tensor::FromValues(TensorType(DType::kInt64, {static_cast<int64_t>(v.size())}), d);
  std::string name = Initializer(t, "const_i64");
  scalar_cache_[key] = name;
  return name;
}

std::string Writer::FloatScalar(double v, DType dt) {
  std::string key = absl::StrFormat("f%d:%.17g", static_cast<int>(dt), v);
  auto it = scalar_cache_.find(key);
  if (it != scalar_cache_.end()) return it->second;
  TensorType type;
  type.dtype = dt;
  Tensor t = Tensor::FromValues(type, {&v, 1});
  std::string name = Initializer(t, "const_f");
  scalar_cache_[key] = name;
  return name;
}

namespace {

// Whether ConstantOfShape (opset 9 to kOnnxWriteOpset) may hold an element
// of ONNX type `t`.
bool ConstantOfShapeHolds(int32_t t) {
  using P = onnx::TensorProto;
  switch (t) {
    case P::FLOAT16:
    case P::FLOAT:
    case P::DOUBLE:
    case P::INT8:
    case P::INT16:
    case P::INT32:
    case P::INT64:
    case P::UINT8:
    case P::UINT16:
    case P::UINT32:
    case P::UINT64:
    case P::BOOL:
      return true;
    default:
      return false;
  }
}

// The bytes of one element when every element of `t` has them, else empty.
std::string_view SplatElement(const onnx::TensorProto& t, int64_t min_elements) {
  if (!ConstantOfShapeHolds(t.data_type()) || t.dims_size() == 0) return {};
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;  // the dims of a tensor egret holds: legal
  const std::string& raw = t.raw_data();
  if (n < min_elements || raw.size() % static_cast<size_t>(n) != 0) return {};
  const size_t esize = raw.size() / static_cast<size_t>(n);
  for (size_t off = esize; off < raw.size(); off += esize) {
    if (std::memcmp(raw.data(), raw.data() + off, esize) != 0) return {};
  }
  return std::string_view(raw).substr(0, esize);
}

}  // namespace

void Writer::WriteSplatsAsConstantOfShape() {
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  std::vector<onnx::TensorProto> shapes;
  // Scales and zero points stay initializers: ONNX Runtime's and QNN's QDQ
  // fusions only take constant initializers there.
  absl::flat_hash_set<std::string> qdq_params;
  for (const auto& n : gp_->node()) {
    if (n.op_type() != "QuantizeLinear" && n.op_type() != "DequantizeLinear") continue;
    for (int i = 1; i < n.input_size(); ++i) qdq_params.insert(n.input(i));
  }
  for (auto& t : *gp_->mutable_initializer()) {
    const std::string_view element =
        qdq_params.contains(t.name()) ? std::string_view() : SplatElement(t, kMinSplatElements);
    if (element.empty()) {
      kept.Add()->Swap(&t);
      continue;
    }
    onnx::TensorProto& shape = shapes.emplace_back();
    shape.set_name(Fresh(absl::StrCat(t.name(), "/shape")));
    shape.set_data_type(onnx::TensorProto::INT64);
    shape.add_dims(t.dims_size());
    for (int64_t d : t.dims()) shape.add_int64_data(d);
    onnx::NodeProto* n = nodes.Add();
    n->set_op_type("ConstantOfShape");
    n->set_name(UniqueNodeName(absl::StrCat(t.name(), "/splat")));
    n->add_input(shape.name());
    n->add_output(t.name());
    n->set_doc_string(absl::StrCat(onnx_record::kSplatTag, "\n", t.doc_string()));
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    onnx::TensorProto* v = a->mutable_t();
    v->set_data_type(t.data_type());
    v->add_dims(1);
    v->set_raw_data(std::string(element));
  }
  for (onnx::TensorProto& s : shapes) kept.Add()->Swap(&s);
  gp_->mutable_initializer()->Swap(&kept);
  if (nodes.empty()) return;
  for (auto& n : *gp_->mutable_node()) nodes.Add()->Swap(&n);
  gp_->mutable_node()->Swap(&nodes);
}

// Every tensor name the nodes of `g` and of their subgraphs read.
void CollectReads(const onnx::GraphProto& g, absl::flat_hash_set<std::string>* read) {
  for (const auto& n : g.node()) {
    read->insert(n.input().begin(), n.input().end());
    for (const auto& a : n.attribute()) {
      if (a.has_g()) CollectReads(a.g(), read);
      for (const auto& sub : a.graphs()) CollectReads(sub, read);
    }
  }
  for (const auto& o : g.output()) read->insert(o.name());
}

void Writer::WriteConstant(NodeId id, onnx::TensorProto* p) {
  const Node& n = g_.node(id);
  TensorToProto(*n.constant, p);
  p->set_name(Name({id, 0}));
  std::string doc = DocString(n);
  if (absl::StatusOr<std::string> r =
          onnx_record::ValueRecord(n.name, n.constant->type(), Name({id, 0}), n.provenance);
      r.ok() && !is_body_) {
    absl::StrAppend(&doc, "\n", onnx_record::kRecordTag, *r);
  }
  p->set_doc_string(doc);
}

absl::Status Writer::WriteDeferredConstants() {
  if (deferred_.empty()) return absl::OkStatus();
  absl::flat_hash_set<std::string> read;
  CollectReads(*gp_, &read);
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (auto& t : *gp_->mutable_initializer()) {
    auto it = deferred_.find(t.name());
    if (it == deferred_.end()) {
      kept.Add()->Swap(&t);
    } else if (read.contains(t.name())) {
      if (absl::Status s = onnx_internal::CheckMemoryLimit(options_.memory_limit_bytes); !s.ok()) {
        return absl::ResourceExhaustedError(
            absl::StrCat(file_, ": error: ", std::string(s.message())));
      }
      WriteConstant(it->second, kept.Add());
    }
  }
  gp_->mutable_initializer()->Swap(&kept);
  deferred_.clear();
  return absl::OkStatus();
}

}  // namespace egret::onnx_export
