#include "egret/extract_egraph/egraph_problem.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "egret/cost/graph_cost.h"
#include "egret/egraph/multi_outputs.h"

namespace egret::extract {

absl::StatusOr<EGraphProblem> BuildProblem(const EGraph& g, const cost::HvxCostModel& model,
                                           const std::vector<Id>& roots,
                                           const std::function<std::string(NodeIdx)>& describe) {
  // Classes reachable from the roots, through any node; index by class id
  // (dense: ids are below g.num_ids()).
  constexpr ClassId kUnseen = ~ClassId{0};
  std::vector<ClassId> index_of(g.num_ids(), kUnseen);
  auto index = [&](Id c) { return index_of[g.Find(c)]; };
  std::vector<Id> order;
  auto reach = [&](Id c) {
    c = g.Find(c);
    if (index_of[c] == kUnseen) {
      index_of[c] = static_cast<ClassId>(order.size());
      order.push_back(c);
    }
  };
  for (Id r : roots) reach(r);
  for (size_t i = 0; i < order.size(); ++i) {
    for (NodeIdx n : g.ClassNodes(order[i])) {
      if (!g.IsLive(n)) continue;
      for (Id ch : g.Node(n).children) reach(ch);
    }
  }
  // Node costs; computable classes by fixpoint. The live nodes of class i are
  // infos[first[i], first[i + 1]).
  struct NodeInfo {  // 24 bytes: one per live e-node
    double cost;
    double standalone;  // the cost were it no epilogue (EpilogueAssumption)
    NodeIdx n;
    bool ok;
  };
  std::vector<NodeInfo> infos;
  std::vector<uint32_t> first(order.size() + 1, 0);
  auto nodes = [&](size_t i) {
    return absl::Span<const NodeInfo>(infos.data() + first[i], first[i + 1] - first[i]);
  };
  // Why each node that is not ok has no implementation, for the error.
  absl::flat_hash_map<NodeIdx, cost::NodeCost> uncomputable;
  std::vector<cost::NodeInput> ins;
  const Symbol shape_op = Symbol::Intern(kShapeOp);
  const Symbol const_op = Symbol::Intern(kConstOp);
  const Symbol dequantize_op = Symbol::Intern("Dequantize");
  // The classes whose value is a constant: one holding a "$Const", or a node
  // of an op that FoldsFromConstants over constant classes and shape values
  // alone, which the graph's preparation folds into a weight
  // (GraphNodeProfile, graph_cost.h).
  // By sweeps from the leaves' end of the reach order until none changes:
  // children mostly come after their users in it, so two sweeps usually.
  std::vector<bool> folded(order.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = order.size(); i-- > 0;) {
      if (folded[i]) continue;
      for (NodeIdx n : g.ClassNodes(order[i])) {
        if (!g.IsLive(n)) continue;
        const Symbol op = g.NodeOp(n);
        bool constant = op == const_op;
        if (!constant) {
          if (!cost::FoldsFromConstants(op.str())) continue;
          constant = !g.Node(n).children.empty();
          for (Id ch : g.Node(n).children) {
            ch = g.Find(ch);
            if (!g.ClassNodesWithOp(ch, shape_op).empty()) continue;
            constant = folded[index(ch)];
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
  // NodeInput::matrix_source of class `c` (graph_cost.h), as GraphNodeProfile
  // finds it in a graph, over the class's nodes: the class itself when one of
  // them is a matrix op, or the class of the matrix op whose output an
  // elementwise node of the class reads alone. Asked once per class, by
  // input_of below.
  auto is_param = [&](Id c) {
    return !g.ClassNodesWithOp(c, shape_op).empty() || folded[index(c)];
  };
  auto has_matrix_op = [&](Id c) {
    for (NodeIdx n : g.ClassNodes(c)) {
      if (g.IsLive(n) && cost::IsMatrixOp(g.NodeOp(n).str())) return true;
    }
    return false;
  };
  auto matrix_source = [&](Id c) -> uint64_t {
    if (has_matrix_op(c)) return static_cast<uint64_t>(c) + 1;
    for (NodeIdx n : g.ClassNodes(c)) {
      if (!g.IsLive(n) || !cost::IsElementwiseOp(g.NodeOp(n).str())) continue;
      uint64_t source = 0;
      bool alone = true;
      for (Id ch : g.Node(n).children) {
        ch = g.Find(ch);
        if (is_param(ch)) continue;
        const uint64_t s = has_matrix_op(ch) ? static_cast<uint64_t>(ch) + 1 : 0;
        if (s == 0 || (source != 0 && s != source)) alone = false;
        source = s;
      }
      if (alone && source != 0) return source;
    }
    return uint64_t{0};
  };
  // The input as pricing sees it: a constant's bytes are read from DDR, and
  // a weight read through a Dequantize of a quantized constant is priced at
  // its stored bytes (graph_cost.h).
  auto input_of = [&](Id c) {
    const bool shape = !g.ClassNodesWithOp(c, shape_op).empty();
    cost::NodeInput in{&g.TypeOf(c), shape, !shape && folded[index(c)]};
    for (NodeIdx d : g.ClassNodesWithOp(c, dequantize_op)) {
      if (!g.IsLive(d) || g.Node(d).children.size() != 1) continue;
      const Id q = g.Find(g.Node(d).children[0]);
      if (IsQuantized(g.TypeOf(q).dtype) && !g.ClassNodesWithOp(q, const_op).empty()) {
        in.constant = true;
        in.stored = &g.TypeOf(q);
        break;
      }
    }
    in.matrix_source = matrix_source(c);
    return in;
  };
  // Each class as an input, once.
  std::vector<cost::NodeInput> as_input;
  as_input.reserve(order.size());
  for (Id c : order) as_input.push_back(input_of(c));
  for (size_t i = 0; i < order.size(); ++i) {
    // A multi-output class is priced with every output, as graph pricing
    // prices the node lowering emits for it.
    const TensorType& t = g.TypeOf(order[i]);
    absl::Span<const TensorType> outputs(&t, 1);
    std::vector<TensorType> multi_outputs;
    if (t.dtype == DType::kMulti) {
      if (absl::StatusOr<std::vector<TensorType>> m = MultiOutputTypes(g, order[i]); m.ok()) {
        multi_outputs = *std::move(m);
        outputs = multi_outputs;
      }
    }
    first[i] = static_cast<uint32_t>(infos.size());
    for (NodeIdx n : g.ClassNodes(order[i])) {
      if (!g.IsLive(n)) continue;
      ins.clear();
      for (Id ch : g.Node(n).children) ins.push_back(as_input[index(ch)]);
      const std::string_view op = g.NodeOp(n).str();
      cost::NodeCost c = cost::NodeCostOf(model, op, outputs, ins);
      double standalone = c.cost;
      if (c.computable && cost::IsElementwiseOp(op) &&
          std::any_of(ins.begin(), ins.end(),
                      [](const cost::NodeInput& in) { return in.matrix_source != 0; })) {
        for (cost::NodeInput& in : ins) in.matrix_source = 0;
        standalone = cost::NodeCostOf(model, op, outputs, ins).cost;
      }
      infos.push_back(NodeInfo{c.cost, standalone, n, c.computable});
      if (!c.computable) uncomputable.emplace(n, std::move(c));
    }
  }
  first[order.size()] = static_cast<uint32_t>(infos.size());
  std::vector<cost::NodeInput>().swap(as_input);
  // Computable classes by propagation from the leaves (a worklist, so a deep
  // chain costs linear time, not one sweep per level).
  std::vector<bool> computable(order.size(), false);
  {
    struct Pending {
      uint32_t cls;
      uint32_t missing;  // child occurrences not yet computable
    };
    std::vector<Pending> pending;
    // Child class -> pending nodes: users[user_begin[c], user_begin[c + 1]).
    std::vector<uint32_t> user_begin(order.size() + 1, 0), users;
    std::vector<uint32_t> ready;
    for (const NodeInfo& ni : infos) {
      if (!ni.ok) continue;
      for (Id ch : g.Node(ni.n).children) ++user_begin[index(ch) + 1];
    }
    for (size_t c = 0; c < order.size(); ++c) user_begin[c + 1] += user_begin[c];
    users.resize(user_begin[order.size()]);
    std::vector<uint32_t> fill(user_begin.begin(), user_begin.end() - 1);
    for (size_t i = 0; i < order.size(); ++i) {
      for (const NodeInfo& ni : nodes(i)) {
        if (!ni.ok) continue;
        const uint32_t k = static_cast<uint32_t>(pending.size());
        absl::Span<const Id> children = g.Node(ni.n).children;
        pending.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(children.size())});
        for (Id ch : children) users[fill[index(ch)]++] = k;
        if (children.empty() && !computable[i]) {
          computable[i] = true;
          ready.push_back(static_cast<uint32_t>(i));
        }
      }
    }
    while (!ready.empty()) {
      const uint32_t c = ready.back();
      ready.pop_back();
      for (uint32_t u = user_begin[c]; u < user_begin[c + 1]; ++u) {
        const uint32_t k = users[u];
        Pending& pn = pending[k];
        if (--pn.missing == 0 && !computable[pn.cls]) {
          computable[pn.cls] = true;
          ready.push_back(pn.cls);
        }
      }
    }
  }
  for (Id r : roots) {
    size_t ri = index(r);
    if (computable[ri]) continue;
    // Find an op that blocks it: walk uncomputable classes from the root.
    std::vector<size_t> todo{ri};
    std::vector<bool> seen(order.size(), false);
    seen[ri] = true;
    while (!todo.empty()) {
      size_t i = todo.back();
      todo.pop_back();
      for (const NodeInfo& ni : nodes(i)) {
        if (!ni.ok) {
          std::string origin = describe ? describe(ni.n) : "";
          return absl::InvalidArgumentError(absl::StrFormat(
              "output class %d (%s) cannot be computed: op '%s' (class %d, %s%s%s) %s", order[ri],
              g.TypeOf(order[ri]).ToString(), g.NodeOp(ni.n).str(), order[i],
              g.TypeOf(order[i]).ToString(), origin.empty() ? "" : ", ", origin,
              cost::NoHtpImplementationText(uncomputable.at(ni.n))));
        }
        for (Id ch : g.Node(ni.n).children) {
          size_t ci = index(ch);
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
  ExtractionProblemBuilder b;
  for (size_t i = 0; i < order.size(); ++i) b.AddClass(absl::StrCat(order[i]));
  std::vector<ClassId> kids;
  // The builder numbers nodes by class, in the order added within a class
  // (a stable sort); classes are added in index order, so the e-nodes in
  // the order added are node_of.
  std::vector<NodeIdx> added;
  for (size_t i = 0; i < order.size(); ++i) {
    if (!computable[i]) continue;
    for (const NodeInfo& ni : nodes(i)) {
      if (!ni.ok) continue;
      kids.clear();
      bool all = true;
      for (Id ch : g.Node(ni.n).children) {
        size_t ci = index(ch);
        all &= computable[ci];
        kids.push_back(static_cast<ClassId>(ci));
      }
      if (!all) continue;
      b.AddNode(static_cast<ClassId>(i), g.NodeOp(ni.n).str(), ni.cost, kids, absl::StrCat(ni.n));
      if (ni.standalone > ni.cost) {
        EGraphProblem::EpilogueAssumption a{
            static_cast<ENodeId>(added.size()), {}, ni.cost, ni.standalone};
        for (ClassId k : kids) {
          if (!is_param(order[k]) &&
              std::find(a.operands.begin(), a.operands.end(), k) == a.operands.end()) {
            a.operands.push_back(k);
          }
        }
        out.epilogues.push_back(std::move(a));
      }
      added.push_back(ni.n);
    }
  }
  for (Id r : roots) b.AddRoot(index(r));
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  if (!p.ok()) return p.status();
  out.problem = *std::move(p);
  out.node_of = std::move(added);
  out.param_class.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) out.param_class[i] = is_param(order[i]);
  out.class_of = std::move(order);
  return out;
}

}  // namespace egret::extract
