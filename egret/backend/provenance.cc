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
  Tracer(const EGraph& g, const ProvenanceSources& sources) : g_(g) {
    NodeIdx end = 0;
    for (uint32_t s = 0; s < sources.size(); ++s) {
      if (sources.enode(s) != LowerTrace::kNoENode) end = std::max(end, sources.enode(s) + 1);
    }
    source_of_.assign(end, kNoSource);
    for (uint32_t s = 0; s < sources.size(); ++s) {
      const NodeIdx e = sources.enode(s);
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
Provenance Combine(const ProvenanceSources& sources, std::vector<uint32_t> srcs,
                   const std::vector<std::string_view>& rules) {
  SortUnique(srcs);
  std::vector<std::string> from, all_rules(rules.begin(), rules.end());
  for (uint32_t s : srcs) {
    if (sources.computing(s)) sources.AppendFrom(s, &from);
    sources.AppendRules(s, &all_rules);
  }
  SortUnique(from);
  SortUnique(all_rules);
  return Provenance(std::move(from), std::move(all_rules));
}

}  // namespace

ProvenanceSources::ProvenanceSources(const Graph& graph, absl::Span<const Id> classes,
                                     absl::Span<const NodeIdx> enodes) {
  const NodeId n = graph.num_nodes();
  entries_.resize(static_cast<size_t>(n) + 1);
  // One pass over the nodes for what each source is and for counting its
  // readers (a million-node graph's nodes are hundreds of megabytes: every
  // pass over them comes from memory), then the readers in place: each
  // node's readers in id order, so ascending; a reader of two of its
  // outputs is kept once.
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = graph.node(id);
    for (const ValueRef& in : node.inputs) {
      if (in.node < n) ++entries_[in.node + 1].consumers_begin;
    }
    Entry& e = entries_[id];
    e.cls = id < classes.size() ? classes[id] : kNoId;
    e.enode = id < enodes.size() ? enodes[id] : LowerTrace::kNoENode;
    e.computing = node.op != kInputOp && node.op != kConstOp && node.op != kShapeOp;
    e.from_begin = static_cast<uint32_t>(string_end_.size());
    if (!node.provenance.empty()) {
      for (const std::string& f : node.provenance.from()) AddString(f);
      e.rules_begin = static_cast<uint32_t>(string_end_.size());
      for (const std::string& r : node.provenance.rules()) AddString(r);
    } else {
      if (!node.name.empty()) AddString(node.name);
      e.rules_begin = static_cast<uint32_t>(string_end_.size());
    }
  }
  for (NodeId id = 0; id < n; ++id)
    entries_[id + 1].consumers_begin += entries_[id].consumers_begin;
  consumers_.resize(entries_[n].consumers_begin);
  std::vector<uint32_t> fill(n);
  for (NodeId id = 0; id < n; ++id) fill[id] = entries_[id].consumers_begin;
  for (NodeId id = 0; id < n; ++id) {
    for (const ValueRef& in : graph.node(id).inputs) {
      if (in.node >= n) continue;
      uint32_t& at = fill[in.node];
      if (at == entries_[in.node].consumers_begin || consumers_[at - 1] != id)
        consumers_[at++] = id;
    }
  }
  // Close the gaps the repeats left.
  uint32_t out = 0;
  for (NodeId id = 0; id < n; ++id) {
    const uint32_t begin = entries_[id].consumers_begin;
    entries_[id].consumers_begin = out;
    for (uint32_t k = begin; k < fill[id]; ++k) consumers_[out++] = consumers_[k];
  }
  entries_[n].consumers_begin = out;
  consumers_.resize(out);
  consumers_.shrink_to_fit();

  entries_[n].from_begin = static_cast<uint32_t>(string_end_.size());
}

void ProvenanceSources::AddString(std::string_view text) {
  text_.append(text);
  string_end_.push_back(text_.size());
}

void ProvenanceSources::AppendStrings(uint32_t begin, uint32_t end,
                                      std::vector<std::string>* out) const {
  for (uint32_t k = begin; k < end; ++k) out->emplace_back(String(k));
}

void ProvenanceSources::AppendFrom(uint32_t s, std::vector<std::string>* out) const {
  AppendStrings(entries_[s].from_begin, entries_[s].rules_begin, out);
}

void ProvenanceSources::AppendRules(uint32_t s, std::vector<std::string>* out) const {
  AppendStrings(entries_[s].rules_begin, entries_[s + 1].from_begin, out);
}

Provenance DerivationProvenance(const EGraph& g, const ProvenanceSources& sources, NodeIdx enode) {
  Tracer tracer(g, sources);
  std::vector<uint32_t> srcs;
  std::vector<std::string_view> rules;
  tracer.Trace(enode, &srcs, &rules);
  return Combine(sources, std::move(srcs), rules);
}

void AttachProvenance(const EGraph& g, const ProvenanceSources& sources, const LowerTrace& trace,
                      Graph* lowered) {
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
    if (sources.cls(s) == kNoId) continue;
    const NodeId at = trace.NodeOfClass(g.Find(sources.cls(s)));
    if (at == kNoNode || at >= num_out) continue;
    home[s] = at;
    srcs[at].push_back(s);
    placed[s] = true;
    // The rules that proved the source's value equal to the chosen node's.
    const NodeIdx e = at < trace.enode.size() ? trace.enode[at] : LowerTrace::kNoENode;
    if (e != LowerTrace::kNoENode) {
      for (std::string_view r : g.derivations().MergeRules(sources.cls(s), g.NodeAddedClass(e))) {
        rules[at].push_back(r);
      }
    }
  }
  // 3. Absorption: to the homes of the nearest placed-by-identity consumers.
  std::vector<uint32_t> frontier;
  absl::flat_hash_set<uint32_t> seen;
  for (uint32_t s = 0; s < sources.size(); ++s) {
    if (placed[s] || !sources.computing(s)) continue;
    seen.clear();
    const absl::Span<const uint32_t> readers = sources.consumers(s);
    frontier.assign(readers.begin(), readers.end());
    while (!frontier.empty() && seen.size() < kMaxTraced) {
      const uint32_t t = frontier.back();
      frontier.pop_back();
      if (!seen.insert(t).second) continue;
      if (home[t] != kNowhere) {
        srcs[home[t]].push_back(s);
        continue;
      }
      const absl::Span<const uint32_t> next = sources.consumers(t);
      frontier.insert(frontier.end(), next.begin(), next.end());
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
  if (!p.from().empty()) {
    absl::StrAppend(&out, "from input node", p.from().size() == 1 ? " " : "s ", list(p.from()));
  }
  if (!p.rules().empty()) {
    absl::StrAppend(&out, out.empty() ? "" : " ", "by rule", p.rules().size() == 1 ? " " : "s ",
                    list(p.rules()));
  }
  return out;
}

}  // namespace egret
