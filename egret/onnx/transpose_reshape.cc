#include <algorithm>
#include <numeric>

#include "egret/onnx/transpose_reshape_internal.h"

namespace egret::onnx_export {

std::optional<std::vector<ReshapeGroup>> ReshapeGroups(const DimList& in, const DimList& out) {
  for (const DimList* d : {&in, &out}) {
    if (std::any_of(d->begin(), d->end(), [](int64_t x) { return x <= 0; })) return std::nullopt;
  }
  std::vector<ReshapeGroup> groups;
  const int ni = static_cast<int>(in.size()), no = static_cast<int>(out.size());
  int i = 0, j = 0;
  while (i < ni || j < no) {
    ReshapeGroup g{i, i, j, j};
    // Dims of 1 on either side are groups of their own.
    if (i < ni && in[i] == 1 && (j >= no || out[j] != 1)) {
      g.in_end = ++i;
    } else if (j < no && out[j] == 1 && (i >= ni || in[i] != 1)) {
      g.out_end = ++j;
    } else {
      if (i >= ni || j >= no) return std::nullopt;  // products differ
      int64_t pi = in[i++], po = out[j++];
      while (pi != po) {
        if (pi < po) {
          if (i >= ni) return std::nullopt;
          pi *= in[i++];
        } else {
          if (j >= no) return std::nullopt;
          po *= out[j++];
        }
        if (pi > (int64_t{1} << 62) || po > (int64_t{1} << 62)) return std::nullopt;
      }
      g.in_end = i;
      g.out_end = j;
    }
    groups.push_back(g);
  }
  return groups;
}

std::optional<SunkTranspose> SinkTransposeThroughReshape(const DimList& in, const DimList& out,
                                                         const PermList& p) {
  if (p.size() != in.size()) return std::nullopt;
  std::optional<std::vector<ReshapeGroup>> groups = ReshapeGroups(in, out);
  if (!groups) return std::nullopt;
  // Each group's place in x: where its first dim is (a group with no input
  // dims, a new dim of 1, goes right after the group before it).
  std::vector<double> place(groups->size());
  for (size_t k = 0; k < groups->size(); ++k) {
    const ReshapeGroup& g = (*groups)[k];
    if (g.in_begin == g.in_end) {
      place[k] = k == 0 ? -0.5 : place[k - 1] + 1e-3;
      continue;
    }
    for (int d = g.in_begin + 1; d < g.in_end; ++d) {
      if (p[d] != p[d - 1] + 1) return std::nullopt;
    }
    place[k] = p[g.in_begin];
  }
  std::vector<size_t> order(groups->size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return place[a] < place[b]; });
  SunkTranspose s;
  std::vector<int> start(groups->size());
  for (size_t k : order) {
    start[k] = static_cast<int>(s.inner.size());
    const ReshapeGroup& g = (*groups)[k];
    s.inner.insert(s.inner.end(), out.begin() + g.out_begin, out.begin() + g.out_end);
  }
  s.perm.resize(out.size());
  for (size_t k = 0; k < groups->size(); ++k) {
    const ReshapeGroup& g = (*groups)[k];
    for (int d = g.out_begin; d < g.out_end; ++d) s.perm[d] = start[k] + (d - g.out_begin);
  }
  return s;
}

std::optional<HoistedTranspose> HoistTransposeAboveReshape(const DimList& in, const DimList& out,
                                                           const PermList& q) {
  if (q.size() != out.size()) return std::nullopt;
  std::optional<std::vector<ReshapeGroup>> groups = ReshapeGroups(in, out);
  if (!groups) return std::nullopt;
  std::vector<int> group_of(out.size(), -1);
  for (size_t k = 0; k < groups->size(); ++k) {
    for (int d = (*groups)[k].out_begin; d < (*groups)[k].out_end; ++d) {
      group_of[d] = static_cast<int>(k);
    }
  }
  // The groups in the order q takes them, each whole and in order; groups
  // with no output dims (input dims of 1 that vanish) at the end.
  std::vector<int> order;
  for (size_t d = 0; d < q.size();) {
    const int k = group_of[q[d]];
    const ReshapeGroup& g = (*groups)[k];
    if (q[d] != g.out_begin) return std::nullopt;
    for (int r = 0; r < g.out_end - g.out_begin; ++r, ++d) {
      if (d >= q.size() || q[d] != g.out_begin + r) return std::nullopt;
    }
    order.push_back(k);
  }
  for (size_t k = 0; k < groups->size(); ++k) {
    if ((*groups)[k].out_begin == (*groups)[k].out_end) order.push_back(static_cast<int>(k));
  }
  HoistedTranspose h;
  for (int k : order) {
    for (int d = (*groups)[k].in_begin; d < (*groups)[k].in_end; ++d) h.perm.push_back(d);
  }
  for (int d : q) h.dims.push_back(out[d]);
  if (h.perm.size() != in.size()) return std::nullopt;
  return h;
}

}  // namespace egret::onnx_export
