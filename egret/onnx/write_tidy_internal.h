// Private to the onnx stage: the writer's tidy pass (writer_internal.h,
// TidyGraph), shared by its files: write_tidy.cc (the driver, Identity and
// dead nodes, records), tidy_sink.cc (Transposes moved below the ops that
// run in any layout, composed and cancelled) and tidy_reshape.cc (Transposes
// and Reshapes: through each other, into Reshapes, into a dequantized
// constant).
//
// The writer spells each egret NHWC op as its NCHW ONNX op followed by a
// Transpose back to NHWC; every op egret computes in NHWC that ONNX runs in
// any layout (elementwise ops, Concat, Slice, Pad, reductions, ...) then
// reads that NHWC tensor. Here a Transpose(perm P) feeding such an op moves
// below it: the op runs on the untransposed tensor (its axes mapped through
// P, its constant operands transposed to match) and one Transpose(P) follows
// it. Moved down this way, a Transpose meets the Transpose(P^-1) the next
// NCHW op reads through, and both vanish; or it stops at an op that needs
// its layout (MatMul, Conv, a graph output) and stays, once.
#ifndef EGRET_ONNX_WRITE_TIDY_INTERNAL_H_
#define EGRET_ONNX_WRITE_TIDY_INTERNAL_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/tensor_type.h"
#include "onnx/onnx_pb.h"

namespace egret::onnx_export::tidy {

using Perm = std::vector<int>;

// How an op relates to the layout of its data operands.
enum class Kind {
  kOther,        // needs its layout: a Transpose stops here
  kElementwise,  // each output element from the same-index (broadcast) inputs
  kAxis,         // elementwise except for the attribute `axis` (Concat, Softmax, ...)
  kAxes,         // reduces the attribute `axes`, keepdims=1
  kReduceSum,    // reduces the axes of input 1, keepdims=1
  kSlice,        // axes at input 3 (or 0..k-1 when absent)
  kPad,          // pads at input 1: begins then ends per axis
  kQdq,          // Quantize/DequantizeLinear: data input 0; scale and zero point as they are
};

// The Kind of node `n` (kOther for other domains and other ops).
Kind KindOf(const onnx::NodeProto& n);

inline onnx::AttributeProto* FindAttr(onnx::NodeProto* n, std::string_view name) {
  for (auto& a : *n->mutable_attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}
inline const onnx::AttributeProto* FindAttr(const onnx::NodeProto& n, std::string_view name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

inline bool HasSubgraph(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.has_g() || a.graphs_size() > 0) return true;
  }
  return false;
}

// The perm of a Transpose node, when it is a valid permutation.
inline std::optional<Perm> PermOf(const onnx::NodeProto& n) {
  const onnx::AttributeProto* a = FindAttr(n, "perm");
  if (a == nullptr || a->ints_size() == 0) return std::nullopt;
  Perm p(a->ints().begin(), a->ints().end());
  std::vector<bool> seen(p.size(), false);
  for (int d : p) {
    if (d < 0 || d >= static_cast<int>(p.size()) || seen[d]) return std::nullopt;
    seen[d] = true;
  }
  return p;
}

inline Perm Inverse(const Perm& p) {
  Perm inv(p.size());
  for (size_t d = 0; d < p.size(); ++d) inv[p[d]] = static_cast<int>(d);
  return inv;
}

inline bool IsIdentity(const Perm& p) {
  for (size_t d = 0; d < p.size(); ++d) {
    if (p[d] != static_cast<int>(d)) return false;
  }
  return true;
}

// An axis of the transposed tensor (`rank` = p.size()), as an axis of the
// tensor before the transpose; nullopt when out of range.
inline std::optional<int64_t> MapAxis(int64_t a, const Perm& p) {
  const int64_t r = static_cast<int64_t>(p.size());
  if (a < -r || a >= r) return std::nullopt;
  return p[a < 0 ? a + r : a];
}

class Tidier {
 public:
  // `records`: the graph carries records (egret_record_internal.h), read
  // back node for node; the rewrites that drop a recorded constant
  // (DropZeroBiases, FuseIntegerProducts) are then not made.
  // `sink_shared_into_slices`: whether a Transpose that several nodes read
  // moves below a Slice reading it (one Transpose per Slice then; see
  // TidyGraph).
  Tidier(onnx::GraphProto* gp, const std::function<const Dims*(const std::string&)>& dims_of,
         bool records, bool sink_shared_into_slices = true)
      : gp_(gp),
        dims_of_(dims_of),
        records_(records),
        sink_shared_into_slices_(sink_shared_into_slices) {}
  // Tidies the graph's nodes aside, leaving the graph as it is; true when
  // the result has no more nodes and no more Transposes than the graph.
  bool Compute();
  // Puts the result of Compute into the graph, records kept.
  void Commit();
  // The result's nodes and Transposes.
  int NumNodes() const { return static_cast<int>(out_.size()); }
  int NumTransposes() const;
  // How many times a Transpose read by several nodes moved below a Slice.
  int shared_slice_sinks() const { return shared_slice_sinks_; }

 private:
  // ---- names
  std::string Resolve(const std::string& name) const {
    auto it = alias_.find(name);
    return it == alias_.end() ? name : it->second;
  }
  std::string FreshName(const std::string& base) {
    std::string name = base;
    for (int k = 1; names_.contains(name); ++k) name = absl::StrCat(base, "_", k);
    names_.insert(name);
    return name;
  }
  std::string FreshNodeName(const std::string& base) {
    std::string name = base;
    for (int k = 1; node_names_.contains(name); ++k) name = absl::StrCat(base, "_", k);
    node_names_.insert(name);
    return name;
  }

  // ---- the nodes written so far
  // The Transpose among out_ producing `name`, or null.
  const onnx::NodeProto* TransposeProducing(const std::string& name) const {
    auto it = producer_.find(name);
    if (it == producer_.end()) return nullptr;
    const onnx::NodeProto& n = out_[it->second];
    return n.op_type() == "Transpose" && n.domain().empty() ? &n : nullptr;
  }
  void Emit(onnx::NodeProto n) {
    for (const auto& o : n.output()) {
      if (!o.empty()) producer_[o] = static_cast<int>(out_.size());
    }
    out_.push_back(std::move(n));
  }

  // ---- constants
  const onnx::TensorProto* Init(const std::string& name) const {
    auto it = inits_.find(name);
    return it == inits_.end() ? nullptr : it->second;
  }
  // Adds initializer `t` (its name fresh), found by Init from then on;
  // returns its name.
  const std::string& AddInit(onnx::TensorProto t) {
    new_inits_.push_back(std::move(t));
    inits_[new_inits_.back().name()] = &new_inits_.back();
    return new_inits_.back().name();
  }
  // Constant `name` broadcast to rank `rank` (leading 1s) and laid out for
  // an op that runs before a Transpose(p): transposed by p's inverse. The
  // name itself when its layout does not matter (every dim 1). nullopt when
  // the constant cannot be read or has a rank above `rank`.
  std::optional<std::string> ConstantFor(const std::string& name, const Perm& p);
  // Whether tensor `name` is known to have every dim 1 and rank at most
  // `max_rank`: an
  // initializer, a tensor the writer typed, or a Quantize/DequantizeLinear
  // or Cast of one. Such an operand broadcasts the same in any layout.
  bool AllOnes(const std::string& name, size_t max_rank, int depth = 0) const;
  // A new initializer for the int64 list `v`, from `base`.
  std::string Int64s(const std::vector<int64_t>& v, const std::string& base);

  // Tries to move the Transposes feeding `n` below it; true when done (the
  // rewritten node and its output Transposes are emitted).
  bool Sink(onnx::NodeProto& n);
  // A Transpose of a Transpose or of a constant: true when it was folded
  // into an alias or rewritten in place (still to be emitted).
  bool FoldTranspose(onnx::NodeProto& n);
  // A Transpose of the one-reader output of an emitted DequantizeLinear of
  // an initializer (integer weights kept for a file, read in another
  // layout): the transpose goes into the initializer and the
  // DequantizeLinear (its axis mapped) writes the Transpose's output; true
  // when done.
  bool FoldIntoDequantizedConstant(const onnx::NodeProto& n);
  // For Transpose `n` whose input is read by it alone (in the input graph,
  // and not a graph output or subgraph read): the index in out_ of the
  // node producing that input; nullopt otherwise.
  std::optional<int> SoleReadProducer(const onnx::NodeProto& n) const;
  // A Reshape of a Transpose that commutes with it (transpose_reshape_
  // internal.h): the Reshape on the untransposed tensor and a Transpose
  // after it are emitted; true when done.
  bool SinkThroughReshape(const onnx::NodeProto& n);
  // A Transpose of the one-reader output of an emitted Reshape that
  // commutes with it: the Transpose moves above the Reshape (and composes
  // with a Transpose feeding it); true when done.
  bool HoistAboveReshape(const onnx::NodeProto& n);
  // The dims of tensor `name`: declared by the writer, or a Transpose's of
  // its input's; null when unknown.
  std::optional<std::vector<int64_t>> DimsOf(const std::string& name) const;
  // The positive int64 entries of constant `name` (a Reshape's shape).
  std::optional<std::vector<int64_t>> PositiveShape(const std::string& name) const;
  // A Transpose node `input` -> `output` with `perm`, in the record group of `like`.
  onnx::NodeProto MakeTranspose(const std::string& input, const std::string& output,
                                const std::vector<int>& perm, const onnx::NodeProto& like);

  // The float spelling of an integer product, as the importer lowers
  // ConvInteger and MatMulInteger (docs/onnx-import.md):
  //   Cast<int32>(Conv(Sub(Cast<float>(x), Cast<float>(x_zero)),
  //                    DequantizeLinear(w, scale 1, w_zero)))
  // (or MatMul; x and w 8-bit integers, x_zero a scalar, w_zero per tensor
  // or per output channel) becomes ConvInteger(x, w, x_zero, w_zero)
  // (MatMulInteger) writing the Cast's output: the integer op the input
  // had, reading the integer weights, exact where the float sums are exact
  // below 2^24. The operands' nodes go when nothing else reads them
  // (DropDead).
  void FuseIntegerProducts();
  // An integer operand of an integer product and its zero point ("" for 0).
  struct IntegerOperand {
    std::string integers;
    std::string zero;
  };
  // `name` as Cast<float>(x) or Sub(Cast<float>(x), Cast<float>(x_zero)),
  // x 8-bit and x_zero a scalar of x's type.
  std::optional<IntegerOperand> IntegerActivation(const std::string& name) const;
  // `name` as DequantizeLinear(w, 1, w_zero) of 8-bit initializer w, w_zero
  // a scalar or 1-D along `channel_axis`.
  std::optional<IntegerOperand> IntegerWeight(const std::string& name, int64_t channel_axis) const;
  // The ONNX element type of tensor `name` when known (an initializer, a
  // graph input, a Cast's or DynamicQuantizeLinear's output), else 0.
  int32_t ElemTypeOf(const std::string& name) const;
  // The number of elements of tensor `name`, when known.
  std::optional<int64_t> NumElementsOf(const std::string& name) const;
  // A Conv's or ConvTranspose's bias known to be all zeros (KnownZero) is
  // left out: egret's convolutions always have one, often zero where the
  // input had none (tidy_zero_bias.cc).
  void DropZeroBiases();
  // Whether tensor `name` is known to be all zeros: an initializer, or a
  // Cast or DequantizeLinear (its data equal to its per-tensor zero point)
  // of one.
  bool KnownZero(const std::string& name, int depth = 0) const;

  // producer_ anew, for out_ as it is (after a pass that removed nodes).
  void IndexProducers();
  void RemoveIdentities();
  // A Transpose that moves only dims of size 1 (its output's dims declared)
  // keeps the elements in order: it becomes a Reshape, which copies nothing.
  void TransposesToReshapes();
  // Reshape(Reshape(x), s) with every entry of s positive (no 0 to copy, no
  // -1 to infer) is Reshape(x, s).
  void MergeReshapes();
  void DropDead();
  // Nodes computing the same thing (op, domain, attributes, and inputs that
  // are the same tensor or initializers of the same contents: the
  // DequantizeLinears of one tensor that the sinking made twice) become
  // one: the later one's readers read the earlier one's outputs. A node
  // with a graph output, a subgraph or no outputs stays, and so does a
  // random op (each node is a draw of its own).
  void MergeDuplicates();
  void KeepRecords(const std::vector<onnx::NodeProto>& before);

  onnx::GraphProto* gp_;
  const std::function<const Dims*(const std::string&)>& dims_of_;
  bool records_;
  bool sink_shared_into_slices_;
  int shared_slice_sinks_ = 0;
  std::vector<onnx::NodeProto> before_;      // the graph's nodes, as Compute found them
  absl::flat_hash_set<std::string> pinned_;  // graph outputs and subgraph reads
  absl::flat_hash_set<std::string> names_;   // every tensor name
  absl::flat_hash_set<std::string> node_names_;
  absl::flat_hash_map<std::string, const onnx::TensorProto*> inits_;
  std::deque<onnx::TensorProto> new_inits_;  // added (stable addresses, in inits_)
  absl::flat_hash_map<std::string, std::string> alias_;
  absl::flat_hash_map<std::string, int> producer_;
  std::vector<onnx::NodeProto> out_;
  absl::flat_hash_map<std::string, std::string> constant_cache_;  // name|perm -> name
  absl::flat_hash_map<std::string, int> readers_;  // tensor -> reading nodes of the input graph
};

}  // namespace egret::onnx_export::tidy

#endif  // EGRET_ONNX_WRITE_TIDY_INTERNAL_H_
