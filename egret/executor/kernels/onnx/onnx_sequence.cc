// ONNX sequence and optional values (opset 11+ semantics): SequenceEmpty,
// SequenceConstruct, SequenceInsert, SequenceAt, SequenceErase,
// SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap, Optional,
// OptionalHasElement and OptionalGetElement.
//
// A sequence or optional is a container Tensor (graph/tensor.h): its
// elements() are the sequence's tensors, each with its own dims, or the
// optional's one value. The node's declared container type gives the element
// dtype. A tensor taken out of a container (SequenceAt, ConcatFromSequence,
// OptionalGetElement) must have the dims the node declares: egret's graphs
// have static types, so an element of other dims is an error naming both,
// never a tensor of the wrong size. Positions out of range, an empty
// optional read, elements of mismatched dims or dtypes are errors too.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/executor/executor.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/executor/runtime_body.h"
#include "egret/support/status_macros.h"

namespace egret::backend_internal {
namespace {

using Result = absl::StatusOr<std::vector<Tensor>>;

// The most elements a sequence made here may hold (SplitToSequence of a
// long axis into pieces of one, a SequenceInsert in a long loop): more is a
// resource error, not an allocation of a vector of millions of tensors.
constexpr int64_t kMaxSequenceLength = int64_t{1} << 20;

Result One(Tensor t) {
  std::vector<Tensor> r;
  r.push_back(std::move(t));
  return r;
}

// Input k as a sequence, or an error naming the op.
absl::StatusOr<const Tensor*> SequenceIn(const KernelContext& c, const OnnxArgs& a, int k) {
  EGRET_ASSIGN_OR_RETURN(const Tensor* t, a.Required(k));
  if (!t->type().is_sequence()) {
    return KernelError(
        c, absl::StrFormat("input %d must be a sequence, got %s", k, t->type().ToString()));
  }
  return t;
}

// Output k, a container of the declared type holding `elements`.
absl::StatusOr<Tensor> ContainerOut(const KernelContext& c, int k, std::vector<Tensor> elements) {
  if (k >= static_cast<int>(c.outputs.size()) || c.outputs[k].is_tensor()) {
    return KernelError(c, absl::StrFormat("output %d must be declared a sequence or optional", k));
  }
  if (static_cast<int64_t>(elements.size()) > kMaxSequenceLength) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("%s: a sequence of %d tensors is more than the %d egret's reference "
                        "executor holds",
                        c.op, elements.size(), kMaxSequenceLength));
  }
  absl::StatusOr<Tensor> t = Tensor::Container(c.outputs[k], std::move(elements));
  if (!t.ok()) return KernelError(c, std::string(t.status().message()));
  return t;
}

// Tensor output k holding `t`, which must have the declared type (an
// element's dims are known at run time only).
absl::StatusOr<Tensor> TensorOut(const KernelContext& c, int k, Tensor t) {
  if (k >= static_cast<int>(c.outputs.size())) {
    return KernelError(c, absl::StrFormat("declares fewer than %d outputs", k + 1));
  }
  const TensorType& want = c.outputs[k];
  if (t.type() == want) return t;
  if (want.is_tensor() && t.type().is_tensor() && want.dims == t.type().dims &&
      want.dtype == t.type().dtype) {
    return MakeTensor(want, ReadReals(t));  // the same values, the declared encoding
  }
  return KernelError(c, absl::StrFormat("output %d is declared %s but is %s (egret's graphs "
                                        "have static types)",
                                        k, want.ToString(), t.type().ToString()));
}

// A position input (a one-element integer tensor) normalized into [0, n]
// (`inclusive_end`: SequenceInsert may insert at n) or [0, n).
absl::StatusOr<int64_t> Position(const KernelContext& c, const Tensor& p, int64_t n,
                                 bool inclusive_end) {
  if (!p.type().is_tensor() || p.num_elements() != 1) {
    return KernelError(c, "position must be a one-element tensor");
  }
  if (!IsOnnxInteger(p.type())) return KernelError(c, "position must be an integer");
  const int64_t raw = ReadInts(p)[0];
  const int64_t pos = raw < 0 ? raw + n : raw;
  const int64_t last = inclusive_end ? n : n - 1;
  if (pos < 0 || pos > last) {
    return KernelError(c,
                       absl::StrFormat("position %d is out of range for a sequence of %d", raw, n));
  }
  return pos;
}

Result SequenceEmpty(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, 0, {}));
  return One(std::move(t));
}

Result SequenceConstruct(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  std::vector<Tensor> elements;
  for (size_t i = 0; i < c.inputs.size(); ++i) elements.push_back(c.In(static_cast<int>(i)));
  EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, 0, std::move(elements)));
  return One(std::move(t));
}

Result SequenceInsert(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* seq, SequenceIn(c, a, 0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* x, a.Required(1));
  std::vector<Tensor> elements = seq->elements();
  int64_t pos = static_cast<int64_t>(elements.size());
  if (a.Has(2)) {
    EGRET_ASSIGN_OR_RETURN(pos, Position(c, *a.Input(2), pos, /*inclusive_end=*/true));
  }
  elements.insert(elements.begin() + pos, *x);
  EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, 0, std::move(elements)));
  return One(std::move(t));
}

Result SequenceAt(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* seq, SequenceIn(c, a, 0));
  EGRET_ASSIGN_OR_RETURN(const Tensor* p, a.Required(1));
  const int64_t n = static_cast<int64_t>(seq->elements().size());
  EGRET_ASSIGN_OR_RETURN(int64_t pos, Position(c, *p, n, /*inclusive_end=*/false));
  EGRET_ASSIGN_OR_RETURN(Tensor t, TensorOut(c, 0, seq->elements()[pos]));
  return One(std::move(t));
}

Result SequenceErase(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* seq, SequenceIn(c, a, 0));
  std::vector<Tensor> elements = seq->elements();
  const int64_t n = static_cast<int64_t>(elements.size());
  if (n == 0) return KernelError(c, "cannot erase from an empty sequence");
  int64_t pos = n - 1;
  if (a.Has(1)) {
    EGRET_ASSIGN_OR_RETURN(pos, Position(c, *a.Input(1), n, /*inclusive_end=*/false));
  }
  elements.erase(elements.begin() + pos);
  EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, 0, std::move(elements)));
  return One(std::move(t));
}

Result SequenceLength(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* seq, SequenceIn(c, a, 0));
  const double n = static_cast<double>(seq->elements().size());
  return OnnxResult(c, {&n, 1});
}

// Row-major copy of the slab [from, from + len) along `axis` of `t`.
Tensor SliceAxis(const Tensor& t, int axis, int64_t from, int64_t len) {
  TensorType part = t.type();
  const int64_t n = part.dims[axis];
  part.dims[axis] = len;
  Tensor out = Tensor::Uninitialized(part);
  const int64_t esize = ElementSize(part.dtype);
  int64_t outer = 1, inner = esize;
  for (int i = 0; i < axis; ++i) outer *= part.dims[i];
  for (int i = axis + 1; i < part.rank(); ++i) inner *= part.dims[i];
  uint8_t* dst = out.mutable_bytes().data();
  const uint8_t* src = t.bytes().data();
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(dst + o * len * inner, src + (o * n + from) * inner,
                static_cast<size_t>(len * inner));
  }
  return out;
}

Result SplitToSequence(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* x, a.Required(0));
  if (!x->type().is_tensor()) return KernelError(c, "input 0 must be a tensor");
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, a.Int("axis", 0), x->type().rank()));
  const int64_t dim = x->type().dims[axis];
  std::vector<int64_t> sizes;
  bool squeeze = false;
  if (!a.Has(1)) {
    // Pieces of one; keepdims 0 drops the split axis.
    if (dim > kMaxSequenceLength) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("%s: splitting an axis of %d into a sequence of as many tensors is "
                          "more than the %d egret's reference executor holds",
                          c.op, dim, kMaxSequenceLength));
    }
    sizes.assign(static_cast<size_t>(dim), 1);
    squeeze = a.Int("keepdims", 1) == 0;
  } else {
    const Tensor& s = *a.Input(1);
    if (!s.type().is_tensor() || !IsOnnxInteger(s.type()) || s.type().rank() > 1) {
      return KernelError(c, "split must be an integer scalar or 1-D tensor");
    }
    const std::vector<int64_t> v = ReadInts(s);
    if (s.type().rank() == 0) {
      if (v[0] <= 0) return KernelError(c, absl::StrFormat("split %d must be positive", v[0]));
      if (dim / v[0] > kMaxSequenceLength) {
        return absl::ResourceExhaustedError(absl::StrFormat(
            "%s: split %d of an axis of %d makes more than the %d tensors egret's reference "
            "executor holds in a sequence",
            c.op, v[0], dim, kMaxSequenceLength));
      }
      for (int64_t at = 0; at < dim; at += v[0]) sizes.push_back(std::min(v[0], dim - at));
    } else {
      int64_t total = 0;
      for (int64_t l : v) {
        if (l < 0) return KernelError(c, absl::StrFormat("split length %d is negative", l));
        total += l;
        if (total > dim) break;
      }
      if (total != dim) {
        return KernelError(c,
                           absl::StrFormat("split lengths sum to %d, the axis has %d", total, dim));
      }
      sizes = v;
    }
  }
  std::vector<Tensor> elements;
  int64_t from = 0;
  for (int64_t len : sizes) {
    Tensor piece = SliceAxis(*x, axis, from, len);
    from += len;
    if (squeeze) {
      TensorType t = piece.type();
      t.dims.erase(t.dims.begin() + axis);
      piece.Retype(t);
    }
    elements.push_back(std::move(piece));
  }
  EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, 0, std::move(elements)));
  return One(std::move(t));
}

Result ConcatFromSequence(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* seq, SequenceIn(c, a, 0));
  const std::vector<Tensor>& parts = seq->elements();
  if (parts.empty()) return KernelError(c, "cannot concatenate an empty sequence");
  const bool new_axis = a.Int("new_axis", 0) == 1;
  const Dims& first = parts[0].type().dims;
  const int rank = static_cast<int>(first.size());
  EGRET_ASSIGN_OR_RETURN(int axis, OnnxAxis(c, a.Int("axis", 0), new_axis ? rank + 1 : rank));
  // Each part viewed with the axis present (a new axis of size 1); every
  // part must match the first but along the axis.
  std::vector<Tensor> viewed;
  Dims out_dims;
  for (size_t i = 0; i < parts.size(); ++i) {
    TensorType t = parts[i].type();
    if (new_axis && t.rank() == rank) t.dims.insert(t.dims.begin() + axis, 1);
    bool fits = i == 0 || t.rank() == static_cast<int>(out_dims.size());
    for (int d = 0; fits && i > 0 && d < t.rank(); ++d)
      fits = d == axis || t.dims[d] == out_dims[d];
    if (!fits || t.rank() != (new_axis ? rank + 1 : rank)) {
      return KernelError(
          c, absl::StrFormat("element %d is %s, which does not concatenate with "
                             "element 0, %s",
                             i, parts[i].type().ToString(), parts[0].type().ToString()));
    }
    if (i == 0) {
      out_dims = t.dims;
    } else {
      out_dims[axis] += t.dims[axis];
    }
    Tensor v = parts[i];
    v.Retype(t);
    viewed.push_back(std::move(v));
  }
  TensorType out_type = parts[0].type();
  out_type.dims = out_dims;
  if (out_type != c.outputs[0]) {
    if (!c.outputs[0].is_tensor() || c.outputs[0].dims != out_dims) {
      return KernelError(c, absl::StrFormat("output is declared %s but is %s",
                                            c.outputs[0].ToString(), out_type.ToString()));
    }
  }
  Tensor out = Tensor::Uninitialized(out_type);
  const int64_t esize = ElementSize(out_type.dtype);
  int64_t outer = 1, inner = esize;
  for (int i = 0; i < axis; ++i) outer *= out_dims[i];
  for (int i = axis + 1; i < static_cast<int>(out_dims.size()); ++i) inner *= out_dims[i];
  uint8_t* dst = out.mutable_bytes().data();
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor& v : viewed) {
      const int64_t len = v.type().dims[axis] * inner;
      std::memcpy(dst, v.bytes().data() + o * len, static_cast<size_t>(len));
      dst += len;
    }
  }
  EGRET_ASSIGN_OR_RETURN(Tensor t, TensorOut(c, 0, std::move(out)));
  return One(std::move(t));
}

Result Optional(const KernelContext& c) {
  const OnnxArgs a(c);
  std::vector<Tensor> elements;
  if (a.Has(0)) elements.push_back(*a.Input(0));
  EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, 0, std::move(elements)));
  return One(std::move(t));
}

// OptionalHasElement: false for an empty optional or an absent input (opset
// 18), true for a full one, a tensor or a sequence.
Result OptionalHasElement(const KernelContext& c) {
  const OnnxArgs a(c);
  const Tensor* x = a.Input(0);
  const double has = x == nullptr ? 0 : !x->type().is_optional() || !x->elements().empty() ? 1 : 0;
  return OnnxResult(c, {&has, 1});
}

// OptionalGetElement: the optional's value (an error when it is empty), or
// a tensor or sequence input itself (opset 18).
Result OptionalGetElement(const KernelContext& c) {
  const OnnxArgs a(c);
  EGRET_ASSIGN_OR_RETURN(const Tensor* x, a.Required(0));
  if (!x->type().is_optional()) {
    if (x->type().is_sequence()) {
      EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, 0, x->elements()));
      return One(std::move(t));
    }
    EGRET_ASSIGN_OR_RETURN(Tensor t, TensorOut(c, 0, *x));
    return One(std::move(t));
  }
  if (x->elements().empty()) return KernelError(c, "the optional is empty");
  const Tensor& v = x->elements()[0];
  if (v.type().is_sequence()) {
    EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, 0, v.elements()));
    return One(std::move(t));
  }
  EGRET_ASSIGN_OR_RETURN(Tensor t, TensorOut(c, 0, v));
  return One(std::move(t));
}

// SequenceMap: the body runs once per position i of the sequences (input 0,
// and every other sequence input, of one length), reading element i of each
// sequence and each tensor input whole; output k collects the body's output
// k of every run. The elements' dims differ run to run, so the body is
// imported for each distinct tuple of input types (runtime_body.h).
Result SequenceMap(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 1));
  int64_t captured = 0;
  if (auto it = c.attrs->find(kCapturedAttr); it != c.attrs->end()) {
    if (const auto* v = std::get_if<int64_t>(&it->second)) captured = *v;
  }
  const int explicit_inputs = static_cast<int>(c.inputs.size()) - static_cast<int>(captured);
  if (captured < 0 || explicit_inputs < 1) return KernelError(c, "has no sequence input");
  if (!c.In(0).type().is_sequence()) return KernelError(c, "input 0 must be a sequence");
  const int64_t n = static_cast<int64_t>(c.In(0).elements().size());
  for (int i = 1; i < explicit_inputs; ++i) {
    const Tensor& x = c.In(i);
    if (x.type().is_sequence() && static_cast<int64_t>(x.elements().size()) != n) {
      return KernelError(c, absl::StrFormat("sequence input %d has %d elements, input 0 has %d", i,
                                            x.elements().size(), n));
    }
    if (x.type().is_optional()) return KernelError(c, "an optional input is not supported");
  }
  for (const TensorType& t : c.outputs) {
    if (!t.is_sequence()) return KernelError(c, "every output must be declared a sequence");
  }
  std::vector<std::vector<Tensor>> outs(c.outputs.size());
  absl::flat_hash_map<std::string, GraphPtr> bodies;  // by input types
  for (int64_t s = 0; s < n; ++s) {
    std::vector<Tensor> formal;
    std::vector<TensorType> types;
    std::string key;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const Tensor& x = c.In(static_cast<int>(i));
      const bool element = static_cast<int>(i) < explicit_inputs && x.type().is_sequence();
      formal.push_back(element ? x.elements()[s] : x);
      types.push_back(formal.back().type());
      absl::StrAppend(&key, types.back().ToString(), ";");
    }
    GraphPtr& body = bodies[key];
    if (body == nullptr) {
      EGRET_ASSIGN_OR_RETURN(body, ImportRuntimeBody(c.op, *c.attrs, kRuntimeBodyAttr, types));
    }
    absl::StatusOr<std::vector<Tensor>> r = Execute(*body, formal);
    if (!r.ok()) {
      return absl::Status(r.status().code(),
                          absl::StrFormat("%s: in its body: %s", c.op, r.status().message()));
    }
    if (r->size() != c.outputs.size()) {
      return KernelError(c, absl::StrFormat("its body gives %d outputs, the node declares %d",
                                            r->size(), c.outputs.size()));
    }
    for (size_t k = 0; k < r->size(); ++k) outs[k].push_back(std::move((*r)[k]));
  }
  std::vector<Tensor> result;
  for (size_t k = 0; k < outs.size(); ++k) {
    EGRET_ASSIGN_OR_RETURN(Tensor t, ContainerOut(c, static_cast<int>(k), std::move(outs[k])));
    result.push_back(std::move(t));
  }
  return result;
}

}  // namespace

void RegisterOnnxSequenceKernels(KernelTable& t) {
  t.emplace("onnx.SequenceEmpty", SequenceEmpty);
  t.emplace("onnx.SequenceConstruct", SequenceConstruct);
  t.emplace("onnx.SequenceInsert", SequenceInsert);
  t.emplace("onnx.SequenceAt", SequenceAt);
  t.emplace("onnx.SequenceErase", SequenceErase);
  t.emplace("onnx.SequenceLength", SequenceLength);
  t.emplace("onnx.SplitToSequence", SplitToSequence);
  t.emplace("onnx.ConcatFromSequence", ConcatFromSequence);
  t.emplace("onnx.SequenceMap", SequenceMap);
  t.emplace("onnx.Optional", Optional);
  t.emplace("onnx.OptionalHasElement", OptionalHasElement);
  t.emplace("onnx.OptionalGetElement", OptionalGetElement);
}

}  // namespace egret::backend_internal
