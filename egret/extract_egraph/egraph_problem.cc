#include "egret/extract_egraph/egraph_problem.h"

#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "egret/cost/graph_cost.h"

namespace egret::extract {

absl::StatusOr<EGraphProblem> BuildProblem(const EGraph& g, const cost::HvxCostModel& model,
                                           const std::vector<Id>& roots,
                                           const std::function<std::string(NodeIdx)>& describe) {
  // Classes reachable from the roots, through any node.
  absl::flat_hash_map<Id, ClassId> index;
  std::vector<Id> order;
  for (Id r : roots) {
    r = g.Find(r);
    if (index.try_emplace(r, static_cast<ClassId>(order.size())).second) {
      order.push_back(r);
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    for (NodeIdx n : g.ClassNodes(order[i])) {
      if (!g.IsLive(n)) continue;
      for (Id ch : g.Node(n).children) {
        Id c = g.Find(ch);
        if (index.try_emplace(c, static_cast<ClassId>(order.size())).second) {
          order.push_back(c);
        }
      }
    }
  }
  // Node costs; computable classes by fixpoint.
  struct NodeInfo {
    NodeIdx n;
    double cost;
    bool ok;
  };
  std::vector<std::vector<NodeInfo>> nodes(order.size());
  // Why each node that is not ok has no implementation, for the error.
  absl::flat_hash_map<NodeIdx, cost::NodeCost> uncomputable;
  std::vector<cost::NodeInput> ins;
  const Symbol shape_op = Symbol::Intern(kShapeOp);
  const Symbol const_op = Symbol::Intern(kConstOp);
  const Symbol dequantize_op = Symbol::Intern("Dequantize");
  // NodeInput::matrix_source of class `c` (graph_cost.h), as GraphNodeProfile
  // finds it in a graph, over the class's nodes: the class itself when one of
  // them is a matrix op, or the class of the matrix op whose output an
  // elementwise node of the class reads alone. Memoized: a class is asked
  // once per parent node.
  absl::flat_hash_map<Id, uint64_t> sources;
  auto is_param = [&](Id c) {
    return !g.ClassNodesWithOp(c, shape_op).empty() || !g.ClassNodesWithOp(c, const_op).empty();
  };
  auto has_matrix_op = [&](Id c) {
    for (NodeIdx n : g.ClassNodes(c)) {
      if (g.IsLive(n) && cost::IsMatrixOp(g.NodeOp(n).str())) return true;
    }
    return false;
  };
  auto matrix_source = [&](Id c) -> uint64_t {
    auto [it, inserted] = sources.try_emplace(c, 0);
    if (!inserted) return it->second;
    uint64_t found = 0;
    if (has_matrix_op(c)) {
      found = static_cast<uint64_t>(c) + 1;
    } else {
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
        if (alone && source != 0) {
          found = source;
          break;
        }
      }
    }
    sources[c] = found;
    return found;
  };
  // The input as pricing sees it: a weight read through a Dequantize of a
  // quantized constant is priced at its stored bytes (graph_cost.h).
  auto input_of = [&](Id c) {
    cost::NodeInput in{&g.TypeOf(c), !g.ClassNodesWithOp(c, shape_op).empty(),
                       !g.ClassNodesWithOp(c, const_op).empty()};
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
  for (size_t i = 0; i < order.size(); ++i) {
    const TensorType& t = g.TypeOf(order[i]);
    for (NodeIdx n : g.ClassNodes(order[i])) {
      if (!g.IsLive(n)) continue;
      ins.clear();
      for (Id ch : g.Node(n).children) {
        ins.push_back(input_of(g.Find(ch)));
      }
      cost::NodeCost c = cost::NodeCostOf(model, g.NodeOp(n).str(), {t}, ins);
      nodes[i].push_back(NodeInfo{n, c.cost, c.computable});
      if (!c.computable) uncomputable.emplace(n, std::move(c));
    }
  }
  // Computable classes by propagation from the leaves (a worklist, so a deep
  // chain costs linear time, not one sweep per level).
  std::vector<bool> computable(order.size(), false);
  {
    struct Pending {
      uint32_t cls;
      uint32_t missing;  // child occurrences not yet computable
    };
    std::vector<Pending> pending;
    std::vector<std::vector<uint32_t>> users(order.size());  // child class -> pending nodes
    std::vector<uint32_t> ready;
    for (size_t i = 0; i < order.size(); ++i) {
      for (const NodeInfo& ni : nodes[i]) {
        if (!ni.ok) continue;
        const uint32_t k = static_cast<uint32_t>(pending.size());
        absl::Span<const Id> children = g.Node(ni.n).children;
        pending.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(children.size())});
        for (Id ch : children) users[index.at(g.Find(ch))].push_back(k);
        if (children.empty() && !computable[i]) {
          computable[i] = true;
          ready.push_back(static_cast<uint32_t>(i));
        }
      }
    }
    while (!ready.empty()) {
      const uint32_t c = ready.back();
      ready.pop_back();
      for (uint32_t k : users[c]) {
        Pending& pn = pending[k];
        if (--pn.missing == 0 && !computable[pn.cls]) {
          computable[pn.cls] = true;
          ready.push_back(pn.cls);
        }
      }
    }
  }
  for (Id r : roots) {
    size_t ri = index.at(g.Find(r));
    if (computable[ri]) continue;
    // Find an op that blocks it: walk uncomputable classes from the root.
    std::vector<size_t> todo{ri};
    std::vector<bool> seen(order.size(), false);
    seen[ri] = true;
    while (!todo.empty()) {
      size_t i = todo.back();
      todo.pop_back();
      for (const NodeInfo& ni : nodes[i]) {
        if (!ni.ok) {
          std::string origin = describe ? describe(ni.n) : "";
          return absl::InvalidArgumentError(absl::StrFormat(
              "output class %d (%s) cannot be computed: op '%s' (class %d, %s%s%s) %s", order[ri],
              g.TypeOf(order[ri]).ToString(), g.NodeOp(ni.n).str(), order[i],
              g.TypeOf(order[i]).ToString(), origin.empty() ? "" : ", ", origin,
              cost::NoHtpImplementationText(uncomputable.at(ni.n))));
        }
        for (Id ch : g.Node(ni.n).children) {
          size_t ci = index.at(g.Find(ch));
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
  for (size_t i = 0; i < order.size(); ++i) {
    if (!computable[i]) continue;
    for (const NodeInfo& ni : nodes[i]) {
      if (!ni.ok) continue;
      kids.clear();
      bool all = true;
      for (Id ch : g.Node(ni.n).children) {
        size_t ci = index.at(g.Find(ch));
        all &= computable[ci];
        kids.push_back(static_cast<ClassId>(ci));
      }
      if (!all) continue;
      b.AddNode(static_cast<ClassId>(i), std::string(g.NodeOp(ni.n).str()), ni.cost, kids,
                absl::StrCat(ni.n));
    }
  }
  for (Id r : roots) b.AddRoot(index.at(g.Find(r)));
  absl::StatusOr<ExtractionProblem> p = std::move(b).Build();
  if (!p.ok()) return p.status();
  out.problem = *std::move(p);
  out.node_of.resize(out.problem.num_nodes());
  for (ENodeId n = 0; n < out.problem.num_nodes(); ++n) {
    out.node_of[n] = static_cast<NodeIdx>(std::stoul(out.problem.node_name(n)));
  }
  out.class_of = std::move(order);
  return out;
}

}  // namespace egret::extract
