// The writer's last pass over the ONNX graph it wrote: layout transposes
// sunk and cancelled, Identity nodes removed, dead nodes dropped
// (writer_internal.h, TidyGraph). Works on standard ONNX semantics only.
//
// The writer spells each egret NHWC op as its NCHW ONNX op followed by a
// Transpose back to NHWC; every op egret computes in NHWC that ONNX runs in
// any layout (elementwise ops, Concat, Slice, Pad, reductions, ...) then
// reads that NHWC tensor. Here a Transpose(perm P) feeding such an op moves
// below it: the op runs on the untransposed tensor (its axes mapped through
// P, its constant operands transposed to match) and one Transpose(P) follows
// it. Moved down this way, a Transpose meets the Transpose(P^-1) the next
// NCHW op reads through, and both vanish; or it stops at an op that needs
// its layout (Reshape, MatMul, Conv, a graph output) and stays, once.
#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "egret/onnx/egret_record_internal.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/onnx/transpose_reshape_internal.h"
#include "egret/onnx/writer_internal.h"

namespace egret::onnx_export {

namespace {

using Perm = std::vector<int>;

// How an op relates to the layout of its data operands.
enum class Kind {
  kOther,        // needs its layout: a Transpose stops here
  kElementwise,  // each output element from the same-index (broadcast) inputs
  kAxis,         // elementwise except for the attribute `axis` (Concat, Softmax, ...)
  kAxes,         // reduces the attribute `axes`, keepdims=1
  kReduceSum,    // reduces the axes of input 1, keepdims=1
  kSlice,        // axes at input 3 (or 0..k-1 when absent)
  kPad,          // pads at input 1: begins then ends per axis
  kQdq,          // Quantize/DequantizeLinear: data input 0; scale and zero point as they are
};

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

onnx::AttributeProto* FindAttr(onnx::NodeProto* n, std::string_view name) {
  for (auto& a : *n->mutable_attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}
const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, std::string_view name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

bool HasSubgraph(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.has_g() || a.graphs_size() > 0) return true;
  }
  return false;
}

// The perm of a Transpose node, when it is a valid permutation.
std::optional<Perm> PermOf(const onnx::NodeProto& n) {
  const onnx::AttributeProto* a = FindAttr(n, "perm");
  if (a == nullptr || a->ints_size() == 0) return std::nullopt;
  Perm p(a->ints().begin(), a->ints().end());
  std::vector<bool> seen(p.size(), false);
  for (int d : p) {
    if (d < 0 || d >= static_cast<int>(p.size()) || seen[d]) return std::nullopt;
    seen[d] = true;
  }
  return p;
}

Perm Inverse(const Perm& p) {
  Perm inv(p.size());
  for (size_t d = 0; d < p.size(); ++d) inv[p[d]] = static_cast<int>(d);
  return inv;
}

bool IsIdentity(const Perm& p) {
  for (size_t d = 0; d < p.size(); ++d) {
    if (p[d] != static_cast<int>(d)) return false;
  }
  return true;
}

// An axis of the transposed tensor (`rank` = p.size()), as an axis of the
// tensor before the transpose; nullopt when out of range.
std::optional<int64_t> MapAxis(int64_t a, const Perm& p) {
  const int64_t r = static_cast<int64_t>(p.size());
  if (a < -r || a >= r) return std::nullopt;
  return p[a < 0 ? a + r : a];
}

class Tidier {
 public:
  Tidier(onnx::GraphProto* gp, const std::function<const Dims*(const std::string&)>& dims_of)
      : gp_(gp), dims_of_(dims_of) {}
  void Run();

 private:
  // ---- names
  std::string Resolve(const std::string& name) const {
    auto it = alias_.find(name);
    return it == alias_.end() ? name : it->second;
  }
  std::string FreshName(const std::string& base) {
    std::string name = base;
    for (int k = 1; names_.contains(name); ++k) name = absl::StrCat(base, "_", k);
    names_.insert(name);
    return name;
  }
  std::string FreshNodeName(const std::string& base) {
    std::string name = base;
    for (int k = 1; node_names_.contains(name); ++k) name = absl::StrCat(base, "_", k);
    node_names_.insert(name);
    return name;
  }

  // ---- the nodes written so far
  // The Transpose among out_ producing `name`, or null.
  const onnx::NodeProto* TransposeProducing(const std::string& name) const {
    auto it = producer_.find(name);
    if (it == producer_.end()) return nullptr;
    const onnx::NodeProto& n = out_[it->second];
    return n.op_type() == "Transpose" && n.domain().empty() ? &n : nullptr;
  }
  void Emit(onnx::NodeProto n) {
    for (const auto& o : n.output()) {
      if (!o.empty()) producer_[o] = static_cast<int>(out_.size());
    }
    out_.push_back(std::move(n));
  }

  // ---- constants
  const onnx::TensorProto* Init(const std::string& name) const {
    auto it = inits_.find(name);
    return it == inits_.end() ? nullptr : it->second;
  }
  // Constant `name` broadcast to rank `rank` (leading 1s) and laid out for
  // an op that runs before a Transpose(p): transposed by p's inverse. The
  // name itself when its layout does not matter (every dim 1). nullopt when
  // the constant cannot be read or has a rank above `rank`.
  std::optional<std::string> ConstantFor(const std::string& name, const Perm& p);
  // Whether tensor `name` is known to have every dim 1 and rank at most
  // `max_rank`: an
  // initializer, a tensor the writer typed, or a Quantize/DequantizeLinear
  // or Cast of one. Such an operand broadcasts the same in any layout.
  bool AllOnes(const std::string& name, size_t max_rank, int depth = 0) const;
  // A new initializer for the int64 list `v`, from `base`.
  std::string Int64s(const std::vector<int64_t>& v, const std::string& base);

  // Tries to move the Transposes feeding `n` below it; true when done (the
  // rewritten node and its output Transposes are emitted).
  bool Sink(onnx::NodeProto& n);
  // A Transpose of a Transpose or of a constant: true when it was folded
  // into an alias or rewritten in place (still to be emitted).
  bool FoldTranspose(onnx::NodeProto& n);
  // A Transpose of the one-reader output of an emitted DequantizeLinear of
  // an initializer (integer weights kept for a file, read in another
  // layout): the transpose goes into the initializer and the
  // DequantizeLinear (its axis mapped) writes the Transpose's output; true
  // when done.
  bool FoldIntoDequantizedConstant(const onnx::NodeProto& n);
  // A Reshape of a Transpose that commutes with it (transpose_reshape_
  // internal.h): the Reshape on the untransposed tensor and a Transpose
  // after it are emitted; true when done.
  bool SinkThroughReshape(const onnx::NodeProto& n);
  // A Transpose of the one-reader output of an emitted Reshape that
  // commutes with it: the Transpose moves above the Reshape (and composes
  // with a Transpose feeding it); true when done.
  bool HoistAboveReshape(const onnx::NodeProto& n);
  // The dims of tensor `name`: declared by the writer, or a Transpose's of
  // its input's; null when unknown.
  std::optional<std::vector<int64_t>> DimsOf(const std::string& name) const;
  // The positive int64 entries of constant `name` (a Reshape's shape).
  std::optional<std::vector<int64_t>> PositiveShape(const std::string& name) const;
  // A Transpose node `input` -> `output` with `perm`, in the record group of `like`.
  onnx::NodeProto MakeTranspose(const std::string& input, const std::string& output,
                                const std::vector<int>& perm, const onnx::NodeProto& like);

  void RemoveIdentities();
  // A Transpose that moves only dims of size 1 (its output's dims declared)
  // keeps the elements in order: it becomes a Reshape, which copies nothing.
  void TransposesToReshapes();
  // Reshape(Reshape(x), s) with every entry of s positive (no 0 to copy, no
  // -1 to infer) is Reshape(x, s).
  void MergeReshapes();
  void DropDead();
  void KeepRecords(const std::vector<onnx::NodeProto>& before);

  onnx::GraphProto* gp_;
  const std::function<const Dims*(const std::string&)>& dims_of_;
  absl::flat_hash_set<std::string> pinned_;  // graph outputs and subgraph reads
  absl::flat_hash_set<std::string> names_;   // every tensor name
  absl::flat_hash_set<std::string> node_names_;
  absl::flat_hash_map<std::string, const onnx::TensorProto*> inits_;
  std::vector<onnx::TensorProto> new_inits_;
  absl::flat_hash_map<std::string, std::string> alias_;
  absl::flat_hash_map<std::string, int> producer_;
  std::vector<onnx::NodeProto> out_;
  absl::flat_hash_map<std::string, std::string> constant_cache_;  // name|perm -> name
  absl::flat_hash_map<std::string, int> readers_;  // tensor -> reading nodes of the input graph
};

std::string Tidier::Int64s(const std::vector<int64_t>& v, const std::string& base) {
  std::vector<double> d(v.begin(), v.end());
  Tensor t = Tensor::FromValues(TensorType(DType::kInt64, {static_cast<int64_t>(v.size())}), d);
  onnx::TensorProto p;
  onnx_internal::TensorToProto(t, &p);
  p.set_name(FreshName(base));
  new_inits_.push_back(p);
  return p.name();
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
    Perm from = Inverse(p);
    if (std::optional<std::string_view> before =
            onnx_record::DocLine(doc, onnx_record::kPermutedTag)) {
      (void)before;  // already permuted: not read back through two transposes
    } else {
      std::string perm_text;
      for (size_t i = 0; i < from.size(); ++i) {
        absl::StrAppend(&perm_text, i ? "," : "", from[i]);
      }
      proto.set_doc_string(absl::StrCat(onnx_record::kPermutedTag, perm_text, "\n",
                                        onnx_record::kRecordTag, std::string(*rec)));
    }
  }
  new_inits_.push_back(proto);
  constant_cache_[key] = proto.name();
  return proto.name();
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
  n.set_input(0, t0->input(0));
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
    onnx::NodeProto t;
    t.set_op_type("Transpose");
    t.set_name(FreshNodeName(absl::StrCat(n.name().empty() ? outer : n.name(), "/transpose")));
    t.add_input(inner);
    t.add_output(outer);
    onnx::AttributeProto* a = t.add_attribute();
    a->set_name("perm");
    a->set_type(onnx::AttributeProto::INTS);
    for (int d : p) a->add_ints(d);
    // The record group of the node (the record itself stays on it).
    if (std::optional<std::string_view> g =
            onnx_record::DocLine(n.doc_string(), onnx_record::kGroupTag)) {
      t.set_doc_string(absl::StrCat(onnx_record::kGroupTag, std::string(*g)));
    }
    after.push_back(std::move(t));
  }
  Emit(std::move(m));
  for (auto& t : after) Emit(std::move(t));
  return true;
}

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
  if (init == nullptr) {
    for (const auto& t : new_inits_) {
      if (t.name() == name) init = &t;
    }
  }
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

bool Tidier::FoldIntoDequantizedConstant(const onnx::NodeProto& n) {
  if (n.op_type() != "Transpose" || !n.domain().empty() || n.input_size() != 1) return false;
  auto it = producer_.find(n.input(0));
  if (it == producer_.end() || pinned_.contains(n.input(0))) return false;
  auto readers = readers_.find(n.input(0));
  if (readers == readers_.end() || readers->second != 1) return false;
  const int at = it->second;
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
  if (n.op_type() != "Transpose" || !n.domain().empty() || n.input_size() != 1) return false;
  auto it = producer_.find(n.input(0));
  if (it == producer_.end() || pinned_.contains(n.input(0))) return false;
  auto readers = readers_.find(n.input(0));
  if (readers == readers_.end() || readers->second != 1) return false;
  const int at = it->second;
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

void Tidier::RemoveIdentities() {
  absl::flat_hash_set<std::string> inputs, outputs;
  for (const auto& i : gp_->input()) inputs.insert(i.name());
  for (const auto& o : gp_->output()) outputs.insert(o.name());
  absl::flat_hash_set<std::string> produced;
  for (const auto& n : out_) {
    for (const auto& o : n.output()) produced.insert(o);
  }
  absl::flat_hash_map<std::string, std::string> rename;
  std::vector<bool> drop(out_.size(), false);
  for (size_t i = 0; i < out_.size(); ++i) {
    const onnx::NodeProto& n = out_[i];
    if (n.op_type() != "Identity" || !n.domain().empty() || n.input_size() != 1 ||
        n.output_size() != 1 || !outputs.contains(n.output(0))) {
      continue;
    }
    const std::string& x = n.input(0);
    if (!produced.contains(x) || inputs.contains(x) || pinned_.contains(x) || rename.contains(x)) {
      continue;
    }
    rename[x] = n.output(0);
    drop[i] = true;
  }
  if (rename.empty()) return;
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (drop[i]) continue;
    onnx::NodeProto& n = out_[i];
    for (int k = 0; k < n.input_size(); ++k) {
      if (auto r = rename.find(n.input(k)); r != rename.end()) n.set_input(k, r->second);
    }
    for (int k = 0; k < n.output_size(); ++k) {
      if (auto r = rename.find(n.output(k)); r != rename.end()) n.set_output(k, r->second);
    }
    kept.push_back(std::move(n));
  }
  out_ = std::move(kept);
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
    const onnx::TensorProto* shape = Init(n.input(1));
    if (shape == nullptr) {
      for (const auto& t : new_inits_) {
        if (t.name() == n.input(1)) shape = &t;
      }
    }
    if (shape == nullptr) continue;
    absl::StatusOr<Tensor> s = onnx_internal::TensorFromProto(*shape);
    if (!s.ok()) continue;
    const std::vector<int64_t> dims = onnx_internal::TensorInts(*s);
    if (std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d > 0; })) {
      n.set_input(0, first.input(0));
    }
  }
}

void Tidier::DropDead() {
  absl::flat_hash_set<std::string> used = pinned_;
  std::vector<bool> live(out_.size(), false);
  for (size_t i = out_.size(); i-- > 0;) {
    const onnx::NodeProto& n = out_[i];
    bool any = n.output_size() == 0;
    for (const auto& o : n.output()) any = any || used.contains(o);
    if (!any) continue;
    live[i] = true;
    for (const auto& in : n.input()) used.insert(in);
  }
  std::vector<onnx::NodeProto> kept;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (live[i]) kept.push_back(std::move(out_[i]));
  }
  out_ = std::move(kept);
}

// A node that carried its egret node's record (the first of its group) and
// is gone hands the record on: to the first node of its group still there,
// else (every node of the group gone) as a "before" record to the next node
// still there, or to the graph's doc string when none follows
// (egret_record_internal.h, kBeforeTag).
void Tidier::KeepRecords(const std::vector<onnx::NodeProto>& before) {
  absl::flat_hash_map<std::string, int> index;  // node name -> position in out_
  for (size_t i = 0; i < out_.size(); ++i) index[out_[i].name()] = static_cast<int>(i);
  absl::flat_hash_map<std::string, int> first_of_group;
  for (size_t i = 0; i < out_.size(); ++i) {
    if (auto g = onnx_record::DocLine(out_[i].doc_string(), onnx_record::kGroupTag)) {
      first_of_group.emplace(std::string(*g), static_cast<int>(i));
    }
  }
  std::string pending;  // before-records waiting for the next node still there
  for (const onnx::NodeProto& n : before) {
    if (auto it = index.find(n.name()); it != index.end()) {
      if (!pending.empty()) {
        onnx::NodeProto& next = out_[it->second];
        next.set_doc_string(absl::StrCat(pending, next.doc_string()));
        pending.clear();
      }
      continue;
    }
    std::optional<std::string_view> rec =
        onnx_record::DocLine(n.doc_string(), onnx_record::kRecordTag);
    if (!rec) continue;
    std::optional<std::string_view> g =
        onnx_record::DocLine(n.doc_string(), onnx_record::kGroupTag);
    if (g) {
      if (auto f = first_of_group.find(std::string(*g)); f != first_of_group.end()) {
        onnx::NodeProto& first = out_[f->second];
        if (!onnx_record::DocLine(first.doc_string(), onnx_record::kRecordTag)) {
          first.set_doc_string(n.doc_string());
        }
        continue;
      }
    }
    absl::StrAppend(&pending, onnx_record::kBeforeTag, std::string(*rec), "\n");
  }
  if (!pending.empty()) gp_->set_doc_string(absl::StrCat(gp_->doc_string(), pending));
}

// Names read inside the subgraphs of `g`'s nodes.
void CollectSubgraphReads(const onnx::GraphProto& g, absl::flat_hash_set<std::string>* read) {
  for (const auto& n : g.node()) {
    for (const auto& a : n.attribute()) {
      auto all = [&](const onnx::GraphProto& sub) {
        for (const auto& m : sub.node()) {
          for (const auto& in : m.input()) read->insert(in);
        }
        CollectSubgraphReads(sub, read);
      };
      if (a.has_g()) all(a.g());
      for (const auto& sub : a.graphs()) all(sub);
    }
  }
}

int CountOp(const std::vector<onnx::NodeProto>& nodes, std::string_view op) {
  int c = 0;
  for (const auto& n : nodes) c += n.op_type() == op;
  return c;
}

void Tidier::Run() {
  for (const auto& o : gp_->output()) pinned_.insert(o.name());
  CollectSubgraphReads(*gp_, &pinned_);
  for (const auto& i : gp_->input()) names_.insert(i.name());
  for (const auto& t : gp_->initializer()) {
    names_.insert(t.name());
    inits_[t.name()] = &t;
  }
  for (const auto& vi : gp_->value_info()) names_.insert(vi.name());
  for (const auto& n : gp_->node()) {
    node_names_.insert(n.name());
    for (const auto& o : n.output()) names_.insert(o);
  }
  const std::vector<onnx::NodeProto> before(gp_->node().begin(), gp_->node().end());
  for (const onnx::NodeProto& n : before) {
    absl::flat_hash_set<std::string> read(n.input().begin(), n.input().end());
    for (const std::string& in : read) ++readers_[in];
  }
  for (onnx::NodeProto n : before) {
    for (int k = 0; k < n.input_size(); ++k) n.set_input(k, Resolve(n.input(k)));
    if (n.op_type() == "Transpose" && n.domain().empty()) {
      FoldTranspose(n);
      if (n.op_type() == "Transpose" && (HoistAboveReshape(n) || FoldIntoDequantizedConstant(n))) {
        continue;
      }
    }
    if (SinkThroughReshape(n)) continue;
    if (n.op_type() == "Identity" && n.domain().empty() && n.input_size() == 1 &&
        n.output_size() == 1 && !pinned_.contains(n.output(0))) {
      alias_[n.output(0)] = n.input(0);
      continue;
    }
    if (!Sink(n)) Emit(std::move(n));
  }
  RemoveIdentities();
  DropDead();
  TransposesToReshapes();
  MergeReshapes();
  DropDead();
  // Only ever better: no more nodes and no more Transposes than before.
  if (out_.size() > before.size() || CountOp(out_, "Transpose") > CountOp(before, "Transpose")) {
    return;
  }
  KeepRecords(before);
  gp_->clear_node();
  for (auto& n : out_) *gp_->add_node() = std::move(n);
  for (auto& t : new_inits_) *gp_->add_initializer() = std::move(t);
}

}  // namespace

void TidyGraph(onnx::GraphProto* gp,
               const std::function<const Dims*(const std::string&)>& dims_of) {
  Tidier(gp, dims_of).Run();
}

}  // namespace egret::onnx_export
