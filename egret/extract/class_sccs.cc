#include "egret/extract/class_sccs.h"

#include <algorithm>

namespace egret::extract {

ClassSccs ComputeClassSccs(const ExtractionProblem& p, std::span<const char> in,
                           std::span<const char> keep) {
  const size_t nc = p.num_classes();
  auto is_in = [&](ClassId c) { return in.empty() || in[c]; };
  auto kept = [&](ENodeId n) { return keep.empty() || keep[n]; };
  ClassSccs out{std::vector<int32_t>(nc, -1), {}};
  std::vector<int32_t> index(nc, -1), low(nc, 0);
  std::vector<char> on_stack(nc, 0);
  std::vector<ClassId> tstack;
  struct Frame {
    ClassId c;
    ENodeId n;   // the node whose children are being walked
    uint32_t k;  // the next child of n
  };
  std::vector<Frame> frames;
  int32_t next = 0, components = 0;
  // Advances frame f to its next kept child edge; returns false at the end.
  auto next_child = [&](Frame& f, ClassId* child) {
    while (f.n < p.class_end(f.c)) {
      if (kept(f.n) && f.k < p.children(f.n).size()) {
        *child = p.children(f.n)[f.k++];
        return true;
      }
      ++f.n;
      f.k = 0;
    }
    return false;
  };
  auto open = [&](ClassId c) {
    index[c] = low[c] = next++;
    tstack.push_back(c);
    on_stack[c] = 1;
    frames.push_back({c, p.class_begin(c), 0});
  };
  for (ClassId s = 0; s < nc; ++s) {
    if (!is_in(s) || index[s] >= 0) continue;
    open(s);
    while (!frames.empty()) {
      Frame& f = frames.back();
      ClassId ch;
      if (next_child(f, &ch)) {
        if (!is_in(ch)) continue;
        if (index[ch] < 0) {
          open(ch);  // invalidates f
        } else if (on_stack[ch]) {
          low[f.c] = std::min(low[f.c], index[ch]);
        }
        continue;
      }
      const ClassId c = f.c;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().c] = std::min(low[frames.back().c], low[c]);
      if (low[c] != index[c]) continue;
      ClassId x;
      do {
        x = tstack.back();
        tstack.pop_back();
        on_stack[x] = 0;
        out.id[x] = components;
        out.order.push_back(x);
      } while (x != c);
      ++components;
    }
  }
  return out;
}

}  // namespace egret::extract
