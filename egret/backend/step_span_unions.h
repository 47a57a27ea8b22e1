// The arena spans of placed buffers, filed by the step a buffer is first live
// at, answered as a union for a range of steps: what the memory plan's best-
// fit search (memory_plan.cc, AssignOffsets) needs when a long-lived buffer
// overlaps thousands of short-lived ones.
//
// The best-fit sweep only sees the gaps between the spans it is given, so any
// set of spans with the same union gives it the same answer; a range of steps
// whose buffers all overlap the query can come as its union. The steps are
// cut into blocks of `block_steps`, and blocks into groups of kFanOut at each
// level above, up to one group; every unit (block or group) keeps the union
// of the spans filed in it as sorted, disjoint, non-touching intervals. Add
// merges a span into one unit per level; AppendUnion of a range of whole
// blocks reads at most 2 * (kFanOut - 1) units per level. With L levels (log base
// kFanOut of the blocks: 3 for a million steps in blocks of 64), a query costs
// O(L * kFanOut * U) for unions of U intervals, however many buffers the range
// holds.
#ifndef EGRET_BACKEND_STEP_SPAN_UNIONS_H_
#define EGRET_BACKEND_STEP_SPAN_UNIONS_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace egret {

class StepSpanUnions {
 public:
  using Span = std::pair<int64_t, int64_t>;  // [offset, end) in the arena, offset < end
  static constexpr int64_t kFanOut = 64;

  // Steps [0, num_steps), in blocks of block_steps (> 0).
  StepSpanUnions(int64_t num_steps, int64_t block_steps);

  int64_t block_steps() const { return block_steps_; }

  // Files `span` at `step` (in [0, num_steps)).
  void Add(int64_t step, Span span);

  // Appends to `out` intervals whose union is the union of the spans filed at
  // the steps of blocks [first_block, end_block) (no two of them from one
  // unit overlap; intervals of different units may).
  void AppendUnion(int64_t first_block, int64_t end_block, std::vector<Span>& out) const;

 private:
  static void Merge(std::vector<Span>& unit, Span span);

  int64_t block_steps_;
  // levels_[0][b]: block b; levels_[k][g]: the kFanOut units g * kFanOut ..
  // of level k - 1.
  std::vector<std::vector<std::vector<Span>>> levels_;
};

}  // namespace egret

#endif  // EGRET_BACKEND_STEP_SPAN_UNIONS_H_
