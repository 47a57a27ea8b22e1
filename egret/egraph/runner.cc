#include "egret/egraph/runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/egraph/builtin_apply.h"
#include "egret/egraph/invariants.h"
#include "egret/egraph/matcher.h"
#include "egret/egraph/pattern_paths.h"
#include "egret/support/enum_names.h"
#include "egret/support/process_memory.h"

namespace egret {
namespace {

using Clock = std::chrono::steady_clock;

// Matches are applied in chunks of this many while a rule with no match
// limit is searched, so that match buffers stay small.
constexpr size_t kApplyChunk = 4096;
// How many roots ahead of the one searched the search prefetches the node
// list of; it prefetches the class records twice as far ahead.
constexpr size_t kRootPrefetchAhead = 8;

// Match buffers hold each match as 1 + vars + nodes words: the root, the
// substitution and the matched nodes.
void AppendMatch(std::vector<uint32_t>& words, const MatchView& m) {
  // Element by element: a match is a few words, too short for memcpy.
  words.push_back(m.root);
  for (Id v : m.subst) words.push_back(v);
  for (NodeIdx n : m.nodes) words.push_back(n);
}
MatchView MatchAt(const std::vector<uint32_t>& words, size_t off, size_t nvars, size_t nnodes) {
  return MatchView{words[off], absl::Span<const Id>(words.data() + off + 1, nvars),
                   absl::Span<const NodeIdx>(words.data() + off + 1 + nvars, nnodes)};
}

class RunState {
 public:
  RunState(EGraph& g, const RunnerOptions& o, RunReport& report)
      : g_(g), o_(o), report_(report), start_(Clock::now()) {}

  RunReport Run(absl::Span<const Phase> phases);

 private:
  struct RuleState {
    bool searched = false;
    size_t since = 0;          // change-log position of the last complete search
    uint64_t since_epoch = 0;  // e-graph epoch of the last complete search
    // Its last search was of the whole e-graph: a guess that the next one
    // is too (which rules SearchAndApply searches ahead for; never a result).
    bool was_full = false;
  };

  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  size_t MemoryBytes(bool allow_rss) {
    if (o_.limits.memory_from_rss) {
      if (allow_rss) last_rss_ = static_cast<size_t>(ResidentBytes());
      return last_rss_;
    }
    return g_.ApproxMemoryBytes() + buffer_.capacity() * sizeof(uint32_t) +
           candidates_.capacity() * sizeof(Id) + WalkBytes(walk_) + WalkBytes(seed_walk_) +
           parents_.capacity() * sizeof(NodeIdx) + AheadBytes() + walker_.MemoryBytes() +
           ChangedBytes();
  }
  // Time and memory; sets stop_ and returns true when a limit is exceeded.
  bool CheckTimeMemory(bool allow_rss = true) {
    if (stop_) return true;
    if (o_.limits.should_stop && o_.limits.should_stop()) {
      stop_ = StopReason::kCancelled;
      return true;
    }
    if (Elapsed() > o_.limits.seconds) {
      stop_ = StopReason::kTimeLimit;
      return true;
    }
    size_t mem = MemoryBytes(allow_rss);
    report_.peak_memory_bytes = std::max(report_.peak_memory_bytes, mem);
    if (o_.limits.memory_bytes != 0 && mem > o_.limits.memory_bytes) {
      stop_ = StopReason::kMemoryLimit;
      return true;
    }
    return false;
  }
  bool CheckSize() {
    if (stop_ || phase_full_) return true;
    if (g_.num_nodes() > o_.limits.nodes) {
      stop_ = StopReason::kNodeLimit;
    } else if (g_.num_classes() > o_.limits.classes) {
      stop_ = StopReason::kClassLimit;
    } else if (g_.num_nodes() > phase_node_cap_) {
      phase_full_ = true;
    }
    return stop_.has_value() || phase_full_;
  }
  // Called every so often from hot loops.
  bool Tick() {
    ++ops_;
    if ((ops_ & 255) != 0) return stop_.has_value();
    return CheckTimeMemory((ops_ & 4095) == 0);
  }

  // Keeps of `roots` (in their order) those that a change since st.since
  // (the change log up to `pos`) reaches along rule `rule`'s pattern paths
  // (pattern_paths.h): from each changed class holding an op of the
  // pattern, along that op's path, and with `vars`, from each changed class
  // holding a constant along each variable's path. Returns whether it
  // walked (it does not when every root is a changed class with the root op).
  bool KeepPathRoots(size_t rule, const RuleState& st, size_t pos, bool vars,
                     std::vector<Id>& roots);
  // The classes changed since `since` (the change log up to `pos`,
  // canonical) by each op of the phase's paths that they hold, and those that
  // hold a constant or a shape. Cached for the iteration.
  struct Changed {
    size_t since;
    absl::flat_hash_map<Symbol, std::vector<Id>> by_op;
    std::vector<Id> constants;
  };
  const Changed& ChangedSince(size_t since, size_t pos);
  size_t ChangedBytes() const {
    size_t bytes = 0;
    for (const Changed& c : changed_) {
      for (const auto& [op, ids] : c.by_op) bytes += ids.capacity() * sizeof(Id);
      bytes += c.constants.capacity() * sizeof(Id);
    }
    return bytes;
  }
  // Roots within `levels` parent steps of a class changed since st.since
  // (the change log up to `pos`), and, with `read_levels` > levels, within
  // read_levels steps of one that changed and `reads` says the rule reads
  // (every changed class for kClassNodes and kAnything, a changed class with
  // a constant for kConstants, none for kMatch). Cached for the iteration.
  const std::vector<Id>& Candidates(const RuleState& st, size_t pos, int levels, int read_levels,
                                    Rewrite::Reads reads);
  // A walk to parents, level by level from a set of classes (level 0): the
  // classes of the parents of level k not reached before make level k + 1,
  // each once, in the order their parents are listed. A walk of depth L is
  // the first L + 1 levels of any deeper walk from the same classes, so one
  // walk serves every depth. It reads the e-graph's classes, parent lists
  // and union-find, which every new node and union changes, and so is kept
  // only while the e-graph's version is the one it was begun at.
  struct Walk {
    size_t since = 0;
    size_t pos = 0;
    uint64_t version = 0;
    std::vector<Id> roots;          // level by level
    std::vector<size_t> level_end;  // level k is roots[level_end[k - 1], level_end[k])
    // By class id: stamp << kDepthBits | the depth (capped at kMaxDepth) at
    // which this walk reached the class; another stamp: not reached. A
    // wrap-around of the stamp clears the marks.
    std::vector<uint32_t> marks;
    uint32_t stamp = 0;
    bool Seen(Id c) const { return (marks[c] >> kDepthBits) == stamp; }
    // Whether the walk reached class c within `levels` steps.
    bool Reached(Id c, int levels) const {
      return Seen(c) && (marks[c] & kMaxDepth) <=
                            static_cast<uint32_t>(std::min(levels, static_cast<int>(kMaxDepth)));
    }
  };
  static size_t WalkBytes(const Walk& w) {
    return w.marks.capacity() * sizeof(uint32_t) + w.roots.capacity() * sizeof(Id) +
           w.level_end.capacity() * sizeof(size_t);
  }
  // Whether w is a walk of the change log [since, pos) begun at this version.
  bool Current(const Walk& w, size_t since, size_t pos) const {
    return w.since == since && w.pos == pos && w.version == g_.version() && !w.level_end.empty();
  }
  // Empties w for a walk of [since, pos) at this version, with a new stamp;
  // the caller then adds level 0 (marked at depth 0) and closes it in
  // level_end.
  void Restart(Walk& w, size_t since, size_t pos);
  // Takes w to depth `levels`, a level at a time.
  void Deepen(Walk& w, int levels);
  // Candidates' lists begin with walk_ (from the classes changed in the log
  // [since, pos), canonical): a list for `levels` is its prefix
  // roots[0, level_end[levels]). A kConstants list adds what seed_walk_ (from
  // the changed classes holding a constant or a shape) reaches within
  // read_levels and walk_ not within levels.
  const Walk& MainWalk(size_t since, size_t pos, int levels);
  const Walk& SeedWalk(size_t since, size_t pos, int read_levels);
  // Records the change log up to `pos` in changed_at_.
  void ScanChanges(size_t pos);
  // Whether class c holds a "$Const" or "$Shape" node: what a rule that
  // reads constants (Rewrite::Reads::kConstants) reads of a class.
  bool HoldsConstant(Id c) const {
    return g_.HasConstant(c) || !g_.ClassNodesWithOp(c, shape_op_).empty();
  }
  // Whether class c (canonical at the iteration's start) changed since
  // change-log position `since`; with `constants`, only if it also holds a
  // "$Const" or "$Shape" node.
  bool ClassChanged(Id c, size_t since, bool constants) const {
    if (c >= changed_at_.size() || changed_at_[c] <= since) return false;
    return !constants || HoldsConstant(c);
  }
  // Whether a match of `rw` found again was found at its last complete search
  // `st` and need not be applied again (Rewrite::reads).
  bool FoundBefore(const Rewrite& rw, const RuleState& st, const MatchView& m) const;
  // Forgets the changes recorded: none before the change log's end counts.
  void ResetChanges() {
    changed_at_.clear();
    scanned_ = g_.change_log_size();
  }
  void SearchAndApply(const Phase& phase, size_t rule, std::vector<RuleState>& states,
                      BackoffScheduler& sched, size_t iter, size_t pos, IterationReport& it);
  // A search's decisions that depend on the rule's state only: whether it
  // looks ahead from read changes only (`narrow`), and whether its matcher
  // drops matches whose nodes are all old (Matcher::set_min_stamp).
  struct SearchMode {
    bool narrow = false;
    bool filters = false;
  };
  static SearchMode ModeOf(const Rewrite& rw, const RuleState& st);
  // Whether an op of the pattern is in no class (so it matches nowhere).
  bool AnyOpAbsent(const CompiledPattern& pat) const {
    return std::any_of(pat.ops().begin(), pat.ops().end(),
                       [&](Symbol op) { return g_.ClassesWithOp(op).empty(); });
  }
  // How many parent steps from a changed class a rule's incremental search
  // reaches: its pattern's reach and the lookahead for what it reads.
  static int ReadLevels(const Rewrite& rw) {
    return std::max(rw.pattern.depth() - 1, 0) + std::max(rw.lookahead, 0);
  }

  // Search ahead. A full search of a rule rooted at an op visits the classes
  // with the op that existed at the iteration's start, and what the matcher
  // finds there is the e-graph of the last rebuild's (matcher.h), however
  // many rules have been applied since. So while one rule is searched that
  // way, the later rules of the iteration rooted at the same op that will
  // likely be searched the same way (RuleState::was_full) are matched at each
  // root too, while its class records are in cache, and their raw matches
  // (before any guard) kept. At its turn, such a rule whose own decisions
  // give a full search over the same roots, unfiltered, takes the kept
  // matches instead of matching again, and runs each through its guard,
  // limit and applier in the order its search would have found it: the same
  // matches, counts and applications. Otherwise (a guess that failed) it
  // searches as usual and the kept matches are dropped.
  struct Ahead {
    size_t rule;   // in the phase
    size_t roots;  // into ahead_roots_
    Matcher matcher;
    std::vector<uint32_t> raw;  // root, subst, nodes: 1 + vars + nodes words a match
    bool complete;              // every root was matched (within kMaxAheadWords)
  };
  static constexpr size_t kMaxAheadWords = size_t{1} << 22;
  size_t AheadBytes() const {
    size_t bytes = 0;
    for (const Ahead& a : ahead_) bytes += a.raw.capacity() * sizeof(uint32_t);
    for (const std::vector<Id>& r : ahead_roots_) bytes += r.capacity() * sizeof(Id);
    return bytes;
  }
  std::vector<Ahead> ahead_;                  // this iteration's
  std::vector<std::vector<Id>> ahead_roots_;  // the roots each group was matched at

  EGraph& g_;
  const RunnerOptions& o_;
  RunReport& report_;
  Clock::time_point start_;
  std::optional<StopReason> stop_;
  size_t ops_ = 0;
  size_t last_rss_ = 0;
  std::vector<uint32_t> buffer_;
  // Candidate roots of incremental searches, cached per (since, levels) for
  // one iteration.
  struct CacheEntry {
    size_t since;
    int levels;
    int read_levels;
    Rewrite::Reads reads;
    std::vector<Id> roots;
  };
  std::vector<CacheEntry> cache_;
  // KeepPathRoots': each rule's paths, by rule of the running phase; the
  // ops they start from; this iteration's changes by op.
  std::vector<std::vector<PatternPath>> paths_;
  std::vector<Symbol> path_ops_;
  std::vector<Changed> changed_;
  PathWalker walker_;
  std::vector<Id> candidates_;
  static constexpr uint32_t kDepthBits = 8, kMaxDepth = (1u << kDepthBits) - 1;
  static constexpr uint32_t kMaxWalkStamp = 1u << (32 - kDepthBits);
  Walk walk_, seed_walk_;
  std::vector<NodeIdx> parents_;  // part of one level of a walk's parents
  // By class id (canonical when scanned): 1 + the change-log position of its
  // last change, 0 for none since the run began (or since the phase hook
  // changed the e-graph); the log is scanned up to scanned_.
  std::vector<uint32_t> changed_at_;
  size_t scanned_ = 0;
  const Symbol shape_op_ = Symbol::Intern("$Shape");
  Id ids_at_start_ = 0;
  // The node budget of the running phase (RunnerLimits::nodes for the last
  // phase; half of the room left for any other, so that a phase whose rules
  // explode leaves room for the phases after it), and whether the phase has
  // reached it: the phase ends and the run goes on with the next one.
  size_t phase_node_cap_ = std::numeric_limits<size_t>::max();
  bool phase_full_ = false;
  // Each rule's state after its last phase, for a later phase with the same
  // rule (by address) on the same e-graph.
  absl::flat_hash_map<const Rewrite*, RuleState> carried_;
};

const std::vector<Id>& RunState::Candidates(const RuleState& st, size_t pos, int levels,
                                            int read_levels, Rewrite::Reads reads) {
  // Reading every changed class's nodes: all of them are seeds to the end.
  if (reads == Rewrite::Reads::kAnything || reads == Rewrite::Reads::kClassNodes ||
      read_levels <= levels) {
    levels = std::max(levels, read_levels);
    read_levels = levels;
    reads = Rewrite::Reads::kAnything;
  }
  for (const CacheEntry& e : cache_) {
    if (e.since == st.since && e.levels == levels && e.read_levels == read_levels &&
        e.reads == reads) {
      return e.roots;
    }
  }
  const Walk& walk = MainWalk(st.since, pos, levels);
  std::vector<Id> roots(walk.roots.begin(), walk.roots.begin() + walk.level_end[levels]);
  if (read_levels > levels && reads == Rewrite::Reads::kConstants) {
    const Walk& seeds = SeedWalk(st.since, pos, read_levels);
    for (size_t i = seeds.level_end[0]; i < seeds.level_end[read_levels]; ++i) {
      if (!walk.Reached(seeds.roots[i], levels)) roots.push_back(seeds.roots[i]);
    }
  }
  cache_.push_back(CacheEntry{st.since, levels, read_levels, reads, std::move(roots)});
  return cache_.back().roots;
}

const RunState::Changed& RunState::ChangedSince(size_t since, size_t pos) {
  for (const Changed& c : changed_) {
    if (c.since == since) return c;
  }
  Changed out{since, {}, {}};
  const Walk& walk = MainWalk(since, pos, 0);
  const absl::Span<const Id> changed(walk.roots.data(), walk.level_end[0]);
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < changed.size(); ++i) {
    if (i + kAhead < changed.size()) g_.PrefetchClass(changed[i + kAhead]);
    const Id c = changed[i];
    for (Symbol op : path_ops_) {
      if (!g_.ClassNodesWithOp(c, op).empty()) out.by_op[op].push_back(c);
    }
    if (HoldsConstant(c)) out.constants.push_back(c);
  }
  changed_.push_back(std::move(out));
  return changed_.back();
}

bool RunState::KeepPathRoots(size_t rule, const RuleState& st, size_t pos, bool vars,
                             std::vector<Id>& roots) {
  const std::vector<PatternPath>& paths = paths_[rule];
  if (paths.empty()) return false;  // a variable root
  const Changed& changed = ChangedSince(st.since, pos);
  // The root's own path (the first) keeps every changed class with its op.
  if (auto it = changed.by_op.find(paths[0].op);
      it != changed.by_op.end() && it->second.size() >= roots.size()) {
    return false;
  }
  walker_.Begin(g_.num_ids());
  for (const PatternPath& path : paths) {
    if (path.var) {
      if (vars) walker_.Walk(g_, path, changed.constants);
      continue;
    }
    if (auto it = changed.by_op.find(path.op); it != changed.by_op.end()) {
      walker_.Walk(g_, path, it->second);
    }
  }
  roots.erase(std::remove_if(roots.begin(), roots.end(), [&](Id c) { return !walker_.Reached(c); }),
              roots.end());
  return true;
}

void RunState::Restart(Walk& w, size_t since, size_t pos) {
  if (w.marks.size() < g_.num_ids()) w.marks.resize(g_.num_ids() + g_.num_ids() / 2 + 16, 0);
  if (++w.stamp == kMaxWalkStamp) {
    std::fill(w.marks.begin(), w.marks.end(), 0);
    w.stamp = 1;
  }
  w.since = since;
  w.pos = pos;
  w.version = g_.version();
  w.roots.clear();
  w.level_end.clear();
}

const RunState::Walk& RunState::MainWalk(size_t since, size_t pos, int levels) {
  if (!Current(walk_, since, pos)) {
    Restart(walk_, since, pos);
    const uint32_t mark = walk_.stamp << kDepthBits;
    for (Id c : g_.change_log(since).first(pos - since)) {
      c = g_.Find(c);
      if (walk_.Seen(c)) continue;
      walk_.marks[c] = mark;
      walk_.roots.push_back(c);
    }
    walk_.level_end.push_back(walk_.roots.size());
  }
  Deepen(walk_, levels);
  return walk_;
}

const RunState::Walk& RunState::SeedWalk(size_t since, size_t pos, int read_levels) {
  if (!Current(seed_walk_, since, pos)) {
    const Walk& changed = MainWalk(since, pos, 0);
    Restart(seed_walk_, since, pos);
    const uint32_t mark = seed_walk_.stamp << kDepthBits;
    for (size_t i = 0; i < changed.level_end[0]; ++i) {
      const Id c = changed.roots[i];
      if (HoldsConstant(c)) {
        seed_walk_.marks[c] = mark;
        seed_walk_.roots.push_back(c);
      }
    }
    seed_walk_.level_end.push_back(seed_walk_.roots.size());
  }
  Deepen(seed_walk_, read_levels);
  return seed_walk_;
}

void RunState::Deepen(Walk& w, int levels) {
  // Each level in two passes over chunks of it, so that loads are issued
  // ahead of their use (at a million nodes each is a cache miss): the
  // parent lists of some classes are gathered into parents_ (each list
  // prefetched some classes ahead), then each parent's class entry is
  // prefetched some parents ahead of the test. The same classes in the same
  // order as one nested loop; the buffer stays small.
  constexpr size_t kListAhead = 8, kParentAhead = 16, kParentChunk = 1024;
  std::vector<Id>& roots = w.roots;
  while (w.level_end.size() <= static_cast<size_t>(levels)) {
    const size_t depth = w.level_end.size();
    const size_t begin = depth >= 2 ? w.level_end[depth - 2] : 0, end = w.level_end.back();
    const uint32_t mark = (w.stamp << kDepthBits) | std::min<uint32_t>(depth, kMaxDepth);
    for (size_t i = begin; i < end;) {
      parents_.clear();
      for (; i < end && parents_.size() < kParentChunk; ++i) {
        if (i + 2 * kListAhead < end) g_.PrefetchClassParents(roots[i + 2 * kListAhead]);
        if (i + kListAhead < end) g_.PrefetchClassParentList(roots[i + kListAhead]);
        absl::Span<const NodeIdx> ps = g_.ClassParents(roots[i]);
        parents_.insert(parents_.end(), ps.begin(), ps.end());
      }
      for (size_t j = 0; j < parents_.size(); ++j) {
        if (j + kParentAhead < parents_.size()) g_.PrefetchNodeClass(parents_[j + kParentAhead]);
        const NodeIdx p = parents_[j];
        if (!g_.IsLive(p)) continue;
        const Id pc = g_.NodeClass(p);
        if (w.Seen(pc)) continue;
        w.marks[pc] = mark;
        roots.push_back(pc);
      }
    }
    w.level_end.push_back(roots.size());
  }
}

void RunState::ScanChanges(size_t pos) {
  if (changed_at_.size() < g_.num_ids())
    changed_at_.resize(g_.num_ids() + g_.num_ids() / 2 + 16, 0);
  size_t i = scanned_;
  for (Id c : g_.change_log(scanned_).first(pos - scanned_)) {
    changed_at_[g_.Find(c)] = static_cast<uint32_t>(++i);
  }
  scanned_ = pos;
}

bool RunState::FoundBefore(const Rewrite& rw, const RuleState& st, const MatchView& m) const {
  const uint64_t epoch = st.since_epoch;
  // The root node's class does not matter to the match (as in Matcher).
  const bool root_op = !rw.pattern.root_is_var();
  for (size_t k = 0; k < m.nodes.size(); ++k) {
    const NodeIdx n = m.nodes[k];
    if ((k == 0 && root_op ? g_.NodeContentStamp(n) : g_.NodeStamp(n)) >= epoch) return false;
  }
  if (rw.reads == Rewrite::Reads::kMatch) return true;
  const bool constants = rw.reads == Rewrite::Reads::kConstants;
  if (ClassChanged(m.root, st.since, constants)) return false;
  for (Id c : m.subst) {
    if (ClassChanged(c, st.since, constants)) return false;
  }
  return true;
}

RunState::SearchMode RunState::ModeOf(const Rewrite& rw, const RuleState& st) {
  SearchMode m;
  // A rule that reads no more than constants needs to look only at the
  // matches that are not found again (FoundBefore): one found again was
  // found at its last complete search with what its guard reads as it is
  // now, so it failed then and would fail now, or it passed and was applied
  // then, and an application now would build what is there. So it looks
  // ahead only from the changed classes whose change it reads (Candidates,
  // KeepPathRoots), and with kMatch the matcher drops the matches whose
  // nodes are all old (the semi-naive filter). Its applications are those of
  // the wider search; its matches count those found again only where it
  // looks (RuleStats::matches).
  m.narrow = rw.incremental && st.searched && rw.lookahead > 0 &&
             (rw.reads == Rewrite::Reads::kConstants || rw.reads == Rewrite::Reads::kMatch);
  // Semi-naive: after a complete search, a match whose nodes are all older
  // than that search was found (and applied) then. Only for rules whose guard
  // and applier read no more than the matched nodes and bound types.
  const bool semi_naive = st.searched && rw.incremental && rw.lookahead <= 0;
  m.filters = semi_naive || (m.narrow && rw.reads == Rewrite::Reads::kMatch);
  return m;
}

void RunState::SearchAndApply(const Phase& phase, size_t rule, std::vector<RuleState>& states,
                              BackoffScheduler& sched, size_t iter, size_t pos,
                              IterationReport& it) {
  const Rewrite& rw = *phase.rules[rule];
  RuleState& st = states[rule];
  RuleStats& stats = it.rules[rule];
  const CompiledPattern& pat = rw.pattern;
  const size_t nvars = pat.vars().size();
  const size_t nnodes = static_cast<size_t>(pat.num_nodes());
  const size_t stride = 1 + nvars + nnodes;
  const size_t limit = sched.MatchLimit(rule);
  // A rule searched semi-naively (below) finds each match once: with
  // BackoffOptions::apply_found_when_banned, such a rule over its limit
  // applies what it found and is banned from the next iteration on, instead
  // of discarding it to search the same matches again later (as egg does,
  // whose every search finds every match again); other rules over their
  // limit apply nothing.
  const bool finds_once = o_.backoff.apply_found_when_banned && rw.incremental && rw.lookahead <= 0;
  const bool chunked = limit == std::numeric_limits<size_t>::max() || finds_once;

  // A pattern with an op no class has matches nowhere: its search would find
  // nothing, so it is complete without visiting a root (the rule's state
  // moves on as after any complete search; a class that gains the op later
  // is in the change log from here on). Only work is saved: the matches,
  // counts and state are those of the search.
  if (AnyOpAbsent(pat)) {
    stats.absent = true;
    st.searched = true;
    st.since = pos;
    st.since_epoch = g_.epoch();
    return;
  }

  // Roots to search.
  candidates_.clear();
  bool full = !rw.incremental || !st.searched;
  absl::Span<const Id> with_op;
  if (!pat.root_is_var()) with_op = g_.ClassesWithOp(pat.root_op());
  const SearchMode mode = ModeOf(rw, st);
  const bool narrow = mode.narrow;
  stats.narrow = narrow;
  // The pattern's own reach, and the lookahead for what the rule reads; a
  // walk deeper than its marks can tell (kMaxDepth) searches everywhere.
  const int levels = std::max(pat.depth() - 1, 0);
  const int read_levels = ReadLevels(rw);
  if (read_levels >= static_cast<int>(kMaxDepth)) full = true;
  // Full because the classes within reach of its changes are as many as the
  // roots: a later rule with the same changes and as deep a reach likely is
  // too (search ahead's guess).
  bool full_by_reach = false;
  if (!full) {
    const std::vector<Id>& inc = Candidates(st, pos, narrow ? levels : read_levels, read_levels,
                                            narrow ? rw.reads : Rewrite::Reads::kAnything);
    if (!pat.root_is_var() && inc.size() >= with_op.size()) {
      full = true;
      full_by_reach = !narrow;
    } else {
      candidates_.assign(inc.begin(), inc.end());
    }
  }
  if (full) {
    if (pat.root_is_var()) {
      candidates_ = g_.Classes();
    } else {
      candidates_.assign(with_op.begin(), with_op.end());
    }
  }
  // Search the e-graph of the last rebuild: not the classes that rules
  // applied earlier in this iteration created.
  candidates_.erase(std::remove_if(candidates_.begin(), candidates_.end(),
                                   [&](Id c) { return c >= ids_at_start_; }),
                    candidates_.end());
  // A search that needs only the matches a change makes (semi-naive or
  // narrow, after a first search) visits, of those roots and in their
  // order, only those the changes reach along the pattern's paths: the
  // others have none of those matches.
  if (o_.follow_pattern_paths && st.searched && (mode.filters || narrow) &&
      KeepPathRoots(rule, st, pos, narrow && rw.reads == Rewrite::Reads::kConstants, candidates_)) {
    stats.by_paths = true;
    full = false;
  }
  stats.roots = candidates_.size();
  stats.full = full;

  Clock::time_point t0 = Clock::now();
  double apply_seconds = 0;
  buffer_.clear();
  // Builtin rules are applied and guarded by direct calls (builtin_apply.h).
  const bool builtin = rw.builtin.kind != BuiltinRule::kNone;
  auto flush = [&] {
    Clock::time_point a0 = Clock::now();
    g_.set_rule_context(rw.name);
    auto at = [&](size_t off) { return MatchAt(buffer_, off, nvars, nnodes); };
    // Builtin rules: the pair-table probes of the applications ahead are
    // prefetched so that their cache misses overlap (BuiltinPrefetch).
    const size_t ahead = kBuiltinPrefetchDistance * stride;
    for (size_t off = 0; builtin && off < std::min(buffer_.size(), ahead); off += stride) {
      BuiltinPrefetch(rw.builtin, g_, at(off));
    }
    for (size_t off = 0; off < buffer_.size(); off += stride) {
      if (builtin && off + ahead < buffer_.size()) BuiltinPrefetch(rw.builtin, g_, at(off + ahead));
      const MatchView m = at(off);
      const uint64_t version = g_.version();
      g_.SetMatchContext(m.nodes);
      std::optional<Id> result = builtin ? BuiltinApply(rw.builtin, g_, m) : rw.applier(g_, m);
      g_.ClearMatchContext();
      if (result.has_value()) {
        absl::StatusOr<bool> merged = g_.Union(m.root, *result);
        // An application changed the e-graph: it merged the result into the
        // root, or added it to the root's class (EGraph::AddToClass).
        if (merged.ok() && (*merged || (*result == g_.Find(m.root) && g_.version() != version))) {
          ++stats.applications;
        }
      }
      if (CheckSize() || Tick()) break;
    }
    g_.set_rule_context("");
    buffer_.clear();
    apply_seconds += std::chrono::duration<double>(Clock::now() - a0).count();
  };

  bool over_limit = false;
  const uint64_t old_epoch = st.since_epoch;
  const uint64_t epoch = g_.epoch();
  Matcher matcher(pat);
  // The root node's class does not matter (a match is rooted wherever the
  // node is), so for it only a change of content counts (Matcher::set_min_stamp).
  if (mode.filters) matcher.set_min_stamp(old_epoch);
  // Matches found again that need no application (Rewrite::reads); they
  // count as matches all the same.
  const bool skip_found = st.searched && rw.lookahead > 0 && rw.reads != Rewrite::Reads::kAnything;
  auto on_match = [&](const MatchView& m) {
    if (Tick()) return false;
    if (builtin ? !BuiltinGuard(rw.builtin, g_, m) : (rw.guard && !rw.guard(g_, m))) return true;
    if (++stats.matches > limit) {
      over_limit = true;
      if (!finds_once) return false;
    }
    if (skip_found && FoundBefore(rw, st, m)) {
      ++stats.found_again;
      return true;
    }
    AppendMatch(buffer_, m);
    if (chunked && buffer_.size() >= kApplyChunk * stride) {
      flush();
      if (stop_) return false;
    }
    return true;
  };
  // This rule's matches kept by an earlier rule's search (search ahead, in
  // the class comment), when its own search would be that one.
  Ahead* kept = nullptr;
  const bool over_op = o_.search_ahead && full && !pat.root_is_var() && !mode.filters;
  for (Ahead& a : ahead_) {
    if (a.rule != rule) continue;
    if (a.complete && over_op && ahead_roots_[a.roots] == candidates_) {
      kept = &a;
    } else {
      a.raw = {};
    }
  }
  // Or the later rules whose matches this search keeps.
  const size_t first_ahead = ahead_.size();
  if (kept == nullptr && over_op) {
    for (size_t r = rule + 1; r < phase.rules.size(); ++r) {
      const Rewrite& other = *phase.rules[r];
      const RuleState& ost = states[r];
      if (sched.IsBanned(r, iter) || other.pattern.root_is_var() ||
          other.pattern.root_op() != pat.root_op()) {
        continue;
      }
      const SearchMode other_mode = ModeOf(other, ost);
      const bool likely_full = !other.incremental || !ost.searched || ost.was_full ||
                               (full_by_reach && !other_mode.narrow && ost.since == st.since &&
                                ReadLevels(other) >= read_levels);
      if (other_mode.filters || !likely_full) continue;
      if (AnyOpAbsent(other.pattern) ||
          std::any_of(ahead_.begin(), ahead_.end(), [&](const Ahead& a) { return a.rule == r; })) {
        continue;
      }
      if (ahead_.size() == first_ahead) ahead_roots_.push_back(candidates_);
      ahead_.push_back(Ahead{r, ahead_roots_.size() - 1, Matcher(other.pattern), {}, true});
    }
  }
  stats.kept = kept != nullptr;
  const absl::Span<Ahead> followers = absl::MakeSpan(ahead_).subspan(first_ahead);

  // Roots are scattered over the class arrays (the change log's order, then
  // the parents'): their records, node lists, the records of the nodes the
  // pattern's root binds and the class records of those nodes' operands that
  // the next Bind reads are prefetched ahead, in four steps.
  const size_t num_roots = kept != nullptr ? 0 : candidates_.size();
  if (kept != nullptr) {
    for (size_t off = 0; off < kept->raw.size(); off += stride) {
      if (!on_match(MatchAt(kept->raw, off, nvars, nnodes))) break;
    }
  }
  size_t i = 0;
  for (; i < num_roots; ++i) {
    if (i + 2 * kRootPrefetchAhead < num_roots) {
      g_.PrefetchClass(candidates_[i + 2 * kRootPrefetchAhead]);
    }
    if (i + kRootPrefetchAhead < num_roots) {
      g_.PrefetchClassNodes(candidates_[i + kRootPrefetchAhead]);
    }
    if (i + kRootPrefetchAhead / 2 < num_roots) {
      matcher.PrefetchRoot(g_, candidates_[i + kRootPrefetchAhead / 2]);
    }
    if (i + kRootPrefetchAhead / 4 < num_roots) {
      matcher.PrefetchRootOperand(g_, candidates_[i + kRootPrefetchAhead / 4]);
    }
    if (Tick()) break;
    if (!matcher.MatchClass(g_, candidates_[i], on_match)) break;
    for (Ahead& a : followers) {
      if (!a.complete) continue;
      a.matcher.MatchClass(g_, candidates_[i], [&a](const MatchView& m) {
        AppendMatch(a.raw, m);
        if (a.raw.size() <= kMaxAheadWords) return true;
        a.complete = false;
        return false;
      });
    }
  }
  // A search stopped early leaves the followers' matches incomplete.
  for (Ahead& a : followers) {
    if (i != num_roots || !a.complete) {
      a.complete = false;
      a.raw = {};
    }
  }
  if (kept != nullptr) kept->raw = {};
  st.was_full = full;
  if (over_limit) {
    sched.Ban(rule, iter);
    stats.banned = true;
    if (!finds_once) buffer_.clear();
  }
  if ((!over_limit || finds_once) && !stop_) {
    flush();
    if (!stop_) {
      st.searched = true;
      st.since = pos;
      st.since_epoch = epoch;
    }
  }
  double total = std::chrono::duration<double>(Clock::now() - t0).count();
  stats.apply_seconds = apply_seconds;
  stats.search_seconds = total - apply_seconds;
  it.apply_seconds += apply_seconds;
  it.search_seconds += total - apply_seconds;
}

RunReport RunState::Run(absl::Span<const Phase> phases) {
  bool hit_iteration_limit = false;
  bool hit_phase_budget = false;  // a phase ended at its node budget
  // Conflicts are counted per phase, since the phase hook may replace the
  // e-graph (and with it its conflict count).
  size_t conflicts_base = g_.num_conflicts();
  ResetChanges();
  for (size_t p = 0; p < phases.size(); ++p) {
    const Phase& phase = phases[p];
    PhaseReport pr;
    pr.index = p;
    pr.name = phase.name;
    if (!stop_ && Elapsed() >= o_.limits.seconds) stop_ = StopReason::kTimeLimit;
    if (stop_) {
      pr.stop_reason = *stop_;
      pr.skipped = true;
      report_.phases.push_back(pr);
      continue;
    }
    const Clock::time_point phase_start = Clock::now();
    const size_t limit = o_.limits.nodes, now = g_.num_nodes();
    phase_node_cap_ = p + 1 < phases.size() && now < limit ? now + (limit - now) / 2 : limit;
    phase_full_ = false;
    std::vector<bool> can_ban;
    for (const Rewrite* r : phase.rules) can_ban.push_back(r->backoff);
    paths_.clear();
    path_ops_.clear();
    for (const Rewrite* r : phase.rules) {
      paths_.push_back(PatternPaths(r->pattern));
      for (const PatternPath& path : paths_.back()) {
        if (!path.var && std::find(path_ops_.begin(), path_ops_.end(), path.op) == path_ops_.end())
          path_ops_.push_back(path.op);
      }
    }
    if (!g_.clean()) g_.Rebuild();
    BackoffScheduler sched(o_.scheduler, o_.backoff, can_ban, g_.num_classes());
    // A rule of an earlier phase (the built-in equivalences are in every
    // phase) goes on from its last complete search there.
    std::vector<RuleState> states(phase.rules.size());
    for (size_t r = 0; r < phase.rules.size(); ++r) {
      if (auto c = carried_.find(phase.rules[r]); c != carried_.end()) states[r] = c->second;
    }
    for (size_t iter = 0;; ++iter) {
      if (iter >= o_.limits.iterations) {
        pr.stop_reason = StopReason::kIterationLimit;
        hit_iteration_limit = true;
        break;
      }
      if (CheckSize() || CheckTimeMemory()) {
        if (phase_full_ && !stop_) {
          pr.stop_reason = StopReason::kNodeLimit;
          hit_phase_budget = true;
        }
        break;
      }
      IterationReport it;
      it.phase = p;
      it.iteration = iter;
      it.rules.resize(phase.rules.size());
      const uint64_t version = g_.version();
      const size_t pos = g_.change_log_size();
      cache_.clear();
      changed_.clear();
      ahead_.clear();
      ahead_roots_.clear();
      ScanChanges(pos);
      ids_at_start_ = static_cast<Id>(g_.num_ids());
      bool incomplete = false;  // some rule was not (fully) searched
      for (size_t r = 0; r < phase.rules.size() && !stop_ && !phase_full_; ++r) {
        it.rules[r].name = phase.rules[r]->name;
        if (sched.IsBanned(r, iter)) {
          it.rules[r].skipped = true;
          incomplete = true;
          continue;
        }
        SearchAndApply(phase, r, states, sched, iter, pos, it);
        if (it.rules[r].banned) incomplete = true;
      }
      Clock::time_point r0 = Clock::now();
      it.rebuild_unions = g_.Rebuild();
      it.rebuild_seconds = std::chrono::duration<double>(Clock::now() - r0).count();
      it.nodes = g_.num_nodes();
      it.classes = g_.num_classes();
      it.memory_bytes = MemoryBytes(true);
      report_.peak_memory_bytes = std::max(report_.peak_memory_bytes, it.memory_bytes);
      if (o_.on_iteration) o_.on_iteration(it);
      report_.iterations.push_back(std::move(it));
      ++pr.iterations;
      if (o_.check_invariants) {
        absl::Status s = CheckInvariants(g_);
        if (!s.ok()) {
          report_.invariant_error = s;
          report_.conflicts += g_.num_conflicts() - conflicts_base;
          pr.stop_reason = StopReason::kSaturated;
          report_.phases.push_back(pr);
          return report_;
        }
      }
      if (stop_) break;
      if (g_.version() == version) {
        if (!incomplete) {
          pr.stop_reason = StopReason::kSaturated;
          break;
        }
        sched.LiftBans();
      }
    }
    if (stop_) pr.stop_reason = *stop_;
    if (!g_.clean()) g_.Rebuild();
    for (size_t r = 0; r < phase.rules.size(); ++r) {
      if (states[r].searched) carried_[phase.rules[r]] = states[r];
    }
    pr.nodes = g_.num_nodes();
    pr.classes = g_.num_classes();
    pr.conflicts = g_.num_conflicts() - conflicts_base;
    report_.conflicts += pr.conflicts;
    pr.seconds = std::chrono::duration<double>(Clock::now() - phase_start).count();
    report_.phases.push_back(pr);
    if (o_.on_phase_end) {
      const Clock::time_point h0 = Clock::now();
      const uint64_t version = g_.version();
      absl::Status s = o_.on_phase_end(report_.phases.back(), p + 1 < phases.size() && !stop_);
      // Searches of the e-graph before the hook say nothing about one the
      // hook changed or replaced.
      if (!o_.phase_hook_keeps_egraph || g_.version() != version) {
        carried_.clear();
        ResetChanges();
      }
      report_.hook_seconds += std::chrono::duration<double>(Clock::now() - h0).count();
      if (!s.ok()) {
        report_.hook_error = std::move(s);
        return report_;
      }
    }
    conflicts_base = g_.num_conflicts();
  }
  if (!g_.clean()) g_.Rebuild();
  report_.conflicts += g_.num_conflicts() - conflicts_base;
  report_.stop_reason = stop_                 ? *stop_
                        : hit_phase_budget    ? StopReason::kNodeLimit
                        : hit_iteration_limit ? StopReason::kIterationLimit
                                              : StopReason::kSaturated;
  return report_;
}

constexpr auto kStopReasonNames = MakeEnumNames<StopReason>({
    {StopReason::kSaturated, "Saturated"},
    {StopReason::kIterationLimit, "IterationLimit"},
    {StopReason::kNodeLimit, "NodeLimit"},
    {StopReason::kClassLimit, "ClassLimit"},
    {StopReason::kTimeLimit, "TimeLimit"},
    {StopReason::kMemoryLimit, "MemoryLimit"},
    {StopReason::kCancelled, "Cancelled"},
});

}  // namespace

std::string_view StopReasonName(StopReason r) { return kStopReasonNames.Name(r); }

std::string RunReport::ToString() const {
  std::string out = absl::StrFormat(
      "stop=%s iterations=%d nodes=%d classes=%d peak_memory=%d conflicts=%d time=%.3fs\n",
      StopReasonName(stop_reason), iterations.size(), nodes, classes, peak_memory_bytes, conflicts,
      seconds);
  for (const IterationReport& it : iterations) {
    size_t matches = 0, applications = 0;
    std::string banned;
    for (const RuleStats& r : it.rules) {
      matches += r.matches;
      applications += r.applications;
      if (r.banned) absl::StrAppend(&banned, " ", r.name);
    }
    absl::StrAppendFormat(&out,
                          "  phase %d iter %d: matches=%d applied=%d nodes=%d classes=%d "
                          "search=%.3fms apply=%.3fms rebuild=%.3fms%s\n",
                          it.phase, it.iteration, matches, applications, it.nodes, it.classes,
                          it.search_seconds * 1e3, it.apply_seconds * 1e3, it.rebuild_seconds * 1e3,
                          banned.empty() ? "" : " banned:" + banned);
  }
  return out;
}

Runner::Runner(EGraph& egraph, RunnerOptions options) : g_(egraph), options_(std::move(options)) {}

RunReport Runner::Run(absl::Span<const Rewrite> rules) {
  Phase phase;
  phase.name = "main";
  for (const Rewrite& r : rules) phase.rules.push_back(&r);
  return Run(absl::Span<const Phase>(&phase, 1));
}

RunReport Runner::Run(absl::Span<const Phase> phases) {
  RunReport report;
  Clock::time_point t0 = Clock::now();
  RunState state(g_, options_, report);
  state.Run(phases);
  report.nodes = g_.num_nodes();
  report.classes = g_.num_classes();
  report.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return report;
}

}  // namespace egret
