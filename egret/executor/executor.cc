#include "egret/executor/executor.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "egret/executor/evaluate_op.h"
#include "egret/executor/folded_values.h"
#include "egret/executor/kernels/dnnl_support.h"
#include "egret/executor/kernels/kernels_internal.h"
#include "egret/executor/kernels/onnx/onnx_kernels_internal.h"
#include "egret/executor/runtime_body.h"
#include "egret/graph/checked_math.h"
#include "egret/graph/op_table.h"
#include "egret/graph/saturated_count.h"
#include "egret/graph/shape_inference.h"

namespace egret {
namespace {

using backend_internal::KernelContext;
using backend_internal::Kernels;

// The computed outputs of one node. For a node whose single declared output
// is Multi, `tensors` holds the pieces "$Out" selects from.
struct Slot {
  std::vector<std::shared_ptr<const Tensor>> tensors;
  std::vector<TensorType> multi_types;  // set for a Multi node
  bool multi = false;
  int64_t bytes = 0;  // counted toward live bytes
  // Not computed (ExecuteOptions::unavailable): the node without a kernel
  // this one depends on.
  NodeId blocked_by = kNoNode;
  // A graph constant, or a value computed from constants alone that the
  // run's cache keeps (FoldedValues).
  bool constant = false;
};

absl::Status NodeError(const Graph& g, NodeId id, const std::string& msg) {
  return absl::InvalidArgumentError(absl::StrFormat("node %s: %s", g.NodeLabel(id), msg));
}

absl::Status CheckInputs(const Graph& g, absl::Span<const Tensor> inputs) {
  if (inputs.size() != g.inputs().size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("graph has %d inputs, %d given", g.inputs().size(), inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& want = g.node(g.inputs()[i]).outputs[0];
    if (inputs[i].type() != want) {
      return absl::InvalidArgumentError(absl::StrFormat("input %d (%s) must be %s, got %s", i,
                                                        g.NodeLabel(g.inputs()[i]), want.ToString(),
                                                        inputs[i].type().ToString()));
    }
  }
  return absl::OkStatus();
}

// Ops whose kernels read a quantized operand as its real value rounded to
// float, exactly what a Dequantize to Float32 stores, and store a Float32
// result in a quantized type as a Quantize of it would: they read inputs 0-2
// through a Dequantize, and store through a Quantize. The convolutions
// compute on 8-bit quantized operands in integers (executor/kernels/conv_quantized.cc);
// the binary elementwise ops in float, a chunk of the dequantized operands
// at a time (executor/kernels/elementwise.cc), when KernelContext::through
// marks such an input.
bool ReadsThroughDequantize(std::string_view op) {
  const std::string_view base = BaseOpName(op);
  return base == "Conv2d" || base == "DepthWiseConv2d" || base == "ElementWiseAdd" ||
         base == "ElementWiseSubtract" || base == "ElementWiseMultiply" ||
         base == "ElementWiseMaximum" || base == "ElementWiseMinimum";
}

// The quantized value a Dequantize to Float32 of the same dims reads, or
// null when `ref` is not such a Dequantize's output.
const TensorType* DequantizedValue(const Graph& g, const ValueRef& ref) {
  const Node& dq = g.node(ref.node);
  if (BaseOpName(dq.op) != "Dequantize" || dq.inputs.size() != 1 || dq.outputs.size() != 1 ||
      dq.outputs[0].dtype != DType::kFloat32) {
    return nullptr;
  }
  const ValueRef& src = dq.inputs[0];
  const Node& q = g.node(src.node);
  if (q.op == kShapeOp || src.output >= q.outputs.size()) return nullptr;
  const TensorType& qt = q.outputs[src.output];
  return IsQuantized(qt.dtype) && qt.dims == dq.outputs[0].dims ? &qt : nullptr;
}

// Which inputs nodes read through a Dequantize (ReadsThroughDequantize).
//  - through[id], bit i (inputs 0-2): node id reads input i as a quantized
//    value standing for its Dequantize's floats (KernelContext::through).
//  - skip[id], bit i: that quantized value is the Dequantize's own input,
//    read in its place; the Dequantize is not run unless something else
//    reads it.
//  - moved[id]: a Transpose or Reshape of a Dequantize's floats, every
//    reader of which reads through, runs on the quantized value instead and
//    stores this type (moving bytes commutes with dequantizing them, for one
//    encoding): an ONNX QDQ graph's input Transpose to NHWC, so that the
//    first convolution computes in integers too. Its readers read it
//    through (through set, skip not).
struct ReadThroughPlan {
  std::vector<uint8_t> through, skip;
  std::vector<std::optional<TensorType>> moved;
};

ReadThroughPlan PlanReadThrough(const Graph& g) {
  const size_t n = g.num_nodes();
  ReadThroughPlan plan{std::vector<uint8_t>(n, 0), std::vector<uint8_t>(n, 0),
                       std::vector<std::optional<TensorType>>(n)};
  // Whether every reader of a node's value reads it through (at input 0-2
  // of a ReadsThroughDequantize op), and the value is not a graph output.
  std::vector<uint8_t> readers_read_through(n, 1);
  for (const GraphOutput& o : g.outputs()) readers_read_through[o.value.node] = 0;
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = g.node(id);
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!ReadsThroughDequantize(node.op) || i >= 3) readers_read_through[node.inputs[i].node] = 0;
    }
  }
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = g.node(id);
    const std::string_view base = BaseOpName(node.op);
    if ((base == "Transpose" || base == "Reshape") && !node.inputs.empty() &&
        node.outputs.size() == 1 && node.outputs[0].dtype == DType::kFloat32 &&
        readers_read_through[id] != 0) {
      const TensorType* qt = DequantizedValue(g, node.inputs[0]);
      if (qt != nullptr && !qt->per_axis) {
        plan.through[id] |= 1;
        plan.skip[id] |= 1;
        plan.moved[id] = TensorType(qt->dtype, node.outputs[0].dims, qt->zero_offset, qt->stepsize);
      }
    }
  }
  for (NodeId id = 0; id < n; ++id) {
    const Node& node = g.node(id);
    if (!ReadsThroughDequantize(node.op)) continue;
    for (size_t i = 0; i < node.inputs.size() && i < 3; ++i) {
      const ValueRef& in = node.inputs[i];
      if (plan.moved[in.node] && in.output == 0) {
        plan.through[id] |= 1u << i;
      } else if (DequantizedValue(g, in) != nullptr) {
        plan.through[id] |= 1u << i;
        plan.skip[id] |= 1u << i;
      }
    }
  }
  return plan;
}

std::string_view KernelName(std::string_view op) {
  // An op egret does not know (an opaque "onnx.<Op>" node) is looked up by
  // its full name: its dots are not an implementation suffix.
  return FindOpDef(op) == nullptr ? op : BaseOpName(op);
}

// The checks Execute() makes of each node and EvaluateOp() of its op, with
// messages that do not name the node (Execute() prefixes them).

// Input i of `op` is a "$Shape": the message when `def` says it is data.
std::string ShapeAsDataError(std::string_view op, const OpDef& def, size_t i) {
  if (def.IsParam(static_cast<int>(i))) return "";
  return absl::StrFormat(
      "%s input %d (%s) is a $Shape, which holds no data; only parameters may be", op, i,
      def.InputName(static_cast<int>(i)));
}

// The shape function's output types against the declared ones: the
// message when their number or dims differ.
std::string DeclaredTypesError(std::string_view op, absl::Span<const TensorType> inferred,
                               absl::Span<const TensorType> declared) {
  if (inferred.size() != declared.size()) {
    return absl::StrFormat("%s computes %d outputs, the node declares %d", op, inferred.size(),
                           declared.size());
  }
  for (size_t k = 0; k < inferred.size(); ++k) {
    if (inferred[k].dims != declared[k].dims) {
      return absl::StrFormat("%s output %d is declared %s but its inputs give %s", op, k,
                             declared[k].ToString(), inferred[k].ToString());
    }
  }
  return "";
}

// String tensors hold no bytes: only the kernels made for them read or
// make them. True when kernel `kernel_name` would have to.
bool RefusesStrings(std::string_view kernel_name, absl::Span<const OperandInfo> ops,
                    absl::Span<const TensorType> outputs) {
  if (backend_internal::TakesStrings(kernel_name)) return false;
  for (const OperandInfo& o : ops) {
    if (IsString(o.type->dtype)) return true;
  }
  for (const TensorType& t : outputs) {
    if (IsString(t.dtype)) return true;
  }
  return false;
}

}  // namespace

ExecuteCache::ExecuteCache()
    : constants_(std::make_unique<backend_internal::ConstantCache>()),
      primitives_(std::make_unique<backend_internal::PrimitiveCache>()),
      folded_(std::make_unique<backend_internal::FoldedValues>()) {}
ExecuteCache::~ExecuteCache() = default;
int64_t ExecuteCache::bytes() const { return constants_->bytes() + folded_->bytes(); }

bool KeepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  // No allocation is a mapping of its own (M_MMAP_MAX 0; a threshold
  // would stop at glibc's 32 MiB cap, and a 1024x1024 network's values are
  // 64 MiB and more), so every freed value goes back to the heap for the
  // next node.
  const bool mmap_ok = mallopt(M_MMAP_MAX, 0) == 1;
  const bool trim_ok = mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
  return mmap_ok && trim_ok;
#else
  return false;
#endif
}

bool HasKernel(std::string_view op) {
  std::string_view base = BaseOpName(op);
  if (base == kConstOp || base == kShapeOp || base == kOutOp || base == kInputOp) return true;
  return Kernels().contains(KernelName(op));
}

bool DrawsWithoutSeed(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  if (n.attrs.contains("seed")) return false;
  static constexpr std::string_view kRandom[] = {"onnx.RandomNormal",     "onnx.RandomUniform",
                                                 "onnx.RandomNormalLike", "onnx.RandomUniformLike",
                                                 "onnx.Bernoulli",        "onnx.Multinomial"};
  for (std::string_view op : kRandom) {
    if (n.op == op) return true;
  }
  if (n.op != "onnx.Dropout") return false;
  if (auto it = n.attrs.find("is_test"); it != n.attrs.end()) {
    if (const auto* v = std::get_if<int64_t>(&it->second); v != nullptr && *v == 0) return true;
  }
  // The training_mode input, ONNX position 2 (absent positions are left out
  // of n.inputs and listed in "onnx.absent_inputs").
  std::vector<int64_t> absent;
  if (auto it = n.attrs.find("onnx.absent_inputs"); it != n.attrs.end()) {
    if (const auto* v = std::get_if<std::vector<int64_t>>(&it->second)) absent = *v;
  }
  int index = 0;
  for (int pos = 0; pos < 2; ++pos) {
    if (std::find(absent.begin(), absent.end(), pos) == absent.end()) ++index;
  }
  if (std::find(absent.begin(), absent.end(), 2) != absent.end() ||
      index >= static_cast<int>(n.inputs.size())) {
    return false;  // no training_mode: inference
  }
  const Node& mode = g.node(n.inputs[index].node);
  const bool constant_false = IsConstantOp(mode.op) && mode.constant != nullptr &&
                              mode.constant->num_elements() == 1 && mode.constant->GetReal(0) == 0;
  return !constant_false;
}

bool HasKernel(const Node& node) {
  if (!HasKernel(node.op)) return false;
  auto has_body = [&](std::string_view name) {
    auto it = node.attrs.find(name);
    return it != node.attrs.end() && std::holds_alternative<GraphPtr>(it->second);
  };
  // A kept body (runtime_body.h) is imported when the node runs.
  auto has_or_keeps = [&](std::string_view name) {
    return has_body(name) || HasKeptGraph(node.attrs, name);
  };
  if (node.op == "onnx.If") return has_or_keeps("then_branch") && has_or_keeps("else_branch");
  if (node.op == "onnx.Loop") return has_or_keeps("body");
  if (node.op == "onnx.Scan") return has_body("body");
  if (node.op == "onnx.SequenceMap") return node.attrs.contains(kRuntimeBodyAttr);
  return true;
}

absl::StatusOr<std::vector<Tensor>> Execute(const Graph& g, absl::Span<const Tensor> inputs,
                                            const ExecuteOptions& options) {
  if (absl::Status s = g.Validate(); !s.ok()) return s;
  if (absl::Status s = CheckInputs(g, inputs); !s.ok()) return s;
  const size_t n = g.num_nodes();
  const backend_internal::ThreadScope threads(options.threads);

  // The value each input is read from: its own, or a Dequantize's input.
  const ReadThroughPlan plan = PlanReadThrough(g);
  const std::vector<uint8_t>& through = plan.through;
  auto source = [&](NodeId id, size_t i) -> const ValueRef& {
    const ValueRef& in = g.node(id).inputs[i];
    return (plan.skip[id] >> i & 1) != 0 ? g.node(in.node).inputs[0] : in;
  };

  // Nodes the outputs depend on, and how many uses of each remain.
  std::vector<bool> live(n, false);
  std::vector<NodeId> stack;
  for (const GraphOutput& o : g.outputs()) stack.push_back(o.value.node);
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (live[id]) continue;
    live[id] = true;
    for (size_t i = 0; i < g.node(id).inputs.size(); ++i) stack.push_back(source(id, i).node);
  }
  std::vector<int64_t> uses(n, 0);
  for (NodeId id = 0; id < n; ++id) {
    if (!live[id]) continue;
    for (size_t i = 0; i < g.node(id).inputs.size(); ++i) ++uses[source(id, i).node];
  }
  std::vector<bool> is_output(n, false);
  for (const GraphOutput& o : g.outputs()) is_output[o.value.node] = true;
  // Nodes (ReadsThroughDequantize) whose Float32 result only a Quantize
  // reads store it in the Quantize's type straight away (the kernel
  // quantizes while the result is in cache), and the Quantize takes that
  // value: exactly what it computes from the floats (FloatsOut stores a
  // quantized type as QuantizeFloats does). store_for[node] = quantize,
  // stored_by[quantize] = node.
  std::vector<NodeId> store_for(n, kNoNode), stored_by(n, kNoNode);
  for (NodeId id = 0; id < n; ++id) {
    const Node& q = g.node(id);
    if (!live[id] || BaseOpName(q.op) != "Quantize" || q.inputs.size() != 1 ||
        q.outputs.size() != 1 || !IsQuantized(q.outputs[0].dtype)) {
      continue;
    }
    const ValueRef& in = q.inputs[0];
    const Node& conv = g.node(in.node);
    if (ReadsThroughDequantize(conv.op) && conv.outputs.size() == 1 &&
        conv.outputs[0].dtype == DType::kFloat32 && conv.outputs[0].dims == q.outputs[0].dims &&
        uses[in.node] == 1 && !is_output[in.node]) {
      store_for[in.node] = id;
      stored_by[id] = in.node;
    }
  }
  std::vector<int64_t> input_index(n, -1);
  for (size_t i = 0; i < g.inputs().size(); ++i) input_index[g.inputs()[i]] = i;

  auto order = g.TopologicalOrder();
  if (!order.ok()) return order.status();
  std::vector<Slot> slots(n);
  int64_t live_bytes = 0;
  ExecuteStats stats;
  struct OpTotal {
    int64_t nodes = 0;
    std::chrono::steady_clock::duration time{};
  };
  absl::flat_hash_map<std::string_view, OpTotal> op_totals;

  // Frees the inputs of `node` whose last use this was.
  auto release_inputs = [&](NodeId id) {
    for (size_t i = 0; i < g.node(id).inputs.size(); ++i) {
      const ValueRef& in = source(id, i);
      if (--uses[in.node] == 0 && !is_output[in.node]) {
        live_bytes -= slots[in.node].bytes;
        slots[in.node] = Slot();
      }
    }
  };

  for (NodeId id : *order) {
    if (!live[id]) continue;
    const Node& node = g.node(id);
    Slot& slot = slots[id];
    if (node.op == kInputOp) {
      // Borrowed: the caller's tensor outlives this call.
      slot.tensors.emplace_back(std::shared_ptr<const Tensor>(), &inputs[input_index[id]]);
      continue;
    }
    if (node.op == kConstOp) {
      slot.tensors.push_back(node.constant);
      slot.constant = true;
      continue;
    }
    if (node.op == kShapeOp) {
      if (node.outputs.size() != 1 || node.outputs[0].dtype != DType::kInt32) {
        return NodeError(g, id, "a $Shape must have one Int32 output");
      }
      continue;  // no data: its type is its value
    }

    // A node depending on one that could not run cannot run either.
    if (options.unavailable != nullptr) {
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        const NodeId from = source(id, i).node;
        if (slots[from].blocked_by != kNoNode) slot.blocked_by = slots[from].blocked_by;
      }
      if (slot.blocked_by == kNoNode && BaseOpName(node.op) != kOutOp && !HasKernel(node)) {
        slot.blocked_by = id;
      }
      if (slot.blocked_by != kNoNode) {
        release_inputs(id);
        continue;
      }
    }

    if (stored_by[id] != kNoNode) {
      // Computed by the convolution it reads (store_for): take its value.
      Slot& from = slots[stored_by[id]];
      slot.tensors = std::move(from.tensors);
      slot.bytes = std::exchange(from.bytes, 0);
      release_inputs(id);
      ++op_totals[KernelName(node.op)].nodes;
      continue;
    }

    const auto node_start = std::chrono::steady_clock::now();
    // Gather the operands.
    const OpDef* def = FindOpDef(node.op);
    std::vector<OperandInfo> ops(node.inputs.size());
    // Values this node may take over (KernelContext::reusable), with their
    // types copied: a kernel that moves a value's storage out leaves its
    // Tensor empty, and ops[i].type must stay valid.
    std::vector<Tensor*> reusable(node.inputs.size(), nullptr);
    std::vector<TensorType> reused_types;
    reused_types.reserve(node.inputs.size());
    // The inputs that are graph constants, for the cache of derived values.
    std::vector<std::shared_ptr<const Tensor>> constants;
    if (options.cache != nullptr) constants.resize(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const ValueRef& in = source(id, i);
      const Node& p = g.node(in.node);
      const Slot& ps = slots[in.node];
      OperandInfo& o = ops[i];
      if (p.op == kShapeOp) {
        o.type = &p.outputs[0];
        o.is_shape = true;
        if (def != nullptr) {
          if (std::string e = ShapeAsDataError(node.op, *def, i); !e.empty()) {
            return NodeError(g, id, e);
          }
        }
      } else if (ps.multi) {
        o.type = &p.outputs[0];
        o.multi = ps.multi_types;
      } else {
        const std::shared_ptr<const Tensor>& t = ps.tensors[in.output];
        o.type = &t->type();
        o.value = t.get();
        if (ps.constant && !constants.empty()) constants[i] = t;
        // Last use of a value this run computed and alone owns: the node
        // reads it once (uses counts every read), nothing shares it.
        if (uses[in.node] == 1 && !is_output[in.node] && p.op != kInputOp && p.op != kConstOp &&
            t.use_count() == 1 && (through[id] >> i & 1) == 0) {
          // Owned by this run alone (made by a kernel), so not truly const.
          reusable[i] = const_cast<Tensor*>(t.get());
          reused_types.push_back(t->type());
          o.type = &reused_types.back();
        }
      }
    }

    // Shape function, checked against the node's declared outputs. An op
    // egret does not know has none: its declared types are the truth.
    InferOptions infer;
    infer.declared = node.outputs;
    // Inputs read through a Dequantize are typed as the Dequantize's output.
    std::vector<OperandInfo> infer_ops;
    if (through[id] != 0) {
      infer_ops = ops;
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        if ((through[id] >> i & 1) != 0)
          infer_ops[i].type = &g.node(node.inputs[i].node).outputs[0];
      }
    }
    auto inferred = def != nullptr
                        ? InferOutputTypes(node.op, through[id] != 0 ? infer_ops : ops, infer)
                        : absl::StatusOr<std::vector<TensorType>>(
                              std::vector<TensorType>(node.outputs.begin(), node.outputs.end()));
    if (!inferred.ok()) {
      if (absl::IsUnimplemented(inferred.status())) {
        return absl::UnimplementedError(absl::StrFormat(
            "node %s: unknown op '%s' (no reference kernel)", g.NodeLabel(id), node.op));
      }
      return NodeError(g, id, std::string(inferred.status().message()));
    }
    const bool multi = node.outputs.size() == 1 && node.outputs[0].dtype == DType::kMulti;
    if (!multi) {
      if (std::string e = DeclaredTypesError(node.op, *inferred, node.outputs); !e.empty()) {
        return NodeError(g, id, e);
      }
    }
    std::vector<TensorType> out_types =
        multi ? *inferred : std::vector<TensorType>(node.outputs.begin(), node.outputs.end());
    if (store_for[id] != kNoNode) out_types[0] = g.node(store_for[id]).outputs[0];
    if (plan.moved[id]) out_types[0] = *plan.moved[id];

    // Run.
    if (BaseOpName(node.op) == kOutOp) {
      // The shape function has checked the selector.
      auto sel = ReadIntParam(ops[1], "$Out selector");
      if (!sel.ok()) return NodeError(g, id, std::string(sel.status().message()));
      const std::shared_ptr<const Tensor>& src = slots[node.inputs[0].node].tensors[sel->back()];
      if (src->type() == out_types[0]) {
        slot.tensors.push_back(src);  // shared with the Multi producer
      } else {
        auto t = std::make_shared<Tensor>(
            backend_internal::MakeTensor(out_types[0], backend_internal::ReadReals(*src)));
        slot.bytes = SaturatingAdd(slot.bytes, t->type().byte_size());
        slot.tensors.push_back(std::move(t));
      }
    } else {
      const std::string_view kernel_name = KernelName(node.op);
      auto it = Kernels().find(kernel_name);
      if (it == Kernels().end()) {
        return absl::UnimplementedError(absl::StrFormat(
            "node %s: unknown op '%s' (no reference kernel)", g.NodeLabel(id), node.op));
      }
      if (RefusesStrings(kernel_name, ops, out_types)) {
        return absl::UnimplementedError(absl::StrFormat(
            "node %s: op '%s' does not take String tensors", g.NodeLabel(id), node.op));
      }
      for (size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].value == nullptr && !ops[i].is_shape) {
          return NodeError(g, id,
                           absl::StrFormat("%s input %d is a Multi value; select one "
                                           "output with $Out",
                                           node.op, i));
        }
      }
      // A node reading only constants (and shapes) computes a constant: the
      // run's cache keeps it (FoldedValues), and later runs take it.
      std::string fold_key;
      if (options.cache != nullptr && !multi && node.attrs.empty() && through[id] == 0 &&
          store_for[id] == kNoNode && !node.inputs.empty()) {
        bool all_constant = true;
        for (size_t i = 0; i < ops.size() && all_constant; ++i) {
          all_constant = ops[i].is_shape || constants[i] != nullptr;
        }
        if (all_constant) {
          std::vector<const TensorType*> types;
          for (const OperandInfo& o : ops) types.push_back(o.type);
          fold_key = backend_internal::FoldedValues::Key(
              kernel_name, backend_internal::KernelThreads(), constants, types, out_types);
        }
      }
      if (!fold_key.empty()) {
        if (const auto* kept = options.cache->folded().Find(fold_key)) {
          slot.tensors = *kept;
          slot.constant = true;
          release_inputs(id);
          OpTotal& total = op_totals[KernelName(node.op)];
          ++total.nodes;
          total.time += std::chrono::steady_clock::now() - node_start;
          continue;
        }
      }
      int64_t bytes = 0;
      for (const TensorType& t : out_types) bytes = SaturatingAdd(bytes, t.byte_size());
      if (options.max_live_bytes > 0 && SaturatingAdd(live_bytes, bytes) > options.max_live_bytes) {
        return absl::ResourceExhaustedError(absl::StrFormat(
            "node %s: live values would take %s bytes, over the limit of %d", g.NodeLabel(id),
            SaturatedCountText(SaturatingAdd(live_bytes, bytes)), options.max_live_bytes));
      }
      KernelContext ctx{kernel_name,
                        ops,
                        out_types,
                        &node.attrs,
                        reusable,
                        constants,
                        options.cache != nullptr ? &options.cache->constants() : nullptr,
                        options.cache != nullptr ? &options.cache->primitives() : nullptr,
                        through[id],
                        store_for[id] != kNoNode};
      auto result = it->second(ctx);
      if (!result.ok()) {
        // Keeps the kernel's code: Unimplemented (a case a reference kernel
        // does not cover) is not an invalid graph.
        return absl::Status(result.status().code(), absl::StrFormat("node %s: %s", g.NodeLabel(id),
                                                                    result.status().message()));
      }
      if (result->size() != out_types.size()) {
        return absl::InternalError(absl::StrFormat("node %s: kernel %s returned %d outputs",
                                                   g.NodeLabel(id), node.op, result->size()));
      }
      for (Tensor& t : *result) slot.tensors.push_back(std::make_shared<Tensor>(std::move(t)));
      ++stats.nodes_run;
      if (!fold_key.empty()) {
        // Held by the cache from now on, as a constant is by its graph:
        // not counted toward live bytes.
        options.cache->folded().Insert(std::move(fold_key), constants, slot.tensors);
        slot.constant = true;
      } else {
        slot.bytes = bytes;
      }
    }
    if (multi) {
      slot.multi = true;
      slot.multi_types = out_types;
    }
    live_bytes = SaturatingAdd(live_bytes, slot.bytes);
    stats.peak_live_bytes = std::max(stats.peak_live_bytes, live_bytes);

    release_inputs(id);
    OpTotal& total = op_totals[KernelName(node.op)];
    ++total.nodes;
    total.time += std::chrono::steady_clock::now() - node_start;
  }
  for (const auto& [op, total] : op_totals) {
    stats.ops.push_back({std::string(op), total.nodes,
                         std::chrono::duration<double, std::milli>(total.time).count()});
  }
  std::sort(stats.ops.begin(), stats.ops.end(), [](const OpTime& a, const OpTime& b) {
    return a.ms != b.ms ? a.ms > b.ms : a.op < b.op;
  });

  std::vector<Tensor> out;
  out.reserve(g.outputs().size());
  if (options.unavailable != nullptr) options.unavailable->clear();
  // A computed value only the slot still holds (use count 1: not an input,
  // whose pointer owns nothing, nor a constant, which the graph shares) is
  // moved out at its last place among the outputs, not copied. Such a
  // value was made as a mutable Tensor (make_shared<Tensor> above).
  absl::flat_hash_map<ValueRef, size_t> last_place;
  for (size_t k = 0; k < g.outputs().size(); ++k) last_place[g.outputs()[k].value] = k;
  for (size_t k = 0; k < g.outputs().size(); ++k) {
    const GraphOutput& o = g.outputs()[k];
    const Slot& s = slots[o.value.node];
    if (options.unavailable != nullptr) {
      if (s.blocked_by != kNoNode) {
        options.unavailable->push_back(
            absl::StrFormat("depends on node %s (%s), which has no reference kernel",
                            g.NodeLabel(s.blocked_by), g.node(s.blocked_by).op));
        TensorType unknown;  // built, not moved: GCC's false "maybe-uninitialized"
        unknown.dtype = DType::kUnknown;
        out.emplace_back(unknown);
        continue;
      }
      options.unavailable->emplace_back();
    }
    if (s.multi || o.value.output >= s.tensors.size() || !s.tensors[o.value.output]) {
      return NodeError(g, o.value.node,
                       "a graph output must be a tensor value (not a $Shape or Multi value)");
    }
    const std::shared_ptr<const Tensor>& t = s.tensors[o.value.output];
    if (t.use_count() == 1 && last_place[o.value] == k) {
      out.push_back(std::move(const_cast<Tensor&>(*t)));
    } else {
      out.push_back(*t);
    }
  }
  if (options.stats != nullptr) *options.stats = stats;
  return out;
}

absl::StatusOr<Tensor> EvaluateOp(std::string_view op, const Attributes& attrs,
                                  absl::Span<const OperandInfo> inputs, const TensorType& output) {
  const OpDef* def = FindOpDef(op);
  if (def == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("EvaluateOp: '%s' is not an op of the op table", op));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].is_shape) {
      if (std::string e = ShapeAsDataError(op, *def, i); !e.empty()) {
        return absl::InvalidArgumentError(e);
      }
    }
    if (!inputs[i].is_shape && inputs[i].value == nullptr) {
      return absl::InvalidArgumentError(absl::StrFormat("%s input %d has no value", op, i));
    }
  }
  const std::string_view kernel_name = KernelName(op);
  auto it = Kernels().find(kernel_name);
  if (it == Kernels().end() || BaseOpName(op) == kOutOp) {
    return absl::UnimplementedError(absl::StrFormat("unknown op '%s' (no reference kernel)", op));
  }
  const backend_internal::ThreadScope threads(0);
  InferOptions infer;
  infer.declared = absl::MakeConstSpan(&output, 1);
  absl::StatusOr<std::vector<TensorType>> inferred = InferOutputTypes(op, inputs, infer);
  if (!inferred.ok()) return absl::InvalidArgumentError(inferred.status().message());
  if (std::string e = DeclaredTypesError(op, *inferred, infer.declared); !e.empty()) {
    return absl::InvalidArgumentError(e);
  }
  if (RefusesStrings(kernel_name, inputs, infer.declared)) {
    return absl::UnimplementedError(absl::StrFormat("op '%s' does not take String tensors", op));
  }
  KernelContext ctx;
  ctx.op = kernel_name;
  ctx.inputs = inputs;
  ctx.outputs = absl::MakeConstSpan(&output, 1);
  ctx.attrs = &attrs;
  absl::StatusOr<std::vector<Tensor>> result = it->second(ctx);
  if (!result.ok()) return result.status();
  if (result->size() != 1) {
    return absl::InternalError(
        absl::StrFormat("kernel %s returned %d outputs", op, result->size()));
  }
  return std::move((*result)[0]);
}

}  // namespace egret
