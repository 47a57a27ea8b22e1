#include "egret/backend/step_span_unions.h"

#include <algorithm>
#include <cstddef>

namespace egret {

StepSpanUnions::StepSpanUnions(int64_t num_steps, int64_t block_steps) : block_steps_(block_steps) {
  int64_t units = std::max<int64_t>(1, (num_steps + block_steps - 1) / block_steps);
  while (true) {
    levels_.emplace_back(static_cast<size_t>(units));
    if (units == 1) break;
    units = (units + kFanOut - 1) / kFanOut;
  }
}

void StepSpanUnions::Merge(std::vector<Span>& unit, Span span) {
  // The first interval that ends at or after the span's start: every one
  // before it ends before the span and stays.
  auto first = std::lower_bound(unit.begin(), unit.end(), span.first,
                                [](const Span& s, int64_t at) { return s.second < at; });
  if (first != unit.end() && first->first <= span.first && span.second <= first->second) {
    return;  // already covered: the usual case once the arena's slots are reused
  }
  // The intervals from `first` on that start at or before the span's end
  // touch or overlap it: they become one.
  auto last = first;
  while (last != unit.end() && last->first <= span.second) ++last;
  if (first == last) {
    unit.insert(first, span);
    return;
  }
  first->first = std::min(first->first, span.first);
  first->second = std::max((last - 1)->second, span.second);
  unit.erase(first + 1, last);
}

void StepSpanUnions::Add(int64_t step, Span span) {
  int64_t unit = step / block_steps_;
  for (auto& level : levels_) {
    Merge(level[static_cast<size_t>(unit)], span);
    unit /= kFanOut;
  }
}

void StepSpanUnions::AppendUnion(int64_t first_block, int64_t end_block,
                                 std::vector<Span>& out) const {
  auto take = [&](size_t level, int64_t unit) {
    const std::vector<Span>& u = levels_[level][static_cast<size_t>(unit)];
    out.insert(out.end(), u.begin(), u.end());
  };
  int64_t lo = first_block, hi = end_block;
  for (size_t level = 0; level < levels_.size() && lo < hi; ++level) {
    // The units below the next group boundary, and those from the last group
    // boundary on, at this level; the whole groups between go up a level.
    const int64_t lo_up = std::min(hi, (lo + kFanOut - 1) / kFanOut * kFanOut);
    for (int64_t u = lo; u < lo_up; ++u) take(level, u);
    if (lo_up == hi) break;
    const int64_t hi_down = std::max(lo_up, hi / kFanOut * kFanOut);
    for (int64_t u = hi_down; u < hi; ++u) take(level, u);
    lo = lo_up / kFanOut;
    hi = hi_down / kFanOut;
  }
}

}  // namespace egret
