// ONNX indexing ops egret keeps opaque: the gather and scatter family
// (GatherElements, GatherND, ScatterElements, Scatter, ScatterND), masks and
// selections (Trilu, OneHot, Compress, NonZero, ReverseSequence) and Unique.
//
// Indices may be negative (counted from the end of their axis); an index out
// of range is an error naming the op. Ops whose output shape depends on the
// data (Compress, NonZero, Unique) check it against the declared output.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "absl/strings/str_format.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

int64_t Product(const Dims& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) p *= d[i];
  return p;
}

// Index `i` into an axis of length `dim`, negative counting from the end.
absl::StatusOr<int64_t> AxisIndex(const KernelContext& c, int64_t i, int64_t dim) {
  if (i < -dim || i >= dim) {
    return KernelError(c, absl::StrFormat("index %d is out of range for an axis of %d", i, dim));
  }
  return i < 0 ? i + dim : i;
}

// Advances the row-major multi-index `idx` over `dims`.
void Next(std::vector<int64_t>& idx, const Dims& dims) {
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return;
    idx[d] = 0;
  }
}

// How a scatter combines an update u with the value v already there.
using Combine = double (*)(double v, double u);

absl::StatusOr<Combine> ScatterReduction(const KernelContext& c) {
  const std::string r = OnnxArgs(c).Str("reduction", "none");
  if (r == "none") return [](double, double u) { return u; };
  if (r == "add") return [](double v, double u) { return v + u; };
  if (r == "mul") return [](double v, double u) { return v * u; };
  if (r == "max") return [](double v, double u) { return std::max(v, u); };
  if (r == "min") return [](double v, double u) { return std::min(v, u); };
  return KernelError(c, absl::StrFormat("unknown reduction '%s'", r));
}

// Trilu: keeps the upper (upper = 1, j - i >= k) or lower (j - i <= k)
// triangle of the last two axes, k from input 1 (default 0); zeroes the rest.
Result Trilu(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  const Dims& d = c.InDims(0);
  if (d.size() < 2) return KernelError(c, "input must have rank 2 or more");
  int64_t k = 0;
  if (const Tensor* t = args.Input(1)) {
    if (t->num_elements() != 1) return KernelError(c, "k must hold one value");
    k = ReadInts(*t)[0];
  }
  const bool upper = args.Int("upper", 1) != 0;
  const int64_t rows = d[d.size() - 2], cols = d[d.size() - 1];
  std::vector<double> v = ReadReals(c.In(0));
  for (size_t e = 0; e < v.size(); ++e) {
    const int64_t j = static_cast<int64_t>(e) % cols;
    const int64_t i = static_cast<int64_t>(e) / cols % rows;
    if (upper ? j - i < k : j - i > k) v[e] = 0.0;
  }
  return OnnxResult(c, v);
}

// GatherElements: out[idx] = data[idx with idx[axis] = indices[idx]].
Result GatherElements(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* data, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* indices, args.Required(1));
  const Dims& dd = data->type().dims;
  const Dims& id = indices->type().dims;
  const int rank = static_cast<int>(dd.size());
  if (static_cast<int>(id.size()) != rank) return KernelError(c, "indices must have data's rank");
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, args.Int("axis", 0), rank));
  const std::vector<double> v = ReadReals(*data);
  const std::vector<int64_t> ix = ReadInts(*indices);
  const std::vector<int64_t> stride = RowMajorStrides(dd);
  std::vector<double> out(ix.size());
  std::vector<int64_t> idx(rank, 0);
  for (size_t e = 0; e < ix.size(); ++e, Next(idx, id)) {
    EGRET_ASSIGN_OR_RETURN(int64_t a, AxisIndex(c, ix[e], dd[axis]));
    int64_t off = 0;
    for (int k = 0; k < rank; ++k) {
      if (k != axis && idx[k] >= dd[k]) return KernelError(c, "indices is larger than data");
      off += (k == axis ? a : idx[k]) * stride[k];
    }
    out[e] = v[off];
  }
  return OnnxResult(c, out);
}

// ScatterElements (and the older Scatter): out = data, then for each idx of
// indices, out[idx with idx[axis] = indices[idx]] combined with updates[idx]
// (reduction none/add/mul/max/min), in row-major order of indices.
Result ScatterElements(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* data, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* indices, args.Required(1));
  EGRET_ASSIGN_OR_RETURN(const Tensor* updates, args.Required(2));
  const Dims& dd = data->type().dims;
  const Dims& id = indices->type().dims;
  const int rank = static_cast<int>(dd.size());
  if (static_cast<int>(id.size()) != rank || updates->type().dims != id) {
    return KernelError(c, "indices and updates must have one shape, of data's rank");
  }
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, args.Int("axis", 0), rank));
  EGRET_ASSIGN_OR_RETURN(Combine combine, ScatterReduction(c));
  std::vector<double> out = ReadReals(*data);
  const std::vector<int64_t> ix = ReadInts(*indices);
  const std::vector<double> up = ReadReals(*updates);
  const std::vector<int64_t> stride = RowMajorStrides(dd);
  std::vector<int64_t> idx(rank, 0);
  for (size_t e = 0; e < ix.size(); ++e, Next(idx, id)) {
    EGRET_ASSIGN_OR_RETURN(int64_t a, AxisIndex(c, ix[e], dd[axis]));
    int64_t off = 0;
    for (int k = 0; k < rank; ++k) {
      if (k != axis && idx[k] >= dd[k]) return KernelError(c, "indices is larger than data");
      off += (k == axis ? a : idx[k]) * stride[k];
    }
    out[off] = combine(out[off], up[e]);
  }
  return OnnxResult(c, out);
}

// The offset into data of the slice an index tuple (the last axis of
// `indices`, `k` values from `tuple`) selects, over data's axes
// [first, first + k).
absl::StatusOr<int64_t> TupleOffset(const KernelContext& c, const int64_t* tuple, int64_t k,
                                    const Dims& dd, const std::vector<int64_t>& stride, int first) {
  int64_t off = 0;
  for (int64_t j = 0; j < k; ++j) {
    EGRET_ASSIGN_OR_RETURN(int64_t a, AxisIndex(c, tuple[j], dd[first + j]));
    off += a * stride[first + j];
  }
  return off;
}

// GatherND: for batch_dims b, indices [B..., n..., k] pick slices
// data[B..., i_1..i_k, ...]: out dims indices.dims[:-1] + data.dims[b+k:].
Result GatherND(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* data, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* indices, args.Required(1));
  const Dims& dd = data->type().dims;
  const Dims& id = indices->type().dims;
  const int64_t b = args.Int("batch_dims", 0);
  const int r = static_cast<int>(dd.size()), q = static_cast<int>(id.size());
  if (q < 1 || b < 0 || b >= std::min(r, q)) return KernelError(c, "bad batch_dims or ranks");
  const int64_t k = id[q - 1];
  if (k < 1 || b + k > r) return KernelError(c, "indices' last dim must be in [1, rank - b]");
  for (int i = 0; i < b; ++i) {
    if (dd[i] != id[i]) return KernelError(c, "data and indices differ in a batch dim");
  }
  const int64_t batches = Product(dd, 0, b);
  const int64_t batch_size = Product(dd, b, r);
  const int64_t tuples = Product(id, b, q - 1);
  const int64_t slice = Product(dd, b + k, r);
  const std::vector<double> v = ReadReals(*data);
  const std::vector<int64_t> ix = ReadInts(*indices);
  const std::vector<int64_t> stride = RowMajorStrides(dd);
  std::vector<double> out;
  out.reserve(static_cast<size_t>(batches * tuples * slice));
  for (int64_t bi = 0; bi < batches; ++bi) {
    for (int64_t t = 0; t < tuples; ++t) {
      EGRET_ASSIGN_OR_RETURN(int64_t off, TupleOffset(c, &ix[(bi * tuples + t) * k], k, dd, stride,
                                                      static_cast<int>(b)));
      off += bi * batch_size;
      out.insert(out.end(), v.begin() + off, v.begin() + off + slice);
    }
  }
  return OnnxResult(c, out);
}

// ScatterND: out = data, then each index tuple of indices [n..., k] selects
// a slice data[i_1..i_k, ...] combined with the matching updates slice.
Result ScatterND(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* data, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* indices, args.Required(1));
  EGRET_ASSIGN_OR_RETURN(const Tensor* updates, args.Required(2));
  const Dims& dd = data->type().dims;
  const Dims& id = indices->type().dims;
  const int r = static_cast<int>(dd.size()), q = static_cast<int>(id.size());
  if (q < 1) return KernelError(c, "indices must have rank 1 or more");
  const int64_t k = id[q - 1];
  if (k < 1 || k > r) return KernelError(c, "indices' last dim must be in [1, rank]");
  const int64_t tuples = Product(id, 0, q - 1);
  const int64_t slice = Product(dd, k, r);
  if (updates->num_elements() != tuples * slice) {
    return KernelError(c, "updates must have dims indices.dims[:-1] + data.dims[k:]");
  }
  EGRET_ASSIGN_OR_RETURN(Combine combine, ScatterReduction(c));
  std::vector<double> out = ReadReals(*data);
  const std::vector<int64_t> ix = ReadInts(*indices);
  const std::vector<double> up = ReadReals(*updates);
  const std::vector<int64_t> stride = RowMajorStrides(dd);
  for (int64_t t = 0; t < tuples; ++t) {
    EGRET_ASSIGN_OR_RETURN(int64_t off, TupleOffset(c, &ix[t * k], k, dd, stride, 0));
    for (int64_t s = 0; s < slice; ++s) out[off + s] = combine(out[off + s], up[t * slice + s]);
  }
  return OnnxResult(c, out);
}

// OneHot: indices (cast to integers; negative ones count from depth) give,
// along a new axis of length depth, `on` at the index and `off` elsewhere;
// an index out of [-depth, depth) gives only `off`. values = [off, on].
Result OneHot(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* indices, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* depth_t, args.Required(1));
  EGRET_ASSIGN_OR_RETURN(const Tensor* values_t, args.Required(2));
  if (depth_t->num_elements() != 1) return KernelError(c, "depth must hold one value");
  if (values_t->num_elements() != 2) return KernelError(c, "values must hold [off, on]");
  const int64_t depth = ReadInts(*depth_t)[0];
  if (depth < 1) return KernelError(c, absl::StrFormat("depth %d must be positive", depth));
  const std::vector<double> values = ReadReals(*values_t);
  const Dims& id = indices->type().dims;
  const int r = static_cast<int>(id.size());
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, args.Int("axis", -1), r + 1));
  const int64_t outer = Product(id, 0, axis), inner = Product(id, axis, r);
  const std::vector<int64_t> ix = ReadInts(*indices);
  std::vector<double> out(static_cast<size_t>(outer * depth * inner), values[0]);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t j = ix[o * inner + i];
      if (j < 0) j += depth;
      if (j >= 0 && j < depth) out[(o * depth + j) * inner + i] = values[1];
    }
  }
  return OnnxResult(c, out);
}

// Compress: the slices along `axis` (or, without axis, the elements of the
// flattened input) whose condition is true; the condition may be shorter
// than the axis.
Result Compress(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* input, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* cond_t, args.Required(1));
  const Dims& d = input->type().dims;
  const int rank = static_cast<int>(d.size());
  int64_t outer = 1, len = input->num_elements(), inner = 1;
  if (args.HasAttr("axis")) {
    EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, args.Int("axis", 0), rank));
    outer = Product(d, 0, axis);
    len = d[axis];
    inner = Product(d, axis + 1, rank);
  }
  const std::vector<double> cond = ReadReals(*cond_t);
  std::vector<int64_t> keep;
  for (size_t j = 0; j < cond.size(); ++j) {
    if (cond[j] == 0.0) continue;
    if (static_cast<int64_t>(j) >= len) {
      return KernelError(c, absl::StrFormat("condition selects %d, past the axis of %d", j, len));
    }
    keep.push_back(static_cast<int64_t>(j));
  }
  const std::vector<double> v = ReadReals(*input);
  std::vector<double> out;
  out.reserve(static_cast<size_t>(outer * keep.size() * inner));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j : keep) {
      const auto first = v.begin() + (o * len + j) * inner;
      out.insert(out.end(), first, first + inner);
    }
  }
  return OnnxResult(c, out);
}

// NonZero: the indices of the non-zero elements, [rank, count], in row-major
// order (a scalar counts as rank 1).
Result NonZero(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const Dims& d = c.InDims(0);
  const Dims dims = d.empty() ? Dims{1} : d;
  const int rank = static_cast<int>(dims.size());
  const std::vector<double> v = ReadReals(c.In(0));
  std::vector<std::vector<int64_t>> found;
  std::vector<int64_t> idx(rank, 0);
  for (size_t e = 0; e < v.size(); ++e, Next(idx, dims)) {
    if (v[e] != 0.0) found.push_back(idx);
  }
  const int64_t n = static_cast<int64_t>(found.size());
  std::vector<double> out(static_cast<size_t>(rank * n));
  for (int a = 0; a < rank; ++a) {
    for (int64_t i = 0; i < n; ++i) out[a * n + i] = static_cast<double>(found[i][a]);
  }
  return OnnxResult(c, out);
}

// ReverseSequence: for each batch b, reverses the first sequence_lens[b]
// steps along time_axis and keeps the rest.
Result ReverseSequence(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* input, args.Required(0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* lens_t, args.Required(1));
  const Dims& d = input->type().dims;
  const int rank = static_cast<int>(d.size());
  if (rank < 2) return KernelError(c, "input must have rank 2 or more");
  EGRET_ASSIGN_OR_RETURN(int batch_axis, OnnxAxis(c, args.Int("batch_axis", 1), rank));
  EGRET_ASSIGN_OR_RETURN(int time_axis, OnnxAxis(c, args.Int("time_axis", 0), rank));
  if (batch_axis > 1 || time_axis > 1 || batch_axis == time_axis) {
    return KernelError(c, "batch_axis and time_axis must be 0 and 1");
  }
  const std::vector<int64_t> lens = ReadInts(*lens_t);
  if (static_cast<int64_t>(lens.size()) != d[batch_axis]) {
    return KernelError(c, "sequence_lens must hold one length per batch");
  }
  for (int64_t l : lens) {
    if (l < 0 || l > d[time_axis]) {
      return KernelError(c, absl::StrFormat("sequence length %d is out of range", l));
    }
  }
  const std::vector<double> v = ReadReals(*input);
  const std::vector<int64_t> stride = RowMajorStrides(d);
  std::vector<double> out(v.size());
  std::vector<int64_t> idx(rank, 0);
  for (size_t e = 0; e < v.size(); ++e, Next(idx, d)) {
    const int64_t len = lens[idx[batch_axis]];
    const int64_t t = idx[time_axis];
    const int64_t src = t < len ? len - 1 - t : t;
    out[e] = v[static_cast<int64_t>(e) + (src - t) * stride[time_axis]];
  }
  return OnnxResult(c, out);
}

// Unique: the distinct elements of the flattened input, or with `axis` the
// distinct slices along it; sorted ascending (lexicographically for
// slices) or, with sorted = 0, in order of first occurrence. Outputs: the
// unique values, the index of each one's first occurrence, for each input
// element (slice) the index of its unique value, and the counts.
Result Unique(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  const OnnxArgs args(c);
  const Dims& d = c.InDims(0);
  const int rank = static_cast<int>(d.size());
  int64_t outer = 1, len = c.In(0).num_elements(), inner = 1;
  if (args.HasAttr("axis")) {
    EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, args.Int("axis", 0), rank));
    outer = Product(d, 0, axis);
    len = d[axis];
    inner = Product(d, axis + 1, rank);
  }
  const std::vector<double> v = ReadReals(c.In(0));
  // The slices along the axis, as keys, in input order.
  std::vector<std::vector<double>> keys(static_cast<size_t>(len));
  for (int64_t j = 0; j < len; ++j) {
    for (int64_t o = 0; o < outer; ++o) {
      const auto first = v.begin() + (o * len + j) * inner;
      keys[j].insert(keys[j].end(), first, first + inner);
    }
  }
  // Distinct keys in order of first occurrence, and each key's position.
  std::map<std::vector<double>, int64_t> seen;  // key -> index in `first`
  std::vector<int64_t> first, key_of(static_cast<size_t>(len));
  for (int64_t j = 0; j < len; ++j) {
    auto [it, inserted] = seen.emplace(keys[j], static_cast<int64_t>(first.size()));
    if (inserted) first.push_back(j);
    key_of[j] = it->second;
  }
  const int64_t n = static_cast<int64_t>(first.size());
  // rank_of[u] = position in the output of the u-th distinct key.
  std::vector<int64_t> rank_of(static_cast<size_t>(n));
  std::vector<int64_t> order;  // output position -> distinct key
  if (args.Int("sorted", 1) != 0) {
    for (const auto& [key, u] : seen) order.push_back(u);
  } else {
    for (int64_t u = 0; u < n; ++u) order.push_back(u);
  }
  for (int64_t p = 0; p < n; ++p) rank_of[order[p]] = p;

  std::vector<double> y(static_cast<size_t>(outer * n * inner));
  std::vector<double> indices(static_cast<size_t>(n)), counts(static_cast<size_t>(n), 0.0);
  std::vector<double> inverse(static_cast<size_t>(len));
  for (int64_t p = 0; p < n; ++p) {
    const std::vector<double>& key = keys[first[order[p]]];
    for (int64_t o = 0; o < outer; ++o) {
      std::copy(key.begin() + o * inner, key.begin() + (o + 1) * inner,
                y.begin() + (o * n + p) * inner);
    }
    indices[p] = static_cast<double>(first[order[p]]);
  }
  for (int64_t j = 0; j < len; ++j) {
    inverse[j] = static_cast<double>(rank_of[key_of[j]]);
    counts[rank_of[key_of[j]]] += 1;
  }
  const std::vector<double>* outs[] = {&y, &indices, &inverse, &counts};
  std::vector<Tensor> result;
  for (size_t k = 0; k < c.outputs.size() && k < 4; ++k) {
    EGRET_RETURN_IF_ERROR(
        CheckOutputCount(c, static_cast<int>(k), static_cast<int64_t>(outs[k]->size())));
    result.push_back(MakeOnnxTensor(c.outputs[k], *outs[k]));
  }
  return result;
}

}  // namespace

void RegisterOnnxIndexKernels(KernelTable& t) {
  t.emplace("onnx.Trilu", Trilu);
  t.emplace("onnx.GatherElements", GatherElements);
  t.emplace("onnx.ScatterElements", ScatterElements);
  t.emplace("onnx.Scatter", ScatterElements);
  t.emplace("onnx.GatherND", GatherND);
  t.emplace("onnx.ScatterND", ScatterND);
  t.emplace("onnx.OneHot", OneHot);
  t.emplace("onnx.Compress", Compress);
  t.emplace("onnx.NonZero", NonZero);
  t.emplace("onnx.ReverseSequence", ReverseSequence);
  t.emplace("onnx.Unique", Unique);
}

}  // namespace egret::backend_internal
