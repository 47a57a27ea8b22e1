// Rule scheduling for the runner. The BackoffScheduler (egg's idea) bans a
// rule whose matches in one iteration exceed its match limit, for a number of
// iterations; each ban doubles both the rule's match limit and its next ban
// length. Rules with Rewrite::backoff == false are never banned. Unlike egg,
// a rule searched semi-naively (Rewrite::incremental with lookahead 0, whose
// searches find each match once) still applies the matches of the search
// that went over its limit; other rules apply none of them (runner.cc).
#ifndef EGRET_EGRAPH_SCHEDULER_H_
#define EGRET_EGRAPH_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace egret {

enum class SchedulerKind { kSimple, kBackoff };

struct BackoffOptions {
  size_t match_limit = 1000;  // initial per-iteration match limit
  size_t ban_length = 5;      // initial ban length in iterations
  // Scale-aware limit: on an e-graph of C classes when the scheduler is made
  // (a phase's start), the initial limit is max(match_limit, C /
  // classes_per_match); 0 keeps match_limit. A rule that matches a few times
  // per block of a large network (a fusion, commutativity) is not exploding;
  // with the fixed limit of 1000 it was banned and its matches discarded
  // log2(matches / 1000) times, each ban an iteration that searched again
  // (a 1M-node transformer ran into the iteration limit this way, its
  // fusions not all applied). Below 16 x 1000 classes nothing changes.
  size_t classes_per_match = 16;
  // A rule searched semi-naively (incremental, lookahead 0) finds each match
  // once. Over its limit, by default it applies nothing and is banned, as in
  // egg, and finds those matches again later; with this set it applies what
  // it found and is then banned. Fewer iterations on a workload that
  // saturates anyway (comm+assoc N = 11: 23 -> 17, bench/egraph_bench), but
  // the explosive algebra rules then grow the e-graph at full speed, which is
  // what backoff is for: under the shared node limit the optimizer's later
  // fusion phases were starved (Swin-T, latency model: eqsat-dag / greedy
  // 0.9983 without it, 1.4154 with it), so the optimizer leaves it off.
  bool apply_found_when_banned = false;
};

class BackoffScheduler {
 public:
  // `can_ban[i]` tells whether rule i may be banned; `classes` is the
  // e-graph's class count (BackoffOptions::classes_per_match).
  BackoffScheduler(SchedulerKind kind, BackoffOptions options, std::vector<bool> can_ban,
                   size_t classes = 0);

  // Whether rule i is banned in `iteration`.
  bool IsBanned(size_t rule, size_t iteration) const {
    return rules_[rule].banned_until > iteration;
  }
  // Most matches rule i may have in one iteration (SIZE_MAX = unlimited).
  size_t MatchLimit(size_t rule) const;
  // Bans rule i from `iteration` + 1 on (call when it exceeded MatchLimit).
  void Ban(size_t rule, size_t iteration);
  // True when some rule is banned after `iteration`.
  bool AnyBanned(size_t iteration) const;
  // Lifts every ban (egg fast-forwards this way when nothing else changes);
  // limits stay doubled.
  void LiftBans();
  size_t times_banned(size_t rule) const { return rules_[rule].times_banned; }

 private:
  struct RuleState {
    bool can_ban = true;
    uint32_t times_banned = 0;
    size_t banned_until = 0;
  };
  SchedulerKind kind_;
  BackoffOptions options_;
  std::vector<RuleState> rules_;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_SCHEDULER_H_
