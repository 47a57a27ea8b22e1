// Equality saturation: iterations of search + apply + rebuild over rule sets,
// under limits, with a per-iteration report.
//
// An iteration searches every rule that is not banned and applies its matches
// (matches are found on the e-graph of the last rebuild, so the order of rules
// within an iteration does not change what they match), then rebuilds. Rules
// are searched incrementally (see Rewrite::incremental). A phase is an ordered
// rule set saturated in turn: the runner saturates phase 1, then phase 2 on
// the resulting e-graph, and so on. Between phases a hook
// (RunnerOptions::on_phase_end) may change the e-graph, e.g. replace it with a
// fresh one seeded from the best graph extracted so far. A rule in several
// phases goes on from its last complete search in the earlier one, unless the
// hook may have changed the e-graph (RunnerOptions::phase_hook_keeps_egraph).
//
// Limits: iterations (per phase; reaching it ends that phase and the run goes
// on with the next one), e-nodes, e-classes, wall time and memory (for the
// whole run). The node, class, time and memory limits are checked inside the
// search and apply loops (every application, every 256 matches or root
// classes), so the run stops within a few nodes of the node limit and within
// a millisecond or so of the time limit; then the e-graph is rebuilt (so it
// is always left clean) and the run ends with that stop reason. The node
// limit is shared among phases: a phase other than the last may use half of
// the room left under it, so that one whose rules explode (associativity over
// a long chain) leaves room for the phases after it (the fusions that pay);
// reaching that budget ends the phase, the run goes on with the next one, and
// its stop reason is NodeLimit.
#ifndef EGRET_EGRAPH_RUNNER_H_
#define EGRET_EGRAPH_RUNNER_H_

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "egret/egraph/egraph.h"
#include "egret/egraph/rewrite.h"
#include "egret/egraph/scheduler.h"

namespace egret {

enum class StopReason {
  kSaturated,
  kIterationLimit,
  kNodeLimit,
  kClassLimit,
  kTimeLimit,
  kMemoryLimit,
  kCancelled,  // RunnerLimits::should_stop said so
};
// "Saturated", "IterationLimit", "NodeLimit", "ClassLimit", "TimeLimit",
// "MemoryLimit", "Cancelled".
std::string_view StopReasonName(StopReason r);

struct RunnerLimits {
  size_t iterations = 30;  // per phase
  size_t nodes = 10'000;
  size_t classes = std::numeric_limits<size_t>::max();
  double seconds = 5.0;
  // 0 = no memory limit. Measured as the e-graph's own accounting
  // (EGraph::ApproxMemoryBytes plus the runner's buffers), or as the process's
  // resident set size when memory_from_rss is set.
  size_t memory_bytes = 0;
  bool memory_from_rss = false;
  // When set, polled as often as the time limit (a few times per millisecond
  // of matching, and between iterations and phases), from the thread running
  // the e-graph; true stops the run with StopReason::kCancelled (a caller's
  // Ctrl-C). It must be cheap and must not touch the e-graph.
  std::function<bool()> should_stop;
};

struct IterationReport;
struct PhaseReport;

struct RunnerOptions {
  RunnerLimits limits;
  SchedulerKind scheduler = SchedulerKind::kBackoff;
  BackoffOptions backoff;
  // Run CheckInvariants after every rebuild; a violation stops the run with
  // RunReport::invariant_error set (for tests; linear cost per iteration).
  bool check_invariants = false;
  // Called after every iteration (its rebuild done), e.g. for a progress line.
  std::function<void(const IterationReport&)> on_iteration;
  // The phase hook: called after each phase that ran, its report complete
  // (`phase` is RunReport::phases.back()); `more` says whether another phase
  // follows (this is not the last phase and no limit has ended the run). The
  // hook may change the e-graph in any way, including replacing its contents
  // (move-assigning a fresh EGraph into it) to re-seed the next phase, which
  // starts on the e-graph as the hook leaves it. Its time counts towards the
  // time limit. A non-OK status ends the run there (no further phase is
  // reported) and is returned as RunReport::hook_error.
  std::function<absl::Status(const PhaseReport& phase, bool more)> on_phase_end;
  // The hook leaves the e-graph as it found it (it only reports, say). A rule
  // in several phases (the same Rewrite object, e.g. the built-in
  // equivalences) goes on in a later phase from its last complete search in
  // an earlier one: an incremental rule searches only what changed since
  // (Rewrite::incremental) instead of the whole e-graph again, and a
  // semi-naive one skips the matches it found then. So it does without a
  // hook; with a hook only when this is set and the hook did not change the
  // e-graph after all (EGraph::version() did not move). Otherwise every
  // phase searches its rules afresh.
  bool phase_hook_keeps_egraph = false;
  // While a rule is searched over every class with its root op, match the
  // later rules of the iteration rooted at the same op at each root too, and
  // keep their matches for their turn (RuleStats::kept). Only work is saved:
  // matches, applications and the e-graph are the same either way (off: for
  // tests and measurements that compare).
  bool search_ahead = true;
  // Incremental searches that need only the matches a change makes (a
  // semi-naive rule's, or a narrow one's: RuleStats::narrow) visit, of the
  // roots within their reach, only those a change reaches along the
  // pattern's paths (pattern_paths.h). Only work is saved: the applications
  // and the e-graph are the same either way, and so are the matches counted,
  // but for those a narrow rule finds again (which it counts only where it
  // looks). Off: for tests and measurements that compare.
  bool follow_pattern_paths = true;
};

struct RuleStats {
  std::string name;
  // Matches that passed the guard. An incremental search counts those found
  // again only at the roots it visits (a semi-naive one none of them).
  size_t matches = 0;
  size_t applications = 0;  // matches whose result merged two classes
  bool banned = false;      // exceeded its match limit this iteration (scheduler.h)
  bool skipped = false;     // banned in this iteration
  // Where the work went (for profiling the rules):
  size_t roots = 0;        // classes searched (the candidate roots matched)
  size_t found_again = 0;  // matches counted but not applied (Rewrite::reads)
  bool full = false;       // searched the whole e-graph (not incrementally)
  bool absent = false;     // not searched: an op of its pattern is in no class
  // Reads no more than constants: looked ahead from read changes only.
  bool narrow = false;
  // Searched incrementally at the roots its changes reach along its
  // pattern's paths (RunnerOptions::follow_pattern_paths).
  bool by_paths = false;
  // Its matches were found in an earlier rule's search of the same roots
  // (search ahead: the same matches as its own search's), whose
  // search_seconds holds that time.
  bool kept = false;
  // Searching it, with its guard, without applying; with the matching of
  // later rules whose matches it kept (search ahead).
  double search_seconds = 0;
  double apply_seconds = 0;  // applying its matches
};

struct IterationReport {
  size_t phase = 0;
  size_t iteration = 0;  // within the phase
  std::vector<RuleStats> rules;
  size_t nodes = 0;  // after the rebuild
  size_t classes = 0;
  size_t memory_bytes = 0;
  size_t rebuild_unions = 0;  // unions found by congruence
  double search_seconds = 0;
  double apply_seconds = 0;
  double rebuild_seconds = 0;
};

struct Phase {
  std::string name;
  std::vector<const Rewrite*> rules;  // not owned
};

struct PhaseReport {
  size_t index = 0;  // into the phases run
  std::string name;
  StopReason stop_reason = StopReason::kSaturated;
  // Not started: the run had stopped in an earlier phase (stop_reason says
  // why), or the time limit had passed when the phase was due to start. The
  // fields below are then zero.
  bool skipped = false;
  size_t iterations = 0;
  size_t nodes = 0;  // e-graph size at the phase's end (before the phase hook)
  size_t classes = 0;
  size_t conflicts = 0;  // merges refused during the phase
  double seconds = 0;    // the phase's iterations, without the phase hook
};

struct RunReport {
  StopReason stop_reason = StopReason::kSaturated;
  std::vector<IterationReport> iterations;
  std::vector<PhaseReport> phases;  // one per phase given, in order (fewer only
                                    // when invariant_error or hook_error ends the run)
  size_t nodes = 0;
  size_t classes = 0;
  size_t peak_memory_bytes = 0;
  size_t conflicts = 0;          // merges refused during the run
  double seconds = 0;            // including the phase hook's time
  double hook_seconds = 0;       // spent in the phase hook
  absl::Status invariant_error;  // set only with check_invariants
  absl::Status hook_error;       // the phase hook's error, if any

  // A multi-line human-readable summary (one line per iteration).
  std::string ToString() const;
};

class Runner {
 public:
  // `egraph` must outlive the runner.
  Runner(EGraph& egraph, RunnerOptions options = {});

  // One phase with these rules.
  RunReport Run(absl::Span<const Rewrite> rules);
  RunReport Run(absl::Span<const Phase> phases);

 private:
  EGraph& g_;
  RunnerOptions options_;
};

}  // namespace egret

#endif  // EGRET_EGRAPH_RUNNER_H_
