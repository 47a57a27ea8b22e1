// Helpers for the rule-compiler tests: tiny graphs, rules from text, and one
// saturation run.
#ifndef EGRET_TESTS_COMPILE_COMPILE_TEST_UTIL_H_
#define EGRET_TESTS_COMPILE_COMPILE_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "egret/egraph/egraph.h"
#include "egret/egraph/graph_import.h"
#include "egret/egraph/runner.h"
#include "egret/graph/graph.h"
#include "egret/rules/rule_set.h"
#include "egret/rules_compile/compiler.h"
#include "gtest/gtest.h"

namespace egret::testing {

inline TensorType QU8(Dims d, int32_t zero = 0, float step = 1.0f) {
  return TensorType(DType::kQUInt8, std::move(d), zero, step);
}

inline NodeId AddOp(Graph& g, const std::string& op, std::vector<NodeId> inputs, TensorType out,
                    const std::string& name = "") {
  Node n;
  n.op = op;
  n.name = name;
  for (NodeId i : inputs) n.inputs.push_back(ValueRef{i, 0});
  n.outputs.push_back(std::move(out));
  return g.AddNode(std::move(n));
}

inline NodeId AddConst(Graph& g, TensorType t, std::vector<double> values,
                       const std::string& name = "") {
  return g.AddConstant(name, std::make_shared<const Tensor>(Tensor::FromValues(t, values)));
}

inline NodeId AddShapeNode(Graph& g, Dims dims) {
  Node n;
  n.op = std::string(kShapeOp);
  n.outputs.push_back(TensorType(DType::kInt32, std::move(dims)));
  return g.AddNode(std::move(n));
}

inline rules::RuleSet LoadRules(const std::string& text) {
  DiagnosticList diags;
  rules::RuleSet set = rules::LoadRuleText(text, "test.rules", {}, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  return set;
}

inline std::vector<rules::CompiledRule> CompileAll(const rules::RuleSet& set,
                                                   const rules::CompileOptions& options = {}) {
  DiagnosticList diags;
  std::vector<rules::CompiledRule> out = rules::CompileRules(set, options, &diags);
  EXPECT_FALSE(diags.has_errors()) << diags.ToString();
  return out;
}

// The e-graph of `g`, with the class of each node's first output.
struct Imported {
  EGraph eg;
  std::vector<Id> cls;  // by NodeId
};

inline Imported Import(const Graph& g) {
  Imported im;
  absl::StatusOr<GraphClasses> c = AddGraph(im.eg, g);
  EXPECT_TRUE(c.ok()) << c.status();
  if (c.ok()) {
    for (NodeId id = 0; id < c->size(); ++id) {
      im.cls.push_back((*c)[id].empty() ? kNoId : (*c)[id][0]);
    }
  }
  im.eg.Rebuild();
  return im;
}

inline RunReport Saturate(EGraph& eg, const std::vector<rules::CompiledRule>& rules,
                          size_t iterations = 10) {
  std::vector<Rewrite> rws;
  for (const rules::CompiledRule& r : rules) rws.push_back(r.rewrite);
  RunnerOptions o;
  o.limits.iterations = iterations;
  Runner runner(eg, o);
  return runner.Run(rws);
}

// Whether class c has a node with op `op`.
inline bool HasOp(const EGraph& eg, Id c, const std::string& op) {
  return !eg.ClassNodesWithOp(eg.Find(c), Symbol::Intern(op)).empty();
}

// The first node of class c with op `op`.
inline ENodeView NodeWithOp(const EGraph& eg, Id c, const std::string& op) {
  auto nodes = eg.ClassNodesWithOp(eg.Find(c), Symbol::Intern(op));
  EXPECT_FALSE(nodes.empty()) << "no " << op << " in class " << c;
  return eg.Node(nodes.front());
}

}  // namespace egret::testing

#endif  // EGRET_TESTS_COMPILE_COMPILE_TEST_UTIL_H_
