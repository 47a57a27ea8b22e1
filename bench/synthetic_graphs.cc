#include "bench/synthetic_graphs.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "egret/graph/shape_inference.h"
#include "egret/support/enum_names.h"

namespace egret {
namespace {

constexpr auto kNames = MakeEnumNames<SyntheticFamily>({
    {SyntheticFamily::kResNet, "resnet"},
    {SyntheticFamily::kTransformer, "transformer"},
});

// ResNet: NHWC [1, kSide, kSide, kWide], bottleneck width kNarrow.
constexpr int64_t kSide = 8, kWide = 16, kNarrow = 4;
// Transformer: [1, kTokens, kModel], kHeads heads of kHeadDim, FFN kFfn.
constexpr int64_t kTokens = 8, kModel = 16, kHeads = 2, kHeadDim = kModel / kHeads, kFfn = 32;

// A rank-0 type, built field by field (moving an empty Dims into the
// TensorType constructor trips a false GCC "uninitialized" warning).
TensorType Scalar(DType dt) {
  TensorType t;
  t.dtype = dt;
  return t;
}

// Builds a graph op by op with the importer's conventions: output types from
// the shape functions, one shared node per distinct "$Shape" parameter and
// scalar constant. The first failure is kept in status() and later calls
// still return a (meaningless) value, so block code reads straight.
class Builder {
 public:
  explicit Builder(uint64_t seed) : rng_(seed) {}

  ValueRef Input(std::string name, Dims dims) {
    return {g_.AddInput(std::move(name), TensorType(DType::kFloat32, std::move(dims))), 0};
  }

  // A "$Shape" parameter whose value is `v`.
  ValueRef Shape(Dims v) {
    const std::string key = absl::StrCat("S", absl::StrJoin(v, ","));
    return Cached(key, [&] {
      Node n;
      n.op = std::string(kShapeOp);
      n.outputs.push_back(TensorType(DType::kInt32, v));
      return g_.AddNode(std::move(n));
    });
  }
  ValueRef IntScalar(int64_t v) {
    return Cached(absl::StrCat("i", v),
                  [&] { return AddConst("", Scalar(DType::kInt32), {static_cast<double>(v)}); });
  }
  ValueRef FloatScalar(double v) {
    return Cached(absl::StrFormat("f%.17g", v),
                  [&] { return AddConst("", Scalar(DType::kFloat32), {v}); });
  }
  // A float32 constant of `dims` with values uniform in [lo, hi).
  ValueRef Random(const std::string& name, Dims dims, double lo, double hi) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<double> v(n);
    for (double& x : v) x = lo + (hi - lo) * static_cast<double>(rng_() >> 11) * 0x1p-53;
    return {AddConst(name, TensorType(DType::kFloat32, std::move(dims)), v), 0};
  }

  ValueRef Op(std::string_view op, std::vector<ValueRef> inputs) {
    Node n;
    n.op = std::string(op);
    n.inputs.assign(inputs.begin(), inputs.end());
    const NodeId id = g_.AddNode(std::move(n));
    absl::StatusOr<std::vector<TensorType>> t = InferNodeOutputTypes(g_, id);
    if (t.ok()) {
      g_.mutable_node(id).outputs.assign(t->begin(), t->end());
    } else {
      g_.mutable_node(id).outputs.push_back(TensorType(DType::kFloat32, {1}));
      if (status_.ok()) {
        status_ =
            absl::InternalError(absl::StrFormat("%s (#%d): %s", op, id, t.status().message()));
      }
    }
    return {id, 0};
  }

  const absl::Status& status() const { return status_; }
  Graph& graph() { return g_; }

 private:
  template <typename Make>
  ValueRef Cached(const std::string& key, Make make) {
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    ValueRef r{make(), 0};
    cache_.emplace(key, r);
    return r;
  }
  NodeId AddConst(const std::string& name, TensorType t, const std::vector<double>& v) {
    return g_.AddConstant(name,
                          std::make_shared<const Tensor>(Tensor::FromValues(std::move(t), v)));
  }

  Graph g_;
  std::mt19937_64 rng_;
  absl::flat_hash_map<std::string, ValueRef> cache_;
  absl::Status status_;
};

// Conv2d of `x` with a k x k filter (stride 1, "same" padding) and a bias.
ValueRef Conv(Builder& b, const std::string& name, ValueRef x, int64_t k, int64_t cin,
              int64_t cout) {
  const double a = 1.0 / std::sqrt(static_cast<double>(k * k * cin));
  const int64_t p = k / 2;
  return b.Op("Conv2d", {x, b.Random(name + "/w", {k, k, cin, cout}, -a, a),
                         b.Random(name + "/b", {cout}, -0.1, 0.1), b.Shape({1, 1, 1, 1}),
                         b.Shape({p, p, p, p}), b.Shape({1, 1, 1, 1})});
}

// Batchnorm in the importer's folded form (per-channel scale and offset).
ValueRef BatchNorm(Builder& b, const std::string& name, ValueRef x, int64_t c, double scale) {
  return b.Op("Batchnorm", {x, b.Random(name + "/scale", {c}, 0.5 * scale, scale),
                            b.Random(name + "/offset", {c}, -0.1, 0.1)});
}

ValueRef ResNetBlock(Builder& b, const std::string& name, ValueRef x) {
  ValueRef h = b.Op(
      "Relu",
      {BatchNorm(b, name + "/bn1", Conv(b, name + "/conv1", x, 1, kWide, kNarrow), kNarrow, 1.0)});
  h = b.Op("Relu", {BatchNorm(b, name + "/bn2", Conv(b, name + "/conv2", h, 3, kNarrow, kNarrow),
                              kNarrow, 1.0)});
  // A small last scale keeps the residual sum from growing block by block.
  h = BatchNorm(b, name + "/bn3", Conv(b, name + "/conv3", h, 1, kNarrow, kWide), kWide, 0.25);
  return b.Op("Relu", {b.Op("ElementWiseAdd", {h, x})});
}

// x @ W^T + bias as the importer maps ONNX MatMul + Add.
ValueRef Linear(Builder& b, const std::string& name, ValueRef x, int64_t in, int64_t out) {
  const double a = 1.0 / std::sqrt(static_cast<double>(in));
  ValueRef fc = b.Op("FullyConnected", {x, b.Random(name + "/w", {out, in}, -a, a)});
  return b.Op("ElementWiseAdd", {fc, b.Random(name + "/b", {out}, -0.1, 0.1)});
}

// ((x - mean) / sqrt(mean((x - mean)^2) + eps)) * gamma + beta, last axis.
ValueRef LayerNorm(Builder& b, const std::string& name, ValueRef x) {
  ValueRef ax = b.Shape({2}), kd = b.IntScalar(1);
  ValueRef d = b.Op("ElementWiseSubtract", {x, b.Op("ReduceMean", {x, ax, kd})});
  ValueRef var = b.Op("ReduceMean", {b.Op("ElementWisePower", {d, b.FloatScalar(2.0)}), ax, kd});
  ValueRef den = b.Op("Sqrt", {b.Op("ElementWiseAdd", {var, b.FloatScalar(1e-5)})});
  ValueRef n = b.Op("ElementWiseDivide", {d, den});
  ValueRef g = b.Op("ElementWiseMultiply", {n, b.Random(name + "/gamma", {kModel}, 0.8, 1.2)});
  return b.Op("ElementWiseAdd", {g, b.Random(name + "/beta", {kModel}, -0.1, 0.1)});
}

// (x * (erf(x * (1 / sqrt 2)) + 1)) * 0.5. The multiply form: ONNX exporters
// divide by sqrt 2, and the shipped library turns that division into this
// multiply only on rank-4 tensors (algebra.rules' reciprocal rule builds a
// rank-4 scalar, which does not type-check against a [1, T, C] operand), so
// the divide form would hide every GELU of the sequence from the library.
ValueRef Gelu(Builder& b, ValueRef x) {
  ValueRef e = b.Op("Erf", {b.Op("ElementWiseMultiply", {x, b.FloatScalar(0.70710678118654752)})});
  ValueRef m = b.Op("ElementWiseMultiply", {x, b.Op("ElementWiseAdd", {e, b.FloatScalar(1.0)})});
  return b.Op("ElementWiseMultiply", {m, b.FloatScalar(0.5)});
}

// exp(x - max(x)) / sum(exp(x - max(x))) over the last axis of a rank-4 x.
ValueRef Softmax(Builder& b, ValueRef x) {
  ValueRef ax = b.Shape({3}), kd = b.IntScalar(1);
  ValueRef e = b.Op("Exp", {b.Op("ElementWiseSubtract", {x, b.Op("ReduceMax", {x, ax, kd})})});
  return b.Op("ElementWiseDivide", {e, b.Op("ReduceSum", {e, ax, kd})});
}

// [1, T, C] -> [1, H, T, D] (perm {0,2,1,3}) or [1, H, D, T] (perm {0,2,3,1}).
ValueRef SplitHeads(Builder& b, ValueRef x, Dims perm) {
  ValueRef r = b.Op("Reshape", {x, b.Shape({1, kTokens, kHeads, kHeadDim})});
  return b.Op("Transpose", {r, b.Shape(std::move(perm))});
}

ValueRef TransformerBlock(Builder& b, const std::string& name, ValueRef x) {
  ValueRef q = SplitHeads(b, Linear(b, name + "/q", x, kModel, kModel), {0, 2, 1, 3});
  ValueRef k = SplitHeads(b, Linear(b, name + "/k", x, kModel, kModel), {0, 2, 3, 1});
  ValueRef v = SplitHeads(b, Linear(b, name + "/v", x, kModel, kModel), {0, 2, 1, 3});
  ValueRef s = b.Op("ElementWiseDivide", {b.Op("MatMul", {q, k}),
                                          b.FloatScalar(std::sqrt(static_cast<double>(kHeadDim)))});
  ValueRef o = b.Op("Transpose", {b.Op("MatMul", {Softmax(b, s), v}), b.Shape({0, 2, 1, 3})});
  o = b.Op("Reshape", {o, b.Shape({1, kTokens, kModel})});
  ValueRef x1 = LayerNorm(
      b, name + "/ln1", b.Op("ElementWiseAdd", {x, Linear(b, name + "/proj", o, kModel, kModel)}));
  ValueRef h = Gelu(b, Linear(b, name + "/ffn1", x1, kModel, kFfn));
  h = Linear(b, name + "/ffn2", h, kFfn, kModel);
  return LayerNorm(b, name + "/ln2", b.Op("ElementWiseAdd", {x1, h}));
}

}  // namespace

std::optional<SyntheticFamily> ParseSyntheticFamily(std::string_view name) {
  return kNames.Parse(name);
}

std::string_view SyntheticFamilyName(SyntheticFamily family) { return kNames.Name(family); }

std::vector<SyntheticFamily> AllSyntheticFamilies() { return kNames.Values(); }

absl::StatusOr<Graph> MakeSyntheticGraph(SyntheticFamily family, const SyntheticOptions& options) {
  if (options.blocks < 1 || options.chain_blocks < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("blocks must be at least 1 and chain_blocks not negative (got %d, %d)",
                        options.blocks, options.chain_blocks));
  }
  Builder b(options.seed);
  const bool resnet = family == SyntheticFamily::kResNet;
  const ValueRef in =
      resnet ? b.Input("x", {1, kSide, kSide, kWide}) : b.Input("x", {1, kTokens, kModel});
  const int per_chain = options.chain_blocks == 0 ? options.blocks : options.chain_blocks;
  const int chains = (options.blocks + per_chain - 1) / per_chain;
  for (int c = 0; c < chains; ++c) {
    ValueRef x = in;
    for (int i = c * per_chain; i < std::min(options.blocks, (c + 1) * per_chain); ++i) {
      const std::string name = absl::StrCat("block", i);
      x = resnet ? ResNetBlock(b, name, x) : TransformerBlock(b, name, x);
    }
    b.graph().AddOutput(x, chains == 1 ? "y" : absl::StrCat("y", c));
  }
  if (!b.status().ok()) return b.status();
  b.graph().set_name(absl::StrCat(std::string(SyntheticFamilyName(family)), "_x", options.blocks));
  return std::move(b.graph());
}

namespace {

// The node counts of the 1- and 2-block graphs.
std::pair<int64_t, int64_t> OneAndTwo(SyntheticFamily family) {
  absl::StatusOr<Graph> one = MakeSyntheticGraph(family, {.blocks = 1});
  absl::StatusOr<Graph> two = MakeSyntheticGraph(family, {.blocks = 2});
  if (!one.ok() || !two.ok()) return {0, 0};
  return {static_cast<int64_t>(one->num_nodes()), static_cast<int64_t>(two->num_nodes())};
}

}  // namespace

int64_t SyntheticNodeCount(SyntheticFamily family, int blocks) {
  const auto [one, two] = OneAndTwo(family);
  return one + (two - one) * (blocks - 1);
}

int BlocksForNodes(SyntheticFamily family, int64_t target_nodes) {
  const auto [one, two] = OneAndTwo(family);
  const int64_t per_block = two - one;
  if (per_block <= 0) return 1;
  const int64_t blocks = 1 + std::llround(static_cast<double>(target_nodes - one) / per_block);
  return static_cast<int>(std::max<int64_t>(blocks, 1));
}

const Graph& CachedSyntheticGraph(SyntheticFamily family, int64_t target_nodes, int chain_blocks) {
  struct Entry {
    SyntheticFamily family;
    int64_t target_nodes;
    int chain_blocks;
    Graph graph;
  };
  static auto* cache = new std::vector<std::unique_ptr<Entry>>();
  for (const auto& e : *cache) {
    if (e->family == family && e->target_nodes == target_nodes && e->chain_blocks == chain_blocks) {
      return e->graph;
    }
  }
  SyntheticOptions o;
  o.blocks = BlocksForNodes(family, target_nodes);
  o.chain_blocks = chain_blocks;
  absl::StatusOr<Graph> g = MakeSyntheticGraph(family, o);
  if (!g.ok()) std::abort();
  cache->push_back(
      std::make_unique<Entry>(Entry{family, target_nodes, chain_blocks, *std::move(g)}));
  return cache->back()->graph;
}

}  // namespace egret
