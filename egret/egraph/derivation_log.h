// Derivations: which rule built an e-node, from which matched e-nodes, and
// which rule merged two classes.
//
// This is the e-graph's record of provenance, the counterpart of MLIR's fused
// locations:
//  - when a rewrite is applied to a match, every node its applier stores
//    derives from the match's nodes by that rule. Following derivations
//    backwards from a node reaches the imported nodes (which have none) that
//    it was built from, and the rules that built it;
//  - every effective union of two class ids is an edge labelled with the rule
//    (empty for congruence found by a rebuild). The edges form a forest over
//    class ids (each joins two different classes), so two ids of one class are
//    joined by exactly one path: its labels are the rules that proved the two
//    values equal, as in egg's explanations (congruence is not expanded).
// backend/provenance.h reads both.
//
// Cost: 4 bytes per e-node, one record (12 bytes and 4 per matched node) per
// application that stored at least one node, 24 bytes per union and 4 per
// class id.
#ifndef EGRET_EGRAPH_DERIVATION_LOG_H_
#define EGRET_EGRAPH_DERIVATION_LOG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "egret/egraph/id.h"

namespace egret {

struct Derivation {
  std::string_view rule;              // the rule's name
  absl::Span<const NodeIdx> matched;  // the e-nodes of the match (pattern pre-order)
};

class DerivationLog {
 public:
  // Opens a match context: nodes stored until Close() derive from `matched`
  // by `rule`. Both are read (and copied) only when the first such node is
  // stored, so they must stay valid until Close(). Contexts do not nest.
  void Open(std::string_view rule, absl::Span<const NodeIdx> matched) {
    open_ = true;
    materialized_ = false;
    open_rule_ = rule;
    open_matched_ = matched;
  }
  // Off: nothing more is recorded (nodes stored from then on have no
  // derivation, unions no edge). On by default.
  void set_enabled(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  void Close() { open_ = false; }
  bool is_open() const { return open_; }

  // Records the derivation of the next node stored (nodes are numbered 0, 1,
  // ... in the order of these calls): the open context's, if any.
  void OnNodeStored();

  // The derivation of node n, or nullopt when it was stored outside a match
  // context (or n was never recorded).
  std::optional<Derivation> Of(NodeIdx n) const;

  // Records an effective union of class ids a and b (any ids of the two
  // classes) by `rule` ("" for congruence).
  void OnUnion(Id a, Id b, std::string_view rule);

  // The rules on the path joining class ids a and b in the union forest, in
  // path order, congruence edges left out; empty when a == b, when they are
  // not joined, or when the path is longer than `max_steps` edges.
  std::vector<std::string_view> MergeRules(Id a, Id b, size_t max_steps = 1 << 14) const;

  // Number of derivation records (applications that stored a node).
  size_t num_records() const { return records_.size(); }
  size_t ApproxBytes() const;

 private:
  struct Record {
    uint32_t rule;   // index into rules_
    uint32_t begin;  // into matched_
    uint32_t count;
  };
  uint32_t InternRule(std::string_view rule);

  bool enabled_ = true;
  bool open_ = false;
  bool materialized_ = false;  // the open context has a record
  std::string_view open_rule_;
  absl::Span<const NodeIdx> open_matched_;
  std::vector<uint32_t> origin_;  // per node: record index + 1, or 0
  std::vector<Record> records_;
  std::vector<NodeIdx> matched_;
  // The union forest as adjacency lists threaded through one array: edges_
  // holds both directions of each union; first_edge_[id] starts id's list.
  struct Edge {
    Id to;
    uint32_t rule;  // into rules_; kCongruence for a rebuild's merge
    uint32_t next;  // the next edge of the same id, or kNone
  };
  static constexpr uint32_t kCongruence = ~uint32_t{0};
  static constexpr uint32_t kNone = ~uint32_t{0};
  void AddHalfEdge(Id from, Id to, uint32_t rule);
  std::vector<uint32_t> first_edge_;  // by class id
  std::vector<Edge> edges_;
  std::vector<std::string> rules_;
  absl::flat_hash_map<std::string, uint32_t> rule_ids_;
  // The last interned rule, to skip the hash lookup for repeated contexts.
  uint32_t last_rule_id_ = ~uint32_t{0};
};

}  // namespace egret

#endif  // EGRET_EGRAPH_DERIVATION_LOG_H_
