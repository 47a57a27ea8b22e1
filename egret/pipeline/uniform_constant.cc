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

// The operand of op(a, b) (0 or 1) that a uniform constant could stand for
// as a scalar: the one constant operand, when exactly one is constant (both
// constant: constant folding computes the result; a scalar form of it would
// only feed associativity more constant products). -1 when none.
int ConstantOperand(const EGraph& g, const MatchView& m) {
  const bool c0 = g.HasConstant(g.Find(m[0]));
  const bool c1 = g.HasConstant(g.Find(m[1]));
  return c0 == c1 ? -1 : (c0 ? 0 : 1);
}

// op(a, b) with one operand a uniform constant and the other of the root's
// dims: op with that operand a single-element constant. One rewrite for both
// positions, so that each candidate root is searched once.
Rewrite ForOp(const std::string& op) {
  const Symbol sym = Symbol::Intern(op);
  Guard guard = [](const EGraph& g, const MatchView& m) {
    // Most operands hold no constant: ask that first (the cheapest test).
    const int pos = ConstantOperand(g, m);
    return pos >= 0 && g.TypeOf(g.Find(m[1 - pos])).dims == g.TypeOf(g.Find(m.root)).dims &&
           UniformValue(g, m[pos]).has_value();
  };
  Applier applier = [sym](EGraph& g, const MatchView& m) -> std::optional<Id> {
    const int pos = ConstantOperand(g, m);
    if (pos < 0) return std::nullopt;
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
    out.push_back(ForOp(op));
  }
  return out;
}

}  // namespace egret
