#include "egret/executor/rounding_bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "egret/graph/op_table.h"
#include "egret/graph/tensor.h"

namespace egret {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Ops that only move, select or compare-and-keep elements: on inputs already
// in the output's encoding their result is on the grid, so they do not round.
bool MovesElements(std::string_view op) {
  static const absl::flat_hash_set<std::string_view> kOps = {"Reshape",
                                                             "Transpose",
                                                             "Concat",
                                                             "Slice_shape",
                                                             "StridedSlice",
                                                             "Split",
                                                             "Pad",
                                                             "Tile",
                                                             "Gather",
                                                             "PoolMax2d",
                                                             "ResizeNearestNeighbor",
                                                             "ReduceMax",
                                                             "ElementWiseMaximum",
                                                             "ElementWiseMinimum",
                                                             "Relu",
                                                             "TopK",
                                                             "ElementWiseSelect",
                                                             "$Out",
                                                             "Quantize"};
  return kOps.contains(op);
}

// Ops whose result moves by at most the largest of their data operands'
// moves (Lipschitz constant 1 in the max norm, operand by operand): those
// that move or select elements, and these, which average, clamp or contract.
bool LipschitzOne(std::string_view op) {
  static const absl::flat_hash_set<std::string_view> kOps = {
      "PoolAvg2d", "Resize",     "ResizeBilinear", "ReduceMean", "Relu1",
      "Relu6",     "ReluX",      "ReluMinMax",     "Tanh",       "Neg",
      "Abs",       "Dequantize", "QNN_Cast",       "Softmax"};
  return MovesElements(op) || kOps.contains(op);
}

bool IsData(const OpDef* def, int i) { return def == nullptr || !def->IsParam(i); }

// The constant behind `v`: a "$Const", or the Dequantize of one (whose real
// values are the constant's, Tensor::GetReal).
const Tensor* ConstantOf(const Graph& g, ValueRef v) {
  const Node& n = g.node(v.node);
  if (n.op == "$Const") return n.constant.get();
  if (BaseOpName(n.op) == "Dequantize" && !n.inputs.empty()) {
    const Node& q = g.node(n.inputs[0].node);
    if (q.op == "$Const") return q.constant.get();
  }
  return nullptr;
}

// max |value| of a constant.
double MaxAbs(const Tensor& t) {
  double m = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) m = std::max(m, std::abs(t.GetReal(i)));
  return m;
}

// min |value| of a constant.
double MinAbs(const Tensor& t) {
  double m = kInf;
  for (int64_t i = 0; i < t.num_elements(); ++i) m = std::min(m, std::abs(t.GetReal(i)));
  return m;
}

// The largest sum of |w| over the elements that share an index along `axis`
// (the output channel of a filter), axis counted from the end when negative;
// for MatMul's b ([..., k, n]) the sums run over k for each (batch, n).
double MaxAbsSumAlong(const Tensor& w, int axis) {
  const Dims& d = w.type().dims;
  const int rank = static_cast<int>(d.size());
  if (rank == 0) return std::abs(w.GetReal(0));
  if (axis < 0) axis += rank;
  int64_t inner = 1;
  for (int k = axis + 1; k < rank; ++k) inner *= d[k];
  const int64_t n = d[axis];
  absl::flat_hash_map<int64_t, double> sums;
  for (int64_t i = 0; i < w.num_elements(); ++i) {
    const int64_t channel = (i / inner) % n;
    const int64_t outer = i / (inner * n);
    sums[outer * n + channel] += std::abs(w.GetReal(i));
  }
  double m = 0;
  for (const auto& [k, s] : sums) m = std::max(m, s);
  return m;
}

// For MatMul: max over (batch, column j) of sum_k |b[..., k, j]|.
double MaxColumnAbsSum(const Tensor& b) {
  const Dims& d = b.type().dims;
  const int rank = static_cast<int>(d.size());
  if (rank < 2) return MaxAbsSumAlong(b, 0);
  const int64_t k = d[rank - 2], n = d[rank - 1];
  double m = 0;
  for (int64_t base = 0; base < b.num_elements(); base += k * n) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t r = 0; r < k; ++r) s += std::abs(b.GetReal(base + r * n + j));
      m = std::max(m, s);
    }
  }
  return m;
}

// For MatMul with constant a: max over (batch, row i) of sum_k |a[..., i, k]|.
double MaxRowAbsSum(const Tensor& a) {
  const Dims& d = a.type().dims;
  const int64_t k = d.empty() ? 1 : d.back();
  double m = 0;
  for (int64_t base = 0; base < a.num_elements(); base += k) {
    double s = 0;
    for (int64_t r = 0; r < k; ++r) s += std::abs(a.GetReal(base + r));
    m = std::max(m, s);
  }
  return m;
}

// The largest |real value| a value can hold: from its quantized encoding (or
// that of the tensor it dequantizes), or a constant's data; +inf otherwise.
double RangeOf(const Graph& g, ValueRef v) {
  if (const Tensor* c = ConstantOf(g, v)) return MaxAbs(*c);
  const TensorType* t = &g.TypeOf(v);
  const Node& n = g.node(v.node);
  if (!IsQuantized(t->dtype) && BaseOpName(n.op) == "Dequantize" && !n.inputs.empty()) {
    t = &g.TypeOf(n.inputs[0]);
  }
  if (!IsQuantized(t->dtype) || t->per_axis) return kInf;
  const double s = t->stepsize;
  return s * std::max(std::abs(static_cast<double>(StorageMin(t->dtype) - t->zero_offset)),
                      std::abs(static_cast<double>(StorageMax(t->dtype) - t->zero_offset)));
}

// A scalar parameter held by a "$Const", or nullopt.
std::optional<double> ScalarParam(const Graph& g, const Node& n, size_t i) {
  if (i >= n.inputs.size()) return std::nullopt;
  const Node& p = g.node(n.inputs[i].node);
  if (p.op != "$Const" || p.constant == nullptr || p.constant->num_elements() != 1) {
    return std::nullopt;
  }
  return p.constant->GetReal(0);
}

class BoundPass {
 public:
  // `order`: g's nodes in topological order.
  BoundPass(const Graph& g, const std::vector<NodeId>& order)
      : g_(g), grid_(g.num_nodes(), nullptr), rounds_(g.num_nodes(), false) {
    for (NodeId id : order) Classify(id);
  }

  // Whether node `id` rounds (see the header).
  bool Rounds(NodeId id) const { return rounds_[id]; }

  // The bound on node `id`'s result before it rounds, given `in(k)`, the
  // bound on its operand k; +inf when the op has no known constant. An op
  // whose data operands are all exact (bound 0) is exact.
  template <typename In>
  double Carry(NodeId id, In in) const {
    const Node& n = g_.node(id);
    const std::string_view op = BaseOpName(n.op);
    const OpDef* def = FindOpDef(op);
    double largest = 0, sum = 0;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (!IsData(def, static_cast<int>(i))) continue;
      largest = std::max(largest, in(i));
      sum += in(i);
    }
    if (largest == 0) return 0;
    auto e = [&](size_t i) { return i < n.inputs.size() ? in(i) : 0.0; };
    if (op == "Cast") return IsFloat(n.outputs[0].dtype) ? largest : kInf;
    if (op == "Gather") return e(1) > 0 ? kInf : e(0);
    if (op == "ElementWiseSelect") return e(0) > 0 ? kInf : std::max(e(1), e(2));
    if (LipschitzOne(op)) return largest;
    if (op == "ElementWiseAdd" || op == "ElementWiseSubtract") return sum;
    if (op == "Sigmoid") return largest / 4;
    if (op == "HardSwish") return 1.5 * largest;             // max |d/dx x relu6(x+3)/6|
    if (op == "Gelu" || op == "Erf") return 1.13 * largest;  // max slope 1.129 (at x=0 for erf)
    if (op == "Swish") return 1.1 * largest;                 // max |d/dx x sigmoid(x)| = 1.0998
    if (op == "HardSigmoid") {
      const std::optional<double> alpha = ScalarParam(g_, n, 1);
      return alpha ? std::abs(*alpha) * largest : kInf;
    }
    if (op == "ReduceSum") {
      const int64_t out = n.outputs[0].num_elements();
      return out > 0 ? largest * static_cast<double>(g_.TypeOf(n.inputs[0]).num_elements() / out)
                     : 0;
    }
    if (op == "ElementWiseMultiply" && n.inputs.size() == 2) {
      const double ra = RangeOf(g_, n.inputs[0]), rb = RangeOf(g_, n.inputs[1]);
      const double ea = e(0), eb = e(1);
      return (ea > 0 ? ea * rb : 0) + (eb > 0 ? eb * ra : 0) + ea * eb;
    }
    if (op == "ElementWiseDivide" && n.inputs.size() == 2) {
      const Tensor* k = ConstantOf(g_, n.inputs[1]);
      if (e(1) > 0 || k == nullptr) return kInf;
      const double m = MinAbs(*k);
      return m > 0 ? e(0) / m : kInf;
    }
    if (op == "Conv2d" || op == "DepthWiseConv2d" || op == "TransposeConv2d" ||
        op == "FullyConnected") {
      const Tensor* w = n.inputs.size() > 1 ? ConstantOf(g_, n.inputs[1]) : nullptr;
      if (w == nullptr || e(1) > 0) return kInf;
      // Filters are [fh, fw, cin/g, cout] (output channel last); weights
      // [units, k] (output unit first).
      const double lip = op == "FullyConnected" ? MaxAbsSumAlong(*w, 0) : MaxAbsSumAlong(*w, -1);
      return lip * e(0) + (n.inputs.size() > 2 ? e(2) : 0);
    }
    if (op == "MatMul" && n.inputs.size() == 2) {
      const Tensor* a = ConstantOf(g_, n.inputs[0]);
      const Tensor* b = ConstantOf(g_, n.inputs[1]);
      if (b != nullptr && e(1) == 0) return MaxColumnAbsSum(*b) * e(0);
      if (a != nullptr && e(0) == 0) return MaxRowAbsSum(*a) * e(1);
      return kInf;
    }
    return kInf;
  }

 private:
  // The grid a node's result lies on: its quantized encoding, that of the
  // tensor a Dequantize reads, or the common grid of the data operands of an
  // op that only moves or selects elements (a Quantize included); and whether
  // the node rounds: a quantized result not already on its grid.
  void Classify(NodeId id) {
    const Node& n = g_.node(id);
    if (n.outputs.size() != 1 || n.op == "$Shape" || n.op == "*Input") return;
    const TensorType& out = n.outputs[0];
    if (n.op == "$Const") {
      if (IsQuantized(out.dtype)) grid_[id] = &out;
      return;
    }
    const std::string_view op = BaseOpName(n.op);
    if (op == "Dequantize" && !n.inputs.empty()) {
      const TensorType& in = g_.TypeOf(n.inputs[0]);
      if (IsQuantized(in.dtype)) grid_[id] = &in;
      return;
    }
    const TensorType* common = nullptr;
    bool same = MovesElements(op);
    const OpDef* def = FindOpDef(op);
    for (size_t i = 0; same && i < n.inputs.size(); ++i) {
      if (!IsData(def, static_cast<int>(i))) continue;
      if (op == "ElementWiseSelect" && i == 0) continue;  // the condition
      if (op == "Gather" && i == 1) continue;             // the indices
      const TensorType* g = grid_[n.inputs[i].node];
      if (g == nullptr || (common != nullptr && !g->SameEncoding(*common))) {
        same = false;
      } else {
        common = g;
      }
    }
    if (!same) common = nullptr;
    if (IsQuantized(out.dtype)) {
      rounds_[id] = common == nullptr || !common->SameEncoding(out);
      grid_[id] = &out;
    } else if (IsFloat(out.dtype)) {
      grid_[id] = common;
    }
  }

  const Graph& g_;
  std::vector<const TensorType*> grid_;
  std::vector<bool> rounds_;
};

// The grid point distance after rounding two values at most `e` apart to
// step `s` (0 stays 0).
double RoundKept(double e, double s) { return e > 0 ? s * (std::floor(e / s) + 1) : 0; }

// Whether each node of `g` depends on a graph input (not only on constants).
std::vector<bool> DependsOnInput(const Graph& g, const std::vector<NodeId>& order) {
  std::vector<bool> live(g.num_nodes(), false);
  for (NodeId id : order) {
    const Node& n = g.node(id);
    if (n.op == "*Input") live[id] = true;
    for (ValueRef v : n.inputs) live[id] = live[id] || live[v.node];
  }
  return live;
}

}  // namespace

std::vector<RoundingBound> DeriveRoundingBounds(const Graph& reference, const Graph& candidate) {
  std::vector<RoundingBound> out(candidate.outputs().size());
  absl::StatusOr<std::vector<NodeId>> ref_order = reference.TopologicalOrder();
  absl::StatusOr<std::vector<NodeId>> order = candidate.TopologicalOrder();
  if (!ref_order.ok() || !order.ok()) {
    for (RoundingBound& b : out) {
      b.bound = kInf;
      b.unbounded_at = "a cycle";
    }
    return out;
  }
  absl::flat_hash_map<std::string_view, NodeId> ref_ids;
  for (NodeId id = 0; id < reference.num_nodes(); ++id) {
    if (!reference.node(id).name.empty()) ref_ids.emplace(reference.node(id).name, id);
  }
  std::vector<int> ref_position(reference.num_nodes(), 0);
  for (size_t k = 0; k < ref_order->size(); ++k)
    ref_position[(*ref_order)[k]] = static_cast<int>(k);
  const std::vector<bool> ref_live = DependsOnInput(reference, *ref_order);
  const BoundPass ref_pass(reference, *ref_order), cand_pass(candidate, *order);

  struct State {
    double e = 0;
    int removed = 0, added = 0;
    std::string unbounded_at;
  };
  std::vector<State> state(candidate.num_nodes());
  for (NodeId id : *order) {
    const Node& n = candidate.node(id);
    State& s = state[id];
    for (ValueRef v : n.inputs) {
      const State& in = state[v.node];
      s.removed = std::max(s.removed, in.removed);
      s.added = std::max(s.added, in.added);
      if (s.unbounded_at.empty()) s.unbounded_at = in.unbounded_at;
    }
    double pre = cand_pass.Carry(id, [&](size_t i) { return state[n.inputs[i].node].e; });

    // The reference nodes this node took over that compute from the inputs,
    // in the reference's order; the sinks are those none of the others read.
    std::vector<NodeId> region;
    for (const std::string& name : n.provenance.from()) {
      auto it = ref_ids.find(name);
      if (it != ref_ids.end() && ref_live[it->second]) region.push_back(it->second);
    }
    std::sort(region.begin(), region.end(),
              [&](NodeId a, NodeId b) { return ref_position[a] < ref_position[b]; });
    absl::flat_hash_map<NodeId, double> region_e;
    for (NodeId r : region) region_e[r] = 0;
    absl::flat_hash_set<NodeId> read;
    for (NodeId r : region) {
      for (ValueRef v : reference.node(r).inputs) {
        if (region_e.contains(v.node)) read.insert(v.node);
      }
    }
    const bool rounds = cand_pass.Rounds(id);
    bool kept = region.empty();  // no correspondence known: assume kept
    double removed_e = 0;
    for (NodeId r : region) {
      const Node& rn = reference.node(r);
      double e = ref_pass.Carry(r, [&](size_t i) {
        auto it = region_e.find(rn.inputs[i].node);
        return it == region_e.end() ? 0.0 : it->second;
      });
      const bool sink = !read.contains(r);
      if (ref_pass.Rounds(r)) {
        if (sink && rn.outputs[0].SameEncoding(n.outputs[0])) {
          // The candidate rounds here too, or its result is already on this
          // grid (it rounded before moving the elements): carry e unrounded.
          kept = true;
        } else {
          e += rn.outputs[0].stepsize / 2;
          ++s.removed;
        }
      }
      region_e[r] = e;
      if (sink) removed_e = std::max(removed_e, e);
      if (std::isinf(e) && s.unbounded_at.empty()) {
        s.unbounded_at = absl::StrFormat("input node '%s' (%s)", rn.name, rn.op);
      }
    }
    pre += removed_e;
    if (std::isinf(pre) && s.unbounded_at.empty()) {
      s.unbounded_at = absl::StrFormat("node %s (%s)", candidate.NodeLabel(id), n.op);
    }
    if (rounds) {
      const double step = n.outputs[0].stepsize;
      if (kept) {
        s.e = RoundKept(pre, step);
      } else {
        s.e = pre + step / 2;
        ++s.added;
      }
    } else {
      s.e = pre;
    }
  }
  for (size_t k = 0; k < out.size(); ++k) {
    const State& s = state[candidate.outputs()[k].value.node];
    out[k].bound = s.e;
    out[k].removed_roundings = s.removed;
    out[k].added_roundings = s.added;
    if (std::isinf(s.e)) out[k].unbounded_at = s.unbounded_at;
  }
  return out;
}

}  // namespace egret
