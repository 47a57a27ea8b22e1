// ONNX import: walks the model's nodes in topological order and maps each onto
// egret ops (docs/onnx-import.md), tracking for every ONNX tensor where it
// lives in the egret graph and in which layout.
#include "egret/onnx/onnx_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/graph/shape_inference.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/support/file_io.h"
#include "egret/support/status_macros.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace egret {
namespace {

using onnx_internal::DTypeFromOnnx;
using onnx_internal::MakeType;
using onnx_internal::OnnxFromDType;
using onnx_internal::ReshapeTensor;
using onnx_internal::SplatTensor;
using onnx_internal::TensorFromProto;
using onnx_internal::TensorInts;
using onnx_internal::TensorToProto;
using onnx_internal::TransposeTensor;

enum Layout : int { kPlain = 0, kNhwc = 1 };

// Transpose perms between the layouts, and where NCHW dim d sits in NHWC.
constexpr int kToNhwc[4] = {0, 2, 3, 1};
constexpr int kToNchw[4] = {0, 3, 1, 2};
constexpr int kPos[4] = {0, 3, 1, 2};

constexpr size_t kMaxFoldElements = 1 << 16;    // integer shape math folded at import
constexpr int64_t kMaxInferInitializer = 4096;  // constants passed to ONNX shape inference

// Not an error: the handler cannot map this node, which becomes opaque.
absl::Status Unmapped(std::string_view why) {
  return absl::FailedPreconditionError(std::string(why));
}
bool IsUnmapped(const absl::Status& s) { return s.code() == absl::StatusCode::kFailedPrecondition; }

std::string DimsStr(const Dims& d) { return absl::StrCat("[", absl::StrJoin(d, ","), "]"); }

int64_t Product(const Dims& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) p *= d[i];
  return p;
}

// A rank-0 type. (Built field by field: moving an empty Dims into the
// TensorType constructor trips a GCC false "uninitialized" warning.)
TensorType ScalarType(DType dt) {
  TensorType t;
  t.dtype = dt;
  return t;
}

int64_t ClampI32(int64_t v) {
  return std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                             std::numeric_limits<int32_t>::max());
}

// What the importer knows about one ONNX tensor.
struct Value {
  TensorType type;                                 // in ONNX layout
  ConstTensorPtr constant;                         // known data (ONNX layout), else null
  bool splat = false;                              // constant whose elements are all equal
  Layout native = kPlain;                          // the layout of the node that computes it
  ValueRef ref[2] = {{kNoNode, 0}, {kNoNode, 0}};  // per layout, when built
};

bool IsNhwcActivation(const Value& v) {
  return !v.constant && v.native == kNhwc && v.type.rank() == 4;
}

class Importer {
 public:
  Importer(std::string file, const onnx::ModelProto& model, const OnnxImportOptions& options)
      : file_(std::move(file)), model_(model), options_(options) {}

  absl::StatusOr<Graph> Run();

  // A default-domain ONNX op type has a handler (it is not opaque by name).
  static bool HasHandler(std::string_view op_type) {
    return Handlers().contains(std::string(op_type));
  }

 private:
  using Handler = absl::Status (Importer::*)();

  // ---- errors
  absl::Status FileError(absl::StatusCode code, std::string_view msg) const {
    return absl::Status(code, absl::StrFormat("%s: error: %s", file_, msg));
  }
  std::string NodeLabel(const onnx::NodeProto& n, int index) const {
    return n.name().empty() ? absl::StrCat("#", index) : absl::StrCat("'", n.name(), "'");
  }

  // ---- the current node
  bool Has(int i) const { return i < cur_->input_size() && !cur_->input(i).empty(); }
  const std::string& InName(int i) const { return cur_->input(i); }
  Value& In(int i) { return values_.at(cur_->input(i)); }
  const std::string& Out(int k = 0) const { return cur_->output(k); }
  // Output k exists and a node or the graph's outputs read it.
  bool OutputUsed(int k) const {
    return k < cur_->output_size() && !cur_->output(k).empty() &&
           consumed_.contains(cur_->output(k));
  }
  const onnx::AttributeProto* Attr(std::string_view name) const {
    for (const auto& a : cur_->attribute()) {
      if (a.name() == name) return &a;
    }
    return nullptr;
  }
  int64_t AttrInt(std::string_view name, int64_t def) const {
    const auto* a = Attr(name);
    return a ? a->i() : def;
  }
  double AttrFloat(std::string_view name, double def) const {
    const auto* a = Attr(name);
    return a ? a->f() : def;
  }
  std::string AttrStr(std::string_view name, std::string def) const {
    const auto* a = Attr(name);
    return a ? a->s() : def;
  }
  std::optional<std::vector<int64_t>> AttrInts(std::string_view name) const {
    const auto* a = Attr(name);
    if (!a) return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }
  std::optional<std::vector<double>> AttrFloats(std::string_view name) const {
    const auto* a = Attr(name);
    if (!a) return std::nullopt;
    return std::vector<double>(a->floats().begin(), a->floats().end());
  }
  // The integer values of constant input i, or Unmapped when it is not constant.
  absl::StatusOr<std::vector<int64_t>> ConstInts(int i, std::string_view what) {
    if (!Has(i)) return absl::InvalidArgumentError(absl::StrCat(std::string(what), " is missing"));
    Value& v = In(i);
    if (!v.constant) return Unmapped(absl::StrCat(std::string(what), " is not a constant"));
    return TensorInts(*v.constant);
  }
  absl::StatusOr<std::vector<double>> ConstFloats(int i, std::string_view what) {
    Value& v = In(i);
    if (!v.constant) return Unmapped(absl::StrCat(std::string(what), " is not a constant"));
    std::vector<double> out(static_cast<size_t>(v.constant->num_elements()));
    for (size_t k = 0; k < out.size(); ++k) out[k] = v.constant->GetReal(static_cast<int64_t>(k));
    return out;
  }

  // ---- graph building
  std::string Unique(std::string base) {
    if (base.empty()) return base;
    if (!base.empty() && base[0] == '\x01') base.erase(0, 1);
    std::string name = base;
    for (int k = 1; used_names_.contains(name); ++k) name = absl::StrCat(base, ".", k);
    used_names_.insert(name);
    return name;
  }
  absl::StatusOr<NodeId> EmitNode(std::string op, std::vector<ValueRef> inputs, std::string name,
                                  std::vector<TensorType> declared = {}) {
    std::vector<OperandInfo> ops(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Node& p = g_.node(inputs[i].node);
      ops[i].type = &g_.TypeOf(inputs[i]);
      if (IsConstantOp(p.op)) ops[i].value = p.constant.get();
      ops[i].is_shape = p.op == kShapeOp;
    }
    InferOptions io;
    io.declared = declared;
    EGRET_ASSIGN_OR_RETURN(auto types, InferOutputTypes(op, ops, io));
    Node n;
    n.op = std::move(op);
    n.name = Unique(std::move(name));
    n.inputs.assign(inputs.begin(), inputs.end());
    n.outputs.assign(types.begin(), types.end());
    return g_.AddNode(std::move(n));
  }
  absl::StatusOr<ValueRef> Emit(std::string op, std::vector<ValueRef> inputs, std::string name,
                                std::vector<TensorType> declared = {}) {
    EGRET_ASSIGN_OR_RETURN(
        auto id, EmitNode(std::move(op), std::move(inputs), std::move(name), std::move(declared)));
    return ValueRef{id, 0};
  }
  ValueRef ConstNode(ConstTensorPtr t, std::string name) {
    return ValueRef{g_.AddConstant(Unique(std::move(name)), std::move(t)), 0};
  }
  ValueRef Cached(const std::string& key, const std::function<NodeId()>& make) {
    auto it = param_cache_.find(key);
    if (it != param_cache_.end()) return it->second;
    ValueRef r{make(), 0};
    param_cache_.emplace(key, r);
    return r;
  }
  // A "$Shape" parameter (values must be >= 0).
  ValueRef ShapeParam(absl::Span<const int64_t> v) {
    return Cached(absl::StrCat("S", absl::StrJoin(v, ",")), [&] {
      Node n;
      n.op = std::string(kShapeOp);
      n.outputs.push_back(TensorType(DType::kInt32, Dims(v.begin(), v.end())));
      return g_.AddNode(std::move(n));
    });
  }
  ValueRef IntsConst(absl::Span<const int64_t> v) {
    return Cached(absl::StrCat("I", absl::StrJoin(v, ",")), [&] {
      std::vector<double> d;
      for (int64_t x : v) d.push_back(static_cast<double>(ClampI32(x)));
      Tensor t = Tensor::FromValues(TensorType(DType::kInt32, {static_cast<int64_t>(v.size())}), d);
      return g_.AddConstant("", std::make_shared<const Tensor>(std::move(t)));
    });
  }
  ValueRef IntConst(int64_t v) {
    return Cached(absl::StrCat("i", v), [&] {
      double d = static_cast<double>(ClampI32(v));
      Tensor t = Tensor::FromValues(ScalarType(DType::kInt32), {&d, 1});
      return g_.AddConstant("", std::make_shared<const Tensor>(std::move(t)));
    });
  }
  ValueRef FloatConst(double v) {
    return Cached(absl::StrFormat("f%.17g", v), [&] {
      Tensor t = Tensor::FromValues(ScalarType(DType::kFloat32), {&v, 1});
      return g_.AddConstant("", std::make_shared<const Tensor>(std::move(t)));
    });
  }

  // ---- values
  // The egret value of ONNX tensor `name` in `want` layout (only rank-4
  // tensors have an NHWC form), building a Transpose or constant on first use.
  absl::StatusOr<ValueRef> Get(const std::string& name, Layout want) {
    Value& v = values_.at(name);
    if (v.type.rank() != 4) want = kPlain;
    if (v.ref[want].node != kNoNode) return v.ref[want];
    if (v.constant) {
      ConstTensorPtr data = v.constant;
      if (want == kNhwc) {
        TensorType t = v.type;
        for (int i = 0; i < 4; ++i) t.dims[i] = v.type.dims[kToNhwc[i]];
        data = std::make_shared<const Tensor>(v.splat ? SplatTensor(*v.constant, t)
                                                      : TransposeTensor(*v.constant, kToNhwc));
      }
      v.ref[want] = ConstNode(std::move(data), want == kNhwc ? name + "/nhwc" : name);
      return v.ref[want];
    }
    ValueRef src = v.ref[v.native];
    const int* perm = want == kNhwc ? kToNhwc : kToNchw;
    EGRET_ASSIGN_OR_RETURN(
        auto t, Emit("Transpose",
                     {src, ShapeParam(std::vector<int64_t>{perm[0], perm[1], perm[2], perm[3]})},
                     name + (want == kNhwc ? "/nhwc" : "/nchw")));
    v.ref[want] = t;
    return t;
  }
  absl::StatusOr<ValueRef> Native(const std::string& name) {
    const Value& v = values_.at(name);
    return Get(name, v.constant ? kPlain : v.native);
  }
  Layout NativeLayout(const std::string& name) {
    const Value& v = values_.at(name);
    return v.constant || v.type.rank() != 4 ? kPlain : v.native;
  }
  void SetValue(const std::string& name, ValueRef ref, Layout layout) {
    Value v;
    v.type = g_.TypeOf(ref);
    if (v.type.rank() != 4) layout = kPlain;
    if (layout == kNhwc) {
      const Dims d = v.type.dims;
      for (int i = 0; i < 4; ++i) v.type.dims[i] = d[kPos[i]];
    }
    v.native = layout;
    v.ref[layout] = ref;
    values_[name] = std::move(v);
  }
  void SetConst(const std::string& name, Tensor t, bool splat = false) {
    Value v;
    v.type = t.type();
    v.constant = std::make_shared<const Tensor>(std::move(t));
    v.splat = splat;
    values_[name] = std::move(v);
  }
  // A 2-D constant transposed (cheaply when it is a splat).
  static ConstTensorPtr Transposed2d(const Value& v) {
    TensorType t = v.type;
    std::swap(t.dims[0], t.dims[1]);
    return std::make_shared<const Tensor>(
        v.splat ? SplatTensor(*v.constant, t)
                : TransposeTensor(*v.constant, std::vector<int>{1, 0}));
  }
  void Alias(const std::string& out, const std::string& in) { values_[out] = values_.at(in); }
  std::string Temp(const std::string& base, std::string_view suffix) {
    return absl::StrCat("\x01", base, "/", std::string(suffix));
  }

  // ---- shared lowering steps
  absl::StatusOr<ValueRef> BroadcastNhwc(const std::string& name);
  absl::Status Binary(std::string_view op, const std::string& a, const std::string& b,
                      const std::string& out);
  absl::Status Unary(std::string_view op, const std::string& in, const std::string& out,
                     std::vector<ValueRef> params = {});
  absl::Status ReshapeTo(const std::string& in, const Dims& dims, const std::string& out);
  absl::Status SliceTo(const std::string& in, std::vector<int64_t> begin, std::vector<int64_t> end,
                       std::vector<int64_t> stride, const std::string& out);
  bool FoldIntBinary(std::string_view op, const Value& a, const Value& b, const std::string& out);
  absl::StatusOr<std::vector<int64_t>> ConvPads(const Dims& in_hw, const std::vector<int64_t>& k,
                                                const std::vector<int64_t>& s,
                                                const std::vector<int64_t>& d);

  // ---- handlers (one per ONNX op, for the current node)
  absl::Status DoBinary();
  absl::Status DoVariadic();
  absl::Status DoUnary();
  absl::Status DoIdentity();
  absl::Status DoClip();
  absl::Status DoLeakyRelu();
  absl::Status DoHardSigmoid();
  absl::Status DoSoftmax();
  absl::Status DoLrn();
  absl::Status DoConv();
  absl::Status DoConvTranspose();
  absl::Status DoPool();
  absl::Status DoBatchNorm();
  absl::Status DoGemm();
  absl::Status DoMatMul();
  absl::Status DoReshape();
  absl::Status DoTranspose();
  absl::Status DoConcat();
  absl::Status DoSlice();
  absl::Status DoSplit();
  absl::Status DoPad();
  absl::Status DoCast();
  absl::Status DoGather();
  absl::Status DoShape();
  absl::Status DoConstant();
  absl::Status DoConstantOfShape();
  absl::Status DoResize();
  absl::Status DoReduce();
  absl::Status DoOpaque(std::string_view reason);
  std::vector<std::optional<TensorType>> InferOnnxOutputTypes();

  static const absl::flat_hash_map<std::string, Handler>& Handlers();

  absl::Status ReadInputs();
  absl::StatusOr<std::vector<int>> SortNodes();
  absl::StatusOr<TensorType> TypeFromValueInfo(const onnx::TypeProto& t, std::string_view what,
                                               bool allow_symbolic);

  std::string file_;
  const onnx::ModelProto& model_;
  OnnxImportOptions options_;
  int opset_ = 1;
  Graph g_;
  std::unordered_map<std::string, Value> values_;
  absl::flat_hash_set<std::string> used_names_;
  absl::flat_hash_map<std::string, ValueRef> param_cache_;
  absl::flat_hash_map<std::string, const onnx::TypeProto*> declared_types_;
  absl::flat_hash_set<std::string> consumed_;  // tensors some node or graph output reads
  const onnx::NodeProto* cur_ = nullptr;
};

// ---------------------------------------------------------------------------
// Shared lowering steps.

// A rank <= 4 operand broadcast against a 4-D NHWC result: rank-4 operands in
// NHWC; lower ranks first padded with leading 1s (numpy alignment), then moved.
absl::StatusOr<ValueRef> Importer::BroadcastNhwc(const std::string& name) {
  Value& v = values_.at(name);
  if (v.type.rank() == 4) return Get(name, kNhwc);
  Dims d4(4 - v.type.rank(), 1);
  d4.insert(d4.end(), v.type.dims.begin(), v.type.dims.end());
  if (v.constant) {
    Tensor t = TransposeTensor(ReshapeTensor(*v.constant, d4), kToNhwc);
    return ConstNode(std::make_shared<const Tensor>(std::move(t)), name + "/nhwc");
  }
  EGRET_ASSIGN_OR_RETURN(auto plain, Get(name, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Reshape", {plain, ShapeParam(d4)}, name + "/4d"));
  return Emit("Transpose", {r, ShapeParam({0, 2, 3, 1})}, name + "/nhwc");
}

bool Importer::FoldIntBinary(std::string_view op, const Value& a, const Value& b,
                             const std::string& out) {
  if (!a.constant || !b.constant) return false;
  DType dt = a.type.dtype;
  if ((dt != DType::kInt64 && dt != DType::kInt32) || b.type.dtype != dt) return false;
  absl::StatusOr<Dims> dims = BroadcastDims(a.type.dims, b.type.dims);
  if (!dims.ok()) return false;
  TensorType type(dt, *dims);
  if (static_cast<size_t>(type.num_elements()) > kMaxFoldElements) return false;
  std::vector<int64_t> av = TensorInts(*a.constant), bv = TensorInts(*b.constant);
  const int rank = type.rank();
  auto index = [&](const Dims& d, int64_t flat) {
    int64_t idx = 0, stride = 1;
    for (int i = rank - 1, j = static_cast<int>(d.size()) - 1; i >= 0; --i, --j) {
      int64_t c = flat % (*dims)[i];
      flat /= (*dims)[i];
      if (j >= 0) {
        if (d[j] != 1) idx += c * stride;
        stride *= d[j];
      }
    }
    return idx;
  };
  std::vector<uint8_t> bytes(static_cast<size_t>(type.byte_size()));
  for (int64_t k = 0; k < type.num_elements(); ++k) {
    int64_t x = av[index(a.type.dims, k)], y = bv[index(b.type.dims, k)], r;
    if (op == "Add") {
      r = x + y;
    } else if (op == "Sub") {
      r = x - y;
    } else if (op == "Mul") {
      r = x * y;
    } else if (op == "Div") {
      if (y == 0) return false;
      r = x / y;
    } else if (op == "Max") {
      r = std::max(x, y);
    } else if (op == "Min") {
      r = std::min(x, y);
    } else {
      return false;
    }
    if (dt == DType::kInt64) {
      std::memcpy(&bytes[k * 8], &r, 8);
    } else {
      int32_t r32 = static_cast<int32_t>(r);
      std::memcpy(&bytes[k * 4], &r32, 4);
    }
  }
  SetConst(out, *Tensor::FromBytes(type, std::move(bytes)));
  return true;
}

absl::Status Importer::Binary(std::string_view op, const std::string& a, const std::string& b,
                              const std::string& out) {
  static const absl::flat_hash_map<std::string, std::string> kOps = {
      {"Add", "ElementWiseAdd"},    {"Sub", "ElementWiseSubtract"}, {"Mul", "ElementWiseMultiply"},
      {"Div", "ElementWiseDivide"}, {"Max", "ElementWiseMaximum"},  {"Min", "ElementWiseMinimum"},
      {"Pow", "ElementWisePower"}};
  const Value& va = values_.at(a);
  const Value& vb = values_.at(b);
  if (FoldIntBinary(op, va, vb, out)) return absl::OkStatus();
  const std::string& eop = kOps.at(std::string(op));
  const int rank = std::max(va.type.rank(), vb.type.rank());
  if (rank == 4 && (IsNhwcActivation(va) || IsNhwcActivation(vb))) {
    EGRET_ASSIGN_OR_RETURN(auto ra, BroadcastNhwc(a));
    EGRET_ASSIGN_OR_RETURN(auto rb, BroadcastNhwc(b));
    EGRET_ASSIGN_OR_RETURN(auto r, Emit(eop, {ra, rb}, out));
    SetValue(out, r, kNhwc);
    return absl::OkStatus();
  }
  EGRET_ASSIGN_OR_RETURN(auto ra, Get(a, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto rb, Get(b, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(eop, {ra, rb}, out));
  SetValue(out, r, kPlain);
  return absl::OkStatus();
}

absl::Status Importer::Unary(std::string_view op, const std::string& in, const std::string& out,
                             std::vector<ValueRef> params) {
  Layout l = NativeLayout(in);
  EGRET_ASSIGN_OR_RETURN(auto x, Get(in, l));
  params.insert(params.begin(), x);
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(std::string(op), std::move(params), out));
  SetValue(out, r, l);
  return absl::OkStatus();
}

absl::Status Importer::ReshapeTo(const std::string& in, const Dims& dims, const std::string& out) {
  Value& v = values_.at(in);
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("bad output dims ", DimsStr(dims)));
    n *= d;
  }
  if (n != v.type.num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot reshape %s to %s", DimsStr(v.type.dims), DimsStr(dims)));
  }
  if (static_cast<int>(dims.size()) > kMaxRank) {
    return Unmapped(absl::StrFormat("result rank %d exceeds %d", dims.size(), kMaxRank));
  }
  if (v.constant) {
    SetConst(out, ReshapeTensor(*v.constant, dims), v.splat);
    return absl::OkStatus();
  }
  if (dims == v.type.dims) {
    Alias(out, in);
    return absl::OkStatus();
  }
  // NHWC and NCHW list the elements in the same order when the channel or
  // both spatial dims are 1: then the NHWC value can be reshaped directly.
  Layout l = kPlain;
  if (IsNhwcActivation(v)) {
    const Dims& d = v.type.dims;
    if (d[1] == 1 || (d[2] == 1 && d[3] == 1)) l = kNhwc;
  }
  EGRET_ASSIGN_OR_RETURN(auto x, Get(in, l));
  EGRET_ASSIGN_OR_RETURN(
      auto r,
      Emit("Reshape", {x, ShapeParam(std::vector<int64_t>(dims.begin(), dims.end()))}, out));
  SetValue(out, r, kPlain);
  return absl::OkStatus();
}

absl::Status Importer::SliceTo(const std::string& in, std::vector<int64_t> begin,
                               std::vector<int64_t> end, std::vector<int64_t> stride,
                               const std::string& out) {
  Value& v = values_.at(in);
  const int rank = v.type.rank();
  if (v.constant && rank == 1) {
    int64_t first, count;
    if (!NormalizeStridedRange(v.type.dims[0], begin[0], end[0], stride[0], &first, &count)) {
      return absl::InvalidArgumentError("slice step must not be 0");
    }
    std::vector<int64_t> src = TensorInts(*v.constant);
    (void)src;
    const size_t es = static_cast<size_t>(ElementSize(v.type.dtype));
    std::vector<uint8_t> bytes;
    for (int64_t k = 0; k < count; ++k) {
      const uint8_t* p = v.constant->bytes().data() + (first + k * stride[0]) * es;
      bytes.insert(bytes.end(), p, p + es);
    }
    SetConst(out, *Tensor::FromBytes(TensorType(v.type.dtype, {count}), std::move(bytes)));
    return absl::OkStatus();
  }
  Layout l = NativeLayout(in);
  for (int64_t& b : begin) b = ClampI32(b);
  for (int64_t& e : end) e = ClampI32(e);
  if (l == kNhwc) {
    std::vector<int64_t> b2(4), e2(4), s2(4);
    for (int j = 0; j < 4; ++j) {
      b2[j] = begin[kToNhwc[j]];
      e2[j] = end[kToNhwc[j]];
      s2[j] = stride[kToNhwc[j]];
    }
    begin = b2, end = e2, stride = s2;
  }
  EGRET_ASSIGN_OR_RETURN(auto x, Get(in, l));
  EGRET_ASSIGN_OR_RETURN(
      auto r, Emit("StridedSlice", {x, IntsConst(begin), IntsConst(end), IntsConst(stride)}, out));
  SetValue(out, r, l);
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Elementwise ops.

absl::Status Importer::DoBinary() {
  if (cur_->op_type() == "Div" && IsQuantized(In(0).type.dtype)) {
    // 8/16-bit ONNX integers are quantized types in egret, whose division rounds.
    return Unmapped("division of 8/16-bit integers");
  }
  if (AttrInt("broadcast", 0) != 0 && Attr("axis") != nullptr) {
    return Unmapped("legacy broadcast with an axis");
  }
  return Binary(cur_->op_type(), InName(0), InName(1), Out());
}

// Sum, Max, Min, Mean: a left-to-right chain of binary ops.
absl::Status Importer::DoVariadic() {
  const std::string& t = cur_->op_type();
  std::string op = t == "Sum" || t == "Mean" ? "Add" : t;
  const int n = cur_->input_size();
  if (n == 0) return absl::InvalidArgumentError("has no inputs");
  const bool mean = t == "Mean";
  if (n == 1 && !mean) {
    Alias(Out(), InName(0));
    return absl::OkStatus();
  }
  std::string acc = InName(0);
  for (int i = 1; i < n; ++i) {
    std::string dst = i + 1 == n && !mean ? Out() : Temp(Out(), absl::StrCat(op, i));
    EGRET_RETURN_IF_ERROR(Binary(op, acc, InName(i), dst));
    acc = dst;
  }
  if (mean) {
    std::string k = Temp(Out(), "count");
    double d = n;
    SetConst(k, Tensor::FromValues(ScalarType(values_.at(acc).type.dtype), {&d, 1}));
    EGRET_RETURN_IF_ERROR(Binary("Div", acc, k, Out()));
  }
  return absl::OkStatus();
}

absl::Status Importer::DoUnary() {
  static const absl::flat_hash_map<std::string, std::string> kOps = {
      {"Relu", "Relu"}, {"Sigmoid", "Sigmoid"},
      {"Tanh", "Tanh"}, {"Erf", "Erf"},
      {"Sqrt", "Sqrt"}, {"Exp", "Exp"},
      {"Log", "Log"},   {"Neg", "Neg"},
      {"Abs", "Abs"},   {"HardSwish", "HardSwish"}};
  return Unary(kOps.at(cur_->op_type()), InName(0), Out());
}

absl::Status Importer::DoIdentity() {
  if (cur_->op_type() == "Dropout") {
    if (OutputUsed(1)) return Unmapped("the mask output is used");
    if (Has(2)) {
      EGRET_ASSIGN_OR_RETURN(auto training, ConstInts(2, "training_mode"));
      if (!training.empty() && training[0] != 0) return Unmapped("training mode");
    }
  }
  Alias(Out(), InName(0));
  return absl::OkStatus();
}

absl::Status Importer::DoClip() {
  double lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
  bool has_lo = false, has_hi = false;
  if (opset_ < 11) {
    has_lo = Attr("min") != nullptr;
    has_hi = Attr("max") != nullptr;
    lo = AttrFloat("min", lo);
    hi = AttrFloat("max", hi);
  } else {
    if (Has(1)) {
      EGRET_ASSIGN_OR_RETURN(auto v, ConstFloats(1, "min"));
      if (v.size() != 1) return absl::InvalidArgumentError("min must be a scalar");
      lo = v[0], has_lo = true;
    }
    if (Has(2)) {
      EGRET_ASSIGN_OR_RETURN(auto v, ConstFloats(2, "max"));
      if (v.size() != 1) return absl::InvalidArgumentError("max must be a scalar");
      hi = v[0], has_hi = true;
    }
  }
  if (has_lo && lo == 0 && !has_hi) return Unary("Relu", InName(0), Out());
  if (!has_lo && !has_hi) {
    Alias(Out(), InName(0));
    return absl::OkStatus();
  }
  if (lo > hi) return Unmapped("min > max");
  return Unary("ReluMinMax", InName(0), Out(), {FloatConst(lo), FloatConst(hi)});
}

// LeakyRelu(x) = max(x, alpha * x) for alpha <= 1.
absl::Status Importer::DoLeakyRelu() {
  double alpha = AttrFloat("alpha", 0.01);
  if (alpha > 1) return Unmapped("alpha > 1");
  std::string k = Temp(Out(), "alpha");
  SetConst(k, Tensor::FromValues(ScalarType(In(0).type.dtype), {&alpha, 1}));
  std::string scaled = Temp(Out(), "scaled");
  EGRET_RETURN_IF_ERROR(Binary("Mul", InName(0), k, scaled));
  return Binary("Max", InName(0), scaled, Out());
}

absl::Status Importer::DoHardSigmoid() {
  return Unary("HardSigmoid", InName(0), Out(),
               {FloatConst(AttrFloat("alpha", 0.2)), FloatConst(AttrFloat("beta", 0.5))});
}

absl::Status Importer::DoLrn() {
  if (In(0).type.rank() != 4 || !options_.nhwc) return Unmapped("LRN needs a 4-D NHWC input");
  const int64_t size = AttrInt("size", 0);
  if (size < 1) return absl::InvalidArgumentError("size must be a positive integer");
  EGRET_ASSIGN_OR_RETURN(auto x, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(
      auto r, Emit("LRN",
                   {x, IntConst(size), FloatConst(AttrFloat("alpha", 1e-4)),
                    FloatConst(AttrFloat("beta", 0.75)), FloatConst(AttrFloat("bias", 1.0))},
                   Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoSoftmax() {
  const bool log = cur_->op_type() == "LogSoftmax";
  const int rank = In(0).type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis,
                         NormalizeAxis(AttrInt("axis", opset_ >= 13 ? -1 : 1), rank, "axis"));
  const std::string soft = log ? Temp(Out(), "softmax") : Out();
  if (opset_ >= 13 || axis == rank - 1) {
    Layout l = NativeLayout(InName(0));
    int eaxis = l == kNhwc ? kPos[axis] : axis;
    EGRET_RETURN_IF_ERROR(Unary("Softmax", InName(0), soft, {IntConst(eaxis)}));
  } else {
    // Before opset 13, softmax runs over all dims from axis on, flattened.
    const Dims& d = In(0).type.dims;
    Dims flat = {Product(d, 0, axis), Product(d, axis, rank)};
    std::string in2 = Temp(Out(), "2d"), out2 = Temp(Out(), "softmax2d");
    Dims orig = d;
    EGRET_RETURN_IF_ERROR(ReshapeTo(InName(0), flat, in2));
    EGRET_RETURN_IF_ERROR(Unary("Softmax", in2, out2, {IntConst(1)}));
    EGRET_RETURN_IF_ERROR(ReshapeTo(out2, orig, soft));
  }
  if (log) return Unary("Log", soft, Out());
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Convolution, pooling, normalization, matrix products.

// Pads [top, bottom, left, right] from the node's pads/auto_pad attributes.
absl::StatusOr<std::vector<int64_t>> Importer::ConvPads(const Dims& in_hw,
                                                        const std::vector<int64_t>& k,
                                                        const std::vector<int64_t>& s,
                                                        const std::vector<int64_t>& d) {
  std::string auto_pad = AttrStr("auto_pad", "NOTSET");
  std::vector<int64_t> pads(4, 0);
  if (auto_pad == "NOTSET") {
    auto p = AttrInts("pads").value_or(std::vector<int64_t>(4, 0));
    if (p.size() != 4) return absl::InvalidArgumentError("pads must have 4 values");
    for (int64_t v : p) {
      if (v < 0) return Unmapped("negative pads");
    }
    return std::vector<int64_t>{p[0], p[2], p[1], p[3]};
  }
  if (auto_pad == "VALID") return pads;
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    return absl::InvalidArgumentError(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
  }
  for (int i = 0; i < 2; ++i) {
    int64_t out = (in_hw[i] + s[i] - 1) / s[i];
    int64_t total = std::max<int64_t>(0, (out - 1) * s[i] + (k[i] - 1) * d[i] + 1 - in_hw[i]);
    int64_t small = total / 2, big = total - small;
    pads[2 * i] = auto_pad == "SAME_UPPER" ? small : big;
    pads[2 * i + 1] = auto_pad == "SAME_UPPER" ? big : small;
  }
  return pads;
}

absl::Status Importer::DoConv() {
  if (!options_.nhwc) return Unmapped("Conv needs the NHWC layout");
  const Value& x = In(0);
  const Value& w = In(1);
  if (x.type.rank() != 4) return Unmapped("only 2-D convolution is mapped");
  if (w.type.rank() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("weight must be 4-D, got ", DimsStr(w.type.dims)));
  }
  const int64_t g = AttrInt("group", 1);
  const int64_t cin = x.type.dims[1], cout = w.type.dims[0];
  if (g <= 0 || w.type.dims[1] * g != cin || cout % g != 0) {
    return absl::InvalidArgumentError(absl::StrFormat("weight %s and group %d do not fit input %s",
                                                      DimsStr(w.type.dims), g,
                                                      DimsStr(x.type.dims)));
  }
  std::vector<int64_t> k = {w.type.dims[2], w.type.dims[3]};
  std::vector<int64_t> s = AttrInts("strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> d = AttrInts("dilations").value_or(std::vector<int64_t>{1, 1});
  if (s.size() != 2 || d.size() != 2)
    return absl::InvalidArgumentError("strides/dilations need 2 values");
  EGRET_ASSIGN_OR_RETURN(auto pads, ConvPads({x.type.dims[2], x.type.dims[3]}, k, s, d));
  // Filter [cout, cin/g, kh, kw] -> [kh, kw, cin/g, cout].
  ValueRef filter;
  if (w.constant) {
    TensorType ft = w.type;
    ft.dims = {k[0], k[1], w.type.dims[1], cout};
    filter = ConstNode(std::make_shared<const Tensor>(
                           w.splat ? SplatTensor(*w.constant, ft)
                                   : TransposeTensor(*w.constant, std::vector<int>{2, 3, 1, 0})),
                       InName(1) + "/hwio");
  } else {
    EGRET_ASSIGN_OR_RETURN(auto wr, Get(InName(1), kPlain));
    EGRET_ASSIGN_OR_RETURN(auto t,
                           Emit("Transpose", {wr, ShapeParam({2, 3, 1, 0})}, InName(1) + "/hwio"));
    filter = t;
  }
  ValueRef bias;
  if (Has(2)) {
    EGRET_ASSIGN_OR_RETURN(auto b, Get(InName(2), kPlain));
    bias = b;
  } else {
    bias = ConstNode(std::make_shared<const Tensor>(TensorType(x.type.dtype, {cout})),
                     Out() + "/bias");
  }
  const bool depthwise = g > 1 && g == cin && w.type.dims[1] == 1;
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(depthwise ? "DepthWiseConv2d" : "Conv2d",
                                      {xin, filter, bias, ShapeParam({1, s[0], s[1], 1}),
                                       ShapeParam(pads), ShapeParam({1, d[0], d[1], 1})},
                                      Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoConvTranspose() {
  if (!options_.nhwc) return Unmapped("ConvTranspose needs the NHWC layout");
  const Value& x = In(0);
  const Value& w = In(1);
  if (x.type.rank() != 4) return Unmapped("only 2-D transposed convolution is mapped");
  if (!w.constant) return Unmapped("the weight is not a constant");
  if (w.type.rank() != 4) return absl::InvalidArgumentError("weight must be 4-D");
  const int64_t g = AttrInt("group", 1);
  const int64_t cin = x.type.dims[1];
  if (g <= 0 || w.type.dims[0] != cin || cin % g != 0) {
    return absl::InvalidArgumentError(absl::StrFormat("weight %s and group %d do not fit input %s",
                                                      DimsStr(w.type.dims), g,
                                                      DimsStr(x.type.dims)));
  }
  const int64_t cg = w.type.dims[1], cout = cg * g, ing = cin / g;
  const int64_t kh = w.type.dims[2], kw = w.type.dims[3];
  std::vector<int64_t> s = AttrInts("strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> d = AttrInts("dilations").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> op = AttrInts("output_padding").value_or(std::vector<int64_t>{0, 0});
  if (s.size() != 2 || d.size() != 2 || op.size() != 2) {
    return absl::InvalidArgumentError("strides/dilations/output_padding need 2 values");
  }
  std::vector<int64_t> k = {kh, kw};
  std::vector<int64_t> pads(4, 0);
  std::string auto_pad = AttrStr("auto_pad", "NOTSET");
  auto out_shape = AttrInts("output_shape");
  if (out_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    std::vector<int64_t> want(2);
    for (int i = 0; i < 2; ++i) {
      if (out_shape) {
        if (out_shape->size() < 2) return absl::InvalidArgumentError("bad output_shape");
        want[i] = (*out_shape)[out_shape->size() - 2 + i];
      } else {
        want[i] = x.type.dims[2 + i] * s[i];
      }
      int64_t total = s[i] * (x.type.dims[2 + i] - 1) + op[i] + (k[i] - 1) * d[i] + 1 - want[i];
      if (total < 0) {
        op[i] -= total;
        total = 0;
      }
      int64_t small = total / 2, big = total - small;
      const bool upper = auto_pad == "SAME_UPPER";
      pads[2 * i] = upper ? small : big;
      pads[2 * i + 1] = upper ? big : small;
    }
  } else if (auto_pad == "NOTSET") {
    auto p = AttrInts("pads").value_or(std::vector<int64_t>(4, 0));
    if (p.size() != 4) return absl::InvalidArgumentError("pads must have 4 values");
    pads = {p[0], p[2], p[1], p[3]};
  }
  for (int64_t v : pads) {
    if (v < 0) return Unmapped("negative pads");
  }
  // filter[ky,kx,k,gi*cg+j] = W[gi*ing+k, j, ky, kx]
  TensorType ft = w.type;
  ft.dims = {kh, kw, ing, cout};
  std::vector<uint8_t> bytes(static_cast<size_t>(ft.byte_size()));
  const size_t es = static_cast<size_t>(ElementSize(ft.dtype));
  const uint8_t* src = w.constant->bytes().data();
  for (int64_t gi = 0; gi < g; ++gi) {
    for (int64_t kk = 0; kk < ing; ++kk) {
      for (int64_t j = 0; j < cg; ++j) {
        for (int64_t ky = 0; ky < kh; ++ky) {
          for (int64_t kx = 0; kx < kw; ++kx) {
            int64_t from = (((gi * ing + kk) * cg + j) * kh + ky) * kw + kx;
            int64_t to = ((ky * kw + kx) * ing + kk) * cout + gi * cg + j;
            std::memcpy(&bytes[to * es], src + from * es, es);
          }
        }
      }
    }
  }
  ValueRef filter =
      ConstNode(std::make_shared<const Tensor>(*Tensor::FromBytes(ft, bytes)), InName(1) + "/hwio");
  ValueRef bias;
  if (Has(2)) {
    EGRET_ASSIGN_OR_RETURN(auto b, Get(InName(2), kPlain));
    bias = b;
  } else {
    bias = ConstNode(std::make_shared<const Tensor>(TensorType(x.type.dtype, {cout})),
                     Out() + "/bias");
  }
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(auto r,
                         Emit("TransposeConv2d",
                              {xin, filter, bias, ShapeParam({1, s[0], s[1], 1}), ShapeParam(pads),
                               ShapeParam({1, d[0], d[1], 1}), ShapeParam({0, op[0], op[1], 0})},
                              Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoPool() {
  if (!options_.nhwc) return Unmapped("pools need the NHWC layout");
  const std::string& t = cur_->op_type();
  const Value& x = In(0);
  if (x.type.rank() != 4) return Unmapped("only 2-D pooling is mapped");
  const bool max = t == "MaxPool" || t == "GlobalMaxPool";
  const bool global = t.rfind("Global", 0) == 0;
  const int64_t h = x.type.dims[2], w = x.type.dims[3];
  std::vector<int64_t> k, s, pads;
  int64_t count_pad = 0;
  if (global) {
    k = {h, w};
    s = {1, 1};
    pads = {0, 0, 0, 0};
  } else {
    if (OutputUsed(1)) return Unmapped("the indices output is used");
    auto ks = AttrInts("kernel_shape");
    if (!ks || ks->size() != 2) return Unmapped("kernel_shape is not 2-D");
    k = *ks;
    s = AttrInts("strides").value_or(std::vector<int64_t>{1, 1});
    auto dil = AttrInts("dilations").value_or(std::vector<int64_t>{1, 1});
    if (dil != std::vector<int64_t>{1, 1}) return Unmapped("dilated pooling");
    if (s.size() != 2) return absl::InvalidArgumentError("strides need 2 values");
    EGRET_ASSIGN_OR_RETURN(auto p, ConvPads({h, w}, k, s, {1, 1}));
    pads = p;
    count_pad = AttrInt("count_include_pad", 0);
    if (AttrInt("ceil_mode", 0) != 0) {
      const int64_t in[2] = {h, w};
      for (int i = 0; i < 2; ++i) {
        int64_t padded = in[i] + pads[2 * i] + pads[2 * i + 1];
        int64_t out = (padded - k[i] + s[i] - 1) / s[i] + 1;
        int64_t extra = (out - 1) * s[i] + k[i] - padded;
        if (extra > 0) {
          if (count_pad) return Unmapped("ceil_mode with count_include_pad");
          pads[2 * i + 1] += extra;
        }
      }
    }
    for (int i = 0; i < 4; ++i) {
      if (pads[i] >= k[i / 2]) return Unmapped("pads as large as the window");
    }
  }
  std::vector<ValueRef> params = {ShapeParam({1, k[0], k[1], 1}), ShapeParam({1, s[0], s[1], 1}),
                                  ShapeParam(pads)};
  if (!max) params.push_back(IntConst(count_pad));
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  params.insert(params.begin(), xin);
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(max ? "PoolMax2d" : "PoolAvg2d", params, Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoBatchNorm() {
  for (int k = 1; k < cur_->output_size(); ++k) {
    if (OutputUsed(k)) return Unmapped("training outputs are used");
  }
  if (AttrInt("training_mode", 0) != 0) return Unmapped("training mode");
  const Value& x = In(0);
  const int rank = x.type.rank();
  if (rank < 2) return absl::InvalidArgumentError("input must have rank >= 2");
  const int64_t c = x.type.dims[1];
  std::vector<double> p[4];
  const char* names[4] = {"scale", "bias", "mean", "var"};
  for (int i = 0; i < 4; ++i) {
    EGRET_ASSIGN_OR_RETURN(auto v, ConstFloats(i + 1, names[i]));
    if (static_cast<int64_t>(v.size()) != c) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s has %d values, the input has %d channels", names[i], v.size(), c));
    }
    p[i] = std::move(v);
  }
  const double eps = AttrFloat("epsilon", 1e-5);
  std::vector<double> scale(c), offset(c);
  for (int64_t i = 0; i < c; ++i) {
    scale[i] = p[0][i] / std::sqrt(p[3][i] + eps);
    offset[i] = p[1][i] - p[2][i] * scale[i];
  }
  const DType dt = x.type.dtype;
  const bool channel_last = rank == 2 || (rank == 4 && options_.nhwc);
  if (channel_last) {
    ValueRef sc =
        ConstNode(std::make_shared<const Tensor>(Tensor::FromValues(TensorType(dt, {c}), scale)),
                  Out() + "/scale");
    ValueRef of =
        ConstNode(std::make_shared<const Tensor>(Tensor::FromValues(TensorType(dt, {c}), offset)),
                  Out() + "/offset");
    EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), rank == 4 ? kNhwc : kPlain));
    EGRET_ASSIGN_OR_RETURN(auto r, Emit("Batchnorm", {xin, sc, of}, Out()));
    SetValue(Out(), r, rank == 4 ? kNhwc : kPlain);
    return absl::OkStatus();
  }
  // Channel not last: x * scale + offset with [c, 1, ...] constants.
  Dims cd(rank - 1, 1);
  cd[0] = c;
  std::string ks = Temp(Out(), "scale"), ko = Temp(Out(), "offset"), mul = Temp(Out(), "mul");
  SetConst(ks, Tensor::FromValues(TensorType(dt, cd), scale));
  SetConst(ko, Tensor::FromValues(TensorType(dt, cd), offset));
  EGRET_RETURN_IF_ERROR(Binary("Mul", InName(0), ks, mul));
  return Binary("Add", mul, ko, Out());
}

absl::Status Importer::DoGemm() {
  const Value& a = In(0);
  const Value& b = In(1);
  if (a.type.rank() != 2 || b.type.rank() != 2) {
    return absl::InvalidArgumentError("A and B must be 2-D");
  }
  const bool ta = AttrInt("transA", 0) != 0, tb = AttrInt("transB", 0) != 0;
  const double alpha = AttrFloat("alpha", 1.0), beta = AttrFloat("beta", 1.0);
  const int64_t n = tb ? b.type.dims[0] : b.type.dims[1];
  std::string a_name = InName(0);
  if (ta) {
    a_name = Temp(Out(), "At");
    if (a.constant) {
      SetConst(a_name, TransposeTensor(*a.constant, std::vector<int>{1, 0}));
    } else {
      EGRET_ASSIGN_OR_RETURN(auto ar, Get(InName(0), kPlain));
      EGRET_ASSIGN_OR_RETURN(auto t, Emit("Transpose", {ar, ShapeParam({1, 0})}, a_name));
      SetValue(a_name, t, kPlain);
    }
  }
  // weights [n, k]
  ValueRef weights;
  bool alpha_done = alpha == 1.0;
  if (b.constant) {
    ConstTensorPtr wt = b.constant;
    if (!tb) wt = Transposed2d(b);
    if (!alpha_done) {
      Tensor scaled = *wt;
      for (int64_t i = 0; i < scaled.num_elements(); ++i) {
        scaled.SetReal(i, scaled.GetReal(i) * alpha);
      }
      wt = std::make_shared<const Tensor>(std::move(scaled));
      alpha_done = true;
    }
    if (tb && wt == b.constant) {
      EGRET_ASSIGN_OR_RETURN(auto br, Get(InName(1), kPlain));
      weights = br;
    } else {
      weights = ConstNode(std::move(wt), InName(1) + "/t");
    }
  } else {
    EGRET_ASSIGN_OR_RETURN(auto br, Get(InName(1), kPlain));
    if (tb) {
      weights = br;
    } else {
      EGRET_ASSIGN_OR_RETURN(auto t, Emit("Transpose", {br, ShapeParam({1, 0})}, InName(1) + "/t"));
      weights = t;
    }
  }
  if (!alpha_done) {
    std::string k = Temp(Out(), "alpha"), scaled = Temp(Out(), "Ascaled");
    SetConst(k, Tensor::FromValues(ScalarType(a.type.dtype), {&alpha, 1}));
    EGRET_RETURN_IF_ERROR(Binary("Mul", a_name, k, scaled));
    a_name = scaled;
  }
  EGRET_ASSIGN_OR_RETURN(auto ain, Get(a_name, kPlain));
  std::vector<ValueRef> ins = {ain, weights};
  std::string add_c;  // a C added after the FullyConnected
  if (Has(2) && beta != 0) {
    const Value& c = In(2);
    if (c.constant && (c.type.num_elements() == n || c.type.num_elements() == 1) &&
        (c.type.rank() <= 1 || (c.type.rank() == 2 && c.type.dims[0] == 1))) {
      std::vector<double> bias(n);
      for (int64_t i = 0; i < n; ++i) {
        bias[i] = beta * c.constant->GetReal(c.type.num_elements() == 1 ? 0 : i);
      }
      ins.push_back(ConstNode(
          std::make_shared<const Tensor>(Tensor::FromValues(TensorType(c.type.dtype, {n}), bias)),
          InName(2) + "/bias"));
    } else if (beta == 1.0) {
      add_c = InName(2);
    } else {
      add_c = Temp(Out(), "betaC");
      std::string k = Temp(Out(), "beta");
      SetConst(k, Tensor::FromValues(ScalarType(c.type.dtype), {&beta, 1}));
      EGRET_RETURN_IF_ERROR(Binary("Mul", InName(2), k, add_c));
    }
  }
  std::string fc = add_c.empty() ? Out() : Temp(Out(), "fc");
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("FullyConnected", ins, fc));
  SetValue(fc, r, kPlain);
  if (!add_c.empty()) return Binary("Add", fc, add_c, Out());
  return absl::OkStatus();
}

absl::Status Importer::DoMatMul() {
  const Value& a = In(0);
  const Value& b = In(1);
  const int ra = a.type.rank(), rb = b.type.rank();
  if (ra == 0 || rb == 0) return absl::InvalidArgumentError("operands must have rank >= 1");
  if (b.constant && rb == 2 && !(a.constant && ra == 1)) {
    // x @ B == FullyConnected(x, B^T).
    ValueRef weights = ConstNode(Transposed2d(b), InName(1) + "/t");
    EGRET_ASSIGN_OR_RETURN(auto ain, Get(InName(0), kPlain));
    EGRET_ASSIGN_OR_RETURN(auto r, Emit("FullyConnected", {ain, weights}, Out()));
    SetValue(Out(), r, kPlain);
    return absl::OkStatus();
  }
  std::string an = InName(0), bn = InName(1);
  Dims out_dims;
  if (ra == 1) {
    an = Temp(Out(), "a2d");
    EGRET_RETURN_IF_ERROR(ReshapeTo(InName(0), {1, a.type.dims[0]}, an));
  }
  if (rb == 1) {
    bn = Temp(Out(), "b2d");
    EGRET_RETURN_IF_ERROR(ReshapeTo(InName(1), {b.type.dims[0], 1}, bn));
  }
  EGRET_ASSIGN_OR_RETURN(auto ar, Get(an, kPlain));
  EGRET_ASSIGN_OR_RETURN(auto br, Get(bn, kPlain));
  if (ra > 1 && rb > 1) {
    EGRET_ASSIGN_OR_RETURN(auto r, Emit("MatMul", {ar, br}, Out()));
    SetValue(Out(), r, kPlain);
    return absl::OkStatus();
  }
  std::string mm = Temp(Out(), "matmul");
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("MatMul", {ar, br}, mm));
  SetValue(mm, r, kPlain);
  Dims d = g_.TypeOf(r).dims;
  if (ra == 1) d.erase(d.end() - 2);
  if (rb == 1) d.erase(d.end() - 1);
  return ReshapeTo(mm, d, Out());
}

// ---------------------------------------------------------------------------
// Data movement.

absl::Status Importer::DoReshape() {
  const std::string& t = cur_->op_type();
  const Value& x = In(0);
  const Dims& in = x.type.dims;
  const int rank = x.type.rank();
  Dims out;
  if (t == "Reshape") {
    std::vector<int64_t> shape;
    if (opset_ < 5) {
      shape = AttrInts("shape").value_or(std::vector<int64_t>{});
    } else {
      EGRET_ASSIGN_OR_RETURN(auto s, ConstInts(1, "shape"));
      shape = std::move(s);
    }
    const bool allow_zero = AttrInt("allowzero", 0) != 0;
    int infer = -1;
    int64_t known = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t s = shape[i];
      if (s == 0 && !allow_zero) {
        if (static_cast<int>(i) >= rank) {
          return absl::InvalidArgumentError("shape copies a dim the input lacks");
        }
        s = in[i];
      } else if (s == -1) {
        if (infer >= 0) return absl::InvalidArgumentError("shape has more than one -1");
        infer = static_cast<int>(i);
        s = 1;
      } else if (s < 0) {
        return absl::InvalidArgumentError(absl::StrCat("shape has a negative size ", s));
      }
      out.push_back(s);
      known *= s;
    }
    if (infer >= 0) {
      if (known == 0 || x.type.num_elements() % known != 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("cannot reshape %s to [%s]", DimsStr(in), absl::StrJoin(shape, ",")));
      }
      out[infer] = x.type.num_elements() / known;
    }
  } else if (t == "Flatten") {
    int64_t axis = AttrInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) return absl::InvalidArgumentError("axis out of range");
    out = {Product(in, 0, axis), Product(in, axis, rank)};
  } else if (t == "Squeeze") {
    std::optional<std::vector<int64_t>> axes;
    if (opset_ < 13) {
      axes = AttrInts("axes");
    } else if (Has(1)) {
      EGRET_ASSIGN_OR_RETURN(auto a, ConstInts(1, "axes"));
      axes = std::move(a);
    }
    std::vector<bool> drop(rank, false);
    if (!axes) {
      for (int i = 0; i < rank; ++i) drop[i] = in[i] == 1;
    } else {
      for (int64_t a : *axes) {
        EGRET_ASSIGN_OR_RETURN(auto ax, NormalizeAxis(a, rank, "axis"));
        if (in[ax] != 1) return absl::InvalidArgumentError("squeezes a dim that is not 1");
        drop[ax] = true;
      }
    }
    for (int i = 0; i < rank; ++i) {
      if (!drop[i]) out.push_back(in[i]);
    }
  } else {  // Unsqueeze
    std::vector<int64_t> axes;
    if (opset_ < 13) {
      axes = AttrInts("axes").value_or(std::vector<int64_t>{});
    } else {
      EGRET_ASSIGN_OR_RETURN(auto a, ConstInts(1, "axes"));
      axes = std::move(a);
    }
    const int out_rank = rank + static_cast<int>(axes.size());
    std::vector<bool> one(out_rank, false);
    for (int64_t a : axes) {
      EGRET_ASSIGN_OR_RETURN(auto ax, NormalizeAxis(a, out_rank, "axis"));
      if (one[ax]) return absl::InvalidArgumentError("repeated axis");
      one[ax] = true;
    }
    for (int i = 0, j = 0; i < out_rank; ++i) out.push_back(one[i] ? 1 : in[j++]);
  }
  return ReshapeTo(InName(0), out, Out());
}

absl::Status Importer::DoTranspose() {
  Value& x = In(0);
  const int rank = x.type.rank();
  std::vector<int64_t> perm;
  if (auto p = AttrInts("perm")) {
    perm = *p;
  } else {
    for (int i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  std::vector<bool> seen(rank, false);
  if (static_cast<int>(perm.size()) != rank) return absl::InvalidArgumentError("bad perm");
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) return absl::InvalidArgumentError("bad perm");
    seen[p] = true;
  }
  if (x.constant) {
    std::vector<int> pi(perm.begin(), perm.end());
    SetConst(Out(), TransposeTensor(*x.constant, pi));
    return absl::OkStatus();
  }
  auto identity = [](const std::vector<int64_t>& q) {
    for (size_t i = 0; i < q.size(); ++i) {
      if (q[i] != static_cast<int64_t>(i)) return false;
    }
    return true;
  };
  Layout in_layout = NativeLayout(InName(0));
  std::vector<int64_t> q = perm;  // perm applied to the native layout, plain result
  if (in_layout == kNhwc) {
    for (int i = 0; i < 4; ++i) q[i] = kPos[perm[i]];
  }
  Layout out_layout = kPlain;
  if (rank == 4 && options_.nhwc && !identity(q)) {
    // The result in NHWC: out_nhwc[j] = out[kToNhwc[j]].
    std::vector<int64_t> q2(4);
    for (int j = 0; j < 4; ++j) q2[j] = q[kToNhwc[j]];
    if (identity(q2) || in_layout == kNhwc) {
      q = q2;
      out_layout = kNhwc;
    }
  }
  if (identity(q)) {
    EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), in_layout));
    Value v;
    v.type = x.type;
    for (int i = 0; i < rank; ++i) v.type.dims[i] = x.type.dims[perm[i]];
    v.native = out_layout;
    v.ref[out_layout] = xin;
    values_[Out()] = std::move(v);
    return absl::OkStatus();
  }
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), in_layout));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Transpose", {xin, ShapeParam(q)}, Out()));
  SetValue(Out(), r, out_layout);
  return absl::OkStatus();
}

absl::Status Importer::DoConcat() {
  const int n = cur_->input_size();
  if (n == 0) return absl::InvalidArgumentError("has no inputs");
  const int rank = In(0).type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis,
                         NormalizeAxis(AttrInt("axis", opset_ < 4 ? 1 : 0), rank, "axis"));
  bool all_const = true, any_nhwc = false;
  for (int i = 0; i < n; ++i) {
    all_const = all_const && In(i).constant != nullptr;
    any_nhwc = any_nhwc || IsNhwcActivation(In(i));
    if (In(i).type.rank() != rank) return absl::InvalidArgumentError("inputs differ in rank");
  }
  if (n == 1) {
    Alias(Out(), InName(0));
    return absl::OkStatus();
  }
  if (all_const && In(0).type.num_elements() <= static_cast<int64_t>(kMaxFoldElements)) {
    TensorType t = In(0).type;
    t.dims[axis] = 0;
    for (int i = 0; i < n; ++i) {
      if (In(i).type.dtype != t.dtype) return absl::InvalidArgumentError("inputs differ in type");
      t.dims[axis] += In(i).type.dims[axis];
    }
    const int64_t outer = Product(t.dims, 0, axis);
    const size_t es = static_cast<size_t>(ElementSize(t.dtype));
    std::vector<uint8_t> bytes;
    bytes.reserve(static_cast<size_t>(t.byte_size()));
    for (int64_t o = 0; o < outer; ++o) {
      for (int i = 0; i < n; ++i) {
        const Tensor& c = *In(i).constant;
        size_t chunk = static_cast<size_t>(Product(c.type().dims, axis, rank)) * es;
        const uint8_t* p = c.bytes().data() + o * chunk;
        bytes.insert(bytes.end(), p, p + chunk);
      }
    }
    absl::StatusOr<Tensor> folded = Tensor::FromBytes(t, std::move(bytes));
    if (!folded.ok()) return absl::InvalidArgumentError("inputs do not fit together");
    SetConst(Out(), *std::move(folded));
    return absl::OkStatus();
  }
  const Layout l = rank == 4 && any_nhwc ? kNhwc : kPlain;
  std::vector<ValueRef> ins = {IntConst(l == kNhwc ? kPos[axis] : axis)};
  for (int i = 0; i < n; ++i) {
    EGRET_ASSIGN_OR_RETURN(auto r, Get(InName(i), l));
    ins.push_back(r);
  }
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Concat", ins, Out()));
  SetValue(Out(), r, l);
  return absl::OkStatus();
}

absl::Status Importer::DoSlice() {
  const Value& x = In(0);
  const int rank = x.type.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset_ < 10) {
    starts = AttrInts("starts").value_or(std::vector<int64_t>{});
    ends = AttrInts("ends").value_or(std::vector<int64_t>{});
    axes = AttrInts("axes").value_or(std::vector<int64_t>{});
  } else {
    EGRET_ASSIGN_OR_RETURN(auto s, ConstInts(1, "starts"));
    EGRET_ASSIGN_OR_RETURN(auto e, ConstInts(2, "ends"));
    starts = s, ends = e;
    if (Has(3)) {
      EGRET_ASSIGN_OR_RETURN(auto a, ConstInts(3, "axes"));
      axes = a;
    }
    if (Has(4)) {
      EGRET_ASSIGN_OR_RETURN(auto st, ConstInts(4, "steps"));
      steps = st;
    }
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    return absl::InvalidArgumentError("starts, ends, axes and steps differ in length");
  }
  std::vector<int64_t> begin(rank, 0), end(rank, std::numeric_limits<int64_t>::max()),
      stride(rank, 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    EGRET_ASSIGN_OR_RETURN(auto ax, NormalizeAxis(axes[i], rank, "axis"));
    if (steps[i] == 0) return absl::InvalidArgumentError("step 0");
    begin[ax] = starts[i];
    end[ax] = ends[i];
    stride[ax] = steps[i];
  }
  return SliceTo(InName(0), begin, end, stride, Out());
}

absl::Status Importer::DoSplit() {
  const Value& x = In(0);
  const int rank = x.type.rank();
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(AttrInt("axis", 0), rank, "axis"));
  std::vector<int64_t> sizes;
  if (opset_ < 13) {
    sizes = AttrInts("split").value_or(std::vector<int64_t>{});
  } else if (Has(1)) {
    EGRET_ASSIGN_OR_RETURN(auto s, ConstInts(1, "split"));
    sizes = s;
  }
  const int n = cur_->output_size();
  if (sizes.empty()) {
    const int64_t d = x.type.dims[axis];
    if (n == 0 || d % n != 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("dim %d (%d) does not split into %d equal parts", axis, d, n));
    }
    sizes.assign(n, d / n);
  }
  if (static_cast<int>(sizes.size()) != n) {
    return absl::InvalidArgumentError("split sizes and outputs differ in number");
  }
  Layout l = NativeLayout(InName(0));
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), l));
  std::string name;
  for (int k = 0; k < n && name.empty(); ++k) name = Out(k);
  EGRET_ASSIGN_OR_RETURN(
      auto id,
      EmitNode("Split", {xin, IntConst(l == kNhwc ? kPos[axis] : axis), ShapeParam(sizes)}, name));
  for (int k = 0; k < n; ++k) {
    if (OutputUsed(k)) SetValue(Out(k), ValueRef{id, static_cast<uint32_t>(k)}, l);
  }
  return absl::OkStatus();
}

absl::Status Importer::DoPad() {
  const Value& x = In(0);
  const int rank = x.type.rank();
  std::vector<int64_t> pads;
  double value = 0;
  std::string mode = AttrStr("mode", "constant");
  if (opset_ < 11) {
    pads = AttrInts(opset_ < 2 ? "paddings" : "pads").value_or(std::vector<int64_t>{});
    value = AttrFloat("value", 0);
  } else {
    EGRET_ASSIGN_OR_RETURN(auto p, ConstInts(1, "pads"));
    pads = p;
    if (Has(2)) {
      EGRET_ASSIGN_OR_RETURN(auto v, ConstFloats(2, "constant_value"));
      if (v.size() != 1) return absl::InvalidArgumentError("constant_value must be a scalar");
      value = v[0];
    }
    if (Has(3)) return Unmapped("axes input");
  }
  if (static_cast<int>(pads.size()) != 2 * rank) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pads has %d values, input rank %d needs %d", pads.size(), rank, 2 * rank));
  }
  for (int64_t p : pads) {
    if (p < 0) return Unmapped("negative pads (cropping)");
  }
  int64_t m;
  if (mode == "constant") {
    m = 0;
  } else if (mode == "reflect") {
    m = 2;
  } else if (mode == "edge") {
    m = 3;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "'"));
  }
  Layout l = NativeLayout(InName(0));
  std::vector<int64_t> ep(2 * rank);
  for (int j = 0; j < rank; ++j) {
    int d = l == kNhwc ? kToNhwc[j] : j;
    ep[2 * j] = pads[d];
    ep[2 * j + 1] = pads[rank + d];
  }
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), l));
  std::vector<ValueRef> ins = {xin, ShapeParam(ep), IntConst(m)};
  if (m == 0) ins.push_back(FloatConst(value));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Pad", ins, Out()));
  SetValue(Out(), r, l);
  return absl::OkStatus();
}

absl::Status Importer::DoCast() {
  EGRET_ASSIGN_OR_RETURN(auto dt, DTypeFromOnnx(static_cast<int32_t>(AttrInt("to", 0))));
  const Value& x = In(0);
  if (x.constant) {
    TensorType t(dt, x.type.dims);
    const int64_t n = x.type.num_elements();
    if ((dt == DType::kInt64 || dt == DType::kInt32) &&
        (x.type.dtype == DType::kInt64 || x.type.dtype == DType::kInt32)) {
      std::vector<int64_t> v = TensorInts(*x.constant);
      std::vector<uint8_t> bytes(static_cast<size_t>(t.byte_size()));
      for (int64_t i = 0; i < n; ++i) {
        if (dt == DType::kInt64) {
          std::memcpy(&bytes[i * 8], &v[i], 8);
        } else {
          int32_t w = static_cast<int32_t>(v[i]);
          std::memcpy(&bytes[i * 4], &w, 4);
        }
      }
      SetConst(Out(), *Tensor::FromBytes(t, std::move(bytes)));
      return absl::OkStatus();
    }
    Tensor out(t);
    for (int64_t i = 0; i < n; ++i) {
      double v = x.constant->GetValue(i);
      if (dt == DType::kBool) {
        v = v != 0 ? 1 : 0;
      } else if (!IsFloat(dt) && IsFloat(x.type.dtype)) {
        v = std::trunc(v);
      }
      out.SetValue(i, v);
    }
    SetConst(Out(), std::move(out));
    return absl::OkStatus();
  }
  Layout l = NativeLayout(InName(0));
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), l));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Cast", {xin}, Out(), {ScalarType(dt)}));
  SetValue(Out(), r, l);
  return absl::OkStatus();
}

absl::Status Importer::DoGather() {
  const Value& x = In(0);
  const Value& idx = In(1);
  const int rank = x.type.rank();
  if (rank == 0) return absl::InvalidArgumentError("data must have rank >= 1");
  EGRET_ASSIGN_OR_RETURN(auto axis, NormalizeAxis(AttrInt("axis", 0), rank, "axis"));
  if (!idx.constant) return Unmapped("indices are not constant");
  std::vector<int64_t> ind = TensorInts(*idx.constant);
  const int64_t dim = x.type.dims[axis];
  for (int64_t& i : ind) {
    if (i < -dim || i >= dim) return absl::InvalidArgumentError("index out of range");
    if (i < 0) i += dim;
  }
  Dims out = Dims(x.type.dims.begin(), x.type.dims.begin() + axis);
  out.insert(out.end(), idx.type.dims.begin(), idx.type.dims.end());
  out.insert(out.end(), x.type.dims.begin() + axis + 1, x.type.dims.end());
  if (x.constant && static_cast<size_t>(x.type.num_elements()) <= kMaxFoldElements * 16) {
    const int64_t outer = Product(x.type.dims, 0, axis);
    const size_t es = static_cast<size_t>(ElementSize(x.type.dtype));
    const size_t inner = static_cast<size_t>(Product(x.type.dims, axis + 1, rank)) * es;
    std::vector<uint8_t> bytes;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i : ind) {
        const uint8_t* p = x.constant->bytes().data() + (o * dim + i) * inner;
        bytes.insert(bytes.end(), p, p + inner);
      }
    }
    SetConst(Out(), *Tensor::FromBytes(TensorType(x.type.dtype, out), std::move(bytes)));
    return absl::OkStatus();
  }
  // A run of consecutive indices is a slice.
  for (size_t i = 1; i < ind.size(); ++i) {
    if (ind[i] != ind[0] + static_cast<int64_t>(i)) return Unmapped("indices are not a range");
  }
  if (ind.empty()) return Unmapped("no indices");
  std::vector<int64_t> begin(rank, 0), end(rank, std::numeric_limits<int32_t>::max()),
      stride(rank, 1);
  begin[axis] = ind[0];
  end[axis] = ind[0] + static_cast<int64_t>(ind.size());
  std::string sliced = idx.type.rank() == 1 ? Out() : Temp(Out(), "slice");
  EGRET_RETURN_IF_ERROR(SliceTo(InName(0), begin, end, stride, sliced));
  if (sliced != Out()) return ReshapeTo(sliced, out, Out());
  return absl::OkStatus();
}

absl::Status Importer::DoShape() {
  const Value& x = In(0);
  const std::string& t = cur_->op_type();
  if (t == "Size") {
    int64_t n = x.type.num_elements();
    Tensor s(ScalarType(DType::kInt64));
    std::memcpy(const_cast<uint8_t*>(s.bytes().data()), &n, 8);
    SetConst(Out(), std::move(s));
    return absl::OkStatus();
  }
  const int rank = x.type.rank();
  int64_t start = AttrInt("start", 0), end = AttrInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<uint8_t> bytes;
  for (int64_t i = start; i < end; ++i) {
    int64_t d = x.type.dims[i];
    const uint8_t* p = reinterpret_cast<const uint8_t*>(&d);
    bytes.insert(bytes.end(), p, p + 8);
  }
  SetConst(Out(), *Tensor::FromBytes(TensorType(DType::kInt64, {end - start}), std::move(bytes)));
  return absl::OkStatus();
}

absl::Status Importer::DoConstant() {
  const onnx::AttributeProto* a = nullptr;
  for (const auto& at : cur_->attribute()) a = &at;
  if (a == nullptr) return absl::InvalidArgumentError("has no value attribute");
  const std::string& n = a->name();
  if (n == "value") {
    EGRET_ASSIGN_OR_RETURN(auto t, TensorFromProto(a->t()));
    SetConst(Out(), std::move(t));
  } else if (n == "value_float" || n == "value_floats") {
    std::vector<double> v;
    if (n == "value_float") {
      v.push_back(a->f());
    } else {
      v.assign(a->floats().begin(), a->floats().end());
    }
    Dims d;
    if (n == "value_floats") d.push_back(static_cast<int64_t>(v.size()));
    SetConst(Out(), Tensor::FromValues(TensorType(DType::kFloat32, d), v));
  } else if (n == "value_int" || n == "value_ints") {
    std::vector<int64_t> v;
    if (n == "value_int") {
      v.push_back(a->i());
    } else {
      v.assign(a->ints().begin(), a->ints().end());
    }
    Dims d;
    if (n == "value_ints") d.push_back(static_cast<int64_t>(v.size()));
    std::vector<uint8_t> bytes(v.size() * 8);
    if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
    SetConst(Out(), *Tensor::FromBytes(TensorType(DType::kInt64, d), std::move(bytes)));
  } else {
    return absl::UnimplementedError(absl::StrCat("Constant attribute '", n, "' is not supported"));
  }
  return absl::OkStatus();
}

absl::Status Importer::DoConstantOfShape() {
  EGRET_ASSIGN_OR_RETURN(auto shape, ConstInts(0, "shape"));
  Dims d;
  for (int64_t s : shape) {
    if (s < 0) return absl::InvalidArgumentError("shape has a negative size");
    d.push_back(s);
  }
  if (static_cast<int>(d.size()) > kMaxRank) return Unmapped("rank exceeds 8");
  Tensor value(TensorType(DType::kFloat32, {1}));
  if (const auto* a = Attr("value")) {
    EGRET_ASSIGN_OR_RETURN(auto t, TensorFromProto(a->t()));
    if (t.num_elements() != 1) return absl::InvalidArgumentError("value must have one element");
    value = std::move(t);
  }
  TensorType type(value.type().dtype, d);
  if (type.byte_size() > static_cast<int64_t>(options_.max_file_bytes) * 4) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("constant %s is too large", type.ToString()));
  }
  SetConst(Out(), SplatTensor(value, type), /*splat=*/true);
  return absl::OkStatus();
}

absl::Status Importer::DoResize() {
  if (!options_.nhwc) return Unmapped("Resize needs the NHWC layout");
  const std::string& t = cur_->op_type();
  const Value& x = In(0);
  if (x.type.rank() != 4) return Unmapped("only 4-D resizing is mapped");
  const Dims& in = x.type.dims;
  std::vector<double> scales;
  Dims out;
  std::string transform = "asymmetric", nearest = "floor";
  if (t == "Upsample" && opset_ < 9) {
    scales = AttrFloats("scales").value_or(std::vector<double>{});
  } else if (t == "Upsample" || opset_ < 11) {
    EGRET_ASSIGN_OR_RETURN(auto s, ConstFloats(1, "scales"));
    scales = s;
  } else {
    transform = AttrStr("coordinate_transformation_mode", "half_pixel");
    nearest = AttrStr("nearest_mode", "round_prefer_floor");
    if (Has(3)) {
      EGRET_ASSIGN_OR_RETURN(auto s, ConstInts(3, "sizes"));
      out.assign(s.begin(), s.end());
    } else if (Has(2)) {
      EGRET_ASSIGN_OR_RETURN(auto s, ConstFloats(2, "scales"));
      scales = s;
    }
    if (AttrInt("exclude_outside", 0) != 0) return Unmapped("exclude_outside");
  }
  if (out.empty()) {
    if (scales.size() != 4) return absl::InvalidArgumentError("scales must have 4 values");
    for (int i = 0; i < 4; ++i) {
      out.push_back(static_cast<int64_t>(std::floor(static_cast<double>(in[i]) * scales[i])));
      // egret maps coordinates with out/in: the given scale must be that ratio.
      double ratio = in[i] == 0 ? 1 : static_cast<double>(out[i]) / static_cast<double>(in[i]);
      if (std::fabs(ratio - scales[i]) > 1e-6 * std::max(1.0, scales[i])) {
        return Unmapped("scale is not out/in");
      }
    }
  }
  if (out.size() != 4) return absl::InvalidArgumentError("sizes must have 4 values");
  if (out[0] != in[0] || out[1] != in[1]) return Unmapped("resizes batch or channel");
  std::string mode = AttrStr("mode", "nearest");
  int64_t m;
  if (mode == "nearest") {
    m = 0;
  } else if (mode == "linear" || mode == "bilinear") {
    m = 1;
  } else {
    return Unmapped(absl::StrCat("mode ", mode));
  }
  static const absl::flat_hash_map<std::string, int64_t> kTransform = {
      {"half_pixel", 0}, {"align_corners", 1}, {"asymmetric", 2}, {"pytorch_half_pixel", 3}};
  static const absl::flat_hash_map<std::string, int64_t> kNearest = {
      {"round_prefer_floor", 0}, {"round_prefer_ceil", 1}, {"floor", 2}, {"ceil", 3}};
  auto tr = kTransform.find(transform);
  if (tr == kTransform.end()) return Unmapped(absl::StrCat("coordinate transform ", transform));
  auto nm = kNearest.find(nearest);
  if (nm == kNearest.end()) return absl::InvalidArgumentError("unknown nearest_mode");
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), kNhwc));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit("Resize",
                                      {xin, ShapeParam({out[0], out[2], out[3], out[1]}),
                                       IntConst(m), IntConst(tr->second), IntConst(nm->second)},
                                      Out()));
  SetValue(Out(), r, kNhwc);
  return absl::OkStatus();
}

absl::Status Importer::DoReduce() {
  const std::string& t = cur_->op_type();
  const Value& x = In(0);
  const int rank = x.type.rank();
  const bool keep = AttrInt("keepdims", 1) != 0;
  std::optional<std::vector<int64_t>> axes = AttrInts("axes");
  if (t == "ReduceSum" && opset_ >= 13) {
    axes.reset();
    if (Has(1)) {
      EGRET_ASSIGN_OR_RETURN(auto a, ConstInts(1, "axes"));
      axes = a;
    }
  }
  std::vector<int64_t> ax;
  if (axes && !axes->empty()) {
    for (int64_t a : *axes) {
      EGRET_ASSIGN_OR_RETURN(auto n, NormalizeAxis(a, rank, "axis"));
      ax.push_back(n);
    }
  } else if (AttrInt("noop_with_empty_axes", 0) != 0) {
    Alias(Out(), InName(0));
    return absl::OkStatus();
  } else {
    for (int i = 0; i < rank; ++i) ax.push_back(i);
  }
  std::sort(ax.begin(), ax.end());
  ax.erase(std::unique(ax.begin(), ax.end()), ax.end());
  Layout l = NativeLayout(InName(0));
  std::vector<int64_t> eax = ax;
  if (l == kNhwc) {
    for (int64_t& a : eax) a = kPos[a];
    std::sort(eax.begin(), eax.end());
  }
  const bool direct = keep || l == kPlain;
  std::string dst = direct ? Out() : Temp(Out(), "keep");
  EGRET_ASSIGN_OR_RETURN(auto xin, Get(InName(0), l));
  EGRET_ASSIGN_OR_RETURN(auto r, Emit(t, {xin, ShapeParam(eax), IntConst(direct ? keep : 1)}, dst));
  SetValue(dst, r, l);
  if (direct) return absl::OkStatus();
  Dims out;
  for (int i = 0; i < rank; ++i) {
    if (!std::binary_search(ax.begin(), ax.end(), i)) out.push_back(x.type.dims[i]);
  }
  return ReshapeTo(dst, out, Out());
}

// ---------------------------------------------------------------------------
// Opaque nodes.

TensorType FromOnnxTypeOrUnknown(const onnx::TypeProto& tp, bool* ok) {
  *ok = false;
  if (!tp.has_tensor_type() || !tp.tensor_type().has_shape()) return {};
  absl::StatusOr<DType> dt = DTypeFromOnnx(tp.tensor_type().elem_type());
  if (!dt.ok()) return {};
  Dims d;
  for (const auto& dim : tp.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return {};
    d.push_back(dim.dim_value());
  }
  *ok = true;
  return TensorType(*dt, d);
}

// Runs ONNX's shape inference on a model holding just the current node, with
// its inputs typed as the importer knows them.
std::vector<std::optional<TensorType>> Importer::InferOnnxOutputTypes() {
  std::vector<std::optional<TensorType>> result(cur_->output_size());
  onnx::ModelProto m;
  m.set_ir_version(model_.ir_version() > 0 ? model_.ir_version() : 7);
  *m.mutable_opset_import() = model_.opset_import();
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("node");
  absl::flat_hash_set<std::string> seen;
  for (int i = 0; i < cur_->input_size(); ++i) {
    if (!Has(i) || !seen.insert(InName(i)).second) continue;
    const Value& v = In(i);
    auto et = OnnxFromDType(v.type.dtype);
    if (!et) continue;
    onnx::ValueInfoProto* vi = g->add_input();
    vi->set_name(InName(i));
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(*et);
    auto* shape = tt->mutable_shape();
    for (int64_t d : v.type.dims) shape->add_dim()->set_dim_value(d);
    if (v.constant && v.type.num_elements() <= kMaxInferInitializer) {
      onnx::TensorProto* init = g->add_initializer();
      TensorToProto(*v.constant, init);
      init->set_name(InName(i));
    }
  }
  *g->add_node() = *cur_;
  try {
    onnx::shape_inference::InferShapes(m);
  } catch (const std::exception&) {
    return result;
  }
  for (const auto& vi : g->value_info()) {
    for (int k = 0; k < cur_->output_size(); ++k) {
      if (vi.name() != Out(k) || Out(k).empty()) continue;
      bool ok;
      TensorType t = FromOnnxTypeOrUnknown(vi.type(), &ok);
      if (ok) result[k] = t;
    }
  }
  return result;
}

std::string AttrSummary(const onnx::GraphProto& g) {
  return absl::StrFormat("<graph '%s': %d nodes>", g.name(), g.node_size());
}

absl::Status Importer::DoOpaque(std::string_view reason) {
  const onnx::NodeProto& node = *cur_;
  std::string op = "onnx.";
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    absl::StrAppend(&op, node.domain(), ".");
  absl::StrAppend(&op, node.op_type());
  Node n;
  n.op = op;
  std::vector<int64_t> absent;
  for (int i = 0; i < node.input_size(); ++i) {
    if (!Has(i)) {
      absent.push_back(i);
      continue;
    }
    EGRET_ASSIGN_OR_RETURN(auto r, Get(InName(i), kPlain));
    n.inputs.push_back(r);
  }
  for (const auto& a : node.attribute()) {
    switch (a.type()) {
      case onnx::AttributeProto::INT:
        n.attrs[a.name()] = static_cast<int64_t>(a.i());
        break;
      case onnx::AttributeProto::FLOAT:
        n.attrs[a.name()] = static_cast<double>(a.f());
        break;
      case onnx::AttributeProto::STRING:
        n.attrs[a.name()] = a.s();
        break;
      case onnx::AttributeProto::INTS:
        n.attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end());
        break;
      case onnx::AttributeProto::FLOATS:
        n.attrs[a.name()] = std::vector<double>(a.floats().begin(), a.floats().end());
        break;
      case onnx::AttributeProto::STRINGS:
        n.attrs[a.name()] = absl::StrJoin(a.strings(), ",");
        break;
      case onnx::AttributeProto::GRAPH:
        n.attrs[a.name()] = AttrSummary(a.g());
        break;
      case onnx::AttributeProto::TENSOR:
        n.attrs[a.name()] =
            absl::StrFormat("<tensor %s [%s]>", onnx_internal::OnnxTypeName(a.t().data_type()),
                            absl::StrJoin(a.t().dims(), ","));
        break;
      default:
        n.attrs[a.name()] = std::string("<unsupported attribute>");
    }
  }
  if (!absent.empty()) n.attrs["onnx.absent_inputs"] = absent;
  if (!reason.empty()) n.attrs["onnx.unmapped"] = std::string(reason);
  int last = node.output_size() - 1;
  while (last >= 0 && Out(last).empty()) --last;
  std::vector<std::optional<TensorType>> inferred = InferOnnxOutputTypes();
  for (int k = 0; k <= last; ++k) {
    std::optional<TensorType> t = inferred[k];
    if (!t && !Out(k).empty()) {
      auto it = declared_types_.find(Out(k));
      if (it != declared_types_.end()) {
        bool ok;
        TensorType d = FromOnnxTypeOrUnknown(*it->second, &ok);
        if (ok) t = d;
      }
    }
    if (!t) {
      if (OutputUsed(k)) {
        return absl::UnimplementedError(absl::StrFormat(
            "unmapped op (kept opaque%s%s): the type of output '%s' is unknown (ONNX shape "
            "inference gives none and the model declares no value_info with static dims)",
            reason.empty() ? "" : ": ", reason, Out(k)));
      }
      t = ScalarType(DType::kFloat32);  // an output nothing reads
      t->dims.push_back(0);
      n.attrs["onnx.untyped_outputs"] = static_cast<int64_t>(k);
    }
    n.outputs.push_back(*t);
  }
  if (n.outputs.empty()) return absl::InvalidArgumentError("has no outputs");
  std::string name;
  for (int k = 0; k <= last && name.empty(); ++k) name = Out(k);
  n.name = Unique(name);
  NodeId id = g_.AddNode(std::move(n));
  for (int k = 0; k <= last; ++k) {
    if (OutputUsed(k)) SetValue(Out(k), ValueRef{id, static_cast<uint32_t>(k)}, kPlain);
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Driver.

const absl::flat_hash_map<std::string, Importer::Handler>& Importer::Handlers() {
  static const auto* m = [] {
    auto* h = new absl::flat_hash_map<std::string, Handler>;
    for (auto op : {"Add", "Sub", "Mul", "Div", "Pow"}) (*h)[op] = &Importer::DoBinary;
    for (auto op : {"Sum", "Max", "Min", "Mean"}) (*h)[op] = &Importer::DoVariadic;
    for (auto op :
         {"Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Log", "Neg", "Abs", "HardSwish"}) {
      (*h)[op] = &Importer::DoUnary;
    }
    (*h)["Identity"] = (*h)["Dropout"] = &Importer::DoIdentity;
    (*h)["Clip"] = &Importer::DoClip;
    (*h)["LeakyRelu"] = &Importer::DoLeakyRelu;
    (*h)["HardSigmoid"] = &Importer::DoHardSigmoid;
    (*h)["LRN"] = &Importer::DoLrn;
    (*h)["Softmax"] = (*h)["LogSoftmax"] = &Importer::DoSoftmax;
    (*h)["Conv"] = &Importer::DoConv;
    (*h)["ConvTranspose"] = &Importer::DoConvTranspose;
    for (auto op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}) {
      (*h)[op] = &Importer::DoPool;
    }
    (*h)["BatchNormalization"] = &Importer::DoBatchNorm;
    (*h)["Gemm"] = &Importer::DoGemm;
    (*h)["MatMul"] = &Importer::DoMatMul;
    for (auto op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}) (*h)[op] = &Importer::DoReshape;
    (*h)["Transpose"] = &Importer::DoTranspose;
    (*h)["Concat"] = &Importer::DoConcat;
    (*h)["Slice"] = &Importer::DoSlice;
    (*h)["Split"] = &Importer::DoSplit;
    (*h)["Pad"] = &Importer::DoPad;
    (*h)["Cast"] = &Importer::DoCast;
    (*h)["Gather"] = &Importer::DoGather;
    (*h)["Shape"] = (*h)["Size"] = &Importer::DoShape;
    (*h)["Constant"] = &Importer::DoConstant;
    (*h)["ConstantOfShape"] = &Importer::DoConstantOfShape;
    (*h)["Resize"] = (*h)["Upsample"] = &Importer::DoResize;
    for (auto op : {"ReduceMean", "ReduceSum", "ReduceMax"}) (*h)[op] = &Importer::DoReduce;
    return h;
  }();
  return *m;
}

absl::StatusOr<TensorType> Importer::TypeFromValueInfo(const onnx::TypeProto& tp,
                                                       std::string_view what, bool allow_symbolic) {
  if (!tp.has_tensor_type()) {
    return absl::UnimplementedError(absl::StrCat(std::string(what), " is not a tensor"));
  }
  const auto& tt = tp.tensor_type();
  if (!tt.has_shape())
    return absl::UnimplementedError(absl::StrCat(std::string(what), " has no shape"));
  Dims d;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& dim = tt.shape().dim(i);
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      d.push_back(dim.dim_value());
      continue;
    }
    auto it = options_.dim_params.find(dim.dim_param());
    if (allow_symbolic && dim.has_dim_param() && it != options_.dim_params.end()) {
      d.push_back(it->second);
    } else if (allow_symbolic && options_.default_dim > 0) {
      d.push_back(options_.default_dim);
    } else {
      return absl::UnimplementedError(absl::StrFormat(
          "%s has %s dim %d; give its size (OnnxImportOptions::dim_params / default_dim)", what,
          dim.has_dim_param() ? absl::StrCat("symbolic '", dim.dim_param(), "'") : "an unknown",
          i));
    }
  }
  if (d.size() > static_cast<size_t>(kMaxRank)) {
    return absl::UnimplementedError(absl::StrCat(std::string(what), " has rank above 8"));
  }
  absl::StatusOr<TensorType> t = MakeType(tt.elem_type(), d);
  if (!t.ok())
    return absl::UnimplementedError(absl::StrCat(std::string(what), ": ", t.status().message()));
  return t;
}

absl::Status Importer::ReadInputs() {
  const onnx::GraphProto& graph = model_.graph();
  for (const auto& init : graph.initializer()) {
    if (values_.contains(init.name())) {
      return FileError(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("initializer '", init.name(), "' is defined twice"));
    }
    absl::StatusOr<Tensor> t = TensorFromProto(init);
    if (!t.ok()) {
      return FileError(t.status().code(),
                       absl::StrCat("initializer '", init.name(), "': ", t.status().message()));
    }
    SetConst(init.name(), *std::move(t));
  }
  for (const auto& in : graph.input()) {
    if (values_.contains(in.name())) continue;  // an initializer (IR < 4): a constant
    absl::StatusOr<TensorType> t =
        TypeFromValueInfo(in.type(), absl::StrCat("graph input '", in.name(), "'"), true);
    if (!t.ok()) return FileError(t.status().code(), std::string(t.status().message()));
    if (auto bound = options_.input_values.find(in.name()); bound != options_.input_values.end()) {
      if (bound->second.type() != *t) {
        return FileError(absl::StatusCode::kInvalidArgument,
                         absl::StrFormat("graph input '%s' is %s, its given value %s", in.name(),
                                         t->ToString(), bound->second.type().ToString()));
      }
      SetConst(in.name(), bound->second);
      continue;
    }
    NodeId id = g_.AddInput(Unique(in.name()), *t);
    Value v;
    v.type = *t;
    v.ref[kPlain] = ValueRef{id, 0};
    values_[in.name()] = std::move(v);
  }
  for (const auto& vi : graph.value_info()) declared_types_[vi.name()] = &vi.type();
  for (const auto& vi : graph.output()) {
    declared_types_[vi.name()] = &vi.type();
    consumed_.insert(vi.name());
  }
  for (const auto& node : graph.node()) {
    for (const std::string& in : node.input()) consumed_.insert(in);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> Importer::SortNodes() {
  const onnx::GraphProto& graph = model_.graph();
  const int n = graph.node_size();
  absl::flat_hash_map<std::string, int> producer;
  for (int i = 0; i < n; ++i) {
    for (const std::string& out : graph.node(i).output()) {
      if (out.empty()) continue;
      if (values_.contains(out) || !producer.emplace(out, i).second) {
        return FileError(
            absl::StatusCode::kInvalidArgument,
            absl::StrFormat("node %s (%s): output '%s' is already defined",
                            NodeLabel(graph.node(i), i), graph.node(i).op_type(), out));
      }
    }
  }
  std::vector<std::vector<int>> users(n);
  std::vector<int> pending(n, 0);
  for (int i = 0; i < n; ++i) {
    for (const std::string& in : graph.node(i).input()) {
      if (in.empty() || values_.contains(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        return FileError(absl::StatusCode::kInvalidArgument,
                         absl::StrFormat("node %s (%s): input '%s' is not a graph input, an "
                                         "initializer or any node's output",
                                         NodeLabel(graph.node(i), i), graph.node(i).op_type(), in));
      }
      users[it->second].push_back(i);
      ++pending[i];
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int u : users[i]) {
      if (--pending[u] == 0) ready.push(u);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i) {
      if (pending[i] > 0) {
        return FileError(absl::StatusCode::kInvalidArgument,
                         absl::StrFormat("node %s (%s): is on a cycle", NodeLabel(graph.node(i), i),
                                         graph.node(i).op_type()));
      }
    }
  }
  return order;
}

// Keeps the nodes the outputs depend on (and the graph inputs), in order.
Graph Compact(Graph& g) {
  const size_t n = g.num_nodes();
  std::vector<bool> live(n, false);
  std::vector<NodeId> stack;
  for (const GraphOutput& o : g.outputs()) stack.push_back(o.value.node);
  for (NodeId id : g.inputs()) stack.push_back(id);
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (live[id]) continue;
    live[id] = true;
    for (const ValueRef& in : g.node(id).inputs) stack.push_back(in.node);
  }
  std::vector<NodeId> remap(n, kNoNode);
  Graph out;
  out.set_name(g.name());
  for (NodeId id = 0; id < n; ++id) {
    if (!live[id]) continue;
    Node node = std::move(g.mutable_node(id));
    for (ValueRef& in : node.inputs) in.node = remap[in.node];
    remap[id] = out.AddNode(std::move(node));
  }
  for (NodeId id : g.inputs()) out.mutable_inputs().push_back(remap[id]);
  for (const GraphOutput& o : g.outputs()) {
    out.AddOutput(ValueRef{remap[o.value.node], o.value.output}, o.name);
  }
  out.mutable_options() = g.options();
  return out;
}

absl::StatusOr<Graph> Importer::Run() {
  for (const auto& os : model_.opset_import()) {
    if (os.domain().empty() || os.domain() == "ai.onnx") opset_ = static_cast<int>(os.version());
  }
  if (!model_.has_graph()) {
    return FileError(absl::StatusCode::kInvalidArgument, "the model has no graph");
  }
  g_.set_name(model_.graph().name());
  EGRET_RETURN_IF_ERROR(ReadInputs());
  EGRET_ASSIGN_OR_RETURN(auto order, SortNodes());
  const auto& handlers = Handlers();
  for (int i : order) {
    const onnx::NodeProto& node = model_.graph().node(i);
    cur_ = &node;
    absl::Status s;
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    auto it = default_domain ? handlers.find(node.op_type()) : handlers.end();
    if (it == handlers.end()) {
      s = DoOpaque("");
    } else {
      s = (this->*(it->second))();
      if (IsUnmapped(s)) s = DoOpaque(std::string(s.message()));
    }
    if (s.ok()) {
      for (int k = 0; k < node.output_size(); ++k) {
        if (consumed_.contains(node.output(k)) && !values_.contains(node.output(k))) {
          s = absl::InternalError(absl::StrCat("output '", node.output(k), "' was not produced"));
        }
      }
    }
    if (!s.ok()) {
      absl::StatusCode code = IsUnmapped(s) ? absl::StatusCode::kInvalidArgument : s.code();
      return FileError(code, absl::StrFormat("node %s (%s): %s", NodeLabel(node, i), node.op_type(),
                                             s.message()));
    }
  }
  cur_ = nullptr;
  for (const auto& o : model_.graph().output()) {
    if (!values_.contains(o.name())) {
      return FileError(absl::StatusCode::kInvalidArgument,
                       absl::StrCat("graph output '", o.name(), "' is not produced by any node"));
    }
    absl::StatusOr<ValueRef> r = Get(o.name(), kPlain);
    if (!r.ok()) {
      return FileError(r.status().code(),
                       absl::StrCat("graph output '", o.name(), "': ", r.status().message()));
    }
    g_.AddOutput(*r, o.name());
  }
  Graph out = Compact(g_);
  NodeId culprit = kNoNode;
  if (absl::Status s = out.Validate(&culprit); !s.ok()) {
    return FileError(absl::StatusCode::kInternal,
                     absl::StrCat("internal error: the imported graph is invalid: ", s.message()));
  }
  return out;
}

}  // namespace

bool IsOnnxOpMapped(std::string_view op_type) { return Importer::HasHandler(op_type); }

absl::StatusOr<Graph> ParseOnnx(std::string_view bytes, std::string_view file,
                                const OnnxImportOptions& options) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: error: not a valid ONNX model (protobuf parse failed)", file));
  }
  Importer importer(std::string(file), model, options);
  return importer.Run();
}

absl::StatusOr<Graph> ReadOnnx(const std::string& path, const OnnxImportOptions& options) {
  absl::StatusOr<std::string> bytes = ReadFile(path, options.max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  return ParseOnnx(*bytes, path, options);
}

absl::StatusOr<Tensor> ReadOnnxTensor(const std::string& path, uint64_t max_file_bytes) {
  absl::StatusOr<std::string> bytes = ReadFile(path, max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  onnx::TensorProto proto;
  if (!proto.ParseFromString(*bytes)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: error: not a valid ONNX TensorProto", path));
  }
  absl::StatusOr<Tensor> t = onnx_internal::TensorFromProto(proto);
  if (!t.ok()) {
    return absl::Status(t.status().code(),
                        absl::StrFormat("%s: error: %s", path, t.status().message()));
  }
  return t;
}

}  // namespace egret
