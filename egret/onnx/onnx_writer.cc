// The ONNX writer's driver (writer_internal.h): Run makes the model around
// the graph; WriteGraph walks the graph in topological order, names every
// value (graph outputs' names first), writes the inputs' value infos and the
// constants (large ones deferred, writer_constants.cc), hands each node to
// its mapping (write_*.cc) and tags the ONNX nodes written for it with its
// group, doc string and record, then writes the outputs and runs the last
// passes (deferred constants, TidyGraph, unread initializers, splats).
#include "egret/onnx/onnx_writer.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/graph/op_table.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/kept_graph_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/writer_internal.h"
#include "egret/support/status_macros.h"

namespace egret::onnx_export {

namespace {

using onnx_internal::OnnxFromDType;

ValueRef v0(NodeId id) { return ValueRef{id, 0}; }

}  // namespace

absl::StatusOr<int32_t> ElemType(const TensorType& t) {
  std::optional<int32_t> e = OnnxFromDType(t.dtype);
  if (!e) return absl::UnimplementedError(absl::StrCat("no ONNX type for ", t.ToString()));
  return *e;
}

void SetValueInfo(onnx::ValueInfoProto* vi, const std::string& name, const TensorType& t,
                  int32_t elem) {
  vi->set_name(name);
  if (!t.is_tensor()) {
    // A sequence or optional, element shapes unknown (ElemType has checked
    // the dtype).
    onnx_internal::TypeToOnnx(t, vi->mutable_type());
    return;
  }
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (int64_t d : t.dims) shape->add_dim()->set_dim_value(d);
}

std::string DocString(const Node& n) {
  std::string doc = absl::StrCat("egret op ", n.op);
  if (auto it = n.attrs.find(kImplAttr); it != n.attrs.end()) {
    if (const auto* s = std::get_if<std::string>(&it->second)) absl::StrAppend(&doc, "; impl ", *s);
  }
  if (auto it = n.attrs.find(kCostAttr); it != n.attrs.end()) {
    if (const auto* d = std::get_if<double>(&it->second))
      absl::StrAppendFormat(&doc, "; cost %g", *d);
  }
  if (!n.provenance.from().empty()) {
    absl::StrAppend(&doc, "; from ", absl::StrJoin(n.provenance.from(), ","));
  }
  if (!n.provenance.rules().empty()) {
    absl::StrAppend(&doc, "; rules ", absl::StrJoin(n.provenance.rules(), ","));
  }
  return doc;
}

absl::StatusOr<onnx::ModelProto> Writer::Run() {
  if (absl::Status s = g_.Validate(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file_, ": error: ", std::string(s.message())));
  }
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("egret");
  model.set_doc_string("written by egret (docs/onnx-export.md)");
  // A graph with subgraphs reads back through the importer, not its
  // records (they do not cover bodies).
  bool has_bodies = false;
  for (const Node& n : g_.nodes()) {
    for (const auto& [key, value] : n.attrs) {
      has_bodies = has_bodies || std::holds_alternative<GraphPtr>(value);
    }
  }
  if (absl::StatusOr<std::string> r = onnx_record::GraphRecord(g_); r.ok() && !has_bodies) {
    auto* kv = model.add_metadata_props();
    kv->set_key(onnx_record::kGraphKey);
    kv->set_value(*r);
  }
  gp_ = model.mutable_graph();
  gp_->set_name(g_.name().empty() ? "egret" : g_.name());
  EGRET_RETURN_IF_ERROR(WriteGraph(gp_));
  auto* os = model.add_opset_import();
  os->set_domain("");
  os->set_version(kOnnxWriteOpset);
  for (const std::string& d : domains_) {
    auto* o = model.add_opset_import();
    o->set_domain(d);
    o->set_version(1);
  }
  if (!options_.records) onnx_record::StripRecords(&model);
  return model;
}

absl::StatusOr<onnx::GraphProto> Writer::WriteBodyGraph(std::string_view name) {
  if (absl::Status s = g_.Validate(); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file_, ": error: subgraph '", std::string(name),
                                                   "': ", std::string(s.message())));
  }
  onnx::GraphProto gp;
  gp.set_name(g_.name().empty() ? std::string(name) : g_.name());
  gp_ = &gp;
  EGRET_RETURN_IF_ERROR(WriteGraph(&gp));
  gp_ = nullptr;
  return gp;
}

absl::Status Writer::WriteGraph(onnx::GraphProto* gp) {
  gp_ = gp;
  EGRET_ASSIGN_OR_RETURN(std::vector<NodeId> order, g_.TopologicalOrder());
  // The names the bodies kept as ONNX define are theirs
  // (kept_graph_internal.h): no value written here takes one.
  for (const Node& n : g_.nodes()) {
    for (auto it = n.attrs.lower_bound(kKeptGraphAttrPrefix);
         it != n.attrs.end() && it->first.rfind(kKeptGraphAttrPrefix, 0) == 0; ++it) {
      absl::StatusOr<onnx::GraphProto> kept = onnx_internal::SerializedGraph(n.attrs, it->first);
      if (kept.ok()) onnx_internal::AddDefinedNames(*kept, &used_);
    }
  }
  // Names: graph output names first (ONNX Runtime feeds and fetches by them),
  // then every value: its node's name, ":k" for output k > 0. A body's
  // names must not clash with the enclosing scopes' (used_ holds theirs),
  // and its captured inputs are the enclosing values' names.
  for (const GraphOutput& o : g_.outputs()) {
    if (is_body_) {
      out_names_.push_back(Fresh(o.name.empty() ? "output" : o.name));
    } else {
      out_names_.push_back(o.name);
      if (!o.name.empty()) used_.insert(o.name);
    }
  }
  for (const auto& [id, outer] : outer_names_) names_[ValueRef{id, 0}] = outer;
  for (NodeId id : order) {
    const Node& n = g_.node(id);
    if (outer_names_.contains(id)) continue;
    std::string base = n.name.empty() ? absl::StrCat("n", id) : n.name;
    for (size_t k = 0; k < n.outputs.size(); ++k) {
      ValueRef v{id, static_cast<uint32_t>(k)};
      std::string want = k == 0 ? base : absl::StrCat(base, ":", k);
      // A value that is one named graph output (and not an input) takes the
      // output's name, so no Identity is needed.
      int uses = 0;
      std::string out_name;
      for (size_t k = 0; k < g_.outputs().size(); ++k) {
        if (g_.outputs()[k].value == v) {
          ++uses;
          out_name = out_names_[k];
        }
      }
      if (uses == 1 && !out_name.empty() && n.op != kInputOp) {
        names_[v] = out_name;
      } else {
        names_[v] = Fresh(want);
      }
    }
    if (n.outputs.size() == 1 && n.outputs[0].dtype == DType::kMulti) {
      for (int k = 0; k < 16; ++k) used_.insert(PieceName(v0(id), k));
    }
  }
  // Multi producers: how many outputs their $Out readers select from.
  for (NodeId id : order) {
    const Node& n = g_.node(id);
    if (n.op != kOutOp || n.inputs.size() < 2) continue;
    const Node& sel = g_.node(n.inputs[1].node);
    const Dims& d = sel.outputs[0].dims;
    if (sel.op != kShapeOp || d.empty()) continue;
    int& c = multi_count_[n.inputs[0].node];
    c = std::max<int>(c, static_cast<int>(d.back()) + 1);
    if (d.size() >= 2) c = std::max<int>(c, static_cast<int>(d[d.size() - 2]));
  }

  for (NodeId id : g_.inputs()) {
    const Node& n = g_.node(id);
    if (outer_names_.contains(id)) continue;
    EGRET_ASSIGN_OR_RETURN(int32_t elem, ElemType(n.outputs[0]));
    onnx::ValueInfoProto* vi = gp_->add_input();
    SetValueInfo(vi, Name({id, 0}), n.outputs[0], elem);
    if (absl::StatusOr<std::string> r =
            onnx_record::ValueRecord(n.name, n.outputs[0], Name({id, 0}), n.provenance);
        r.ok() && !is_body_) {
      vi->set_doc_string(absl::StrCat(onnx_record::kRecordTag, *r));
    }
    types_[Name({id, 0})] = n.outputs[0];
  }
  int groups = 0;
  for (NodeId id : order) {
    cur_ = id;
    const Node& n = g_.node(id);
    if (n.op == kInputOp) continue;
    if (n.op == kShapeOp) continue;  // read as parameters; Int32 tensors where used as data
    if (n.op == kConstOp) {
      onnx::TensorProto* p = gp_->add_initializer();
      p->set_name(Name({id, 0}));
      types_[Name({id, 0})] = n.constant->type();
      if (n.constant->type().stored_byte_size() >= kDeferMinBytes) {
        deferred_[p->name()] = id;
      } else {
        WriteConstant(id, p);
      }
      continue;
    }
    first_node_ = gp_->node_size();
    absl::Status s;
    if (n.op.rfind("onnx.", 0) == 0) {
      s = EmitOpaque();
    } else if (!IsKnownOp(n.op)) {
      s = NonStandard("an op egret's table does not know");
    } else {
      s = WriteNode(*this);
    }
    if (!s.ok()) {
      if (s.message().find(": error: ") != std::string_view::npos) return s;
      return NodeError(s.code(), std::string(s.message()));
    }
    // Every ONNX node written for egret node `id` carries its group tag (the
    // group's number, counting in the order written); the first one also the
    // doc string and the record (egret_record_internal.h).
    const std::string group = absl::StrCat(onnx_record::kGroupTag, groups++);
    for (int i = first_node_; i < gp_->node_size(); ++i) {
      std::string doc = i == first_node_ ? absl::StrCat(DocString(n), "\n", group) : group;
      if (i == first_node_ && !is_body_) {
        absl::StatusOr<std::string> r =
            onnx_record::NodeRecord(g_, id, [this](ValueRef v) { return Name(v); });
        if (r.ok()) absl::StrAppend(&doc, "\n", onnx_record::kRecordTag, *r);
      }
      gp_->mutable_node(i)->set_doc_string(doc);
    }
  }
  cur_ = kNoNode;
  for (size_t k = 0; k < g_.outputs().size(); ++k) {
    const GraphOutput& o = g_.outputs()[k];
    const TensorType& t = g_.TypeOf(o.value);
    std::string name = out_names_[k].empty() ? absl::StrCat("output", k) : out_names_[k];
    if (out_names_[k].empty()) name = Fresh(name);
    if (Name(o.value) != name) {
      onnx::NodeProto* n = gp_->add_node();
      n->set_op_type("Identity");
      n->set_name(UniqueNodeName(absl::StrCat(name, "/identity")));
      n->add_input(Name(o.value));
      n->add_output(name);
    }
    EGRET_ASSIGN_OR_RETURN(int32_t elem, ElemType(t));
    SetValueInfo(gp_->add_output(), name, t, elem);
  }
  EGRET_RETURN_IF_ERROR(WriteDeferredConstants());
  if (!is_body_) {
    TidyGraph(
        gp_,
        [this](const std::string& name) -> const Dims* {
          auto it = types_.find(name);
          return it == types_.end() ? nullptr : &it->second.dims;
        },
        options_.records);
  }
  // Constants every reader took in another layout (a filter transposed to
  // OIHW) are not written twice: initializers nothing reads are dropped.
  // (A value a subgraph reads is read.)
  absl::flat_hash_set<std::string> read;
  CollectReads(*gp_, &read);
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (auto& t : *gp_->mutable_initializer()) {
    if (read.contains(t.name())) kept.Add()->Swap(&t);
  }
  gp_->mutable_initializer()->Swap(&kept);
  WriteSplatsAsConstantOfShape();
  return absl::OkStatus();
}

}  // namespace egret::onnx_export
