#include "egret/onnx/onnx_writer.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/executor/runtime_body.h"
#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"
#include "egret/graph/string_list.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/external_data_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/writer_internal.h"
#include "egret/support/status_macros.h"
#include "onnx/checker.h"

namespace egret {
namespace onnx_export {

namespace {

using onnx_internal::OnnxFromDType;
using onnx_internal::TensorToProto;
using onnx_internal::TransposeTensor;

std::string PermKey(const std::string& name, const std::vector<int>& perm) {
  return absl::StrCat(name, "|", absl::StrJoin(perm, ","));
}

ValueRef v0(NodeId id) { return ValueRef{id, 0}; }

bool IsIdentity(const std::vector<int>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int>(i)) return false;
  }
  return true;
}

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
  if (!n.provenance.from.empty()) {
    absl::StrAppend(&doc, "; from ", absl::StrJoin(n.provenance.from, ","));
  }
  if (!n.provenance.rules.empty()) {
    absl::StrAppend(&doc, "; rules ", absl::StrJoin(n.provenance.rules, ","));
  }
  return doc;
}

}  // namespace

absl::Status Writer::NodeError(absl::StatusCode code, const std::string& msg) const {
  return absl::Status(code, absl::StrFormat("%s: error: node %s, op %s: %s", file_,
                                            g_.NodeLabel(cur_), Cur().op, msg));
}

absl::Status Writer::NonStandard(std::string_view why) {
  if (options_.standard_only) {
    return NodeError(absl::StatusCode::kFailedPrecondition,
                     absl::StrCat(std::string(why), " has no standard ONNX op (standard-only)"));
  }
  return EmitCustom();
}

absl::StatusOr<std::vector<int64_t>> Writer::Ints(int i) const {
  OperandInfo info;
  const Node& p = g_.node(In(i).node);
  info.type = &InType(i);
  info.value = p.constant.get();
  info.is_shape = p.op == kShapeOp;
  return ReadIntParam(info, Cur().op);
}

absl::StatusOr<int64_t> Writer::Int(int i) const {
  OperandInfo info;
  const Node& p = g_.node(In(i).node);
  info.type = &InType(i);
  info.value = p.constant.get();
  info.is_shape = p.op == kShapeOp;
  return ReadIntScalarParam(info, Cur().op);
}

absl::StatusOr<double> Writer::Float(int i) const {
  OperandInfo info;
  const Node& p = g_.node(In(i).node);
  info.type = &InType(i);
  info.value = p.constant.get();
  info.is_shape = p.op == kShapeOp;
  return ReadFloatScalarParam(info, Cur().op);
}

DType Writer::ComputeDType() const {
  const DType out = OutType(0).dtype;
  if (IsFloat(out)) return out;
  if (IsQuantized(out)) return DType::kFloat32;
  for (int i = 0; i < NumIn(); ++i) {
    const OpDef* def = FindOpDef(Cur().op);
    if (def && def->IsParam(i)) continue;
    const DType in = InType(i).dtype;
    if (IsFloat(in)) return in;
    if (IsQuantized(in)) return DType::kFloat32;
    break;
  }
  return DType::kUnknown;
}

std::string Writer::Fresh(std::string_view base) {
  std::string b = base.empty() ? std::string("t") : std::string(base);
  std::string name = b;
  for (int k = 1; used_.contains(name); ++k) name = absl::StrCat(b, "_", k);
  used_.insert(name);
  return name;
}

std::string Writer::UniqueNodeName(const std::string& base) {
  std::string name = base;
  for (int k = 1; node_names_.contains(name); ++k) name = absl::StrCat(base, "_", k);
  node_names_.insert(name);
  return name;
}

std::string Writer::Temp(std::string_view suffix) {
  const std::string& n = Cur().name;
  return Fresh(absl::StrCat(n.empty() ? absl::StrCat("n", cur_) : n, "/", std::string(suffix)));
}

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

onnx::NodeProto* Writer::Add(std::string_view op_type, std::vector<std::string> inputs,
                             std::vector<std::string> outputs, std::string_view domain) {
  onnx::NodeProto* n = gp_->add_node();
  n->set_op_type(std::string(op_type));
  if (!domain.empty()) {
    n->set_domain(std::string(domain));
    domains_.insert(std::string(domain));
  }
  const std::string base = Cur().name.empty() ? absl::StrCat("n", cur_) : Cur().name;
  n->set_name(UniqueNodeName(
      gp_->node_size() == first_node_ + 1 ? base : absl::StrCat(base, "/", std::string(op_type))));
  for (auto& i : inputs) n->add_input(std::move(i));
  for (auto& o : outputs) n->add_output(std::move(o));
  return n;
}

void Writer::AttrInt(onnx::NodeProto* n, std::string_view name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(std::string(name));
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void Writer::AttrFloat(onnx::NodeProto* n, std::string_view name, double v) {
  auto* a = n->add_attribute();
  a->set_name(std::string(name));
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(v));
}
void Writer::AttrStr(onnx::NodeProto* n, std::string_view name, std::string_view v) {
  auto* a = n->add_attribute();
  a->set_name(std::string(name));
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(std::string(v));
}
void Writer::AttrInts(onnx::NodeProto* n, std::string_view name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(std::string(name));
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void Writer::AttrFloats(onnx::NodeProto* n, std::string_view name, const std::vector<double>& v) {
  auto* a = n->add_attribute();
  a->set_name(std::string(name));
  a->set_type(onnx::AttributeProto::FLOATS);
  for (double x : v) a->add_floats(static_cast<float>(x));
}

// QuantizeLinear/DequantizeLinear's scale and zero point for `t`, and the
// axis (-1: per tensor) and domain (16-bit types: com.microsoft).
struct QdqParams {
  std::string scale, zero;
  int axis = -1;
  std::string domain;
};

static QdqParams MakeQdq(Writer& w, const TensorType& t) {
  QdqParams q;
  TensorType zt;
  zt.dtype = t.dtype;
  TensorType st;
  st.dtype = DType::kFloat32;
  if (t.per_axis) {
    const auto& pa = *t.per_axis;
    q.axis = pa.axis;
    const int64_t c = static_cast<int64_t>(pa.stepsizes.size());
    zt.dims = {c};
    st.dims = {c};
    Tensor zs(zt), ss(st);
    for (int64_t i = 0; i < c; ++i) {
      zs.SetValue(i, pa.zero_offsets[i]);
      ss.SetValue(i, pa.stepsizes[i]);
    }
    q.scale = w.Initializer(ss, "scale");
    q.zero = w.Initializer(zs, "zero_point");
  } else {
    Tensor zs(zt), ss(st);
    zs.SetValue(0, t.zero_offset);
    ss.SetValue(0, t.stepsize);
    q.scale = w.Initializer(ss, "scale");
    q.zero = w.Initializer(zs, "zero_point");
  }
  if (t.dtype == DType::kQUInt16 || t.dtype == DType::kQInt16) q.domain = "com.microsoft";
  return q;
}

std::string Writer::RealOfName(const std::string& name, DType dt) {
  const TensorType& t = types_.at(name);
  if (dt == DType::kUnknown) return name;
  if (!IsQuantized(t.dtype) && !IsFloat(t.dtype)) return name;
  if (t.dtype == dt) return name;
  std::string key = absl::StrCat(name, "|", static_cast<int>(dt));
  auto it = real_cache_.find(key);
  if (it != real_cache_.end()) return it->second;
  std::string out;
  TensorType ft = t;
  ft.ClearQuantization();
  if (IsQuantized(t.dtype)) {
    QdqParams q = MakeQdq(*this, t);
    out = Fresh(absl::StrCat(name, "/real"));
    onnx::NodeProto* n = Add("DequantizeLinear", {name, q.scale, q.zero}, {out}, q.domain);
    if (q.axis >= 0) AttrInt(n, "axis", q.axis);
    ft.dtype = DType::kFloat32;
    types_[out] = ft;
    if (dt != DType::kFloat32) {
      std::string cast = Fresh(absl::StrCat(name, "/", std::string(DTypeName(dt))));
      AttrInt(Add("Cast", {out}, {cast}), "to", *OnnxFromDType(dt));
      ft.dtype = dt;
      types_[cast] = ft;
      out = cast;
    }
  } else {
    out = Fresh(absl::StrCat(name, "/", std::string(DTypeName(dt))));
    AttrInt(Add("Cast", {name}, {out}), "to", *OnnxFromDType(dt));
    ft.dtype = dt;
    types_[out] = ft;
  }
  real_cache_[key] = out;
  return out;
}

std::string Writer::Permuted(ValueRef v, const std::vector<int>& perm) {
  const std::string& name = Name(v);
  if (IsIdentity(perm)) return name;
  const std::string key = PermKey(name, perm);
  auto it = permuted_cache_.find(key);
  if (it != permuted_cache_.end()) return it->second;
  const Node& p = g_.node(v.node);
  std::string out;
  if (p.op == kConstOp && p.constant) {
    out = Initializer(TransposeTensor(*p.constant, perm), absl::StrCat(name, "/perm"));
    // The constant's own initializer is dropped when nothing else reads it:
    // this one records what it was made from.
    if (absl::StatusOr<std::string> r =
            onnx_record::ValueRecord(p.name, p.constant->type(), name, p.provenance);
        r.ok()) {
      gp_->mutable_initializer(gp_->initializer_size() - 1)
          ->set_doc_string(absl::StrCat(onnx_record::kPermutedTag, absl::StrJoin(perm, ","), "\n",
                                        onnx_record::kRecordTag, *r));
    }
  } else {
    out = Fresh(absl::StrCat(name, "/", perm == kNhwcToNchw ? "nchw" : "perm"));
    std::vector<int64_t> p64(perm.begin(), perm.end());
    AttrInts(Add("Transpose", {name}, {out}), "perm", p64);
    types_[out] = types_.at(name).Permuted(perm);
  }
  permuted_cache_[key] = out;
  return out;
}

void Writer::CachePermuted(ValueRef v, const std::vector<int>& perm, const std::string& name) {
  permuted_cache_[PermKey(Name(v), perm)] = name;
}

std::string Writer::RealOutName(int k, DType dt, bool nchw) {
  if (!nchw && !NeedsConversion(OutType(k), dt)) return OutName(k);
  return Temp(nchw ? "nchw" : "real");
}

std::string Writer::Clamp(const std::string& x, DType dt, double lo, double hi) {
  std::string out = Temp("clamp");
  if (lo == 0 && std::isinf(hi) && hi > 0) {
    Add("Relu", {x}, {out});
  } else {
    Add("Clip", {x, FloatScalar(lo, dt), FloatScalar(hi, dt)}, {out});
  }
  return out;
}

absl::Status Writer::FinishReal(int k, const std::string& real, DType dt,
                                const std::vector<int>& layout_perm) {
  TensorType t = OutType(k);
  std::vector<int> inverse;
  if (!layout_perm.empty()) {
    inverse.resize(layout_perm.size());
    for (size_t i = 0; i < layout_perm.size(); ++i) inverse[layout_perm[i]] = static_cast<int>(i);
    t = t.Permuted(inverse);  // the output's type in `real`'s layout
  }
  const std::string target = layout_perm.empty() ? OutName(k) : Temp("stored");
  std::string stored = real;
  if (IsQuantized(t.dtype)) {
    if (t.dtype == DType::kQInt32) {
      return NonStandard("a QInt32 result has no QuantizeLinear");
    }
    QdqParams q = MakeQdq(*this, t);
    onnx::NodeProto* n = Add("QuantizeLinear", {real, q.scale, q.zero}, {target}, q.domain);
    if (q.axis >= 0) AttrInt(n, "axis", q.axis);
    stored = target;
  } else if (NeedsConversion(t, dt)) {
    AttrInt(Add("Cast", {real}, {target}), "to", *OnnxFromDType(t.dtype));
    stored = target;
  } else if (real != target) {
    Add("Identity", {real}, {target});
    stored = target;
  }
  types_[stored] = t;
  if (!layout_perm.empty()) {
    std::vector<int64_t> p64(layout_perm.begin(), layout_perm.end());
    AttrInts(Add("Transpose", {stored}, {OutName(k)}), "perm", p64);
    types_[OutName(k)] = OutType(k);
    CachePermuted(Out(k), inverse, stored);
  }
  return absl::OkStatus();
}

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
    auto it = n.attrs.find(kRuntimeBodyAttr);
    const auto* text = std::get_if<std::string>(&it->second);
    std::string bytes;
    onnx::GraphProto body;
    if (text == nullptr || !absl::Base64Unescape(*text, &bytes) || !body.ParseFromString(bytes) ||
        body.input_size() < captured) {
      return NodeError(
          absl::StatusCode::kInvalidArgument,
          absl::StrCat("attribute ", std::string(kRuntimeBodyAttr), " is not an ONNX graph"));
    }
    if (captured > 0) {
      return NodeError(absl::StatusCode::kUnimplemented,
                       "its body reads values of the enclosing graph, which egret cannot write "
                       "back under their new names");
    }
    onnx::AttributeProto* a = p->add_attribute();
    a->set_name("body");
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = std::move(body);
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

namespace {

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

}  // namespace

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
      WriteConstant(it->second, kept.Add());
    }
  }
  gp_->mutable_initializer()->Swap(&kept);
  deferred_.clear();
  return absl::OkStatus();
}

absl::Status Writer::WriteGraph(onnx::GraphProto* gp) {
  gp_ = gp;
  EGRET_ASSIGN_OR_RETURN(std::vector<NodeId> order, g_.TopologicalOrder());
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
    TidyGraph(gp_, [this](const std::string& name) -> const Dims* {
      auto it = types_.find(name);
      return it == types_.end() ? nullptr : &it->second.dims;
    });
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

}  // namespace onnx_export

namespace {

absl::Status CheckModel(const onnx::ModelProto& model, std::string_view file) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(file), ": error: the ONNX checker rejects the model: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckOnnxBytes(std::string_view bytes, std::string_view file) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(file), ": error: not a serialized ONNX model"));
  }
  return CheckModel(model, file);
}

namespace {

bool OverProtobufLimit(const onnx::ModelProto& model) {
  return model.ByteSizeLong() > static_cast<size_t>(std::numeric_limits<int32_t>::max());
}

// The checked bytes of `model` (kInternal when the checker rejects it: a
// writer defect). The checker runs on the model in memory, before its
// initializers move to external data, whose file is not written yet.
absl::StatusOr<std::string> Serialize(onnx::ModelProto model, std::string_view file,
                                      std::string* external_data, const std::string& data_name) {
  if (absl::Status s = CheckModel(model, file); !s.ok()) return absl::InternalError(s.message());
  if (external_data != nullptr) {
    *external_data = onnx_internal::MoveToExternalData(&model, data_name, kExternalDataMinBytes);
  }
  std::string bytes;
  if (OverProtobufLimit(model) || !model.SerializeToString(&bytes)) {
    return absl::UnimplementedError(absl::StrCat(
        std::string(file), ": error: the model is over 2 GB",
        external_data == nullptr ? " (protobuf's limit); write it with its initializers as "
                                   "external data"
                                 : " without its external data (protobuf's limit)"));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<std::string> WriteOnnxBytes(const Graph& graph, std::string_view file,
                                           const OnnxWriteOptions& options) {
  onnx_export::Writer w(graph, std::string(file), options);
  EGRET_ASSIGN_OR_RETURN(onnx::ModelProto model, w.Run());
  return Serialize(std::move(model), file, nullptr, "");
}

absl::StatusOr<OnnxFiles> WriteOnnxFiles(const Graph& graph, std::string_view path,
                                         const OnnxWriteOptions& options) {
  onnx_export::Writer w(graph, std::string(path), options);
  EGRET_ASSIGN_OR_RETURN(onnx::ModelProto model, w.Run());
  OnnxFiles files;
  const bool external = options.external_data || OverProtobufLimit(model);
  if (external) {
    files.data_name = absl::StrCat(std::filesystem::path(path).filename().string(), ".data");
  }
  EGRET_ASSIGN_OR_RETURN(files.model, Serialize(std::move(model), path,
                                                external ? &files.data : nullptr, files.data_name));
  if (files.data.empty()) files.data_name.clear();
  return files;
}

absl::Status CheckOnnxStandard(const Graph& graph, std::string_view file) {
  OnnxWriteOptions options;
  options.standard_only = true;
  onnx_export::Writer w(graph, std::string(file), options);
  return w.Run().status();
}

}  // namespace egret
