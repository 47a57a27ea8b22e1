// The tensor-graph IR: what egret reads, optimizes, lowers and writes.
//
// A Graph is a list of nodes; a node's id is its index. Each node has an op
// string (QNN op names such as "Conv2d", or the special "$Const", "$Shape",
// "$Out", and volatile ops starting with '*' such as "*Input"), ordered inputs
// that name a producer node and one of its outputs, one or more typed outputs,
// optional attributes, and for "$Const" a shared constant tensor.
//
// Op parameters that change what an op computes (strides, pads, axes, ...) are
// inputs ("$Shape" or "$Const" nodes), never attributes, so that rules can see
// and rebuild them; attributes are for opaque imported ops. docs/ops.md lists
// each op's inputs.
// Graph inputs are "*Input" nodes; graph outputs are a list of values.
#ifndef EGRET_GRAPH_GRAPH_H_
#define EGRET_GRAPH_GRAPH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "egret/graph/tensor.h"
#include "egret/graph/tensor_type.h"

namespace egret {

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = ~NodeId{0};

// Op strings with a meaning of their own.
inline constexpr std::string_view kConstOp = "$Const";
inline constexpr std::string_view kShapeOp = "$Shape";
inline constexpr std::string_view kOutOp = "$Out";
inline constexpr std::string_view kInputOp = "*Input";

// Volatile ops (op string starting with '*') are never merged with another
// instance, even with identical inputs.
inline bool IsVolatileOp(std::string_view op) { return !op.empty() && op.front() == '*'; }
// "$Const" nodes carry data (Node::constant). A "$Shape" node carries none: the
// dims of its single Int32 output *are* its value (gen_Shape(1,2,2,1) builds a
// "$Shape" whose output type is Int32[1,2,2,1]); it occupies no memory.
inline bool IsConstantOp(std::string_view op) { return op == kConstOp; }

// One output of one node.
struct ValueRef {
  NodeId node = kNoNode;
  uint32_t output = 0;

  friend bool operator==(const ValueRef&, const ValueRef&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const ValueRef& v) {
    return H::combine(std::move(h), v.node, v.output);
  }
};

class Graph;
// A subgraph held by a node attribute (the branches of an "onnx.If", the
// body of an "onnx.Loop" or "onnx.Scan"): a self-contained Graph whose
// inputs are the body's formal inputs followed by the values it reads from
// enclosing scopes (see kCapturedAttr). Shared and immutable: copying a node
// shares its bodies.
using GraphPtr = std::shared_ptr<const Graph>;

// Node attributes (strides, axes, ONNX attributes of opaque nodes, subgraphs, ...).
using AttrValue =
    std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>, GraphPtr>;
// Ordered, so that printing and hashing are deterministic. A B-tree: 24
// bytes in every node where a std::map is 48, and its entries share one
// allocation where a std::map's take one each. Like any B-tree it moves its
// entries on insert and erase: no reference or iterator into it survives one.
using Attributes = absl::btree_map<std::string, AttrValue, std::less<>>;

// Attributes with which lowering (backend/lower.h) annotates a computing node:
// the implementation chosen (string) and its cost (double).
inline constexpr std::string_view kImplAttr = "egret.impl";
inline constexpr std::string_view kCostAttr = "egret.cost";

// Control flow (an "onnx.If", "onnx.Loop" or "onnx.Scan" node with subgraph
// attributes): the body graphs read values of enclosing scopes through
// explicit inputs. Such a node's inputs are its ONNX inputs (absent ones
// dropped, "onnx.absent_inputs") followed by kCapturedAttr (int64) captured
// values; every subgraph of the node has, after its own formal inputs, one
// "*Input" per captured value, in the same order (a body may leave some
// unread). A node without the attribute captures nothing.
inline constexpr std::string_view kCapturedAttr = "onnx.captured";

// Graph options, read by the rules' OPTION_* constraints.
using OptionValue = std::variant<bool, int64_t, double, std::string>;
using Options = std::map<std::string, OptionValue, std::less<>>;

// Where a node of an optimized graph came from, as MLIR's fused locations
// record it: the names of the input graph's nodes whose computation it takes
// over, and the rules whose rewrites built it (both sorted, unique). Lowering
// fills it (backend/provenance.h); a graph read from a file keeps what the
// file says; an input graph has none.
//
// An empty provenance is one null pointer: every node of an input graph has
// one, and the two empty lists it held in place were 48 bytes a node where
// the pointer is 8 (40 MB of a million-node graph). A value type: copies
// are deep.
class Provenance {
 public:
  Provenance() = default;
  Provenance(std::vector<std::string> from, std::vector<std::string> rules);
  Provenance(const Provenance& other);
  Provenance& operator=(const Provenance& other);
  Provenance(Provenance&&) noexcept = default;
  Provenance& operator=(Provenance&&) noexcept = default;
  ~Provenance() = default;

  const std::vector<std::string>& from() const;
  const std::vector<std::string>& rules() const;
  std::vector<std::string>& mutable_from() { return Lists().from; }
  std::vector<std::string>& mutable_rules() { return Lists().rules; }

  bool empty() const { return !lists_ || (lists_->from.empty() && lists_->rules.empty()); }
  friend bool operator==(const Provenance& a, const Provenance& b) {
    return a.from() == b.from() && a.rules() == b.rules();
  }

 private:
  struct Both {
    std::vector<std::string> from;
    std::vector<std::string> rules;
  };
  Both& Lists();

  std::unique_ptr<Both> lists_;  // null until a list is given or asked for
};

struct Node {
  std::string op;
  std::string name;  // unique within a graph when not empty
  absl::InlinedVector<ValueRef, 4> inputs;
  absl::InlinedVector<TensorType, 1> outputs;
  Attributes attrs;
  ConstTensorPtr constant;  // set exactly for "$Const" nodes
  Provenance provenance;
};

// Whether rules rewrote `n`: its provenance names rules, or input nodes other
// than `n` itself (a node lowered unchanged names only itself).
bool IsRewritten(const Node& n);

struct GraphOutput {
  ValueRef value;
  std::string name;
};

class Graph {
 public:
  Graph() = default;

  // Appends a node and returns its id. Inputs may be checked later by
  // Validate(); AddNode itself does not reject anything.
  NodeId AddNode(Node node);
  // Makes room for `n` nodes in all, so that adding up to that many moves
  // none (a builder that knows its size: a million-node graph grown by
  // doubling moved half a million nodes and held both copies at once).
  void ReserveNodes(size_t n) { nodes_.reserve(n); }
  // Adds an "*Input" node with one output of `type` and records it as a graph input.
  NodeId AddInput(std::string name, TensorType type);
  // Adds a "$Const" node whose single output has the tensor's type.
  NodeId AddConstant(std::string name, ConstTensorPtr value);
  // Marks `value` as a graph output.
  void AddOutput(ValueRef value, std::string name = "");

  size_t num_nodes() const { return nodes_.size(); }
  const Node& node(NodeId id) const { return nodes_[id]; }
  Node& mutable_node(NodeId id) { return nodes_[id]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<NodeId>& inputs() const { return inputs_; }
  // The graph inputs in order; readers use this to record "*Input" nodes added
  // with AddNode. Validate() checks that each names an "*Input" node.
  std::vector<NodeId>& mutable_inputs() { return inputs_; }
  const std::vector<GraphOutput>& outputs() const { return outputs_; }
  std::vector<GraphOutput>& mutable_outputs() { return outputs_; }

  const Options& options() const { return options_; }
  Options& mutable_options() { return options_; }

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  // The type of one value. `v` must refer to an existing output.
  const TensorType& TypeOf(ValueRef v) const { return nodes_[v.node].outputs[v.output]; }

  // A printable name for a node: its name, or "#id" when it has none.
  std::string NodeLabel(NodeId id) const;
  // The node with this name, or kNoNode.
  NodeId FindNode(std::string_view name) const;

  // Checks that the graph is well formed: every input names an existing node
  // and output, every node has at least one output and every output a valid
  // type (rank <= 8, non-negative dims; a container type, ValueKind, has
  // neither dims nor an encoding), constants carry data of their output
  // type, "*Input" nodes have no inputs, names are unique, the graph outputs
  // exist, and there is no cycle. The error message names the first offending
  // node, e.g. "node 'conv1' (#3): input 1 refers to missing node #99". When
  // `culprit` is not null it receives that node's id on failure (kNoNode when
  // the fault is not a node's, e.g. a bad graph output).
  absl::Status Validate(NodeId* culprit = nullptr) const;

  // Node ids in an order where every node comes after its producers; among
  // ready nodes the smallest id comes first, so the order is deterministic.
  // Fails with kInvalidArgument naming the smallest node id on a cycle and the
  // cycle itself ("node 'a' (#1): is on a cycle: 'a' (#1) -> 'b' (#2) -> 'a' (#1)").
  // `culprit`, when not null, receives that node's id on failure.
  absl::StatusOr<std::vector<NodeId>> TopologicalOrder(NodeId* culprit = nullptr) const;

 private:
  std::string name_;
  std::vector<Node> nodes_;
  std::vector<NodeId> inputs_;
  std::vector<GraphOutput> outputs_;
  Options options_;
};

}  // namespace egret

#endif  // EGRET_GRAPH_GRAPH_H_
