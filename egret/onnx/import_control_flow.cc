// Control flow: If with a constant condition is inlined (the taken branch's
// nodes are imported in place, nested Ifs recursively); If with a runtime
// condition, Loop and Scan stay opaque, typed by ONNX's shape inference (run
// with the tensors their bodies read from outside), by the branches' and
// body's declared types, or (If) by importing both branches as dead code.
#include "egret/onnx/importer_internal.h"

namespace egret::onnx_import {

namespace {

// The tensors `g` reads that it does not define, in first-use order.
void FreeNames(const onnx::GraphProto& g, std::vector<std::string>* out,
               absl::flat_hash_set<std::string>* seen) {
  absl::flat_hash_set<std::string> defined;
  for (const auto& in : g.input()) defined.insert(in.name());
  for (const auto& init : g.initializer()) defined.insert(init.name());
  for (const auto& n : g.node()) defined.insert(n.output().begin(), n.output().end());
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
  std::optional<int32_t> et = OnnxFromDType(t.dtype);
  if (!et) return;
  onnx::TypeProto& tp = owned_types_.emplace_back();
  tp.mutable_tensor_type()->set_elem_type(*et);
  for (int64_t d : t.dims) tp.mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
  declared_types_[name] = &tp;
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
  const Value& cond = In(0);
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
    return Unmapped("the condition is not a constant");
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
  return Unmapped(exact ? "control flow (the body is not imported)"
                        : "control flow with a trip count unknown at import");
}

void RegisterControlFlowHandlers(HandlerTable& t) {
  t["If"] = [](Importer& im) { return im.DoIf(); };
  t["Loop"] = [](Importer& im) { return im.DoLoop(); };
}

}  // namespace egret::onnx_import
