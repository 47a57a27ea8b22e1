// ONNX control flow: If, Loop and Scan (opset 9+ semantics), whose bodies
// the importer stores as subgraph attributes (egret/graph/graph.h,
// kCapturedAttr). Each body runs on the reference executor itself (a
// recursive Execute); its inputs are its formal inputs followed by the
// node's captured inputs, passed through unchanged.
#include <algorithm>
#include <cstring>
#include <limits>
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

// The node's subgraph attribute `name`, or an error naming the op.
absl::StatusOr<const Graph*> Body(const KernelContext& c, std::string_view name) {
  if (c.attrs != nullptr) {
    auto it = c.attrs->find(name);
    if (it != c.attrs->end()) {
      if (const auto* g = std::get_if<GraphPtr>(&it->second); g != nullptr && *g != nullptr) {
        return g->get();
      }
    }
  }
  // Unimplemented, not invalid: a node kept opaque without its bodies.
  return absl::UnimplementedError(absl::StrFormat(
      "%s: has no subgraph attribute '%s' (a body the importer did not import)", c.op, name));
}

int64_t Captured(const KernelContext& c) {
  if (c.attrs == nullptr) return 0;
  auto it = c.attrs->find(kCapturedAttr);
  if (it == c.attrs->end()) return 0;
  const auto* v = std::get_if<int64_t>(&it->second);
  return v == nullptr ? 0 : *v;
}

// A subgraph the importer kept as ONNX (runtime_body.h), imported for each
// tuple of input types it is run on (a Loop's carried value may grow each
// trip), each import kept for the rest of the node's run.
class KeptBodies {
 public:
  KeptBodies(const KernelContext& c, std::string_view name) : c_(c), key_(KeptGraphKey(name)) {}
  // The body for `formal` followed by `captured`.
  absl::StatusOr<const Graph*> For(const std::vector<Tensor>& formal,
                                   const std::vector<const Tensor*>& captured) {
    std::vector<TensorType> types;
    std::string key;
    for (const Tensor& t : formal) types.push_back(t.type());
    for (const Tensor* t : captured) types.push_back(t->type());
    for (const TensorType& t : types) absl::StrAppend(&key, t.ToString(), ";");
    // Types that grow every trip never repeat: keep a few imports, not one
    // per trip (a pointer For returned is not used after the next call).
    if (bodies_.size() >= kKeptImports && !bodies_.contains(key)) bodies_.clear();
    GraphPtr& body = bodies_[key];
    if (body == nullptr) {
      EGRET_ASSIGN_OR_RETURN(body, ImportRuntimeBody(c_.op, *c_.attrs, key_, types));
    }
    return body.get();
  }

 private:
  static constexpr size_t kKeptImports = 16;
  const KernelContext& c_;
  std::string key_;
  absl::flat_hash_map<std::string, GraphPtr> bodies_;
};

// Whether the node keeps subgraph `name` as ONNX instead of imported.
bool Kept(const KernelContext& c, std::string_view name) {
  return c.attrs != nullptr && HasKeptGraph(*c.attrs, name);
}

// The node's operand tensors split into its ONNX inputs (by ONNX position,
// null where absent) and its captured values.
struct Operands {
  std::vector<const Tensor*> onnx;
  std::vector<const Tensor*> captured;
};

absl::StatusOr<Operands> SplitOperands(const KernelContext& c) {
  EGRET_RETURN_IF_ERROR(NeedInputs(c, 0));
  const int64_t captured = Captured(c);
  const int64_t present = static_cast<int64_t>(c.inputs.size()) - captured;
  if (captured < 0 || present < 0) return KernelError(c, "has fewer inputs than it captures");
  std::vector<int64_t> absent;
  if (c.attrs != nullptr) {
    if (auto it = c.attrs->find("onnx.absent_inputs"); it != c.attrs->end()) {
      if (const auto* v = std::get_if<std::vector<int64_t>>(&it->second)) absent = *v;
    }
  }
  Operands ops;
  int64_t next = 0;
  for (int64_t k = 0; next < present || std::find(absent.begin(), absent.end(), k) != absent.end();
       ++k) {
    if (std::find(absent.begin(), absent.end(), k) != absent.end()) {
      ops.onnx.push_back(nullptr);
    } else {
      ops.onnx.push_back(c.inputs[next++].value);
    }
  }
  for (int64_t i = present; i < static_cast<int64_t>(c.inputs.size()); ++i) {
    ops.captured.push_back(c.inputs[i].value);
  }
  return ops;
}

// Runs `body` on `formal` followed by the captured values.
Result RunBody(const KernelContext& c, const Graph& body, std::vector<Tensor> formal,
               const std::vector<const Tensor*>& captured) {
  if (body.inputs().size() != formal.size() + captured.size()) {
    return KernelError(c, absl::StrFormat("its body has %d inputs, the node gives %d",
                                          body.inputs().size(), formal.size() + captured.size()));
  }
  for (const Tensor* t : captured) formal.push_back(*t);
  Result r = Execute(body, formal);
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        absl::StrFormat("%s: in its body: %s", c.op, r.status().message()));
  }
  return r;
}

// Output k as computed: checked against the node's declared type. An
// output nothing reads (the importer's placeholder, "onnx.untyped_outputs")
// comes back empty.
absl::StatusOr<Tensor> Declared(const KernelContext& c, int k, Tensor t) {
  if (k >= static_cast<int>(c.outputs.size())) {
    return KernelError(c, absl::StrFormat("declares %d outputs, computes more", c.outputs.size()));
  }
  const TensorType& want = c.outputs[k];
  if (t.type() == want) return t;
  if (t.type().is_tensor() && want.is_tensor() && t.type().dims == want.dims) {
    return MakeTensor(want, ReadReals(t));
  }
  if (want.num_elements() == 0 && c.attrs != nullptr && c.attrs->contains("onnx.untyped_outputs")) {
    return Tensor(want);
  }
  return KernelError(c, absl::StrFormat("output %d is declared %s but computes %s", k,
                                        want.ToString(), t.type().ToString()));
}

bool Truth(const Tensor& t) { return t.num_elements() > 0 && t.GetReal(0) != 0; }

Tensor Scalar(const TensorType& t, double v) { return Tensor::FromValues(t, {&v, 1}); }

Result If(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(Operands ops, SplitOperands(c));
  if (ops.onnx.empty() || ops.onnx[0] == nullptr) return KernelError(c, "needs a condition");
  if (ops.onnx[0]->num_elements() != 1) return KernelError(c, "the condition must be one element");
  const std::string_view branch = Truth(*ops.onnx[0]) ? "then_branch" : "else_branch";
  absl::StatusOr<const Graph*> body = Body(c, branch);
  KeptBodies kept(c, branch);
  if (!body.ok() && Kept(c, branch)) body = kept.For({}, ops.captured);
  if (!body.ok()) return body.status();
  EGRET_ASSIGN_OR_RETURN(std::vector<Tensor> outs, RunBody(c, **body, {}, ops.captured));
  if (outs.size() != c.outputs.size()) {
    return KernelError(c, absl::StrFormat("its branch gives %d outputs, the node declares %d",
                                          outs.size(), c.outputs.size()));
  }
  std::vector<Tensor> result;
  for (size_t k = 0; k < outs.size(); ++k) {
    EGRET_ASSIGN_OR_RETURN(Tensor t, Declared(c, static_cast<int>(k), std::move(outs[k])));
    result.push_back(std::move(t));
  }
  return result;
}

// Tensors of one type stacked along a new axis `axis` (row `i` of the
// result is parts[order[i]]): dims = part dims with parts.size() inserted.
Tensor Stack(const TensorType& part, const std::vector<Tensor>& parts, int axis, bool reverse) {
  TensorType t = part;
  const int64_t n = static_cast<int64_t>(parts.size());
  t.dims.insert(t.dims.begin() + axis, n);
  Tensor out(t);
  const size_t esize =
      part.num_elements() == 0 ? 0 : static_cast<size_t>(part.byte_size() / part.num_elements());
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= part.dims[i];
  const size_t inner = outer == 0 ? 0 : static_cast<size_t>(part.num_elements() / outer) * esize;
  uint8_t* dst = out.mutable_bytes().data();
  for (int64_t s = 0; s < n; ++s) {
    const int64_t pos = reverse ? n - 1 - s : s;
    const uint8_t* src = parts[s].bytes().data();
    for (int64_t o = 0; o < outer; ++o) {
      std::memcpy(dst + (o * n + pos) * inner, src + o * inner, inner);
    }
  }
  return out;
}

// Slice `index` of `t` along `axis` (that axis removed).
Tensor Slice(const Tensor& t, int axis, int64_t index) {
  TensorType part = t.type();
  const int64_t n = part.dims[axis];
  part.dims.erase(part.dims.begin() + axis);
  Tensor out(part);
  const size_t esize =
      t.num_elements() == 0 ? 0 : static_cast<size_t>(t.type().byte_size() / t.num_elements());
  int64_t outer = 1;
  for (int i = 0; i < axis; ++i) outer *= t.type().dims[i];
  const size_t inner =
      outer == 0 || n == 0 ? 0 : static_cast<size_t>(t.num_elements() / outer / n) * esize;
  uint8_t* dst = out.mutable_bytes().data();
  const uint8_t* src = t.bytes().data();
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(dst + o * inner, src + (o * n + index) * inner, inner);
  }
  return out;
}

// Loop: runs while the iteration count is below M (input 0, unbounded when
// absent) and the condition (input 1, true when absent; then the body's
// condition output) holds; the body reads (iteration, condition, carried
// values...) and gives (condition, carried values..., scan outputs...); each
// scan output is its per-iteration values stacked along a new first axis.
// The most iterations a Loop runs on the reference executor.
constexpr int64_t kMaxLoopIterations = int64_t{1} << 18;

Result Loop(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(Operands ops, SplitOperands(c));
  // The imported body, or (kept as ONNX) one imported per tuple of types.
  absl::StatusOr<const Graph*> fixed = Body(c, "body");
  if (!fixed.ok() && !Kept(c, "body")) return fixed.status();
  const Graph* body = fixed.ok() ? *fixed : nullptr;
  KeptBodies kept(c, "body");
  ops.onnx.resize(std::max<size_t>(ops.onnx.size(), 2), nullptr);
  const int carried = static_cast<int>(ops.onnx.size()) - 2;
  const int outputs = static_cast<int>(c.outputs.size());
  auto check_outputs = [&](const Graph& b) -> absl::Status {
    if (static_cast<int>(b.outputs().size()) != outputs + 1 || outputs < carried) {
      return KernelError(c, "its body's outputs do not match the node's");
    }
    if (b.inputs().size() < 2) return KernelError(c, "its body has fewer than 2 inputs");
    return absl::OkStatus();
  };
  if (body != nullptr) EGRET_RETURN_IF_ERROR(check_outputs(*body));
  int64_t max_trips = std::numeric_limits<int64_t>::max();
  if (ops.onnx[0] != nullptr) {
    if (ops.onnx[0]->num_elements() != 1) return KernelError(c, "M must be one element");
    max_trips = ReadInts(*ops.onnx[0])[0];
  }
  bool cond = true;
  if (ops.onnx[1] != nullptr) {
    if (ops.onnx[1]->num_elements() != 1) return KernelError(c, "cond must be one element");
    cond = Truth(*ops.onnx[1]);
  }
  std::vector<Tensor> state;
  for (int k = 0; k < carried; ++k) {
    if (ops.onnx[k + 2] == nullptr) return KernelError(c, "a loop-carried input is absent");
    state.push_back(*ops.onnx[k + 2]);
  }
  const int scans = outputs - carried;
  std::vector<std::vector<Tensor>> rows(scans);
  // Each run of the body is bounded by the node's declared scan outputs: a
  // loop running past them fails rather than growing without bound.
  int64_t bound = std::numeric_limits<int64_t>::max();
  for (int j = 0; j < scans; ++j) {
    const Dims& d = c.outputs[carried + j].dims;
    if (!d.empty()) bound = std::min(bound, d[0]);
  }
  // Typed as the body's inputs (the importer's spelling of int64 and bool);
  // a kept body is imported with these.
  TensorType iter_type, cond_type;
  iter_type.dtype = DType::kInt64;
  cond_type.dtype = DType::kBool;
  if (body != nullptr) {
    iter_type = body->node(body->inputs()[0]).outputs[0];
    cond_type = body->node(body->inputs()[1]).outputs[0];
  }
  int64_t i = 0;
  for (; i < max_trips && cond; ++i) {
    if (i >= kMaxLoopIterations) {
      // A hostile or runaway model (no M, a condition that never turns
      // false) must not hang the executor.
      return absl::ResourceExhaustedError(absl::StrFormat(
          "%s: stopped after %d iterations, the most egret's reference executor runs", c.op,
          kMaxLoopIterations));
    }
    if (scans > 0 && i >= bound) {
      return KernelError(c, absl::StrFormat("runs more than the %d iterations its scan outputs "
                                            "are declared with",
                                            bound));
    }
    std::vector<Tensor> formal;
    formal.push_back(Scalar(iter_type, static_cast<double>(i)));
    formal.push_back(Scalar(cond_type, cond ? 1 : 0));
    for (Tensor& t : state) formal.push_back(std::move(t));
    state.clear();
    const Graph* run = body;
    if (run == nullptr) {
      EGRET_ASSIGN_OR_RETURN(run, kept.For(formal, ops.captured));
      EGRET_RETURN_IF_ERROR(check_outputs(*run));
    }
    EGRET_ASSIGN_OR_RETURN(std::vector<Tensor> outs,
                           RunBody(c, *run, std::move(formal), ops.captured));
    cond = Truth(outs[0]);
    for (int k = 0; k < carried; ++k) state.push_back(std::move(outs[k + 1]));
    for (int j = 0; j < scans; ++j) rows[j].push_back(std::move(outs[carried + 1 + j]));
  }
  std::vector<Tensor> result;
  for (int k = 0; k < carried; ++k) {
    EGRET_ASSIGN_OR_RETURN(Tensor t, Declared(c, k, std::move(state[k])));
    result.push_back(std::move(t));
  }
  for (int j = 0; j < scans; ++j) {
    // A row's type: the body's output (imported), else the first row's or,
    // without rows, the declared output's less its first axis.
    TensorType part;
    if (body != nullptr) {
      part = body->TypeOf(body->outputs()[carried + 1 + j].value);
    } else if (!rows[j].empty()) {
      part = rows[j].front().type();
    } else {
      part = c.outputs[carried + j];
      if (part.dims.empty()) return KernelError(c, "a scan output is declared a scalar");
      part.dims.erase(part.dims.begin());
    }
    for (const Tensor& r : rows[j]) {
      if (r.type().dims != part.dims) {
        return KernelError(c,
                           absl::StrFormat("scan output %d changes shape between iterations", j));
      }
    }
    EGRET_ASSIGN_OR_RETURN(Tensor t, Declared(c, carried + j, Stack(part, rows[j], 0, false)));
    result.push_back(std::move(t));
  }
  return result;
}

// The axis `axis` (negative counts from the end) of a rank-`rank` tensor.
absl::StatusOr<int> Axis(const KernelContext& c, int64_t axis, int64_t rank) {
  const int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    return KernelError(c, absl::StrFormat("axis %d is out of range for rank %d", axis, rank));
  }
  return static_cast<int>(a);
}

// Scan (opset 9+): N state variables, then M sequences, each sliced along
// its scan_input_axes axis (read backward where scan_input_directions is
// 1); the body reads (state..., slices...) and gives (state..., scan
// outputs...), each scan output stacked along its scan_output_axes axis
// (in reverse order where scan_output_directions is 1).
// Scan before opset 9: sequence_lens (absent: every sequence whole), then
// N states [batch, ...] and M sequences [batch, sequence, ...] (read
// backward where `directions` is 1); each batch entry is scanned on its own,
// the results stacked along a batch axis ([batch, sequence, ...] scan
// outputs).
Result Scan8(const KernelContext& c, Operands ops, const Graph* body) {
  const OnnxArgs a(c);
  const int m = static_cast<int>(a.Int("num_scan_inputs", 0));
  const int n = static_cast<int>(ops.onnx.size()) - 1 - m;
  const int outputs = static_cast<int>(c.outputs.size());
  if (m < 1 || n < 0 || outputs < n || static_cast<int>(body->outputs().size()) != outputs) {
    return KernelError(c, "its inputs, outputs and body do not match");
  }
  for (size_t i = 1; i < ops.onnx.size(); ++i) {
    if (ops.onnx[i] == nullptr) return KernelError(c, "an input is absent");
  }
  const std::vector<int64_t> dirs = a.Ints("directions").value_or(std::vector<int64_t>(m));
  if (static_cast<int>(dirs.size()) != m) return KernelError(c, "directions has the wrong length");
  const int k_out = outputs - n;
  const int64_t batch = ops.onnx[1]->type().dims.empty() ? 0 : ops.onnx[1]->type().dims[0];
  const Tensor& first = *ops.onnx[1 + n];
  const int64_t len = first.type().rank() < 2 ? 0 : first.type().dims[1];
  if (ops.onnx[0] != nullptr) {
    for (int64_t l : ReadInts(*ops.onnx[0])) {
      if (l != len) {
        return absl::UnimplementedError(absl::StrFormat(
            "%s: sequence_lens shorter than the sequences are not supported", c.op));
      }
    }
  }
  std::vector<std::vector<Tensor>> states(n), scans(k_out);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Tensor> state;
    for (int k = 0; k < n; ++k) state.push_back(Slice(*ops.onnx[1 + k], 0, b));
    std::vector<Tensor> seqs;
    for (int j = 0; j < m; ++j) seqs.push_back(Slice(*ops.onnx[1 + n + j], 0, b));
    std::vector<std::vector<Tensor>> rows(k_out);
    for (int64_t s = 0; s < len; ++s) {
      std::vector<Tensor> formal;
      for (Tensor& t : state) formal.push_back(std::move(t));
      state.clear();
      for (int j = 0; j < m; ++j) {
        formal.push_back(Slice(seqs[j], 0, dirs[j] == 1 ? len - 1 - s : s));
      }
      EGRET_ASSIGN_OR_RETURN(std::vector<Tensor> outs,
                             RunBody(c, *body, std::move(formal), ops.captured));
      for (int k = 0; k < n; ++k) state.push_back(std::move(outs[k]));
      for (int j = 0; j < k_out; ++j) rows[j].push_back(std::move(outs[n + j]));
    }
    for (int k = 0; k < n; ++k) states[k].push_back(std::move(state[k]));
    for (int j = 0; j < k_out; ++j) {
      const TensorType& part = body->TypeOf(body->outputs()[n + j].value);
      scans[j].push_back(Stack(part, rows[j], 0, false));
    }
  }
  std::vector<Tensor> result;
  for (int k = 0; k < outputs; ++k) {
    const TensorType& part = body->TypeOf(body->outputs()[k].value);
    TensorType row = part;
    if (k >= n) row.dims.insert(row.dims.begin(), len);
    EGRET_ASSIGN_OR_RETURN(Tensor t,
                           Declared(c, k, Stack(row, k < n ? states[k] : scans[k - n], 0, false)));
    result.push_back(std::move(t));
  }
  return result;
}

Result Scan(const KernelContext& c) {
  EGRET_ASSIGN_OR_RETURN(Operands ops, SplitOperands(c));
  EGRET_ASSIGN_OR_RETURN(const Graph* body, Body(c, "body"));
  const OnnxArgs a(c);
  if (a.Opset(9) < 9) return Scan8(c, std::move(ops), body);
  const int m = static_cast<int>(a.Int("num_scan_inputs", 0));
  const int n = static_cast<int>(ops.onnx.size()) - m;
  const int outputs = static_cast<int>(c.outputs.size());
  if (m < 1 || n < 0 || outputs < n || static_cast<int>(body->outputs().size()) != outputs) {
    return KernelError(c, "its inputs, outputs and body do not match");
  }
  for (const Tensor* t : ops.onnx) {
    if (t == nullptr) return KernelError(c, "an input is absent");
  }
  const int k_out = outputs - n;
  const std::vector<int64_t> in_axes = a.Ints("scan_input_axes").value_or(std::vector<int64_t>(m));
  const std::vector<int64_t> in_dirs =
      a.Ints("scan_input_directions").value_or(std::vector<int64_t>(m));
  const std::vector<int64_t> out_axes =
      a.Ints("scan_output_axes").value_or(std::vector<int64_t>(k_out));
  const std::vector<int64_t> out_dirs =
      a.Ints("scan_output_directions").value_or(std::vector<int64_t>(k_out));
  if (static_cast<int>(in_axes.size()) != m || static_cast<int>(in_dirs.size()) != m ||
      static_cast<int>(out_axes.size()) != k_out || static_cast<int>(out_dirs.size()) != k_out) {
    return KernelError(c, "a scan axes or directions attribute has the wrong length");
  }
  std::vector<int> axes(m);
  int64_t len = -1;
  for (int j = 0; j < m; ++j) {
    const Tensor& t = *ops.onnx[n + j];
    EGRET_ASSIGN_OR_RETURN(axes[j], Axis(c, in_axes[j], t.type().rank()));
    const int64_t l = t.type().dims[axes[j]];
    if (len >= 0 && l != len) return KernelError(c, "the scan inputs have different lengths");
    len = l;
  }
  std::vector<Tensor> state;
  for (int k = 0; k < n; ++k) state.push_back(*ops.onnx[k]);
  std::vector<std::vector<Tensor>> rows(k_out);
  for (int64_t s = 0; s < len; ++s) {
    std::vector<Tensor> formal;
    for (Tensor& t : state) formal.push_back(std::move(t));
    state.clear();
    for (int j = 0; j < m; ++j) {
      formal.push_back(Slice(*ops.onnx[n + j], axes[j], in_dirs[j] == 1 ? len - 1 - s : s));
    }
    EGRET_ASSIGN_OR_RETURN(std::vector<Tensor> outs,
                           RunBody(c, *body, std::move(formal), ops.captured));
    for (int k = 0; k < n; ++k) state.push_back(std::move(outs[k]));
    for (int j = 0; j < k_out; ++j) rows[j].push_back(std::move(outs[n + j]));
  }
  std::vector<Tensor> result;
  for (int k = 0; k < n; ++k) {
    EGRET_ASSIGN_OR_RETURN(Tensor t, Declared(c, k, std::move(state[k])));
    result.push_back(std::move(t));
  }
  for (int j = 0; j < k_out; ++j) {
    const TensorType& part = body->TypeOf(body->outputs()[n + j].value);
    EGRET_ASSIGN_OR_RETURN(int axis, Axis(c, out_axes[j], part.rank() + 1));
    for (const Tensor& r : rows[j]) {
      if (r.type().dims != part.dims) {
        return KernelError(c, absl::StrFormat("scan output %d changes shape between steps", j));
      }
    }
    EGRET_ASSIGN_OR_RETURN(Tensor t,
                           Declared(c, n + j, Stack(part, rows[j], axis, out_dirs[j] == 1)));
    result.push_back(std::move(t));
  }
  return result;
}

}  // namespace

void RegisterOnnxControlFlowKernels(KernelTable& t) {
  t.emplace("onnx.If", If);
  t.emplace("onnx.Loop", Loop);
  t.emplace("onnx.Scan", Scan);
}

}  // namespace egret::backend_internal
