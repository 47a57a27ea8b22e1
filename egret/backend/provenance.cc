#include "egret/backend/provenance.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace egret {
namespace {

// Bounds the work per lowered node on pathological derivation chains.
constexpr size_t kMaxTraced = 1 << 14;

template <typename T>
void SortUnique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Follows derivations back from e-nodes to sources.
class Tracer {
 public:
  Tracer(const EGraph& g, absl::Span<const ProvenanceSource> sources) : g_(g) {
    NodeIdx end = 0;
    for (const ProvenanceSource& s : sources) {
      if (s.enode != LowerTrace::kNoENode) end = std::max(end, s.enode + 1);
    }
    source_of_.assign(end, kNoSource);
    for (uint32_t s = 0; s < sources.size(); ++s) {
      const NodeIdx e = sources[s].enode;
      if (e != LowerTrace::kNoENode && source_of_[e] == kNoSource) source_of_[e] = s;
    }
  }

  // Appends the sources and the rules reached from `root`.
  void Trace(NodeIdx root, std::vector<uint32_t>* srcs, std::vector<std::string_view>* rules) {
    seen_.clear();
    stack_.assign(1, root);
    seen_.insert(root);
    while (!stack_.empty() && seen_.size() < kMaxTraced) {
      const NodeIdx n = stack_.back();
      stack_.pop_back();
      if (n < source_of_.size() && source_of_[n] != kNoSource) {
        srcs->push_back(source_of_[n]);
        continue;
      }
      std::optional<Derivation> d = g_.NodeDerivation(n);
      if (!d) continue;
      rules->push_back(d->rule);
      for (NodeIdx m : d->matched) {
        if (seen_.insert(m).second) stack_.push_back(m);
      }
    }
  }

 private:
  static constexpr uint32_t kNoSource = ~uint32_t{0};
  const EGraph& g_;
  // By e-node (below the largest source's): the first source it lowers, or
  // kNoSource. An array, not a hash map: one lookup per traced e-node, and a
  // map's probes missed the cache at every size past 100k nodes (perf, 300k
  // transformer: the probe was half of Trace's samples).
  std::vector<uint32_t> source_of_;
  absl::flat_hash_set<NodeIdx> seen_;
  std::vector<NodeIdx> stack_;
};

// The provenance made of sources `srcs` and rules `rules`.
Provenance Combine(absl::Span<const ProvenanceSource> sources, std::vector<uint32_t> srcs,
                   const std::vector<std::string_view>& rules) {
  SortUnique(srcs);
  Provenance p;
  for (std::string_view r : rules) p.rules.emplace_back(r);
  for (uint32_t s : srcs) {
    const ProvenanceSource& src = sources[s];
    if (src.computing) {
      p.from.insert(p.from.end(), src.provenance.from.begin(), src.provenance.from.end());
    }
    p.rules.insert(p.rules.end(), src.provenance.rules.begin(), src.provenance.rules.end());
  }
  SortUnique(p.from);
  SortUnique(p.rules);
  return p;
}

}  // namespace

std::vector<ProvenanceSource> ProvenanceSources(const Graph& graph, absl::Span<const Id> classes,
                                                absl::Span<const NodeIdx> enodes) {
  std::vector<ProvenanceSource> sources(graph.num_nodes());
  for (NodeId id = 0; id < graph.num_nodes(); ++id) {
    const Node& n = graph.node(id);
    ProvenanceSource& s = sources[id];
    s.cls = id < classes.size() ? classes[id] : kNoId;
    s.enode = id < enodes.size() ? enodes[id] : LowerTrace::kNoENode;
    s.computing = n.op != kInputOp && n.op != kConstOp && n.op != kShapeOp;
    if (!n.provenance.empty()) {
      s.provenance = n.provenance;
    } else if (!n.name.empty()) {
      s.provenance.from.push_back(n.name);
    }
    for (const ValueRef& in : n.inputs) {
      if (in.node < sources.size()) sources[in.node].consumers.push_back(id);
    }
  }
  for (ProvenanceSource& s : sources) SortUnique(s.consumers);
  return sources;
}

Provenance DerivationProvenance(const EGraph& g, absl::Span<const ProvenanceSource> sources,
                                NodeIdx enode) {
  Tracer tracer(g, sources);
  std::vector<uint32_t> srcs;
  std::vector<std::string_view> rules;
  tracer.Trace(enode, &srcs, &rules);
  return Combine(sources, std::move(srcs), rules);
}

void AttachProvenance(const EGraph& g, absl::Span<const ProvenanceSource> sources,
                      const LowerTrace& trace, Graph* lowered) {
  const size_t num_out = lowered->num_nodes();
  std::vector<std::vector<uint32_t>> srcs(num_out);
  std::vector<std::vector<std::string_view>> rules(num_out);
  std::vector<bool> placed(sources.size(), false);
  // 1. Derivation.
  Tracer tracer(g, sources);
  for (NodeId id = 0; id < num_out && id < trace.enode.size(); ++id) {
    if (trace.enode[id] == LowerTrace::kNoENode) continue;
    tracer.Trace(trace.enode[id], &srcs[id], &rules[id]);
    for (uint32_t s : srcs[id]) placed[s] = true;
  }
  // 2. Identity.
  constexpr NodeId kNowhere = ~NodeId{0};
  std::vector<NodeId> home(sources.size(), kNowhere);
  for (uint32_t s = 0; s < sources.size(); ++s) {
    if (sources[s].cls == kNoId) continue;
    const NodeId at = trace.NodeOfClass(g.Find(sources[s].cls));
    if (at == kNoNode || at >= num_out) continue;
    home[s] = at;
    srcs[at].push_back(s);
    placed[s] = true;
    // The rules that proved the source's value equal to the chosen node's.
    const NodeIdx e = at < trace.enode.size() ? trace.enode[at] : LowerTrace::kNoENode;
    if (e != LowerTrace::kNoENode) {
      for (std::string_view r : g.derivations().MergeRules(sources[s].cls, g.NodeAddedClass(e))) {
        rules[at].push_back(r);
      }
    }
  }
  // 3. Absorption: to the homes of the nearest placed-by-identity consumers.
  std::vector<uint32_t> frontier;
  absl::flat_hash_set<uint32_t> seen;
  for (uint32_t s = 0; s < sources.size(); ++s) {
    if (placed[s] || !sources[s].computing) continue;
    seen.clear();
    frontier.assign(sources[s].consumers.begin(), sources[s].consumers.end());
    while (!frontier.empty() && seen.size() < kMaxTraced) {
      const uint32_t t = frontier.back();
      frontier.pop_back();
      if (!seen.insert(t).second) continue;
      if (home[t] != kNowhere) {
        srcs[home[t]].push_back(s);
        continue;
      }
      frontier.insert(frontier.end(), sources[t].consumers.begin(), sources[t].consumers.end());
    }
  }
  for (NodeId id = 0; id < num_out; ++id) {
    Node& n = lowered->mutable_node(id);
    if (n.op == kInputOp) continue;
    n.provenance = Combine(sources, std::move(srcs[id]), rules[id]);
  }
}

std::string DescribeProvenance(const Provenance& p) {
  constexpr size_t kMaxShown = 3;
  auto list = [](const std::vector<std::string>& items) {
    std::vector<std::string> quoted;
    for (size_t i = 0; i < items.size() && i < kMaxShown; ++i) {
      quoted.push_back(absl::StrCat("'", items[i], "'"));
    }
    if (items.size() > kMaxShown) quoted.push_back(absl::StrCat("+", items.size() - kMaxShown));
    return absl::StrJoin(quoted, ", ");
  };
  std::string out;
  if (!p.from.empty()) {
    absl::StrAppend(&out, "from input node", p.from.size() == 1 ? " " : "s ", list(p.from));
  }
  if (!p.rules.empty()) {
    absl::StrAppend(&out, out.empty() ? "" : " ", "by rule", p.rules.size() == 1 ? " " : "s ",
                    list(p.rules));
  }
  return out;
}

}  // namespace egret
