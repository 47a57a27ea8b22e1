// Private to the onnx stage: the importer's state and toolkit, shared by the
// driver (onnx_reader.cc) and the per-family handler files (import_*.cc).
//
// The importer walks the model's nodes in topological order and maps each
// onto egret ops (docs/onnx-import.md), tracking for every ONNX tensor where
// it lives in the egret graph and in which layout. A handler maps the current
// node (Importer::cur_); returning Unmapped(why) keeps the node opaque.
//
// To map a new ONNX op: write its handler in the family file it belongs to
// (or a new import_<family>.cc with a Register<Family>Handlers function
// declared below and called from Handlers() in onnx_reader.cc). A handler is
// `absl::Status (*)(Importer&)`: a free function using this toolkit, or a
// lambda calling an Importer member.
//
// A handler need not fold constants: when all of a node's inputs are
// constants, the driver runs the nodes its handler emitted on the reference
// executor and makes the outputs constants (import_folding.cc). A handler
// returning Unmapped for such a node is folded through the opaque op's ONNX
// kernel, when there is one.
#ifndef EGRET_ONNX_IMPORTER_INTERNAL_H_
#define EGRET_ONNX_IMPORTER_INTERNAL_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <map>
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
#include "egret/graph/checked_math.h"
#include "egret/graph/shape_inference.h"
#include "egret/onnx/onnx_reader.h"
#include "egret/onnx/onnx_tensor_internal.h"
#include "egret/support/file_io.h"
#include "egret/support/status_macros.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"

namespace egret::onnx_import {

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

constexpr int64_t kMaxInferInitializer = 4096;  // constants passed to ONNX shape inference

// Constant folding (import_folding.cc): a node whose inputs are all constants
// is computed at import when each output has at most kFoldElements elements,
// or, larger, when it is no more than kFoldGrowth times the bytes of the
// node's constant inputs (a Cast or Transpose of a weight) and at most
// kFoldMaxBytes: folding must not turn a small constant into a big one
// (Expand, Tile, ConstantOfShape of a huge shape stay nodes).
constexpr int64_t kFoldElements = 1 << 16;
constexpr int64_t kFoldGrowth = 2;
constexpr int64_t kFoldMaxBytes = int64_t{256} << 20;

// LSTM and GRU (import_recurrent.cc) are unrolled over at most this many time
// steps; longer sequences stay opaque.
constexpr int64_t kMaxUnrollSteps = 64;

// Not an error: the handler cannot map this node, which becomes opaque.
inline absl::Status Unmapped(std::string_view why) {
  return absl::FailedPreconditionError(std::string(why));
}
inline bool IsUnmapped(const absl::Status& s) {
  return s.code() == absl::StatusCode::kFailedPrecondition;
}

inline std::string DimsStr(const Dims& d) { return absl::StrCat("[", absl::StrJoin(d, ","), "]"); }

inline int64_t Product(const Dims& d, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) p = SaturatingMul(p, d[i]);
  return p;
}

// A rank-0 type. (Built field by field: moving an empty Dims into the
// TensorType constructor trips a GCC false "uninitialized" warning.)
inline TensorType ScalarType(DType dt) {
  TensorType t;
  t.dtype = dt;
  return t;
}

inline int64_t ClampI32(int64_t v) {
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
  // A DequantizeLinear of a constant (import_quantize.cc): `constant` holds
  // the real values, `quantized` the stored integers with their encoding
  // (ONNX layout). The egret graph reads it as Dequantize(quantized), so that
  // rules see quantized weights.
  ConstTensorPtr quantized;
  // A QuantizeLinear of a computed tensor: the egret Quantize node (layout
  // `native`), whose type carries the encoding. ONNX sees the stored
  // integers, so ref[] holds them in the plain encoding, built on first use
  // (a reinterpreting Cast); DequantizeLinear reads `encoded` directly.
  ValueRef encoded = {kNoNode, 0};
};

inline bool IsNhwcActivation(const Value& v) {
  return !v.constant && v.native == kNhwc && v.type.rank() == 4;
}

class Importer {
 public:
  Importer(std::string file, const onnx::ModelProto& model, const OnnxImportOptions& options)
      : file_(std::move(file)), model_(model), options_(options) {}

  absl::StatusOr<Graph> Run();
  // Lets ReadInputs drop each initializer's data from `model` (the model
  // being imported, owned by the caller) once it holds it as a Tensor: a
  // model of several GB is then not held twice.
  void ConsumeInitializers(onnx::ModelProto* model) { consume_ = model; }

  // The handlers below and the per-family handler files (import_*.cc) use
  // the rest of this class as their toolkit: it is internal to the stage,
  // so everything is public.

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
  // A list of integers as a "$Shape" (its dims are the values), or, when the
  // list is no legal shape (more than kMaxRank values, or a product above
  // kMaxElements: Split's sizes, Pad's pads of a rank-5 tensor), as an Int32
  // constant, which parameters read alike (graph/op_table.h).
  ValueRef ShapeParam(absl::Span<const int64_t> v) {
    if (v.size() > static_cast<size_t>(kMaxRank) || !CheckShape(v).ok()) return IntsConst(v);
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
    if (v.constant && v.quantized) return GetDequantized(name, want);
    if (!v.constant && v.encoded.node != kNoNode && v.ref[v.native].node == kNoNode) {
      EGRET_RETURN_IF_ERROR(BuildPlainFromEncoded(name));
      if (v.ref[want].node != kNoNode) return v.ref[want];
    }
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
  // Get for a constant with `quantized` data: Dequantize of the quantized
  // constant in `want` layout (import_quantize.cc).
  absl::StatusOr<ValueRef> GetDequantized(const std::string& name, Layout want);
  // Dequantize of the quantized data of constant `name` (which must have
  // them) transposed by `perm`, named name + suffix (import_quantize.cc).
  absl::StatusOr<ValueRef> DequantizedWeight(const std::string& name, const std::vector<int>& perm,
                                             std::string_view suffix);
  // Dequantize (to `dtype`), named `name`, of the quantized constant `q`
  // (named name + "/quantized") (import_quantize.cc).
  absl::StatusOr<ValueRef> DequantizeConstant(ConstTensorPtr q, DType dtype,
                                              const std::string& name);
  // For an `encoded` value: its plain-encoding form (import_quantize.cc).
  absl::Status BuildPlainFromEncoded(const std::string& name);
  // Runs the handler of `node`, a node the importer made up (a step of a
  // QLinear op's lowering), as if it were the current node.
  absl::Status RunSynthetic(const onnx::NodeProto& node);
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
  // A temporary value of the current node (Temp(Out(), suffix)) holding the
  // scalar `v` in `dtype`; returns its name.
  std::string ScalarTemp(std::string_view suffix, DType dtype, double v) {
    std::string name = Temp(Out(), suffix);
    SetConst(name, Tensor::FromValues(ScalarType(dtype), {&v, 1}));
    return name;
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
  // `op` is an ONNX arithmetic op (Add, Sub, ...; integer constants are
  // folded) or an egret op name taking two broadcasting operands.
  absl::Status Binary(std::string_view op, const std::string& a, const std::string& b,
                      const std::string& out);
  absl::Status Unary(std::string_view op, const std::string& in, const std::string& out,
                     std::vector<ValueRef> params = {});
  absl::Status ReshapeTo(const std::string& in, const Dims& dims, const std::string& out);
  absl::Status SliceTo(const std::string& in, std::vector<int64_t> begin, std::vector<int64_t> end,
                       std::vector<int64_t> stride, const std::string& out);
  absl::StatusOr<std::vector<int64_t>> ConvPads(const Dims& in_hw, const std::vector<int64_t>& k,
                                                const std::vector<int64_t>& s,
                                                const std::vector<int64_t>& d);

  // ---- handlers (one per ONNX op, for the current node)
  absl::Status DoBinary();
  absl::Status DoVariadic();
  absl::Status DoUnary();
  absl::Status DoIdentity();
  absl::Status DoReciprocal();
  absl::Status DoClip();
  absl::Status DoLeakyRelu();
  absl::Status DoHardSigmoid();
  absl::Status DoSoftmax();
  absl::Status DoLrn();
  absl::Status DoConv();
  absl::Status DoConvTranspose();
  // The bias operand of the current Conv or ConvTranspose, `cout` channels:
  // input 2, else zeros (a dequantized QInt32 when the weights are quantized,
  // so that the quantization rules see a quantized bias).
  absl::StatusOr<ValueRef> ConvBias(int64_t cout);
  absl::StatusOr<ValueRef> GroupedTransposeFilter(const Value& w, int64_t g,
                                                  const std::string& name);
  absl::Status Conv1dAs2d(absl::Status (Importer::*conv2d)());
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
  absl::Status DoDepthToSpace();
  absl::Status DoReduce();
  // Control flow whose bodies are imported (import_control_flow.cc): the
  // graph attributes DoOpaque stores as subgraphs, the captured values it
  // appends to the node's inputs (kCapturedAttr), and the output types it
  // declares (nullopt: typed as any opaque node).
  struct ControlFlow {
    std::map<std::string, GraphPtr, std::less<>> bodies;
    std::vector<ValueRef> captured;
    std::vector<std::optional<TensorType>> types;
    Attributes attrs;  // more attributes of the node (a body kept for run time)
  };
  absl::Status DoOpaque(std::string_view reason, const ControlFlow* cf = nullptr);
  // Whether `node` reads or makes a String tensor (other than as an
  // Identity): such nodes stay opaque, off egret's numeric ops.
  bool TouchesStrings(const onnx::NodeProto& node) const;
  // A node of egret's ONNX domain, egret.htp, as its egret op (import_egret.cc).
  absl::Status DoEgretNode();
  // ONNX's shape inference run on a model holding just the current node, its
  // inputs and what its subgraphs read from outside typed as imported (small
  // constants with their data); nullopt when inference fails.
  std::optional<onnx::ModelProto> InferCurrentNode();
  // The output types InferCurrentNode gives, where static.
  std::vector<std::optional<TensorType>> InferOnnxOutputTypes();

  absl::Status DoIf();
  absl::Status DoLoop();
  absl::Status DoScan();
  // SequenceMap: "onnx.SequenceMap" with its body kept as ONNX for import
  // at run time (backend/runtime_body.h), one import per tuple of element
  // types.
  absl::Status DoSequenceMap();
  absl::Status DoScan8();
  // The names (as the current node's subgraphs spell them) of the values
  // those subgraphs read from enclosing scopes that are not constants: the
  // node's captured inputs, in first-use order.
  std::vector<std::string> CapturedNames();
  // The names `body` reads from enclosing scopes that are not in `listed`
  // (the captured ones), each with its value: they must be constants
  // (kInvalidArgument when no enclosing scope defines one).
  absl::StatusOr<std::vector<std::pair<std::string, const Tensor*>>> FreeConstants(
      const onnx::GraphProto& body, const absl::flat_hash_set<std::string>& listed);
  // Imports subgraph `body` of the current node as a self-contained Graph
  // (a nested importer): its formal inputs typed `formal`, then one input
  // per name of `captured` typed as in this scope; the constants it reads
  // from enclosing scopes become constants of the body.
  absl::StatusOr<GraphPtr> ImportBody(const onnx::GraphProto& body,
                                      const std::vector<TensorType>& formal,
                                      const std::vector<std::string>& captured);
  // ControlFlow::bodies and captured for the current node, with the
  // subgraphs `names` imported with formal input types `formal[i]`.
  absl::StatusOr<ControlFlow> ImportBodies(const std::vector<std::string>& names,
                                           const std::vector<std::vector<TensorType>>& formal);
  // A Scan's "body" (either opset's) imported for `formal`, its first `n`
  // outputs (the state variables) checked to leave as they entered; the
  // types are the body's outputs, for the caller to give the scan outputs
  // their axes. A body that does not import or fit is Unmapped.
  absl::StatusOr<ControlFlow> ImportScanBody(const std::vector<TensorType>& formal, int n);
  absl::Status DoLstm();
  absl::Status DoGru();
  absl::Status DoRnn();

  // ---- the driver (onnx_reader.cc)
  absl::Status ReadInputs();
  // The import options' names against the graph (an input or symbolic dim
  // they name that the graph lacks), then every graph input dim left without
  // a size, all in one error.
  absl::Status CheckInputOptions() const;
  // Orders `nodes` topologically (the tensors their subgraphs read from the
  // enclosing scopes count as inputs), or fails naming a node on a cycle.
  absl::StatusOr<std::vector<int>> SortNodes(const std::vector<const onnx::NodeProto*>& nodes);
  // Imports `nodes` (one graph's, in any order): errors name the node.
  absl::Status ImportNodes(const std::vector<const onnx::NodeProto*>& nodes);
  // Maps one node (its handler, else an opaque node), then folds it.
  absl::Status ImportNode(const onnx::NodeProto& node);
  // OK when `node` has as many inputs and outputs as its ONNX schema (at
  // opset_) allows and names every required input, so that handlers may read
  // them; ops without a schema (other domains) pass.
  absl::Status CheckArity(const onnx::NodeProto& node) const;

  // ---- constant folding (import_folding.cc)
  // When the current node's inputs are all constants, computes the outputs
  // its handler built (the nodes from `first` on) with the reference executor
  // and makes them constants. Nothing happens for nodes it cannot or should
  // not fold (caps above, no kernel, random ops, control flow).
  void FoldCurrent(NodeId first);

  // ---- subgraphs (import_control_flow.cc)
  // The tensors the graph attributes of `n` read from enclosing scopes, as
  // those subgraphs spell them.
  static std::vector<std::string> OuterReads(const onnx::NodeProto& n);
  // The importer's name for a tensor a (possibly inlined) subgraph calls
  // `name`: subgraph scopes rename their tensors so they cannot clash.
  const std::string& Resolve(const std::string& name) const;
  // Imports subgraph `g`'s nodes here (an If's taken branch); returns the
  // importer's names of its outputs.
  absl::StatusOr<std::vector<std::string>> InlineGraph(const onnx::GraphProto& g);
  // The model declares a static type for tensor `name` (value_info or output).
  bool HasStaticDeclaredType(const std::string& name) const;
  // Declares `t` as the type of tensor `name` (for DoOpaque), overriding the model's.
  void DeclareType(const std::string& name, const TensorType& t);
  absl::StatusOr<TensorType> TypeFromValueInfo(const onnx::TypeProto& t, std::string_view what,
                                               bool allow_symbolic);

  std::string file_;
  const onnx::ModelProto& model_;
  onnx::ModelProto* consume_ = nullptr;  // model_ itself, when its data may go
  OnnxImportOptions options_;
  int opset_ = 1;
  Graph g_;
  std::unordered_map<std::string, Value> values_;
  absl::flat_hash_set<std::string> used_names_;
  absl::flat_hash_map<std::string, ValueRef> param_cache_;
  absl::flat_hash_map<std::string, const onnx::TypeProto*> declared_types_;
  // The ONNX types inference gave sequence and optional values, element
  // shapes included (their egret types have none), for inferring the nodes
  // that read them.
  absl::flat_hash_map<std::string, const onnx::TypeProto*> container_types_;
  absl::flat_hash_set<std::string> consumed_;  // tensors some node or graph output reads
  const onnx::NodeProto* cur_ = nullptr;
  // Inlined subgraphs: their node copies (names resolved), the renaming of
  // each open scope (innermost last), and every tensor name taken so far.
  std::deque<onnx::NodeProto> inlined_nodes_;
  std::vector<absl::flat_hash_map<std::string, std::string>> scopes_;
  absl::flat_hash_set<std::string> taken_names_;
  std::deque<onnx::TypeProto> owned_types_;  // declared types the importer made up
};

// A handler maps the importer's current node onto egret ops.
using Handler = absl::Status (*)(Importer&);
using HandlerTable = absl::flat_hash_map<std::string, Handler>;

// Registration, one function per family file.
void RegisterElementwiseHandlers(HandlerTable& t);     // import_elementwise.cc
void RegisterConvHandlers(HandlerTable& t);            // import_conv.cc
void RegisterDataMovementHandlers(HandlerTable& t);    // import_data_movement.cc
void RegisterLogicHandlers(HandlerTable& t);           // import_logic.cc
void RegisterIndexHandlers(HandlerTable& t);           // import_index.cc
void RegisterEinsumHandlers(HandlerTable& t);          // import_einsum.cc
void RegisterControlFlowHandlers(HandlerTable& t);     // import_control_flow.cc
void RegisterRecurrentHandlers(HandlerTable& t);       // import_recurrent.cc
void RegisterQuantizeHandlers(HandlerTable& t);        // import_quantize.cc
void RegisterBlockQuantizedHandlers(HandlerTable& t);  // import_block_quantized.cc
void RegisterContribHandlers(HandlerTable& t);         // import_contrib.cc

// Every handler, keyed by ONNX op type; ops of another domain than ONNX's
// are keyed "<domain>.<op type>" ("com.microsoft.QLinearAdd").
const HandlerTable& Handlers();

void RegisterNormalizationHandlers(HandlerTable& t);  // import_normalization.cc

// The Gather op for the current node's data (input 0) and indices (input 1)
// along `axis` (import_index.cc).
absl::Status EmitGather(Importer& im, int axis);

// Every default-domain handler, by ONNX op type.
const HandlerTable& Handlers();

// The executor's RuntimeBodyImporter (executor/runtime_body.h): imports the
// body attribute `key` holds (one DoSequenceMap kept, or a subgraph kept as
// ONNX), its inputs typed `inputs`.
absl::StatusOr<GraphPtr> ImportRuntimeBody(const Attributes& attrs, std::string_view key,
                                           absl::Span<const TensorType> inputs);

}  // namespace egret::onnx_import

#endif  // EGRET_ONNX_IMPORTER_INTERNAL_H_
