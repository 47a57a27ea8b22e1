#include "egret/extract_egraph/egraph_problem.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "egret/cost/graph_cost.h"
#include "egret/egraph/multi_outputs.h"

namespace egret::extract {

namespace {

// What pricing asks of an op, by Symbol id, worked out once per distinct op
// (the tests compare strings).
class OpFacts {
 public:
  enum : uint8_t { kKnown = 1, kFolds = 2, kMatrix = 4, kElementwise = 8 };
  uint8_t Of(Symbol op) {
    if (op.id() >= facts_.size()) facts_.resize(op.id() + 1, 0);
    uint8_t& f = facts_[op.id()];
    if (f == 0) {
      const std::string_view name = op.str();
      f = kKnown | (cost::FoldsFromConstants(name) ? kFolds : 0) |
          (cost::IsMatrixOp(name) ? kMatrix : 0) | (cost::IsElementwiseOp(name) ? kElementwise : 0);
    }
    return f;
  }

 private:
  std::vector<uint8_t> facts_;
};

// What a node's cost reads of one of its inputs (cost::NodeInput), by
// interned type: its type, the stored type of a dequantized weight, whether
// it is a shape value or a constant, and its matrix source.
constexpr TypeId kNoStored = ~TypeId{0};
struct InputFacts {
  enum : uint8_t { kShapeValue = 1, kConstant = 2 };
  uint64_t matrix_source;
  TypeId type;
  TypeId stored;  // kNoStored when none
  uint8_t flags;  // kShapeValue, kConstant
};

// Writes to `key` everything cost::NodeCostOf reads of a node (with one
// output) of `op` with output type `out` and operand classes `kids`: the op,
// the types and, per operand, its InputFacts with, instead of its matrix
// source, which operand is the first with the same one (what decides an
// epilogue, NodeProfile::epilogue). Types are interned, so equal ids are
// equal types.
void CostKey(Symbol op, TypeId out, absl::Span<const ClassId> kids,
             const std::vector<InputFacts>& inputs, std::string& key) {
  key.clear();
  auto put = [&](uint32_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(op.id());
  put(out);
  for (size_t j = 0; j < kids.size(); ++j) {
    const InputFacts& in = inputs[kids[j]];
    // 0: no matrix source; 1 + the first operand with this one's.
    uint32_t same = 0;
    if (in.matrix_source != 0) {
      for (size_t e = 0; e <= j; ++e) {
        if (inputs[kids[e]].matrix_source == in.matrix_source) {
          same = static_cast<uint32_t>(e + 1);
          break;
        }
      }
    }
    put(in.type);
    put(in.stored);
    put(static_cast<uint32_t>(in.flags) | same << 8);
  }
}

// The problem's class numbering: the snapshot's classes (see BuildProblem;
// class i's live nodes are [first[i], first[i + 1]), node k's children
// kids[kid_begin[k], kid_begin[k + 1])) in depth-first preorder from the
// roots (`roots`, as snapshot indices, in order), each class's nodes and
// their children in order. Returns, by problem index, the snapshot index;
// *rank is the inverse.
//
// Why. The snapshot is read breadth-first (its read is prefetched a few
// classes ahead, which needs the queue's order); on a network of many
// blocks that puts a class and its children thousands of indices apart (the
// frontier holds every alternative e-node's children: on the 1M-node
// transformer 72 % of the chosen nodes' child edges spanned 2^11 to 2^13
// classes, and 17 % 2^17 or more), and the extractors' walks from the
// roots (reachability, the DAG cost, the local search's reference counts)
// read a child's entry per edge: on a million nodes each was a cache miss.
// In depth-first order a class's first child, when new, is the next class,
// and those walks read the classes in about the order they lie in memory.
std::vector<ClassId> DepthFirstOrder(const std::vector<ClassId>& roots,
                                     const std::vector<uint32_t>& first,
                                     const std::vector<uint32_t>& kid_begin,
                                     const std::vector<ClassId>& kids, std::vector<ClassId>* rank) {
  const size_t nc = first.size() - 1;
  constexpr ClassId kUnseen = ~ClassId{0};
  rank->assign(nc, kUnseen);
  std::vector<ClassId> perm;
  perm.reserve(nc);
  std::vector<ClassId> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const ClassId c = stack.back();
    stack.pop_back();
    if ((*rank)[c] != kUnseen) continue;
    (*rank)[c] = static_cast<ClassId>(perm.size());
    perm.push_back(c);
    for (uint32_t k = first[c + 1]; k-- > first[c];) {
      for (uint32_t e = kid_begin[k + 1]; e-- > kid_begin[k];) {
        if ((*rank)[kids[e]] == kUnseen) stack.push_back(kids[e]);
      }
    }
  }
  return perm;
}

}  // namespace

absl::StatusOr<EGraphProblem> BuildProblem(const EGraph& g, const cost::HvxCostModel& model,
                                           const std::vector<Id>& roots,
                                           const std::function<std::string(NodeIdx)>& describe) {
  const Symbol shape_op = Symbol::Intern(kShapeOp);
  const Symbol const_op = Symbol::Intern(kConstOp);
  const Symbol dequantize_op = Symbol::Intern("Dequantize");
  OpFacts facts;
  // Classes reachable from the roots, through any live node, in the order
  // first reached: the snapshot's class indices (the problem numbers them
  // anew, DepthFirstOrder). index_of is by class id
  // (dense: ids are below g.num_ids()).
  constexpr ClassId kUnseen = ~ClassId{0};
  std::vector<ClassId> index_of(g.num_ids(), kUnseen);
  std::vector<Id> order;
  auto reach = [&](Id c) {  // c canonical
    ClassId& k = index_of[c];
    if (k == kUnseen) {
      k = static_cast<ClassId>(order.size());
      order.push_back(c);
    }
    return k;
  };
  // The reached part of the e-graph, read once (every later pass reads these
  // arrays, not the e-graph: on millions of e-nodes each pass over the
  // e-graph's classes, nodes and union-find was a pass of cache misses). The
  // live nodes of class i are live[first[i], first[i + 1]), in class order,
  // with their ops in live_op; live node k's children, as class indices, are
  // kids[kid_begin[k], kid_begin[k + 1]).
  enum : uint8_t { kHasShape = 1, kHasConst = 2, kHasMatrix = 4 };  // any node of the class
  std::vector<uint8_t> has;                                         // per class
  std::vector<uint32_t> first{0};
  std::vector<NodeIdx> live;
  std::vector<Symbol> live_op;
  std::vector<uint32_t> kid_begin{0};
  std::vector<ClassId> kids;
  for (Id r : roots) reach(g.Find(r));
  // The classes are read in the order reached, which is in no order of
  // theirs, so each class's record, node list and node records are three
  // dependent cache misses: they are prefetched in three steps, a few
  // classes ahead of the read (the queue is ahead of the read nearly always).
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i + 2 * kAhead < order.size()) g.PrefetchClass(order[i + 2 * kAhead]);
    if (i + kAhead < order.size()) g.PrefetchClassNodes(order[i + kAhead]);
    if (i + kAhead / 2 < order.size()) {
      for (NodeIdx n : g.ClassNodes(order[i + kAhead / 2])) g.PrefetchNode(n);
    }
    uint8_t h = 0;
    for (NodeIdx n : g.ClassNodes(order[i])) {
      const ENodeView v = g.Node(n);
      if (v.op == shape_op) h |= kHasShape;
      if (v.op == const_op) h |= kHasConst;
      if (!g.IsLive(n)) continue;
      if (facts.Of(v.op) & OpFacts::kMatrix) h |= kHasMatrix;
      live.push_back(n);
      live_op.push_back(v.op);
      for (Id ch : v.children) kids.push_back(reach(g.Find(ch)));
      kid_begin.push_back(static_cast<uint32_t>(kids.size()));
    }
    has.push_back(h);
    first.push_back(static_cast<uint32_t>(live.size()));
  }
  const size_t nc = order.size();
  auto children = [&](uint32_t k) {
    return absl::Span<const ClassId>(kids.data() + kid_begin[k], kid_begin[k + 1] - kid_begin[k]);
  };
  // The classes whose value is a constant: one holding a "$Const", or a node
  // of an op that FoldsFromConstants over constant classes and shape values
  // alone, which the graph's preparation folds into a weight
  // (GraphNodeProfile, graph_cost.h).
  // By sweeps from the leaves' end of the reach order until none changes:
  // children mostly come after their users in it, so two sweeps usually.
  std::vector<bool> folded(nc, false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = nc; i-- > 0;) {
      if (folded[i]) continue;
      for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
        bool constant = live_op[k] == const_op;
        if (!constant) {
          if (!(facts.Of(live_op[k]) & OpFacts::kFolds)) continue;
          constant = !children(k).empty();
          for (ClassId ch : children(k)) {
            if (has[ch] & kHasShape) continue;
            constant = folded[ch];
            if (!constant) break;
          }
        }
        if (constant) {
          folded[i] = true;
          changed = true;
          break;
        }
      }
    }
  }
  // NodeInput::matrix_source of class i (graph_cost.h), as GraphNodeProfile
  // finds it in a graph, over the class's nodes: the class itself when one of
  // them is a matrix op, or the class of the matrix op whose output an
  // elementwise node of the class reads alone. Asked once per class, by
  // input_of below.
  auto is_param = [&](ClassId i) { return (has[i] & kHasShape) || folded[i]; };
  auto matrix_key = [&](ClassId i) {
    return (has[i] & kHasMatrix) ? static_cast<uint64_t>(order[i]) + 1 : uint64_t{0};
  };
  auto matrix_source = [&](ClassId i) -> uint64_t {
    if (has[i] & kHasMatrix) return matrix_key(i);
    for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
      if (!(facts.Of(live_op[k]) & OpFacts::kElementwise)) continue;
      uint64_t source = 0;
      bool alone = true;
      for (ClassId ch : children(k)) {
        if (is_param(ch)) continue;
        const uint64_t s = matrix_key(ch);
        if (s == 0 || (source != 0 && s != source)) alone = false;
        source = s;
      }
      if (alone && source != 0) return source;
    }
    return uint64_t{0};
  };
  // The input as pricing sees it (cost::NodeInput, InputFacts): a constant's
  // bytes are read from DDR, and a weight read through a Dequantize of a
  // quantized constant is priced at its stored bytes (graph_cost.h). Each
  // class as an input, once.
  auto input_of = [&](ClassId i) {
    const bool shape = has[i] & kHasShape;
    const uint8_t flags = shape ? InputFacts::kShapeValue : folded[i] ? InputFacts::kConstant : 0;
    InputFacts in{0, g.TypeIdOf(order[i]), kNoStored, flags};
    for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
      if (live_op[k] != dequantize_op || children(k).size() != 1) continue;
      const ClassId q = children(k)[0];
      if (IsQuantized(g.TypeOf(order[q]).dtype) && (has[q] & kHasConst)) {
        in.flags |= InputFacts::kConstant;
        in.stored = g.TypeIdOf(order[q]);
        break;
      }
    }
    in.matrix_source = matrix_source(i);
    return in;
  };
  std::vector<InputFacts> as_input;
  as_input.reserve(nc);
  for (size_t i = 0; i < nc; ++i) as_input.push_back(input_of(static_cast<ClassId>(i)));
  // A node's costs depend only on its op, its output type and its inputs
  // as pricing sees them (CostKey), so nodes alike are priced once: a
  // network of repeated blocks has a few hundred kinds of e-node among
  // millions. Live node k's costs are priced[kind[k]] (a node of a
  // multi-output class has an entry of its own): four bytes a node, where
  // its two costs were sixteen (on the 1M-node transformer's saturated
  // e-graph, 2.7M live nodes, 32 MB of the problem's peak).
  struct Priced {
    double cost = 0, standalone = 0;
    int32_t uncomputable = -1;  // when not computable: its index in why_not
  };
  std::vector<Priced> priced;
  std::vector<cost::NodeCost> why_not;  // why a kind has no implementation
  std::vector<uint32_t> kind(live.size());
  // Whether live node k has an implementation.
  const auto ok = [&](uint32_t k) { return priced[kind[k]].uncomputable < 0; };
  std::vector<cost::NodeInput> ins;
  absl::flat_hash_map<std::string, uint32_t> priced_index;
  std::string key;
  auto price = [&](uint32_t k, absl::Span<const TensorType> outputs) {
    ins.clear();
    for (ClassId ch : children(k)) {
      const InputFacts& in = as_input[ch];
      ins.push_back(cost::NodeInput{&g.Type(in.type), (in.flags & InputFacts::kShapeValue) != 0,
                                    (in.flags & InputFacts::kConstant) != 0,
                                    in.stored == kNoStored ? nullptr : &g.Type(in.stored),
                                    in.matrix_source});
    }
    const std::string_view op = live_op[k].str();
    Priced out;
    cost::NodeCost c = cost::NodeCostOf(model, op, outputs, ins);
    out.cost = out.standalone = c.cost;
    if (c.computable && (facts.Of(live_op[k]) & OpFacts::kElementwise) &&
        std::any_of(ins.begin(), ins.end(),
                    [](const cost::NodeInput& in) { return in.matrix_source != 0; })) {
      for (cost::NodeInput& in : ins) in.matrix_source = 0;
      out.standalone = cost::NodeCostOf(model, op, outputs, ins).cost;
    }
    if (!c.computable) {
      out.uncomputable = static_cast<int32_t>(why_not.size());
      why_not.push_back(std::move(c));
    }
    return out;
  };
  for (size_t i = 0; i < nc; ++i) {
    // A multi-output class is priced with every output, as graph pricing
    // prices the node lowering emits for it (and not remembered: its key
    // would need every output's type).
    const TensorType& t = g.TypeOf(order[i]);
    absl::Span<const TensorType> outputs(&t, 1);
    std::vector<TensorType> multi_outputs;
    const bool multi = t.dtype == DType::kMulti;
    if (multi) {
      if (absl::StatusOr<std::vector<TensorType>> m = MultiOutputTypes(g, order[i]); m.ok()) {
        multi_outputs = *std::move(m);
        outputs = multi_outputs;
      }
    }
    for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
      if (multi) {
        kind[k] = static_cast<uint32_t>(priced.size());
        priced.push_back(price(k, outputs));
      } else {
        CostKey(live_op[k], g.TypeIdOf(order[i]), children(k), as_input, key);
        auto [it, inserted] = priced_index.try_emplace(key, static_cast<uint32_t>(priced.size()));
        if (inserted) priced.push_back(price(k, outputs));
        kind[k] = it->second;
      }
    }
  }
  std::vector<InputFacts>().swap(as_input);
  // Computable classes by propagation from the leaves (a worklist, so a deep
  // chain costs linear time, not one sweep per level).
  std::vector<bool> computable(nc, false);
  {
    struct Pending {
      uint32_t cls;
      uint32_t missing;  // child occurrences not yet computable
    };
    std::vector<Pending> pending;
    // Child class -> pending nodes: users[user_begin[c], user_begin[c + 1]).
    std::vector<uint32_t> user_begin(nc + 1, 0), users;
    std::vector<uint32_t> ready;
    for (uint32_t k = 0; k < live.size(); ++k) {
      if (!ok(k)) continue;
      for (ClassId ch : children(k)) ++user_begin[ch + 1];
    }
    for (size_t c = 0; c < nc; ++c) user_begin[c + 1] += user_begin[c];
    users.resize(user_begin[nc]);
    std::vector<uint32_t> fill(user_begin.begin(), user_begin.end() - 1);
    for (size_t i = 0; i < nc; ++i) {
      for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
        if (!ok(k)) continue;
        const uint32_t u = static_cast<uint32_t>(pending.size());
        pending.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(children(k).size())});
        for (ClassId ch : children(k)) users[fill[ch]++] = u;
        if (children(k).empty() && !computable[i]) {
          computable[i] = true;
          ready.push_back(static_cast<uint32_t>(i));
        }
      }
    }
    while (!ready.empty()) {
      const uint32_t c = ready.back();
      ready.pop_back();
      for (uint32_t u = user_begin[c]; u < user_begin[c + 1]; ++u) {
        Pending& pn = pending[users[u]];
        if (--pn.missing == 0 && !computable[pn.cls]) {
          computable[pn.cls] = true;
          ready.push_back(pn.cls);
        }
      }
    }
  }
  std::vector<ClassId> root_index;  // the roots as snapshot indices
  for (Id r : roots) root_index.push_back(index_of[g.Find(r)]);
  for (const size_t ri : root_index) {
    if (computable[ri]) continue;
    // Find an op that blocks it: walk uncomputable classes from the root.
    std::vector<size_t> todo{ri};
    std::vector<bool> seen(nc, false);
    seen[ri] = true;
    while (!todo.empty()) {
      size_t i = todo.back();
      todo.pop_back();
      for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
        if (!ok(k)) {
          std::string origin = describe ? describe(live[k]) : "";
          return absl::InvalidArgumentError(absl::StrFormat(
              "output class %d (%s) cannot be computed: op '%s' (class %d, %s%s%s) %s", order[ri],
              g.TypeOf(order[ri]).ToString(), live_op[k].str(), order[i],
              g.TypeOf(order[i]).ToString(), origin.empty() ? "" : ", ", origin,
              cost::NoHtpImplementationText(why_not[priced[kind[k]].uncomputable])));
        }
        for (ClassId ci : children(k)) {
          if (!computable[ci] && !seen[ci]) {
            seen[ci] = true;
            todo.push_back(ci);
          }
        }
      }
    }
    return absl::InvalidArgumentError(absl::StrFormat("output class %d (%s) cannot be computed",
                                                      order[ri], g.TypeOf(order[ri]).ToString()));
  }
  EGraphProblem out;
  std::vector<ClassId> rank;  // snapshot index -> problem index
  const std::vector<ClassId> perm = DepthFirstOrder(root_index, first, kid_begin, kids, &rank);
  ExtractionProblemBuilder b;
  b.Reserve(nc, live.size(), kids.size());
  for (size_t j = 0; j < nc; ++j) {
    const absl::AlphaNum name(order[perm[j]]);  // the class id, in decimal
    b.AddClass(std::string_view(name.data(), name.size()));
  }
  // The builder numbers nodes by class, in the order added within a class
  // (a stable sort); classes are added in index order, so the e-nodes in
  // the order added are node_of. Nodes are not named: the problem names
  // them after their class (ExtractionProblem::node_name), node_of gives
  // the e-node.
  std::vector<NodeIdx> added;
  std::vector<ClassId> ks;  // a node's children, as problem indices
  for (size_t j = 0; j < nc; ++j) {
    const ClassId i = perm[j];
    if (!computable[i]) continue;
    for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
      if (!ok(k)) continue;
      const absl::Span<const ClassId> kk = children(k);
      if (!std::all_of(kk.begin(), kk.end(), [&](ClassId ch) { return computable[ch]; })) {
        continue;
      }
      ks.clear();
      for (ClassId ch : kk) ks.push_back(rank[ch]);
      const Priced& pk = priced[kind[k]];
      b.AddNode(static_cast<ClassId>(j), live_op[k].str(), pk.cost, ks);
      if (pk.standalone > pk.cost) {
        EGraphProblem::EpilogueAssumption a{
            static_cast<ENodeId>(added.size()), {}, pk.cost, pk.standalone};
        for (ClassId ch : kk) {
          if (!is_param(ch) &&
              std::find(a.operands.begin(), a.operands.end(), rank[ch]) == a.operands.end()) {
            a.operands.push_back(rank[ch]);
          }
        }
        out.epilogues.push_back(std::move(a));
      }
      added.push_back(live[k]);
    }
  }
  for (ClassId r : root_index) b.AddRoot(rank[r]);
  out.param_class.resize(nc);
  for (size_t j = 0; j < nc; ++j) out.param_class[j] = is_param(perm[j]);
  // The snapshot is not needed to build: freed before the problem is made.
  {
    const auto drop = [](auto& v) { std::remove_reference_t<decltype(v)>().swap(v); };
    drop(index_of);
    drop(rank);
    drop(live);
    drop(live_op);
    drop(kid_begin);
    drop(kids);
    drop(kind);
    drop(priced);
  }
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  if (!p.ok()) return p.status();
  out.problem = *std::move(p);
  out.node_of = std::move(added);
  out.class_of.resize(nc);
  for (size_t j = 0; j < nc; ++j) out.class_of[j] = order[perm[j]];
  return out;
}

}  // namespace egret::extract
