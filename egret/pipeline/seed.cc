#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/backend/lower.h"
#include "egret/cost/graph_cost.h"
#include "egret/egraph/graph_import.h"
#include "egret/graph/canonical_params.h"
#include "egret/pipeline/seed_internal.h"

namespace egret {

void CpuLaps::Lap(std::string_view key) {
  if (out_ == nullptr) return;
  const double now = ProcessCpuMs();
  auto it = std::find_if(out_->begin(), out_->end(), [&](const auto& e) { return e.first == key; });
  if (it == out_->end()) it = out_->insert(out_->end(), {std::string(key), 0.0});
  it->second += now - last_;
  last_ = now;
}

std::vector<Id> Seeded::Roots() const {
  std::vector<Id> r;
  for (const auto& [c, name] : outputs) r.push_back(eg.Find(c));
  return r;
}

namespace {

// The e-node of graph node `id` (imported with `classes`): in its class (for
// a node of several outputs, the class its "$Out" nodes read), of its op and
// with its operands' classes; kNoNodeIdx when there is none.
NodeIdx FindImported(const EGraph& eg, const Graph& g, const GraphClasses& classes, NodeId id) {
  const Node& n = g.node(id);
  Id c = eg.Find(classes[id][0]);
  if (n.outputs.size() > 1) {  // the multi-output class that "$Out" reads
    auto outs = eg.ClassNodesWithOp(c, Symbol::Intern(kOutOp));
    if (outs.empty()) return kNoNodeIdx;
    c = eg.Find(eg.Node(outs.front()).children[0]);
  }
  for (NodeIdx e : eg.ClassNodesWithOp(c, Symbol::Intern(n.op))) {
    ENodeView v = eg.Node(e);
    if (v.children.size() != n.inputs.size()) continue;
    bool same = true;
    for (size_t k = 0; k < n.inputs.size() && same; ++k) {
      same = eg.Find(v.children[k]) == eg.Find(classes[n.inputs[k].node][n.inputs[k].output]);
    }
    if (same) return e;
  }
  return kNoNodeIdx;
}

}  // namespace

absl::StatusOr<Seeded> Seed(const Graph& input, CpuLaps* laps) {
  CpuLaps none(nullptr);
  if (laps == nullptr) laps = &none;
  // Integer-list parameters as the rules bind them (graph/canonical_params.h),
  // in a copy only when one is to change (the copy of a million-node graph
  // was 40 % of the seed's time). The copy shares the constants' data;
  // appended nodes keep every input node's id, so provenance still names the
  // input's nodes.
  const std::vector<ParamRewrite> params = PlanCanonicalParams(input);
  std::optional<Graph> canonical;
  if (!params.empty()) {
    canonical.emplace(input);
    ApplyCanonicalParams(params, &*canonical);
  }
  const Graph& g = canonical ? *canonical : input;
  laps->Lap("seed_params");
  Seeded s;
  std::vector<NodeIdx> added;
  std::vector<NodeId> order;
  absl::StatusOr<GraphClasses> classes = AddGraph(s.eg, g, &added, &order);
  if (!classes.ok()) return classes.status();
  laps->Lap("seed_import");
  s.eg.Rebuild();
  laps->Lap("seed_rebuild");
  for (NodeId id : g.inputs()) s.inputs.emplace_back((*classes)[id][0], g.node(id).name);
  for (const GraphOutput& o : g.outputs()) {
    s.outputs.emplace_back((*classes)[o.value.node][o.value.output], o.name);
  }
  s.topo_classes.reserve(order.size());
  for (NodeId id : order) {
    s.topo_classes.push_back((*classes)[id].empty() ? kNoId : (*classes)[id][0]);
  }
  // Name each imported e-node after its graph node: the e-node the import
  // stored for it (live: nothing was merged since), else the equal one it
  // found there.
  std::vector<Id> first_class(g.num_nodes(), kNoId);
  std::vector<NodeIdx> enodes(g.num_nodes(), LowerTrace::kNoENode);
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (!(*classes)[id].empty()) first_class[id] = (*classes)[id][0];
  }
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    const Node& n = g.node(id);
    if (n.op == kInputOp || (*classes)[id].empty()) continue;
    NodeIdx e = added[id];
    if (e == kNoNodeIdx || !s.eg.IsLive(e)) e = FindImported(s.eg, g, *classes, id);
    if (e == kNoNodeIdx) continue;
    if (!n.name.empty()) s.names.Add(e, n.name);
    enodes[id] = e;
  }
  laps->Lap("seed_names");
  s.sources = ProvenanceSources(g, first_class, enodes);
  laps->Lap("seed_sources");
  s.graph_name = g.name();
  s.options = g.options();
  return s;
}

std::string DescribeENode(const Seeded& s, NodeIdx n) {
  return DescribeProvenance(DerivationProvenance(s.eg, s.sources, n));
}

absl::StatusOr<Graph> LowerSeeded(const Seeded& s, absl::flat_hash_map<Id, NodeIdx> choice,
                                  const cost::HvxCostModel* model, CpuLaps* laps) {
  CpuLaps none(nullptr);
  if (laps == nullptr) laps = &none;
  LowerRequest req;
  req.choice = std::move(choice);
  req.inputs = s.inputs;
  req.outputs = s.outputs;
  for (auto& [c, name] : req.outputs) c = s.eg.Find(c);
  req.names = &s.names;
  req.graph_name = s.graph_name;
  req.options = s.options;
  LowerTrace trace;
  absl::StatusOr<Graph> g = LowerChoice(s.eg, req, &trace);
  if (!g.ok()) return g.status();
  laps->Lap("lower");
  if (model != nullptr) {
    cost::NodeCost blocked;
    if (NodeId bad = cost::AnnotateImplementations(*model, &*g, &blocked); bad != kNoNode) {
      const NodeIdx n = trace.enode[bad];
      const Id c = s.eg.NodeClass(n);
      const std::string origin = DescribeENode(s, n);
      return absl::InvalidArgumentError(absl::StrFormat(
          "class %d (%s)%s%s: op '%s' %s", c, s.eg.TypeOf(c).ToString(), origin.empty() ? "" : " ",
          origin, g->node(bad).op, cost::NoHtpImplementationText(blocked)));
    }
  }
  laps->Lap("annotate");
  AttachProvenance(s.eg, s.sources, trace, &*g);
  laps->Lap("provenance");
  if (absl::Status v = g->Validate(); !v.ok()) {
    return absl::InternalError(absl::StrCat("lowered graph is invalid: ", v.message()));
  }
  laps->Lap("validate");
  return g;
}

}  // namespace egret
