// The tidy pass's Transposes through the ops that run in any layout
// (write_tidy_internal.h): which ops (KindOf), their constants laid out
// anew, Transposes composed.
#include <algorithm>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/write_tidy_internal.h"

namespace egret::onnx_export::tidy {

Kind KindOf(const onnx::NodeProto& n) {
  if (!n.domain().empty() && n.domain() != "ai.onnx") return Kind::kOther;
  static const absl::flat_hash_map<std::string, Kind>* const kKinds = [] {
    auto* m = new absl::flat_hash_map<std::string, Kind>;
    for (const char* op : {"Relu",
                           "Sigmoid",
                           "Tanh",
                           "Exp",
                           "Log",
                           "Abs",
                           "Neg",
                           "Sqrt",
                           "Reciprocal",
                           "Floor",
                           "Ceil",
                           "Round",
                           "Sign",
                           "Erf",
                           "Not",
                           "Cast",
                           "LeakyRelu",
                           "Elu",
                           "Selu",
                           "HardSigmoid",
                           "HardSwish",
                           "Softplus",
                           "Softsign",
                           "Sin",
                           "Cos",
                           "IsNaN",
                           "IsInf",
                           "Celu",
                           "ThresholdedRelu",
                           "Clip",
                           "Add",
                           "Sub",
                           "Mul",
                           "Div",
                           "Pow",
                           "Max",
                           "Min",
                           "Sum",
                           "Mean",
                           "Equal",
                           "Less",
                           "Greater",
                           "LessOrEqual",
                           "GreaterOrEqual",
                           "And",
                           "Or",
                           "Xor",
                           "Where",
                           "Mod",
                           "BitShift",
                           "PRelu"}) {
      (*m)[op] = Kind::kElementwise;
    }
    for (const char* op : {"Concat", "Split", "Softmax", "LogSoftmax", "Hardmax"}) {
      (*m)[op] = Kind::kAxis;
    }
    for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                           "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
      (*m)[op] = Kind::kAxes;
    }
    (*m)["ReduceSum"] = Kind::kReduceSum;
    (*m)["Slice"] = Kind::kSlice;
    (*m)["Pad"] = Kind::kPad;
    (*m)["QuantizeLinear"] = Kind::kQdq;
    (*m)["DequantizeLinear"] = Kind::kQdq;
    return m;
  }();
  auto it = kKinds->find(n.op_type());
  return it == kKinds->end() ? Kind::kOther : it->second;
}

std::string Tidier::Int64s(const std::vector<int64_t>& v, const std::string& base) {
  std::vector<double> d(v.begin(), v.end());
  Tensor t = Tensor::FromValues(TensorType(DType::kInt64, {static_cast<int64_t>(v.size())}), d);
  onnx::TensorProto p;
  onnx_internal::TensorToProto(t, &p);
  p.set_name(FreshName(base));
  return AddInit(std::move(p));
}

bool Tidier::AllOnes(const std::string& name, size_t max_rank, int depth) const {
  auto ones = [max_rank](const auto& dims) {
    return static_cast<size_t>(dims.size()) <= max_rank &&
           std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d == 1; });
  };
  if (const onnx::TensorProto* init = Init(name)) return ones(init->dims());
  if (const Dims* d = dims_of_(name)) return ones(*d);
  auto it = producer_.find(name);
  if (it == producer_.end() || depth > 8) return false;
  const onnx::NodeProto& n = out_[it->second];
  const bool elementwise_of_input0 = n.domain().empty() && n.input_size() > 0 &&
                                     (n.op_type() == "DequantizeLinear" ||
                                      n.op_type() == "QuantizeLinear" || n.op_type() == "Cast");
  return elementwise_of_input0 && AllOnes(n.input(0), max_rank, depth + 1);
}

std::optional<std::string> Tidier::ConstantFor(const std::string& name, const Perm& p) {
  const onnx::TensorProto* init = Init(name);
  // Strings have no bytes to transpose.
  if (init == nullptr || init->data_type() == onnx::TensorProto::STRING) return std::nullopt;
  const int rank = static_cast<int>(p.size());
  if (init->dims_size() > rank) return std::nullopt;
  if (std::all_of(init->dims().begin(), init->dims().end(), [](int64_t d) { return d == 1; })) {
    return name;
  }
  std::string key = absl::StrCat(name, "|");
  for (int d : p) absl::StrAppend(&key, d, ",");
  if (auto it = constant_cache_.find(key); it != constant_cache_.end()) return it->second;
  absl::StatusOr<Tensor> t = onnx_internal::TensorFromProto(*init);
  if (!t.ok()) return std::nullopt;
  Dims full(rank - init->dims_size(), 1);
  for (int64_t d : init->dims()) full.push_back(d);
  Tensor moved = onnx_internal::TransposeTensor(onnx_internal::ReshapeTensor(*t, full), Inverse(p));
  onnx::TensorProto proto;
  onnx_internal::TensorToProto(moved, &proto);
  proto.set_data_type(init->data_type());  // same bytes: keep the ONNX element type
  proto.set_name(FreshName(absl::StrCat(name, "/sunk")));
  // The regrouper reads a constant only read transposed back from its
  // record: the perm from the recorded dims (broadcast to `rank`) to these.
  const std::string& doc = init->doc_string();
  if (std::optional<std::string_view> rec = onnx_record::DocLine(doc, onnx_record::kRecordTag)) {
    // One already permuted is not read back through two transposes.
    if (!onnx_record::DocLine(doc, onnx_record::kPermutedTag)) {
      const Perm from = Inverse(p);
      std::string perm_text;
      for (size_t i = 0; i < from.size(); ++i) {
        absl::StrAppend(&perm_text, i ? "," : "", from[i]);
      }
      proto.set_doc_string(absl::StrCat(onnx_record::kPermutedTag, perm_text, "\n",
                                        onnx_record::kRecordTag, std::string(*rec)));
    }
  }
  const std::string& added = AddInit(std::move(proto));
  constant_cache_[key] = added;
  return added;
}

bool Tidier::FoldTranspose(onnx::NodeProto& n) {
  if (n.input_size() != 1 || n.output_size() != 1) return false;
  std::optional<Perm> p = PermOf(n);
  if (!p) return false;
  const onnx::NodeProto* t0 = TransposeProducing(n.input(0));
  if (t0 == nullptr || t0->input_size() != 1) return false;
  std::optional<Perm> p0 = PermOf(*t0);
  if (!p0 || p0->size() != p->size()) return false;
  // Out dim d of T(T0(x)) is dim p[d] of T0(x), which is dim p0[p[d]] of x.
  Perm c(p->size());
  for (size_t d = 0; d < c.size(); ++d) c[d] = (*p0)[(*p)[d]];
  // n now reads x. When T0 has other readers it stays, and x has two: count
  // n, so that HoistAboveReshape does not rewrite x's producer in place as
  // if n were its sole reader (it would leave T0 reading a tensor no node
  // makes). When n was T0's only reader, T0 goes and the count is right.
  const std::string& x = t0->input(0);
  if (auto r = readers_.find(n.input(0)); r != readers_.end() && r->second > 1) ++readers_[x];
  n.set_input(0, x);
  onnx::AttributeProto* a = FindAttr(&n, "perm");
  a->clear_ints();
  for (int d : c) a->add_ints(d);
  if (IsIdentity(c)) {
    n.set_op_type("Identity");
    n.clear_attribute();
  }
  return true;
}

bool Tidier::Sink(onnx::NodeProto& n) {
  const Kind kind = KindOf(n);
  if (kind == Kind::kOther || HasSubgraph(n) || n.output_size() == 0) return false;
  // The data inputs: every input but the Q/DQ parameters, Clip's bounds,
  // and the axes/pads/starts parameters.
  int data_end = n.input_size();
  switch (kind) {
    case Kind::kQdq:
    case Kind::kAxes:
    case Kind::kReduceSum:
    case Kind::kSlice:
    case Kind::kPad:
      data_end = 1;
      break;
    case Kind::kAxis:
      if (n.op_type() == "Split") data_end = 1;
      break;
    case Kind::kElementwise:
      if (n.op_type() == "Clip") data_end = 1;
      break;
    case Kind::kOther:
      return false;
  }
  std::optional<Perm> perm;
  for (int i = 0; i < data_end; ++i) {
    if (n.input(i).empty()) continue;
    const onnx::NodeProto* t = TransposeProducing(n.input(i));
    if (t == nullptr) continue;
    std::optional<Perm> p = PermOf(*t);
    if (!p || (perm && *p != *perm)) return false;
    perm = p;
  }
  if (!perm) return false;
  if (kind == Kind::kSlice) {
    const onnx::NodeProto* t = TransposeProducing(n.input(0));
    auto r = t == nullptr ? readers_.end() : readers_.find(t->output(0));
    if (r != readers_.end() && r->second > 1) {
      if (!sink_shared_into_slices_) return false;
      ++shared_slice_sinks_;
    }
  }
  const Perm& p = *perm;
  const int rank = static_cast<int>(p.size());
  // Every data input: a Transpose(p) (read before it) or a constant.
  std::vector<std::string> inputs(n.input().begin(), n.input().end());
  for (int i = 0; i < data_end; ++i) {
    if (inputs[i].empty()) continue;
    if (const onnx::NodeProto* t = TransposeProducing(inputs[i])) {
      inputs[i] = t->input(0);
      continue;
    }
    if (AllOnes(inputs[i], p.size())) continue;
    std::optional<std::string> c = ConstantFor(inputs[i], p);
    if (!c) return false;
    inputs[i] = *c;
  }
  onnx::NodeProto m = n;
  // Axis parameters, mapped through p.
  auto map_axis_attr = [&](std::string_view name, int64_t fallback) {
    onnx::AttributeProto* a = FindAttr(&m, name);
    std::optional<int64_t> mapped = MapAxis(a ? a->i() : fallback, p);
    if (!mapped) return false;
    if (a == nullptr) {
      a = m.add_attribute();
      a->set_name(std::string(name));
      a->set_type(onnx::AttributeProto::INT);
    }
    a->set_i(*mapped);
    return true;
  };
  auto keepdims = [&]() {
    const onnx::AttributeProto* k = FindAttr(m, "keepdims");
    return k == nullptr || k->i() != 0;
  };
  auto const_ints = [&](const std::string& name) -> std::optional<std::vector<int64_t>> {
    const onnx::TensorProto* init = Init(name);
    if (init == nullptr) return std::nullopt;
    absl::StatusOr<Tensor> t = onnx_internal::TensorFromProto(*init);
    if (!t.ok() || t->type().rank() != 1) return std::nullopt;
    return onnx_internal::TensorInts(*t);
  };
  auto map_axes = [&](const std::vector<int64_t>& axes) -> std::optional<std::vector<int64_t>> {
    std::vector<int64_t> out;
    for (int64_t a : axes) {
      std::optional<int64_t> m2 = MapAxis(a, p);
      if (!m2) return std::nullopt;
      out.push_back(*m2);
    }
    return out;
  };
  switch (kind) {
    case Kind::kElementwise:
      break;
    case Kind::kAxis:
      if (!map_axis_attr("axis", n.op_type() == "Concat" || n.op_type() == "Split" ? 0 : -1)) {
        return false;
      }
      break;
    case Kind::kAxes: {
      if (!keepdims()) return false;
      onnx::AttributeProto* a = FindAttr(&m, "axes");
      if (a != nullptr) {
        std::optional<std::vector<int64_t>> axes =
            map_axes(std::vector<int64_t>(a->ints().begin(), a->ints().end()));
        if (!axes) return false;
        a->clear_ints();
        for (int64_t x : *axes) a->add_ints(x);
      }
      break;
    }
    case Kind::kReduceSum: {
      if (!keepdims()) return false;
      if (inputs.size() > 1 && !inputs[1].empty()) {
        std::optional<std::vector<int64_t>> axes = const_ints(inputs[1]);
        if (!axes || !(axes = map_axes(*axes))) return false;
        inputs[1] = Int64s(*axes, absl::StrCat(n.output(0), "/axes"));
      }
      break;
    }
    case Kind::kSlice: {
      if (inputs.size() < 3) return false;
      std::optional<std::vector<int64_t>> starts = const_ints(inputs[1]);
      if (!starts) return false;
      std::vector<int64_t> axes(starts->size());
      std::iota(axes.begin(), axes.end(), 0);
      if (inputs.size() > 3 && !inputs[3].empty()) {
        std::optional<std::vector<int64_t>> given = const_ints(inputs[3]);
        if (!given) return false;
        axes = *given;
      }
      std::optional<std::vector<int64_t>> mapped = map_axes(axes);
      if (!mapped) return false;
      if (inputs.size() < 4) inputs.resize(4);
      inputs[3] = Int64s(*mapped, absl::StrCat(n.output(0), "/axes"));
      break;
    }
    case Kind::kPad: {
      if (inputs.size() < 2 || inputs.size() > 3) return false;
      std::optional<std::vector<int64_t>> pads = const_ints(inputs[1]);
      if (!pads || static_cast<int>(pads->size()) != 2 * rank) return false;
      std::vector<int64_t> moved(2 * rank);
      for (int d = 0; d < rank; ++d) {
        moved[p[d]] = (*pads)[d];
        moved[rank + p[d]] = (*pads)[rank + d];
      }
      inputs[1] = Int64s(moved, absl::StrCat(n.output(0), "/pads"));
      break;
    }
    case Kind::kQdq: {
      // Per-axis encodings follow their axis; per-tensor ones have none.
      const onnx::TensorProto* scale = n.input_size() > 1 ? Init(n.input(1)) : nullptr;
      if (scale == nullptr) return false;
      if (scale->dims_size() == 1 && scale->dims(0) > 1 && !map_axis_attr("axis", 1)) return false;
      break;
    }
    case Kind::kOther:
      return false;
  }
  m.clear_input();
  for (const auto& in : inputs) m.add_input(in);
  // Each output keeps its name, now written by a Transpose(p) of the
  // rewritten node's output.
  std::vector<onnx::NodeProto> after;
  for (int k = 0; k < m.output_size(); ++k) {
    if (m.output(k).empty()) continue;
    const std::string outer = m.output(k);
    const std::string inner = FreshName(absl::StrCat(outer, "/sunk"));
    m.set_output(k, inner);
    // In the node's record group (the record itself stays on the node).
    onnx::NodeProto t = MakeTranspose(inner, outer, p, n);
    after.push_back(std::move(t));
  }
  Emit(std::move(m));
  for (auto& t : after) Emit(std::move(t));
  return true;
}

}  // namespace egret::onnx_export::tidy
