// ONNX import: the driver (reading inputs, ordering nodes, dispatching each
// to its handler, compacting the result) and the public entry points.
#include "egret/onnx/onnx_reader.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <new>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "egret/executor/runtime_body.h"
#include "egret/onnx/external_data_internal.h"
#include "egret/onnx/import_regroup_internal.h"
#include "egret/onnx/importer_internal.h"
#include "egret/onnx/memory_limit_internal.h"
#include "egret/onnx/onnx_writer.h"
#include "egret/support/diagnostic.h"
#include "egret/support/status_macros.h"
#include "onnx/defs/schema.h"

namespace egret {
namespace onnx_import {

const HandlerTable& Handlers() {
  static const HandlerTable* const kTable = [] {
    auto* t = new HandlerTable;
    RegisterElementwiseHandlers(*t);
    RegisterConvHandlers(*t);
    RegisterDataMovementHandlers(*t);
    RegisterLogicHandlers(*t);
    RegisterIndexHandlers(*t);
    RegisterEinsumHandlers(*t);
    RegisterControlFlowHandlers(*t);
    RegisterRecurrentHandlers(*t);
    RegisterNormalizationHandlers(*t);
    RegisterQuantizeHandlers(*t);
    RegisterBlockQuantizedHandlers(*t);
    RegisterContribHandlers(*t);
    return t;
  }();
  return *kTable;
}

absl::StatusOr<TensorType> Importer::TypeFromValueInfo(const onnx::TypeProto& tp,
                                                       std::string_view what, bool allow_symbolic) {
  absl::StatusOr<std::optional<TensorType>> container = onnx_internal::ContainerTypeFromOnnx(tp);
  if (!container.ok()) {
    return absl::UnimplementedError(
        absl::StrCat(std::string(what), ": ", container.status().message()));
  }
  if (container->has_value()) return **container;
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
          "%s has %s dim %d; give its size (%s)", what,
          dim.has_dim_param() ? absl::StrCat("symbolic '", dim.dim_param(), "'") : "an unknown", i,
          options_.symbolic_dim_hint));
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

namespace {

// The type of graph input `in` given whole by OnnxImportOptions::input_shapes:
// its element type, the given dims; a declared rank or static dim must agree.
absl::StatusOr<TensorType> GivenInputType(const onnx::ValueInfoProto& in, const Dims& dims) {
  const auto& tt = in.type().tensor_type();
  if (!in.type().has_tensor_type()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("graph input '%s' is not a tensor", in.name()));
  }
  if (tt.has_shape()) {
    const auto& shape = tt.shape();
    if (shape.dim_size() != static_cast<int>(dims.size())) {
      return absl::InvalidArgumentError(
          absl::StrFormat("graph input '%s' has rank %d; the given shape %s has rank %d", in.name(),
                          shape.dim_size(), DimsStr(dims), dims.size()));
    }
    for (int i = 0; i < shape.dim_size(); ++i) {
      if (shape.dim(i).has_dim_value() && shape.dim(i).dim_value() != dims[i]) {
        return absl::InvalidArgumentError(
            absl::StrFormat("graph input '%s' has dim %d = %d; the given shape %s disagrees",
                            in.name(), i, shape.dim(i).dim_value(), DimsStr(dims)));
      }
    }
  }
  absl::StatusOr<TensorType> t = MakeType(tt.elem_type(), dims);
  if (!t.ok()) {
    return absl::UnimplementedError(
        absl::StrFormat("graph input '%s': %s", in.name(), t.status().message()));
  }
  return t;
}

}  // namespace

namespace {

// `text` as one shell word: itself when it needs no quoting, else in single
// quotes.
std::string ShellWord(const std::string& text) {
  const bool plain = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || std::strchr("_-.=,:/+@%", c);
  });
  if (plain) return text;
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

absl::Status Importer::CheckInputOptions() const {
  const onnx::GraphProto& graph = model_.graph();
  absl::flat_hash_set<std::string> initializers;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  std::vector<std::string> names;         // graph inputs, in order
  std::vector<std::string> symbols;       // symbolic dims, in first-use order
  absl::flat_hash_set<std::string> seen;  // of symbols
  struct Unsized {
    const onnx::ValueInfoProto* input;
    int dim;
  };
  std::vector<Unsized> unsized;
  for (const auto& in : graph.input()) {
    if (initializers.contains(in.name())) continue;
    names.push_back(in.name());
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape()) continue;
    const auto& shape = in.type().tensor_type().shape();
    const bool given = options_.input_shapes.contains(in.name()) ||
                       options_.input_values.contains(in.name()) ||
                       options_.input_numbers.contains(in.name());
    for (int i = 0; i < shape.dim_size(); ++i) {
      const auto& dim = shape.dim(i);
      if (dim.has_dim_value() && dim.dim_value() >= 0) continue;
      if (dim.has_dim_param() && seen.insert(dim.dim_param()).second) {
        symbols.push_back(dim.dim_param());
      }
      if (given || options_.default_dim > 0 ||
          (dim.has_dim_param() && options_.dim_params.contains(dim.dim_param()))) {
        continue;
      }
      unsized.push_back({&in, i});
    }
  }
  auto listed = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("none") : absl::StrJoin(v, ", ");
  };
  auto unknown_input = [&](std::string_view what, const auto& given) -> absl::Status {
    for (const auto& [name, value] : given) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        return FileError(absl::StatusCode::kInvalidArgument,
                         absl::StrFormat("%s given for '%s', which is not a graph input (the "
                                         "graph inputs are: %s)",
                                         what, name, listed(names)));
      }
    }
    return absl::OkStatus();
  };
  EGRET_RETURN_IF_ERROR(unknown_input("a shape is", options_.input_shapes));
  EGRET_RETURN_IF_ERROR(unknown_input("a value is", options_.input_values));
  EGRET_RETURN_IF_ERROR(unknown_input("a value is", options_.input_numbers));
  for (const auto& [name, size] : options_.dim_params) {
    if (!seen.contains(name)) {
      return FileError(absl::StatusCode::kInvalidArgument,
                       absl::StrFormat("a size is given for symbolic dim '%s', which no graph "
                                       "input has (the symbolic dims are: %s)",
                                       name, listed(symbols)));
    }
  }
  if (unsized.empty()) return absl::OkStatus();
  // Every unsized dim, then the flags that would size them all with 1: a
  // --dim per symbol, or the whole --input-shape of an input with an unnamed
  // dim.
  std::vector<std::string> dims, flags;
  absl::flat_hash_set<std::string> flagged;
  for (const Unsized& u : unsized) {
    const auto& dim = u.input->type().tensor_type().shape().dim(u.dim);
    dims.push_back(absl::StrFormat(
        "'%s' dim %d (%s)", u.input->name(), u.dim,
        dim.has_dim_param() ? absl::StrCat("symbolic '", dim.dim_param(), "'") : "unknown"));
  }
  for (const Unsized& u : unsized) {
    const auto& shape = u.input->type().tensor_type().shape();
    bool unnamed = false;
    for (const auto& d : shape.dim()) unnamed |= !d.has_dim_value() && !d.has_dim_param();
    if (unnamed) {
      if (!flagged.insert(absl::StrCat("input:", u.input->name())).second) continue;
      std::vector<std::string> sizes;
      for (const auto& d : shape.dim()) {
        const bool sized = d.has_dim_value() && d.dim_value() >= 0;
        sizes.push_back(sized ? absl::StrCat(d.dim_value()) : "1");
      }
      flags.push_back(
          absl::StrCat("--input-shape ",
                       ShellWord(absl::StrCat(u.input->name(), "=", absl::StrJoin(sizes, "x")))));
    } else {
      const std::string& symbol = shape.dim(u.dim).dim_param();
      if (!flagged.insert(absl::StrCat("dim:", symbol)).second) continue;
      flags.push_back(absl::StrCat("--dim ", ShellWord(absl::StrCat(symbol, "=1"))));
    }
  }
  return FileError(
      absl::StatusCode::kUnimplemented,
      absl::StrFormat(
          "%d graph input dim%s: %s; give %s (%s)%s", unsized.size(),
          unsized.size() == 1 ? " has no size" : "s have no size", absl::StrJoin(dims, ", "),
          unsized.size() == 1 ? "it" : "them", options_.symbolic_dim_hint,
          options_.suggest_cli_flags ? absl::StrCat(", e.g. ", absl::StrJoin(flags, " ")) : ""));
}

absl::Status Importer::ReadInputs() {
  const onnx::GraphProto& graph = model_.graph();
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const onnx::TensorProto& init = graph.initializer(i);
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
    if (consume_ != nullptr) {
      onnx::TensorProto* owned = consume_->mutable_graph()->mutable_initializer(i);
      owned->clear_raw_data();
      owned->mutable_raw_data()->shrink_to_fit();
    }
  }
  EGRET_RETURN_IF_ERROR(CheckInputOptions());
  for (const auto& in : graph.input()) {
    if (values_.contains(in.name())) continue;  // an initializer (IR < 4): a constant
    auto given = options_.input_shapes.find(in.name());
    absl::StatusOr<TensorType> t =
        given != options_.input_shapes.end()
            ? GivenInputType(in, given->second)
            : TypeFromValueInfo(in.type(), absl::StrCat("graph input '", in.name(), "'"), true);
    if (!t.ok()) return FileError(t.status().code(), std::string(t.status().message()));
    if (auto num = options_.input_numbers.find(in.name()); num != options_.input_numbers.end()) {
      const std::vector<double>& v = num->second;
      const int64_t n = t->num_elements();
      if (static_cast<int64_t>(v.size()) != n && v.size() != 1) {
        return FileError(absl::StatusCode::kInvalidArgument,
                         absl::StrFormat("graph input '%s' is %s (%d elements); %d values given",
                                         in.name(), t->ToString(), n, v.size()));
      }
      std::vector<double> values = v.size() == 1 ? std::vector<double>(n, v[0]) : v;
      SetConst(in.name(), Tensor::FromValues(*t, values));
      continue;
    }
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
  for (const auto& vi : graph.input()) {
    if (vi.type().has_sequence_type() || vi.type().has_optional_type()) {
      container_types_[vi.name()] = &vi.type();
    }
  }
  for (const auto& vi : graph.output()) {
    declared_types_[vi.name()] = &vi.type();
    consumed_.insert(vi.name());
  }
  for (const auto& in : graph.input()) taken_names_.insert(in.name());
  for (const auto& init : graph.initializer()) taken_names_.insert(init.name());
  for (const auto& node : graph.node()) {
    for (const std::string& in : node.input()) {
      if (!in.empty()) consumed_.insert(in);  // "" is an absent optional input
    }
    for (const std::string& in : OuterReads(node)) consumed_.insert(in);
    for (const std::string& out : node.output()) taken_names_.insert(out);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> Importer::SortNodes(
    const std::vector<const onnx::NodeProto*>& nodes) {
  const int n = static_cast<int>(nodes.size());
  absl::flat_hash_map<std::string, int> producer;
  for (int i = 0; i < n; ++i) {
    for (const std::string& out : nodes[i]->output()) {
      if (out.empty()) continue;
      if (values_.contains(out) || !producer.emplace(out, i).second) {
        return absl::InvalidArgumentError(
            absl::StrFormat("node %s (%s): output '%s' is already defined", NodeLabel(*nodes[i], i),
                            nodes[i]->op_type(), out));
      }
    }
  }
  std::vector<std::vector<int>> users(n);
  std::vector<int> pending(n, 0);
  for (int i = 0; i < n; ++i) {
    for (const std::string& in : nodes[i]->input()) {
      if (in.empty() || values_.contains(in)) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("node %s (%s): input '%s' is not a graph input, an "
                            "initializer or any node's output",
                            NodeLabel(*nodes[i], i), nodes[i]->op_type(), in));
      }
      users[it->second].push_back(i);
      ++pending[i];
    }
    // What its subgraphs read from this scope must be computed first.
    for (const std::string& raw : OuterReads(*nodes[i])) {
      auto it = producer.find(Resolve(raw));
      if (it == producer.end() || it->second == i) continue;
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
        return absl::InvalidArgumentError(absl::StrFormat(
            "node %s (%s): is on a cycle", NodeLabel(*nodes[i], i), nodes[i]->op_type()));
      }
    }
  }
  return order;
}

namespace {

// Inputs that opsets newer than the linked ONNX library's schemas added (the
// library answers for such an opset with the op's newest schema it knows):
// from opset 18, every reduction and Pad take their axes as an optional input.
int NewerMaxInputs(const std::string& op, int opset, int schema_max) {
  if (opset < 18) return schema_max;
  static const absl::flat_hash_map<std::string_view, int> kOpset18 = {
      {"ReduceMean", 2},      {"ReduceMax", 2}, {"ReduceMin", 2},    {"ReduceProd", 2},
      {"ReduceL1", 2},        {"ReduceL2", 2},  {"ReduceLogSum", 2}, {"ReduceLogSumExp", 2},
      {"ReduceSumSquare", 2}, {"Pad", 4}};
  auto it = kOpset18.find(op);
  return it == kOpset18.end() ? schema_max : std::max(schema_max, it->second);
}

}  // namespace

absl::Status Importer::CheckArity(const onnx::NodeProto& node) const {
  const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  if (!default_domain) return absl::OkStatus();
  const onnx::OpSchema* schema =
      onnx::OpSchemaRegistry::Schema(node.op_type(), std::max(opset_, 1), "");
  if (schema == nullptr) return absl::OkStatus();
  const int max_input = NewerMaxInputs(node.op_type(), opset_, schema->max_input());
  if (node.input_size() < schema->min_input() || node.input_size() > max_input) {
    return absl::InvalidArgumentError(absl::StrFormat("has %d inputs; opset %d's %s takes %d to %d",
                                                      node.input_size(), opset_, node.op_type(),
                                                      schema->min_input(), max_input));
  }
  if (node.output_size() < schema->min_output() || node.output_size() > schema->max_output()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("has %d outputs; opset %d's %s gives %d to %d", node.output_size(), opset_,
                        node.op_type(), schema->min_output(), schema->max_output()));
  }
  const auto& formal = schema->inputs();
  for (int i = 0; i < node.input_size() && i < static_cast<int>(formal.size()); ++i) {
    if (node.input(i).empty() &&
        formal[i].GetOption() == onnx::OpSchema::FormalParameterOption::Single) {
      return absl::InvalidArgumentError(
          absl::StrFormat("required input %d (%s) is empty", i, formal[i].GetName()));
    }
  }
  return absl::OkStatus();
}

bool Importer::TouchesStrings(const onnx::NodeProto& node) const {
  if (node.op_type() == "Identity") return false;  // an alias
  for (const std::string& in : node.input()) {
    auto it = in.empty() ? values_.end() : values_.find(in);
    if (it != values_.end() && IsString(it->second.type.dtype)) return true;
  }
  if (node.op_type() == "Cast") {
    for (const auto& a : node.attribute()) {
      if (a.name() == "to" && a.i() == onnx::TensorProto::STRING) return true;
    }
  }
  return false;
}

absl::Status Importer::ImportNode(const onnx::NodeProto& node) {
  cur_ = &node;
  const NodeId first = static_cast<NodeId>(g_.num_nodes());
  const HandlerTable& handlers = Handlers();
  const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
  auto it = handlers.find(default_domain ? node.op_type()
                                         : absl::StrCat(node.domain(), ".", node.op_type()));
  EGRET_RETURN_IF_ERROR(CheckArity(node));
  absl::Status s;
  // A malformed node the checks above miss (an op of another domain, read
  // past its inputs) makes protobuf or the standard library throw: an error
  // of this node, never an abort.
  try {
    if (node.domain() == kEgretOnnxDomain) {
      s = DoEgretNode();
    } else if (it == handlers.end()) {
      s = DoOpaque("");
    } else if (TouchesStrings(node)) {
      s = DoOpaque("String tensors are kept opaque");
    } else {
      s = it->second(*this);
      if (IsUnmapped(s)) s = DoOpaque(std::string(s.message()));
    }
  } catch (const std::bad_alloc&) {
    throw;  // the caller's: too large an input, not a malformed node
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    s = absl::InvalidArgumentError(absl::StrCat("malformed node: ", what));
  }
  cur_ = &node;  // a subgraph's nodes were current meanwhile
  EGRET_RETURN_IF_ERROR(s);
  for (int k = 0; k < node.output_size(); ++k) {
    if (consumed_.contains(node.output(k)) && !values_.contains(node.output(k))) {
      return absl::InternalError(absl::StrCat("output '", node.output(k), "' was not produced"));
    }
  }
  FoldCurrent(first);
  return absl::OkStatus();
}

absl::Status Importer::ImportNodes(const std::vector<const onnx::NodeProto*>& nodes) {
  EGRET_ASSIGN_OR_RETURN(auto order, SortNodes(nodes));
  for (int i : order) {
    const onnx::NodeProto& node = *nodes[i];
    EGRET_RETURN_IF_ERROR(onnx_internal::CheckMemoryLimit(options_));
    absl::Status s = ImportNode(node);
    if (!s.ok()) {
      absl::StatusCode code = IsUnmapped(s) ? absl::StatusCode::kInvalidArgument : s.code();
      return absl::Status(code, absl::StrFormat("node %s (%s): %s", NodeLabel(node, i),
                                                node.op_type(), s.message()));
    }
  }
  cur_ = nullptr;
  return absl::OkStatus();
}

// Keeps the nodes the outputs depend on (and the graph inputs), in order.
namespace {

Graph Compact(Graph& g) {
  const size_t n = g.num_nodes();
  std::vector<bool> live(n, false);
  size_t kept = 0;
  std::vector<NodeId> stack;
  for (const GraphOutput& o : g.outputs()) stack.push_back(o.value.node);
  for (NodeId id : g.inputs()) stack.push_back(id);
  while (!stack.empty()) {
    NodeId id = stack.back();
    stack.pop_back();
    if (live[id]) continue;
    live[id] = true;
    ++kept;
    for (const ValueRef& in : g.node(id).inputs) stack.push_back(in.node);
  }
  std::vector<NodeId> remap(n, kNoNode);
  Graph out;
  out.set_name(g.name());
  out.ReserveNodes(kept);
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

}  // namespace

absl::StatusOr<Graph> Importer::Run() {
  for (const auto& os : model_.opset_import()) {
    if (os.domain().empty() || os.domain() == "ai.onnx") opset_ = static_cast<int>(os.version());
  }
  if (!model_.has_graph()) {
    return FileError(absl::StatusCode::kInvalidArgument, "the model has no graph");
  }
  g_.set_name(model_.graph().name());
  EGRET_RETURN_IF_ERROR(ReadInputs());
  std::vector<const onnx::NodeProto*> nodes;
  for (const auto& node : model_.graph().node()) nodes.push_back(&node);
  if (absl::Status s = ImportNodes(nodes); !s.ok()) {
    return FileError(s.code(), std::string(s.message()));
  }
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

}  // namespace onnx_import

bool IsOnnxOpMapped(std::string_view op_type) {
  return onnx_import::Handlers().contains(std::string(op_type));
}

namespace {

absl::StatusOr<onnx::ModelProto> ParseModel(std::string_view bytes, std::string_view file) {
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: error: not a valid ONNX model (protobuf parse failed)", file));
  }
  return model;
}

absl::StatusOr<Graph> ImportModel(const onnx::ModelProto& model, std::string_view file,
                                  const OnnxImportOptions& options,
                                  onnx::ModelProto* consumable = nullptr) {
  // Graphs with an "onnx.SequenceMap" import its body when they run.
  SetRuntimeBodyImporter(&onnx_import::ImportRuntimeBody);
  // A model egret wrote reads back node for node when its records verify.
  if (std::optional<Graph> g = onnx_import::RegroupEgretModel(model, options)) {
    return *std::move(g);
  }
  onnx_import::Importer importer(std::string(file), model, options);
  if (consumable == &model) importer.ConsumeInitializers(consumable);
  absl::StatusOr<Graph> g = importer.Run();
  // Messages quote names from the model (any bytes): keep the error one line.
  if (!g.ok())
    return absl::Status(g.status().code(), EscapeControlChars(std::string(g.status().message())));
  return g;
}

}  // namespace

absl::StatusOr<Graph> ParseOnnx(std::string_view bytes, std::string_view file,
                                const OnnxImportOptions& options) {
  EGRET_ASSIGN_OR_RETURN(onnx::ModelProto model, ParseModel(bytes, file));
  return ImportModel(model, file, options);
}

absl::StatusOr<Graph> ReadOnnx(const std::string& path, const OnnxImportOptions& options) {
  absl::StatusOr<std::string> bytes = ReadFile(path, options.max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  EGRET_ASSIGN_OR_RETURN(onnx::ModelProto model, ParseModel(*bytes, path));
  if (onnx_internal::HasExternalData(model)) {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    absl::Status s = onnx_internal::LoadExternalData(&model, dir, options.max_external_bytes);
    if (s.ok()) s = onnx_internal::CheckMemoryLimit(options);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          EscapeControlChars(absl::StrCat(path, ": error: ", s.message())));
    }
  }
  return ImportModel(model, path, options, &model);
}

absl::StatusOr<std::vector<OnnxInputSignature>> ReadOnnxInputSignature(const std::string& path,
                                                                       uint64_t max_file_bytes) {
  absl::StatusOr<std::string> bytes = ReadFile(path, max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  EGRET_ASSIGN_OR_RETURN(onnx::ModelProto model, ParseModel(*bytes, path));
  absl::flat_hash_set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  std::vector<OnnxInputSignature> out;
  for (const auto& in : model.graph().input()) {
    if (initializers.contains(in.name())) continue;
    OnnxInputSignature sig;
    sig.name = in.name();
    const onnx::TypeProto& tp = in.type();
    if (!tp.has_tensor_type()) {
      sig.elem_type = tp.has_sequence_type()   ? "sequence"
                      : tp.has_optional_type() ? "optional"
                                               : "non-tensor";
      sig.has_shape = false;
      out.push_back(std::move(sig));
      continue;
    }
    sig.elem_type = onnx_internal::OnnxTypeName(tp.tensor_type().elem_type());
    sig.has_shape = tp.tensor_type().has_shape();
    for (const auto& d : tp.tensor_type().shape().dim()) {
      sig.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? absl::StrCat(d.dim_value())
                         : d.has_dim_param()                     ? d.dim_param()
                                                                 : "?");
    }
    out.push_back(std::move(sig));
  }
  return out;
}

absl::StatusOr<Tensor> ReadOnnxValue(const std::string& path, const TensorType& type,
                                     uint64_t max_file_bytes) {
  if (type.is_tensor()) return ReadOnnxTensor(path, max_file_bytes);
  absl::StatusOr<std::string> bytes = ReadFile(path, max_file_bytes);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<Tensor> t;
  if (type.is_sequence()) {
    onnx::SequenceProto proto;
    if (!proto.ParseFromString(*bytes)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: error: not a valid ONNX SequenceProto", path));
    }
    t = onnx_internal::SequenceFromProto(proto, type);
  } else {
    onnx::OptionalProto proto;
    if (!proto.ParseFromString(*bytes)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: error: not a valid ONNX OptionalProto", path));
    }
    t = onnx_internal::OptionalFromProto(proto, type);
  }
  if (!t.ok()) {
    return absl::Status(t.status().code(),
                        absl::StrFormat("%s: error: %s", path, t.status().message()));
  }
  return t;
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
