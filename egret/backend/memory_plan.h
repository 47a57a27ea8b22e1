// Memory planning for a lowered graph: a schedule (the order the nodes run
// in) and the offsets of all intermediate values in one arena, the way the
// HTP places tensors in its few MiB of VTCM. docs/memory-plan.md describes the
// algorithm.
//
// What is counted: one buffer per output of every scheduled node and per graph
// input, of TensorType::byte_size() bytes (element count * element size).
// "$Const" data lives in the weights, not in the arena, and "$Shape" values
// occupy no memory, so neither has a buffer; nor have outputs of zero bytes
// (e.g. dtype None). A buffer is live from the step its producer runs (graph
// inputs: from step 0) to the step of its last reader (graph outputs: to the
// last step); a node's inputs and outputs are live at once (no in-place reuse).
#ifndef EGRET_BACKEND_MEMORY_PLAN_H_
#define EGRET_BACKEND_MEMORY_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "egret/graph/graph.h"

namespace egret {

// Every buffer offset is a multiple of this (the HVX vector size, bytes).
inline constexpr int64_t kArenaAlignment = 128;

struct PlannedBuffer {
  ValueRef value;          // the node output held
  int64_t bytes = 0;       // its size, > 0
  int64_t offset = 0;      // where it starts in the arena
  int64_t first_step = 0;  // live from this schedule position...
  int64_t last_step = 0;   // ...to this one, inclusive
};

// Every sum of sizes below (peaks, offsets, arena, total, lower bound)
// saturates at INT64_MAX instead of wrapping: buffers that each fit int64 may
// add up past it.
struct MemoryPlan {
  // The computing nodes (all but "*Input", "$Const" and "$Shape") in the order
  // they run; every node after its producers.
  std::vector<NodeId> schedule;
  // One per counted value, in (node, output) order.
  std::vector<PlannedBuffer> buffers;
  int64_t peak_bytes = 0;        // most bytes live at one step under `schedule`
  int64_t arena_bytes = 0;       // end of the last buffer, rounded up to kArenaAlignment
  int64_t total_bytes = 0;       // sum of all buffer sizes (no reuse at all)
  int64_t naive_peak_bytes = 0;  // peak under Graph::TopologicalOrder() (the file order)
  // No schedule peaks lower: the most bytes one computing node reads and
  // writes (its distinct counted inputs plus its outputs).
  int64_t lower_bound_bytes = 0;
};

// PlanMemory's peak_bytes and naive_peak_bytes, without the offsets (the
// schedules and their peaks only): what a caller comparing peaks needs.
struct MemoryPeaks {
  int64_t peak_bytes = 0;
  int64_t naive_peak_bytes = 0;
};

// Plans `g`: a greedy list schedule (among ready nodes, run the one that frees
// the most bytes net of what it allocates; ties to the smallest node id), kept
// only when its peak is below the naive order's; then offsets greedy by size
// with best fit among the buffers whose lifetimes overlap. Deterministic.
// Fails (kInvalidArgument) when `g` does not validate.
absl::StatusOr<MemoryPlan> PlanMemory(const Graph& g);

// The peaks PlanMemory(g) reports (same schedules), without placing the
// buffers. Fails like PlanMemory.
absl::StatusOr<MemoryPeaks> PlanMemoryPeaks(const Graph& g);

// The most bytes live at one step when the computing nodes of `g` run in
// `schedule` order, which must be topological (kInvalidArgument otherwise).
absl::StatusOr<int64_t> PeakLiveBytes(const Graph& g, absl::Span<const NodeId> schedule);

// Checks `plan` against `g`: the schedule holds every computing node once and
// is topological; the buffers are exactly the counted values with their sizes
// and the lifetimes the schedule implies; offsets are aligned and every buffer
// lies inside [0, arena_bytes); no two buffers live at the same step share a
// byte. Fails (kInvalidArgument) with a message naming the first offending
// node or pair of buffers, e.g. "memory plan: buffers 'a':0 (steps 0..2, bytes
// [0, 1024)) and 'b':0 (steps 1..3, bytes [512, 1536)) overlap".
absl::Status ValidateMemoryPlan(const Graph& g, const MemoryPlan& plan);

}  // namespace egret

#endif  // EGRET_BACKEND_MEMORY_PLAN_H_
