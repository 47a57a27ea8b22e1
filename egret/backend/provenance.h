// Provenance of a lowered graph: for each node, the input-graph nodes it came
// from and the rules that built it (Node::provenance), as MLIR's fused
// locations record for a rewritten op.
//
// A lowered node computes one e-class through one chosen e-node. Its
// provenance is the union of:
//   1. derivation: following the chosen e-node's derivation (the rule and the
//      matched e-nodes, egraph/derivation_log.h) back, transitively, to
//      imported e-nodes ("sources"): their provenance, plus every rule met on
//      the way;
//   2. identity: every source whose class the node computes (a rewrite that
//      only merged two classes, as x+0 -> x, stores no node, so leaves no
//      derivation; the source's value is still computed here), with the rules
//      on the union path between the source's class id and the chosen node's
//      (DerivationLog::MergeRules);
//   3. absorption: a source neither 1 nor 2 places anywhere (its value exists
//      in no lowered node) is attributed to the lowered nodes that 2 places
//      its nearest consumers at, in the source graph.
// Only computing sources count in `from` ("*Input", "$Const" and "$Shape" do
// not); a source's provenance is its node's name, or the provenance an
// earlier lowering recorded on it (so provenance composes across re-seeding).
// Congruence (a merge a rebuild found) is not expanded into the merges of the
// operands that caused it.
#ifndef EGRET_BACKEND_PROVENANCE_H_
#define EGRET_BACKEND_PROVENANCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "egret/backend/lower.h"
#include "egret/egraph/egraph.h"
#include "egret/graph/graph.h"

namespace egret {

// The nodes of the source (input) graph as imported into the e-graph
// ("sources"), by NodeId, in flat arrays: a million-node graph made two
// million small vectors and as many strings when each source owned its own.
class ProvenanceSources {
 public:
  ProvenanceSources() = default;
  // The sources of `graph`: `classes` gives the class of each node's output 0
  // (kNoId for none), `enodes` its imported e-node (kNoENode when not known).
  ProvenanceSources(const Graph& graph, absl::Span<const Id> classes,
                    absl::Span<const NodeIdx> enodes);

  uint32_t size() const {
    return entries_.empty() ? 0 : static_cast<uint32_t>(entries_.size() - 1);
  }
  Id cls(uint32_t s) const { return entries_[s].cls; }           // its output 0's class
  NodeIdx enode(uint32_t s) const { return entries_[s].enode; }  // kNoENode if not known
  // Not "*Input", "$Const" or "$Shape".
  bool computing(uint32_t s) const { return entries_[s].computing; }
  // The sources that read it, ascending, each once.
  absl::Span<const uint32_t> consumers(uint32_t s) const {
    return absl::MakeConstSpan(consumers_)
        .subspan(entries_[s].consumers_begin,
                 entries_[s + 1].consumers_begin - entries_[s].consumers_begin);
  }
  // What it stands for: its node's recorded provenance, else its name.
  // Appends the names (`from`) and the rules.
  void AppendFrom(uint32_t s, std::vector<std::string>* out) const;
  void AppendRules(uint32_t s, std::vector<std::string>* out) const;

 private:
  struct Entry {
    Id cls = kNoId;
    NodeIdx enode = LowerTrace::kNoENode;
    uint32_t consumers_begin = 0;  // into consumers_
    uint32_t from_begin = 0;       // string indices: from [from_begin, rules_begin),
    uint32_t rules_begin = 0;      // rules [rules_begin, next entry's from_begin)
    bool computing = false;
  };
  std::string_view String(uint32_t k) const {
    const size_t begin = k == 0 ? 0 : string_end_[k - 1];
    return std::string_view(text_).substr(begin, string_end_[k] - begin);
  }
  void AppendStrings(uint32_t begin, uint32_t end, std::vector<std::string>* out) const;
  void AddString(std::string_view text);

  std::vector<Entry> entries_;  // one per source, then a sentinel
  std::vector<uint32_t> consumers_;
  std::string text_;                // every string, one after another
  std::vector<size_t> string_end_;  // where each string of text_ ends
};

// Sets Node::provenance of every computing node of `lowered` (lowered from
// `g` with `trace`) from `sources`.
void AttachProvenance(const EGraph& g, const ProvenanceSources& sources, const LowerTrace& trace,
                      Graph* lowered);

// Case 1 alone for one e-node: the provenance its derivation reaches.
Provenance DerivationProvenance(const EGraph& g, const ProvenanceSources& sources, NodeIdx enode);

// "from input node(s) 'a', 'b' by rule(s) 'r'" (at most 3 of each), or "" for
// an empty provenance.
std::string DescribeProvenance(const Provenance& p);

}  // namespace egret

#endif  // EGRET_BACKEND_PROVENANCE_H_
