// The ONNX writer's toolkit for the op mappings (writer_internal.h): errors,
// the current node's operands and compute dtype, fresh tensor and node names,
// adding nodes and attributes, and the conversions between stored and real
// numbers: Real (DequantizeLinear, Cast), Permuted (folded for constants,
// else a Transpose), Clamp and FinishReal (QuantizeLinear or Cast into the
// output's type).
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/graph/op_table.h"
#include "egret/graph/shape_inference.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/writer_internal.h"

namespace egret::onnx_export {

namespace {

using onnx_internal::OnnxFromDType;
using onnx_internal::TransposeTensor;

std::string PermKey(const std::string& name, const std::vector<int>& perm) {
  return absl::StrCat(name, "|", absl::StrJoin(perm, ","));
}

bool IsIdentity(const std::vector<int>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int>(i)) return false;
  }
  return true;
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

}  // namespace egret::onnx_export
