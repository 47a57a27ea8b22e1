// Control flow: If with a constant condition is inlined (the taken branch's
// nodes are imported in place, nested Ifs recursively). If with a runtime
// condition, Loop and Scan (opset 9+) become "onnx.If", "onnx.Loop" and
// "onnx.Scan" nodes whose bodies are imported as egret Graphs (by a nested
// importer) and stored as subgraph attributes; what the bodies read from
// enclosing scopes becomes explicit inputs of the node and of each body
// (kCapturedAttr, egret/graph/graph.h), and the node's output types come
// from the bodies' imports. When a body cannot be imported, or an output's
// type is not known statically (a Loop scan output whose trip count is only
// known at run time), the node stays opaque as before: typed by ONNX's
// shape inference, by the branches' and body's declared types, or (If) by
// importing both branches as dead code.
#include "egret/executor/runtime_body.h"
#include "egret/onnx/importer_internal.h"
#include "egret/onnx/kept_graph_internal.h"

namespace egret::onnx_import {

namespace {

// The tensors `g` reads that it does not define, in first-use order.
void FreeNames(const onnx::GraphProto& g, std::vector<std::string>* out,
               absl::flat_hash_set<std::string>* seen) {
  const absl::flat_hash_set<std::string> defined = onnx_internal::OwnNames(g);
  auto use = [&](const std::string& name) {
    if (!name.empty() && !defined.contains(name) && seen->insert(name).second) {
      out->push_back(name);
    }
  };
  for (const auto& n : g.node()) {
    for (const std::string& in : n.input()) use(in);
    for (const std::string& in : Importer::OuterReads(n)) use(in);
  }
  for (const auto& o : g.output()) use(o.name());
}

// A static tensor type from a ValueInfo's type, else nullopt.
std::optional<TensorType> StaticType(const onnx::TypeProto& tp) {
  absl::StatusOr<std::optional<TensorType>> container = onnx_internal::ContainerTypeFromOnnx(tp);
  if (!container.ok()) return std::nullopt;
  if (container->has_value()) return **container;
  if (!tp.has_tensor_type() || !tp.tensor_type().has_shape()) return std::nullopt;
  Dims d;
  for (const auto& dim : tp.tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0) return std::nullopt;
    d.push_back(dim.dim_value());
  }
  absl::StatusOr<TensorType> t = MakeType(tp.tensor_type().elem_type(), d);
  if (!t.ok()) return std::nullopt;
  return *t;
}

const onnx::GraphProto* GraphAttr(const onnx::NodeProto& n, std::string_view name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name && a.has_g()) return &a.g();
  }
  return nullptr;
}

// Pops the scope an inlined subgraph pushed, on every path out.
class ScopeGuard {
 public:
  explicit ScopeGuard(std::vector<absl::flat_hash_map<std::string, std::string>>& scopes)
      : scopes_(scopes) {}
  ~ScopeGuard() { scopes_.pop_back(); }
  ScopeGuard(const ScopeGuard&) = delete;
  ScopeGuard& operator=(const ScopeGuard&) = delete;

 private:
  std::vector<absl::flat_hash_map<std::string, std::string>>& scopes_;
};

}  // namespace

void Importer::DeclareType(const std::string& name, const TensorType& t) {
  onnx::TypeProto tp;
  if (!onnx_internal::TypeToOnnx(t, &tp)) return;
  declared_types_[name] = &owned_types_.emplace_back(std::move(tp));
}

bool Importer::HasStaticDeclaredType(const std::string& name) const {
  auto it = declared_types_.find(name);
  return it != declared_types_.end() && StaticType(*it->second).has_value();
}

std::vector<std::string> Importer::OuterReads(const onnx::NodeProto& n) {
  std::vector<std::string> out;
  absl::flat_hash_set<std::string> seen;
  for (const auto& a : n.attribute()) {
    if (a.has_g()) FreeNames(a.g(), &out, &seen);
    for (const auto& g : a.graphs()) FreeNames(g, &out, &seen);
  }
  return out;
}

const std::string& Importer::Resolve(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return found->second;
  }
  return name;
}

// Imports the nodes of subgraph `g` into this graph, its tensors renamed where
// their names are taken, and returns the importer's names of its outputs.
absl::StatusOr<std::vector<std::string>> Importer::InlineGraph(const onnx::GraphProto& g) {
  absl::flat_hash_map<std::string, std::string> scope;
  auto define = [&](const std::string& name) -> absl::Status {
    if (name.empty()) return absl::OkStatus();
    if (scope.contains(name)) {
      return absl::InvalidArgumentError(absl::StrCat("'", name, "' is defined twice"));
    }
    std::string fresh = name;
    for (int k = 1; taken_names_.contains(fresh) || values_.contains(fresh); ++k) {
      fresh = absl::StrCat(name, "@", k);
    }
    taken_names_.insert(fresh);
    scope.emplace(name, std::move(fresh));
    return absl::OkStatus();
  };
  for (const auto& init : g.initializer()) EGRET_RETURN_IF_ERROR(define(init.name()));
  for (const auto& n : g.node()) {
    for (const std::string& out : n.output()) EGRET_RETURN_IF_ERROR(define(out));
  }
  scopes_.push_back(std::move(scope));
  ScopeGuard guard(scopes_);

  for (const auto& init : g.initializer()) {
    absl::StatusOr<Tensor> t = TensorFromProto(init);
    if (!t.ok()) {
      return absl::Status(t.status().code(),
                          absl::StrCat("initializer '", init.name(), "': ", t.status().message()));
    }
    SetConst(Resolve(init.name()), *std::move(t));
  }
  for (const auto& vi : g.value_info()) declared_types_[Resolve(vi.name())] = &vi.type();
  std::vector<std::string> outputs;
  for (const auto& vi : g.output()) {
    const std::string& name = Resolve(vi.name());
    declared_types_.try_emplace(name, &vi.type());
    consumed_.insert(name);
    outputs.push_back(name);
  }
  std::vector<const onnx::NodeProto*> nodes;
  for (const auto& n : g.node()) {
    onnx::NodeProto& c = inlined_nodes_.emplace_back(n);
    for (int i = 0; i < c.input_size(); ++i) {
      if (c.input(i).empty()) continue;
      c.set_input(i, Resolve(c.input(i)));
      consumed_.insert(c.input(i));
    }
    for (int k = 0; k < c.output_size(); ++k) {
      if (!c.output(k).empty()) c.set_output(k, Resolve(c.output(k)));
    }
    for (const std::string& raw : OuterReads(c)) consumed_.insert(Resolve(raw));
    nodes.push_back(&c);
  }
  EGRET_RETURN_IF_ERROR(ImportNodes(nodes));
  for (const std::string& out : outputs) {
    if (!values_.contains(out)) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", out, "' is not produced by any node"));
    }
  }
  return outputs;
}

std::vector<std::string> Importer::CapturedNames() {
  std::vector<std::string> out;
  for (const std::string& raw : OuterReads(*cur_)) {
    auto it = values_.find(Resolve(raw));
    if (it != values_.end() && !it->second.constant) out.push_back(raw);
  }
  return out;
}

absl::StatusOr<GraphPtr> Importer::ImportBody(const onnx::GraphProto& body,
                                              const std::vector<TensorType>& formal,
                                              const std::vector<std::string>& captured) {
  if (body.input_size() != static_cast<int>(formal.size())) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the body has %d inputs, %d expected", body.input_size(), formal.size()));
  }
  onnx::ModelProto m;
  m.set_ir_version(model_.ir_version() > 0 ? model_.ir_version() : 7);
  *m.mutable_opset_import() = model_.opset_import();
  onnx::GraphProto* g = m.mutable_graph();
  *g = body;
  g->clear_input();
  auto add_input = [&](const std::string& name, const TensorType& t) -> absl::Status {
    onnx::TypeProto type;
    if (!onnx_internal::TypeToOnnx(t, &type)) {
      return absl::UnimplementedError(absl::StrFormat(
          "body input '%s' has type %s, which ONNX cannot spell", name, t.ToString()));
    }
    onnx::ValueInfoProto* vi = g->add_input();
    vi->set_name(name);
    *vi->mutable_type() = std::move(type);
    return absl::OkStatus();
  };
  for (int i = 0; i < body.input_size(); ++i) {
    EGRET_RETURN_IF_ERROR(add_input(body.input(i).name(), formal[i]));
  }
  OnnxImportOptions opts;
  opts.nhwc = options_.nhwc;
  // Not dim_params: they size the outer graph's symbolic input dims, while
  // every input of the body is typed here from the outer graph (formal,
  // captured, constant), so none is symbolic; forwarded, they made the body
  // fail the check that each given name is some input's dim.
  opts.default_dim = options_.default_dim;
  opts.symbolic_dim_hint = options_.symbolic_dim_hint;
  opts.max_file_bytes = options_.max_file_bytes;
  // Captured values, then the constants of enclosing scopes the body reads
  // (bound as values, so that the body's import folds with them).
  // A body defining a name itself (a branch shadowing an outer tensor) does
  // not read the enclosing one: its input for it gets an unused name.
  absl::flat_hash_set<std::string> defined = onnx_internal::OwnNames(body);
  absl::flat_hash_set<std::string> listed;
  for (const std::string& raw : captured) {
    EGRET_ASSIGN_OR_RETURN(ValueRef r, Get(Resolve(raw), kPlain));
    std::string name = raw;
    for (int k = 1; defined.contains(name); ++k) name = absl::StrCat(raw, "@outer", k);
    defined.insert(name);
    EGRET_RETURN_IF_ERROR(add_input(name, g_.TypeOf(r)));
    listed.insert(raw);
  }
  EGRET_ASSIGN_OR_RETURN(auto constants, FreeConstants(body, listed));
  for (const auto& [raw, value] : constants) {
    EGRET_RETURN_IF_ERROR(add_input(raw, value->type()));
    opts.input_values.emplace(raw, *value);
  }
  Importer sub(file_, m, opts);
  absl::StatusOr<Graph> imported = sub.Run();
  if (!imported.ok()) {
    // The nested importer's "file: error: " prefix: the caller adds its own.
    std::string msg(imported.status().message());
    const std::string prefix = absl::StrCat(file_, ": error: ");
    if (msg.rfind(prefix, 0) == 0) msg.erase(0, prefix.size());
    return absl::Status(imported.status().code(), msg);
  }
  if (imported->inputs().size() != formal.size() + captured.size()) {
    return absl::InternalError("the body's inputs were not all kept");
  }
  return std::make_shared<const Graph>(*std::move(imported));
}

absl::StatusOr<Importer::ControlFlow> Importer::ImportBodies(
    const std::vector<std::string>& names, const std::vector<std::vector<TensorType>>& formal) {
  ControlFlow cf;
  const std::vector<std::string> captured = CapturedNames();
  for (size_t i = 0; i < names.size(); ++i) {
    const onnx::GraphProto* body = GraphAttr(*cur_, names[i]);
    if (body == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("needs graph attribute ", names[i]));
    }
    const onnx::NodeProto* self = cur_;
    absl::StatusOr<GraphPtr> g = ImportBody(*body, formal[i], captured);
    cur_ = self;
    if (!g.ok()) {
      return absl::Status(g.status().code(), absl::StrCat(names[i], ": ", g.status().message()));
    }
    cf.bodies.emplace(names[i], *std::move(g));
  }
  for (const std::string& raw : captured) {
    EGRET_ASSIGN_OR_RETURN(ValueRef r, Get(Resolve(raw), kPlain));
    cf.captured.push_back(r);
  }
  cf.types.resize(cur_->output_size());
  return cf;
}

absl::Status Importer::DoIf() {
  const onnx::NodeProto* self = cur_;
  const onnx::GraphProto* then_g = GraphAttr(*self, "then_branch");
  const onnx::GraphProto* else_g = GraphAttr(*self, "else_branch");
  if (then_g == nullptr || else_g == nullptr) {
    return absl::InvalidArgumentError("needs graph attributes then_branch and else_branch");
  }
  const int n = self->output_size();
  if (then_g->output_size() != n || else_g->output_size() != n) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "has %d outputs, its branches %d and %d", n, then_g->output_size(), else_g->output_size()));
  }
  const Value cond = In(0);
  std::string body_error;
  if (!cond.constant) {
    absl::StatusOr<ControlFlow> cf = ImportBodies({"then_branch", "else_branch"}, {{}, {}});
    if (cf.ok()) {
      const Graph& a = *cf->bodies.at("then_branch");
      const Graph& b = *cf->bodies.at("else_branch");
      for (int k = 0; k < n && cf.ok(); ++k) {
        const TensorType& ta = a.TypeOf(a.outputs()[k].value);
        const TensorType& tb = b.TypeOf(b.outputs()[k].value);
        if (ta != tb) {
          cf = absl::UnimplementedError(absl::StrFormat("output %d: the branches give %s and %s", k,
                                                        ta.ToString(), tb.ToString()));
        } else {
          cf->types[k] = ta;
        }
      }
    }
    cur_ = self;
    if (cf.ok()) return DoOpaque("", &*cf);
    body_error = std::string(cf.status().message());
  }
  if (!cond.constant) {
    // Typed by ONNX's inference or, failing that, by the branches' declared
    // output types when they agree, or else by importing both branches as
    // dead code (dropped by Compact) when they give the same types: egret's
    // import folds shape arithmetic ONNX's inference leaves open.
    std::vector<std::optional<TensorType>> inferred = InferOnnxOutputTypes();
    std::vector<int> open;
    for (int k = 0; k < n; ++k) {
      if (!OutputUsed(k) || inferred[k] || HasStaticDeclaredType(Out(k))) continue;
      std::optional<TensorType> a = StaticType(then_g->output(k).type());
      std::optional<TensorType> b = StaticType(else_g->output(k).type());
      if (a && b && *a == *b) {
        declared_types_[Out(k)] = &then_g->output(k).type();
      } else {
        open.push_back(k);
      }
    }
    if (!open.empty()) {
      absl::StatusOr<std::vector<std::string>> a = InlineGraph(*then_g);
      absl::StatusOr<std::vector<std::string>> b = InlineGraph(*else_g);
      cur_ = self;
      for (int k : open) {
        std::string why;
        if (!a.ok() || !b.ok()) {
          why = a.ok() ? absl::StrCat("else_branch: ", b.status().message())
                       : absl::StrCat("then_branch: ", a.status().message());
        } else if (values_.at((*a)[k]).type != values_.at((*b)[k]).type) {
          why = absl::StrFormat("the branches give %s and %s", values_.at((*a)[k]).type.ToString(),
                                values_.at((*b)[k]).type.ToString());
        } else {
          DeclareType(Out(k), values_.at((*a)[k]).type);
          continue;
        }
        return absl::UnimplementedError(absl::StrFormat(
            "the condition is not a constant and the type of output '%s' is unknown (%s); "
            "freezing the graph inputs the condition depends on inlines one branch",
            Out(k), why));
      }
    }
    return Unmapped(absl::StrCat(
        "the condition is not a constant and the branches are not imported (", body_error, ")"));
  }
  if (cond.type.num_elements() != 1) {
    return absl::InvalidArgumentError("the condition must have one element");
  }
  const bool taken = cond.constant->GetValue(0) != 0;
  absl::StatusOr<std::vector<std::string>> outs = InlineGraph(taken ? *then_g : *else_g);
  cur_ = self;
  if (!outs.ok()) {
    return absl::Status(outs.status().code(), absl::StrCat(taken ? "then_branch" : "else_branch",
                                                           ": ", outs.status().message()));
  }
  for (int k = 0; k < n; ++k) {
    if (OutputUsed(k)) Alias(Out(k), (*outs)[k]);
  }
  return absl::OkStatus();
}

// Loop runs exactly M times when M is a constant, the initial condition is
// absent or a constant true, and the body passes its condition through; then
// each scan output is its body output stacked M times. Those types are
// declared here for DoOpaque (ONNX's inference leaves the stacked dim open).
absl::Status Importer::DoLoop() {
  const onnx::GraphProto* body = GraphAttr(*cur_, "body");
  if (body == nullptr) return absl::InvalidArgumentError("needs graph attribute body");
  const int carried = cur_->input_size() - 2;
  if (carried < 0 || body->input_size() != carried + 2 ||
      body->output_size() != cur_->output_size() + 1 || cur_->output_size() < carried) {
    return absl::InvalidArgumentError("body inputs and outputs do not match the loop's");
  }
  std::optional<int64_t> trips;
  if (Has(0) && In(0).constant && In(0).type.num_elements() == 1) {
    trips = TensorInts(*In(0).constant)[0];
  }
  const bool cond_true = !Has(1) || (In(1).constant && In(1).type.num_elements() == 1 &&
                                     In(1).constant->GetValue(0) != 0);
  // The body's condition output must be its condition input (through Identities).
  std::string c = body->output(0).name();
  for (int hops = 0; hops < body->node_size() && c != body->input(1).name(); ++hops) {
    for (const auto& n : body->node()) {
      if (n.op_type() == "Identity" && n.output_size() == 1 && n.output(0) == c &&
          n.input_size() == 1) {
        c = n.input(0);
        break;
      }
    }
  }
  const bool exact = trips && *trips >= 0 && cond_true && c == body->input(1).name();
  // The body imported: carried values keep their types, scan outputs are
  // typed when the trip count is exact.
  std::string body_error;
  {
    const onnx::NodeProto* self = cur_;
    std::vector<TensorType> formal = {ScalarType(DType::kInt64), ScalarType(DType::kBool)};
    for (int k = 0; k < carried; ++k) {
      formal.push_back(Has(k + 2) ? In(k + 2).type : TensorType());
    }
    absl::StatusOr<ControlFlow> cf = absl::UnimplementedError("a loop-carried input is absent");
    bool all_carried = true;
    for (int k = 0; k < carried; ++k) all_carried = all_carried && Has(k + 2);
    if (all_carried) cf = ImportBodies({"body"}, {formal});
    cur_ = self;
    if (cf.ok()) {
      const Graph& g = *cf->bodies.at("body");
      auto out_type = [&](int k) -> const TensorType& { return g.TypeOf(g.outputs()[k].value); };
      if (out_type(0).dtype != DType::kBool || out_type(0).num_elements() != 1) {
        cf = absl::UnimplementedError(
            absl::StrFormat("the body's condition output is %s", out_type(0).ToString()));
      }
      for (int k = 0; k < cur_->output_size() && cf.ok(); ++k) {
        const TensorType& t = out_type(k + 1);
        if (k < carried) {
          if (t != formal[k + 2]) {
            cf = absl::UnimplementedError(
                absl::StrFormat("loop-carried value %d enters as %s and the body gives %s", k,
                                formal[k + 2].ToString(), t.ToString()));
          } else {
            cf->types[k] = t;
          }
        } else if (exact) {
          TensorType st = t;
          st.dims.insert(st.dims.begin(), *trips);
          cf->types[k] = st;
        } else if (OutputUsed(k) && !HasStaticDeclaredType(Out(k))) {
          cf = absl::UnimplementedError(absl::StrFormat(
              "scan output '%s' has as many rows as the loop runs, which is not known at import",
              Out(k)));
        }
      }
    }
    if (cf.ok()) return DoOpaque("", &*cf);
    body_error = std::string(cf.status().message());
  }
  // The body's output types, as ONNX infers them with the loop's inputs.
  std::optional<onnx::ModelProto> inferred = InferCurrentNode();
  const onnx::GraphProto* typed = inferred ? GraphAttr(inferred->graph().node(0), "body") : nullptr;
  if (typed == nullptr || typed->output_size() != body->output_size()) typed = body;
  for (int k = 0; k < cur_->output_size(); ++k) {
    if (Out(k).empty() || HasStaticDeclaredType(Out(k))) continue;
    std::optional<TensorType> t = StaticType(typed->output(k + 1).type());
    if (!t) continue;
    if (k < carried) {
      // A loop-carried value keeps its type when the body's output agrees.
      if (!Has(k + 2) || *t != In(k + 2).type) continue;
    } else if (exact) {
      t->dims.insert(t->dims.begin(), *trips);
    } else {
      continue;
    }
    DeclareType(Out(k), *t);
  }
  return Unmapped(absl::StrCat("the body is not imported (", body_error, ")"));
}

// Scan (opset 9+): N state variables, then num_scan_inputs sequences sliced
// along scan_input_axes; each scan output is its body output stacked along
// scan_output_axes, as many rows as the sequences have.
absl::Status Importer::DoScan() {
  if (opset_ < 9) return DoScan8();
  const onnx::GraphProto* body = GraphAttr(*cur_, "body");
  if (body == nullptr) return absl::InvalidArgumentError("needs graph attribute body");
  const int m = static_cast<int>(AttrInt("num_scan_inputs", 0));
  const int n = cur_->input_size() - m;
  if (m < 1 || n < 0 || body->input_size() != cur_->input_size() ||
      body->output_size() != cur_->output_size() || cur_->output_size() < n) {
    return absl::InvalidArgumentError("body inputs and outputs do not match the scan's");
  }
  for (int i = 0; i < cur_->input_size(); ++i) {
    if (!Has(i)) return absl::InvalidArgumentError(absl::StrFormat("input %d is empty", i));
  }
  std::vector<int64_t> in_axes = AttrInts("scan_input_axes").value_or(std::vector<int64_t>(m, 0));
  std::vector<int64_t> out_axes =
      AttrInts("scan_output_axes").value_or(std::vector<int64_t>(cur_->output_size() - n, 0));
  if (static_cast<int>(in_axes.size()) != m ||
      static_cast<int>(out_axes.size()) != cur_->output_size() - n) {
    return absl::InvalidArgumentError("scan_input_axes or scan_output_axes has the wrong length");
  }
  std::vector<TensorType> formal;
  for (int k = 0; k < n; ++k) formal.push_back(In(k).type);
  int64_t len = -1;
  for (int j = 0; j < m; ++j) {
    TensorType t = In(n + j).type;
    const int64_t r = t.rank();
    int64_t axis = in_axes[j] < 0 ? in_axes[j] + r : in_axes[j];
    if (axis < 0 || axis >= r) {
      return absl::InvalidArgumentError(absl::StrFormat("scan input %d has no axis %d", j, axis));
    }
    if (len >= 0 && t.dims[axis] != len) {
      return absl::InvalidArgumentError("the scan inputs have different lengths");
    }
    len = t.dims[axis];
    t.dims.erase(t.dims.begin() + axis);
    formal.push_back(t);
  }
  EGRET_ASSIGN_OR_RETURN(ControlFlow cf, ImportScanBody(formal, n));
  for (int k = n; k < cur_->output_size(); ++k) {
    TensorType& t = *cf.types[k];
    const int64_t r = t.rank() + 1;
    int64_t axis = out_axes[k - n] < 0 ? out_axes[k - n] + r : out_axes[k - n];
    if (axis < 0 || axis >= r) {
      return absl::InvalidArgumentError(
          absl::StrFormat("scan output %d has no axis %d", k - n, out_axes[k - n]));
    }
    t.dims.insert(t.dims.begin() + axis, len);
  }
  return DoOpaque("", &cf);
}

// Scan before opset 9: an optional sequence_lens input, then N state
// variables and num_scan_inputs sequences, all with a leading batch axis (the
// sequences' axis 1 is scanned); the body sees one batch entry without those
// axes, the outputs get them back ([batch, ...] states, [batch, sequence,
// ...] scan outputs).
absl::Status Importer::DoScan8() {
  const onnx::GraphProto* body = GraphAttr(*cur_, "body");
  if (body == nullptr) return absl::InvalidArgumentError("needs graph attribute body");
  const int m = static_cast<int>(AttrInt("num_scan_inputs", 0));
  const int n = cur_->input_size() - 1 - m;
  if (m < 1 || n < 0 || body->input_size() != n + m || body->output_size() != cur_->output_size() ||
      cur_->output_size() < n) {
    return absl::InvalidArgumentError("body inputs and outputs do not match the scan's");
  }
  for (int i = 1; i < cur_->input_size(); ++i) {
    if (!Has(i)) return absl::InvalidArgumentError(absl::StrFormat("input %d is empty", i));
  }
  if (Has(0)) return Unmapped("Scan with sequence_lens (opset 8) is not imported");
  std::vector<TensorType> formal;
  int64_t batch = -1, len = -1;
  for (int i = 1; i < cur_->input_size(); ++i) {
    TensorType t = In(i).type;
    const bool scanned = i > n;
    if (t.rank() < (scanned ? 2 : 1) || (batch >= 0 && t.dims[0] != batch) ||
        (scanned && len >= 0 && t.dims[1] != len)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("input %d (%s) does not fit the batch and sequence", i, t.ToString()));
    }
    batch = t.dims[0];
    if (scanned) len = t.dims[1];
    t.dims.erase(t.dims.begin(), t.dims.begin() + (scanned ? 2 : 1));
    formal.push_back(t);
  }
  EGRET_ASSIGN_OR_RETURN(ControlFlow cf, ImportScanBody(formal, n));
  for (int k = 0; k < cur_->output_size(); ++k) {
    TensorType& t = *cf.types[k];
    if (k >= n) t.dims.insert(t.dims.begin(), len);
    t.dims.insert(t.dims.begin(), batch);
  }
  return DoOpaque("", &cf);
}

// SequenceMap's body is kept as ONNX, self-contained: its formal inputs,
// then one input per value it reads from enclosing scopes that is computed
// (the node's captured inputs, in order), and the enclosing constants it
// reads as its own initializers. It is imported when the node runs, for the
// types of the elements it meets (ImportRuntimeBody).
absl::StatusOr<Importer::ControlFlow> Importer::ImportScanBody(
    const std::vector<TensorType>& formal, int n) {
  absl::StatusOr<ControlFlow> cf = ImportBodies({"body"}, {formal});
  if (!cf.ok()) {
    return Unmapped(absl::StrCat("the body is not imported (", cf.status().message(), ")"));
  }
  const Graph& g = *cf->bodies.at("body");
  cf->types.resize(cur_->output_size());
  for (int k = 0; k < cur_->output_size(); ++k) {
    TensorType t = g.TypeOf(g.outputs()[k].value);
    if (k < n && t != formal[k]) {
      return Unmapped(absl::StrFormat("state variable %d enters as %s and the body gives %s", k,
                                      formal[k].ToString(), t.ToString()));
    }
    cf->types[k] = std::move(t);
  }
  return cf;
}

absl::StatusOr<std::vector<std::pair<std::string, const Tensor*>>> Importer::FreeConstants(
    const onnx::GraphProto& body, const absl::flat_hash_set<std::string>& listed) {
  std::vector<std::string> free;
  absl::flat_hash_set<std::string> seen;
  FreeNames(body, &free, &seen);
  std::vector<std::pair<std::string, const Tensor*>> out;
  for (const std::string& raw : free) {
    if (listed.contains(raw)) continue;
    auto it = values_.find(Resolve(raw));
    if (it == values_.end()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("the body reads '%s', which no enclosing scope defines", raw));
    }
    if (!it->second.constant) {
      return absl::InternalError(absl::StrFormat("'%s' is read but not captured", raw));
    }
    out.emplace_back(raw, &*it->second.constant);
  }
  return out;
}

absl::Status Importer::DoSequenceMap() {
  const onnx::GraphProto* body = GraphAttr(*cur_, "body");
  if (body == nullptr) return absl::InvalidArgumentError("needs graph attribute body");
  onnx::GraphProto kept = *body;
  const std::vector<std::string> captured = CapturedNames();
  const absl::flat_hash_set<std::string> listed(captured.begin(), captured.end());
  for (const std::string& raw : captured) kept.add_input()->set_name(raw);
  EGRET_ASSIGN_OR_RETURN(auto constants, FreeConstants(*body, listed));
  for (const auto& [raw, value] : constants) {
    onnx::TensorProto* init = kept.add_initializer();
    TensorToProto(*value, init);
    init->set_name(raw);
  }
  for (auto& out : *kept.mutable_output()) out.clear_type();  // the import types them
  ControlFlow cf;
  for (const std::string& raw : captured) {
    EGRET_ASSIGN_OR_RETURN(ValueRef r, Get(Resolve(raw), kPlain));
    cf.captured.push_back(r);
  }
  cf.types = InferOnnxOutputTypes();
  cf.types.resize(cur_->output_size());
  for (int k = 0; k < cur_->output_size(); ++k) {
    if (!cf.types[k] && HasStaticDeclaredType(Out(k))) {
      cf.types[k] = StaticType(*declared_types_.at(Out(k)));
    }
  }
  cf.attrs[std::string(kRuntimeBodyAttr)] = onnx_internal::KeepGraph(kept);
  return DoOpaque("", &cf);
}

absl::StatusOr<GraphPtr> ImportRuntimeBody(const Attributes& attrs, std::string_view key,
                                           absl::Span<const TensorType> inputs) {
  // DoSequenceMap's body has its captured values as inputs already; a kept
  // graph reads them by name.
  const bool kept = key.rfind(kKeptGraphAttrPrefix, 0) == 0;
  EGRET_ASSIGN_OR_RETURN(onnx::GraphProto body, onnx_internal::SerializedGraph(attrs, key));
  if (kept) {
    // Its reads of the enclosing graph become inputs, after its own, in the
    // order of the node's captured values; a name the body defines itself is
    // not the enclosing one there, and takes an input of another name. Types
    // are the run's: the declared ones of its outputs and values may differ
    // (a carried value that grows), so the import infers them.
    EGRET_ASSIGN_OR_RETURN(std::vector<std::string> reads, onnx_internal::KeptReads(attrs));
    absl::flat_hash_set<std::string> defined;
    onnx_internal::AddDefinedNames(body, &defined);
    for (const std::string& raw : reads) {
      std::string name = raw;
      for (int k = 1; defined.contains(name); ++k) name = absl::StrCat(raw, "@outer", k);
      defined.insert(name);
      body.add_input()->set_name(name);
    }
    for (auto& out : *body.mutable_output()) out.clear_type();
    body.clear_value_info();
  }
  if (body.input_size() != static_cast<int>(inputs.size())) {
    return absl::InvalidArgumentError(absl::StrFormat("the body has %d inputs, the node gives %d",
                                                      body.input_size(), inputs.size()));
  }
  for (int i = 0; i < body.input_size(); ++i) {
    if (!onnx_internal::TypeToOnnx(inputs[i], body.mutable_input(i)->mutable_type())) {
      return absl::UnimplementedError(absl::StrFormat(
          "body input %d has type %s, which ONNX cannot spell", i, inputs[i].ToString()));
    }
  }
  int64_t opset = 0;
  if (auto it = attrs.find("onnx.opset"); it != attrs.end()) {
    if (const auto* v = std::get_if<int64_t>(&it->second)) opset = *v;
  }
  if (opset <= 0) return absl::InvalidArgumentError("the node does not record its opset");
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(opset);
  *m.mutable_graph() = std::move(body);
  Importer importer("<body>", m, OnnxImportOptions{});
  absl::StatusOr<Graph> g = importer.Run();
  if (!g.ok()) return g.status();
  if (g->inputs().size() != inputs.size()) {
    return absl::InternalError("the body's inputs were not all kept");
  }
  return std::make_shared<const Graph>(*std::move(g));
}

void RegisterControlFlowHandlers(HandlerTable& t) {
  t["SequenceMap"] = [](Importer& im) { return im.DoSequenceMap(); };
  t["Scan"] = [](Importer& im) { return im.DoScan(); };
  t["If"] = [](Importer& im) { return im.DoIf(); };
  t["Loop"] = [](Importer& im) { return im.DoLoop(); };
}

}  // namespace egret::onnx_import
