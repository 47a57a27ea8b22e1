// Private to the onnx stage: the ONNX writer's state and toolkit, shared by
// the driver (onnx_writer.cc: the graph walk), its toolkit
// (writer_toolkit.cc), its initializers (writer_constants.cc), serializing
// (writer_serialize.cc) and the op mappings (write_*.cc).
//
// The writer walks the graph in topological order. Each egret value is
// written as one ONNX tensor holding its *stored* numbers (the integers of a
// quantized value); Real() gives a value as real numbers in a float dtype
// (DequantizeLinear, Cast), Permuted() the stored numbers transposed (folded
// for constants), both cached. A mapping emits ONNX nodes for the current
// egret node and ends each output with FinishReal (the float result,
// quantized or cast into the output's type) or writes the stored result
// straight into OutName(k).
#ifndef EGRET_ONNX_WRITER_INTERNAL_H_
#define EGRET_ONNX_WRITER_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "egret/graph/graph.h"
#include "egret/onnx/onnx_writer.h"
#include "onnx/onnx_pb.h"

namespace egret::onnx_export {

// NHWC <-> NCHW.
inline const std::vector<int> kNhwcToNchw = {0, 3, 1, 2};
inline const std::vector<int> kNchwToNhwc = {0, 2, 3, 1};

class Writer {
 public:
  Writer(const Graph& g, std::string file, const OnnxWriteOptions& options)
      : g_(g), file_(std::move(file)), options_(options) {}

  absl::StatusOr<onnx::ModelProto> Run();
  // Writes g_ into `gp` (Run's work without the model around it).
  absl::Status WriteGraph(onnx::GraphProto* gp);
  // For a body writer: g_ (a subgraph attribute of an opaque control-flow
  // node, written by EmitOpaque with a writer of its own that shares the
  // enclosing writer's names, as ONNX names are unique across scopes) as a
  // GraphProto named `name`. Its captured inputs (kCapturedAttr) are not
  // graph inputs: they read the enclosing values by name (outer_names_).
  absl::StatusOr<onnx::GraphProto> WriteBodyGraph(std::string_view name);

  // Splat initializers (every element the same) of at least this many
  // elements are written as ConstantOfShape nodes instead: ONNX Runtime
  // then neither parses nor keeps a second copy of their bytes (the light_*
  // networks' 548 MB of 0.02s, docs/onnx-export.md "Splat constants").
  static constexpr int64_t kMinSplatElements = 64;

  // ---- errors
  // "file: error: node 'n' (Op): msg" for the current node.
  absl::Status NodeError(absl::StatusCode code, const std::string& msg) const;
  // A node with no standard ONNX op: an error with standard_only, else OK
  // after writing it in the custom domain (EmitCustom).
  absl::Status NonStandard(std::string_view why);

  // ---- the current node
  const Node& Cur() const { return g_.node(cur_); }
  int NumIn() const { return static_cast<int>(Cur().inputs.size()); }
  ValueRef In(int i) const { return Cur().inputs[i]; }
  const TensorType& InType(int i) const { return g_.TypeOf(In(i)); }
  const TensorType& OutType(int k = 0) const { return Cur().outputs[k]; }
  ValueRef Out(int k = 0) const { return ValueRef{cur_, static_cast<uint32_t>(k)}; }
  absl::StatusOr<std::vector<int64_t>> Ints(int i) const;
  absl::StatusOr<int64_t> Int(int i) const;
  absl::StatusOr<double> Float(int i) const;
  // The float dtype the current node computes in: its output's, Float32 for
  // a quantized output, else input 0's (Float32 when quantized), else
  // kUnknown (integers and Bools: stored numbers).
  DType ComputeDType() const;

  // ---- tensors
  // The ONNX name of a value's stored numbers.
  const std::string& Name(ValueRef v) const { return names_.at(v); }
  std::string OutName(int k = 0) const { return Name(Out(k)); }
  // A tensor name not used yet, from `base`.
  std::string Fresh(std::string_view base);
  // A node name not used yet (ONNX Runtime wants them unique), from `base`.
  std::string UniqueNodeName(const std::string& base);
  // Rewrites the splat initializers (kMinSplatElements; not the scales and
  // zero points of Quantize/DequantizeLinear) as ConstantOfShape
  // nodes at the head of the node list; called last by Run.
  void WriteSplatsAsConstantOfShape();
  // Fills the initializers of the large constants ($Const of
  // kDeferMinBytes or more, written as a name only when met) that some node
  // or output reads, and drops the others: a weight read only transposed,
  // or only by a MatMulNBits that packs it itself, is never converted, nor
  // its record made. Called before the tidy pass, which reads initializers.
  absl::Status WriteDeferredConstants();
  // The initializer `p` of $Const `id`: its data, name, doc string and record.
  void WriteConstant(NodeId id, onnx::TensorProto* p);
  // Constants at least this large are written only when read (above).
  static constexpr int64_t kDeferMinBytes = 64 * 1024;
  // The stored type of tensor `name` (as egret types it).
  const TensorType& TypeOfName(const std::string& name) const { return types_.at(name); }
  // Adds an initializer holding `t` (stored numbers), returns its name.
  std::string Initializer(const Tensor& t, std::string_view base);
  std::string Int64s(const std::vector<int64_t>& v);
  // A scalar (or, with `dims`, splat) initializer of float dtype `dt`.
  std::string FloatScalar(double v, DType dt);
  // Tensor `name` (egret stored type `type`) as real numbers in `dt`
  // (kUnknown: unchanged); cached.
  std::string RealOfName(const std::string& name, DType dt);
  std::string Real(ValueRef v, DType dt) { return RealOfName(Name(v), dt); }
  std::string RealIn(int i) { return Real(In(i), ComputeDType()); }
  // The stored numbers of `v` with dims permuted (out dim d = dim perm[d]);
  // a constant is folded, anything else is a Transpose; cached.
  std::string Permuted(ValueRef v, const std::vector<int>& perm);
  // Records that the stored numbers of `v` permuted by `perm` are `name`.
  void CachePermuted(ValueRef v, const std::vector<int>& perm, const std::string& name);

  // ---- nodes
  onnx::NodeProto* Add(std::string_view op_type, std::vector<std::string> inputs,
                       std::vector<std::string> outputs, std::string_view domain = "");
  // A temporary output name for the current node ("name/suffix").
  std::string Temp(std::string_view suffix);
  // Output k of the current node from float tensor `real` (dtype `dt`):
  // QuantizeLinear into a quantized output, Cast into another float dtype,
  // else renamed (Identity-free when `real` is a Temp). `layout_perm`, when
  // not empty, is the permutation from `real`'s layout to the output's (the
  // NCHW result of an NHWC op: kNchwToNhwc); the stored numbers in `real`'s
  // layout are cached as Permuted(out, inverse).
  absl::Status FinishReal(int k, const std::string& real, DType dt,
                          const std::vector<int>& layout_perm = {});
  // The name FinishReal will accept without a copy for a result in `dt`: the
  // output's own name when no conversion follows.
  std::string RealOutName(int k, DType dt, bool nchw);
  // A float result in `dt` needs a QuantizeLinear or Cast to become an
  // output of type `t`.
  static bool NeedsConversion(const TensorType& t, DType dt) {
    return IsQuantized(t.dtype) || (IsFloat(t.dtype) && IsFloat(dt) && t.dtype != dt);
  }
  // `x` (float, dtype dt) clamped to [lo, hi]: Relu for [0, inf), else Clip.
  std::string Clamp(const std::string& x, DType dt, double lo, double hi);
  // The names of the pieces of Multi value `v` (Split, TopK) and of output k.
  std::string PieceName(ValueRef v, int k) const { return absl::StrCat(Name(v), ":", k); }

  // ---- attributes
  static void AttrInt(onnx::NodeProto* n, std::string_view name, int64_t v);
  static void AttrFloat(onnx::NodeProto* n, std::string_view name, double v);
  static void AttrStr(onnx::NodeProto* n, std::string_view name, std::string_view v);
  static void AttrInts(onnx::NodeProto* n, std::string_view name, const std::vector<int64_t>& v);
  static void AttrFloats(onnx::NodeProto* n, std::string_view name, const std::vector<double>& v);

  // ---- whole-node mappings
  // The current node in domain egret.htp: every input's stored numbers
  // ($Shape parameters as Int32 tensors of their dims), the op string and
  // implementation, cost and output encodings as attributes.
  absl::Status EmitCustom();
  // An opaque "onnx.<Op>" node as that ONNX op.
  absl::Status EmitOpaque();

  const Graph& g_;
  // For a body writer (WriteBody): the names of the enclosing scope's
  // values its captured "*Input" nodes stand for.
  absl::flat_hash_map<NodeId, std::string> outer_names_;
  bool is_body_ = false;
  std::vector<std::string> out_names_;  // the graph outputs' ONNX names
  std::string file_;
  OnnxWriteOptions options_;
  NodeId cur_ = kNoNode;
  int first_node_ = 0;  // the first ONNX node written for the current node
  onnx::GraphProto* gp_ = nullptr;
  std::set<std::string, std::less<>> domains_;  // non-default domains used
  absl::flat_hash_map<ValueRef, std::string> names_;
  absl::flat_hash_set<std::string> used_;        // tensor names
  absl::flat_hash_set<std::string> node_names_;  // node names
  std::map<std::string, TensorType, std::less<>> types_;
  std::map<std::string, std::string, std::less<>> real_cache_;      // name|dt -> name
  std::map<std::string, std::string, std::less<>> permuted_cache_;  // name|perm -> name
  absl::flat_hash_map<NodeId, int> multi_count_;                    // outputs of Multi producers
  std::map<std::string, std::string, std::less<>> scalar_cache_;
  absl::flat_hash_map<std::string, NodeId> deferred_;  // initializer name -> its $Const
};

// Shared by the writer's files. The ONNX element type of `t`'s dtype
// (kUnimplemented when it has none) and the value info `vi` of tensor `name`
// of type `t` with that element type (onnx_writer.cc).
absl::StatusOr<int32_t> ElemType(const TensorType& t);
void SetValueInfo(onnx::ValueInfoProto* vi, const std::string& name, const TensorType& t,
                  int32_t elem);
// The doc string written for node `n` (an ONNX node or a constant's
// initializer): its op, implementation, cost and provenance (onnx_writer.cc).
std::string DocString(const Node& n);
// Every tensor name the nodes of `g` and of their subgraphs read
// (writer_constants.cc).
void CollectReads(const onnx::GraphProto& g, absl::flat_hash_set<std::string>* read);

// The mapping of the current node onto standard ONNX ops (write_ops.cc and
// the family files), or NonStandard. OK when written. The family functions
// set *handled when the op is theirs.
absl::Status WriteNode(Writer& w);
absl::Status WriteNhwcNode(Writer& w, bool* handled);    // write_nhwc.cc
absl::Status WriteLayoutNode(Writer& w, bool* handled);  // write_data_movement.cc
// write_block_quantized.cc: a Dequantize of a constant in a blocked encoding
// (*handled set), and a FullyConnected reading one as its weights (true when
// written as com.microsoft MatMulNBits; false leaves the node to the caller).
absl::Status WriteBlockedDequantize(Writer& w, bool* handled);
absl::StatusOr<bool> WriteMatMulNBits(Writer& w);

// The last pass over a written graph (write_tidy.cc): each Transpose that
// feeds an op ONNX runs in any layout (elementwise ops, Concat, Split,
// Slice, Pad, Softmax, reductions with keepdims, per-axis Q/DQ) moves below
// it, the op's axes and constant operands mapped through the perm;
// Transposes of Transposes compose, and vanish when the result is the
// identity; Identity nodes go (a graph output fed by one takes over its
// producer's tensor name); nodes nothing reads go. Applied only when the
// graph ends with no more nodes and no more Transposes than it had. Records
// (egret_record_internal.h) move with the nodes: a group left with no node
// hands its record to the next node (kBeforeTag), or to the graph's
// doc_string at the end. `dims_of` gives the dims of a tensor the writer
// typed (null when unknown); a Transpose that moves only dims of size 1
// becomes a Reshape. Without `records`, a convolution's zero bias is left
// out and the float spelling of ConvInteger and MatMulInteger becomes that
// op again (write_tidy_internal.h).
void TidyGraph(onnx::GraphProto* gp, const std::function<const Dims*(const std::string&)>& dims_of,
               bool records);

}  // namespace egret::onnx_export

#endif  // EGRET_ONNX_WRITER_INTERNAL_H_
