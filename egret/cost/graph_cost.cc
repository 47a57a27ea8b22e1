#include "egret/cost/graph_cost.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/dtype.h"
#include "egret/graph/op_table.h"

namespace egret::cost {
namespace {

// The matrix unit's tile width along the channel (k and n) dims.
constexpr double kMatrixTile = 32;

// The side of the HTP's crouton activation blocks in pixels.
constexpr double kCroutonSide = 8;

double Tiled(double n) { return std::ceil(n / kMatrixTile) * kMatrixTile; }
double Blocked(int64_t n) {
  return std::ceil(static_cast<double>(n) / kCroutonSide) * kCroutonSide;
}

// Fills p.macs and p.matrix_macs for the op table's convolution and matrix
// ops (docs/cost-model.md, "The latency model"); leaves them 0 for any other
// op or when a shape it needs is unknown.
void FillMatrixWork(std::string_view base, absl::Span<const TensorType> outputs,
                    absl::Span<const NodeInput> inputs, NodeProfile* p) {
  if (outputs.empty() || inputs.size() < 2) return;
  const TensorType& out = outputs[0];
  const TensorType& in = *inputs[0].type;
  const TensorType& w = *inputs[1].type;
  const double out_elems = static_cast<double>(out.num_elements());
  if (base == "Conv2d" || base == "DepthWiseConv2d" || base == "TransposeConv2d") {
    if (out.rank() != 4 || in.rank() != 4 || w.rank() != 4 || w.dims[2] <= 0) return;
    const double fh = static_cast<double>(w.dims[0]), fw = static_cast<double>(w.dims[1]);
    const double cin_g = static_cast<double>(w.dims[2]), cout = static_cast<double>(w.dims[3]);
    const double groups = std::max(1.0, static_cast<double>(in.dims[3]) / cin_g);
    if (base == "DepthWiseConv2d") {
      p->macs = out_elems * fh * fw;
      return;
    }
    // A transposed convolution does the work of each input pixel once.
    const double pixels = base == "TransposeConv2d"
                              ? static_cast<double>(in.dims[0] * in.dims[1] * in.dims[2])
                              : static_cast<double>(out.dims[0] * out.dims[1] * out.dims[2]);
    p->macs = pixels * fh * fw * cin_g * cout;
    // The HTP lays activations out in crouton blocks of 8 x 8 pixels: a
    // partial block is computed whole.
    const TensorType& grid = base == "TransposeConv2d" ? in : out;
    const double blocked =
        static_cast<double>(grid.dims[0]) * Blocked(grid.dims[1]) * Blocked(grid.dims[2]);
    p->matrix_macs = blocked * fh * fw * groups * Tiled(cin_g) * Tiled(cout / groups);
  } else if (base == "FullyConnected" || base == "MatMul") {
    if (out.rank() < 1 || in.rank() < 1) return;
    const double k = static_cast<double>(in.dims.back());
    const double n = static_cast<double>(out.dims.back());
    if (n <= 0) return;
    p->macs = out_elems * k;
    p->matrix_macs = out_elems / n * Tiled(n) * Tiled(k);
  }
}

bool InGroup(const OpDef* def, OpGroup group) { return def != nullptr && def->group == group; }
bool InGroup(std::string_view op, OpGroup group) { return InGroup(FindOpDef(op), group); }
// FoldsFromConstants of an op whose row is `def`.
bool Folds(const OpDef* def) { return def != nullptr && def->group != OpGroup::kSpecial; }

// ProfileOf for an op whose row (FindOpDef(op)) the caller has looked up.
NodeProfile ProfileWithDef(std::string_view op, const OpDef* def,
                           absl::Span<const TensorType> outputs,
                           absl::Span<const NodeInput> inputs);

}  // namespace

bool IsMatrixOp(std::string_view op) { return InGroup(op, OpGroup::kConvolution); }
bool IsElementwiseOp(std::string_view op) { return InGroup(op, OpGroup::kElementwise); }

bool FoldsFromConstants(std::string_view op) { return Folds(FindOpDef(op)); }

NodeProfile ProfileOf(std::string_view op, absl::Span<const TensorType> outputs,
                      absl::Span<const NodeInput> inputs) {
  return ProfileWithDef(op, FindOpDef(op), outputs, inputs);
}

namespace {

NodeProfile ProfileWithDef(std::string_view op, const OpDef* def,
                           absl::Span<const TensorType> outputs,
                           absl::Span<const NodeInput> inputs) {
  // The row's name is the op's base name (FindOpDef looks it up by that).
  const std::string_view base = def != nullptr ? def->name : BaseOpName(op);
  NodeProfile p;
  p.dtype = outputs.empty() ? DType::kUnknown : outputs[0].dtype;
  p.multi_output = outputs.size() > 1;
  for (const TensorType& t : outputs) {
    p.output_bytes = SaturatingAdd(p.output_bytes, t.byte_size());
    p.output_activation_bytes.push_back(t.byte_size());
    p.max_rank = std::max(p.max_rank, t.rank());
  }
  // The one matrix op every data operand is computed from (0: none yet; a
  // data operand from none, or a second one, ends the epilogue).
  uint64_t source = 0;
  bool epilogue = def != nullptr && def->group == OpGroup::kElementwise;
  // A gather reads the slices it takes of its data, at most its output's
  // bytes, not the whole table (an embedding's rows for a few tokens).
  const bool gather = base == "Gather";
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& t = *inputs[i].type;
    if (inputs[i].shape_value) continue;
    if (!inputs[i].constant && inputs[i].stored == nullptr) {
      const uint64_t s = inputs[i].matrix_source;
      if (s == 0 || (source != 0 && s != source)) epilogue = false;
      source = s;
    }
    int64_t bytes = t.byte_size();
    int64_t stored = inputs[i].stored != nullptr ? inputs[i].stored->stored_byte_size() : 0;
    if (gather && i == 0 && bytes > p.output_bytes && bytes > 0) {
      stored =
          static_cast<int64_t>(static_cast<double>(stored) * static_cast<double>(p.output_bytes) /
                               static_cast<double>(bytes));
      bytes = p.output_bytes;
    }
    p.input_bytes = SaturatingAdd(p.input_bytes, bytes);
    if (inputs[i].stored != nullptr) {
      p.stored_weight_bytes = SaturatingAdd(p.stored_weight_bytes, stored);
    } else if (inputs[i].constant) {
      p.const_bytes = SaturatingAdd(p.const_bytes, bytes);
    } else {
      p.input_activation_bytes.push_back(bytes);
    }
    if (def != nullptr && def->IsParam(static_cast<int>(i))) continue;
    if (p.data_dtypes.empty()) p.input_dtype = t.dtype;
    p.data_dtypes.push_back(t.dtype);
    p.max_rank = std::max(p.max_rank, t.rank());
  }
  p.constant_inputs = !inputs.empty() && p.input_activation_bytes.empty();
  p.epilogue = epilogue && source != 0;
  FillMatrixWork(base, outputs, inputs, &p);
  return p;
}

}  // namespace

NodeCost NodeCostOf(const HvxCostModel& model, std::string_view op,
                    absl::Span<const TensorType> outputs, absl::Span<const NodeInput> inputs) {
  return model.Cost(op, ProfileOf(op, outputs, inputs));
}

namespace {

// How many producers ComputedFromConstants looks at, at most, for one value:
// the constant subexpressions it meets are a few nodes (a Reshape or Cast of
// a weight, a tiling rule's Slice of a dequantized one); a value that needs
// more is taken as not constant.
constexpr int kConstantSearchBudget = 64;

// What a GraphProfiler keeps about the nodes of its graph, by node id, when
// a caller prices many of them: every value is asked about by each of its
// readers and by the readers of those. Null members when pricing one node.
struct Memo {
  const std::vector<const OpDef*>* defs = nullptr;  // FindOpDef of each op
  std::vector<int8_t>* constant = nullptr;          // IsConstantValue: -1 not asked yet, 0, 1
};

const OpDef* DefOf(const Graph& g, NodeId id, const Memo& memo) {
  return memo.defs != nullptr ? (*memo.defs)[id] : FindOpDef(g.node(id).op);
}

// True when node `id` of `g` is a "$Const" or "$Shape", or an op that
// FoldsFromConstants computing from such nodes alone (transitively): the
// HTP computes it once while preparing the graph, so its output is a
// constant like a weight. `*budget` bounds the nodes visited. A node `memo`
// already knows is not constant with the full budget is not constant with
// any smaller one (the walk visits the same nodes in the same order), and
// false ends the whole walk: it answers at once.
bool ComputedFromConstants(const Graph& g, NodeId id, int* budget, const Memo& memo) {
  const Node& n = g.node(id);
  if (n.op == kConstOp || n.op == kShapeOp) return true;
  if (memo.constant != nullptr && (*memo.constant)[id] == 0) return false;
  if (n.inputs.empty() || --*budget < 0 || !Folds(DefOf(g, id, memo))) return false;
  for (const ValueRef& in : n.inputs) {
    if (!ComputedFromConstants(g, in.node, budget, memo)) return false;
  }
  return true;
}

bool IsConstantValue(const Graph& g, NodeId id, const Memo& memo) {
  if (memo.constant != nullptr && (*memo.constant)[id] >= 0) return (*memo.constant)[id] != 0;
  int budget = kConstantSearchBudget;
  const bool constant = ComputedFromConstants(g, id, &budget, memo);
  if (memo.constant != nullptr) (*memo.constant)[id] = constant ? 1 : 0;
  return constant;
}

// NodeInput::matrix_source of value `v` of `g`: its producer's id plus one
// when that is a matrix op; for an elementwise producer, the matrix op all
// of its data operands are outputs of (constants, values computed from
// constants alone and "$Shape" values aside).
uint64_t MatrixSource(const Graph& g, const ValueRef& v, const Memo& memo) {
  const OpDef* def = DefOf(g, v.node, memo);
  if (InGroup(def, OpGroup::kConvolution)) return static_cast<uint64_t>(v.node) + 1;
  if (!InGroup(def, OpGroup::kElementwise)) return 0;
  uint64_t source = 0;
  for (const ValueRef& in : g.node(v.node).inputs) {
    if (g.node(in.node).op == kShapeOp || IsConstantValue(g, in.node, memo)) continue;
    if (!InGroup(DefOf(g, in.node, memo), OpGroup::kConvolution)) return 0;
    const uint64_t s = static_cast<uint64_t>(in.node) + 1;
    if (source != 0 && s != source) return 0;
    source = s;
  }
  return source;
}

// The quantized constant `producer` dequantizes (a QDQ weight), or null.
const TensorType* StoredWeight(const Graph& g, const Node& producer) {
  if (producer.op != "Dequantize" || producer.inputs.size() != 1) return nullptr;
  const ValueRef q = producer.inputs[0];
  if (g.node(q.node).op != kConstOp || !IsQuantized(g.TypeOf(q).dtype)) return nullptr;
  return &g.TypeOf(q);
}

// The profile of `n` (whose row is `def`) in `g`.
NodeProfile ProfileInGraph(const Graph& g, const Node& n, const OpDef* def, const Memo& memo) {
  absl::InlinedVector<NodeInput, 8> ins;
  for (const ValueRef& v : n.inputs) {
    const Node& producer = g.node(v.node);
    NodeInput in{&g.TypeOf(v), producer.op == kShapeOp,
                 producer.op != kShapeOp && IsConstantValue(g, v.node, memo)};
    in.matrix_source = MatrixSource(g, v, memo);
    in.stored = StoredWeight(g, producer);
    ins.push_back(in);
  }
  return ProfileWithDef(n.op, def, n.outputs, ins);
}

}  // namespace

NodeProfile GraphNodeProfile(const Graph& g, const Node& n) {
  return ProfileInGraph(g, n, FindOpDef(n.op), Memo{});
}

NodeCost GraphNodeCost(const HvxCostModel& model, const Graph& g, const Node& n) {
  return model.Cost(n.op, GraphNodeProfile(g, n));
}

GraphProfiler::GraphProfiler(const Graph& g) : g_(g), constant_(g.num_nodes(), -1) {
  defs_.reserve(g.num_nodes());
  for (const Node& n : g.nodes()) defs_.push_back(FindOpDef(n.op));
}

NodeProfile GraphProfiler::Profile(NodeId id) {
  return ProfileInGraph(g_, g_.node(id), defs_[id], Memo{&defs_, &constant_});
}

double GraphCost(const Graph& g, const HvxCostModel& model, UncomputableNode* missing) {
  double total = 0;
  GraphProfiler profiler(g);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    NodeCost c = model.Cost(n.op, profiler.Profile(id));
    if (!c.computable) {
      if (missing != nullptr) *missing = UncomputableNode{n.op, std::move(c.reason)};
      return std::numeric_limits<double>::infinity();
    }
    total += c.cost;
  }
  return total;
}

NodeId AnnotateImplementations(const HvxCostModel& model, Graph* g, NodeCost* blocked) {
  // Annotating changes attributes only, not what the profiler depends on.
  GraphProfiler profiler(*g);
  for (NodeId id = 0; id < g->num_nodes(); ++id) {
    const Node& n = g->node(id);
    if (n.op == kConstOp || n.op == kShapeOp || n.op == kInputOp) continue;
    NodeCost c = model.Cost(n.op, profiler.Profile(id));
    if (!c.computable) {
      if (blocked != nullptr) *blocked = std::move(c);
      return id;
    }
    Node& m = g->mutable_node(id);
    m.attrs[std::string(kImplAttr)] = c.impl;
    m.attrs[std::string(kCostAttr)] = c.cost;
    if (c.off_htp) {
      m.attrs[std::string(kOffHtpReasonAttr)] = std::move(c.reason);
    } else {
      m.attrs.erase(std::string(kOffHtpReasonAttr));
    }
  }
  return kNoNode;
}

}  // namespace egret::cost
