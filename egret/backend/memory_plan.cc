#include "egret/backend/memory_plan.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/numeric/int128.h"
#include "absl/strings/str_format.h"
#include "egret/backend/step_span_unions.h"
#include "egret/graph/checked_math.h"

namespace egret {
namespace {

bool IsComputing(const Node& n) { return n.op != kInputOp && n.op != kConstOp && n.op != kShapeOp; }

// Saturates at INT64_MAX (as every sum of sizes here does, SaturatingAdd:
// buffers that each fit may add up past 2^63 - 1).
int64_t AlignUp(int64_t bytes) {
  return SaturatingAdd(bytes, kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

// One counted value: its size, whether it must outlive the schedule, and
// where its (distinct, computing) readers are (Analysis::readers).
struct ValueInfo {
  ValueRef value;
  int64_t bytes = 0;
  bool from_input = false;  // produced by an "*Input" node: live from step 0
  bool is_output = false;   // a graph output: live to the last step
};

// Lists by index, in one flat array with offsets (compressed rows): list i is
// items[begin[i], begin[i + 1]). A million-node graph's per-node lists would
// otherwise be millions of heap blocks, scattered.
template <typename T>
struct FlatLists {
  std::vector<size_t> begin{0};
  std::vector<T> items;

  absl::Span<const T> operator[](size_t i) const {
    return absl::Span<const T>(items.data() + begin[i], begin[i + 1] - begin[i]);
  }
  // Ends list begin.size() - 1 (the lists are appended in index order).
  void Close() { begin.push_back(items.size()); }
  // Appends x to the open list unless it holds x already.
  void AddDistinct(T x) {
    if (std::find(items.begin() + static_cast<std::ptrdiff_t>(begin.back()), items.end(), x) ==
        items.end()) {
      items.push_back(x);
    }
  }
};

// The inverse of lists[r] for the rows r of `rows` (ascending): list t of
// the result holds, in ascending order, every row whose list holds t
// (entries below `num_targets`).
template <typename T>
FlatLists<NodeId> Inverted(const FlatLists<T>& lists, absl::Span<const NodeId> rows,
                           size_t num_targets) {
  FlatLists<NodeId> out;
  out.begin.assign(num_targets + 1, 0);
  for (NodeId r : rows) {
    for (T t : lists[r]) ++out.begin[t + 1];
  }
  for (size_t t = 0; t < num_targets; ++t) out.begin[t + 1] += out.begin[t];
  out.items.resize(out.begin.back());
  std::vector<size_t> at(out.begin.begin(), out.begin.end() - 1);
  for (NodeId r : rows) {
    for (T t : lists[r]) out.items[at[t]++] = r;
  }
  return out;
}

// What the scheduler, the lifetimes and the validator share about a graph.
struct Analysis {
  std::vector<ValueInfo> values;  // in (node, output) order
  // Output k of node id is counted value slot[slot_begin[id] + k], or kNone.
  static constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> slot_begin;
  std::vector<size_t> slot;
  std::vector<NodeId> computing;  // in id order
  // Per node: whether it is computing (IsComputing), one byte, so that the
  // passes below and the scheduler do not read the nodes again for it.
  std::vector<uint8_t> is_computing;
  FlatLists<size_t> reads;       // per node: counted values it reads, distinct
  FlatLists<NodeId> producers;   // per node: computing producers, distinct
  FlatLists<NodeId> readers;     // per value: its computing readers, by id
  std::vector<int64_t> written;  // per node: bytes of its counted outputs

  // Every node reads only nodes of smaller ids (how graphs are built and
  // read): Graph::TopologicalOrder() is then the ids in order.
  bool ascending = true;

  explicit Analysis(const Graph& g)
      : slot_begin(g.num_nodes() + 1, 0),
        is_computing(g.num_nodes(), 0),
        written(g.num_nodes(), 0) {
    // One pass over the nodes (a node record is a few hundred bytes: a
    // million-node graph's do not stay in cache between passes), which keeps
    // what the second needs of them: the computing nodes' inputs.
    slot.reserve(g.num_nodes());
    FlatLists<ValueRef> inputs;
    inputs.begin.reserve(g.num_nodes() + 1);
    for (NodeId id = 0; id < g.num_nodes(); ++id) {
      const Node& n = g.node(id);
      slot_begin[id + 1] = slot_begin[id] + n.outputs.size();
      slot.resize(slot_begin[id + 1], kNone);
      is_computing[id] = IsComputing(n);
      for (const ValueRef& in : n.inputs) ascending = ascending && in.node < id;
      if (is_computing[id]) {
        computing.push_back(id);
        inputs.items.insert(inputs.items.end(), n.inputs.begin(), n.inputs.end());
        inputs.Close();
      }
      if (n.op == kConstOp || n.op == kShapeOp) continue;
      for (uint32_t k = 0; k < n.outputs.size(); ++k) {
        int64_t bytes = n.outputs[k].byte_size();
        if (bytes <= 0) continue;
        ValueRef v{id, k};
        slot[slot_begin[id] + k] = values.size();
        values.push_back(ValueInfo{v, bytes, n.op == kInputOp, false});
        written[id] = SaturatingAdd(written[id], bytes);
      }
    }
    for (const GraphOutput& o : g.outputs()) {
      const size_t v = Find(o.value);
      if (v != kNone) values[v].is_output = true;
    }
    reads.begin.reserve(g.num_nodes() + 1);
    producers.begin.reserve(g.num_nodes() + 1);
    size_t next = 0;  // computing[next]: the next node with an inputs list
    for (NodeId id = 0; id < g.num_nodes(); ++id) {
      if (is_computing[id]) {
        for (const ValueRef& in : inputs[next++]) {
          if (is_computing[in.node]) producers.AddDistinct(in.node);
          if (const size_t v = Find(in); v != kNone) reads.AddDistinct(v);
        }
      }
      reads.Close();
      producers.Close();
    }
    readers = Inverted(reads, computing, values.size());
  }

  // The counted value of `v`, or kNone (not counted, or no such output).
  size_t Find(ValueRef v) const {
    if (v.node + size_t{1} >= slot_begin.size()) return kNone;
    const size_t at = slot_begin[v.node] + v.output;
    return at < slot_begin[v.node + 1] ? slot[at] : kNone;
  }
};

std::string BufferName(const Graph& g, ValueRef v) {
  return absl::StrFormat("'%s':%d", g.NodeLabel(v.node), v.output);
}

// Position of each node in `schedule` (-1 for nodes not in it), after checking
// that it holds every computing node once and is topological.
absl::StatusOr<std::vector<int64_t>> Positions(const Graph& g, const Analysis& a,
                                               absl::Span<const NodeId> schedule) {
  std::vector<int64_t> pos(g.num_nodes(), -1);
  for (size_t s = 0; s < schedule.size(); ++s) {
    NodeId id = schedule[s];
    if (id >= g.num_nodes()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("memory plan: step %d names missing node #%d", s, id));
    }
    if (!a.is_computing[id]) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "memory plan: step %d schedules node '%s' (#%d), a '%s' that is never run", s,
          g.NodeLabel(id), id, g.node(id).op));
    }
    if (pos[id] >= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("memory plan: node '%s' (#%d) is scheduled at steps %d and %d",
                          g.NodeLabel(id), id, pos[id], s));
    }
    pos[id] = static_cast<int64_t>(s);
  }
  for (NodeId id : a.computing) {
    if (pos[id] < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("memory plan: node '%s' (#%d) is not scheduled", g.NodeLabel(id), id));
    }
    for (NodeId p : a.producers[id]) {
      if (pos[p] > pos[id]) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "memory plan: node '%s' (#%d) at step %d reads '%s' (#%d), scheduled later at "
            "step %d",
            g.NodeLabel(id), id, pos[id], g.NodeLabel(p), p, pos[p]));
      }
    }
  }
  return pos;
}

// The [first, last] step of each value of `a` under the positions `pos`.
std::vector<std::pair<int64_t, int64_t>> Lifetimes(const Analysis& a,
                                                   const std::vector<int64_t>& pos) {
  const int64_t end = std::max<int64_t>(static_cast<int64_t>(a.computing.size()) - 1, 0);
  std::vector<std::pair<int64_t, int64_t>> life;
  life.reserve(a.values.size());
  for (size_t k = 0; k < a.values.size(); ++k) {
    const ValueInfo& v = a.values[k];
    int64_t first = v.from_input ? 0 : pos[v.value.node];
    int64_t last = first;
    for (NodeId r : a.readers[k]) last = std::max(last, pos[r]);
    if (v.is_output) last = end;
    life.emplace_back(first, last);
  }
  return life;
}

// Saturated at INT64_MAX: the running sums are exact in 128 bits (each of
// the at most 2^32 values is below 2^63).
int64_t Peak(const Analysis& a, const std::vector<std::pair<int64_t, int64_t>>& life) {
  std::vector<absl::int128> delta(a.computing.size() + 2, 0);
  for (size_t k = 0; k < life.size(); ++k) {
    delta[life[k].first] += a.values[k].bytes;
    delta[life[k].second + 1] -= a.values[k].bytes;
  }
  absl::int128 live = 0, peak = 0;
  for (absl::int128 d : delta) {
    live += d;
    peak = std::max(peak, live);
  }
  return peak > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max()
                                                    : static_cast<int64_t>(peak);
}

using LifetimeList = std::vector<std::pair<int64_t, int64_t>>;

// The lifetimes of the values of `a` when `schedule` runs, after checking it
// (Positions).
absl::StatusOr<LifetimeList> LifetimesOf(const Graph& g, const Analysis& a,
                                         absl::Span<const NodeId> schedule) {
  absl::StatusOr<std::vector<int64_t>> pos = Positions(g, a, schedule);
  if (!pos.ok()) return pos.status();
  return Lifetimes(a, *pos);
}

absl::StatusOr<int64_t> PeakOf(const Graph& g, const Analysis& a,
                               absl::Span<const NodeId> schedule) {
  absl::StatusOr<LifetimeList> life = LifetimesOf(g, a, schedule);
  if (!life.ok()) return life.status();
  return Peak(a, *life);
}

// Greedy list scheduling: among the ready nodes, the one whose run frees the
// most bytes net of the bytes it allocates; then the one allocating the
// least; then the smallest id.
//
// The ready nodes are in a max-heap by that key. A node's key only changes
// when a value it reads drops to one unscheduled reader (it would then free
// the value): the remaining reader, if ready, is pushed again with its new
// key and the stale entry is skipped when popped. The keys are distinct (the
// id breaks ties), so this picks exactly what a scan of the ready list would,
// in O((nodes + edges) log nodes).
std::vector<NodeId> GreedySchedule(const Graph& g, const Analysis& a) {
  using Key = std::tuple<int64_t, int64_t, NodeId>;  // larger is better
  std::vector<int64_t> waiting(g.num_nodes(), 0);    // unscheduled computing producers
  for (NodeId id : a.computing) waiting[id] = static_cast<int64_t>(a.producers[id].size());
  // Per node: the computing nodes it produces for, by id.
  const FlatLists<NodeId> consumers = Inverted(a.producers, a.computing, g.num_nodes());
  std::vector<int64_t> readers_left(a.values.size());
  for (size_t k = 0; k < a.values.size(); ++k) {
    readers_left[k] = static_cast<int64_t>(a.readers[k].size());
  }
  std::vector<bool> ready(g.num_nodes(), false), done(g.num_nodes(), false);
  auto key_of = [&](NodeId id) {
    const int64_t allocated = a.written[id];
    int64_t freed = 0;
    for (size_t v : a.reads[id]) {
      if (readers_left[v] == 1 && !a.values[v].is_output) freed += a.values[v].bytes;
    }
    // Net freed bytes, then fewer allocated, then smaller id.
    return Key{freed - allocated, -allocated, std::numeric_limits<NodeId>::max() - id};
  };
  std::vector<Key> current(g.num_nodes());
  std::priority_queue<Key> heap;
  auto make_ready = [&](NodeId id) {
    ready[id] = true;
    current[id] = key_of(id);
    heap.push(current[id]);
  };
  for (NodeId id : a.computing) {
    if (waiting[id] == 0) make_ready(id);
  }
  std::vector<NodeId> schedule;
  schedule.reserve(a.computing.size());
  while (!heap.empty()) {
    const Key top = heap.top();
    heap.pop();
    const NodeId id = std::numeric_limits<NodeId>::max() - std::get<2>(top);
    if (done[id] || top != current[id]) continue;  // scheduled, or a stale key
    done[id] = true;
    ready[id] = false;
    schedule.push_back(id);
    for (size_t v : a.reads[id]) {
      if (--readers_left[v] != 1 || a.values[v].is_output) continue;
      for (NodeId r : a.readers[v]) {
        if (ready[r]) {
          current[r] = key_of(r);
          heap.push(current[r]);
        }
      }
    }
    for (NodeId c : consumers[id]) {
      if (--waiting[c] == 0) make_ready(c);
    }
  }
  return schedule;
}

// The long-lived placed buffers (see AssignOffsets) in span order, cut into
// blocks of kBlock with what a query needs to treat a block at once: when
// every buffer of a block is live at some step of the query's lifetime and
// their spans leave no gap between them, the block is one span to the best-
// fit sweep; when none can be, the block is skipped. Graph outputs (live to
// the last step) are most of these buffers and pile up contiguously at low
// offsets, so most of a query's overlapping long-lived buffers come in whole
// blocks.
class LongPlacedSet {
 public:
  using Span = std::pair<int64_t, int64_t>;  // [offset, end) in the arena

  void Insert(Span span, int64_t first_step, int64_t last_step) {
    const Entry e{span, first_step, last_step};
    auto at = std::upper_bound(entries_.begin(), entries_.end(), e,
                               [](const Entry& x, const Entry& y) { return x.span < y.span; });
    const size_t from = static_cast<size_t>(at - entries_.begin()) / kBlock;
    entries_.insert(at, e);
    blocks_.resize((entries_.size() + kBlock - 1) / kBlock);
    for (size_t k = from; k < blocks_.size(); ++k) Summarize(k);
  }

  // Calls visit(span) for every buffer live at some step of [first, last],
  // in span order, except that a run of such buffers whose spans leave no gap
  // may come as the one span [its first offset, its largest end). The best-fit
  // sweep gives the same answer either way: no span inside a gapless run
  // (nor any other span between its first offset and its end) starts past
  // the sweep's running end, so none opens a gap. `before(span)` is called
  // ahead of each visit to let the caller visit its own spans that order
  // before it.
  template <typename Before, typename Visit>
  void ForOverlapping(int64_t first, int64_t last, Before before, Visit visit) const {
    for (size_t k = 0; k < blocks_.size(); ++k) {
      const Block& b = blocks_[k];
      if (b.min_first > last || b.max_last < first) continue;  // none overlaps
      if (b.gapless && b.max_first <= last && b.min_last >= first) {
        const Span merged{entries_[k * kBlock].span.first, b.max_end};
        before(merged);
        visit(merged);
        continue;
      }
      const size_t end = std::min(entries_.size(), (k + 1) * kBlock);
      for (size_t i = k * kBlock; i < end; ++i) {
        const Entry& e = entries_[i];
        if (e.first_step > last || first > e.last_step) continue;
        before(e.span);
        visit(e.span);
      }
    }
  }

 private:
  static constexpr size_t kBlock = 16;
  struct Entry {
    Span span;
    int64_t first_step, last_step;
  };
  struct Block {
    int64_t min_first, max_first, min_last, max_last;  // of the steps
    int64_t max_end;                                   // of the spans
    bool gapless;  // every span starts at or before the ends of those before it
  };

  void Summarize(size_t k) {
    const size_t begin = k * kBlock, end = std::min(entries_.size(), begin + kBlock);
    Block b{std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
            entries_[begin].span.second,         true};
    for (size_t i = begin; i < end; ++i) {
      const Entry& e = entries_[i];
      b.min_first = std::min(b.min_first, e.first_step);
      b.max_first = std::max(b.max_first, e.first_step);
      b.min_last = std::min(b.min_last, e.last_step);
      b.max_last = std::max(b.max_last, e.last_step);
      if (e.span.first > b.max_end) b.gapless = false;
      b.max_end = std::max(b.max_end, e.span.second);
    }
    blocks_[k] = b;
  }

  std::vector<Entry> entries_;  // by span
  std::vector<Block> blocks_;   // blocks_[k]: entries_[k * kBlock, (k + 1) * kBlock)
};

// The order the offsets are assigned in: the largest buffer first, then the
// earliest first step, then the smallest index. Two stable counting passes
// (by first step, then by the rank of the size among the distinct sizes)
// instead of a comparison sort of indices that reads the buffers at random:
// for a million buffers, sequential sweeps and a table of the few sizes.
std::vector<size_t> PlacementOrder(const std::vector<PlannedBuffer>& buffers, int64_t num_steps) {
  const size_t n = buffers.size();
  std::vector<size_t> at(static_cast<size_t>(num_steps) + 1, 0);
  for (const PlannedBuffer& b : buffers) ++at[static_cast<size_t>(b.first_step) + 1];
  for (size_t s = 1; s < at.size(); ++s) at[s] += at[s - 1];
  std::vector<size_t> by_step(n);
  for (size_t k = 0; k < n; ++k) by_step[at[static_cast<size_t>(buffers[k].first_step)]++] = k;

  absl::flat_hash_map<int64_t, size_t> rank;  // size -> its rank, largest first
  for (const PlannedBuffer& b : buffers) rank.try_emplace(b.bytes, 0);
  std::vector<int64_t> sizes;
  sizes.reserve(rank.size());
  for (const auto& [bytes, r] : rank) sizes.push_back(bytes);
  std::sort(sizes.begin(), sizes.end(), std::greater<>());
  for (size_t r = 0; r < sizes.size(); ++r) rank[sizes[r]] = r;
  std::vector<size_t> begin(sizes.size() + 1, 0);
  std::vector<size_t> rank_of(n);
  for (size_t k = 0; k < n; ++k) {
    rank_of[k] = rank[buffers[k].bytes];
    ++begin[rank_of[k] + 1];
  }
  for (size_t r = 1; r < begin.size(); ++r) begin[r] += begin[r - 1];
  std::vector<size_t> order(n);
  for (size_t k : by_step) order[begin[rank_of[k]]++] = k;
  return order;
}

// Greedy by size with best fit: the largest buffer first, each at the lowest
// offset of the smallest gap left by the placed buffers whose lifetimes
// overlap its own, or after them all.
//
// Finding the overlapping placed buffers: buffers live for at most kShort
// steps are kept by first step, so a query reads the first steps
// [first - kShort, last] only, and of the whole blocks of kShort steps inside
// [first, last] only their unions (StepSpanUnions); longer-lived ones (graph inputs and outputs,
// skip connections) are fewer and kept in offset order (LongPlacedSet), so the gap sweep merges
// them with the sorted short ones instead of sorting them again for every buffer.
void AssignOffsets(std::vector<PlannedBuffer>& buffers) {
  constexpr int64_t kShort = 64;
  int64_t num_steps = 1;
  for (const PlannedBuffer& b : buffers) num_steps = std::max(num_steps, b.last_step + 1);
  const std::vector<size_t> order = PlacementOrder(buffers, num_steps);
  using Span = LongPlacedSet::Span;
  // The placed short-lived buffers by first step, in one array with a
  // stretch per step sized up front (each step's buffers are known): a query
  // reads the stretches of [first - kShort, last] in order, and only them,
  // not the buffers they name (on a large graph, one cache miss each).
  struct Placed {
    int64_t last_step;
    Span span;
  };
  const auto is_short = [](const PlannedBuffer& b) { return b.last_step - b.first_step <= kShort; };
  std::vector<size_t> step_begin(static_cast<size_t>(num_steps) + 1, 0);
  for (const PlannedBuffer& b : buffers) {
    if (is_short(b)) ++step_begin[static_cast<size_t>(b.first_step) + 1];
  }
  for (size_t t = 1; t < step_begin.size(); ++t) step_begin[t] += step_begin[t - 1];
  std::vector<size_t> step_end(step_begin.begin(), step_begin.end() - 1);  // placed so far
  std::vector<Placed> short_placed(step_begin.back());
  // The same spans by blocks of kShort first steps, as unions: a buffer
  // live across many blocks overlaps every short-lived buffer that starts
  // inside them, and takes those blocks' unions instead of each span (a
  // chain's output, live to the last step, overlaps most of the graph).
  StepSpanUnions short_unions(num_steps, kShort);
  LongPlacedSet long_placed;
  std::vector<Span> near;  // overlapping short-lived buffers, sorted
  // Appends the spans of the short-lived buffers with a first step in
  // [from, to] that are live at some step of [first, last].
  auto scan = [&](int64_t from, int64_t to, int64_t first, int64_t last) {
    for (int64_t t = std::max<int64_t>(from, 0); t <= std::min(to, last); ++t) {
      const size_t step = static_cast<size_t>(t);
      for (size_t i = step_begin[step]; i < step_end[step]; ++i) {
        if (first <= short_placed[i].last_step) near.push_back(short_placed[i].span);
      }
    }
  };
  for (size_t k : order) {
    PlannedBuffer& b = buffers[k];
    const int64_t size = AlignUp(b.bytes);
    near.clear();
    // The whole blocks inside [first step, last step]: every short-lived
    // buffer starting there is live at one of b's steps.
    const int64_t first_block = (b.first_step + kShort - 1) / kShort;
    const int64_t end_block = (b.last_step + 1) / kShort;
    if (end_block - first_block >= 2) {
      scan(b.first_step - kShort, first_block * kShort - 1, b.first_step, b.last_step);
      short_unions.AppendUnion(first_block, end_block, near);
      scan(end_block * kShort, b.last_step, b.first_step, b.last_step);
    } else {
      scan(b.first_step - kShort, b.last_step, b.first_step, b.last_step);
    }
    std::sort(near.begin(), near.end());
    // The sweep over every overlapping span in (offset, end) order.
    int64_t at = 0, best = -1, best_gap = std::numeric_limits<int64_t>::max();
    auto visit = [&](const Span& s) {
      const int64_t gap = s.first - at;
      if (gap >= size && gap < best_gap) {
        best = at;
        best_gap = gap;
      }
      at = std::max(at, s.second);
    };
    size_t i = 0;
    long_placed.ForOverlapping(
        b.first_step, b.last_step,
        [&](const Span& l) {
          for (; i < near.size() && near[i] < l; ++i) visit(near[i]);
        },
        visit);
    for (; i < near.size(); ++i) visit(near[i]);
    b.offset = best >= 0 ? best : at;
    if (is_short(b)) {
      const Span span{b.offset, SaturatingAdd(b.offset, size)};
      short_placed[step_end[static_cast<size_t>(b.first_step)]++] = Placed{b.last_step, span};
      short_unions.Add(b.first_step, span);
    } else {
      long_placed.Insert({b.offset, SaturatingAdd(b.offset, size)}, b.first_step, b.last_step);
    }
  }
}

// Fills plan.schedule (the greedy list schedule when its peak is below the
// naive order's, else the naive order), plan.peak_bytes and
// plan.naive_peak_bytes; and `life` with the lifetimes under plan.schedule.
absl::Status ScheduleInto(const Graph& g, const Analysis& a, MemoryPlan& plan, LifetimeList& life) {
  std::vector<NodeId> naive;
  if (a.ascending) {
    naive = a.computing;  // the topological order is the ids
  } else {
    absl::StatusOr<std::vector<NodeId>> topo = g.TopologicalOrder();
    if (!topo.ok()) return topo.status();
    for (NodeId id : *topo) {
      if (a.is_computing[id]) naive.push_back(id);
    }
  }
  absl::StatusOr<LifetimeList> naive_life = LifetimesOf(g, a, naive);
  if (!naive_life.ok()) return naive_life.status();
  const int64_t naive_peak = Peak(a, *naive_life);
  plan.naive_peak_bytes = naive_peak;
  std::vector<NodeId> greedy = GreedySchedule(g, a);
  absl::StatusOr<LifetimeList> greedy_life = LifetimesOf(g, a, greedy);
  if (!greedy_life.ok()) return greedy_life.status();
  const int64_t greedy_peak = Peak(a, *greedy_life);
  const bool take_greedy = greedy_peak < naive_peak;
  plan.schedule = take_greedy ? std::move(greedy) : std::move(naive);
  life = take_greedy ? *std::move(greedy_life) : *std::move(naive_life);
  plan.peak_bytes = std::min(greedy_peak, naive_peak);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<int64_t> PeakLiveBytes(const Graph& g, absl::Span<const NodeId> schedule) {
  if (absl::Status s = g.Validate(); !s.ok()) return s;
  return PeakOf(g, Analysis(g), schedule);
}

absl::StatusOr<MemoryPeaks> PlanMemoryPeaks(const Graph& g) {
  if (absl::Status s = g.Validate(); !s.ok()) return s;
  MemoryPlan plan;
  LifetimeList life;
  if (absl::Status s = ScheduleInto(g, Analysis(g), plan, life); !s.ok()) return s;
  return MemoryPeaks{plan.peak_bytes, plan.naive_peak_bytes};
}

absl::StatusOr<MemoryPlan> PlanMemory(const Graph& g) {
  if (absl::Status s = g.Validate(); !s.ok()) return s;
  const Analysis a(g);
  MemoryPlan plan;
  LifetimeList life;
  if (absl::Status s = ScheduleInto(g, a, plan, life); !s.ok()) return s;
  plan.buffers.reserve(a.values.size());
  for (size_t k = 0; k < a.values.size(); ++k) {
    plan.buffers.push_back(
        PlannedBuffer{a.values[k].value, a.values[k].bytes, 0, life[k].first, life[k].second});
    plan.total_bytes = SaturatingAdd(plan.total_bytes, a.values[k].bytes);
  }
  for (NodeId id : a.computing) {
    int64_t bytes = a.written[id];
    for (size_t v : a.reads[id]) bytes = SaturatingAdd(bytes, a.values[v].bytes);
    plan.lower_bound_bytes = std::max(plan.lower_bound_bytes, bytes);
  }
  AssignOffsets(plan.buffers);
  for (const PlannedBuffer& b : plan.buffers) {
    plan.arena_bytes = std::max(plan.arena_bytes, SaturatingAdd(b.offset, AlignUp(b.bytes)));
  }
  return plan;
}

absl::Status ValidateMemoryPlan(const Graph& g, const MemoryPlan& plan) {
  if (absl::Status s = g.Validate(); !s.ok()) return s;
  const Analysis a(g);
  absl::StatusOr<std::vector<int64_t>> pos = Positions(g, a, plan.schedule);
  if (!pos.ok()) return pos.status();
  std::vector<std::pair<int64_t, int64_t>> life = Lifetimes(a, *pos);
  if (plan.buffers.size() != a.values.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("memory plan: %d buffers, but the graph has %d values to place",
                        plan.buffers.size(), a.values.size()));
  }
  for (size_t k = 0; k < plan.buffers.size(); ++k) {
    const PlannedBuffer& b = plan.buffers[k];
    const ValueInfo& v = a.values[k];
    if (b.value != v.value) {
      return absl::InvalidArgumentError(
          absl::StrFormat("memory plan: buffer %d holds %s, expected %s", k, BufferName(g, b.value),
                          BufferName(g, v.value)));
    }
    const std::string name = BufferName(g, b.value);
    if (b.bytes != v.bytes) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "memory plan: buffer %s has %d bytes, its type needs %d", name, b.bytes, v.bytes));
    }
    if (b.first_step != life[k].first || b.last_step != life[k].second) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "memory plan: buffer %s is live at steps %d..%d, but the schedule needs %d..%d", name,
          b.first_step, b.last_step, life[k].first, life[k].second));
    }
    if (b.offset < 0 || b.offset % kArenaAlignment != 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("memory plan: buffer %s has offset %d, not a non-negative multiple of %d",
                          name, b.offset, kArenaAlignment));
    }
    if (SaturatingAdd(b.offset, b.bytes) > plan.arena_bytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("memory plan: buffer %s (bytes [%d, %d)) does not fit the arena of %d "
                          "bytes",
                          name, b.offset, SaturatingAdd(b.offset, b.bytes), plan.arena_bytes));
    }
  }
  std::vector<size_t> by_offset(plan.buffers.size());
  for (size_t k = 0; k < by_offset.size(); ++k) by_offset[k] = k;
  std::sort(by_offset.begin(), by_offset.end(), [&](size_t x, size_t y) {
    return std::pair(plan.buffers[x].offset, x) < std::pair(plan.buffers[y].offset, y);
  });
  for (size_t i = 0; i < by_offset.size(); ++i) {
    const PlannedBuffer& x = plan.buffers[by_offset[i]];
    for (size_t j = i + 1; j < by_offset.size(); ++j) {
      const PlannedBuffer& y = plan.buffers[by_offset[j]];
      if (y.offset >= SaturatingAdd(x.offset, x.bytes)) break;
      if (x.first_step <= y.last_step && y.first_step <= x.last_step) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "memory plan: buffers %s (steps %d..%d, bytes [%d, %d)) and %s (steps %d..%d, "
            "bytes [%d, %d)) overlap",
            BufferName(g, x.value), x.first_step, x.last_step, x.offset,
            SaturatingAdd(x.offset, x.bytes), BufferName(g, y.value), y.first_step, y.last_step,
            y.offset, SaturatingAdd(y.offset, y.bytes)));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace egret
