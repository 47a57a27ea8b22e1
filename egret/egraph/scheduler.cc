#include "egret/egraph/scheduler.h"

#include <algorithm>
#include <limits>

namespace egret {

BackoffScheduler::BackoffScheduler(SchedulerKind kind, BackoffOptions options,
                                   std::vector<bool> can_ban, size_t classes)
    : kind_(kind), options_(options), rules_(can_ban.size()) {
  if (options_.classes_per_match != 0) {
    options_.match_limit = std::max(options_.match_limit, classes / options_.classes_per_match);
  }
  for (size_t i = 0; i < can_ban.size(); ++i) rules_[i].can_ban = can_ban[i];
}

size_t BackoffScheduler::MatchLimit(size_t rule) const {
  const RuleState& r = rules_[rule];
  if (kind_ == SchedulerKind::kSimple || !r.can_ban) return std::numeric_limits<size_t>::max();
  if (r.times_banned >= 40) return std::numeric_limits<size_t>::max();
  return options_.match_limit << r.times_banned;
}

void BackoffScheduler::Ban(size_t rule, size_t iteration) {
  RuleState& r = rules_[rule];
  size_t length = r.times_banned >= 40 ? std::numeric_limits<size_t>::max() / 2
                                       : options_.ban_length << r.times_banned;
  r.banned_until = iteration + 1 + length;
  ++r.times_banned;
}

bool BackoffScheduler::AnyBanned(size_t iteration) const {
  for (const RuleState& r : rules_) {
    if (r.banned_until > iteration + 1) return true;
  }
  return false;
}

void BackoffScheduler::LiftBans() {
  for (RuleState& r : rules_) r.banned_until = 0;
}

}  // namespace egret
