// The provenance sources of an input graph (backend/provenance.h): each
// node's readers, once each and ascending; what it stands for (its recorded
// provenance, else its name); whether it computes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "egret/backend/provenance.h"

namespace egret {
namespace {

NodeId AddOp(Graph& g, const std::string& op, const std::string& name,
             std::vector<ValueRef> inputs) {
  Node n;
  n.op = op;
  n.name = name;
  n.outputs.push_back(TensorType(DType::kFloat32, Dims{4}));
  for (const ValueRef& v : inputs) n.inputs.push_back(v);
  return g.AddNode(std::move(n));
}

TEST(ProvenanceSourcesTest, ReadersOnceEachAndWhatEachStandsFor) {
  Graph g;
  const NodeId x = g.AddInput("x", TensorType(DType::kFloat32, Dims{4}));
  const NodeId a = AddOp(g, "Relu", "a", {{x, 0}});
  const NodeId sq = AddOp(g, "ElementWiseMultiply", "sq", {{a, 0}, {a, 0}});  // a twice
  const NodeId unnamed = AddOp(g, "ElementWiseAdd", "", {{sq, 0}, {a, 0}});
  Node fused;
  fused.op = "Sigmoid";
  fused.inputs.push_back(ValueRef{unnamed, 0});
  fused.outputs.push_back(TensorType(DType::kFloat32, Dims{4}));
  fused.provenance.mutable_from() = {"p", "q"};
  fused.provenance.mutable_rules() = {"fuse"};
  const NodeId f = g.AddNode(std::move(fused));

  const std::vector<Id> classes = {10, 11, 12, 13, kNoId};
  const std::vector<NodeIdx> enodes = {20, 21};  // the rest not known
  const ProvenanceSources s(g, classes, enodes);
  ASSERT_EQ(s.size(), 5u);

  auto readers = [&](NodeId id) {
    return std::vector<uint32_t>(s.consumers(id).begin(), s.consumers(id).end());
  };
  EXPECT_EQ(readers(x), (std::vector<uint32_t>{a}));
  EXPECT_EQ(readers(a), (std::vector<uint32_t>{sq, unnamed}));  // sq once
  EXPECT_EQ(readers(sq), (std::vector<uint32_t>{unnamed}));
  EXPECT_EQ(readers(unnamed), (std::vector<uint32_t>{f}));
  EXPECT_TRUE(readers(f).empty());

  EXPECT_EQ(s.cls(a), 11u);
  EXPECT_EQ(s.cls(f), kNoId);
  EXPECT_EQ(s.enode(a), 21u);
  EXPECT_EQ(s.enode(sq), LowerTrace::kNoENode);
  EXPECT_FALSE(s.computing(x));
  EXPECT_TRUE(s.computing(a));

  auto from = [&](NodeId id) {
    std::vector<std::string> out;
    s.AppendFrom(id, &out);
    return out;
  };
  auto rules = [&](NodeId id) {
    std::vector<std::string> out;
    s.AppendRules(id, &out);
    return out;
  };
  EXPECT_EQ(from(x), (std::vector<std::string>{"x"}));
  EXPECT_EQ(from(sq), (std::vector<std::string>{"sq"}));
  EXPECT_TRUE(from(unnamed).empty());
  EXPECT_EQ(from(f), (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(rules(f), (std::vector<std::string>{"fuse"}));
  EXPECT_TRUE(rules(sq).empty());
  EXPECT_TRUE(rules(unnamed).empty());
}

TEST(ProvenanceSourcesTest, EmptyTableHasNoSources) {
  EXPECT_EQ(ProvenanceSources().size(), 0u);
  EXPECT_EQ(ProvenanceSources(Graph(), {}, {}).size(), 0u);
}

}  // namespace
}  // namespace egret
