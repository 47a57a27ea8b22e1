#include "egret/pipeline/uniform_constant.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "egret/egraph/egraph.h"
#include "egret/graph/tensor.h"

namespace egret {
namespace {

// The repeated value of class c's constant when it is a Float32 constant of
// more than one element, all equal (NaN never is).
std::optional<double> UniformValue(const EGraph& g, Id c) {
  const Tensor* t = g.ConstantOf(g.Find(c)).get();
  if (t == nullptr || t->type().dtype != DType::kFloat32 || t->num_elements() < 2) {
    return std::nullopt;
  }
  const double v = t->GetValue(0);
  for (int64_t i = 1; i < t->num_elements(); ++i) {
    if (!(t->GetValue(i) == v)) return std::nullopt;
  }
  return v;
}

// op(a, b) with operand `pos` a uniform constant and the other operand of
// the root's dims: op with that operand a single-element constant.
Rewrite ForOp(const std::string& op, int pos) {
  const Symbol sym = Symbol::Intern(op);
  Guard guard = [pos](const EGraph& g, const MatchView& m) {
    // Most operands hold no constant: ask that first (the cheapest test).
    if (!g.HasConstant(g.Find(m[pos]))) return false;
    const Id other = g.Find(m[1 - pos]);
    // Both operands constant: constant folding computes the result; a
    // scalar form of it would only feed associativity more constant products.
    return !g.HasConstant(other) && g.TypeOf(other).dims == g.TypeOf(g.Find(m.root)).dims &&
           UniformValue(g, m[pos]).has_value();
  };
  Applier applier = [pos, sym](EGraph& g, const MatchView& m) -> std::optional<Id> {
    const std::optional<double> v = UniformValue(g, m[pos]);
    if (!v) return std::nullopt;
    TensorType t = g.TypeOf(g.Find(m[pos]));
    for (int64_t& d : t.dims) d = 1;
    const double value[1] = {*v};
    const Id scalar = g.AddConstant(std::make_shared<const Tensor>(Tensor::FromValues(t, value)));
    Id ch[2] = {m[0], m[1]};
    ch[pos] = scalar;
    absl::StatusOr<Id> id =
        g.AddToClass(ENodeView{sym, g.Node(m.nodes[0]).payload, ch}, g.Find(m.root));
    if (!id.ok()) return std::nullopt;  // recorded in g.conflicts()
    return *id;
  };
  absl::StatusOr<Rewrite> r =
      MakeRewrite(std::string(kUniformConstantRule),
                  Pattern::Op(op, {Pattern::Var("a"), Pattern::Var("b")}), applier, guard);
  // The pattern is well formed by construction. The guard and the applier
  // read the operands' constants and the classes' types, nothing else
  // (Rewrite::reads).
  r->reads = Rewrite::Reads::kConstants;
  return *std::move(r);
}

}  // namespace

std::vector<Rewrite> UniformConstantRewrites() {
  std::vector<Rewrite> out;
  for (const char* op :
       {"ElementWiseAdd", "ElementWiseSubtract", "ElementWiseMultiply", "ElementWiseDivide",
        "ElementWiseMaximum", "ElementWiseMinimum", "ElementWisePower"}) {
    for (int pos : {0, 1}) out.push_back(ForOp(op, pos));
  }
  return out;
}

}  // namespace egret
