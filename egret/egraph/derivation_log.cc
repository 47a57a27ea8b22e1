#include "egret/egraph/derivation_log.h"

#include <algorithm>

namespace egret {

uint32_t DerivationLog::InternRule(std::string_view rule) {
  if (last_rule_id_ < rules_.size() && rules_[last_rule_id_] == rule) return last_rule_id_;
  auto [it, inserted] =
      rule_ids_.try_emplace(std::string(rule), static_cast<uint32_t>(rules_.size()));
  if (inserted) rules_.emplace_back(rule);
  last_rule_id_ = it->second;
  return it->second;
}

void DerivationLog::OnNodeStored() {
  if (!enabled_) return;
  if (!open_) {
    origin_.push_back(0);
    return;
  }
  if (!materialized_) {
    records_.push_back(Record{InternRule(open_rule_), static_cast<uint32_t>(matched_.size()),
                              static_cast<uint32_t>(open_matched_.size())});
    matched_.insert(matched_.end(), open_matched_.begin(), open_matched_.end());
    materialized_ = true;
  }
  origin_.push_back(static_cast<uint32_t>(records_.size()));
}

std::optional<Derivation> DerivationLog::Of(NodeIdx n) const {
  if (n >= origin_.size() || origin_[n] == 0) return std::nullopt;
  const Record& r = records_[origin_[n] - 1];
  return Derivation{rules_[r.rule], absl::Span<const NodeIdx>(matched_.data() + r.begin, r.count)};
}

void DerivationLog::AddHalfEdge(Id from, Id to, uint32_t rule) {
  if (from >= first_edge_.size()) first_edge_.resize(from + 1, kNone);
  edges_.push_back(Edge{to, rule, first_edge_[from]});
  first_edge_[from] = static_cast<uint32_t>(edges_.size() - 1);
}

void DerivationLog::OnUnion(Id a, Id b, std::string_view rule) {
  if (!enabled_) return;
  const uint32_t r = rule.empty() ? kCongruence : InternRule(rule);
  AddHalfEdge(a, b, r);
  AddHalfEdge(b, a, r);
}

std::vector<std::string_view> DerivationLog::MergeRules(Id a, Id b, size_t max_steps) const {
  std::vector<std::string_view> rules;
  if (a == b) return rules;
  // Breadth-first from a; `via` remembers how each id was reached.
  struct Step {
    Id prev;
    uint32_t rule;
  };
  absl::flat_hash_map<Id, Step> via;
  std::vector<Id> queue{a};
  via.emplace(a, Step{a, kCongruence});
  bool found = false;
  for (size_t head = 0; head < queue.size() && !found && via.size() <= max_steps; ++head) {
    const Id at = queue[head];
    if (at >= first_edge_.size()) continue;
    for (uint32_t k = first_edge_[at]; k != kNone; k = edges_[k].next) {
      const Edge& e = edges_[k];
      if (!via.emplace(e.to, Step{at, e.rule}).second) continue;
      if (e.to == b) {
        found = true;
        break;
      }
      queue.push_back(e.to);
    }
  }
  if (!found) return rules;
  for (Id x = b; x != a;) {
    const Step& s = via.at(x);
    if (s.rule != kCongruence) rules.push_back(rules_[s.rule]);
    x = s.prev;
  }
  std::reverse(rules.begin(), rules.end());
  return rules;
}

size_t DerivationLog::ApproxBytes() const {
  size_t bytes = origin_.capacity() * sizeof(uint32_t) + records_.capacity() * sizeof(Record) +
                 matched_.capacity() * sizeof(NodeIdx) + rule_ids_.capacity() * 40 +
                 first_edge_.capacity() * sizeof(uint32_t) + edges_.capacity() * sizeof(Edge);
  for (const std::string& r : rules_) bytes += sizeof(std::string) + r.capacity();
  return bytes;
}

}  // namespace egret
