#include "egret/pipeline/costs.h"

#include <limits>
#include <optional>
#include <utility>
#include <variant>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/graph/dtype.h"
#include "egret/support/diagnostic.h"
#include "nlohmann/json.hpp"

namespace egret {

namespace {

using CostKind = rules::CostExpr::Kind;

bool MentionsDisable(const rules::CostExpr& e) {
  if (e.kind == CostKind::kNamed && e.name == "DISABLE") return true;
  for (const rules::CostExpr& a : e.args) {
    if (MentionsDisable(a)) return true;
  }
  return false;
}

}  // namespace

extract::CostTable CostTableFromRegistry(const rules::OpRegistry& registry, DiagnosticList* diags) {
  extract::CostTable table;
  for (const rules::OpImplementation& impl : registry.all()) {
    extract::ImplCost c;
    c.impl = impl.impl;
    c.disabled = MentionsDisable(impl.cost);
    std::string function;
    std::optional<double> v = impl.cost.Estimate(&function);
    if (!v && !c.disabled && diags != nullptr) {
      diags->Warning(impl.loc,
                     absl::StrFormat("cost '%s' of '%s' depends on the cost function '%s', which "
                                     "egret cannot run; counted as GLACIAL",
                                     impl.cost.ToString(), impl.op_name, function));
    }
    c.cost = v.value_or(rules::kCostGlacial);
    c.hvx = (impl.flag_bits & rules::kResourceHvx) != 0;
    c.no_op = (impl.flag_bits & (rules::kNullExec | rules::kInplaceNop)) != 0;
    c.copy = (impl.flag_bits & (rules::kIsCopy | rules::kIsDma)) != 0;
    table.ops[impl.op_name].push_back(std::move(c));
  }
  return table;
}

absl::Status AddCostOverrides(std::string_view json_text, const std::string& file,
                              extract::CostTable* table) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return BadInput(SourceLocation{file, 0, 0}, "malformed JSON cost table");
  if (!j.is_object()) {
    return BadInput(SourceLocation{file, 0, 0}, "the cost table must be a JSON object");
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    auto& per_op = table->overrides[it.key()];
    if (it.value().is_number()) {
      per_op["*"] = it.value().get<double>();
    } else if (it.value().is_object()) {
      for (auto d = it.value().begin(); d != it.value().end(); ++d) {
        if (!d.value().is_number()) {
          return BadInput(
              SourceLocation{file, 0, 0},
              absl::StrFormat("cost of '%s' for dtype '%s' is not a number", it.key(), d.key()));
        }
        if (d.key() != "*" && !ParseDType(d.key())) {
          return BadInput(
              SourceLocation{file, 0, 0},
              absl::StrFormat("unknown dtype '%s' in the cost of '%s'", d.key(), it.key()));
        }
        per_op[d.key()] = d.value().get<double>();
      }
    } else {
      return BadInput(SourceLocation{file, 0, 0},
                      absl::StrFormat("cost of '%s' must be a number or an object", it.key()));
    }
  }
  return absl::OkStatus();
}

int64_t VtcmBytesOf(const Options& options) {
  auto it = options.find(kVtcmBytesOption);
  if (it == options.end()) return extract::kDefaultVtcmBytes;
  int64_t v = 0;
  if (const int64_t* i = std::get_if<int64_t>(&it->second)) v = *i;
  if (const double* d = std::get_if<double>(&it->second)) {
    v = *d >= 9.0e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(*d);
  }
  return v > 0 ? v : extract::kDefaultVtcmBytes;
}

extract::HvxCostModel MakeCostModel(
    const rules::OpRegistry& registry,
    const absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, double>>& overrides,
    const Options& options, DiagnosticList* diags) {
  return extract::HvxCostModel(CostTableWithOverrides(registry, overrides, diags),
                               VtcmBytesOf(options));
}

extract::NodeCost NodeCostOf(const extract::HvxCostModel& model, std::string_view op,
                             absl::Span<const TensorType> outputs,
                             absl::Span<const TensorType> inputs) {
  int64_t out_bytes = 0, in_bytes = 0;
  std::string_view dtype = "UNKNOWN";
  for (const TensorType& t : outputs) out_bytes += t.byte_size();
  for (const TensorType& t : inputs) in_bytes += t.byte_size();
  if (!outputs.empty()) dtype = DTypeName(outputs[0].dtype);
  return model.Cost(op, dtype, out_bytes, in_bytes);
}

extract::NodeCost GraphNodeCost(const extract::HvxCostModel& model, const Graph& g, const Node& n) {
  absl::InlinedVector<TensorType, 8> ins;
  for (const ValueRef& v : n.inputs) {
    if (g.node(v.node).op != kShapeOp) ins.push_back(g.TypeOf(v));
  }
  return NodeCostOf(model, n.op, n.outputs, ins);
}

double GraphCost(const Graph& g, const extract::HvxCostModel& model, std::string* missing_op) {
  double total = 0;
  for (const Node& n : g.nodes()) {
    extract::NodeCost c = GraphNodeCost(model, g, n);
    if (!c.computable) {
      if (missing_op != nullptr) *missing_op = n.op;
      return std::numeric_limits<double>::infinity();
    }
    total += c.cost;
  }
  return total;
}

absl::StatusOr<EGraphProblem> BuildProblem(const EGraph& g, const extract::HvxCostModel& model,
                                           const std::vector<Id>& roots,
                                           const std::function<std::string(NodeIdx)>& describe) {
  // Classes reachable from the roots, through any node.
  absl::flat_hash_map<Id, extract::ClassId> index;
  std::vector<Id> order;
  for (Id r : roots) {
    r = g.Find(r);
    if (index.try_emplace(r, static_cast<extract::ClassId>(order.size())).second) {
      order.push_back(r);
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    for (NodeIdx n : g.ClassNodes(order[i])) {
      if (!g.IsLive(n)) continue;
      for (Id ch : g.Node(n).children) {
        Id c = g.Find(ch);
        if (index.try_emplace(c, static_cast<extract::ClassId>(order.size())).second) {
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
  std::vector<TensorType> ins;
  const Symbol shape_op = Symbol::Intern(kShapeOp);
  for (size_t i = 0; i < order.size(); ++i) {
    const TensorType& t = g.TypeOf(order[i]);
    for (NodeIdx n : g.ClassNodes(order[i])) {
      if (!g.IsLive(n)) continue;
      ins.clear();
      for (Id ch : g.Node(n).children) {
        const Id c = g.Find(ch);
        if (g.ClassNodesWithOp(c, shape_op).empty()) ins.push_back(g.TypeOf(c));
      }
      extract::NodeCost c = NodeCostOf(model, g.NodeOp(n).str(), {t}, ins);
      nodes[i].push_back(NodeInfo{n, c.cost, c.computable});
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
              "output class %d (%s) cannot be computed: op '%s' (class %d, %s%s%s) has no "
              "registered implementation",
              order[ri], g.TypeOf(order[ri]).ToString(), g.NodeOp(ni.n).str(), order[i],
              g.TypeOf(order[i]).ToString(), origin.empty() ? "" : ", ", origin));
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
  extract::ExtractionProblemBuilder b;
  for (size_t i = 0; i < order.size(); ++i) b.AddClass(absl::StrCat(order[i]));
  std::vector<extract::ClassId> kids;
  for (size_t i = 0; i < order.size(); ++i) {
    if (!computable[i]) continue;
    for (const NodeInfo& ni : nodes[i]) {
      if (!ni.ok) continue;
      kids.clear();
      bool all = true;
      for (Id ch : g.Node(ni.n).children) {
        size_t ci = index.at(g.Find(ch));
        all &= computable[ci];
        kids.push_back(static_cast<extract::ClassId>(ci));
      }
      if (!all) continue;
      b.AddNode(static_cast<extract::ClassId>(i), std::string(g.NodeOp(ni.n).str()), ni.cost, kids,
                absl::StrCat(ni.n));
    }
  }
  for (Id r : roots) b.AddRoot(index.at(g.Find(r)));
  absl::StatusOr<extract::ExtractionProblem> p = std::move(b).Build();
  if (!p.ok()) return p.status();
  out.problem = *std::move(p);
  out.node_of.resize(out.problem.num_nodes());
  for (extract::ENodeId n = 0; n < out.problem.num_nodes(); ++n) {
    out.node_of[n] = static_cast<NodeIdx>(std::stoul(out.problem.node_name(n)));
  }
  out.class_of = std::move(order);
  return out;
}

extract::CostTable CostTableWithOverrides(
    const rules::OpRegistry& registry,
    const absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, double>>& overrides,
    DiagnosticList* diags) {
  extract::CostTable table = CostTableFromRegistry(registry, diags);
  for (const auto& [op, per] : overrides) {
    for (const auto& [dt, c] : per) table.overrides[op][dt] = c;
  }
  return table;
}

std::map<std::string, int64_t> ComputingOpCounts(const Graph& g) {
  std::map<std::string, int64_t> ops;
  for (const Node& n : g.nodes()) {
    if (n.op != kInputOp && n.op != kConstOp && n.op != kShapeOp) ++ops[n.op];
  }
  return ops;
}

}  // namespace egret
