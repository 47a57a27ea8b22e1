// The tidy pass's Transposes and Reshapes (write_tidy_internal.h): through
// each other (transpose_reshape_internal.h), a Transpose of unit dims as a
// Reshape, Reshapes of Reshapes merged, and a Transpose of a dequantized
// initializer folded into it.
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/transpose_reshape_internal.h"
#include "egret/onnx/write_tidy_internal.h"

namespace egret::onnx_export::tidy {

std::optional<std::vector<int64_t>> Tidier::DimsOf(const std::string& name) const {
  if (const Dims* d = dims_of_(name)) return std::vector<int64_t>(d->begin(), d->end());
  if (const onnx::NodeProto* t = TransposeProducing(name)) {
    std::optional<Perm> p = PermOf(*t);
    std::optional<std::vector<int64_t>> in = p ? DimsOf(t->input(0)) : std::nullopt;
    if (!in || in->size() != p->size()) return std::nullopt;
    std::vector<int64_t> out(p->size());
    for (size_t d = 0; d < p->size(); ++d) out[d] = (*in)[(*p)[d]];
    return out;
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> Tidier::PositiveShape(const std::string& name) const {
  const onnx::TensorProto* init = Init(name);
  if (init == nullptr) return std::nullopt;
  absl::StatusOr<Tensor> t = onnx_internal::TensorFromProto(*init);
  if (!t.ok() || t->type().rank() != 1) return std::nullopt;
  std::vector<int64_t> v = onnx_internal::TensorInts(*t);
  if (std::any_of(v.begin(), v.end(), [](int64_t d) { return d <= 0; })) return std::nullopt;
  return v;
}

onnx::NodeProto Tidier::MakeTranspose(const std::string& input, const std::string& output,
                                      const std::vector<int>& perm, const onnx::NodeProto& like) {
  onnx::NodeProto t;
  t.set_op_type("Transpose");
  t.set_name(FreshNodeName(absl::StrCat(like.name().empty() ? output : like.name(), "/transpose")));
  t.add_input(input);
  t.add_output(output);
  onnx::AttributeProto* a = t.add_attribute();
  a->set_name("perm");
  a->set_type(onnx::AttributeProto::INTS);
  for (int d : perm) a->add_ints(d);
  if (std::optional<std::string_view> g =
          onnx_record::DocLine(like.doc_string(), onnx_record::kGroupTag)) {
    t.set_doc_string(absl::StrCat(onnx_record::kGroupTag, std::string(*g)));
  }
  return t;
}

std::optional<int> Tidier::SoleReadProducer(const onnx::NodeProto& n) const {
  if (n.op_type() != "Transpose" || !n.domain().empty() || n.input_size() != 1) {
    return std::nullopt;
  }
  auto it = producer_.find(n.input(0));
  if (it == producer_.end() || pinned_.contains(n.input(0))) return std::nullopt;
  auto readers = readers_.find(n.input(0));
  if (readers == readers_.end() || readers->second != 1) return std::nullopt;
  return it->second;
}

bool Tidier::FoldIntoDequantizedConstant(const onnx::NodeProto& n) {
  const std::optional<int> found = SoleReadProducer(n);
  if (!found) return false;
  const int at = *found;
  onnx::NodeProto& dq = out_[at];
  if (dq.op_type() != "DequantizeLinear" || !dq.domain().empty() || dq.output_size() != 1 ||
      dq.input_size() < 2) {
    return false;
  }
  const onnx::TensorProto* q = Init(dq.input(0));
  std::optional<Perm> p = PermOf(n);
  if (q == nullptr || !p || q->dims_size() != static_cast<int>(p->size())) return false;
  // ConstantFor transposes by the inverse of the perm it is given.
  std::optional<std::string> moved = ConstantFor(dq.input(0), Inverse(*p));
  if (!moved) return false;
  const onnx::TensorProto* scale = Init(dq.input(1));
  if (scale != nullptr && scale->dims_size() == 1 && scale->dims(0) > 1) {
    // Per axis: the axis of the result is where the transpose puts it.
    onnx::AttributeProto* a = FindAttr(&dq, "axis");
    const int64_t rank = static_cast<int64_t>(p->size());
    int64_t axis = a != nullptr ? a->i() : 1;
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    if (a == nullptr) {
      a = dq.add_attribute();
      a->set_name("axis");
      a->set_type(onnx::AttributeProto::INT);
    }
    a->set_i(Inverse(*p)[axis]);
  }
  producer_.erase(dq.output(0));
  dq.set_input(0, *moved);
  dq.set_output(0, n.output(0));
  producer_[n.output(0)] = at;
  return true;
}

bool Tidier::SinkThroughReshape(const onnx::NodeProto& n) {
  if (n.op_type() != "Reshape" || !n.domain().empty() || n.input_size() != 2 ||
      n.output_size() != 1) {
    return false;
  }
  const onnx::NodeProto* t = TransposeProducing(n.input(0));
  if (t == nullptr) return false;
  std::optional<Perm> p = PermOf(*t);
  std::optional<std::vector<int64_t>> in = DimsOf(n.input(0));
  std::optional<std::vector<int64_t>> out = PositiveShape(n.input(1));
  if (!p || !in || !out) return false;
  std::optional<SunkTranspose> s = SinkTransposeThroughReshape(*in, *out, *p);
  if (!s) return false;
  onnx::NodeProto r = n;
  r.set_input(0, t->input(0));
  r.set_input(1, Int64s(s->inner, absl::StrCat(n.output(0), "/shape")));
  if (IsIdentity(s->perm)) {  // the Transpose only moved what the Reshape reorders anyway
    Emit(std::move(r));
    return true;
  }
  const std::string inner = FreshName(absl::StrCat(n.output(0), "/sunk"));
  r.set_output(0, inner);
  onnx::NodeProto after = MakeTranspose(inner, n.output(0), s->perm, n);
  Emit(std::move(r));
  Emit(std::move(after));
  return true;
}

bool Tidier::HoistAboveReshape(const onnx::NodeProto& n) {
  const std::optional<int> found = SoleReadProducer(n);
  if (!found) return false;
  const int at = *found;
  const onnx::NodeProto r = out_[at];
  if (r.op_type() != "Reshape" || !r.domain().empty() || r.input_size() != 2) return false;
  std::optional<Perm> q = PermOf(n);
  std::optional<std::vector<int64_t>> in = DimsOf(r.input(0));
  std::optional<std::vector<int64_t>> out = PositiveShape(r.input(1));
  if (!q || !in || !out || in->size() < 2) return false;
  std::optional<HoistedTranspose> h = HoistTransposeAboveReshape(*in, *out, *q);
  if (!h) return false;
  // The Transpose takes the Reshape's place (composed with a Transpose
  // feeding it); the Reshape follows it, writing the Transpose's output.
  const std::string moved = FreshName(absl::StrCat(n.output(0), "/hoisted"));
  onnx::NodeProto t = MakeTranspose(r.input(0), moved, h->perm, r);
  FoldTranspose(t);
  // Composed into the identity: the Reshape reads the tensor itself (the
  // Identity left in the Reshape's place is dropped as dead).
  const std::string source = t.op_type() == "Identity" ? t.input(0) : moved;
  producer_.erase(r.output(0));
  producer_[moved] = at;
  out_[at] = std::move(t);
  onnx::NodeProto reshape = r;
  reshape.set_input(0, source);
  reshape.set_input(1, Int64s(h->dims, absl::StrCat(n.output(0), "/shape")));
  reshape.set_output(0, n.output(0));
  reshape.set_name(FreshNodeName(absl::StrCat(r.name(), "/after")));
  reshape.set_doc_string(n.doc_string());
  Emit(std::move(reshape));
  return true;
}

void Tidier::TransposesToReshapes() {
  absl::flat_hash_map<std::string, std::vector<int64_t>> dims;
  auto declare = [&](const onnx::ValueInfoProto& vi) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    std::vector<int64_t> d;
    for (const auto& dim : vi.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value()) return;
      d.push_back(dim.dim_value());
    }
    dims[vi.name()] = std::move(d);
  };
  for (const auto& vi : gp_->output()) declare(vi);
  for (const auto& vi : gp_->value_info()) declare(vi);
  for (onnx::NodeProto& n : out_) {
    if (n.op_type() != "Transpose" || !n.domain().empty() || n.output_size() != 1) continue;
    std::optional<Perm> p = PermOf(n);
    auto it = dims.find(n.output(0));
    if (it == dims.end()) {
      if (const Dims* d = dims_of_(n.output(0))) {
        it = dims.emplace(n.output(0), std::vector<int64_t>(d->begin(), d->end())).first;
      }
    }
    if (!p || it == dims.end() || it->second.size() != p->size()) continue;
    // Output dim d is input dim p[d]: the dims of size > 1 must keep their order.
    int last = -1;
    bool in_order = true;
    for (size_t d = 0; d < p->size() && in_order; ++d) {
      if (it->second[d] == 1) continue;
      in_order = (*p)[d] > last;
      last = (*p)[d];
    }
    if (!in_order) continue;
    n.set_op_type("Reshape");
    n.clear_attribute();
    n.add_input(Int64s(it->second, absl::StrCat(n.output(0), "/shape")));
  }
}

void Tidier::MergeReshapes() {
  absl::flat_hash_map<std::string, int> produced;
  for (size_t i = 0; i < out_.size(); ++i) {
    onnx::NodeProto& n = out_[i];
    for (const auto& o : n.output()) produced[o] = static_cast<int>(i);
    if (n.op_type() != "Reshape" || !n.domain().empty() || n.input_size() != 2) continue;
    auto it = produced.find(n.input(0));
    if (it == produced.end()) continue;
    const onnx::NodeProto& first = out_[it->second];
    if (first.op_type() != "Reshape" || !first.domain().empty() || first.input_size() != 2) {
      continue;
    }
    if (PositiveShape(n.input(1))) n.set_input(0, first.input(0));
  }
}

}  // namespace egret::onnx_export::tidy
